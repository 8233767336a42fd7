# Helpers for tests/python/test_reg.py: numpy <-> Reg.Tensor, and a small
# numpy interpreter of Reg.Graph used as a reference and as the body of a
# Python-implemented backend.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gi

gi.require_version("GLib", "2.0")
gi.require_version("Reg", "1.0")
from gi.repository import GLib, Reg  # noqa: E402

import numpy as np  # noqa: E402

GRAPH_TEXT = """\
graph(x, y):
  a = mul(x, y)
  b = add(a, 1.5)
  c = relu(b)
  return (c,)
"""


def to_tensor(array):
    """A new Reg.Tensor holding a copy of `array` as float32."""
    # np.array, not np.ascontiguousarray: that one makes a 0-d array 1-d.
    array = np.array(array, dtype=np.float32, order="C")
    return Reg.Tensor.new_from_bytes(GLib.Bytes.new(array.tobytes()),
                                     list(array.shape))


def to_numpy(tensor):
    """A numpy copy of `tensor` (its shape and float32 data)."""
    data = tensor.dup_bytes().get_data()
    return np.frombuffer(data, dtype=np.float32).reshape(tensor.get_shape()).copy()


def relu(a):
    return np.maximum(a, np.float32(0))


def sigmoid(a):
    return np.float32(1) / (np.float32(1) + np.exp(-a))


OPS = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "neg": np.negative,
    "relu": relu,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "tanh": np.tanh,
    "sigmoid": sigmoid,
    "abs": np.abs,
    "sum": lambda a: np.sum(a, dtype=np.float32),
    "matmul": np.matmul,
}


class Program:
    """A Reg.Graph read once through its node accessors, run with numpy."""

    def __init__(self, graph):
        self.nodes = []
        for node in range(graph.get_n_nodes()):
            kind = graph.get_node_kind(node)
            if kind == Reg.NodeKind.INPUT:
                self.nodes.append(("input", graph.get_node_name(node)))
            elif kind == Reg.NodeKind.CONSTANT:
                self.nodes.append(("constant", np.float32(graph.get_node_value(node))))
            else:
                op = graph.get_node_op(node)
                if op not in OPS:
                    raise GLib.Error.new_literal(
                        Reg.compiler_error_quark(), "numpy: no operator %s" % op,
                        Reg.CompilerError.UNSUPPORTED_OP)
                self.nodes.append(("op", op, list(graph.get_node_args(node))))
        self.inputs = list(graph.get_inputs())
        self.outputs = list(graph.get_outputs())

    def run(self, arrays):
        values = {}
        for node, array in zip(self.inputs, arrays):
            values[node] = np.asarray(array, dtype=np.float32)
        for node, entry in enumerate(self.nodes):
            if entry[0] == "constant":
                values[node] = entry[1]
            elif entry[0] == "op":
                args = [values[a] for a in entry[2]]
                values[node] = np.asarray(OPS[entry[1]](*args), dtype=np.float32)
        return [values[o] for o in self.outputs]


def evaluate(graph, arrays):
    """What `graph` computes on `arrays`, by numpy."""
    return Program(graph).run(arrays)
