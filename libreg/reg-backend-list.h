/* reg-backend-list.h: a list model of a registry's backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <gio/gio.h>

#include "reg-version-macros.h"
#include "reg-registry.h"

G_BEGIN_DECLS

#define REG_TYPE_BACKEND_LIST (reg_backend_list_get_type ())

REG_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (RegBackendList, reg_backend_list, REG, BACKEND_LIST, GObject)

REG_AVAILABLE_IN_ALL
RegBackendList     *reg_backend_list_new              (RegRegistry        *registry,
                                                       const char * const *exclude_tags);
REG_AVAILABLE_IN_ALL
RegRegistry        *reg_backend_list_get_registry     (RegBackendList     *self);
REG_AVAILABLE_IN_ALL
const char * const *reg_backend_list_get_exclude_tags (RegBackendList     *self);

G_END_DECLS
