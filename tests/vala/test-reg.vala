/* test-reg.vala: libreg from Vala, through libreg-1.vapi
 *
 * A backend written in Vala (a class implementing Reg.Compiler, whose
 * compiled functions implement Reg.CompiledFn) is registered, heard through
 * the backend-registered signal, looked up, listed, used to compile and
 * call a graph; the numbers are checked.  The shipped backends are used
 * the same way, and errors arrive as Vala error domains.
 *
 * Run by meson (suite `introspection`) with REG_BACKEND_PATH and
 * REG_BACKEND_SYSTEM_DIR='' set; a GLib test program (TAP).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

const string GRAPH_TEXT = """graph(x, y):
  a = mul(x, y)
  b = add(a, 1.5)
  c = relu(b)
  return (c,)
""";

bool have_modules;

/* relu (x * y + 1.5), as float32. */
float[] relu_mul_add (float[] x, float[] y) {
    var result = new float[x.length];
    for (var i = 0; i < x.length; i++) {
        float product = x[i] * y[i];
        float sum = product + 1.5f;
        result[i] = float.max (sum, 0.0f);
    }
    return result;
}

void assert_floats (float[] actual, float[] expected, float tolerance = 1e-6f) {
    assert_cmpint (actual.length, CompareOperator.EQ, expected.length);
    for (var i = 0; i < expected.length; i++) {
        if (Math.fabsf (actual[i] - expected[i]) > tolerance * (1.0f + Math.fabsf (expected[i])))
            GLib.error ("element %d: expected %g, got %g", i, expected[i], actual[i]);
    }
}

Reg.Tensor make_tensor (float[] values, int64[] shape) {
    try {
        return new Reg.Tensor.from_data (values, shape);
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }
}

GenericArray<Reg.Tensor> tensors (Reg.Tensor[] items) {
    var array = new GenericArray<Reg.Tensor> ();
    foreach (var t in items)
        array.add (t);
    return array;
}

/* Runs an inner compiled function and scales its outputs. */
class ScaledFn : Object, Reg.CompiledFn {
    private Reg.CompiledFn inner;
    private float factor;
    public int calls = 0;

    public ScaledFn (Reg.CompiledFn inner, float factor) {
        this.inner = inner;
        this.factor = factor;
    }

    /* The run virtual method returns one object that holds the outputs:
     * the list store keeps a reference to each tensor it is given. */
    public ListModel run (GenericArray<Reg.Tensor> inputs) throws Error {
        calls++;
        var results = inner.call (inputs);
        var outputs = new ListStore (typeof (Reg.Tensor));
        for (var i = 0; i < results.length; i++) {
            unowned Reg.Tensor t = results[i];
            unowned float[] data = t.get_data ();
            var scaled = new float[data.length];
            for (var j = 0; j < data.length; j++)
                scaled[j] = data[j] * factor;
            outputs.append (new Reg.Tensor.from_data (scaled, t.get_shape ()));
        }
        return outputs;
    }
}

/* A backend in Vala: compiles with another backend (eager by default) and
 * scales what it computes. */
class ScaleCompiler : Object, Reg.Compiler {
    private Reg.Compiler inner;
    private float factor;
    public int compiles = 0;

    public ScaleCompiler (Reg.Compiler inner, float factor) {
        this.inner = inner;
        this.factor = factor;
    }

    public Reg.CompiledFn compile (Reg.Graph graph, GenericArray<Reg.Tensor> example_inputs,
                                   Variant? options) throws Error {
        compiles++;
        if (options != null && options.n_children () > 0) {
            string key;
            options.get_child_value (0).get ("{sv}", out key, null);
            throw new Reg.CompilerError.BAD_OPTION ("vala: unknown option '%s'", key);
        }
        return new ScaledFn (inner.compile (graph, example_inputs, null), factor);
    }

    /* dup_name and get_flags are optional in C, but abstract in the vapi. */
    public string? dup_name () {
        return "vala_scale";
    }

    /* Likewise: no schema, compile() checks its options itself. */
    public ListModel? dup_options () {
        return null;
    }

    public Reg.CompilerFlags get_flags () {
        return Reg.CompilerFlags.NONE;
    }

    /* Likewise: it takes every node. */
    public Variant? dup_supported_nodes (Reg.Graph graph, GenericArray<Reg.Tensor> example_inputs)
        throws Error {
        return null;
    }
}

