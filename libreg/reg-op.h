/* reg-op.h: the operators of computation graphs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <glib.h>

#include "reg-version-macros.h"

G_BEGIN_DECLS

/**
 * RegOp:
 * @REG_OP_ADD: `add`: elementwise x + y
 * @REG_OP_SUB: `sub`: elementwise x - y
 * @REG_OP_MUL: `mul`: elementwise x * y
 * @REG_OP_DIV: `div`: elementwise x / y
 * @REG_OP_MAXIMUM: `maximum`: elementwise maximum, NaN if either side is NaN
 * @REG_OP_MINIMUM: `minimum`: elementwise minimum, NaN if either side is NaN
 * @REG_OP_NEG: `neg`: elementwise -x
 * @REG_OP_RELU: `relu`: elementwise maximum (x, 0)
 * @REG_OP_EXP: `exp`: elementwise e^x
 * @REG_OP_LOG: `log`: elementwise natural logarithm
 * @REG_OP_SQRT: `sqrt`: elementwise square root
 * @REG_OP_TANH: `tanh`: elementwise hyperbolic tangent
 * @REG_OP_SIGMOID: `sigmoid`: elementwise 1 / (1 + e^-x)
 * @REG_OP_ABS: `abs`: elementwise absolute value
 * @REG_OP_SUM: `sum`: the sum of all elements, a 0-d tensor
 * @REG_OP_MATMUL: `matmul`: the matrix product of two 2-D tensors
 *
 * The operators a [class@Reg.Graph] calls.  The nick of each value (see
 * [func@GObject.enum_get_value]) is the operator's name in the text form of
 * a graph, which [func@Reg.Op.get_name] also returns; its number of
 * arguments and shape rule are given by [func@Reg.Op.get_arity] and
 * [func@Reg.Op.get_kind].
 *
 * Later versions of libreg may add operators.  A backend that meets one it
 * does not know fails to compile the graph with
 * %REG_COMPILER_ERROR_UNSUPPORTED_OP.
 */
typedef enum {
  REG_OP_ADD,
  REG_OP_SUB,
  REG_OP_MUL,
  REG_OP_DIV,
  REG_OP_MAXIMUM,
  REG_OP_MINIMUM,
  REG_OP_NEG,
  REG_OP_RELU,
  REG_OP_EXP,
  REG_OP_LOG,
  REG_OP_SQRT,
  REG_OP_TANH,
  REG_OP_SIGMOID,
  REG_OP_ABS,
  REG_OP_SUM,
  REG_OP_MATMUL,
} RegOp;

/**
 * RegOpKind:
 * @REG_OP_KIND_ELEMENTWISE_UNARY: one argument; the result has its shape
 * @REG_OP_KIND_ELEMENTWISE_BINARY: two arguments of the same shape, or one
 *   of them a constant, which stretches to the shape of the other; the
 *   result has that shape
 * @REG_OP_KIND_REDUCTION: one argument of any shape, reduced to a 0-d
 *   tensor
 * @REG_OP_KIND_MATMUL: two 2-D arguments, [m, k] and [k, n]; the result is
 *   [m, n]
 *
 * The shape rule of a [enum@Reg.Op], which also fixes its number of
 * arguments.  Compiling a graph checks every node against the rule of its
 * operator and fails with %REG_GRAPH_ERROR_SHAPE where a rule is broken.
 */
typedef enum {
  REG_OP_KIND_ELEMENTWISE_UNARY,
  REG_OP_KIND_ELEMENTWISE_BINARY,
  REG_OP_KIND_REDUCTION,
  REG_OP_KIND_MATMUL,
} RegOpKind;

REG_AVAILABLE_IN_ALL
const char *reg_op_get_name   (RegOp       op);
REG_AVAILABLE_IN_ALL
gboolean    reg_op_from_name  (const char *name,
                               RegOp      *op);
REG_AVAILABLE_IN_ALL
guint       reg_op_get_arity  (RegOp       op);
REG_AVAILABLE_IN_ALL
RegOpKind   reg_op_get_kind   (RegOp       op);

G_END_DECLS
