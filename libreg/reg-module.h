/* reg-module.h: backend plugin modules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <gmodule.h>
#include <glib-object.h>

#include "reg-version.h"
#include "reg-version-macros.h"

G_BEGIN_DECLS

#define REG_TYPE_MODULE (reg_module_get_type ())

REG_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (RegModule, reg_module, REG, MODULE, GTypeModule)

REG_AVAILABLE_IN_ALL
void         reg_module_add_backend (RegModule  *module,
                                     const char *name,
                                     GType       type);
REG_AVAILABLE_IN_ALL
const char  *reg_module_get_path    (RegModule  *module);

/* The entry points a module defines and exports (see RegModule): declared
 * here so that a module's definitions have their prototypes.  Not part of
 * libreg itself, so not introspected. */
#ifndef __GI_SCANNER__
G_MODULE_EXPORT extern const guint32 reg_module_abi_version;
G_MODULE_EXPORT void reg_module_load   (RegModule *module);
G_MODULE_EXPORT void reg_module_unload (RegModule *module);
#endif

G_END_DECLS
