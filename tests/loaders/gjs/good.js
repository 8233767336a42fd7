// good.js: a backend written in JavaScript, for the loader's tests
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// GoodCompiler compiles with eager and wraps what eager made in a
// CountingFn, so that every call runs JavaScript; makeGood() is the same
// compiler made by a function.  globalThis.regfixGoodImports counts the
// evaluations of this module in its context.

import Gio from 'gi://Gio?version=2.0';
import GObject from 'gi://GObject?version=2.0';
import Reg from 'gi://Reg?version=1.0';

globalThis.regfixGoodImports = (globalThis.regfixGoodImports ?? 0) + 1;

const CountingFn = GObject.registerClass({
    Implements: [Reg.CompiledFn],
}, class CountingFn extends GObject.Object {
    _init(inner) {
        super._init();
        this._inner = inner;
        this.calls = 0;
    }

    vfunc_run(inputs) {
        this.calls++;
        const outputs = new Gio.ListStore({item_type: Reg.Tensor});
        for (const tensor of this._inner.call(inputs))
            outputs.append(tensor);
        return outputs;
    }
});

export const GoodCompiler = GObject.registerClass({
    Implements: [Reg.Compiler],
}, class GoodCompiler extends GObject.Object {
    vfunc_compile(graph, exampleInputs, options) {
        const eager = Reg.Registry.get_default().lookup_backend('eager');
        return new CountingFn(eager.compile(graph, exampleInputs, options));
    }

    vfunc_dup_name() {
        return 'js_good';
    }
});

export function makeGood() {
    return new GoodCompiler();
}