void test_list () {
    var registry = Reg.Registry.get_default ();
    assert (registry == Reg.Registry.get_default ());
    var names = registry.list_backends (null);
    assert_cmpstrv (names, { "inductor" });
    var all = registry.list_backends ({});
    assert_cmpstrv (all, { "eager", "inductor", "relu_compile_error_TESTING_ONLY",
                           "relu_runtime_error_TESTING_ONLY" });
    assert_cmpstr (registry.default_backend, CompareOperator.EQ, Reg.DEFAULT_BACKEND);
    try {
        assert_cmpstrv (registry.get_backend_tags ("eager"), { Reg.TAG_DEBUG });
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }
    var info = registry.get_backend_info ("eager");
    assert_nonnull (info);
    assert_cmpstr (info.name, CompareOperator.EQ, "eager");
    assert (info.origin == Reg.BackendOrigin.MODULE);
    assert (info.module_path.has_suffix ("/libreg-eager.so"));
}

void test_compile_shipped () {
    var registry = new Reg.Registry ();
    try {
        var graph = new Reg.Graph.from_string (GRAPH_TEXT);
        assert_cmpstr (graph.to_string (), CompareOperator.EQ, GRAPH_TEXT);
        float[] xs = { 1.0f, -2.0f, 3.0f, -4.0f, 0.5f, 6.0f };
        float[] ys = { 2.0f, 2.0f, -1.0f, 0.25f, 3.0f, 1.0f };
        var inputs = tensors ({ make_tensor (xs, { 2, 3 }), make_tensor (ys, { 2, 3 }) });
        foreach (var backend in new string?[] { null, "eager", "inductor" }) {
            var fn = registry.compile (backend, graph, inputs, null);
            var outputs = fn.call (inputs);
            assert_cmpuint (outputs.length, CompareOperator.EQ, 1);
            unowned int64[] shape = outputs[0].get_shape ();
            assert_cmpint (shape.length, CompareOperator.EQ, 2);
            assert (shape[0] == 2 && shape[1] == 3);
            assert_floats (outputs[0].get_data (), relu_mul_add (xs, ys));
        }
        var options = new Variant.parsed ("{'fuse': <false>, 'threads': <uint32 2>}");
        var fn = registry.compile ("inductor", graph, inputs, options);
        assert_floats (fn.call (inputs)[0].get_data (), relu_mul_add (xs, ys));
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }
}

void test_vala_backend () {
    var registry = new Reg.Registry ();
    try {
        var eager = registry.lookup_backend ("eager");
        var compiler = new ScaleCompiler (eager, 10.0f);

        string[] heard = {};
        string[] every = {};
        registry.backend_registered["vala_scale"].connect ((r, name) => { heard += name; });
        registry.backend_registered.connect ((r, name) => { every += name; });
        assert (registry.register_backend (null, compiler, { "vala" }));
        registry.register_debug_backend ("vala_other", new ScaleCompiler (eager, 1.0f));
        assert_cmpstrv (heard, { "vala_scale" });
        assert_cmpstrv (every, { "vala_scale", "vala_other" });

        assert (registry.lookup_backend ("vala_scale") == compiler);
        assert (registry.is_registered (compiler));
        assert ("vala_scale" in registry.list_backends (null));
        assert (!("vala_other" in registry.list_backends (null)));
        assert (!("vala_scale" in registry.list_backends ({ "vala" })));
        assert_cmpstrv (registry.get_backend_tags ("vala_scale"), { "vala" });
        var info = registry.get_backend_info ("vala_scale");
        assert (info.origin == Reg.BackendOrigin.RUNTIME && info.loaded);
        assert_null (info.module_path);

        var graph = new Reg.Graph.from_string (GRAPH_TEXT);
        float[] xs = { 1.0f, -2.0f, 3.0f };
        float[] ys = { 1.0f, 1.0f, 0.5f };
        var inputs = tensors ({ make_tensor (xs, { 3 }), make_tensor (ys, { 3 }) });
        var expected = relu_mul_add (xs, ys);
        for (var i = 0; i < expected.length; i++)
            expected[i] *= 10.0f;

        var compiled = registry.compile ("vala_scale", graph, inputs, null);
        assert (compiled is ScaledFn);
        for (var i = 0; i < 100; i++) {
            var outputs = compiled.call (inputs);
            assert_floats (outputs[0].get_data (), expected);
        }
        assert_cmpint (((ScaledFn) compiled).calls, CompareOperator.EQ, 100);
        assert_cmpint (compiler.compiles, CompareOperator.EQ, 1);

        /* Outputs outlive the function and the inputs. */
        Reg.Tensor kept;
        {
            var f2 = compiler.compile (graph, inputs, null);
            kept = f2.call (inputs)[0];
        }
        inputs = null;
        assert_floats (kept.get_data (), expected);

        /* The wrapper checks inputs before the Vala code runs. */
        try {
            compiled.call (tensors ({ make_tensor (xs, { 3 }) }));
            assert_not_reached ();
        } catch (Reg.CompilerError e) {
            assert (e is Reg.CompilerError.BAD_INPUTS);
        }
        assert_cmpint (((ScaledFn) compiled).calls, CompareOperator.EQ, 100);

        /* An error thrown in Vala keeps its domain and code. */
        try {
            registry.compile ("vala_scale", graph, tensors ({ make_tensor (xs, { 3 }), make_tensor (ys, { 3 }) }),
                              new Variant.parsed ("{'speed': <1>}"));
            assert_not_reached ();
        } catch (Reg.CompilerError e) {
            assert (e is Reg.CompilerError.BAD_OPTION);
            assert_cmpstr (e.message, CompareOperator.EQ, "vala: unknown option 'speed'");
        }

        string? gone = null;
        registry.backend_unregistered["vala_scale"].connect ((r, name) => { gone = name; });
        registry.unregister_backend ("vala_scale");
        assert_cmpstr (gone, CompareOperator.EQ, "vala_scale");
        assert (!registry.is_registered (compiler));
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }
}

