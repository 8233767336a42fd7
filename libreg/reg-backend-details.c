/* reg-backend-details.c: what a manifest says of a backend beyond its name,
 * tags and description: its options, who made it and what its compiler
 * promises
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * In a `[Backend NAME]` group:
 *
 *   Options=threads;fuse     the options, in the order a chooser shows them
 *                            (present and empty: the backend takes none;
 *                            absent: no schema, options go unchecked)
 *   Version=1.2              optional, at most 64 bytes
 *   Authors=A <a@x>;B        optional, at most 32, each at most 256 bytes
 *   Website=https://...      optional, an http or https URI
 *   License=LGPL-2.1-or-later optional, an SPDX expression (printable ASCII)
 *   Shareable=true           optional, a GKeyFile boolean (default false):
 *                            REG_COMPILER_FLAGS_SHAREABLE, which the
 *                            registry ORs with the compiler's own flags
 *
 * and one group per option listed:
 *
 *   [Option NAME threads]
 *   Type=u                   required: a type RegOption allows
 *   Default=1                optional, read as reg_option_parse_value() reads
 *   Minimum=0                optional, numbers only, read likewise
 *   Maximum=256
 *   Choices=fast;small       optional, strings and string lists only
 *   Description=...          optional, one line
 *
 * Every value goes through the checks of _reg_option_new_full() and of
 * check_text() below.
 */

#include <string.h>

#include "reg-backend-details-private.h"
#include "reg-compiler.h"
#include "reg-manifest-private.h"
#include "reg-message-private.h"
#include "reg-name-private.h"
#include "reg-option-private.h"

#define OPTION_GROUP_PREFIX "Option "

/* The reference count uses GLib's inline atomics (g_atomic_int_*), not
 * grefcount's functions: those run inside libglib, where ThreadSanitizer
 * cannot see that the last unref comes after every other thread's use. */
RegBackendDetails *
_reg_backend_details_ref (RegBackendDetails *details)
{
  g_atomic_int_inc (&details->ref_count);
  return details;
}

void
_reg_backend_details_unref (RegBackendDetails *details)
{
  if (!g_atomic_int_dec_and_test (&details->ref_count))
    return;

  g_clear_object (&details->options);
  g_free (details->version);
  g_strfreev (details->authors);
  g_free (details->website);
  g_free (details->license);
  g_free (details);
}

/* @value, the value of @key, is at most @max_len bytes of visible text:
 * no control, format or line-separating character (the whole manifest is
 * UTF-8 already). */
static gboolean
check_text (const char  *value,
            const char  *key,
            gsize        max_len,
            GError     **error)
{
  gsize length = strlen (value);

  if (length > max_len)
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                   "%s: %" G_GSIZE_FORMAT " bytes, at most %" G_GSIZE_FORMAT " are allowed",
                   key, length, max_len);
      return FALSE;
    }
  if (!g_utf8_validate (value, length, NULL))
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                   "%s: not UTF-8", key);
      return FALSE;
    }
  for (const char *p = value; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      GUnicodeType type = g_unichar_type (c);

      if (type == G_UNICODE_CONTROL || type == G_UNICODE_FORMAT ||
          type == G_UNICODE_LINE_SEPARATOR || type == G_UNICODE_PARAGRAPH_SEPARATOR)
        {
          g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                       "%s: U+%04" G_GINT32_MODIFIER "X at byte %" G_GSIZE_FORMAT
                       " is not visible text", key, c, (gsize) (p - value));
          return FALSE;
        }
    }

  return TRUE;
}

static gboolean
check_website (const char  *website,
               GError     **error)
{
  const char *scheme_end;

  if (!check_text (website, "Website", REG_BACKEND_WEBSITE_MAX, error))
    return FALSE;

  scheme_end = strchr (website, ':');
  if (!g_uri_is_valid (website, G_URI_FLAGS_NONE, NULL) || scheme_end == NULL ||
      !(g_ascii_strncasecmp (website, "http:", 5) == 0 ||
        g_ascii_strncasecmp (website, "https:", 6) == 0))
    {
      g_autofree char *shown = _reg_text_for_message (website, -1, 80);

      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                   "Website=%s is not an http or https URI", shown);
      return FALSE;
    }

  return TRUE;
}

