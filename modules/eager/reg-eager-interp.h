/* reg-eager-interp.h: the reference interpreter shared by the eager and
 * testing backend modules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <reg.h>

G_BEGIN_DECLS

/* These functions are compiled into every module that needs them (each
 * module lists reg-eager-interp.c among its sources) and are never exported:
 * modules build with hidden visibility, so each module has its own private
 * copy and its own compiled-function type.
 *
 * Semantics (the operators of RegOp, docs/overview.md), all in float32:
 *
 * - add sub mul div maximum minimum: operands of the same shape, or one of
 *   them 0-d (a constant), which is broadcast.  maximum and minimum
 *   propagate NaN like numpy.maximum/minimum (NaN if either side is NaN)
 *   and order -0 before +0, as IEEE 754-2019 maximum/minimum do.
 * - neg relu exp log sqrt tanh sigmoid abs: C float math (expf, logf,
 *   sqrtf, tanhf, fabsf); sigmoid (x) = 1 / (1 + expf (-x));
 *   relu (x) = maximum (x, 0): x > 0 ? x : +0, except that relu (NaN) =
 *   NaN, as numpy.maximum (x, 0) gives.  log and sqrt of negative numbers
 *   are NaN, log (0) is -inf.
 * - sum: all elements to a 0-d tensor, accumulated in double and rounded
 *   to float once (an empty tensor sums to 0).
 * - matmul: [m, k] x [k, n] -> [m, n], each dot product accumulated in
 *   double and rounded to float once.
 *
 * Every node makes a fresh tensor; a value is released after its last use.
 * Outputs never alias the caller's inputs or each other: an output that is
 * a graph input, or a node returned twice, is returned as a copy. */

/* Registers on @module the GType of the functions _reg_eager_compile()
 * makes, named @type_name.  Type names are process-wide, so each module
 * passes its own ("RegEagerFn", "RegTestingFn"). */
void           _reg_eager_fn_register_type    (GTypeModule  *module,
                                               const char   *type_name);

/* The compile step of the eager backend, named @backend in messages:
 * rejects any option key (REG_COMPILER_ERROR_BAD_OPTION) and any operator
 * the interpreter does not know (REG_COMPILER_ERROR_UNSUPPORTED_OP), then
 * returns a function that keeps a reference to @graph and interprets it on
 * every call.  @graph has already been checked against the example inputs. */
RegCompiledFn *_reg_eager_compile             (const char   *backend,
                                               RegGraph     *graph,
                                               GVariant     *options,
                                               GError      **error);

/* Makes every later call of @fn (from _reg_eager_compile()) fail with
 * REG_COMPILER_ERROR_RUNTIME and @message, without running anything. */
void           _reg_eager_fn_set_call_error   (RegCompiledFn *fn,
                                               const char    *message);

/* Returns the first node of @graph that calls @op, or
 * REG_GRAPH_INVALID_NODE. */
guint          _reg_eager_find_op             (RegGraph     *graph,
                                               RegOp         op);

G_END_DECLS
