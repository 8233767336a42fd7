/* reg-backend-info.h: a snapshot of what the registry knows of a backend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <gio/gio.h>

#include "reg-compiler.h"
#include "reg-verdict.h"
#include "reg-version-macros.h"

G_BEGIN_DECLS

/**
 * RegBackendOrigin:
 * @REG_BACKEND_ORIGIN_RUNTIME: registered by the application at run time
 * @REG_BACKEND_ORIGIN_MODULE: declared by a module manifest (loaded or not)
 *
 * Where a backend comes from.
 */
typedef enum {
  REG_BACKEND_ORIGIN_RUNTIME,
  REG_BACKEND_ORIGIN_MODULE,
} RegBackendOrigin;

/**
 * RegBackendState:
 * @REG_BACKEND_STATE_DECLARED: a manifest declares it and its module is not
 *   loaded yet
 * @REG_BACKEND_STATE_LOADED: its compiler exists: registered at run time,
 *   or made when its module was loaded
 * @REG_BACKEND_STATE_FAILED: its last lookup could not load it
 *   ([property@Reg.BackendInfo:reason] says why); the next lookup tries
 *   again
 * @REG_BACKEND_STATE_QUARANTINED: a recorded verdict keeps its module from
 *   being opened ([property@Reg.BackendInfo:verdict])
 *
 * What a backend is, as far as using it goes.
 */
typedef enum {
  REG_BACKEND_STATE_DECLARED,
  REG_BACKEND_STATE_LOADED,
  REG_BACKEND_STATE_FAILED,
  REG_BACKEND_STATE_QUARANTINED,
} RegBackendState;

#define REG_TYPE_BACKEND_INFO (reg_backend_info_get_type ())

REG_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (RegBackendInfo, reg_backend_info, REG, BACKEND_INFO, GObject)

REG_AVAILABLE_IN_ALL
const char         *reg_backend_info_get_name        (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
const char * const *reg_backend_info_get_tags        (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
const char         *reg_backend_info_get_description (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
const char         *reg_backend_info_get_module_path (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
gboolean            reg_backend_info_get_loaded      (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
RegBackendOrigin    reg_backend_info_get_origin      (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
gboolean            reg_backend_info_get_is_default  (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
GListModel         *reg_backend_info_get_options     (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
GVariant           *reg_backend_info_parse_options   (RegBackendInfo      *self,
                                                      const char * const  *assignments,
                                                      GError             **error);
REG_AVAILABLE_IN_ALL
const char         *reg_backend_info_get_version     (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
const char * const *reg_backend_info_get_authors     (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
const char         *reg_backend_info_get_website     (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
const char         *reg_backend_info_get_license     (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
RegCompilerFlags    reg_backend_info_get_compiler_flags (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
const char * const *reg_backend_info_get_operators   (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
const char         *reg_backend_info_get_manifest_path (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
const char * const *reg_backend_info_get_shadowed_manifests (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
RegBackendState     reg_backend_info_get_state       (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
RegVerdict         *reg_backend_info_get_verdict     (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
const char         *reg_backend_info_get_reason      (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
const char         *reg_backend_info_get_loader      (RegBackendInfo *self);
REG_AVAILABLE_IN_ALL
const char         *reg_backend_info_get_entry_point (RegBackendInfo *self);

G_END_DECLS
