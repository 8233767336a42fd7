/* reg-verify-private.h: checking backends in a process of their own
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "reg-verdict.h"

G_BEGIN_DECLS

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

/* reg_registry_verify_backend() of backend @name, declared in the search
 * directory @dir with the module file @module_path, which reaches the
 * backends of @search_path (the asking registry's) in the checker.  Runs
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
 * (REG_REGISTRY_ERROR_LOAD_FAILED) when a recorded verdict quarantines the
 * module; with @check_first (REG_MODULE_CHECKS_VERIFY), first checks each
 * backend of @names (those the registry takes from the module) that has no
 * verdict yet, and fails when one quarantines it or cannot be checked. */
gboolean    _reg_verify_before_load   (gboolean                 check_first,
                                       const char * const      *search_path,
                                       const char              *name,
                                       const char              *module_path,
                                       const char              *manifest_path,
                                       const char              *dir,
                                       GPtrArray               *names,
                                       GError                 **error);

G_END_DECLS
