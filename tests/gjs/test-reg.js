// libreg from GJS: listing, compiling and calling on the default backend,
// backends written in JavaScript (a GObject class implementing Reg.Compiler
// and Reg.CompiledFn, and a Reg.FuncCompiler around a closure), signals and
// errors.
//
// Run by meson (suite `introspection`) with GI_TYPELIB_PATH,
// LD_LIBRARY_PATH, REG_BACKEND_PATH and REG_BACKEND_SYSTEM_DIR='' set.
// Prints TAP; exits 1 when a test fails.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.GLib = '2.0';
imports.gi.versions.GObject = '2.0';
imports.gi.versions.Gio = '2.0';
imports.gi.versions.Reg = '1.0';
const {GLib, GObject, Gio, Reg} = imports.gi;
const System = imports.system;

// Before GObject.registerClass of any class that implements the
// interfaces: it copies an interface's methods into the class, and a later
// _promisify does not reach them.
Gio._promisify(Reg.Registry.prototype, 'compile_async', 'compile_finish');
Gio._promisify(Reg.Compiler.prototype, 'compile_async', 'compile_finish');
Gio._promisify(Reg.CompiledFn.prototype, 'call_async', 'call_finish');

const GRAPH_TEXT = `graph(x, y):
  a = mul(x, y)
  b = add(a, 1.5)
  c = relu(b)
  return (c,)
`;

const SHIPPED = [
    'eager',
    'inductor',
    'relu_compile_error_TESTING_ONLY',
    'relu_runtime_error_TESTING_ONLY',
];

const HAVE_MODULES = !!GLib.getenv('REG_BACKEND_PATH');

// -- Assertions ----------------------------------------------------------------

class AssertionError extends Error {}

function assert(condition, what = 'assertion failed') {
    if (!condition)
        throw new AssertionError(what);
}

function repr(value) {
    if (value instanceof Float32Array || value instanceof Float64Array)
        value = Array.from(value);
    return JSON.stringify(value);
}

function assertEqual(actual, expected, what = '') {
    if (repr(actual) !== repr(expected))
        throw new AssertionError(`${what} expected ${repr(expected)}, got ${repr(actual)}`);
}

function assertClose(actual, expected, tolerance = 1e-5, what = '') {
    assertEqual(actual.length, expected.length, `${what} length`);
    for (let i = 0; i < expected.length; i++) {
        if (!(Math.abs(actual[i] - expected[i]) <= tolerance * (1 + Math.abs(expected[i]))))
            throw new AssertionError(`${what} element ${i}: expected ${expected[i]}, got ${actual[i]}`);
    }
}

// Runs `fn`, which must throw a GLib.Error of `domain` (an error enum such
// as Reg.RegistryError) and `code`.  Returns the error.
function assertGError(fn, domain, code, message = undefined) {
    let error = null;
    try {
        fn();
    } catch (e) {
        error = e;
    }
    assert(error !== null, 'no error was thrown');
    assert(error instanceof GLib.Error, `not a GLib.Error: ${error}`);
    assert(error.matches(domain, code),
        `expected code ${code}, got domain ${GLib.quark_to_string(error.domain)} code ${error.code}: ${error.message}`);
    if (message !== undefined)
        assertEqual(error.message, message, 'message');
    return error;
}

// -- Helpers -------------------------------------------------------------------

function tensor(values, shape = [values.length]) {
    return Reg.Tensor.new_from_data(values, shape);
}

function float32(values) {
    return Array.from(new Float32Array(values));
}

function reluMulAdd(x, y) {
    return float32(x.map((v, i) => Math.max(Math.fround(Math.fround(v * y[i]) + 1.5), 0)));
}

function randomValues(n) {
    return float32(Array.from({length: n}, () => Math.random() * 4 - 2));
}

// A JavaScript interpreter of the elementwise operators and `sum`.
const UNARY = {
    neg: a => -a,
    relu: a => Math.max(a, 0),
    exp: Math.exp,
    log: Math.log,
    sqrt: Math.sqrt,
    tanh: Math.tanh,
    sigmoid: a => 1 / (1 + Math.exp(-a)),
    abs: Math.abs,
};
const BINARY = {
    add: (a, b) => a + b,
    sub: (a, b) => a - b,
    mul: (a, b) => a * b,
    div: (a, b) => a / b,
    maximum: Math.max,
    minimum: Math.min,
};

function readGraph(graph) {
    const nodes = [];
    for (let n = 0; n < graph.get_n_nodes(); n++) {
        switch (graph.get_node_kind(n)) {
        case Reg.NodeKind.INPUT:
            nodes.push({kind: 'input'});
            break;
        case Reg.NodeKind.CONSTANT:
            nodes.push({kind: 'constant', value: graph.get_node_value(n)});
            break;
        default: {
            const op = graph.get_node_op(n);
            if (!(op in UNARY || op in BINARY || op === 'sum')) {
                throw new GLib.Error(Reg.CompilerError, Reg.CompilerError.UNSUPPORTED_OP,
                    `js: no operator ${op}`);
            }
            nodes.push({kind: 'op', op, args: Array.from(graph.get_node_args(n))});
        }
        }
    }
    return {nodes, inputs: Array.from(graph.get_inputs()), outputs: Array.from(graph.get_outputs())};
}

