#!/usr/bin/python3
# libreg through GObject-Introspection: the whole public surface as
# `gi.repository.Reg` shows it to Python (PyGObject), including backends
# written in Python.
#
# Run by meson (suite `introspection`) with GI_TYPELIB_PATH, LD_LIBRARY_PATH,
# REG_BACKEND_PATH (the shipped modules of the build tree) and
# REG_BACKEND_SYSTEM_DIR='' set.  No PyGObject override is involved: libreg
# needs none, and the tests check that none is loaded.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import atexit
import contextlib
import difflib
import gc
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
import weakref

import gi

# Verdicts of `Reg.Registry.verify_backend` and the quarantine they apply
# are read from the user's cache: one of the tests' own, made before GLib
# reads the variable.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="test-reg-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], ignore_errors=True)

gi.require_version("GLib", "2.0")
gi.require_version("GObject", "2.0")
gi.require_version("Gio", "2.0")
gi.require_version("Reg", "1.0")
from gi.repository import GLib, GObject, Gio, Reg  # noqa: E402

# The helper module is imported from the source tree: leave no __pycache__.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import numpy as np  # noqa: E402
    import regtest_numpy as rnp  # noqa: E402
except ImportError:  # pragma: no cover - numpy is a test dependency
    np = None
    rnp = None

needs_numpy = unittest.skipIf(np is None, "numpy is not installed")

SRCDIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCSDIR = os.path.join(SRCDIR, "docs")

GRAPH_TEXT = """\
graph(x, y):
  a = mul(x, y)
  b = add(a, 1.5)
  c = relu(b)
  return (c,)
"""

SHIPPED = ["eager", "inductor",
           "relu_compile_error_TESTING_ONLY", "relu_runtime_error_TESTING_ONLY"]

REGISTRY_ERROR = Reg.registry_error_quark()
COMPILER_ERROR = Reg.compiler_error_quark()
GRAPH_ERROR = Reg.graph_error_quark()

# The shipped modules are found through REG_BACKEND_PATH (set by meson).
HAVE_MODULES = bool(os.environ.get("REG_BACKEND_PATH"))
needs_modules = unittest.skipUnless(HAVE_MODULES, "REG_BACKEND_PATH is not set")


@contextlib.contextmanager
def captured_stderr():
    """Collects what Python writes on sys.stderr (PyGObject prints the
    traceback of an exception escaping a virtual method there)."""
    buf = io.StringIO()
    with contextlib.redirect_stderr(buf):
        yield buf


def collect():
    for _ in range(3):
        gc.collect()


def gobject_finalized(obj):
    """A list that gets True appended when the GObject under `obj` is
    finalized (a GObject weak reference, not a Python one)."""
    flag = []
    obj.weak_ref(lambda: flag.append(True))
    return flag


# -- Backends implemented in Python ------------------------------------------


def outputs_of(tensors):
    """What a Reg.CompiledFn's do_run returns: one list that holds the
    tensors."""
    store = Gio.ListStore.new(Reg.Tensor)
    for t in tensors:
        store.append(t)
    return store


class IdentityFn(GObject.Object, Reg.CompiledFn):
    """Returns its inputs themselves."""

    def do_run(self, inputs):
        return outputs_of(inputs)


class ScaleFn(GObject.Object, Reg.CompiledFn):
    """Multiplies every input by a factor, into new tensors."""

    def __init__(self, factor):
        super().__init__()
        self.factor = factor
        self.calls = 0

    def do_run(self, inputs):
        self.calls += 1
        return outputs_of(Reg.Tensor.new_from_data([self.factor * v for v in t.get_data()],
                                                   t.get_shape())
                          for t in inputs)


class ScaleCompiler(GObject.Object, Reg.Compiler):
    """Ignores the graph: its functions scale their inputs."""

    def __init__(self, factor=2.0, name="py_scale"):
        super().__init__()
        self.factor = factor
        self.name = name
        self.compiles = []

    def do_compile(self, graph, example_inputs, options):
        self.compiles.append((graph, list(example_inputs), options))
        return ScaleFn(self.factor)

    def do_dup_name(self):
        return self.name


class NoNameCompiler(GObject.Object, Reg.Compiler):
    """Leaves dup_name to the default (the type name)."""

    def do_compile(self, graph, example_inputs, options):
        return IdentityFn()


class RaisingCompiler(GObject.Object, Reg.Compiler):
    def do_compile(self, graph, example_inputs, options):
        raise ValueError("do_compile fails on purpose")


class SilentCompiler(GObject.Object, Reg.Compiler):
    def do_compile(self, graph, example_inputs, options):
        return None


class GErrorCompiler(GObject.Object, Reg.Compiler):
    def do_compile(self, graph, example_inputs, options):
        raise GLib.Error.new_literal(COMPILER_ERROR, "python: no relu here",
                                     Reg.CompilerError.UNSUPPORTED_OP)


class RaisingFn(GObject.Object, Reg.CompiledFn):
    def do_run(self, inputs):
        raise ZeroDivisionError("do_run fails on purpose")


class GErrorFn(GObject.Object, Reg.CompiledFn):
    def do_run(self, inputs):
        raise GLib.Error.new_literal(COMPILER_ERROR, "python: out of range",
                                     Reg.CompilerError.RUNTIME)


class FnCompiler(GObject.Object, Reg.Compiler):
    """Compiles to an instance of a given CompiledFn class."""

    def __init__(self, fn_class):
        super().__init__()
        self.fn_class = fn_class

    def do_compile(self, graph, example_inputs, options):
        return self.fn_class()


class PartialCompiler(GObject.Object, Reg.Compiler):
    """Takes matmul and add only, and computes them with eager; says so in
    dup_supported_nodes."""

    TAKES = ("matmul", "add")

    def __init__(self, eager, claims=TAKES):
        super().__init__()
        self.eager = eager
        self.claims = claims
        self.asked = 0

    def do_compile(self, graph, example_inputs, options):
        for i in range(graph.get_n_nodes()):
            op = graph.get_node_op(i)
            if op is not None and op not in self.TAKES:
                raise GLib.Error.new_literal(COMPILER_ERROR, "py_partial: no %s" % op,
                                             Reg.CompilerError.UNSUPPORTED_OP)
        return self.eager.compile(graph, example_inputs, None)

    def do_dup_name(self):
        return "py_partial"

    def do_dup_supported_nodes(self, graph, example_inputs):
        self.asked += 1
        return GLib.Variant("au", [i for i in range(graph.get_n_nodes())
                                   if graph.get_node_op(i) in self.claims])


PARTIAL_TEXT = """\
graph(x, y):
  m = matmul(x, y)
  r = relu(m)
  a = add(r, x)
  s = sum(a)
  return (s, a)
"""


if np is not None:
    class NumpyFn(GObject.Object, Reg.CompiledFn):
        def __init__(self, program):
            super().__init__()
            self.program = program

        def do_run(self, inputs):
            arrays = [rnp.to_numpy(t) for t in inputs]
            return outputs_of(rnp.to_tensor(a) for a in self.program.run(arrays))

    class NumpyCompiler(GObject.Object, Reg.Compiler):
        """A whole backend in Python: interprets the graph with numpy."""

        def do_compile(self, graph, example_inputs, options):
            if options is not None:
                for key in options.keys():
                    raise GLib.Error.new_literal(
                        COMPILER_ERROR, "numpy: unknown option '%s'" % key,
                        Reg.CompilerError.BAD_OPTION)
            return NumpyFn(rnp.Program(graph))

        def do_dup_name(self):
            return "numpy"


def scalar_graph():
    return Reg.Graph.new_from_string("graph(x):\n  return (x,)\n")


def tensor(values, shape=None):
    if shape is None:
        shape = [len(values)]
    return Reg.Tensor.new_from_data(values, shape)


class RegTestCase(unittest.TestCase):
    def assertGError(self, cm, domain, code, message=None):
        err = cm.exception
        self.assertIsInstance(err, GLib.Error)
        self.assertEqual(err.domain, GLib.quark_to_string(domain))
        self.assertEqual(err.code, int(code))
        self.assertTrue(err.matches(domain, code))
        if message is not None:
            if hasattr(message, "search"):
                self.assertRegex(err.message, message)
            else:
                self.assertEqual(err.message, message)

    def tearDown(self):
        collect()


# -- Namespace ---------------------------------------------------------------


