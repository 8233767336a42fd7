/* reg-module-private.h: loading module files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-module.h"

G_BEGIN_DECLS

/* A backend a loaded module offers: reg_module_add_backend()'s arguments. */
typedef struct
{
  char  *name;
  GType  type;
} RegModuleOffer;

/* The process's module lock, the first of libreg's locks (see the lock
 * order at the top of reg-module.c): a registry takes it before its own
 * load lock whenever it may load a module.  Recursive. */
void                  _reg_module_lock       (void);
void                  _reg_module_unlock     (void);

/* Returns the process-wide RegModule of the module file @path, opened and
 * initialised (once per process and per file, whichever registry asks
 * first and through whichever path: a file is identified by its device
 * and inode), or NULL with REG_REGISTRY_ERROR_LOAD_FAILED.  A failure is retried on the next
 * call.  The module stays resident for the life of the process, as GTypes
 * registered from it cannot be unregistered.  Thread-safe; runs module
 * code, so the caller must hold the module lock (and may hold registry
 * load locks under it), but no registry's contents lock.  (transfer none) */
RegModule            *_reg_module_ensure     (const char  *path,
                                              GError     **error);

/* The backends @module offered while it loaded; immutable afterwards. */
const RegModuleOffer *_reg_module_get_offers (RegModule   *module,
                                              guint       *n_offers);

G_END_DECLS