void test_func_compiler () {
    var registry = new Reg.Registry ();
    try {
        var eager = registry.lookup_backend ("eager");
        int calls = 0;
        var fc = new Reg.FuncCompiler ("vala_func", (graph, example_inputs, options) => {
            calls++;
            return new ScaledFn (eager.compile (graph, example_inputs, options), -1.0f);
        });
        assert_cmpstr (((Reg.Compiler) fc).get_name (), CompareOperator.EQ, "vala_func");
        registry.register_backend (null, fc, null);
        var graph = new Reg.Graph.from_string ("graph(x):\n  a = add(x, 1)\n  return (a,)\n");
        var inputs = tensors ({ make_tensor ({ 1.0f, 2.0f }, { 2 }) });
        var outputs = registry.compile ("vala_func", graph, inputs, null).call (inputs);
        assert_floats (outputs[0].get_data (), { -2.0f, -3.0f });
        assert_cmpint (calls, CompareOperator.EQ, 1);
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }
}

void test_errors () {
    var registry = new Reg.Registry ();
    try {
        registry.lookup_backend ("indctor");
        assert_not_reached ();
    } catch (Reg.RegistryError e) {
        assert (e is Reg.RegistryError.INVALID_BACKEND);
        assert (e.domain == Reg.RegistryError.quark ());
        assert_cmpstr (e.message, CompareOperator.EQ,
                       "Invalid backend: 'indctor', did you mean: 'inductor'? See `regctl list` for available backends.");
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }
    try {
        registry.register_backend ("bad name", new ScaleCompiler (registry.lookup_backend ("eager"), 1.0f), null);
        assert_not_reached ();
    } catch (Reg.RegistryError e) {
        assert (e is Reg.RegistryError.INVALID_NAME);
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }
    try {
        new Reg.Graph.from_string ("graph(x):\n  a = foo(x)\n  return (a,)\n");
        assert_not_reached ();
    } catch (Reg.GraphError e) {
        assert (e is Reg.GraphError.UNKNOWN_OP);
        assert (e.message.has_prefix ("2:"));
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }
    try {
        var graph = new Reg.Graph.from_string (GRAPH_TEXT);
        var x = make_tensor ({ 1.0f }, { 1 });
        registry.compile ("eager", graph, tensors ({ x, x }), new Variant.parsed ("{'fuse': <true>}"));
        assert_not_reached ();
    } catch (Reg.CompilerError e) {
        assert (e is Reg.CompilerError.BAD_OPTION);
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }
}

