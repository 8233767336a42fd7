/* reg-keyfile-private.h: reading key files fast
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A key file, read without GKeyFile where it can be: loading a GKeyFile
 * (its hash tables, a copy of every line) and its getters (each hashes
 * the group and the key, copies the value and, for a missing key,
 * translates an error message) cost twice the reading of the manifests.
 * One pass reads every text and tells whether it is plainly a key file
 * (ASCII, each line a comment, a group alone or KEY=VALUE with a plain
 * key: what manifests are); any other is loaded by GKeyFile, which
 * decides whether it is a key file and says why not.  The pass finds the
 * values where GKeyFile would (fuzz-manifest checks that GKeyFile accepts
 * every plain text and that they are the values g_key_file_get_value()
 * gives), and the rare value with escapes is unescaped by GKeyFile
 * itself. */
typedef struct _RegKeyFile RegKeyFile;

/* Fails with GKeyFile's error when the text is not a key file. */
RegKeyFile         *_reg_key_file_new        (const char  *data,
                                              gsize        length,
                                              GError     **error);
void                _reg_key_file_free       (RegKeyFile  *keyfile);
/* The groups, each once, in the order they first appear. */
const char * const *_reg_key_file_get_groups (RegKeyFile  *keyfile);
/* Whether the text is plainly a key file, and so ASCII without NUL bytes. */
gboolean            _reg_key_file_is_plain   (RegKeyFile  *keyfile);
gboolean            _reg_key_file_has_group  (RegKeyFile  *keyfile,
                                              const char  *group);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RegKeyFile, _reg_key_file_free)

/* One group of a key file. */
typedef struct
{
  RegKeyFile *keyfile;
  const char *name;
  int         first_run;  /* see reg-keyfile.c; -1: the group is empty */
} RegKeyGroup;

/* @name must be a group of @keyfile, which must outlive @group. */
void     _reg_key_group_init            (RegKeyGroup  *group,
                                         RegKeyFile   *keyfile,
                                         const char   *name);

/* The raw value of @key (the last line that gives it), escapes and all,
 * as g_key_file_get_value() has it; NULL when the key is missing. */
const char *_reg_key_group_get_value    (RegKeyGroup  *group,
                                         const char   *key);

/* The getters of the manifest reader.  Each leaves *@value NULL (or
 * alone, for a boolean or an integer) when the key is missing, with no
 * error, and otherwise reads it as GKeyFile does.  Escape sequences are
 * checked first: GLib 2.74 sets its GError twice (a warning, fatal in
 * test programs) when it unescapes an invalid escape followed by a
 * backslash at the end of the value.  Errors are G_KEY_FILE_ERROR, and
 * say "[GROUP] KEY: ...". */
gboolean _reg_key_group_get_string      (RegKeyGroup  *group,
                                         const char   *key,
                                         char        **value,
                                         GError      **error);
/* A list (`a;b;c`): empty when the value is. */
gboolean _reg_key_group_get_string_list (RegKeyGroup  *group,
                                         const char   *key,
                                         char       ***value,
                                         GError      **error);
/* A boolean as g_key_file_get_boolean() reads it (true, false, 1, 0). */
gboolean _reg_key_group_get_boolean     (RegKeyGroup  *group,
                                         const char   *key,
                                         gboolean     *value,
                                         GError      **error);
/* A decimal integer, optionally signed, nothing around it. */
gboolean _reg_key_group_get_int64       (RegKeyGroup  *group,
                                         const char   *key,
                                         gint64       *value,
                                         GError      **error);

G_END_DECLS
