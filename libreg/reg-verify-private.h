/* reg-verify-private.h: checking backends in a process of their own
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "reg-verdict.h"

G_BEGIN_DECLS

/* Defaults of reg_registry_verify_backend()'s options, also those of the
 * checks made before a first load. */
#define REG_VERIFY_DEFAULT_TIMEOUT      20.0
#define REG_VERIFY_DEFAULT_MEMORY_LIMIT (G_GUINT64_CONSTANT (4) << 30)

typedef enum {
  REG_VERIFY_STORE_USER,
  REG_VERIFY_STORE_SYSTEM,  /* beside the module */
  REG_VERIFY_STORE_NONE,
} RegVerifyStore;

typedef struct
{
  double          timeout;       /* seconds */
  guint64         memory_limit;  /* bytes of address space; 0: none */
  RegVerifyStore  store;
} RegVerifyOptions;

/* Reads reg_registry_verify_backend()'s @options (nullable) over the
 * defaults; G_IO_ERROR_INVALID_ARGUMENT naming a bad key or value. */
gboolean    _reg_verify_options_parse (GVariant                *options,
                                       RegVerifyOptions        *parsed,
                                       GError                 **error);

/* Checks backend @name, declared in the search directory @dir with the
 * module file @module_path, in a child process (the checker) where the
 * module reaches the backends of @search_path (the asking registry's),
 * and records the
 * verdict in the store @options ask for when the module file did not
 * change meanwhile.  NULL with an error when there is no verdict: the
 * checker cannot be started or did not reach the module (G_SPAWN_ERROR),
 * the check was cancelled, the backend builds on one that could not be
 * reached (G_IO_ERROR_NOT_FOUND).  A verdict that is not recorded says
 * why (reg_verdict_get_store_error()).  Blocks the calling thread; runs
 * no module code in this process. */
RegVerdict *_reg_verify_run           (const char * const      *search_path,
                                       const char              *name,
                                       const char              *module_path,
                                       const char              *dir,
                                       const RegVerifyOptions  *options,
                                       GCancellable            *cancellable,
                                       GError                 **error);

/* The verdict that governs backend @name of @module_path as the file is
 * now: one quarantining the module, or else the backend's own; NULL when
 * none is recorded. */
RegVerdict *_reg_verify_dup_verdict   (const char              *name,
                                       const char              *module_path);

/* A registry's hook before it opens @module_path for backend @name: fails
 * when a recorded verdict quarantines the module; with @check_first
 * (REG_MODULE_CHECKS_VERIFY), first checks out of process each backend of
 * @names (those the registry takes from the module) that has no verdict
 * yet, with the backends of @search_path, and fails when one quarantines
 * it or the check cannot be made.  The failure is
 * REG_REGISTRY_ERROR_LOAD_FAILED naming @manifest_path and the module,
 * the verdict, and the command that checks it again. */
gboolean    _reg_verify_before_load   (gboolean                 check_first,
                                       const char * const      *search_path,
                                       const char              *name,
                                       const char              *module_path,
                                       const char              *manifest_path,
                                       const char              *dir,
                                       GPtrArray               *names,
                                       GError                 **error);

G_END_DECLS