class TestNamespace(RegTestCase):
    def test_constants(self):
        self.assertEqual(Reg.DEFAULT_BACKEND, "inductor")
        self.assertEqual(Reg.TAG_DEBUG, "debug")
        self.assertEqual(Reg.TAG_EXPERIMENTAL, "experimental")
        self.assertEqual(Reg.TENSOR_MAX_DIMS, 8)
        self.assertEqual(Reg.MODULE_ABI_VERSION, 2)
        self.assertEqual((Reg.MAJOR_VERSION, Reg.MINOR_VERSION), (1, 0))

    def test_error_domains(self):
        self.assertEqual(GLib.quark_to_string(REGISTRY_ERROR), "reg-registry-error-quark")
        self.assertEqual(GLib.quark_to_string(COMPILER_ERROR), "reg-compiler-error-quark")
        self.assertEqual(GLib.quark_to_string(GRAPH_ERROR), "reg-graph-error-quark")
        self.assertEqual(int(Reg.RegistryError.INVALID_BACKEND), 0)
        self.assertEqual(int(Reg.RegistryError.LOAD_FAILED), 3)
        self.assertEqual(int(Reg.CompilerError.RUNTIME), 4)
        self.assertEqual(int(Reg.GraphError.SHAPE), 5)

    def test_types(self):
        for cls, name in ((Reg.Registry, "RegRegistry"), (Reg.Compiler, "RegCompiler"),
                          (Reg.CompiledFn, "RegCompiledFn"),
                          (Reg.FuncCompiler, "RegFuncCompiler"),
                          (Reg.BackendInfo, "RegBackendInfo"), (Reg.Module, "RegModule"),
                          (Reg.Graph, "RegGraph"), (Reg.Tensor, "RegTensor"),
                          (Reg.RegistryError, "RegRegistryError"),
                          (Reg.CompilerError, "RegCompilerError"),
                          (Reg.GraphError, "RegGraphError"),
                          (Reg.BackendOrigin, "RegBackendOrigin"),
                          (Reg.NodeKind, "RegNodeKind")):
            self.assertEqual(cls.__gtype__.name, name)
        self.assertTrue(Reg.Module.__gtype__.is_a(GObject.TypeModule.__gtype__))
        self.assertTrue(Reg.FuncCompiler.__gtype__.is_a(Reg.Compiler.__gtype__))

    def test_close_matches_like_difflib(self):
        words = ["inductor", "eager", "aot_eager", "cudagraphs", "onnxrt", "tvm",
                 "ipex", "openxla", "tensorrt", "aot_ts_nvfuser", "nvprims_nvfuser"]
        for word in ["indcutor", "eagr", "ager", "aot", "onnx", "tvmm", "openxl", "x",
                     "", "inductor", "nvfuser", "cuda_graphs", "INDUCTOR"]:
            for n, cutoff in ((3, 0.6), (1, 0.6), (5, 0.3), (3, 0.9)):
                self.assertEqual(Reg.close_matches(word, words, n, cutoff),
                                 difflib.get_close_matches(word, words, n, cutoff),
                                 (word, n, cutoff))
        self.assertEqual(Reg.close_matches("abc", [], 3, 0.6), [])
        self.assertEqual(Reg.close_matches("abc", None, 3, 0.6), [])


# -- Registry ----------------------------------------------------------------


class TestRegistry(RegTestCase):
    def setUp(self):
        self.registry = Reg.Registry.new()

    @needs_modules
    def test_list_backends(self):
        r = self.registry
        self.assertEqual(r.list_backends(None), ["inductor"])
        self.assertEqual(r.list_backends([]), sorted(SHIPPED))
        self.assertEqual(r.list_backends(["debug"]), ["inductor"])
        self.assertEqual(r.list_backends(["nothing-has-this"]), sorted(SHIPPED))
        r.register_backend("zz_fast", ScaleCompiler(), ["fast", "python"])
        r.register_backend("aa_slow", ScaleCompiler(), ["slow"])
        r.register_debug_backend("py_debug", ScaleCompiler())
        r.register_experimental_backend("py_experimental", ScaleCompiler())
        self.assertEqual(r.list_backends(None), ["aa_slow", "inductor", "zz_fast"])
        self.assertEqual(r.list_backends([]),
                         sorted(SHIPPED + ["zz_fast", "aa_slow", "py_debug",
                                           "py_experimental"]))
        self.assertEqual(r.list_backends(["python"]),
                         sorted(SHIPPED + ["aa_slow", "py_debug", "py_experimental"]))
        self.assertEqual(r.list_backends(["fast", "slow", "debug"]),
                         ["inductor", "py_experimental"])
        self.assertEqual(r.list_backends(["experimental"]),
                         sorted(SHIPPED + ["zz_fast", "aa_slow", "py_debug"]))

    def test_register_name_from_compiler(self):
        r = self.registry
        c = ScaleCompiler(name="py_named_by_itself")
        self.assertEqual(c.get_name(), "py_named_by_itself")
        self.assertTrue(r.register_backend(None, c, None))
        self.assertIs(r.lookup_backend("py_named_by_itself"), c)
        d = ScaleCompiler(name="py_debug_named")
        self.assertTrue(r.register_debug_backend(None, d))
        self.assertEqual(r.get_backend_tags("py_debug_named"), ["debug"])

    def test_default_get_name_is_type_name(self):
        c = NoNameCompiler()
        self.assertEqual(c.get_name(), type(c).__gtype__.name)

    def test_unregister_releases_compiler(self):
        r = self.registry
        c = ScaleCompiler()
        finalized = gobject_finalized(c)
        r.register_backend("py_released", c, None)
        del c
        collect()
        self.assertEqual(finalized, [], "the registry keeps its compiler")
        r.unregister_backend("py_released")
        collect()
        self.assertEqual(finalized, [True])

    @needs_modules
    def test_backend_info_module(self):
        r = self.registry
        info = r.get_backend_info("eager")
        self.assertIsInstance(info, Reg.BackendInfo)
        self.assertEqual(info.get_name(), "eager")
        self.assertEqual(info.props.name, "eager")
        self.assertEqual(info.get_tags(), ["debug"])
        self.assertEqual(info.props.tags, ["debug"])
        self.assertEqual(info.get_description(), "Reference interpreter, one node at a time")
        self.assertEqual(info.props.description, info.get_description())
        self.assertEqual(info.get_origin(), Reg.BackendOrigin.MODULE)
        self.assertEqual(info.props.origin, Reg.BackendOrigin.MODULE)
        path = info.get_module_path()
        self.assertEqual(info.props.module_path, path)
        self.assertTrue(os.path.isabs(path), path)
        self.assertEqual(os.path.basename(path), "libreg-eager.so")
        self.assertTrue(os.path.exists(path))
        self.assertFalse(info.get_loaded())
        self.assertFalse(info.props.loaded)
        # eager's manifest says Shareable=true: known before loading.
        self.assertEqual(info.get_compiler_flags(), Reg.CompilerFlags.SHAREABLE)
        self.assertEqual(info.props.compiler_flags, Reg.CompilerFlags.SHAREABLE)
        # A snapshot: it does not change when the backend loads.
        r.lookup_backend("eager")
        self.assertFalse(info.props.loaded)
        after = r.get_backend_info("eager")
        self.assertTrue(after.props.loaded)
        self.assertEqual(after.props.origin, Reg.BackendOrigin.MODULE)
        self.assertEqual(after.props.module_path, path)
        self.assertEqual(r.get_backend_info("inductor").props.tags, [])

    def test_backend_info_runtime(self):
        r = self.registry
        r.register_backend("py_info", ScaleCompiler(), ["x", "y"])
        info = r.get_backend_info("py_info")
        self.assertEqual(info.props.name, "py_info")
        self.assertEqual(info.props.tags, ["x", "y"])
        self.assertIsNone(info.props.module_path)
        self.assertTrue(info.props.loaded)
        self.assertEqual(info.props.origin, Reg.BackendOrigin.RUNTIME)
        # A compiler without get_flags promises nothing.
        self.assertEqual(info.get_compiler_flags(), Reg.CompilerFlags.NONE)
        self.assertEqual(info.props.compiler_flags, Reg.CompilerFlags.NONE)
        self.assertIsNone(r.get_backend_info("no_such_backend"))
        # Immutable: the properties are read-only.
        for prop in ("name", "tags", "description", "module-path", "loaded", "origin",
                     "compiler-flags", "state", "verdict", "reason"):
            pspec = Reg.BackendInfo.find_property(prop)
            self.assertTrue(pspec.flags & GObject.ParamFlags.READABLE, prop)
            self.assertFalse(pspec.flags & GObject.ParamFlags.WRITABLE, prop)
        self.assertEqual(info.props.state, Reg.BackendState.LOADED)

    def test_default_backend(self):
        r = self.registry
        self.assertEqual(r.dup_default_backend(), Reg.DEFAULT_BACKEND)
        self.assertEqual(r.props.default_backend, "inductor")
        self.assertEqual(r.get_property("default-backend"), "inductor")
        notified = []
        r.connect("notify::default-backend",
                  lambda obj, pspec: notified.append((pspec.name, obj.props.default_backend)))
        r.set_default_backend("eager")
        self.assertEqual(notified, [("default-backend", "eager")])
        self.assertEqual(r.dup_default_backend(), "eager")
        r.set_default_backend("eager")  # no change, no notification
        self.assertEqual(len(notified), 1)
        r.props.default_backend = "py_later"  # need not exist yet
        self.assertEqual(notified[-1], ("default-backend", "py_later"))
        r.set_property("default-backend", None)
        self.assertEqual(notified[-1], ("default-backend", "inductor"))
        self.assertEqual(r.dup_default_backend(), "inductor")
        r.set_default_backend(None)
        self.assertEqual(len(notified), 3)

    @needs_modules
    def test_verify_backend(self):
        r = self.registry
        if not os.environ.get("REG_VERIFY_HELPER"):
            self.skipTest("REG_VERIFY_HELPER is not set")
        self.assertEqual(r.props.module_checks, Reg.ModuleChecks.QUARANTINE)
        options = GLib.Variant("a{sv}", {"store": GLib.Variant("s", "none"),
                                         "timeout": GLib.Variant("d", 60.0)})
        verdict = r.verify_backend("eager", options, None)
        self.assertIsInstance(verdict, Reg.Verdict)
        self.assertEqual(verdict.get_kind(), Reg.VerdictKind.OK)
        self.assertEqual(verdict.props.kind, Reg.VerdictKind.OK)
        self.assertIsNone(verdict.get_reason())
        self.assertEqual(verdict.get_unsupported_ops(), [])
        self.assertFalse(verdict.get_quarantines())
        self.assertEqual(verdict.get_backend_name(), "eager")
        self.assertTrue(verdict.get_module_path().endswith("libreg-eager.so"))
        self.assertIsNone(r.dup_verdict("eager"))  # "none": not recorded
        recorded = r.verify_backend("eager", None, None)  # the user's store
        self.assertEqual(r.dup_verdict("eager").get_time(), recorded.get_time())
        with self.assertRaises(GLib.Error) as cm:
            r.verify_backend("eager", GLib.Variant("a{sv}", {"bogus": GLib.Variant("i", 1)}), None)
        self.assertTrue(cm.exception.matches(Gio.io_error_quark(), Gio.IOErrorEnum.INVALID_ARGUMENT))

    def test_skipped_manifests_and_declarations(self):
        r = self.registry
        with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as later:
            for d, description in ((first, "first"), (later, "later")):
                with open(os.path.join(d, "py.backend"), "w") as f:
                    f.write("[Reg Module]\nModule=libpy.so\nAbiVersion=2\n\n"
                            "[Backend py_twice]\nDescription=%s\n" % description)
            broken = os.path.join(later, "old.backend")
            with open(broken, "w") as f:
                f.write("[Reg Module]\nModule=libold.so\nAbiVersion=1\n\n[Backend py_old]\n")
            r.add_search_path(later)
            r.add_search_path(first)
            skipped = r.dup_skipped_manifests()
            self.assertEqual(list(skipped), [broken])
            self.assertTrue(skipped[broken].startswith("AbiVersion=1 is not supported"))
            info = r.get_backend_info("py_twice")
            self.assertEqual(info.get_manifest_path(), os.path.join(first, "py.backend"))
            self.assertEqual(info.props.shadowed_manifests, [os.path.join(later, "py.backend")])
            with self.assertRaises(GLib.Error) as cm:
                r.lookup_backend("py_old")
            self.assertIn("The manifest %s declares it but was skipped" % broken,
                          cm.exception.message)

