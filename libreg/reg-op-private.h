/* reg-op-private.h: operator internals shared inside libreg
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-op.h"

G_BEGIN_DECLS

/* The number of RegOp values: they run from 0 to this minus 1. */
#define _REG_N_OPS ((guint) REG_OP_MATMUL + 1)

/* TRUE when @op is a RegOp value (a binding may pass any integer). */
static inline gboolean
_reg_op_is_valid (RegOp op)
{
  return (guint) op < _REG_N_OPS;
}

/* A set of operators, a bit per RegOp: what a backend takes.  Every bit
 * set means every operator, later ones included. */
typedef guint64 RegOpSet;

#define REG_OP_SET_ALL G_MAXUINT64
#define REG_OP_SET_BIT(op) ((RegOpSet) 1 << (guint) (op))

G_STATIC_ASSERT (_REG_N_OPS <= 64);

/* reg_op_from_name() for the @len bytes at @name, which need not be
 * nul-terminated (the parser's tokens). */
gboolean _reg_op_lookup (const char *name,
                         gsize       len,
                         RegOp      *op);

G_END_DECLS
