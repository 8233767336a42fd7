// handoff.js: the JavaScript side of the loader of backends written in
// JavaScript
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// reg-loader-gjs-engine.cc evaluates this script, in the global of the
// program's GJS context, each time it imports a backend's module; its
// value is the object below.  adopt() receives the imported module's
// namespace and hands the loader a RegGjsHandoff (a C type of the
// loader), connecting to its `make` signal the function by which the
// loader asks for each backend's object.  describe() turns what was
// thrown into the text of the loader's error, with the backend's own
// stack frames only.

(() => {
    const GObject = imports.gi.GObject;

    // Frames of the loader itself and of GJS, and the frames under them
    // (who looked the backend up) are not the backend's.
    const LOADER_FRAMES = ['resource:///org/libreg/', 'resource:///org/gnome/gjs/',
        'reg-loader-gjs:'];
    const ours = where => LOADER_FRAMES.some(prefix => where.includes(prefix));

    // The frames of the stack, innermost first, down to the top level of
    // the module @uri (the import) or to the first frame of the loader.
    function backendFrames(stack, uri) {
        const frames = [];
        for (const line of stack.split('\n')) {
            if (line.length === 0)
                continue;
            if (ours(line))
                break;
            frames.push(line);
            if (uri && line.startsWith(`@${uri}:`))
                break;
        }
        return frames;
    }

    // "TypeError: message (at FILE:LINE:COLUMN; stack: f@FILE:LINE:COLUMN, ...)"
    function describe(error, uri) {
        let text;
        if (error instanceof Error)
            text = `${error.name}: ${error.message}`;
        else if (error instanceof GObject.Object || typeof error !== 'object' || error === null)
            text = `the value ${String(error)} was thrown`;
        else
            text = String(error);
        const where = [];
        if (error instanceof Error && error.fileName && !ours(error.fileName))
            where.push(`at ${error.fileName}:${error.lineNumber}:${error.columnNumber}`);
        const frames = backendFrames(typeof error?.stack === 'string' ? error.stack : '', uri);
        if (frames.length > 0)
            where.push(`stack: ${frames.slice(0, 12).join(', ')}`);
        if (where.length > 0)
            text += ` (${where.join('; ')})`;
        return text;
    }

    function describeValue(value) {
        if (value === null || value === undefined)
            return String(value);
        if (typeof value === 'object' && value.constructor)
            return `a ${value.constructor.name}`;
        return `a ${typeof value}`;
    }

    function make(namespace, entry) {
        if (!(entry in namespace))
            throw new ReferenceError(`the module exports no ${entry}`);
        const object = namespace[entry];
        const isClass = typeof object === 'function' && object.$gtype !== undefined;
        let made;
        if (isClass)
            made = new object();
        else if (typeof object === 'function')
            made = object();
        else
            throw new TypeError(`${entry} is ${describeValue(object)}, not a class or a function`);
        if (!(made instanceof GObject.Object)) {
            throw new TypeError(`${entry}${isClass ? '' : '()'} gave ${describeValue(made)}, ` +
                'not a GObject.Object implementing Reg.Compiler');
        }
        return made;
    }

    return {
        adopt(namespace) {
            const handoff = GObject.Object.new_with_properties(
                GObject.type_from_name('RegGjsHandoff'), [], []);
            handoff.connect('make', (self, entry) => {
                try {
                    return make(namespace, entry);
                } catch (e) {
                    self.error = describe(e);
                    return null;
                }
            });
            handoff.ready = true;
        },
        describe,
    };
})();