# -- Signals -----------------------------------------------------------------


class TestSignals(RegTestCase):
    def test_detailed_backend_registered(self):
        r = Reg.Registry.new()
        only_a, only_b, every = [], [], []
        r.connect("backend-registered::py_a", lambda reg, name: only_a.append(name))
        r.connect("backend-registered::py_b", lambda reg, name: only_b.append(name))
        r.connect("backend-registered", lambda reg, name: every.append(name))
        r.register_backend("py_a", ScaleCompiler(), None)
        r.register_debug_backend("py_c", ScaleCompiler())
        r.register_experimental_backend("py_b", ScaleCompiler())
        self.assertEqual(only_a, ["py_a"])
        self.assertEqual(only_b, ["py_b"])
        self.assertEqual(every, ["py_a", "py_c", "py_b"])
        # A failed registration emits nothing.
        with self.assertRaises(GLib.Error):
            r.register_backend("py_a", ScaleCompiler(), None)
        self.assertEqual(only_a, ["py_a"])

    def test_handler_may_call_back(self):
        r = Reg.Registry.new()
        seen = []

        def on_registered(reg, name):
            # The change is visible, and the registry is not locked.
            compiler = reg.lookup_backend(name)
            seen.append((name, reg.is_registered(compiler), reg.get_backend_tags(name)))
            if name == "py_first":
                reg.register_backend("py_second", ScaleCompiler(), ["nested"])

        def on_unregistered(reg, name):
            seen.append(("unregistered", name, name in reg.list_backends([])))

        r.connect("backend-registered", on_registered)
        r.connect("backend-unregistered", on_unregistered)
        r.register_backend("py_first", ScaleCompiler(), ["outer"])
        self.assertEqual(seen, [("py_first", True, ["outer"]),
                                ("py_second", True, ["nested"])])
        r.unregister_backend("py_second")
        self.assertEqual(seen[-1], ("unregistered", "py_second", False))

    def test_emitted_in_calling_thread(self):
        r = Reg.Registry.new()
        threads = []
        r.connect("backend-registered",
                  lambda reg, name: threads.append((name, threading.get_ident())))
        worker = threading.Thread(
            target=lambda: r.register_backend("py_threaded", ScaleCompiler(), None))
        worker.start()
        ident = worker.ident
        worker.join()
        self.assertEqual(threads, [("py_threaded", ident)])
        self.assertNotEqual(ident, threading.get_ident())

    @needs_modules
    def test_module_signals_on_lookup(self):
        r = Reg.Registry.new()
        events = []
        r.connect("backend-declared", lambda reg, name: events.append(("declared", name)))
        r.connect("backend-registered",
                  lambda reg, name: events.append(("registered", name)))
        r.connect("backend-registered::eager",
                  lambda reg, name: events.append(("registered::eager", name)))
        modules = []

        def on_module_loaded(reg, module):
            modules.append(module)
            events.append(("module-loaded", os.path.basename(module.get_path())))

        r.connect("module-loaded", on_module_loaded)
        compiler = r.lookup_backend("eager")
        self.assertIsInstance(compiler, Reg.Compiler)
        declared = sorted(name for kind, name in events if kind == "declared")
        self.assertEqual(declared, sorted(SHIPPED))
        rest = [e for e in events if e[0] != "declared"]
        self.assertEqual(rest, [("module-loaded", "libreg-eager.so"),
                                ("registered", "eager"),
                                ("registered::eager", "eager")])
        # Every declaration comes before the module is loaded.
        self.assertEqual(events.index(("module-loaded", "libreg-eager.so")), len(SHIPPED))
        self.assertIsInstance(modules[0], Reg.Module)
        self.assertIsInstance(modules[0], GObject.TypeModule)
        self.assertEqual(modules[0].get_path(),
                         r.get_backend_info("eager").props.module_path)
        # Loaded once: a second lookup emits nothing.
        n = len(events)
        self.assertIs(r.lookup_backend("eager"), compiler)
        self.assertEqual(len(events), n)
        # The testing module declares two backends: both register on one load.
        events.clear()
        r.lookup_backend("relu_runtime_error_TESTING_ONLY")
        self.assertEqual(events[0], ("module-loaded", "libreg-testing.so"))
        self.assertEqual(sorted(e for e in events[1:]),
                         [("registered", "relu_compile_error_TESTING_ONLY"),
                          ("registered", "relu_runtime_error_TESTING_ONLY")])

    def test_disconnect(self):
        r = Reg.Registry.new()
        seen = []
        handler = r.connect("backend-registered", lambda reg, name: seen.append(name))
        r.register_backend("py_one", ScaleCompiler(), None)
        r.disconnect(handler)
        r.register_backend("py_two", ScaleCompiler(), None)
        self.assertEqual(seen, ["py_one"])


# -- Errors ------------------------------------------------------------------


# -- Tensors -----------------------------------------------------------------


class TestTensor(RegTestCase):
    def test_new(self):
        t = Reg.Tensor.new([2, 3])
        self.assertEqual(t.get_shape(), [2, 3])
        self.assertEqual(t.get_n_dims(), 2)
        self.assertEqual(t.get_n_elements(), 6)
        self.assertEqual(t.get_data(), [0.0] * 6)
        scalar = Reg.Tensor.new([])
        self.assertEqual(scalar.get_shape(), [])
        self.assertEqual(scalar.get_n_dims(), 0)
        self.assertEqual(scalar.get_n_elements(), 1)
        self.assertEqual(scalar.get_data(), [0.0])
        empty = Reg.Tensor.new([3, 0])
        self.assertEqual(empty.get_n_elements(), 0)
        self.assertEqual(empty.get_data(), [])
        self.assertEqual(empty.dup_bytes().get_size(), 0)
        big = Reg.Tensor.new([1] * Reg.TENSOR_MAX_DIMS)
        self.assertEqual(big.get_n_dims(), 8)

    def test_new_from_data(self):
        t = Reg.Tensor.new_from_data([1, 2.5, -3, 4, 5, 6], [3, 2])
        self.assertEqual(t.get_shape(), [3, 2])
        self.assertEqual(t.get_data(), [1.0, 2.5, -3.0, 4.0, 5.0, 6.0])
        s = Reg.Tensor.new_from_data([7], [])
        self.assertEqual((s.get_shape(), s.get_data()), ([], [7.0]))
        e = Reg.Tensor.new_from_data([], [0])
        self.assertEqual(e.get_n_elements(), 0)
        # Stored as float32.
        import struct
        f32 = struct.unpack("=f", struct.pack("=f", 0.1))[0]
        self.assertEqual(Reg.Tensor.new_from_data([0.1], [1]).get_data(), [f32])

    def test_bytes_roundtrip(self):
        import struct
        values = [0.0, -1.5, 3.25, 0.125, 65504.0, -0.0]  # exact in float32
        raw = struct.pack("=%df" % len(values), *values)
        t = Reg.Tensor.new_from_bytes(GLib.Bytes.new(raw), [2, 3])
        self.assertEqual(t.dup_bytes().get_data(), raw)
        self.assertEqual(t.get_data(), values)
        back = Reg.Tensor.new_from_bytes(t.dup_bytes(), t.get_shape())
        self.assertTrue(back.allclose(t, 0.0, 0.0))

    @needs_numpy
    def test_numpy(self):
        a = np.arange(12, dtype=np.float32)
        t = Reg.Tensor.new_from_bytes(GLib.Bytes.new(a.tobytes()), [3, 4])
        self.assertEqual(t.get_shape(), [3, 4])
        self.assertEqual(t.get_n_elements(), 12)
        b = np.frombuffer(t.dup_bytes().get_data(), dtype=np.float32).reshape(t.get_shape())
        np.testing.assert_array_equal(b, a.reshape(3, 4))
        self.assertEqual(t.get_data(), a.tolist())
        rng = np.random.default_rng(42)
        for shape in [(), (1,), (5,), (2, 3), (2, 3, 4), (1, 2, 1, 2, 1, 2, 1, 2)]:
            arr = rng.standard_normal(shape).astype(np.float32)
            t = rnp.to_tensor(arr)
            self.assertEqual(t.get_shape(), list(shape))
            np.testing.assert_array_equal(rnp.to_numpy(t), arr)
        # Fortran order and non-contiguous views are copied in C order.
        f = np.asfortranarray(rng.standard_normal((3, 5)).astype(np.float32))
        np.testing.assert_array_equal(rnp.to_numpy(rnp.to_tensor(f)), f)
        v = rng.standard_normal((6, 6)).astype(np.float32)[::2, 1::2]
        np.testing.assert_array_equal(rnp.to_numpy(rnp.to_tensor(v)), v)

    def test_outputs_are_independent_objects(self):
        t = tensor([1, 2, 3])
        data = t.get_data()
        data[0] = 100.0  # a Python copy
        self.assertEqual(t.get_data()[0], 1.0)