// A value is {shape, data: Float32Array}, or a number for a constant.
function runGraph(program, inputs) {
    const values = [];
    program.inputs.forEach((node, i) => {
        values[node] = {shape: Array.from(inputs[i].get_shape()), data: Float32Array.from(inputs[i].get_data())};
    });
    program.nodes.forEach((node, n) => {
        if (node.kind === 'constant') {
            values[n] = node.value;
        } else if (node.kind === 'op') {
            const args = node.args.map(a => values[a]);
            if (node.op === 'sum') {
                values[n] = {shape: [], data: Float32Array.of(args[0].data.reduce((s, v) => s + v, 0))};
            } else if (node.op in UNARY) {
                values[n] = {shape: args[0].shape, data: args[0].data.map(UNARY[node.op])};
            } else {
                const [a, b] = args;
                const like = typeof a === 'number' ? b : a;
                const at = i => typeof a === 'number' ? a : a.data[i];
                const bt = i => typeof b === 'number' ? b : b.data[i];
                values[n] = {shape: like.shape, data: like.data.map((_, i) => BINARY[node.op](at(i), bt(i)))};
            }
        }
    });
    return program.outputs.map(o => Reg.Tensor.new_from_data(Array.from(values[o].data), values[o].shape));
}

// What a Reg.CompiledFn's run returns: one list that holds the tensors.
function outputsOf(tensors) {
    const store = new Gio.ListStore({item_type: Reg.Tensor});
    for (const t of tensors)
        store.append(t);
    return store;
}

const JsCompiledFn = GObject.registerClass({
    Implements: [Reg.CompiledFn],
}, class JsCompiledFn extends GObject.Object {
    _init(program) {
        super._init();
        this._program = program;
        this.calls = 0;
    }

    vfunc_run(inputs) {
        this.calls++;
        return outputsOf(runGraph(this._program, inputs));
    }
});

const JsCompiler = GObject.registerClass({
    Implements: [Reg.Compiler],
}, class JsCompiler extends GObject.Object {
    _init(name = 'js_interp') {
        super._init();
        this._name = name;
        this.compiles = 0;
    }

    vfunc_compile(graph, exampleInputs, options) {
        this.compiles++;
        if (options !== null && options.n_children() > 0) {
            const [key] = options.get_child_value(0).get_child_value(0).get_string();
            throw new GLib.Error(Reg.CompilerError, Reg.CompilerError.BAD_OPTION,
                `js: unknown option '${key}'`);
        }
        return new JsCompiledFn(readGraph(graph));
    }

    vfunc_dup_name() {
        return this._name;
    }
});

const ScaledFn = GObject.registerClass({
    Implements: [Reg.CompiledFn],
}, class ScaledFn extends GObject.Object {
    _init(program, factor) {
        super._init();
        this._program = program;
        this._factor = factor;
    }

    vfunc_run(inputs) {
        return outputsOf(runGraph(this._program, inputs).map(t => tensor(
            Array.from(t.get_data()).map(v => v * this._factor), Array.from(t.get_shape()))));
    }
});

const ThrowingFn = GObject.registerClass({
    Implements: [Reg.CompiledFn],
}, class ThrowingFn extends GObject.Object {
    vfunc_run(inputs) {
        throw new RangeError('vfunc_run fails on purpose');
    }
});

const ThrowingCompiler = GObject.registerClass({
    Implements: [Reg.Compiler],
}, class ThrowingCompiler extends GObject.Object {
    vfunc_compile(graph, exampleInputs, options) {
        if (graph.get_n_nodes() > 1)
            throw new TypeError('vfunc_compile fails on purpose');
        return new ThrowingFn();
    }
});

// Takes matmul and add only, computes them with `eager`, and says so in
// vfunc_dup_supported_nodes.
const PartialCompiler = GObject.registerClass({
    Implements: [Reg.Compiler],
}, class PartialCompiler extends GObject.Object {
    _init(eager) {
        super._init();
        this._eager = eager;
        this.asked = 0;
    }

    vfunc_compile(graph, exampleInputs, options) {
        for (let i = 0; i < graph.get_n_nodes(); i++) {
            const op = graph.get_node_op(i);
            if (op !== null && op !== 'matmul' && op !== 'add') {
                throw new GLib.Error(Reg.CompilerError, Reg.CompilerError.UNSUPPORTED_OP,
                    `js_partial: no ${op}`);
            }
        }
        return this._eager.compile(graph, exampleInputs, null);
    }

    vfunc_dup_name() {
        return 'js_partial';
    }

    vfunc_dup_supported_nodes(graph, exampleInputs) {
        this.asked++;
        const ids = [];
        for (let i = 0; i < graph.get_n_nodes(); i++) {
            if (['matmul', 'add'].includes(graph.get_node_op(i)))
                ids.push(i);
        }
        return new GLib.Variant('au', ids);
    }
});

// -- Tests ---------------------------------------------------------------------

const tests = [];
function test(name, fn, {modules = false} = {}) {
    tests.push({name, fn, modules});
}

test('constants and error domains', () => {
    assertEqual(Reg.DEFAULT_BACKEND, 'inductor');
    assertEqual(Reg.TAG_DEBUG, 'debug');
    assertEqual(Reg.TAG_EXPERIMENTAL, 'experimental');
    assertEqual(GLib.quark_to_string(Reg.registry_error_quark()), 'reg-registry-error-quark');
    assertEqual(GLib.quark_to_string(Reg.compiler_error_quark()), 'reg-compiler-error-quark');
    assertEqual(GLib.quark_to_string(Reg.graph_error_quark()), 'reg-graph-error-quark');
    // As difflib.get_close_matches: best first, ties in reverse order.
    assertEqual(Reg.close_matches('eagr', ['eager', 'inductor', 'eagre'], 3, 0.6), ['eagre', 'eager']);
});