/* SPDX expressions are printable ASCII. */
static gboolean
check_license (const char  *license,
               GError     **error)
{
  if (!check_text (license, "License", REG_BACKEND_LICENSE_MAX, error))
    return FALSE;

  for (const char *p = license; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || (guchar) *p > 0x7e)
      {
        g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                     "License: byte %" G_GSIZE_FORMAT " is not printable ASCII "
                     "(an SPDX license expression is expected)", (gsize) (p - license));
        return FALSE;
      }

  return TRUE;
}

static gboolean
check_authors (char   **authors,
               GError **error)
{
  guint n = g_strv_length (authors);

  if (n > REG_BACKEND_AUTHORS_MAX)
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                   "Authors: %u of them, at most %d are allowed", n, REG_BACKEND_AUTHORS_MAX);
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      if (authors[i][0] == '\0')
        {
          g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                       "Authors: author %u is empty", i + 1);
          return FALSE;
        }
      if (!check_text (authors[i], "Authors", REG_BACKEND_AUTHOR_MAX, error))
        return FALSE;
    }

  return TRUE;
}

/* Makes details of what was read, taking the arguments over; checks all
 * but the options (made by _reg_option_new_full() already), whose names
 * must differ.  An empty string or list is "not given", and so are flags
 * of 0.  Sets @details to NULL when nothing is given. */
static gboolean
details_new (char                *version,
             char               **authors,
             char                *website,
             char                *license,
             GPtrArray           *options,
             RegCompilerFlags     compiler_flags,
             RegBackendDetails  **details,
             GError             **error)
{
  g_autofree char *owned_version = version;
  g_auto(GStrv) owned_authors = authors;
  g_autofree char *owned_website = website;
  g_autofree char *owned_license = license;
  RegBackendDetails *made;

  *details = NULL;

  if (version != NULL && version[0] == '\0')
    g_clear_pointer (&owned_version, g_free);
  if (authors != NULL && authors[0] == NULL)
    g_clear_pointer (&owned_authors, g_strfreev);
  if (website != NULL && website[0] == '\0')
    g_clear_pointer (&owned_website, g_free);
  if (license != NULL && license[0] == '\0')
    g_clear_pointer (&owned_license, g_free);

  if ((owned_version != NULL &&
       !check_text (owned_version, "Version", REG_BACKEND_VERSION_MAX, error)) ||
      (owned_authors != NULL && !check_authors (owned_authors, error)) ||
      (owned_website != NULL && !check_website (owned_website, error)) ||
      (owned_license != NULL && !check_license (owned_license, error)))
    return FALSE;

  if ((compiler_flags & ~REG_BACKEND_MANIFEST_FLAGS) != 0)
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                   "compiler flags 0x%x: only 0x%x (Shareable=) can be declared",
                   (guint) compiler_flags, (guint) REG_BACKEND_MANIFEST_FLAGS);
      return FALSE;
    }

  if (options != NULL)
    {
      if (options->len > REG_OPTION_MAX_OPTIONS)
        {
          g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                       "Options: %u of them, at most %d are allowed",
                       options->len, REG_OPTION_MAX_OPTIONS);
          return FALSE;
        }
      for (guint i = 0; i < options->len; i++)
        for (guint j = 0; j < i; j++)
          if (g_str_equal (reg_option_get_name (g_ptr_array_index (options, i)),
                           reg_option_get_name (g_ptr_array_index (options, j))))
            {
              g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                           "Options: '%s' is listed twice",
                           reg_option_get_name (g_ptr_array_index (options, i)));
              return FALSE;
            }
    }

  if (owned_version == NULL && owned_authors == NULL && owned_website == NULL &&
      owned_license == NULL && options == NULL && compiler_flags == 0)
    return TRUE;

  made = g_new0 (RegBackendDetails, 1);
  g_atomic_int_set (&made->ref_count, 1);
  made->version = g_steal_pointer (&owned_version);
  made->authors = g_steal_pointer (&owned_authors);
  made->website = g_steal_pointer (&owned_website);
  made->license = g_steal_pointer (&owned_license);
  made->compiler_flags = compiler_flags;
  if (options != NULL)
    made->options = _reg_option_list_new ((RegOption * const *) options->pdata, options->len);

  *details = made;
  return TRUE;
}

