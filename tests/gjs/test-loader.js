// Backends written in JavaScript and Python, declared by manifests, looked
// up from a gjs program: the loader imports JavaScript into this program's
// own GJS context, from synchronous code and from async functions (which
// run as promise jobs), and starts Python beside it.
//
// The fixtures are tests/loaders/gjs and tests/loaders/python (on
// REG_BACKEND_PATH, and PYTHONPATH, see tests/meson.build).  Verdicts go
// to a cache of the test's own.  Prints TAP; exits 1 when a test fails.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GLib = '2.0';
imports.gi.versions.Reg = '1.0';
const {GLib, Reg} = imports.gi;
const System = imports.system;

const cache = GLib.dir_make_tmp('test-loader-gjs-XXXXXX');
GLib.setenv('XDG_CACHE_HOME', cache, true);

const registry = Reg.Registry.get_default();
const graph = Reg.Graph.new_from_string(
    'graph(x, y):\n  a = mul(x, y)\n  b = add(a, 1.5)\n  c = relu(b)\n  return (c,)\n');
const inputs = [Reg.Tensor.new_from_data([1, -2, 3], [3]), Reg.Tensor.new_from_data([2, 2, 2], [3])];

function assert(condition, what = 'assertion failed') {
    if (!condition)
        throw new Error(what);
}

function checkRuns(compiler) {
    const [out] = compiler.compile(graph, inputs, null).call(inputs);
    assert(Array.from(out.get_data()).join() === '3.5,0,7.5', `wrong result ${out.get_data()}`);
}

function expectLoadFailed(name, ...fragments) {
    try {
        registry.lookup_backend(name);
    } catch (e) {
        assert(e.matches(Reg.RegistryError, Reg.RegistryError.LOAD_FAILED), `${e}`);
        for (const fragment of fragments)
            assert(e.message.includes(fragment), `'${e.message}' does not say '${fragment}'`);
        return;
    }
    throw new Error(`${name} was loaded`);
}

const tests = [];

function test(name, fn) {
    tests.push({name, fn});
}

test('listing starts nothing new', () => {
    assert(registry.list_backends([]).includes('js_good'));
    const info = registry.get_backend_info('js_good');
    assert(info.get_loader() === 'gjs' && !info.get_loaded());
    assert(globalThis.regfixGoodImports === undefined, 'good.js was evaluated');
});

test('a class and a function, in this context', () => {
    checkRuns(registry.lookup_backend('js_good'));
    checkRuns(registry.lookup_backend('js_good_fn'));
    // This program's context evaluated the module, once.
    assert(globalThis.regfixGoodImports === 1, `evaluated ${globalThis.regfixGoodImports} times`);
});

test('failures are errors with their reasons', () => {
    expectLoadFailed('js_raising', 'TypeError: raising.js refuses to be imported',
        'raising.js:7:11');
    expectLoadFailed('js_syntax', "SyntaxError: expected expression, got ';'", 'syntax.js:5:24');
    expectLoadFailed('js_not_compiler', 'which does not implement Reg.Compiler');
    expectLoadFailed('js_make_throws', 'RangeError: wrong.js throws() fails');
    expectLoadFailed('js_self', 'it was looked up while its code (self.js, Loader=gjs) was ' +
        'being imported');
    checkRuns(registry.lookup_backend('js_others'));
});

test('a first lookup from an async function', () => {
    const loop = new GLib.MainLoop(null, false);
    let failure = null;
    let afterwards = false;
    (async () => {
        await Promise.resolve();
        checkRuns(registry.lookup_backend('js_retry'));
        // The jobs of the program go on after the import.
        await Promise.resolve();
        afterwards = true;
    })().catch(e => {
        failure = e;
    }).finally(() => loop.quit());
    loop.run();
    if (failure !== null)
        throw failure;
    assert(afterwards, 'the async function did not finish');
});

test('a backend written in Python, from gjs', () => {
    checkRuns(registry.lookup_backend('py_good'));
});

test('verification quarantines the crashing ones', () => {
    const timeout = new GLib.Variant('a{sv}', {timeout: new GLib.Variant('d', 2)});
    const expected = {js_crash: 'crashed', py_crash: 'crashed', js_hang: 'timeout', js_good: 'ok'};
    for (const [name, kind] of Object.entries(expected)) {
        const verdict = registry.verify_backend(name, timeout, null);
        const nick = Object.keys(Reg.VerdictKind).find(k => Reg.VerdictKind[k] === verdict.get_kind());
        assert(nick === kind.toUpperCase(), `${name}: ${nick}, ${verdict.get_reason()}`);
        assert(verdict.get_module_path().startsWith(`${cache}/libreg/verdict-keys/`),
            `${name}: recorded against ${verdict.get_module_path()}`);
        if (kind === 'ok') {
            assert(!verdict.get_quarantines());
            checkRuns(registry.lookup_backend(name));
        } else {
            assert(verdict.get_quarantines(), `${name} is not quarantined`);
            expectLoadFailed(name, 'is quarantined', `run \`regctl verify ${name}\``);
        }
    }
    // And this program goes on.
    checkRuns(registry.lookup_backend('py_good'));
});

test("the documentation's examples agree with eager", () => {
    const g = Reg.Graph.new_from_string('graph(x, y):\n  a = mul(x, y)\n  b = add(a, 1.5)\n' +
        '  c = tanh(b)\n  d = sigmoid(c)\n  e = sub(d, x)\n  return (e,)\n');
    const xs = [Reg.Tensor.new_from_data([0.5, -1, 2, 3], [2, 2]),
        Reg.Tensor.new_from_data([1, 2, -3, 0.25], [2, 2])];
    const want = Array.from(registry.compile('eager', g, xs, null).call(xs)[0].get_data());
    for (const name of ['acme', 'acme_js']) {
        const got = Array.from(registry.compile(name, g, xs, null).call(xs)[0].get_data());
        assert(got.every((v, i) => Math.abs(v - want[i]) < 1e-6), `${name}: ${got} != ${want}`);
    }
});

let failed = 0;
print(`1..${tests.length}`);
tests.forEach(({name, fn}, i) => {
    try {
        fn();
        print(`ok ${i + 1} ${name}`);
    } catch (e) {
        failed++;
        print(`not ok ${i + 1} ${name}`);
        printerr(`# ${name}: ${e}\n${e.stack}`);
    }
});
if (failed > 0)
    System.exit(1);