test('list the default registry', () => {
    const registry = Reg.Registry.get_default();
    assert(registry === Reg.Registry.get_default(), 'one default registry');
    assertEqual(registry.list_backends(null), ['inductor']);
    assertEqual(registry.list_backends([]), SHIPPED);
    assertEqual(registry.list_backends(['debug']), ['inductor']);
    assertEqual(registry.get_backend_tags('eager'), ['debug']);
    assertEqual(registry.default_backend, 'inductor');
}, {modules: true});

test('compile and call on the default backend', () => {
    const registry = Reg.Registry.get_default();
    const graph = Reg.Graph.new_from_string(GRAPH_TEXT);
    assertEqual(graph.to_string(), GRAPH_TEXT);
    const xs = randomValues(12), ys = randomValues(12);
    const x = tensor(xs, [3, 4]), y = tensor(ys, [3, 4]);
    const fn = registry.compile(null, graph, [x, y], null);
    assert(fn instanceof Reg.CompiledFn);
    const outputs = fn.call([x, y]);
    assertEqual(outputs.length, 1);
    assert(outputs[0] instanceof Reg.Tensor);
    assertEqual(outputs[0].get_shape(), [3, 4]);
    assertClose(outputs[0].get_data(), reluMulAdd(xs, ys), 1e-6);
    assert(registry.lookup_backend('inductor') === registry.dup_default_compiler(),
        'the default compiler is inductor');
    // The same through eager, with an empty options dictionary.
    const eager = registry.compile('eager', graph, [x, y], new GLib.Variant('a{sv}', {}));
    assertClose(eager.call([x, y])[0].get_data(), reluMulAdd(xs, ys), 1e-6);
    // And with inductor's options.
    const options = new GLib.Variant('a{sv}', {
        fuse: new GLib.Variant('b', false),
        threads: new GLib.Variant('u', 2),
    });
    const unfused = registry.compile('inductor', graph, [x, y], options);
    assertClose(unfused.call([x, y])[0].get_data(), reluMulAdd(xs, ys), 1e-6);
}, {modules: true});

test('tensors through GLib.Bytes', () => {
    const values = new Float32Array([0, 1.5, -2.25, 3, 4, 5]);
    const t = Reg.Tensor.new_from_bytes(new GLib.Bytes(new Uint8Array(values.buffer)), [2, 3]);
    assertEqual(t.get_shape(), [2, 3]);
    assertEqual(t.get_n_elements(), 6);
    assertEqual(t.get_data(), Array.from(values));
    const back = new Float32Array(t.dup_bytes().toArray().buffer);
    assertEqual(back, values);
    assert(t.allclose(tensor(Array.from(values), [2, 3]), 0, 0), 'allclose');
    assert(!t.allclose(tensor(Array.from(values), [3, 2]), 1, 1), 'shapes differ');
    // Use the constructors: `new Reg.Tensor()` (g_object_new) gives a tensor
    // without data (see tests/python/test_reg.py, TestKnownBindingProblems).
    const zeros = Reg.Tensor.new([2, 2]);
    assertEqual(zeros.get_data(), [0, 0, 0, 0]);
    const scalar = Reg.Tensor.new([]);
    assertEqual([scalar.get_n_dims(), scalar.get_n_elements()], [0, 1]);
    assertEqual(Reg.Tensor.new([4, 0]).get_n_elements(), 0);
    assertGError(() => tensor([1, 2, 3], [2, 2]), Reg.GraphError, Reg.GraphError.SHAPE);
});

test('graph builder', () => {
    const g = new Reg.Graph();
    const x = g.add_input('x');
    const k = g.add_constant(2);
    const m = g.add_op('mul', [x, k]);
    const s = g.add_op('sum', [m]);
    g.set_outputs([m, s]);
    assert(g.validate());
    assertEqual(g.get_n_nodes(), 4);
    assertEqual(g.get_node_kind(x), Reg.NodeKind.INPUT);
    assertEqual(g.get_node_kind(k), Reg.NodeKind.CONSTANT);
    assertEqual(g.get_node_op(m), 'mul');
    assertEqual(g.get_node_args(m), [x, k]);
    assertEqual(g.get_node_value(k), 2);
    assertEqual(g.get_outputs(), [m, s]);
    assertEqual(g.to_string(), 'graph(x):\n  v2 = mul(x, 2.0)\n  v3 = sum(v2)\n  return (v2, v3)\n');
    assertGError(() => g.add_op('nope', [x]), Reg.GraphError, Reg.GraphError.UNKNOWN_OP);
    const e = assertGError(() => Reg.Graph.new_from_string('graph(x):\n  a = relu(z)\n  return (a,)\n'),
        Reg.GraphError, Reg.GraphError.UNDEFINED);
    assert(e.message.startsWith('2:'), e.message);
});