# -- Graphs ------------------------------------------------------------------


class TestGraph(RegTestCase):
    def build(self):
        g = Reg.Graph.new()
        x = g.add_input("x")
        y = g.add_input("y")
        a = g.add_op("mul", [x, y])
        k = g.add_constant(1.5)
        b = g.add_op("add", [a, k])
        c = g.add_op("relu", [b])
        g.set_outputs([c])
        return g, (x, y, a, k, b, c)

    def test_builder(self):
        g, (x, y, a, k, b, c) = self.build()
        self.assertEqual((x, y, a, k, b, c), (0, 1, 2, 3, 4, 5))
        self.assertTrue(g.validate())
        self.assertEqual(g.get_n_nodes(), 6)
        self.assertEqual([g.get_node_kind(n) for n in range(6)],
                         [Reg.NodeKind.INPUT, Reg.NodeKind.INPUT, Reg.NodeKind.OP,
                          Reg.NodeKind.CONSTANT, Reg.NodeKind.OP, Reg.NodeKind.OP])
        self.assertEqual(g.get_node_name(x), "x")
        self.assertEqual(g.get_node_op(a), "mul")
        self.assertIsNone(g.get_node_op(x))
        self.assertEqual(g.get_node_args(a), [x, y])
        self.assertEqual(g.get_node_args(b), [a, k])
        self.assertEqual(g.get_node_value(k), 1.5)
        self.assertEqual(g.get_inputs(), [x, y])
        self.assertEqual(g.get_outputs(), [c])
        text = g.to_string()
        self.assertTrue(text.startswith("graph(x, y):\n"), text)
        self.assertTrue(text.endswith("  return (v5,)\n"), text)
        self.assertIn("= add(", text)
        self.assertIn(", 1.5)", text)
        # Printing and parsing round-trip.
        again = Reg.Graph.new_from_string(text)
        self.assertEqual(again.to_string(), text)
        self.assertEqual(again.get_n_nodes(), 6)

    def test_infer_shapes(self):
        g = Reg.Graph.new_from_string(
            "graph(a, b):\n  m = matmul(a, b)\n  s = sum(m)\n  return (m, s)\n")
        shapes = g.infer_shapes([Reg.Tensor.new([2, 3]), Reg.Tensor.new([3, 4])])
        self.assertIsInstance(shapes, Reg.ShapeList)
        self.assertEqual([shapes.get_shape(i) for i in range(shapes.get_n_shapes())],
                         [[2, 3], [3, 4], [2, 4], []])
        with self.assertRaises(GLib.Error) as cm:
            g.infer_shapes([Reg.Tensor.new([2, 3]), Reg.Tensor.new([2, 4])])
        self.assertGError(cm, GRAPH_ERROR, Reg.GraphError.SHAPE)

    OPERATORS = ["add", "sub", "mul", "div", "maximum", "minimum", "neg", "relu", "exp",
                 "log", "sqrt", "tanh", "sigmoid", "abs", "sum", "matmul"]

    def test_op_enum(self):
        values = sorted(Reg.Op.__enum_values__.values())
        self.assertEqual([v.value_nick for v in values], self.OPERATORS)
        self.assertEqual(Reg.Op.MATMUL.value_nick, "matmul")
        for op in values:
            self.assertEqual(Reg.Op.get_name(op), op.value_nick)
            self.assertEqual(Reg.Op.from_name(op.value_nick), (True, op))
            kind = Reg.Op.get_kind(op)
            self.assertEqual(Reg.Op.get_arity(op),
                             1 if kind in (Reg.OpKind.ELEMENTWISE_UNARY,
                                           Reg.OpKind.REDUCTION) else 2)
            # The parser knows it by that name.
            args = "x" if Reg.Op.get_arity(op) == 1 else "x, y"
            g = Reg.Graph.new_from_string(
                "graph(x, y):\n  r = %s(%s)\n  return (r,)\n" % (op.value_nick, args))
            self.assertEqual(g.get_node_operator(2), op)
        self.assertEqual(Reg.Op.get_kind(Reg.Op.MATMUL), Reg.OpKind.MATMUL)
        self.assertEqual(Reg.Op.get_kind(Reg.Op.SUM), Reg.OpKind.REDUCTION)
        self.assertFalse(Reg.Op.from_name("Matmul")[0])
        self.assertFalse(Reg.Op.from_name("softmax")[0])

# -- Compiling and calling, checked against numpy -----------------------------


@needs_numpy
@needs_modules
class TestNumerics(RegTestCase):
    GRAPHS = [
        (GRAPH_TEXT, [(4, 3), (4, 3)]),
        ("graph(x, w, b):\n  h = matmul(x, w)\n  z = add(h, b)\n  y = relu(z)\n"
         "  return (y,)\n", [(4, 3), (3, 8), (4, 8)]),
        ("graph(x):\n  a = tanh(x)\n  b = sigmoid(x)\n  c = mul(a, b)\n  d = exp(c)\n"
         "  e = sub(d, 1)\n  f = abs(e)\n  g = sqrt(f)\n  h = neg(g)\n  s = sum(h)\n"
         "  return (h, s)\n", [(5, 7)]),
        ("graph(x, y):\n  a = maximum(x, y)\n  b = minimum(x, y)\n  c = div(a, 2)\n"
         "  d = sub(c, b)\n  e = add(1, d)\n  return (e, a)\n", [(3, 2, 2), (3, 2, 2)]),
        ("graph(x):\n  return (x,)\n", [(6,)]),
    ]

    def setUp(self):
        self.registry = Reg.Registry.new()
        self.rng = np.random.default_rng(1234)

    def check_backend(self, backend, options=None):
        for text, shapes in self.GRAPHS:
            graph = Reg.Graph.new_from_string(text)
            arrays = [self.rng.standard_normal(s).astype(np.float32) for s in shapes]
            inputs = [rnp.to_tensor(a) for a in arrays]
            fn = self.registry.compile(backend, graph, inputs, options)
            outputs = fn.call(inputs)
            expected = rnp.evaluate(graph, arrays)
            self.assertEqual(len(outputs), len(expected))
            for out, exp in zip(outputs, expected):
                self.assertIsInstance(out, Reg.Tensor)
                self.assertEqual(out.get_shape(), list(exp.shape))
                np.testing.assert_allclose(rnp.to_numpy(out), exp, rtol=1e-5, atol=1e-5,
                                           err_msg="%s: %s" % (backend, text))
                self.assertTrue(out.allclose(rnp.to_tensor(exp), 1e-5, 1e-5))

    def test_built_matmul(self):
        x = self.rng.standard_normal((4, 3)).astype(np.float32)
        w = self.rng.standard_normal((3, 5)).astype(np.float32)
        graph = Reg.Graph.new()
        h = graph.add_op("matmul", [graph.add_input("x"), graph.add_input("w")])
        graph.set_outputs([graph.add_op("relu", [h])])
        inputs = [rnp.to_tensor(x), rnp.to_tensor(w)]
        for backend in ("eager", "inductor"):
            (out,) = self.registry.compile(backend, graph, inputs, None).call(inputs)
            np.testing.assert_allclose(rnp.to_numpy(out), np.maximum(x @ w, 0),
                                       rtol=1e-5, atol=1e-5, err_msg=backend)

    def test_relu_mul_add(self):
        x = self.rng.standard_normal((4, 3)).astype(np.float32)
        y = self.rng.standard_normal((4, 3)).astype(np.float32)
        expected = np.maximum(x * y + np.float32(1.5), 0)
        graph = Reg.Graph.new_from_string(GRAPH_TEXT)
        for backend in ("eager", "inductor", None):
            fn = self.registry.compile(backend, graph, [rnp.to_tensor(x), rnp.to_tensor(y)],
                                       None)
            (out,) = fn.call([rnp.to_tensor(x), rnp.to_tensor(y)])
            np.testing.assert_allclose(rnp.to_numpy(out), expected, rtol=1e-6, atol=1e-6)

    def test_eager(self):
        self.check_backend("eager")

    def test_inductor(self):
        self.check_backend("inductor")
        self.check_backend("inductor", GLib.Variant("a{sv}", {"fuse": GLib.Variant("b", False)}))
        self.check_backend("inductor", GLib.Variant("a{sv}", {"threads": GLib.Variant("u", 4)}))

    def test_python_numpy_backend(self):
        self.registry.register_backend(None, NumpyCompiler(), ["python"])
        self.check_backend("numpy")
        with self.assertRaises(GLib.Error) as cm:
            self.registry.compile("numpy", scalar_graph(), [Reg.Tensor.new([2])],
                                  GLib.Variant("a{sv}", {"speed": GLib.Variant("u", 1)}))
        self.assertGError(cm, COMPILER_ERROR, Reg.CompilerError.BAD_OPTION,
                          "numpy: unknown option 'speed'")

    def test_backends_agree(self):
        graph = Reg.Graph.new_from_string(self.GRAPHS[2][0])
        arrays = [self.rng.standard_normal((5, 7)).astype(np.float32)]
        inputs = [rnp.to_tensor(a) for a in arrays]
        results = {}
        for name in ("eager", "inductor"):
            results[name] = self.registry.compile(name, graph, inputs, None).call(inputs)
        for a, b in zip(results["eager"], results["inductor"]):
            self.assertTrue(a.allclose(b, 1e-5, 1e-6))

