/* reg-verdict-store-private.h: verdicts recorded against module files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

#include "reg-file-private.h"

#include "reg-verdict.h"

G_BEGIN_DECLS

/* The file name of the store beside a module directory's modules. */
#define REG_VERDICT_STORE_NAME "backends.verdicts"

/* The one bound of a store, for writers and readers: a larger file is
 * not read (it cannot be one libreg wrote), and writers drop verdicts to
 * keep within it. */
#define REG_VERDICT_STORE_MAX_SIZE (1024 * 1024)

/* A verdict holds for the module file it was made on (its RegFileStamp,
 * reg-file-private.h): any change to it (replaced, rebuilt, touched)
 * lifts it. */

/* The per-user store, $XDG_CACHE_HOME/libreg/verdicts, or NULL in a
 * setuid or setgid program (whose environment is its caller's). */
char       *_reg_verdict_store_user_path   (void);

/* The store beside @module_path: REG_VERDICT_STORE_NAME in its directory. */
char       *_reg_verdict_store_path_beside (const char       *module_path);

/* The verdicts that hold for the module file @module_path whose identity
 * is @id: of each backend, its newest, whichever of the store beside the
 * module and the user's holds it; newest first.  A store that is missing
 * is no verdict; one that is unreadable or corrupt in any way is ignored
 * whole, with a g_debug() saying why.  Each store is read only when it
 * changed since this process last read it.  Thread-safe. */
GPtrArray  *_reg_verdict_store_find        (const char       *module_path,
                                            const RegFileStamp  *id);

/* The first verdict of @verdicts (from _reg_verdict_store_find()) that
 * quarantines the module, or the first of backend @name; NULL if none.
 * (transfer none) */
RegVerdict *_reg_verdict_store_pick        (GPtrArray        *verdicts,
                                            const char       *name,
                                            gboolean          quarantining);

/* Adds @verdict, made on the module file of identity @id, to the store
 * @store_path, replacing the verdict of the same backend of the same file
 * and dropping those of module files that changed or are gone, and, to
 * keep within REG_VERDICT_STORE_MAX_SIZE, the oldest that quarantine
 * nothing; when the verdicts that quarantine fill it, @verdict is not
 * recorded (G_FILE_ERROR_NOSPC).  Writers
 * take a lock on the store's directory, read, merge and replace the file
 * atomically (a new file renamed over the old one), so concurrent writers
 * keep each other's verdicts and readers never see half a store.  Creates
 * the directory of the user's store. */
gboolean    _reg_verdict_store_record      (const char       *store_path,
                                            RegVerdict       *verdict,
                                            const RegFileStamp  *id,
                                            GError          **error);

G_END_DECLS
