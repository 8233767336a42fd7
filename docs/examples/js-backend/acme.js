// acme.js: a libreg backend written in JavaScript
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// The backend "acme_js" runs graphs of elementwise operators on inputs of
// one shape, one node at a time in JavaScript, and refuses other graphs.
// The manifest acme-js.backend declares it; libreg imports this module
// the first time a program looks the backend up.

import Gio from 'gi://Gio?version=2.0';
import GLib from 'gi://GLib?version=2.0';
import GObject from 'gi://GObject?version=2.0';
import Reg from 'gi://Reg?version=1.0';

const OPS = {
    add: (a, b) => a + b,
    sub: (a, b) => a - b,
    mul: (a, b) => a * b,
    maximum: Math.max,
    minimum: Math.min,
    neg: a => -a,
    relu: a => Math.max(a, 0),
    sigmoid: a => 1 / (1 + Math.fround(Math.exp(-a))),
    tanh: Math.tanh,
};

const AcmeFn = GObject.registerClass({
    GTypeName: 'AcmeJsFn',
    Implements: [Reg.CompiledFn],
}, class AcmeFn extends GObject.Object {
    _init(graph, shape) {
        super._init();
        this._shape = shape;
        this._inputs = graph.get_inputs();
        this._outputs = graph.get_outputs();
        this._constants = new Map();
        this._steps = [];  // [node, operator, arguments], arguments first
        for (let node = 0; node < graph.get_n_nodes(); node++) {
            const kind = graph.get_node_kind(node);
            if (kind === Reg.NodeKind.CONSTANT)
                this._constants.set(node, graph.get_node_value(node));
            else if (kind === Reg.NodeKind.OP)
                this._steps.push([node, OPS[graph.get_node_op(node)], graph.get_node_args(node)]);
        }
    }

    vfunc_run(inputs) {
        // Tensors in and out as bytes, seen as Float32Arrays: a float
        // array of any bits (NaNs with payloads included) is safe there.
        const columns = inputs.map(t => new Float32Array(t.dup_bytes().toArray().buffer));
        const size = columns[0].length;
        const values = new Map();
        for (const [node, value] of this._constants)
            values.set(node, new Float32Array(size).fill(value));
        this._inputs.forEach((node, i) => values.set(node, columns[i]));
        for (const [node, op, args] of this._steps) {
            const argValues = args.map(a => values.get(a));
            values.set(node, argValues[0].map((_, i) => op(...argValues.map(c => c[i]))));
        }
        const outputs = new Gio.ListStore({item_type: Reg.Tensor});
        for (const node of this._outputs) {
            const bytes = new GLib.Bytes(new Uint8Array(values.get(node).buffer));
            outputs.append(Reg.Tensor.new_from_bytes(bytes, this._shape));
        }
        return outputs;
    }
});

export const AcmeCompiler = GObject.registerClass({
    GTypeName: 'AcmeJsCompiler',
    Implements: [Reg.Compiler],
}, class AcmeCompiler extends GObject.Object {
    vfunc_compile(graph, exampleInputs, _options) {
        for (let node = 0; node < graph.get_n_nodes(); node++) {
            if (graph.get_node_kind(node) === Reg.NodeKind.OP && !(graph.get_node_op(node) in OPS)) {
                throw new GLib.Error(Reg.CompilerError, Reg.CompilerError.UNSUPPORTED_OP,
                    `acme_js: no operator ${graph.get_node_op(node)}`);
            }
        }
        const shapes = new Set(exampleInputs.map(t => t.get_shape().join('x')));
        if (shapes.size !== 1) {
            throw new GLib.Error(Reg.CompilerError, Reg.CompilerError.UNSUPPORTED_OP,
                'acme_js: the inputs must have one shape');
        }
        return new AcmeFn(graph, exampleInputs[0].get_shape());
    }

    vfunc_dup_name() {
        return 'acme_js';
    }
});