# -- Reference counting -------------------------------------------------------


@needs_modules
class TestLifetimes(RegTestCase):
    def test_compile_call_loops(self):
        r = Reg.Registry.new()
        graph = Reg.Graph.new_from_string(GRAPH_TEXT)
        kept = []
        for i in range(200):
            backend = ("eager", "inductor")[i % 2]
            x = tensor([float(i), -1.0, 2.0])
            y = tensor([1.0, 2.0, 3.0])
            fn = r.compile(backend, graph, [x, y], None)
            outputs = fn.call([x, y])
            self.assertEqual(len(outputs), 1)
            # Only the Python wrapper holds the tensor: no leaked reference.
            self.assertEqual(outputs[0].__grefcount__, 1)
            if i % 20 == 0:
                kept.append((i, outputs[0]))
            del fn, x, y, outputs
            if i % 50 == 0:
                collect()
        collect()
        # Outputs outlive the compiled functions and the inputs.
        for i, out in kept:
            self.assertEqual(out.get_data(), [max(i + 1.5, 0.0), 0.0, 7.5])
            self.assertEqual(out.get_shape(), [3])

    def test_compiled_fn_outlives_graph_and_compiler(self):
        r = Reg.Registry.new()
        graph = Reg.Graph.new_from_string(GRAPH_TEXT)
        x, y = tensor([1, 2]), tensor([3, -4])
        fns = [r.compile(b, graph, [x, y], None) for b in ("eager", "inductor")]
        graph_gone = gobject_finalized(graph)
        registry_gone = gobject_finalized(r)
        del graph, r
        collect()
        self.assertEqual(registry_gone, [True])
        for fn in fns:
            for _ in range(5):
                self.assertEqual(fn.call([x, y])[0].get_data(), [4.5, 0.0])
        # A backend may keep the graph; it goes with the functions.
        del fns
        collect()
        self.assertEqual(graph_gone, [True])

    def test_compiled_fn_is_finalized(self):
        r = Reg.Registry.new()
        # The compile cache keeps what it compiled: without it, the caller
        # holds the only reference.
        r.set_compile_cache_size(0)
        graph = Reg.Graph.new_from_string(GRAPH_TEXT)
        x, y = tensor([1, 2]), tensor([3, -4])
        for backend in ("eager", "inductor"):
            fn = r.compile(backend, graph, [x, y], None)
            out = fn.call([x, y])
            gone = gobject_finalized(fn)
            out_gone = gobject_finalized(out[0])
            del fn
            collect()
            self.assertEqual(gone, [True], backend)
            self.assertEqual(out_gone, [])
            self.assertEqual(out[0].get_data(), [4.5, 0.0])
            del out
            collect()
            self.assertEqual(out_gone, [True])
        self.assertEqual(x.__grefcount__, 1)
        self.assertEqual(y.__grefcount__, 1)

    def test_python_backend_loops(self):
        r = Reg.Registry.new()
        r.register_backend(None, ScaleCompiler(factor=3.0), None)
        r.register_backend("py_identity", FnCompiler(IdentityFn), None)
        graph = scalar_graph()
        kept = []
        for i in range(300):
            x = tensor([float(i), 1.0])
            fn = r.compile("py_scale", graph, [x], None)
            (out,) = fn.call([x])
            self.assertEqual(out.__grefcount__, 1)
            ident = r.compile("py_identity", graph, [x], None)
            (same,) = ident.call([x])
            self.assertIs(same, x)
            if i % 30 == 0:
                kept.append((i, out))
            del fn, ident, x, out, same
            if i % 100 == 0:
                collect()
        collect()
        for i, out in kept:
            self.assertEqual(out.get_data(), [3.0 * i, 3.0])

    def test_identity_keeps_inputs_balanced(self):
        x = tensor([1.0])
        before = x.__grefcount__
        fn = FnCompiler(IdentityFn).compile(scalar_graph(), [x], None)
        for _ in range(100):
            out = fn.call([x])
            self.assertIs(out[0], x)
            del out
        collect()
        self.assertEqual(x.__grefcount__, before)
        gone = gobject_finalized(x)
        del x
        collect()
        self.assertEqual(gone, [True])

    def test_python_compiled_fn_lifetime(self):
        compiler = ScaleCompiler(factor=5.0)
        x = tensor([1.0, 2.0])
        fn = compiler.compile(scalar_graph(), [x], None)
        self.assertIsInstance(fn, ScaleFn)
        self.assertEqual(fn.factor, 5.0)  # the Python object itself
        fn.call([x])
        self.assertEqual(fn.calls, 1)
        gone = gobject_finalized(fn)
        del fn
        collect()
        self.assertEqual(gone, [True])

    def test_func_compiler_releases_closure(self):
        class Data:
            pass

        data = Data()
        data_ref = weakref.ref(data)

        def compile_func(graph, example_inputs, options, user_data):
            user_data.count = getattr(user_data, "count", 0) + 1
            return ScaleFn(user_data.count)

        fc = Reg.FuncCompiler.new("py_func_data", compile_func, data)
        del data
        x = tensor([1.0])
        self.assertEqual(fc.compile(scalar_graph(), [x], None).call([x])[0].get_data(), [1.0])
        self.assertEqual(fc.compile(scalar_graph(), [x], None).call([x])[0].get_data(), [2.0])
        self.assertIsNotNone(data_ref())
        gone = gobject_finalized(fc)
        del fc
        collect()
        self.assertEqual(gone, [True])
        self.assertIsNone(data_ref(), "the destroy notify released the user data")


# -- Backends written in Python ------------------------------------------------


