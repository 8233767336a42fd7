/* reg-backend-cache.h: the discovery cache of a module directory
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <glib.h>

#include "reg-version-macros.h"

G_BEGIN_DECLS

REG_AVAILABLE_IN_ALL
gboolean reg_backend_cache_write (const char  *dir,
                                  GError     **error);

G_END_DECLS
