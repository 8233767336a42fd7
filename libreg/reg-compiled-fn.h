/* reg-compiled-fn.h: the callable a compiler makes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <glib-object.h>

#include "reg-version-macros.h"

G_BEGIN_DECLS

#define REG_TYPE_COMPILED_FN (reg_compiled_fn_get_type ())

REG_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (RegCompiledFn, reg_compiled_fn, REG, COMPILED_FN, GObject)

/**
 * RegCompiledFnInterface:
 * @parent_iface: the parent interface
 * @call: runs the compiled graph on @inputs, a #GPtrArray of
 *   [class@Reg.Tensor] in the order of the graph's inputs.  Returns
 *   (transfer full) an array of output tensors whose elements the caller
 *   owns (its free function need not be set), or %NULL with @error set.
 *   The inputs have already been checked against the example inputs.
 *
 * The virtual methods of [iface@Reg.CompiledFn].
 */
struct _RegCompiledFnInterface
{
  GTypeInterface parent_iface;

  GPtrArray *(*call) (RegCompiledFn  *self,
                      GPtrArray      *inputs,
                      GError        **error);
};

REG_AVAILABLE_IN_ALL
GPtrArray *reg_compiled_fn_call (RegCompiledFn  *self,
                                 GPtrArray      *inputs,
                                 GError        **error);

G_END_DECLS