class TestPythonBackends(RegTestCase):
    def test_partial_backend(self):
        """A backend that takes matmul and add: the registry runs relu and
        sum on the fallback, and says where each node ran."""
        r = Reg.Registry.new()
        r.set_fallback_backends(["eager"])
        partial = PartialCompiler(r.lookup_backend("eager"))
        r.register_backend(None, partial, None)
        heard = []
        r.connect("fallback", lambda reg, failed, next_, error: heard.append((failed, next_, error.message)))
        graph = Reg.Graph.new_from_string(PARTIAL_TEXT)
        x = tensor([0.5, -1, 2, 0.25], [2, 2])
        y = tensor([1, 2, -3, 0.5], [2, 2])
        want = [t.get_data() for t in r.compile("eager", graph, [x, y], None).call([x, y])]
        # Many times: the variant the method returns is handed over once.
        for _ in range(200):
            fn = r.compile("py_partial", graph, [x, y], None)
            self.assertEqual(fn.get_backend(), "py_partial")
            self.assertEqual(fn.dup_placement().unpack(),
                             [("py_partial", [2]), ("eager", [3]), ("py_partial", [4]), ("eager", [5])])
            for got, expected in zip(fn.call([x, y]), want):
                self.assertEqual(got.get_data(), expected)
            collect()
        self.assertEqual(heard[0], ("py_partial", "eager", "backend 'py_partial' does not take relu, sum"))
        self.assertEqual(len(heard), 200)
        # One function compiled whole has no placement.
        self.assertIsNone(r.compile("eager", graph, [x, y], None).dup_placement())
        # Strict: the operators it does not take, named.
        r.props.strict = True
        with self.assertRaises(GLib.Error) as cm:
            r.compile("py_partial", graph, [x, y], None)
        self.assertGError(cm, COMPILER_ERROR, Reg.CompilerError.UNSUPPORTED_OP,
                          "backend 'py_partial' does not take relu, sum (the registry is strict: "
                          "nothing else runs them)")

    def test_scenario(self):
        """Register a custom backend, get a signal, list, compile, call."""
        r = Reg.Registry.new()
        heard = []
        r.connect("backend-registered::py_scale", lambda reg, name: heard.append(name))
        compiler = ScaleCompiler(factor=2.0)
        self.assertTrue(r.register_backend(None, compiler, ["python"]))
        self.assertEqual(heard, ["py_scale"])
        self.assertIn("py_scale", r.list_backends(None))
        self.assertNotIn("py_scale", r.list_backends(["python"]))
        self.assertIs(r.lookup_backend("py_scale"), compiler)
        # ScaleCompiler's functions scale their inputs: a graph that
        # returns them.
        graph = Reg.Graph.new_from_string("graph(x, y):\n  return (x, y)\n")
        x = tensor([1, 2, 3, 4, 5, 6], [2, 3])
        y = tensor([1, 1, 1, 1, 1, 1], [2, 3])
        fn = r.compile("py_scale", graph, [x, y], None)
        self.assertIsInstance(fn, Reg.CompiledFn)
        out = fn.call([x, y])
        self.assertEqual([t.get_data() for t in out],
                         [[2.0, 4.0, 6.0, 8.0, 10.0, 12.0], [2.0] * 6])
        self.assertEqual(out[0].get_shape(), [2, 3])
        # What the compiler was given: a copy of the graph that never
        # changes, whatever the caller does with its own.
        (given_graph, given_inputs, given_options), = compiler.compiles
        self.assertIsNot(given_graph, graph)
        self.assertEqual(given_graph.to_string(), graph.to_string())
        self.assertEqual(given_inputs, [x, y])
        self.assertIsNone(given_options)

    def test_compile_through_the_c_wrapper(self):
        compiler = ScaleCompiler()
        x = tensor([1.0, 2.0])
        fn = compiler.compile(scalar_graph(), [x], GLib.Variant("a{sv}", {}))
        self.assertEqual(fn.call([x])[0].get_data(), [2.0, 4.0])
        options = compiler.compiles[0][2]
        # An empty dictionary reaches the compiler as given.
        self.assertIsInstance(options, GLib.Variant)
        self.assertEqual(options.get_type_string(), "a{sv}")
        self.assertEqual(options.unpack(), {})
        compiler.compile(scalar_graph(), [x],
                         GLib.Variant("a{sv}", {"level": GLib.Variant("u", 3)}))
        self.assertEqual(compiler.compiles[1][2].unpack(), {"level": 3})

    def test_python_exception_in_compile(self):
        for compiler in (RaisingCompiler(), Reg.FuncCompiler.new("py_raising", self._raise)):
            with captured_stderr() as err, self.assertRaises(GLib.Error) as cm:
                compiler.compile(scalar_graph(), [tensor([1.0])], None)
            self.assertGError(cm, COMPILER_ERROR, Reg.CompilerError.FAILED)
            self.assertIn("fails on purpose", err.getvalue())
        # Through the registry too.
        r = Reg.Registry.new()
        r.register_backend("py_raising", RaisingCompiler(), None)
        with captured_stderr(), self.assertRaises(GLib.Error) as cm:
            r.compile("py_raising", scalar_graph(), [tensor([1.0])], None)
        self.assertGError(cm, COMPILER_ERROR, Reg.CompilerError.FAILED)

    @staticmethod
    def _raise(graph, example_inputs, options):
        raise RuntimeError("FuncCompiler callable fails on purpose")

    def test_none_without_error(self):
        with captured_stderr(), self.assertRaises(GLib.Error) as cm:
            SilentCompiler().compile(scalar_graph(), [tensor([1.0])], None)
        self.assertGError(cm, COMPILER_ERROR, Reg.CompilerError.FAILED)

    def test_gerror_in_compile(self):
        r = Reg.Registry.new()
        r.register_backend("py_gerror", GErrorCompiler(), None)
        with self.assertRaises(GLib.Error) as cm:
            r.compile("py_gerror", scalar_graph(), [tensor([1.0])], None)
        self.assertGError(cm, COMPILER_ERROR, Reg.CompilerError.UNSUPPORTED_OP,
                          "python: no relu here")

    def test_python_exception_in_call(self):
        fn = FnCompiler(RaisingFn).compile(scalar_graph(), [tensor([1.0])], None)
        for _ in range(3):
            with captured_stderr() as err, self.assertRaises(GLib.Error) as cm:
                fn.call([tensor([1.0])])
            self.assertGError(cm, COMPILER_ERROR, Reg.CompilerError.RUNTIME)
            self.assertIn("ZeroDivisionError", err.getvalue())

    def test_gerror_in_call(self):
        fn = FnCompiler(GErrorFn).compile(scalar_graph(), [tensor([1.0])], None)
        with self.assertRaises(GLib.Error) as cm:
            fn.call([tensor([1.0])])
        self.assertGError(cm, COMPILER_ERROR, Reg.CompilerError.RUNTIME,
                          "python: out of range")

    def test_func_compiler(self):
        calls = []

        def compile_func(graph, example_inputs, options):
            calls.append((graph.get_n_nodes(), [t.get_shape() for t in example_inputs],
                          options))
            return ScaleFn(-1.0)

        fc = Reg.FuncCompiler.new("py_func", compile_func)
        self.assertIsInstance(fc, Reg.FuncCompiler)
        self.assertIsInstance(fc, Reg.Compiler)
        self.assertEqual(fc.get_name(), "py_func")
        r = Reg.Registry.new()
        heard = []
        r.connect("backend-registered::py_func", lambda reg, name: heard.append(name))
        r.register_backend(None, fc, None)
        self.assertEqual(heard, ["py_func"])
        self.assertIs(r.lookup_backend("py_func"), fc)
        x = tensor([1.0, -2.0], [1, 2])
        out = r.compile("py_func", scalar_graph(), [x], None).call([x])
        self.assertEqual(out[0].get_data(), [-1.0, 2.0])
        self.assertEqual(calls, [(1, [[1, 2]], None)])

    def test_func_compiler_lambda_to_module_backend(self):
        """A FuncCompiler that delegates to another backend (like a
        TorchDynamo backend wrapping inductor)."""
        if not HAVE_MODULES:
            self.skipTest("REG_BACKEND_PATH is not set")
        r = Reg.Registry.new()
        inner = r.lookup_backend("eager")
        fc = Reg.FuncCompiler.new("py_wrapper",
                                  lambda g, ex, opts: inner.compile(g, ex, opts))
        r.register_backend(None, fc, None)
        x, y = tensor([1.0, -3.0]), tensor([2.0, 2.0])
        fn = r.compile("py_wrapper", Reg.Graph.new_from_string(GRAPH_TEXT), [x, y], None)
        self.assertEqual(fn.call([x, y])[0].get_data(), [3.5, 0.0])

    def test_python_compiler_from_threads(self):
        r = Reg.Registry.new()
        c = ScaleCompiler(factor=2.0)
        r.register_backend(None, c, None)
        errors = []

        def work(k):
            try:
                for i in range(30):
                    x = tensor([float(k), float(i)])
                    out = r.compile("py_scale", scalar_graph(), [x], None).call([x])
                    if out[0].get_data() != [2.0 * k, 2.0 * i]:
                        errors.append((k, i, out[0].get_data()))
            except Exception as e:  # pragma: no cover
                errors.append(repr(e))

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(c.compiles), 120)


# -- Known binding problems ----------------------------------------------------
#
# Each test checks the behaviour the lead is asked to give libreg and skips,
# naming the problem, while libreg still has it.  Crashes run in a child
# process.


def run_child(code):
    """Runs `code` in a child /usr/bin/python3 with this environment."""
    prologue = ("import gi\ngi.require_version('Reg', '1.0')\n"
                "from gi.repository import GLib, Reg\n")
    return subprocess.run([sys.executable, "-c", prologue + code],
                          capture_output=True, text=True, timeout=60)


class TestGObjectConstruction(RegTestCase):
    """Objects made with g_object_new() alone, as a binding's plain
    constructor call makes them, are usable and never crash."""

    @needs_modules
    def test_gobject_constructed_tensor(self):
        # Reg.Tensor() skips reg_tensor_new(): it must still be a zero
        # scalar with storage.  A child process, so that a crash is a failure
        # of this test rather than of the suite.
        proc = run_child(
            "t = Reg.Tensor()\n"
            "print(t.get_shape(), t.get_n_elements(), t.get_data())\n"
            "g = Reg.Graph.new_from_string('graph(x):\\n  a = add(x, 1)\\n  return (a,)\\n')\n"
            "for backend in ('eager', 'inductor'):\n"
            "    fn = Reg.Registry.new().compile(backend, g, [t], None)\n"
            "    print(fn.call([t])[0].get_data())\n")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.split("\n")[:3],
                         ["[] 1 [0.0]", "[1.0]", "[1.0]"])

    def test_gobject_constructed_func_compiler(self):
        # Reg.FuncCompiler() has no function: compiling fails with FAILED.
        proc = run_child(
            "fc = Reg.FuncCompiler()\n"
            "g = Reg.Graph.new_from_string('graph(x):\\n  return (x,)\\n')\n"
            "try:\n"
            "    fc.compile(g, [Reg.Tensor.new([1])], None)\n"
            "except GLib.Error as e:\n"
            "    print(e.domain, e.code)\n")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.strip(), "reg-compiler-error-quark 0")

    def test_graph_invalid_node_constant(self):
        # REG_GRAPH_INVALID_NODE is in the GIR, for comparing builder results.
        self.assertEqual(Reg.GRAPH_INVALID_NODE, 0xFFFFFFFF)
        g = Reg.Graph.new()
        g.add_input("x")
        self.assertEqual(g.add_input("x"), Reg.GRAPH_INVALID_NODE)


# -- Options and the backend list ---------------------------------------------


