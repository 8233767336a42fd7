/* reg-close-matches.h: difflib-compatible fuzzy matching of names
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
char **reg_close_matches (const char         *word,
                          const char * const *possibilities,
                          guint               n,
                          double              cutoff);

G_END_DECLS
