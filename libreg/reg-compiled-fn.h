/* reg-compiled-fn.h: the callable a compiler makes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <gio/gio.h>

#include "reg-version-macros.h"

G_BEGIN_DECLS

#define REG_TYPE_COMPILED_FN (reg_compiled_fn_get_type ())

REG_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (RegCompiledFn, reg_compiled_fn, REG, COMPILED_FN, GObject)

/**
 * RegCompiledFnInterface:
 * @parent_iface: the parent interface
 * @run: runs the compiled graph; see [vfunc@Reg.CompiledFn.run]
 * @run_async: starts running the compiled graph; the default runs @run in
 *   a worker thread; see [vfunc@Reg.CompiledFn.run_async]
 * @run_finish: finishes @run_async
 *
 * The virtual methods of [iface@Reg.CompiledFn].
 */
struct _RegCompiledFnInterface
{
  GTypeInterface parent_iface;

  GListModel *(*run)        (RegCompiledFn        *self,
                             GPtrArray            *inputs,
                             GError              **error);
  void        (*run_async)  (RegCompiledFn        *self,
                             GPtrArray            *inputs,
                             GCancellable         *cancellable,
                             GAsyncReadyCallback   callback,
                             gpointer              user_data);
  GListModel *(*run_finish) (RegCompiledFn        *self,
                             GAsyncResult         *result,
                             GError              **error);
};

REG_AVAILABLE_IN_ALL
GPtrArray  *reg_compiled_fn_call        (RegCompiledFn        *self,
                                         GPtrArray            *inputs,
                                         GError              **error);
REG_AVAILABLE_IN_ALL
void        reg_compiled_fn_call_async  (RegCompiledFn        *self,
                                         GPtrArray            *inputs,
                                         GCancellable         *cancellable,
                                         GAsyncReadyCallback   callback,
                                         gpointer              user_data);
REG_AVAILABLE_IN_ALL
GPtrArray  *reg_compiled_fn_call_finish (RegCompiledFn        *self,
                                         GAsyncResult         *result,
                                         GError              **error);
REG_AVAILABLE_IN_ALL
const char *reg_compiled_fn_get_backend (RegCompiledFn        *self);
REG_AVAILABLE_IN_ALL
GVariant   *reg_compiled_fn_dup_placement (RegCompiledFn      *self);

G_END_DECLS