class SchemaCompiler(GObject.Object, Reg.Compiler):
    """A backend with a schema: threads (u, 1 to 8) and mode (fast or
    small).  Records the options it is given."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def do_compile(self, graph, example_inputs, options):
        self.seen.append(options.unpack() if options is not None else None)
        return IdentityFn()

    def do_dup_name(self):
        return "py_schema"

    def do_dup_options(self):
        options = Gio.ListStore.new(Reg.Option)
        options.append(Reg.Option.new_with_range(
            "threads", "u", GLib.Variant("u", 1), GLib.Variant("u", 1), GLib.Variant("u", 8),
            "Threads"))
        options.append(Reg.Option.new_with_choices(
            "mode", "s", GLib.Variant("s", "fast"), ["fast", "small"], None))
        return options


class NamelessCompiler(GObject.Object, Reg.Compiler):
    """SchemaCompiler's schema, without do_dup_name: its own name is its
    GType's, which PyGObject makes of the module and class names."""

    def do_compile(self, graph, example_inputs, options):
        return IdentityFn()

    def do_dup_options(self):
        return SchemaCompiler.do_dup_options(self)


INDUCTOR_OPTIONS = [
    # name, type, default as text
    ("fuse", "b", "true"),
    ("block-size", "u", "512"),
    ("threads", "u", "1"),
    ("vector-math", "b", "true"),
    ("passes", "as", "fold,simplify,cse,dce"),
    ("matmul", "s", "auto"),
]


class TestOptions(RegTestCase):
    def setUp(self):
        self.graph = Reg.Graph.new_from_string("graph(x):\n  y = neg(x)\n  return (y,)\n")
        self.x = Reg.Tensor.new_from_data([1.0, -2.0], [2])

    @needs_modules
    def test_inductor_options_listed(self):
        registry = Reg.Registry.new()
        info = registry.get_backend_info("inductor")
        self.assertFalse(info.get_loaded())
        options = info.get_options()
        self.assertEqual(options.get_item_type(), Reg.Option.__gtype__)
        listed = [(o.get_name(), o.get_type_string(), o.value_to_string(o.get_default_value()))
                  for o in options]
        self.assertEqual(listed, INDUCTOR_OPTIONS)
        threads = options.get_item(2)
        self.assertEqual(threads.get_minimum().unpack(), 0)
        self.assertEqual(threads.get_maximum().unpack(), 256)
        self.assertEqual(threads.props.type_string, "u")
        self.assertIn("processor", threads.get_description())
        passes = options.get_item(4)
        self.assertEqual(passes.get_choices(), ["fold", "simplify", "cse", "dce"])
        # Still not loaded; then the compiler has the very same schema.
        self.assertFalse(registry.get_backend_info("inductor").get_loaded())
        compiler = registry.lookup_backend("inductor")
        self.assertEqual([o.get_name() for o in compiler.get_options()],
                         [name for name, _, _ in INDUCTOR_OPTIONS])
        # eager takes no option: an empty schema.
        self.assertEqual(registry.get_backend_info("eager").get_options().get_n_items(), 0)

    def test_options_not_a_dictionary(self):
        compiler = SchemaCompiler()
        for options in (GLib.Variant("u", 1), GLib.Variant("a{ss}", {"a": "b"})):
            with self.assertRaises(GLib.Error) as cm:
                compiler.compile(self.graph, [self.x], options)
            self.assertGError(cm, COMPILER_ERROR, Reg.CompilerError.BAD_OPTION)
            self.assertIn("a{sv}", cm.exception.message)
        self.assertEqual(compiler.seen, [])

    def test_python_schema(self):
        registry = Reg.Registry.new()
        compiler = SchemaCompiler()
        registry.register_backend(None, compiler, None)
        info = registry.get_backend_info("py_schema")
        self.assertEqual([o.get_name() for o in info.get_options()], ["threads", "mode"])
        for options, message in (
                ({"thread": GLib.Variant("u", 2)},
                 "unknown option 'thread' for backend 'py_schema', did you mean 'threads'?"),
                ({"threads": GLib.Variant("u", 9)},
                 "option 'threads' for backend 'py_schema' must be between 1 and 8, not 9"),
                ({"mode": GLib.Variant("s", "slow")},
                 "option 'mode' for backend 'py_schema' must be one of 'fast', 'small', not 'slow'")):
            with self.assertRaises(GLib.Error) as cm:
                registry.compile("py_schema", self.graph, [self.x], GLib.Variant("a{sv}", options))
            self.assertGError(cm, COMPILER_ERROR, Reg.CompilerError.BAD_OPTION, message)
        self.assertEqual(compiler.seen, [])
        registry.compile("py_schema", self.graph, [self.x],
                         GLib.Variant("a{sv}", {"threads": GLib.Variant("u", 4)}))
        self.assertEqual(compiler.seen, [{"threads": 4}])

    def test_registered_name_in_messages(self):
        compiler = NamelessCompiler()
        self.assertIn("+NamelessCompiler", compiler.get_name())
        registry = Reg.Registry.new()
        registry.register_backend("py_nameless", compiler, None)
        with self.assertRaises(GLib.Error) as cm:
            registry.compile("py_nameless", self.graph, [self.x],
                             GLib.Variant("a{sv}", {"thread": GLib.Variant("u", 2)}))
        self.assertGError(cm, COMPILER_ERROR, Reg.CompilerError.BAD_OPTION,
                          "unknown option 'thread' for backend 'py_nameless', "
                          "did you mean 'threads'?")

def run_until(predicate, timeout_s=30):
    """Iterates the default main context until predicate() holds."""
    context = GLib.MainContext.default()
    deadline = GLib.get_monotonic_time() + timeout_s * 1000000
    loop = GLib.MainLoop.new(context, False)

    def check():
        if predicate() or GLib.get_monotonic_time() > deadline:
            loop.quit()
            return GLib.SOURCE_REMOVE
        return GLib.SOURCE_CONTINUE

    GLib.timeout_add(1, check)
    loop.run()
    return predicate()


class TestBackendList(RegTestCase):
    def setUp(self):
        # A registry that sees no module: its backends are the test's.
        self.tmp = tempfile.TemporaryDirectory()
        saved = os.environ.get("REG_BACKEND_PATH")
        os.environ["REG_BACKEND_PATH"] = self.tmp.name
        GLib.setenv("REG_BACKEND_PATH", self.tmp.name, True)
        try:
            self.registry = Reg.Registry.new()
        finally:
            if saved is None:
                GLib.unsetenv("REG_BACKEND_PATH")
                del os.environ["REG_BACKEND_PATH"]
            else:
                GLib.setenv("REG_BACKEND_PATH", saved, True)
                os.environ["REG_BACKEND_PATH"] = saved

    def tearDown(self):
        self.tmp.cleanup()
        super().tearDown()

    def register(self, name):
        self.registry.register_backend(name, Reg.FuncCompiler.new(name, lambda *a: None), None)

    def follow(self, model):
        """A copy of the model's names kept from items-changed alone, and
        the threads the signals came in."""
        copy = [info.get_name() for info in model]
        threads = []

        def changed(model, position, removed, added):
            threads.append(threading.get_ident())
            copy[position:position + removed] = [
                model.get_item(position + i).get_name() for i in range(added)]

        model.connect("items-changed", changed)
        return copy, threads

    def test_same_thread(self):
        self.register("b")
        model = Reg.BackendList.new(self.registry, None)
        self.assertIsInstance(model, Gio.ListModel)
        copy, threads = self.follow(model)
        self.register("a")
        self.register("c")
        self.assertEqual(copy, ["a", "b", "c"])
        self.registry.set_default_backend("b")
        self.assertTrue(model.get_item(1).get_is_default())
        self.registry.unregister_backend("a")
        self.assertEqual(copy, ["b", "c"])
        self.assertEqual([i.get_name() for i in model], self.registry.list_backends(None))

    def test_other_threads_reach_the_main_loop(self):
        model = Reg.BackendList.new(self.registry, None)
        copy, threads = self.follow(model)

        def work(first):
            for i in range(20):
                self.register("t%03d" % (first + i))
                if i % 4 == 3:
                    self.registry.unregister_backend("t%03d" % (first + i - 2))

        workers = [threading.Thread(target=work, args=(k * 100,)) for k in range(3)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        # The model changes in its context only.
        self.assertEqual(model.get_n_items(), 0)
        expected = self.registry.list_backends(None)
        self.assertTrue(run_until(lambda: copy == expected))
        self.assertEqual([i.get_name() for i in model], expected)
        self.assertEqual(set(threads), {threading.get_ident()})



# -- The documentation's examples run -----------------------------------------


def code_blocks(page, language):
    with open(os.path.join(DOCSDIR, page), encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"^```%s\n(.*?)^```" % re.escape(language), text, re.M | re.S)


@needs_modules
class TestAsync(RegTestCase):
    """The _async/_finish pairs with a GLib.MainLoop."""

    def run_until_done(self, start, finish):
        """Calls start(callback) and runs a main loop until the callback
        ran; returns what finish(source, result) returned or raised."""
        loop = GLib.MainLoop()
        outcome = {}

        def done(source, result):
            outcome["thread"] = threading.current_thread()
            try:
                outcome["value"] = finish(source, result)
            except GLib.Error as e:
                outcome["error"] = e
            loop.quit()

        start(done)
        GLib.timeout_add_seconds(30, loop.quit)
        loop.run()
        self.assertIs(outcome.get("thread"), threading.current_thread())
        return outcome

    @needs_modules
    def test_compile_and_call_async(self):
        r = Reg.Registry.new()
        graph = Reg.Graph.new_from_string(GRAPH_TEXT)
        x, y = tensor([1, -2, 3]), tensor([2, 2, 2])
        for backend in (None, "eager", "inductor"):
            out = self.run_until_done(
                lambda done: r.compile_async(backend, graph, [x, y], None, None, done),
                lambda source, result: source.compile_finish(result))
            fn = out["value"]
            self.assertIsInstance(fn, Reg.CompiledFn)
            self.assertEqual(fn.get_backend(), backend or "inductor")
            out = self.run_until_done(
                lambda done: fn.call_async([x, y], None, done),
                lambda source, result: source.call_finish(result))
            self.assertEqual(out["value"][0].get_data(), [3.5, 0.0, 7.5])

    def test_cancelled_before_start(self):
        compiler = ScaleCompiler(factor=2.0)
        r = Reg.Registry.new()
        r.register_backend(None, compiler, None)
        cancellable = Gio.Cancellable()
        cancellable.cancel()
        out = self.run_until_done(
            lambda done: r.compile_async("py_scale", scalar_graph(), [tensor([1.0])], None,
                                         cancellable, done),
            lambda source, result: source.compile_finish(result))
        self.assertTrue(out["error"].matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED))
        self.assertEqual(compiler.compiles, [])

    def test_python_backend_in_a_worker(self):
        # A backend written in Python runs in a worker thread (PyGObject
        # takes the GIL for it) and its result reaches the main loop.
        r = Reg.Registry.new()
        r.register_backend(None, ScaleCompiler(factor=3.0), None)
        x = tensor([1.0, 2.0])
        out = self.run_until_done(
            lambda done: r.compile_async("py_scale", scalar_graph(), [x], None, None, done),
            lambda source, result: source.compile_finish(result))
        fn = out["value"]
        out = self.run_until_done(
            lambda done: fn.call_async([x], None, done),
            lambda source, result: source.call_finish(result))
        self.assertEqual(out["value"][0].get_data(), [3.0, 6.0])