test('operators as Reg.Op', () => {
    const names = ['add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'neg', 'relu', 'exp',
        'log', 'sqrt', 'tanh', 'sigmoid', 'abs', 'sum', 'matmul'];
    const values = Object.keys(Reg.Op).filter(k => typeof Reg.Op[k] === 'number');
    assertEqual(values.map(k => k.toLowerCase()), names);
    for (const key of values) {
        const op = Reg.Op[key];
        assertEqual(Reg.Op.get_name(op), key.toLowerCase(), key);
        assertEqual(Reg.Op.from_name(key.toLowerCase()), [true, op], key);
    }
    assertEqual(Reg.Op.from_name('Matmul')[0], false);
    assertEqual(Reg.Op.get_arity(Reg.Op.MATMUL), 2);
    assertEqual(Reg.Op.get_kind(Reg.Op.MATMUL), Reg.OpKind.MATMUL);
    assertEqual(Reg.Op.get_kind(Reg.Op.SUM), Reg.OpKind.REDUCTION);

    const g = new Reg.Graph();
    const x = g.add_input('x');
    const w = g.add_input('w');
    const h = g.add_op(Reg.Op.get_name(Reg.Op.MATMUL), [x, w]);
    assert(g.set_node_name(h, 'h'));
    const s = g.add_op('sum', [h]);
    g.set_outputs([h, s]);
    assertEqual(g.get_node_operator(h), Reg.Op.MATMUL);
    assertEqual(g.get_node_op(h), 'matmul');
    assertEqual(g.get_node_name(h), 'h');
    assertEqual(g.to_string(), 'graph(x, w):\n  h = matmul(x, w)\n  v3 = sum(h)\n  return (h, v3)\n');
    assertGError(() => g.add_op('matmul', [x]), Reg.GraphError, Reg.GraphError.ARITY,
        'matmul takes 2 arguments, 1 given');
    assertGError(() => g.set_node_name(s, 'x'), Reg.GraphError, Reg.GraphError.REDEFINED);
    assertEqual(g.get_n_nodes(), 4);

    const shapes = g.infer_shapes([Reg.Tensor.new([2, 3]), Reg.Tensor.new([3, 4])]);
    assert(shapes instanceof Reg.ShapeList);
    const all = [];
    for (let i = 0; i < shapes.get_n_shapes(); i++)
        all.push(Array.from(shapes.get_shape(i)));
    assertEqual(all, [[2, 3], [3, 4], [2, 4], []]);
    assertGError(() => g.infer_shapes([Reg.Tensor.new([2, 3]), Reg.Tensor.new([2, 4])]),
        Reg.GraphError, Reg.GraphError.SHAPE);
});

test('a graph built with matmul compiles', () => {
    const registry = Reg.Registry.get_default();
    const g = new Reg.Graph();
    const h = g.add_op('matmul', [g.add_input('x'), g.add_input('w')]);
    g.set_outputs([g.add_op('relu', [h])]);
    const xs = randomValues(6), ws = randomValues(12);
    const inputs = [tensor(xs, [2, 3]), tensor(ws, [3, 4])];
    const want = [];
    for (let i = 0; i < 2; i++) {
        for (let j = 0; j < 4; j++) {
            let acc = 0;
            for (let k = 0; k < 3; k++)
                acc += xs[i * 3 + k] * ws[k * 4 + j];
            want.push(Math.max(acc, 0));
        }
    }
    for (const backend of ['eager', 'inductor']) {
        const out = registry.compile(backend, g, inputs, null).call(inputs)[0];
        assertEqual(out.get_shape(), [2, 4], backend);
        assertClose(out.get_data(), want, 1e-5, backend);
    }
}, {modules: true});

test('errors', () => {
    const registry = Reg.Registry.new();
    assertGError(() => registry.lookup_backend('indctor'), Reg.RegistryError,
        Reg.RegistryError.INVALID_BACKEND,
        "Invalid backend: 'indctor', did you mean: 'inductor'? See `regctl list` for available backends.");
    assertGError(() => registry.lookup_backend('zzzzzz'), Reg.RegistryError,
        Reg.RegistryError.INVALID_BACKEND,
        "Invalid backend: 'zzzzzz'. See `regctl list` for available backends.");
    assertGError(() => registry.register_backend('bad name', new JsCompiler(), null),
        Reg.RegistryError, Reg.RegistryError.INVALID_NAME);
    registry.register_backend('js_dup', new JsCompiler(), null);
    assertGError(() => registry.register_backend('js_dup', new JsCompiler(), null),
        Reg.RegistryError, Reg.RegistryError.DUPLICATE_NAME, 'duplicate name: js_dup');
    const graph = Reg.Graph.new_from_string(GRAPH_TEXT);
    const x = tensor([1, 2]);
    const bad = new GLib.Variant('a{sv}', {fuse: new GLib.Variant('b', true)});
    const e = assertGError(() => registry.compile('eager', graph, [x, x], bad),
        Reg.CompilerError, Reg.CompilerError.BAD_OPTION);
    assert(e.message.includes('fuse'), e.message);
    const fn = registry.compile('eager', graph, [x, x], null);
    assertGError(() => fn.call([x]), Reg.CompilerError, Reg.CompilerError.BAD_INPUTS);
    assertGError(() => fn.call([x, tensor([1, 2, 3])]), Reg.CompilerError, Reg.CompilerError.BAD_INPUTS);
    assertGError(() => registry.compile('eager', graph, [x, tensor([1])], null),
        Reg.GraphError, Reg.GraphError.SHAPE);
    const rt = registry.compile('relu_runtime_error_TESTING_ONLY', graph, [x, x], null);
    assertGError(() => rt.call([x, x]), Reg.CompilerError, Reg.CompilerError.RUNTIME);
}, {modules: true});

