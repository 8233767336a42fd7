/* reg-compiler-private.h: the steps of a compile, for the registry
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-compiler.h"
#include "reg-graph-private.h"

G_BEGIN_DECLS

/* What reg_compiler_compile() checks before the backend sees anything:
 * @options is an a{sv} dictionary giving each key once and following the
 * schema, and @graph fits @example_inputs; the messages name the backend
 * @backend (NULL: the compiler's own name).  Returns the shape of every
 * node (g_free() it), or NULL with @error. */
RegShape      *_reg_compiler_prepare                 (RegCompiler          *self,
                                                      const char           *backend,
                                                      RegGraph             *graph,
                                                      GPtrArray            *example_inputs,
                                                      GVariant             *options,
                                                      GError              **error);

/* The backend's compile of a prepared compile (@shapes from
 * _reg_compiler_prepare()), on a frozen copy of @graph (see
 * _reg_graph_dup_frozen()); what it gives is judged and bound to the
 * signature of this compile, made by the backend named @backend (NULL:
 * the compiler's own name). */
RegCompiledFn *_reg_compiler_compile_prepared        (RegCompiler          *self,
                                                      const char           *backend,
                                                      RegGraph             *graph,
                                                      GPtrArray            *example_inputs,
                                                      GVariant             *options,
                                                      const RegShape       *shapes,
                                                      GError              **error);

/* The same through the backend's compile_async (@shapes taken over); the
 * callback runs in the caller's thread-default main context. */
void           _reg_compiler_compile_prepared_async  (RegCompiler          *self,
                                                      const char           *backend,
                                                      RegGraph             *graph,
                                                      GPtrArray            *example_inputs,
                                                      GVariant             *options,
                                                      RegShape             *shapes,
                                                      GCancellable         *cancellable,
                                                      GAsyncReadyCallback   callback,
                                                      gpointer              user_data);
RegCompiledFn *_reg_compiler_compile_prepared_finish (RegCompiler          *self,
                                                      GAsyncResult         *result,
                                                      GError              **error);

/* Gives @self the schema @options (an option list, or NULL for none)
 * before anyone else has @self: a module backend's schema is its
 * manifest's, and the backend is not asked.  Returns FALSE, keeping the
 * schema @self has, when one was set or asked for already. */
gboolean       _reg_compiler_set_options             (RegCompiler          *self,
                                                      GListModel           *options);

/* Gives @self the compiler flags (Shareable=) and the operators
 * (Operators=) its module's manifest declares, before anyone else has
 * @self; the first call wins. */
void           _reg_compiler_set_declared            (RegCompiler          *self,
                                                      RegCompilerFlags      flags,
                                                      char                **operators);

/* The flags the registry goes by: reg_compiler_get_flags() ORed with those
 * of _reg_compiler_set_declared().  The manifest is the module author's
 * word for the compiler, given where tools read it without loading the
 * module. */
RegCompilerFlags _reg_compiler_get_effective_flags   (RegCompiler          *self);

/* Whether @self compiles asynchronously as every compiler does by default:
 * its synchronous compile in a worker thread.  The registry then runs that
 * compile in its own worker, saving a trip through the caller's context. */
gboolean       _reg_compiler_compiles_in_worker      (RegCompiler          *self);

/* The nodes of @graph (checked against @example_inputs) that @self takes:
 * in @taken, one byte per node, nonzero for each operator node whose
 * operator the manifest declares (_reg_compiler_set_declared()) and, when
 * @self implements dup_supported_nodes and it returns some, that it
 * names.  Fails with REG_COMPILER_ERROR_FAILED naming @backend when
 * dup_supported_nodes fails or names what is not an operator node of
 * @graph. */
gboolean       _reg_compiler_select_nodes            (RegCompiler          *self,
                                                      const char           *backend,
                                                      RegGraph             *graph,
                                                      GPtrArray            *example_inputs,
                                                      guint8               *taken,
                                                      GError              **error);

G_END_DECLS
