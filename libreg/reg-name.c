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

/* Unicode's White_Space property: the separators (Zs, Zl, Zp) and the
 * controls that Unicode counts as white space, U+0009 to U+000D and U+0085
 * (g_unichar_isspace() misses U+000B and U+0085). */
static gboolean
is_white_space (gunichar c)
{
  switch (g_unichar_type (c))
    {
    case G_UNICODE_SPACE_SEPARATOR:
    case G_UNICODE_LINE_SEPARATOR:
    case G_UNICODE_PARAGRAPH_SEPARATOR:
      return TRUE;
    default:
      return (c >= 0x09 && c <= 0x0D) || c == 0x85 || g_unichar_isspace (c);
    }
}

static gboolean
is_invisible (gunichar c)
{
  GUnicodeType type = g_unichar_type (c);

  return is_white_space (c) || type == G_UNICODE_CONTROL || type == G_UNICODE_FORMAT;
}

/* Describes the offending character @c for a message; NULL if @c is
 * allowed.  Invisible characters are only ever written as U+XXXX, so a
 * message never carries a line break, a terminal control or a direction
 * override. */
static char *
describe_forbidden (gunichar c)
{
  GUnicodeType type = g_unichar_type (c);

  if (is_white_space (c))
    return g_strdup_printf ("white space U+%04" G_GINT32_MODIFIER "X", c);
  if (type == G_UNICODE_CONTROL)
    return g_strdup_printf ("control character U+%04" G_GINT32_MODIFIER "X", c);
  if (type == G_UNICODE_FORMAT)
    return g_strdup_printf ("format character U+%04" G_GINT32_MODIFIER "X", c);
  /* A quote is shown between quotes of the other kind. */
  if (c == '\'')
    return g_strdup ("character \"'\"");
  if (is_forbidden_ascii (c))
    return g_strdup_printf ("character '%c'", (int) c);

  return NULL;
}

/* Quotes @name for a message, or returns an empty string when it holds an
 * invisible character other than a plain space: the message then names the
 * character by code point and byte offset only. */
static char *
quote_name (const char *name)
{
  const char *p;

  for (p = name; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c != ' ' && is_invisible (c))
        return g_strdup ("");
    }

  return g_strdup_printf (" '%s'", name);
}

gboolean
_reg_name_validate (const char  *name,
                    const char  *what,
                    GError     **error)
{
  const char *end;
  const char *p;
  gsize len;

  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (what != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  len = strlen (name);
  if (len == 0)
    {
      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_NAME,
                   "invalid %s '': empty", what);
      return FALSE;
    }

  /* Neither an overlong name nor one that is not UTF-8 is printed: the
   * message must stay one short, valid line. */
  if (len > NAME_MAX_BYTES)
    {
      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_NAME,
                   "invalid %s: %" G_GSIZE_FORMAT " bytes, at most %d are allowed",
                   what, len, NAME_MAX_BYTES);
      return FALSE;
    }

  if (!g_utf8_validate (name, len, &end))
    {
      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_NAME,
                   "invalid %s: not valid UTF-8 at byte %" G_GSIZE_FORMAT,
                   what, (gsize) (end - name));
      return FALSE;
    }

  for (p = name; *p != '\0'; p = g_utf8_next_char (p))
    {
      g_autofree char *problem = NULL;
      g_autofree char *quoted = NULL;

      /* Printable ASCII, the usual case, without the Unicode tables. */
      if (*p > ' ' && *p < 0x7f && !is_forbidden_ascii (*p))
        continue;

      problem = describe_forbidden (g_utf8_get_char (p));
      if (problem == NULL)
        continue;

      quoted = quote_name (name);
      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_NAME,
                   "invalid %s%s: %s at byte %" G_GSIZE_FORMAT " is not allowed",
                   what, quoted, problem, (gsize) (p - name));
      return FALSE;
    }

  return TRUE;
}

char **
_reg_tags_normalize (const char * const  *tags,
                     GError             **error)
{
  gsize n_tags = tags != NULL ? g_strv_length ((char **) tags) : 0;
  g_autoptr(GHashTable) seen = NULL;
  char **result = g_new0 (char *, n_tags + 1);
  gsize n_kept = 0;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* Repeats are found by comparing with the tags kept so far, or with a
   * set when there are many (manifests have a few at most). */
  if (n_tags > 8)
    seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (gsize i = 0; i < n_tags; i++)
    {
      gboolean repeat = FALSE;

      if (!_reg_name_validate (tags[i], "tag", error))
        {
          g_strfreev (result);
          return NULL;
        }

      if (seen != NULL)
        repeat = g_hash_table_contains (seen, tags[i]);
      else
        for (gsize j = 0; j < n_kept && !repeat; j++)
          repeat = g_str_equal (result[j], tags[i]);
      if (repeat)
        continue;

      result[n_kept] = g_strdup (tags[i]);
      if (seen != NULL)
        g_hash_table_add (seen, result[n_kept]);
      n_kept++;
    }

  return result;
}
