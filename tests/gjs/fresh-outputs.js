// A compiled function written in JavaScript that returns fresh tensors,
// called again and again with garbage collection in between, through a
// compiler written in JavaScript and a registry: the outputs must be the
// tensors it made, with the right values.
//
// Usage: gjs fresh-outputs.js   (REG_TEST_CALLS calls, default 10000)
// Run by meson (suites `introspection` and `ownership`); tools/check runs it
// under ASan, and a shorter run under valgrind memcheck.  Exits 1 on failure.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.Gio = '2.0';
imports.gi.versions.Reg = '1.0';
const {GLib, GObject, Gio, Reg} = imports.gi;
const System = imports.system;

function fail(message) {
    printerr(message);
    System.exit(1);
}

const FreshFn = GObject.registerClass({
    Implements: [Reg.CompiledFn],
}, class FreshFn extends GObject.Object {
    // New tensors: 3 * x, and the sum of x.
    vfunc_run(inputs) {
        const data = Array.from(inputs[0].get_data());
        const outputs = new Gio.ListStore({item_type: Reg.Tensor});
        outputs.append(Reg.Tensor.new_from_data(data.map(v => 3 * v), inputs[0].get_shape()));
        outputs.append(Reg.Tensor.new_from_data([data.reduce((a, b) => a + b, 0)], []));
        return outputs;
    }
});

const FreshCompiler = GObject.registerClass({
    Implements: [Reg.Compiler],
}, class FreshCompiler extends GObject.Object {
    vfunc_compile(graph, exampleInputs, options) {
        return new FreshFn();
    }

    vfunc_dup_name() {
        return 'js_fresh';
    }
});

const calls = parseInt(GLib.getenv('REG_TEST_CALLS') || '10000');
const registry = Reg.Registry.new();
registry.register_backend(null, new FreshCompiler(), null);
const graph = Reg.Graph.new_from_string('graph(x):\n  a = mul(x, 3)\n  s = sum(x)\n  return (a, s)\n');
const fn = registry.compile('js_fresh', graph, [Reg.Tensor.new([4])], null);
for (let i = 0; i < calls; i++) {
    let outputs = fn.call([Reg.Tensor.new_from_data([i, -i, 0.5, 2], [4])]);
    System.gc();
    if (outputs.length !== 2)
        fail(`call ${i}: ${outputs.length} outputs`);
    const [tripled, total] = outputs;
    if (Array.from(tripled.get_data()).join() !== [3 * i, -3 * i, 1.5, 6].join())
        fail(`call ${i}: wrong tensor ${tripled.get_data()}`);
    if (Array.from(total.get_data()).join() !== '2.5' || total.get_shape().length !== 0)
        fail(`call ${i}: wrong sum ${total.get_data()}`);
    outputs = null;
}
print(`${calls} calls: ok`);
