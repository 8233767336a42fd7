/* reg-keyfile.c: reading the values of key files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "reg-keyfile-private.h"
#include "reg-message-private.h"

/* The value of @key as GKeyFile holds it, escapes and all, or NULL when
 * the key is missing.  g_key_file_has_key() first: a missing key costs
 * g_key_file_get_value() the translation of its error message even when
 * no error is asked for, which made a fifth of discovery's time. */
static gboolean
get_raw_value (GKeyFile    *keyfile,
               const char  *group,
               const char  *key,
               char       **raw,
               GError     **error)
{
  *raw = NULL;
  if (!g_key_file_has_key (keyfile, group, key, NULL))
    return TRUE;

  *raw = g_key_file_get_value (keyfile, group, key, NULL);
  for (const char *p = *raw; p != NULL && *p != '\0'; p++)
    {
      if (*p != '\\')
        continue;

      /* The escapes GKeyFile knows: \s \n \t \r \\ and, in lists, \; */
      p++;
      if (*p == '\0' || strchr ("sntr\\;", *p) == NULL)
        {
          g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                       "[%s] %s: %s", group, key,
                       *p == '\0' ? "a backslash ends the value" : "invalid escape sequence");
          g_clear_pointer (raw, g_free);
          return FALSE;
        }
    }

  return TRUE;
}

gboolean
_reg_keyfile_get_string (GKeyFile    *keyfile,
                         const char  *group,
                         const char  *key,
                         char       **value,
                         GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  if (!get_raw_value (keyfile, group, key, value, error))
    return FALSE;

  /* Without a backslash the raw value is the string already. */
  if (*value == NULL || strchr (*value, '\\') == NULL)
    return TRUE;

  g_free (*value);
  *value = g_key_file_get_string (keyfile, group, key, &local_error);
  if (*value == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "[%s] %s: ", group, key);
      return FALSE;
    }

  return TRUE;
}

gboolean
_reg_keyfile_get_string_list (GKeyFile     *keyfile,
                              const char   *group,
                              const char   *key,
                              char       ***value,
                              GError      **error)
{
  g_autofree char *raw = NULL;
  g_autoptr(GError) local_error = NULL;

  *value = NULL;
  if (!get_raw_value (keyfile, group, key, &raw, error))
    return FALSE;
  if (raw == NULL)
    return TRUE;
  if (raw[0] == '\0')
    {
      *value = g_new0 (char *, 1);
      return TRUE;
    }

  *value = g_key_file_get_string_list (keyfile, group, key, NULL, &local_error);
  if (*value == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "[%s] %s: ", group, key);
      return FALSE;
    }

  return TRUE;
}

gboolean
_reg_keyfile_get_boolean (GKeyFile    *keyfile,
                          const char  *group,
                          const char  *key,
                          gboolean    *value,
                          GError     **error)
{
  g_autofree char *raw = NULL;
  g_autofree char *shown = NULL;
  g_autoptr(GError) local_error = NULL;
  gboolean parsed;

  if (!get_raw_value (keyfile, group, key, &raw, error))
    return FALSE;
  if (raw == NULL)
    return TRUE;

  parsed = g_key_file_get_boolean (keyfile, group, key, &local_error);
  if (local_error == NULL)
    {
      *value = parsed;
      return TRUE;
    }

  shown = _reg_quote_for_message (raw, -1);
  g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
               "[%s] %s: %s is not a boolean (true or false is expected)", group, key, shown);
  return FALSE;
}
