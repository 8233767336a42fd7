/* reg-compiler.h: the interface of compiler backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <gio/gio.h>

#include "reg-error.h"
#include "reg-version-macros.h"
#include "reg-compiled-fn.h"
#include "reg-graph.h"

G_BEGIN_DECLS

/**
 * RegCompilerFlags:
 * @REG_COMPILER_FLAGS_NONE: no flag
 * @REG_COMPILER_FLAGS_SHAREABLE: the functions the compiler makes may be
 *   shared: called by several callers, from several threads at once, and
 *   handed out again for an equal compile.  The registry keeps them in its
 *   compile cache (see [property@Reg.Registry:compile-cache-size]).
 *
 * What a compiler says of itself, in code ([method@Reg.Compiler.get_flags])
 * or, for a module backend, in its manifest (`Shareable=true`); see
 * [method@Reg.BackendInfo.get_compiler_flags].
 */
typedef enum /*< flags >*/ {
  REG_COMPILER_FLAGS_NONE = 0,
  REG_COMPILER_FLAGS_SHAREABLE = 1 << 0,
} RegCompilerFlags;

#define REG_TYPE_COMPILER (reg_compiler_get_type ())

REG_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (RegCompiler, reg_compiler, REG, COMPILER, GObject)

/**
 * RegCompilerInterface:
 * @parent_iface: the parent interface
 * @compile: compiles a graph; see [vfunc@Reg.Compiler.compile]
 * @dup_name: the compiler's own name (optional); see
 *   [vfunc@Reg.Compiler.dup_name]
 * @dup_options: the options the compiler takes (optional); see
 *   [vfunc@Reg.Compiler.dup_options]
 * @compile_async: starts compiling a graph; the default runs @compile in a
 *   worker thread; see [vfunc@Reg.Compiler.compile_async]
 * @compile_finish: finishes @compile_async
 * @get_flags: what the compiler says of itself (optional; the default is
 *   %REG_COMPILER_FLAGS_NONE); see [vfunc@Reg.Compiler.get_flags]
 * @dup_supported_nodes: the nodes of a graph the compiler takes (optional;
 *   the default is every node whose operator its manifest declares); see
 *   [vfunc@Reg.Compiler.dup_supported_nodes]
 *
 * The virtual methods of [iface@Reg.Compiler].
 */
struct _RegCompilerInterface
{
  GTypeInterface parent_iface;

  RegCompiledFn *(*compile)        (RegCompiler          *self,
                                    RegGraph             *graph,
                                    GPtrArray            *example_inputs,
                                    GVariant             *options,
                                    GError              **error);
  char          *(*dup_name)       (RegCompiler          *self);
  void           (*compile_async)  (RegCompiler          *self,
                                    RegGraph             *graph,
                                    GPtrArray            *example_inputs,
                                    GVariant             *options,
                                    GCancellable         *cancellable,
                                    GAsyncReadyCallback   callback,
                                    gpointer              user_data);
  RegCompiledFn *(*compile_finish) (RegCompiler          *self,
                                    GAsyncResult         *result,
                                    GError              **error);
  RegCompilerFlags (*get_flags)    (RegCompiler          *self);
  GListModel    *(*dup_options)    (RegCompiler          *self);
  GVariant      *(*dup_supported_nodes) (RegCompiler     *self,
                                         RegGraph        *graph,
                                         GPtrArray       *example_inputs,
                                         GError         **error);
};

REG_AVAILABLE_IN_ALL
RegCompiledFn *reg_compiler_compile     (RegCompiler  *self,
                                         RegGraph     *graph,
                                         GPtrArray    *example_inputs,
                                         GVariant     *options,
                                         GError      **error);
REG_AVAILABLE_IN_ALL
void           reg_compiler_compile_async  (RegCompiler          *self,
                                            RegGraph             *graph,
                                            GPtrArray            *example_inputs,
                                            GVariant             *options,
                                            GCancellable         *cancellable,
                                            GAsyncReadyCallback   callback,
                                            gpointer              user_data);
REG_AVAILABLE_IN_ALL
RegCompiledFn *reg_compiler_compile_finish (RegCompiler          *self,
                                            GAsyncResult         *result,
                                            GError              **error);
REG_AVAILABLE_IN_ALL
const char    *reg_compiler_get_name    (RegCompiler  *self);
REG_AVAILABLE_IN_ALL
RegCompilerFlags reg_compiler_get_flags (RegCompiler  *self);
REG_AVAILABLE_IN_ALL
GListModel    *reg_compiler_get_options (RegCompiler  *self);

G_END_DECLS