test('a JavaScript backend: register, signal, list, compile, call', () => {
    const registry = Reg.Registry.new();
    const heard = [], all = [];
    registry.connect('backend-registered::js_interp', (_registry, name) => heard.push(name));
    registry.connect('backend-registered', (_registry, name) => all.push(name));
    const compiler = new JsCompiler();
    assertEqual(compiler.get_name(), 'js_interp');
    assert(registry.register_backend(null, compiler, ['javascript']));
    registry.register_debug_backend('js_other', new JsCompiler('js_other'));
    assertEqual(heard, ['js_interp']);
    assertEqual(all, ['js_interp', 'js_other']);
    assert(registry.list_backends(null).includes('js_interp'), 'listed');
    assert(!registry.list_backends(null).includes('js_other'), 'debug is hidden');
    assert(!registry.list_backends(['javascript']).includes('js_interp'), 'excluded by tag');
    assertEqual(registry.get_backend_tags('js_interp'), ['javascript']);
    assert(registry.lookup_backend('js_interp') === compiler, 'lookup gives the same object');
    assert(registry.is_registered(compiler));
    const info = registry.get_backend_info('js_interp');
    assertEqual(info.name, 'js_interp');
    assertEqual(info.origin, Reg.BackendOrigin.RUNTIME);
    assert(info.loaded && info.module_path === null);

    const graph = Reg.Graph.new_from_string(GRAPH_TEXT);
    const xs = randomValues(6), ys = randomValues(6);
    const x = tensor(xs, [2, 3]), y = tensor(ys, [2, 3]);
    const fn = registry.compile('js_interp', graph, [x, y], null);
    assert(fn instanceof JsCompiledFn, 'the JS object itself');
    const [out] = fn.call([x, y]);
    assertEqual(out.get_shape(), [2, 3]);
    assertClose(out.get_data(), reluMulAdd(xs, ys), 1e-6);
    assertEqual(fn.calls, 1);
    // Through the C wrapper of the interface too.
    assertClose(compiler.compile(graph, [x, y], null).call([x, y])[0].get_data(),
        reluMulAdd(xs, ys), 1e-6);
    // The wrapper checks inputs before the JS code runs.
    assertGError(() => fn.call([x]), Reg.CompilerError, Reg.CompilerError.BAD_INPUTS);
    assertEqual(fn.calls, 1);
    // A GLib.Error thrown in JS keeps its domain, code and message.
    assertGError(() => registry.compile('js_interp', graph, [x, y],
        new GLib.Variant('a{sv}', {speed: new GLib.Variant('u', 1)})),
    Reg.CompilerError, Reg.CompilerError.BAD_OPTION, "js: unknown option 'speed'");
    assertGError(() => compiler.compile(Reg.Graph.new_from_string(
        'graph(a, b):\n  m = matmul(a, b)\n  return (m,)\n'), [tensor([1], [1, 1]), tensor([1], [1, 1])], null),
    Reg.CompilerError, Reg.CompilerError.UNSUPPORTED_OP);

    let unregistered = null;
    registry.connect('backend-unregistered::js_interp', (_registry, name) => {
        unregistered = name;
    });
    registry.unregister_backend('js_interp');
    assertEqual(unregistered, 'js_interp');
    assert(!registry.is_registered(compiler));
});

test('a JavaScript backend agrees with eager', () => {
    const registry = Reg.Registry.new();
    registry.register_backend(null, new JsCompiler(), null);
    const graph = Reg.Graph.new_from_string(`graph(x, y):
  a = tanh(x)
  b = sigmoid(y)
  c = maximum(a, b)
  d = minimum(c, 0.25)
  e = div(d, 3)
  f = sub(e, x)
  g = neg(f)
  h = abs(g)
  i = sqrt(h)
  j = exp(i)
  k = log(j)
  s = sum(k)
  return (k, s)
`);
    const x = tensor(randomValues(20), [4, 5]), y = tensor(randomValues(20), [4, 5]);
    const mine = registry.compile('js_interp', graph, [x, y], null).call([x, y]);
    const eager = registry.compile('eager', graph, [x, y], null).call([x, y]);
    assertEqual(mine.length, 2);
    assertEqual(mine[1].get_shape(), []);
    for (let i = 0; i < 2; i++)
        assert(mine[i].allclose(eager[i], 1e-5, 1e-5), `output ${i} differs`);
}, {modules: true});

test('a JavaScript backend that takes part of a graph', () => {
    const registry = Reg.Registry.new();
    registry.fallback_backends = ['eager'];
    const partial = new PartialCompiler(registry.lookup_backend('eager'));
    registry.register_backend(null, partial, null);
    const graph = Reg.Graph.new_from_string(`graph(x, y):
  m = matmul(x, y)
  r = relu(m)
  a = add(r, x)
  s = sum(a)
  return (s, a)
`);
    const x = tensor(randomValues(4), [2, 2]), y = tensor(randomValues(4), [2, 2]);
    const eager = registry.compile('eager', graph, [x, y], null).call([x, y]);
    const placement = [['js_partial', [2]], ['eager', [3]], ['js_partial', [4]], ['eager', [5]]];
    for (let i = 0; i < 50; i++) {
        const fn = registry.compile('js_partial', graph, [x, y], null);
        assertEqual(fn.dup_placement().deepUnpack(), placement);
        const out = fn.call([x, y]);
        for (let k = 0; k < 2; k++)
            assert(out[k].allclose(eager[k], 0, 0), `output ${k} differs`);
        System.gc();
    }
    // Asynchronously: its methods run in this thread.
    const out = runAsync(async () => {
        const fn = await registry.compile_async('js_partial', graph, [x, y], null, null);
        assertEqual(fn.dup_placement().deepUnpack(), placement);
        return fn.call_async([x, y], null);
    });
    assert(out[0].allclose(eager[0], 0, 0), 'asynchronous output differs');
    assert(partial.asked > 0, 'never asked');
}, {modules: true});

