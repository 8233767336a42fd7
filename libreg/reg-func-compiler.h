/* reg-func-compiler.h: a plain function as a compiler backend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <glib-object.h>

#include "reg-version-macros.h"
#include "reg-compiler.h"

G_BEGIN_DECLS

/**
 * RegCompileFunc:
 * @graph: the graph to compile
 * @example_inputs: (element-type Reg.Tensor): tensors shaped like the inputs
 *   the compiled function will be called with
 * @options: (nullable): backend settings, an `a{sv}` dictionary
 * @user_data: (closure): the data given to [ctor@Reg.FuncCompiler.new]
 * @error: return location for a #GError
 *
 * The function behind a [class@Reg.FuncCompiler].
 *
 * Returns: (transfer full): the compiled function, or %NULL with @error set
 */
typedef RegCompiledFn *(*RegCompileFunc) (RegGraph   *graph,
                                          GPtrArray  *example_inputs,
                                          GVariant   *options,
                                          gpointer    user_data,
                                          GError    **error);

#define REG_TYPE_FUNC_COMPILER (reg_func_compiler_get_type ())

REG_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (RegFuncCompiler, reg_func_compiler, REG, FUNC_COMPILER, GObject)

REG_AVAILABLE_IN_ALL
RegCompiler *reg_func_compiler_new (const char     *name,
                                    RegCompileFunc  func,
                                    gpointer        user_data,
                                    GDestroyNotify  destroy);

G_END_DECLS
