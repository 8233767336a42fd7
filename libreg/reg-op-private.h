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

/* reg_op_from_name() for the @len bytes at @name, which need not be
 * nul-terminated (the parser's tokens). */
gboolean _reg_op_lookup (const char *name,
                         gsize       len,
                         RegOp      *op);

G_END_DECLS