test('FuncCompiler with a JavaScript closure', () => {
    const registry = Reg.Registry.new();
    let calls = 0;
    const factor = 3;
    const fc = Reg.FuncCompiler.new('js_func', (graph, exampleInputs, options) => {
        calls++;
        assertEqual(options, null);
        assertEqual(exampleInputs.length, 1);
        // Closes over `factor`: scale whatever the graph computes.
        return new ScaledFn(readGraph(graph), factor);
    });
    assert(fc instanceof Reg.FuncCompiler);
    assertEqual(fc.get_name(), 'js_func');
    let heard = null;
    registry.connect('backend-registered::js_func', (_registry, name) => {
        heard = name;
    });
    registry.register_backend(null, fc, null);
    assertEqual(heard, 'js_func');
    const graph = Reg.Graph.new_from_string('graph(x):\n  a = add(x, 1)\n  return (a,)\n');
    const x = tensor([1, 2, 3]);
    assertClose(registry.compile('js_func', graph, [x], null).call([x])[0].get_data(), [6, 9, 12]);
    assertEqual(calls, 1);
    // A closure delegating to a shipped backend.
    if (HAVE_MODULES) {
        const eager = registry.lookup_backend('eager');
        const wrapper = Reg.FuncCompiler.new('js_wrapper', (g, ex, opts) => eager.compile(g, ex, opts));
        registry.register_backend(null, wrapper, null);
        assertClose(registry.compile('js_wrapper', graph, [x], null).call([x])[0].get_data(), [2, 3, 4]);
    }
});

test('JavaScript exceptions in virtual methods', () => {
    // GJS hands a JS exception thrown in a vfunc to C as a GError of its own
    // domain; libreg turns it into FAILED (compile) or RUNTIME (call),
    // keeping the JS message.
    const compiler = new ThrowingCompiler();
    const graph = Reg.Graph.new_from_string(GRAPH_TEXT);
    const x = tensor([1]);
    let e = assertGError(() => compiler.compile(graph, [x, x], null),
        Reg.CompilerError, Reg.CompilerError.FAILED);
    assert(e.message.includes('vfunc_compile fails on purpose'), e.message);
    const fn = compiler.compile(Reg.Graph.new_from_string('graph(x):\n  return (x,)\n'), [x], null);
    e = assertGError(() => fn.call([x]), Reg.CompilerError, Reg.CompilerError.RUNTIME);
    assert(e.message.includes('vfunc_run fails on purpose'), e.message);
});

test('a run that returns the wrong thing is an error, not a crash', () => {
    const graph = Reg.Graph.new_from_string('graph(x):\n  a = neg(x)\n  return (a,)\n');
    const x = tensor([1, 2]);
    const cases = [
        // what run returns, what the error says
        [() => [tensor([1, 2])], null],
        [() => outputsOf([]), "returned 0 outputs, the graph has 1"],
        [() => outputsOf([tensor([1, 2]), tensor([1, 2])]), "returned 2 outputs, the graph has 1"],
        [() => outputsOf([tensor([1, 2, 3])]), "of shape [3], the graph gives it shape [2]"],
        [() => {
            const store = new Gio.ListStore({item_type: GObject.Object});
            store.append(new GObject.Object());
            return store;
        }, "returned output 0 as GObject, not a RegTensor"],
    ];
    cases.forEach(([run, message], i) => {
        const Fn = GObject.registerClass({
            GTypeName: `JsLiarFn${i}`,
            Implements: [Reg.CompiledFn],
        }, class extends GObject.Object {
            vfunc_run(inputs) {
                return run();
            }
        });
        const compiler = Reg.FuncCompiler.new('js_liar', () => new Fn());
        const f = compiler.compile(graph, [x], null);
        const err = assertGError(() => f.call([x]), Reg.CompilerError, Reg.CompilerError.RUNTIME);
        assert(err.message.startsWith("backend 'js_liar'"), err.message);
        if (message !== null)
            assert(err.message.includes(message), err.message);
    });
});

test('inductor lists its options without loading', () => {
    const registry = Reg.Registry.new();
    const info = registry.get_backend_info('inductor');
    assert(!info.loaded, 'inductor loaded');
    const options = info.get_options();
    const listed = [];
    for (let i = 0; i < options.get_n_items(); i++) {
        const option = options.get_item(i);
        listed.push([option.name, option.type_string,
            option.value_to_string(option.default_value)]);
    }
    assertEqual(listed, [['fuse', 'b', 'true'], ['block-size', 'u', '512'], ['threads', 'u', '1'],
        ['vector-math', 'b', 'true'], ['passes', 'as', 'fold,simplify,cse,dce'],
        ['matmul', 's', 'auto']]);
    const threads = options.get_item(2);
    assertEqual(threads.get_maximum().unpack(), 256);
    assertEqual(threads.get_type_name(), 'uint32');
    assert(!registry.get_backend_info('inductor').loaded, 'inductor loaded');

    const x = tensor([1, -1]);
    const graph = Reg.Graph.new_from_string(GRAPH_TEXT);
    assertGError(() => registry.compile('inductor', graph, [x, x],
        new GLib.Variant('a{sv}', {thread: new GLib.Variant('u', 2)})),
    Reg.CompilerError, Reg.CompilerError.BAD_OPTION,
    "unknown option 'thread' for backend 'inductor', did you mean 'threads'?");
    // A value read by the option's type, as regctl reads -o threads=2.
    const out = registry.compile('inductor', graph, [x, x],
        new GLib.Variant('a{sv}', {threads: threads.parse_value('2')})).call([x, x]);
    assertEqual(out[0].get_data(), [2.5, 2.5]);
}, {modules: true});

