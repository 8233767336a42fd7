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

/* Returns the process-wide RegModule of the module file @path, opened and
 * initialised (once per process and per file, whichever registry asks
 * first and through whichever path: a file is identified by its device
 * and inode), or NULL with REG_REGISTRY_ERROR_LOAD_FAILED.  A failure is retried on the next
 * call.  The module stays resident for the life of the process, as GTypes
 * registered from it cannot be unregistered.  Thread-safe; runs module
 * code, so the caller must not hold a registry lock.  (transfer none) */
RegModule            *_reg_module_ensure     (const char  *path,
                                              GError     **error);

/* The backends @module offered while it loaded; immutable afterwards. */
const RegModuleOffer *_reg_module_get_offers (RegModule   *module,
                                              guint       *n_offers);

G_END_DECLS