@needs_modules
class TestChoosing(RegTestCase):
    """The compile cache, fallback chains and the default from the
    environment, seen from Python."""

    def test_cache_returns_the_same_function(self):
        r = Reg.Registry.new()
        x, y = tensor([1, 2]), tensor([3, 4])
        a = r.compile("eager", Reg.Graph.new_from_string(GRAPH_TEXT), [x, y], None)
        b = r.compile("eager", Reg.Graph.new_from_string(GRAPH_TEXT), [x, y], None)
        self.assertIs(a, b)
        hits, misses, evictions = r.get_compile_cache_counters()
        self.assertEqual((hits, misses, evictions), (1, 1, 0))
        self.assertEqual(r.props.compile_cache_size, Reg.COMPILE_CACHE_DEFAULT_SIZE)

    def test_fallback(self):
        r = Reg.Registry.new()
        r.props.fallback_backends = ["eager"]
        heard = []
        r.connect("fallback", lambda reg, failed, nxt, error: heard.append((failed, nxt, error.code)))
        graph = Reg.Graph.new_from_string(GRAPH_TEXT)
        x = tensor([1, -2])
        fn = r.compile("relu_compile_error_TESTING_ONLY", graph, [x, x], None)
        self.assertEqual(fn.get_backend(), "eager")
        self.assertEqual(heard, [("relu_compile_error_TESTING_ONLY", "eager",
                                  int(Reg.CompilerError.FAILED))])
        self.assertEqual(fn.call([x, x])[0].get_data(), [2.5, 5.5])
        # The caller's own mistakes never fall back.
        with self.assertRaises(GLib.Error) as cm:
            r.compile("relu_compile_error_TESTING_ONLY", graph, [x], None)
        self.assertGError(cm, GRAPH_ERROR, Reg.GraphError.SHAPE)
        self.assertEqual(len(heard), 1)

class TestDocs(RegTestCase):
    def run_python_blocks(self, page):
        blocks = code_blocks(page, "python")
        self.assertTrue(blocks, "no python example in %s" % page)
        # Each page's blocks continue one another, like a tutorial.
        namespace = {"__name__": "docs_example"}
        exec(compile("\n".join(blocks), page, "exec"), namespace)
        return namespace

    def test_writing_a_backend_python(self):
        ns = self.run_python_blocks("writing-a-backend.md")
        registry = ns["registry"]
        self.assertIn("doubler", registry.list_backends([]))
        # The example registers on the default registry: leave it clean.
        registry.unregister_backend("doubler")

    def test_names_python(self):
        self.run_python_blocks("names.md")

    def test_bindings_python(self):
        # The page registers on the default registry and cleans up itself.
        before = Reg.Registry.get_default().list_backends([])
        self.run_python_blocks("bindings.md")
        self.assertEqual(Reg.Registry.get_default().list_backends([]), before)

    def test_bindings_javascript(self):
        gjs = shutil.which("gjs")
        if gjs is None:
            self.skipTest("gjs is not installed")
        blocks = code_blocks("bindings.md", "js")
        self.assertTrue(blocks)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bindings.js")
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(blocks))
            proc = subprocess.run([gjs, path], capture_output=True, text=True,
                                  timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(proc.stdout.splitlines()[0], "inductor")

    def build_tree(self):
        """The build tree's libreg/: the library, its generated headers and
        the typelib (first in GI_TYPELIB_PATH, set by meson)."""
        for d in os.environ.get("GI_TYPELIB_PATH", "").split(":"):
            if d and os.path.exists(os.path.join(d, "libreg-1.so")):
                return os.path.abspath(d)
        return None

    def test_choosing_a_backend_python(self):
        # The page registers on the default registry and cleans up itself.
        before = Reg.Registry.get_default().list_backends([])
        self.run_python_blocks("choosing-a-backend.md")
        self.assertEqual(Reg.Registry.get_default().list_backends([]), before)

    def test_choosing_a_backend_javascript(self):
        gjs = shutil.which("gjs")
        if gjs is None:
            self.skipTest("gjs is not installed")
        blocks = code_blocks("choosing-a-backend.md", "js")
        self.assertTrue(blocks)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "choosing.js")
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(blocks))
            proc = subprocess.run([gjs, path], capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("threads: uint32, default 1", proc.stdout)
        self.assertIn("did you mean 'threads'?", proc.stdout)

    def test_choosing_a_backend_c(self):
        # Each C block of the page is a whole program: built against the
        # build tree, and run.
        cc = shutil.which("cc")
        pkg_config = shutil.which("pkg-config")
        builddir = self.build_tree()
        if cc is None or pkg_config is None or builddir is None:
            self.skipTest("cc, pkg-config or the build tree's libreg-1.so is missing")
        flags = subprocess.run([pkg_config, "--cflags", "--libs", "gio-2.0", "gmodule-2.0"],
                               capture_output=True, text=True, check=True).stdout.split()
        blocks = code_blocks("choosing-a-backend.md", "c")
        self.assertTrue(blocks)
        for i, block in enumerate(blocks):
            with self.subTest(block=i), tempfile.TemporaryDirectory() as d:
                source = os.path.join(d, "example.c")
                program = os.path.join(d, "example")
                with open(source, "w", encoding="utf-8") as f:
                    f.write(block)
                proc = subprocess.run(
                    [cc, "-std=gnu11", "-Wall", "-Werror", "-o", program, source,
                     "-I" + builddir, "-I" + os.path.join(SRCDIR, "libreg"),
                     "-L" + builddir, "-lreg-1", "-Wl,-rpath," + builddir] + flags,
                    capture_output=True, text=True, timeout=300)
                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
                proc = subprocess.run([program], capture_output=True, text=True, timeout=60)
                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
                if i == 0:
                    self.assertIn("threads: uint32, default 1\n", proc.stdout)
                    self.assertIn("unknown option 'thread' for backend 'inductor', "
                                  "did you mean 'threads'?\n", proc.stdout)

    def test_bindings_vala(self):
        valac = shutil.which("valac")
        # The build tree's libreg/ holds the library, its generated headers,
        # the typelib and the vapi.
        builddir = None
        for d in os.environ.get("GI_TYPELIB_PATH", "").split(":"):
            if d and os.path.exists(os.path.join(d, "libreg-1.vapi")):
                builddir = os.path.abspath(d)
                break
        if valac is None or builddir is None:
            self.skipTest("valac or the build tree's libreg-1.vapi is missing")
        (block,) = code_blocks("bindings.md", "vala")
        with tempfile.TemporaryDirectory() as d:
            source = os.path.join(d, "bindings.vala")
            program = os.path.join(d, "bindings")
            with open(source, "w", encoding="utf-8") as f:
                f.write(block)
            proc = subprocess.run(
                [valac, "--quiet", "--vapidir=" + builddir, "--pkg=libreg-1",
                 "--pkg=gmodule-2.0", "--pkg=gio-2.0", "--directory=" + d, "-o", program,
                 "-X", "-w", "-X", "-I" + builddir,
                 "-X", "-I" + os.path.join(SRCDIR, "libreg"),
                 "-X", "-L" + builddir, "-X", "-lreg-1", source],
                capture_output=True, text=True, timeout=300)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            proc = subprocess.run([program], capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("Invalid backend: 'indctor', did you mean: 'inductor'?", proc.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
