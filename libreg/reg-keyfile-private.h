/* reg-keyfile-private.h: reading the values of key files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The getters of the manifest readers.  Each sets *@value to NULL when the
 * key is missing (no error: every manifest key but AbiVersion= is
 * optional at this level), and otherwise reads it as GKeyFile does, after
 * checking its escape sequences: GLib 2.74 sets its GError twice (a
 * warning, fatal in test programs) when it unescapes an invalid escape
 * followed by a backslash at the end of the value.  Errors name the group
 * and the key ("[GROUP] KEY: ..."). */
gboolean _reg_keyfile_get_string      (GKeyFile     *keyfile,
                                       const char   *group,
                                       const char   *key,
                                       char        **value,
                                       GError      **error);
/* A list (`a;b;c`): empty when the value is. */
gboolean _reg_keyfile_get_string_list (GKeyFile     *keyfile,
                                       const char   *group,
                                       const char   *key,
                                       char       ***value,
                                       GError      **error);
/* A boolean as g_key_file_get_boolean() reads it (true, false, 1, 0);
 * *@value is left alone when the key is missing. */
gboolean _reg_keyfile_get_boolean     (GKeyFile     *keyfile,
                                       const char   *group,
                                       const char   *key,
                                       gboolean     *value,
                                       GError      **error);

G_END_DECLS
