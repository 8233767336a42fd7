#!/usr/bin/python3
# A compiled function written in Python that returns fresh tensors, called
# again and again with garbage collection in between, through a compiler
# written in Python and a registry: the outputs must be the tensors it made,
# with the right values, however the interpreter's references come and go.
# With the typelib alone: no PyGObject override is on sys.path.
#
# Usage: test_fresh_outputs.py [CALLS]   (default 10000; REG_TEST_CALLS too)
# Run by meson (suites `introspection` and `ownership`); tools/check runs it
# under ASan, and a shorter run under valgrind memcheck.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import contextlib
import gc
import importlib.util
import io
import os
import sys

import gi

gi.require_version("Gio", "2.0")
gi.require_version("Reg", "1.0")
from gi.repository import GLib, GObject, Gio, Reg  # noqa: E402


class FreshFn(GObject.Object, Reg.CompiledFn):
    """Returns new tensors: 3 * x, and the sum of x."""

    def do_run(self, inputs):
        (x,) = inputs
        data = x.get_data()
        outputs = Gio.ListStore.new(Reg.Tensor)
        outputs.append(Reg.Tensor.new_from_data([3.0 * v for v in data], x.get_shape()))
        outputs.append(Reg.Tensor.new_from_data([sum(data)], []))
        return outputs


class FreshCompiler(GObject.Object, Reg.Compiler):
    def do_compile(self, graph, example_inputs, options):
        return FreshFn()

    def do_dup_name(self):
        return "py_fresh"


def main():
    calls = int(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("REG_TEST_CALLS", "10000"))

    # Memory safety must not depend on an override being found.
    if importlib.util.find_spec("gi.overrides.Reg") is not None or "gi.overrides.Reg" in sys.modules:
        sys.exit("a PyGObject override for Reg is on sys.path: this test is for the typelib alone")

    registry = Reg.Registry.new()
    registry.register_backend(None, FreshCompiler(), None)
    graph = Reg.Graph.new_from_string("graph(x):\n  a = mul(x, 3)\n  s = sum(x)\n  return (a, s)\n")
    fn = registry.compile("py_fresh", graph, [Reg.Tensor.new([4])], None)
    for i in range(calls):
        x = Reg.Tensor.new_from_data([i, -i, 0.5, 2.0], [4])
        outputs = fn.call([x])
        del x
        gc.collect()
        if len(outputs) != 2:
            sys.exit("call %d: %d outputs" % (i, len(outputs)))
        tripled, total = outputs
        if tripled.get_data() != [3.0 * i, -3.0 * i, 1.5, 6.0] or tripled.get_shape() != [4]:
            sys.exit("call %d: wrong tensor %r %r" % (i, tripled.get_data(), tripled.get_shape()))
        if total.get_data() != [2.5] or total.get_shape() != []:
            sys.exit("call %d: wrong sum %r" % (i, total.get_data()))
        if tripled.__grefcount__ != 1 or total.__grefcount__ != 1:
            sys.exit("call %d: outputs held elsewhere (%d, %d references)"
                     % (i, tripled.__grefcount__, total.__grefcount__))

    # A wrong return is an exception reported as an error, never a crash.
    class ListFn(GObject.Object, Reg.CompiledFn):
        def do_run(self, inputs):
            return list(inputs)

    liar = Reg.FuncCompiler.new("py_liar", lambda g, ex, opt: ListFn())
    one = Reg.Graph.new_from_string("graph(x):\n  return (x,)\n")
    x = Reg.Tensor.new_from_data([1.0], [1])
    try:
        # PyGObject prints the TypeError's traceback: keep it off the log.
        with contextlib.redirect_stderr(io.StringIO()):
            liar.compile(one, [x], None).call([x])
        sys.exit("a do_run returning a list did not fail")
    except GLib.Error as e:
        if not e.matches(Reg.compiler_error_quark(), Reg.CompilerError.RUNTIME) or \
           "the Python implementation raised an exception" not in e.message:
            sys.exit("unexpected error: %s" % e.message)

    print("%d calls: ok" % calls)


if __name__ == "__main__":
    main()