void test_graph_builder () {
    var graph = new Reg.Graph ();
    try {
        var x = graph.add_input ("x");
        var k = graph.add_constant (2.0);
        var m = graph.add_op ("mul", { x, k });
        var s = graph.add_op ("sum", { m });
        graph.set_outputs ({ m, s });
        assert (graph.validate ());
        assert_cmpstr (graph.to_string (), CompareOperator.EQ,
                       "graph(x):\n  v2 = mul(x, 2.0)\n  v3 = sum(v2)\n  return (v2, v3)\n");
        assert (graph.get_node_kind (k) == Reg.NodeKind.CONSTANT);
        unowned uint[] args = graph.get_node_args (m);
        assert (args.length == 2 && args[0] == x && args[1] == k);
        assert (graph.set_node_name (m, "m"));
        assert_cmpstr (graph.get_node_name (m), CompareOperator.EQ, "m");

        var input = new Reg.Tensor.from_bytes (new Bytes ((uint8[]) new float[] { 1.0f, 2.0f, 3.0f }), { 3 });
        var fn = Reg.Registry.get_default ().compile ("eager", graph, tensors ({ input }), null);
        var outputs = fn.call (tensors ({ input }));
        assert_floats (outputs[0].get_data (), { 2.0f, 4.0f, 6.0f });
        assert_cmpuint (outputs[1].get_n_dims (), CompareOperator.EQ, 0);
        assert_floats (outputs[1].get_data (), { 12.0f });
        assert_cmpuint ((uint) outputs[1].dup_bytes ().get_size (), CompareOperator.EQ, 4);

        var shapes = graph.infer_shapes (tensors ({ input }));
        assert_cmpuint (shapes.get_n_shapes (), CompareOperator.EQ, 4);
        unowned int64[] shape = shapes.get_shape (m);
        assert (shape.length == 1 && shape[0] == 3);
        assert (shapes.get_shape (s).length == 0);
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }
}

/* inductor's options, from its manifest (the module not loaded), and a
 * value read by an option's type. */
void test_options () {
    var registry = new Reg.Registry ();
    var info = registry.get_backend_info ("inductor");
    assert_nonnull (info);
    assert (!info.loaded);
    var options = info.get_options ();
    assert_nonnull (options);
    string[] listed = {};
    for (uint i = 0; i < options.get_n_items (); i++) {
        var option = (Reg.Option) options.get_item (i);
        listed += "%s:%s=%s".printf (option.name, option.type_string,
                                     option.value_to_string (option.get_default_value ()));
    }
    assert_cmpstrv (listed, { "fuse:b=true", "block-size:u=512", "threads:u=1",
                              "vector-math:b=true", "passes:as=fold,simplify,cse,dce",
                              "matmul:s=auto" });
    var threads = (Reg.Option) options.get_item (2);
    assert_cmpstr (threads.get_type_name (), CompareOperator.EQ, "uint32");
    assert (threads.get_maximum ().get_uint32 () == 256);
    try {
        var value = threads.parse_value ("2");
        assert (value.get_uint32 () == 2);
        threads.parse_value ("300");
        assert_not_reached ();
    } catch (Error e) {
        assert (e is Reg.CompilerError.BAD_OPTION);
        assert_cmpstr (e.message, CompareOperator.EQ, "option 'threads' must be between 0 and 256, not 300");
    }

    var list = new Reg.BackendList (registry, {});
    assert (list.get_item_type () == typeof (Reg.BackendInfo));
    var names = registry.list_backends ({});
    assert_cmpuint (list.get_n_items (), CompareOperator.EQ, names.length);
    for (uint i = 0; i < list.get_n_items (); i++)
        assert_cmpstr (((Reg.BackendInfo) list.get_item (i)).name, CompareOperator.EQ, names[i]);
}

/* Every function that takes or returns a string array, and every property
 * holding one: they are `const char * const *` in C, and the C that valac
 * writes for each must pass and receive them without an incompatible
 * pointer type (tests/meson.build makes that an error, as GCC 14 does). */
void test_string_arrays () {
    var registry = new Reg.Registry ();
    string[] tags = { "vala", "arrays" };
    try {
        var eager = registry.lookup_backend ("eager");
        assert (registry.register_backend (null, new ScaleCompiler (eager, 1.0f), tags));
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }
    assert ("vala_scale" in registry.list_backends (null));
    assert (!("vala_scale" in registry.list_backends (tags)));

    /* The functions returning a string array are the properties' getters
     * in C; Vala reads the properties (see libreg/Reg-1.0.metadata). */
    var info = registry.get_backend_info ("vala_scale");
    assert_cmpstrv (info.tags, tags);
    assert_cmpuint (info.shadowed_manifests.length, CompareOperator.EQ, 0);
    assert_cmpuint (info.authors.length, CompareOperator.EQ, 0);

    var list = new Reg.BackendList (registry, tags);
    assert_cmpstrv (list.exclude_tags, tags);
    for (uint i = 0; i < list.get_n_items (); i++)
        assert_cmpstr (((Reg.BackendInfo) list.get_item (i)).name, CompareOperator.NE, "vala_scale");

    string[] chain = { "eager", "inductor" };
    registry.set_fallback_backends (chain);
    assert_cmpstrv (registry.dup_fallback_backends (), chain);
    registry.fallback_backends = { "inductor" };
    assert_cmpstrv (registry.fallback_backends, { "inductor" });
    registry.set_fallback_backends (null);
    assert_cmpuint (registry.dup_fallback_backends ().length, CompareOperator.EQ, 0);

    string[] possibilities = { "eager", "inductor", "vala_scale" };
    assert_cmpstrv (Reg.close_matches ("indctor", possibilities, 3, 0.6), { "inductor" });

    string[] choices = { "fast", "exact" };
    try {
        var option = new Reg.Option.with_choices ("mode", "s", new Variant.string ("fast"),
                                                  choices, "How to compute");
        assert_cmpstrv (option.choices, choices);
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }

    string[] ops = { "matmul" };
    var verdict = (Reg.Verdict) Object.new (typeof (Reg.Verdict), "unsupported-ops", ops);
    assert_cmpstrv (verdict.unsupported_ops, ops);
}

