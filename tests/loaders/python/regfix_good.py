# regfix_good.py: a backend written in Python, for the loader's tests
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# GoodCompiler compiles with eager and wraps what eager made in a
# CountingFn, so that every call runs Python code (the threads tests call
# it from many threads at once).  make_good() is the same compiler made
# by a function.  IMPORTS counts how often this module was executed.

import threading

import gi

gi.require_version("Gio", "2.0")
gi.require_version("Reg", "1.0")
from gi.repository import Gio, GObject, Reg  # noqa: E402

IMPORTS = globals().get("IMPORTS", 0) + 1
CALLS = 0
_calls_lock = threading.Lock()


class CountingFn(GObject.Object, Reg.CompiledFn):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def do_run(self, inputs):
        global CALLS
        with _calls_lock:
            CALLS += 1
        outputs = Gio.ListStore.new(Reg.Tensor)
        for tensor in self.inner.call(inputs):
            outputs.append(tensor)
        return outputs


class GoodCompiler(GObject.Object, Reg.Compiler):
    def do_compile(self, graph, example_inputs, options):
        eager = Reg.Registry.get_default().lookup_backend("eager")
        return CountingFn(eager.compile(graph, example_inputs, options))

    def do_dup_name(self):
        return "py_good"


def make_good():
    return GoodCompiler()
