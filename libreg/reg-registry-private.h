/* reg-registry-private.h: what the registry shares with its list model
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-registry.h"

G_BEGIN_DECLS

/* Info snapshots of every backend reg_registry_list_backends() would list
 * with @exclude_tags (not NULL: an empty array excludes nothing), in its
 * order, all taken at one moment.  Runs discovery first. */
GPtrArray *_reg_registry_dup_infos (RegRegistry        *self,
                                    const char * const *exclude_tags);

G_END_DECLS
