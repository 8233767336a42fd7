/* reg-module.h: backend plugin modules
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

/**
 * REG_MODULE_ABI_VERSION:
 *
 * The module ABI this libreg speaks.  A module exports
 * `const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;` and its
 * manifest says `AbiVersion=2`.
 */
#define REG_MODULE_ABI_VERSION 2

#define REG_TYPE_MODULE (reg_module_get_type ())

REG_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (RegModule, reg_module, REG, MODULE, GTypeModule)

REG_AVAILABLE_IN_ALL
void         reg_module_add_backend (RegModule  *module,
                                     const char *name,
                                     GType       type);
REG_AVAILABLE_IN_ALL
const char  *reg_module_get_path    (RegModule  *module);

G_END_DECLS