const SchemaCompiler = GObject.registerClass({
    Implements: [Reg.Compiler],
}, class SchemaCompiler extends GObject.Object {
    vfunc_compile(graph, exampleInputs, options) {
        return new JsCompiledFn(readGraph(graph));
    }

    vfunc_dup_name() {
        return 'js_schema';
    }

    vfunc_dup_options() {
        const options = new Gio.ListStore({itemType: Reg.Option});
        options.append(Reg.Option.new_with_choices('mode', 's', new GLib.Variant('s', 'fast'),
            ['fast', 'small'], 'Trade accuracy for speed'));
        return options;
    }
});

test('a JavaScript backend with options', () => {
    const registry = Reg.Registry.new();
    registry.register_backend(null, new SchemaCompiler(), null);
    const options = registry.get_backend_info('js_schema').get_options();
    assertEqual(options.get_n_items(), 1);
    assertEqual(options.get_item(0).get_choices(), ['fast', 'small']);
    const x = tensor([1, -1]);
    const graph = Reg.Graph.new_from_string(GRAPH_TEXT);
    assertGError(() => registry.compile('js_schema', graph, [x, x],
        new GLib.Variant('a{sv}', {mode: new GLib.Variant('s', 'slow')})),
    Reg.CompilerError, Reg.CompilerError.BAD_OPTION,
    "option 'mode' for backend 'js_schema' must be one of 'fast', 'small', not 'slow'");
    registry.compile('js_schema', graph, [x, x],
        new GLib.Variant('a{sv}', {mode: new GLib.Variant('s', 'small')}));
});

test('the backend list follows the registry in the main loop', () => {
    const registry = Reg.Registry.new();
    const list = Reg.BackendList.new(registry, []);
    assert(list instanceof Gio.ListModel, 'not a Gio.ListModel');
    const names = () => {
        const out = [];
        for (let i = 0; i < list.get_n_items(); i++)
            out.push(list.get_item(i).name);
        return out;
    };
    // A copy kept from items-changed alone.
    const copy = names();
    list.connect('items-changed', (model, position, removed, added) => {
        const fresh = [];
        for (let i = 0; i < added; i++)
            fresh.push(model.get_item(position + i).name);
        copy.splice(position, removed, ...fresh);
    });
    assertEqual(copy, registry.list_backends([]));

    const loop = GLib.MainLoop.new(null, false);
    const steps = [
        () => registry.register_backend('js_b', new JsCompiler('js_b'), null),
        () => registry.register_backend('js_a', new JsCompiler('js_a'), null),
        () => registry.set_default_backend('js_a'),
        () => registry.unregister_backend('js_b'),
        () => registry.lookup_backend('eager'),
    ];
    // An exception in a callback does not leave the loop: kept for later.
    let failure = null;
    GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
        try {
            steps.shift()();
            assertEqual(copy, names());
            assertEqual(copy, registry.list_backends([]));
        } catch (e) {
            failure = e;
            steps.length = 0;
        }
        if (steps.length > 0)
            return GLib.SOURCE_CONTINUE;
        loop.quit();
        return GLib.SOURCE_REMOVE;
    });
    loop.run();
    if (failure !== null)
        throw failure;

    const jsA = list.get_item(names().indexOf('js_a'));
    assert(jsA.is_default, 'js_a is not the default');
    assert(list.get_item(names().indexOf('eager')).loaded, 'eager is not loaded');
}, {modules: true});

// Runs an async function to its end in a GLib main loop; returns its value
// or throws its exception.
function runAsync(asyncFn) {
    const loop = new GLib.MainLoop(null, false);
    let outcome = null;
    asyncFn().then(value => {
        outcome = {value};
    }, error => {
        outcome = {error};
    }).finally(() => loop.quit());
    const timeout = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 30, () => {
        loop.quit();
        return GLib.SOURCE_REMOVE;
    });
    if (outcome === null)
        loop.run();
    GLib.source_remove(timeout);
    assert(outcome !== null, 'the async function did not finish in 30 s');
    if (outcome.error !== undefined)
        throw outcome.error;
    return outcome.value;
}

test('compile and call with await', () => {
    const registry = Reg.Registry.new();
    registry.register_backend(null, new JsCompiler(), null);
    const graph = Reg.Graph.new_from_string(GRAPH_TEXT);
    const xs = [1, -2, 3], ys = [2, 2, 2];
    const x = tensor(xs), y = tensor(ys);
    // A JavaScript backend runs in the main context, never in a worker.
    const backends = HAVE_MODULES ? ['js_interp', 'eager', 'inductor'] : ['js_interp'];
    for (const backend of backends) {
        const out = runAsync(async () => {
            const fn = await registry.compile_async(backend, graph, [x, y], null, null);
            assertEqual(fn.get_backend(), backend);
            return fn.call_async([x, y], null);
        });
        assertClose(out[0].get_data(), reluMulAdd(xs, ys), 1e-6, backend);
    }
    // Errors reject the promise.
    const error = runAsync(async () => {
        try {
            await registry.compile_async('js_intrp', graph, [x, y], null, null);
        } catch (e) {
            return e;
        }
        return null;
    });
    assert(error instanceof GLib.Error && error.matches(Reg.RegistryError, Reg.RegistryError.INVALID_BACKEND),
        `${error}`);
});

