/* reg-name.c: the naming rules of backends and tags
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "reg-name-private.h"
#include "reg-error.h"

#define NAME_MAX_BYTES 255

/* Printable ASCII characters that names may not hold: path separators
 * (names become file and manifest section names), and the separators and
 * quotes of the formats names are written in (GKeyFile lists, option
 * strings, messages).  A table, as every name of every manifest comes
 * through here at discovery. */
static inline gboolean
is_forbidden_ascii (gunichar c)
{
  static const char forbidden[128] = {
    ['/'] = 1, ['\\'] = 1, ['['] = 1, [']'] = 1, [';'] = 1, [','] = 1, ['='] = 1, ['#'] = 1,
    ['\''] = 1, ['"'] = 1,
  };

  return c < 0x80 && forbidden[c];
}

/* What kind of invisible character @c is, or NULL.  White space is
 * Unicode's White_Space property: g_unichar_isspace() misses U+000B and
 * U+0085 of it. */
static const char *
invisible_kind (gunichar c)
{
  if (g_unichar_isspace (c) || c == 0x0B || c == 0x85)
    return "white space";

  switch (g_unichar_type (c))
    {
    case G_UNICODE_CONTROL:
      return "control character";
    case G_UNICODE_FORMAT:
      return "format character";
    default:
      return NULL;
    }
}

/* Why the character at @p of @name is not allowed ("%s at byte %d is not
 * allowed"), or NULL if it is.  Invisible characters are only ever written
 * as U+XXXX, so a message never carries a line break, a terminal control
 * or a direction override; nor is a name that holds one (other than a
 * plain space) quoted. */
static char *
describe_forbidden (const char *name,
                    const char *p)
{
  gunichar c = g_utf8_get_char (p);
  const char *kind = invisible_kind (c);
  g_autofree char *character = NULL;
  g_autofree char *quoted = NULL;
  gboolean quote = TRUE;

  if (kind != NULL)
    character = g_strdup_printf ("%s U+%04" G_GINT32_MODIFIER "X", kind, c);
  else if (c == '\'')
    character = g_strdup ("character \"'\"");  /* between quotes of the other kind */
  else if (is_forbidden_ascii (c))
    character = g_strdup_printf ("character '%c'", (int) c);
  else
    return NULL;

  for (const char *q = name; *q != '\0'; q = g_utf8_next_char (q))
    quote = quote && (*q == ' ' || invisible_kind (g_utf8_get_char (q)) == NULL);
  if (quote)
    quoted = g_strdup_printf (" '%s'", name);

  return g_strdup_printf ("%s: %s at byte %" G_GSIZE_FORMAT " is not allowed",
                          quoted != NULL ? quoted : "", character, (gsize) (p - name));
}

gboolean
_reg_name_validate (const char  *name,
                    const char  *what,
                    GError     **error)
{
  g_autofree char *problem = NULL;
  const char *end;
  gsize len;

  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* Neither an overlong name nor one that is not UTF-8 is printed: the
   * message must stay one short, valid line. */
  len = strlen (name);
  if (len == 0)
    problem = g_strdup (" '': empty");
  else if (len > NAME_MAX_BYTES)
    problem = g_strdup_printf (": %" G_GSIZE_FORMAT " bytes, at most %d are allowed",
                               len, NAME_MAX_BYTES);
  else if (!g_utf8_validate (name, len, &end))
    problem = g_strdup_printf (": not valid UTF-8 at byte %" G_GSIZE_FORMAT, (gsize) (end - name));
  else
    for (const char *p = name; *p != '\0' && problem == NULL; p = g_utf8_next_char (p))
      {
        /* Printable ASCII, the usual case, without the Unicode tables. */
        if (!(*p > ' ' && *p < 0x7f && !is_forbidden_ascii (*p)))
          problem = describe_forbidden (name, p);
      }

  if (problem == NULL)
    return TRUE;

  g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_NAME,
               "invalid %s%s", what, problem);
  return FALSE;
}

char **
_reg_tags_normalize (const char * const  *tags,
                     GError             **error)
{
  gsize n_tags = tags != NULL ? g_strv_length ((char **) tags) : 0;
  g_autoptr(GHashTable) seen = NULL;
  g_auto(GStrv) result = g_new0 (char *, n_tags + 1);
  gsize n_kept = 0;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* Repeats are found by comparing with the tags kept so far, or with a
   * set when there are many (manifests have a few at most). */
  if (n_tags > 8)
    seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (gsize i = 0; i < n_tags; i++)
    {
      if (!_reg_name_validate (tags[i], "tag", error))
        return NULL;

      if (seen != NULL ? g_hash_table_add (seen, (gpointer) tags[i])
                       : !g_strv_contains ((const char * const *) result, tags[i]))
        result[n_kept++] = g_strdup (tags[i]);
    }

  return g_steal_pointer (&result);
}