/* Reads one value of an [Option] group as the option's type. */
static gboolean
parse_value_key (GKeyFile     *keyfile,
                 const char   *group,
                 const char   *key,
                 const char   *type_string,
                 GVariant    **value,
                 GError      **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) local_error = NULL;

  *value = NULL;
  if (!_reg_manifest_get_string (keyfile, group, key, &text, error))
    return FALSE;
  if (text == NULL)
    return TRUE;

  *value = _reg_option_parse_text (type_string, text, &local_error);
  if (*value == NULL)
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                   "[%s] %s: %s", group, key, local_error->message);
      return FALSE;
    }

  return TRUE;
}

static RegOption *
parse_option (GKeyFile    *keyfile,
              const char  *backend,
              const char  *name,
              GError     **error)
{
  g_autofree char *group = g_strconcat (OPTION_GROUP_PREFIX, backend, " ", name, NULL);
  g_autofree char *type_string = NULL;
  g_autofree char *description = NULL;
  g_auto(GStrv) choices = NULL;
  g_autoptr(GVariant) default_value = NULL;
  g_autoptr(GVariant) minimum = NULL;
  g_autoptr(GVariant) maximum = NULL;
  g_autoptr(GError) local_error = NULL;
  RegOption *option;

  if (!g_key_file_has_group (keyfile, group))
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_MISSING,
                   "[Backend %s] Options: lists '%s', but there is no [%s] group",
                   backend, name, group);
      return NULL;
    }

  if (!_reg_manifest_get_string (keyfile, group, "Type", &type_string, error))
    return NULL;
  if (type_string == NULL)
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_MISSING,
                   "[%s] has no Type=", group);
      return NULL;
    }

  /* The type first: the values are read by it. */
  option = _reg_option_new_full (name, type_string, NULL, NULL, NULL, NULL, NULL, &local_error);
  if (option == NULL)
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                   "[%s] %s", group, local_error->message);
      return NULL;
    }
  g_object_unref (option);

  if (!parse_value_key (keyfile, group, "Default", type_string, &default_value, error) ||
      !parse_value_key (keyfile, group, "Minimum", type_string, &minimum, error) ||
      !parse_value_key (keyfile, group, "Maximum", type_string, &maximum, error) ||
      !_reg_manifest_get_string_list (keyfile, group, "Choices", &choices, error) ||
      !_reg_manifest_get_string (keyfile, group, "Description", &description, error))
    return NULL;

  option = _reg_option_new_full (name, type_string, default_value, description,
                                 minimum, maximum, (const char * const *) choices, &local_error);
  if (option == NULL)
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                   "[%s] %s", group, local_error->message);
      return NULL;
    }

  return option;
}

/* Shareable=: a GKeyFile boolean, as g_key_file_get_boolean() reads it
 * (true, false, 1 or 0); absent, false. */
static gboolean
parse_shareable (GKeyFile          *keyfile,
                 const char        *group,
                 RegCompilerFlags  *flags,
                 GError           **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *raw = NULL;
  g_autofree char *shown = NULL;
  gboolean shareable;

  if (!g_key_file_has_key (keyfile, group, "Shareable", NULL))
    return TRUE;

  shareable = g_key_file_get_boolean (keyfile, group, "Shareable", &local_error);
  if (local_error == NULL)
    {
      if (shareable)
        *flags |= REG_COMPILER_FLAGS_SHAREABLE;
      return TRUE;
    }

  raw = g_key_file_get_value (keyfile, group, "Shareable", NULL);
  shown = _reg_quote_for_message (raw != NULL ? raw : "", -1);
  g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
               "[%s] Shareable: %s is not a boolean (true or false is expected)",
               group, shown);
  return FALSE;
}

