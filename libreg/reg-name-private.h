/* reg-name-private.h: the naming rules of backends and tags
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Checks @name against docs/names.md (1 to 255 bytes of valid UTF-8, no white
 * space, no Cc or Cf characters, none of / \ [ ] ; , = # ' ").  @what says
 * what is checked ("backend name", "tag") for the message.  Fails with
 * REG_REGISTRY_ERROR_INVALID_NAME naming the offending character. */
gboolean   _reg_name_validate    (const char          *name,
                                  const char          *what,
                                  GError             **error);

/* Validates every tag and returns a new NULL-terminated copy in the order
 * given with repeats dropped (first place kept).  NULL @tags: empty. */
char     **_reg_tags_normalize   (const char * const  *tags,
                                  GError             **error);

G_END_DECLS
