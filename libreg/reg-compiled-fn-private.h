/* reg-compiled-fn-private.h: the call signature a compiled function carries
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-compiled-fn.h"
#include "reg-error.h"
#include "reg-graph-private.h"

G_BEGIN_DECLS

/* Binds @fn, just made by the compiler named @backend, to the signature of
 * that compile: @graph's input names, the shapes of @example_inputs, and
 * the shapes @node_shapes (one per node of @graph, from shape inference)
 * gives the graph's outputs.  reg_compiled_fn_call() checks every call of
 * @fn against it, whichever backend made @fn.  A function that is already
 * bound keeps its signature; binding it to another one fails with
 * REG_COMPILER_ERROR_FAILED. */
gboolean _reg_compiled_fn_bind (RegCompiledFn   *fn,
                                const char      *backend,
                                RegGraph        *graph,
                                GPtrArray       *example_inputs,
                                const RegShape  *node_shapes,
                                GError         **error);

/* reg_compiled_fn_call() of inputs known to fit @fn's signature (the
 * groups of a partitioned function, fed the outputs of others): they are
 * not checked again; the outputs are. */
GPtrArray *_reg_compiled_fn_call_trusted (RegCompiledFn  *fn,
                                          GPtrArray      *inputs,
                                          GError        **error);

/* What reg_compiled_fn_dup_placement() returns for @fn. */
typedef GVariant *(*RegPlacementFunc) (RegCompiledFn *fn);

/* Gives @fn, bound, the function that tells where its nodes run, before
 * anyone else has @fn. */
void     _reg_compiled_fn_set_placement_func (RegCompiledFn    *fn,
                                              RegPlacementFunc  func);

/* Sets REG_COMPILER_ERROR @code "backend '@backend'" (escaped) followed by
 * the text of @format (" returned ...", ": ..."), and returns FALSE. */
gboolean _reg_backend_fail (GError           **error,
                            RegCompilerError   code,
                            const char        *backend,
                            const char        *format,
                            ...) G_GNUC_PRINTF (4, 5);

G_END_DECLS