gboolean
_reg_backend_details_parse (GKeyFile           *keyfile,
                            const char         *group,
                            const char         *backend,
                            RegBackendDetails **details,
                            GError            **error)
{
  g_autofree char *version = NULL;
  g_auto(GStrv) authors = NULL;
  g_autofree char *website = NULL;
  g_autofree char *license = NULL;
  g_auto(GStrv) names = NULL;
  g_autoptr(GPtrArray) options = NULL;
  g_autoptr(GError) local_error = NULL;
  RegCompilerFlags compiler_flags = REG_COMPILER_FLAGS_NONE;

  *details = NULL;

  if (!_reg_manifest_get_string (keyfile, group, "Version", &version, error) ||
      !_reg_manifest_get_string_list (keyfile, group, "Authors", &authors, error) ||
      !_reg_manifest_get_string (keyfile, group, "Website", &website, error) ||
      !_reg_manifest_get_string (keyfile, group, "License", &license, error) ||
      !parse_shareable (keyfile, group, &compiler_flags, error) ||
      !_reg_manifest_get_string_list (keyfile, group, "Options", &names, error))
    return FALSE;

  if (names != NULL)
    {
      guint n = g_strv_length (names);

      if (n > REG_OPTION_MAX_OPTIONS)
        {
          g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                       "[%s] Options: %u of them, at most %d are allowed",
                       group, n, REG_OPTION_MAX_OPTIONS);
          return FALSE;
        }

      /* The list first, then the groups it names. */
      for (guint i = 0; i < n; i++)
        if (!_reg_name_validate (names[i], "option name", &local_error))
          {
            g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                         "[%s] Options: %s", group, local_error->message);
            return FALSE;
          }

      options = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = 0; i < n; i++)
        {
          RegOption *option = parse_option (keyfile, backend, names[i], error);

          if (option == NULL)
            return FALSE;
          g_ptr_array_add (options, option);
        }
    }

  if (!details_new (g_steal_pointer (&version), g_steal_pointer (&authors),
                    g_steal_pointer (&website), g_steal_pointer (&license),
                    options, compiler_flags, details, &local_error))
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "[%s] ", group);
      return FALSE;
    }

  return TRUE;
}

gboolean
_reg_backend_details_check_groups (const char * const       *groups,
                                   const char * const       *backends,
                                   RegBackendDetails * const *details,
                                   guint                     n,
                                   GError                  **error)
{
  for (guint i = 0; groups[i] != NULL; i++)
    {
      const char *rest, *space;
      g_autofree char *backend = NULL;
      gboolean listed = FALSE;

      if (!g_str_has_prefix (groups[i], OPTION_GROUP_PREFIX))
        continue;

      rest = groups[i] + strlen (OPTION_GROUP_PREFIX);
      space = strchr (rest, ' ');
      if (space == NULL)
        {
          g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                       "[%s]: an option group is named [" OPTION_GROUP_PREFIX "BACKEND OPTION]",
                       groups[i]);
          return FALSE;
        }

      backend = g_strndup (rest, space - rest);
      for (guint j = 0; j < n && !listed; j++)
        if (g_str_equal (backends[j], backend) && details[j] != NULL &&
            details[j]->options != NULL &&
            _reg_option_list_lookup (details[j]->options, space + 1) != NULL)
          listed = TRUE;

      if (!listed)
        {
          g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                       "[%s]: no [Backend %s] of this manifest lists '%s' in Options=",
                       groups[i], backend, space + 1);
          return FALSE;
        }
    }

  return TRUE;
}

static gboolean
strv_equal (char **a,
            char **b)
{
  if (a == NULL || b == NULL)
    return a == b;

  return g_strv_equal ((const char * const *) a, (const char * const *) b);
}

gboolean
_reg_backend_details_equal (RegBackendDetails *a,
                            RegBackendDetails *b)
{
  if (a == NULL || b == NULL)
    return a == b;

  return g_strcmp0 (a->version, b->version) == 0 &&
         strv_equal (a->authors, b->authors) &&
         g_strcmp0 (a->website, b->website) == 0 &&
         g_strcmp0 (a->license, b->license) == 0 &&
         a->compiler_flags == b->compiler_flags &&
         _reg_option_list_equal (a->options, b->options);
}