/* The asynchronous pairs are Vala async methods. */
async void compile_and_call_async (Reg.Registry registry, string? backend, Reg.Graph graph,
                                   GenericArray<Reg.Tensor> inputs, float[] expected) {
    try {
        var fn = yield registry.compile_async (backend, graph, inputs, null, null);
        assert_cmpstr (fn.get_backend (), CompareOperator.EQ, backend ?? Reg.DEFAULT_BACKEND);
        var outputs = yield fn.call_async (inputs, null);
        assert_floats (outputs[0].get_data (), expected);
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }
}

async void compile_cancelled_async (Reg.Registry registry, Reg.Graph graph,
                                    GenericArray<Reg.Tensor> inputs) {
    var cancellable = new Cancellable ();
    cancellable.cancel ();
    try {
        yield registry.compile_async ("eager", graph, inputs, null, cancellable);
        GLib.error ("a cancelled compile succeeded");
    } catch (IOError.CANCELLED e) {
        /* as it should */
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }
}

void test_async () {
    var registry = new Reg.Registry ();
    var xs = new float[] { 1.0f, -2.0f, 3.0f };
    var ys = new float[] { 2.0f, 2.0f, 2.0f };
    var inputs = tensors ({ make_tensor (xs, { 3 }), make_tensor (ys, { 3 }) });
    Reg.Graph graph;
    try {
        graph = new Reg.Graph.from_string (GRAPH_TEXT);
    } catch (Error e) {
        GLib.error ("%s", e.message);
    }
    var loop = new MainLoop ();
    /* Alive until the loop ends: the async calls borrow it. */
    var expected = relu_mul_add (xs, ys);
    string?[] backends = { null, "eager", "inductor" };
    var remaining = backends.length + 1;
    foreach (var backend in backends) {
        compile_and_call_async.begin (registry, backend, graph, inputs, expected, () => {
            if (--remaining == 0)
                loop.quit ();
        });
    }
    compile_cancelled_async.begin (registry, graph, inputs, () => {
        if (--remaining == 0)
            loop.quit ();
    });
    loop.run ();
}

int main (string[] args) {
    Test.init (ref args);
    have_modules = Environment.get_variable ("REG_BACKEND_PATH") != null;

    Test.add_func ("/vala/graph-builder", () => {
        if (!have_modules) { Test.skip ("REG_BACKEND_PATH is not set"); return; }
        test_graph_builder ();
    });
    Test.add_func ("/vala/list", () => {
        if (!have_modules) { Test.skip ("REG_BACKEND_PATH is not set"); return; }
        test_list ();
    });
    Test.add_func ("/vala/compile-shipped", () => {
        if (!have_modules) { Test.skip ("REG_BACKEND_PATH is not set"); return; }
        test_compile_shipped ();
    });
    Test.add_func ("/vala/vala-backend", () => {
        if (!have_modules) { Test.skip ("REG_BACKEND_PATH is not set"); return; }
        test_vala_backend ();
    });
    Test.add_func ("/vala/func-compiler", () => {
        if (!have_modules) { Test.skip ("REG_BACKEND_PATH is not set"); return; }
        test_func_compiler ();
    });
    Test.add_func ("/vala/options", () => {
        if (!have_modules) { Test.skip ("REG_BACKEND_PATH is not set"); return; }
        test_options ();
    });
    Test.add_func ("/vala/string-arrays", () => {
        if (!have_modules) { Test.skip ("REG_BACKEND_PATH is not set"); return; }
        test_string_arrays ();
    });
    Test.add_func ("/vala/async", () => {
        if (!have_modules) { Test.skip ("REG_BACKEND_PATH is not set"); return; }
        test_async ();
    });
    Test.add_func ("/vala/errors", () => {
        if (!have_modules) { Test.skip ("REG_BACKEND_PATH is not set"); return; }
        test_errors ();
    });
    return Test.run ();
}
