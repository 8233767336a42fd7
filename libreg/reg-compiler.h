/* reg-compiler.h: the interface of compiler backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <gio/gio.h>

#include "reg-version-macros.h"
#include "reg-compiled-fn.h"
#include "reg-graph.h"

G_BEGIN_DECLS

/**
 * REG_COMPILER_ERROR:
 *
 * The error domain of compiling and calling.  Its codes are
 * [enum@Reg.CompilerError].
 */
#define REG_COMPILER_ERROR (reg_compiler_error_quark ())

/**
 * RegCompilerError:
 * @REG_COMPILER_ERROR_FAILED: compiling failed (also: a compiler returned
 *   nothing and said nothing)
 * @REG_COMPILER_ERROR_UNSUPPORTED_OP: the graph uses an operator the backend
 *   does not support
 * @REG_COMPILER_ERROR_BAD_INPUTS: a call's inputs differ in count or shape
 *   from the example inputs the function was compiled for
 * @REG_COMPILER_ERROR_BAD_OPTION: an option key the backend does not know,
 *   a value of the wrong type or out of its range or choices, or an option
 *   declaration (a [class@Reg.Option]) that is not valid
 * @REG_COMPILER_ERROR_RUNTIME: a call failed while running
 *
 * Errors in the %REG_COMPILER_ERROR domain.
 */
typedef enum {
  REG_COMPILER_ERROR_FAILED,
  REG_COMPILER_ERROR_UNSUPPORTED_OP,
  REG_COMPILER_ERROR_BAD_INPUTS,
  REG_COMPILER_ERROR_BAD_OPTION,
  REG_COMPILER_ERROR_RUNTIME,
} RegCompilerError;

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
 *
 * The virtual methods of [iface@Reg.Compiler].
 */
struct _RegCompilerInterface
{
  GTypeInterface parent_iface;

  RegCompiledFn *(*compile)     (RegCompiler  *self,
                                 RegGraph     *graph,
                                 GPtrArray    *example_inputs,
                                 GVariant     *options,
                                 GError      **error);
  char          *(*dup_name)    (RegCompiler  *self);
  GListModel    *(*dup_options) (RegCompiler  *self);
};

REG_AVAILABLE_IN_ALL
GQuark         reg_compiler_error_quark (void);

REG_AVAILABLE_IN_ALL
RegCompiledFn *reg_compiler_compile     (RegCompiler  *self,
                                         RegGraph     *graph,
                                         GPtrArray    *example_inputs,
                                         GVariant     *options,
                                         GError      **error);
REG_AVAILABLE_IN_ALL
const char    *reg_compiler_get_name    (RegCompiler  *self);
REG_AVAILABLE_IN_ALL
GListModel    *reg_compiler_get_options (RegCompiler  *self);

G_END_DECLS
