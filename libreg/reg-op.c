/* reg-op.c: the operators of computation graphs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "reg-op.h"

/* The one table of operators: the parser, the printer, shape inference and
 * the backends (through the accessors below) all read it.  A new operator
 * is a new RegOp value and a row here; the compilers then warn (-Wswitch)
 * wherever a backend switches on RegOp without handling it. */
static const struct
{
  const char *name;   /* the text form's name, also the GEnum nick */
  RegOpKind   kind;   /* the shape rule, which fixes the arity */
} op_table[] = {
  [REG_OP_ADD]     = { "add",     REG_OP_KIND_ELEMENTWISE_BINARY },
  [REG_OP_SUB]     = { "sub",     REG_OP_KIND_ELEMENTWISE_BINARY },
  [REG_OP_MUL]     = { "mul",     REG_OP_KIND_ELEMENTWISE_BINARY },
  [REG_OP_DIV]     = { "div",     REG_OP_KIND_ELEMENTWISE_BINARY },
  [REG_OP_MAXIMUM] = { "maximum", REG_OP_KIND_ELEMENTWISE_BINARY },
  [REG_OP_MINIMUM] = { "minimum", REG_OP_KIND_ELEMENTWISE_BINARY },
  [REG_OP_NEG]     = { "neg",     REG_OP_KIND_ELEMENTWISE_UNARY },
  [REG_OP_RELU]    = { "relu",    REG_OP_KIND_ELEMENTWISE_UNARY },
  [REG_OP_EXP]     = { "exp",     REG_OP_KIND_ELEMENTWISE_UNARY },
  [REG_OP_LOG]     = { "log",     REG_OP_KIND_ELEMENTWISE_UNARY },
  [REG_OP_SQRT]    = { "sqrt",    REG_OP_KIND_ELEMENTWISE_UNARY },
  [REG_OP_TANH]    = { "tanh",    REG_OP_KIND_ELEMENTWISE_UNARY },
  [REG_OP_SIGMOID] = { "sigmoid", REG_OP_KIND_ELEMENTWISE_UNARY },
  [REG_OP_ABS]     = { "abs",     REG_OP_KIND_ELEMENTWISE_UNARY },
  [REG_OP_SUM]     = { "sum",     REG_OP_KIND_REDUCTION },
  [REG_OP_MATMUL]  = { "matmul",  REG_OP_KIND_MATMUL },
};

#define N_OPS G_N_ELEMENTS (op_table)
G_STATIC_ASSERT (N_OPS == REG_OP_MATMUL + 1);

/* A binding may pass any integer as a RegOp. */
static inline gboolean
_reg_op_is_valid (RegOp op)
{
  return (guint) op < N_OPS;
}

/**
 * reg_op_get_name:
 * @op: a [enum@Reg.Op]
 *
 * Gets the name of @op in the text form of a graph, such as `"matmul"`:
 * the nick of its [enum@Reg.Op] value.  The string is interned (see
 * [func@GLib.intern_static_string]), so it may be compared by pointer.
 * This function is thread-safe.
 *
 * Returns: (transfer none): the name of @op
 */
const char *
reg_op_get_name (RegOp op)
{
  static const char *interned[N_OPS];
  static gsize done;

  g_return_val_if_fail (_reg_op_is_valid (op), NULL);

  if (g_once_init_enter (&done))
    {
      for (guint i = 0; i < N_OPS; i++)
        interned[i] = g_intern_static_string (op_table[i].name);
      g_once_init_leave (&done, 1);
    }

  return interned[op];
}

/**
 * reg_op_from_name:
 * @name: the name of an operator, such as `"matmul"`
 * @op: (out) (optional): return location for the operator
 *
 * Finds the operator called @name in the text form of a graph.  Names are
 * exact: no case folding, no abbreviation.  This function is thread-safe.
 *
 * Returns: %TRUE and @op set if @name is an operator, %FALSE (and @op left
 *   as it was) otherwise
 */
gboolean
reg_op_from_name (const char *name,
                  RegOp      *op)
{
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; i < N_OPS; i++)
    if (strcmp (op_table[i].name, name) == 0)
      {
        if (op != NULL)
          *op = (RegOp) i;
        return TRUE;
      }

  return FALSE;
}

/**
 * reg_op_get_kind:
 * @op: a [enum@Reg.Op]
 *
 * Gets the shape rule of @op, which also fixes how many arguments it
 * takes.  This function is thread-safe.
 *
 * Returns: the kind of @op
 */
RegOpKind
reg_op_get_kind (RegOp op)
{
  g_return_val_if_fail (_reg_op_is_valid (op), REG_OP_KIND_ELEMENTWISE_UNARY);

  return op_table[op].kind;
}

/**
 * reg_op_get_arity:
 * @op: a [enum@Reg.Op]
 *
 * Gets the number of arguments @op takes: 1 for elementwise unary
 * operators and reductions, 2 for elementwise binary operators and
 * matmul.  This function is thread-safe.
 *
 * Returns: the number of arguments of @op
 */
guint
reg_op_get_arity (RegOp op)
{
  RegOpKind kind;

  g_return_val_if_fail (_reg_op_is_valid (op), 0);

  kind = op_table[op].kind;
  return kind == REG_OP_KIND_ELEMENTWISE_UNARY || kind == REG_OP_KIND_REDUCTION ? 1 : 2;
}
