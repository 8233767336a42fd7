# acme_reg/compiler.py: a libreg backend written in Python
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The backend "acme" runs graphs of elementwise operators on inputs of one
# shape, one node at a time in Python, and refuses other graphs.  The
# manifest acme.backend declares it; libreg imports this module the first
# time a program looks the backend up.

import array
import math

import gi

gi.require_version("Gio", "2.0")
gi.require_version("Reg", "1.0")
from gi.repository import Gio, GLib, GObject, Reg  # noqa: E402

def maximum(a, b):
    # As libreg's operators: NaN wins, +0 is above -0.
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b:
        return b if math.copysign(1.0, a) < 0 else a
    return a if a > b else b


def minimum(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b:
        return a if math.copysign(1.0, a) < 0 else b
    return a if a < b else b


FLOAT_MAX = 3.4028234663852886e38


def sigmoid(a):
    # exp(-a) as a float: infinite beyond the largest float.
    if math.isnan(a):
        return a
    e = math.exp(-a) if -a < 710 else math.inf
    return 1.0 / (1.0 + (e if e <= FLOAT_MAX else math.inf))


OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "maximum": maximum,
    "minimum": minimum,
    "neg": lambda a: -a,
    "relu": lambda a: maximum(a, 0.0),
    "sigmoid": sigmoid,
    "tanh": math.tanh,
}


class AcmeFn(GObject.Object, Reg.CompiledFn):
    def __init__(self, graph, shape):
        super().__init__()
        self.shape = shape
        self.inputs = graph.get_inputs()
        self.outputs = graph.get_outputs()
        self.constants = {}
        self.steps = []  # (node, operator, arguments), arguments first
        for node in range(graph.get_n_nodes()):
            kind = graph.get_node_kind(node)
            if kind == Reg.NodeKind.CONSTANT:
                self.constants[node] = graph.get_node_value(node)
            elif kind == Reg.NodeKind.OP:
                self.steps.append((node, OPS[graph.get_node_op(node)],
                                   graph.get_node_args(node)))

    def do_run(self, inputs):
        # Tensors in and out as bytes of floats: array('f') rounds to
        # float as C does (a result too large for a float is infinite).
        columns = [array.array("f", t.dup_bytes().get_data()) for t in inputs]
        size = len(columns[0])
        values = {node: [value] * size for node, value in self.constants.items()}
        values.update(zip(self.inputs, columns))
        for node, op, args in self.steps:
            values[node] = array.array("f", map(op, *(values[a] for a in args)))
        outputs = Gio.ListStore.new(Reg.Tensor)
        for node in self.outputs:
            data = GLib.Bytes.new(array.array("f", values[node]).tobytes())
            outputs.append(Reg.Tensor.new_from_bytes(data, self.shape))
        return outputs


class AcmeCompiler(GObject.Object, Reg.Compiler):
    def do_compile(self, graph, example_inputs, options):
        for node in range(graph.get_n_nodes()):
            if (graph.get_node_kind(node) == Reg.NodeKind.OP and
                    graph.get_node_op(node) not in OPS):
                raise GLib.Error.new_literal(
                    Reg.compiler_error_quark(),
                    f"acme: no operator {graph.get_node_op(node)}",
                    Reg.CompilerError.UNSUPPORTED_OP)
        shapes = {tuple(t.get_shape()) for t in example_inputs}
        if len(shapes) != 1:
            raise GLib.Error.new_literal(Reg.compiler_error_quark(),
                                         "acme: the inputs must have one shape",
                                         Reg.CompilerError.UNSUPPORTED_OP)
        return AcmeFn(graph, list(shapes.pop()))

    def do_dup_name(self):
        return "acme"