test('a cancelled compile', () => {
    const compiler = new JsCompiler();
    const cancellable = new Gio.Cancellable();
    cancellable.cancel();
    const error = runAsync(async () => {
        try {
            await compiler.compile_async(Reg.Graph.new_from_string(GRAPH_TEXT),
                [tensor([1]), tensor([1])], null, cancellable);
        } catch (e) {
            return e;
        }
        return null;
    });
    assert(error instanceof GLib.Error && error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED),
        `${error}`);
    assertEqual(compiler.compiles, 0);
});

test('fallback and the compile cache', () => {
    const registry = Reg.Registry.new();
    const heard = [];
    registry.connect('fallback', (_r, failed, next, error) => heard.push([failed, next, error.code]));
    registry.fallback_backends = ['eager'];
    const graph = Reg.Graph.new_from_string(GRAPH_TEXT);
    const x = tensor([1, -2]);
    const fn = registry.compile('relu_compile_error_TESTING_ONLY', graph, [x, x], null);
    assertEqual(fn.get_backend(), 'eager');
    assertEqual(heard, [['relu_compile_error_TESTING_ONLY', 'eager', Reg.CompilerError.FAILED]]);
    // eager shares its functions: an equal graph gives the same one.  The
    // testing backend's manifest says it shares its functions too, so its
    // failed compile was a miss of the cache, as eager's first one.
    const again = registry.compile('eager', Reg.Graph.new_from_string(GRAPH_TEXT), [x, x], null);
    assert(again === fn, 'the cached function');
    const [hits, misses] = registry.get_compile_cache_counters();
    assertEqual([hits, misses], [1, 2]);
}, {modules: true});

test('default backend property and notify', () => {
    const registry = Reg.Registry.new();
    const notified = [];
    registry.connect('notify::default-backend', (obj, pspec) => notified.push([pspec.name, obj.default_backend]));
    registry.default_backend = 'eager';
    registry.set_default_backend('eager');
    registry.set_default_backend(null);
    const compiler = new JsCompiler();
    registry.set_default_compiler(compiler);
    assertEqual(notified, [['default-backend', 'eager'], ['default-backend', 'inductor'],
        ['default-backend', null]]);
    assertEqual(registry.dup_default_backend(), null);
    assert(registry.dup_default_compiler() === compiler);
    const x = tensor([1, -1]);
    const out = registry.compile(null, Reg.Graph.new_from_string(GRAPH_TEXT), [x, x], null).call([x, x]);
    assertEqual(out[0].get_data(), [2.5, 2.5]);
    assertEqual(compiler.compiles, 1);
});

test('module signals in a fresh registry', () => {
    const registry = Reg.Registry.new();
    const events = [];
    registry.connect('backend-declared', (_r, name) => events.push(`declared ${name}`));
    registry.connect('module-loaded', (_r, module) => {
        assert(module instanceof Reg.Module && module instanceof GObject.TypeModule);
        events.push(`module-loaded ${GLib.path_get_basename(module.get_path())}`);
    });
    registry.connect('backend-registered::eager', (_r, name) => events.push(`registered ${name}`));
    const eager = registry.lookup_backend('eager');
    assertEqual(eager.get_name(), 'eager');
    assertEqual(events, SHIPPED.map(n => `declared ${n}`).concat(
        ['module-loaded libreg-eager.so', 'registered eager']));
    const info = registry.get_backend_info('eager');
    assert(info.loaded);
    assertEqual(info.origin, Reg.BackendOrigin.MODULE);
    assertEqual(GLib.path_get_basename(info.module_path), 'libreg-eager.so');
    assertEqual(registry.get_search_paths(), GLib.getenv('REG_BACKEND_PATH').split(':'));
}, {modules: true});

test('loops and garbage collection', () => {
    const registry = Reg.Registry.new();
    registry.register_backend(null, new JsCompiler(), null);
    const graph = Reg.Graph.new_from_string(GRAPH_TEXT);
    const kept = [];
    const backends = HAVE_MODULES ? ['js_interp', 'eager', 'inductor'] : ['js_interp'];
    for (let i = 0; i < 300; i++) {
        const backend = backends[i % backends.length];
        const xs = [i, -1, 2], ys = [1, 2, 3];
        let fn = registry.compile(backend, graph, [tensor(xs), tensor(ys)], null);
        const out = fn.call([tensor(xs), tensor(ys)]);
        fn = null;
        if (i % 25 === 0)
            kept.push([xs, ys, out[0]]);
        if (i % 50 === 0)
            System.gc();
    }
    System.gc();
    // The outputs outlive their functions and inputs.
    for (const [xs, ys, out] of kept)
        assertClose(out.get_data(), reluMulAdd(xs, ys), 1e-6);
});

// -- Runner --------------------------------------------------------------------

let failed = 0;
print(`1..${tests.length}`);
tests.forEach(({name, fn, modules}, i) => {
    if (modules && !HAVE_MODULES) {
        print(`ok ${i + 1} ${name} # SKIP REG_BACKEND_PATH is not set`);
        return;
    }
    try {
        fn();
        print(`ok ${i + 1} ${name}`);
    } catch (e) {
        failed++;
        print(`not ok ${i + 1} ${name}`);
        printerr(`# ${name}: ${e}\n${e.stack}`);
    }
    System.gc();
});

if (failed > 0) {
    printerr(`# ${failed} of ${tests.length} tests failed`);
    System.exit(1);
}
