/* fuzz-manifest-check.h: what a manifest that libreg accepted must be
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "fuzz-common.h"

#include "reg-keyfile-private.h"
#include "reg-manifest-private.h"
#include "reg-name-private.h"
#include "reg-option.h"

/* What a manifest says beyond names and tags: each option valid and named
 * once, its default allowed by it; the other fields within their bounds. */
static inline void
fuzz_check_details (const char        *backend,
                    RegBackendDetails *details)
{
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  FUZZ_ASSERT (details->options != NULL || details->version != NULL ||
               details->authors != NULL || details->website != NULL || details->license != NULL ||
               details->compiler_flags != 0,
               "details of '%s' that say nothing", backend);
  FUZZ_ASSERT ((details->compiler_flags & ~REG_BACKEND_MANIFEST_FLAGS) == 0,
               "compiler flags 0x%x of '%s'", (guint) details->compiler_flags, backend);
  FUZZ_ASSERT (details->version == NULL ||
               (details->version[0] != '\0' && strlen (details->version) <= REG_BACKEND_VERSION_MAX),
               "version of '%s'", backend);
  FUZZ_ASSERT (details->authors == NULL ||
               (details->authors[0] != NULL && g_strv_length (details->authors) <= REG_BACKEND_AUTHORS_MAX),
               "authors of '%s'", backend);
  FUZZ_ASSERT (details->website == NULL ||
               g_ascii_strncasecmp (details->website, "http:", 5) == 0 ||
               g_ascii_strncasecmp (details->website, "https:", 6) == 0,
               "website of '%s' is not http", backend);
  FUZZ_ASSERT (details->license == NULL || strlen (details->license) <= REG_BACKEND_LICENSE_MAX,
               "license of '%s'", backend);

  if (details->options == NULL)
    return;

  for (guint i = 0; i < g_list_model_get_n_items (details->options); i++)
    {
      g_autoptr(RegOption) option = g_list_model_get_item (details->options, i);
      GVariant *default_value;

      FUZZ_ASSERT (REG_IS_OPTION (option), "item %u of the options of '%s'", i, backend);
      FUZZ_ASSERT (_reg_name_validate (reg_option_get_name (option), "option name", NULL),
                   "option name '%s' of '%s' breaks the naming rules",
                   reg_option_get_name (option), backend);
      FUZZ_ASSERT (g_hash_table_add (names, (gpointer) reg_option_get_name (option)),
                   "option '%s' of '%s' twice", reg_option_get_name (option), backend);
      default_value = reg_option_get_default_value (option);
      FUZZ_ASSERT (default_value == NULL || reg_option_check_value (option, default_value, NULL),
                   "the default of option '%s' of '%s' is not allowed", reg_option_get_name (option), backend);
    }
}

/* A manifest read from the directory @dir declares backends that follow the rules a registry
 * relies on: it is a `.backend` file of @dir, its module a bare file name
 * in @dir, and its backends (at least one) have valid names, each once,
 * normalized tags and UTF-8 descriptions. */
static inline void
fuzz_check_manifest (const RegManifest *manifest,
                     const char        *dir)
{
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  const char *module = manifest->source;

  FUZZ_ASSERT (strcmp (manifest->dir, dir) == 0, "manifest in %s", manifest->dir);
  FUZZ_ASSERT (strchr (manifest->file, '/') == NULL && g_str_has_suffix (manifest->file, ".backend"),
               "manifest file '%s' is not a bare .backend file name", manifest->file);
  FUZZ_ASSERT (*module != '\0' && strchr (module, '/') == NULL &&
               strcmp (module, ".") != 0 && strcmp (module, "..") != 0,
               "module file '%s' is not a bare file name", module);

  FUZZ_ASSERT (manifest->n_backends > 0, "a manifest without backends");
  for (guint i = 0; i < manifest->n_backends; i++)
    {
      const RegManifestBackend *backend = &manifest->backends[i];
      g_autoptr(GHashTable) tags = g_hash_table_new (g_str_hash, g_str_equal);

      FUZZ_ASSERT (_reg_name_validate (backend->name, "backend name", NULL),
                   "declared backend name '%s' breaks the naming rules", backend->name);
      FUZZ_ASSERT (g_hash_table_add (names, (gpointer) backend->name), "'%s' declared twice", backend->name);
      FUZZ_ASSERT (backend->tags != NULL, "'%s' without a tag array", backend->name);
      for (guint j = 0; backend->tags[j] != NULL; j++)
        {
          FUZZ_ASSERT (_reg_name_validate (backend->tags[j], "tag", NULL),
                       "tag '%s' of '%s' breaks the naming rules", backend->tags[j], backend->name);
          FUZZ_ASSERT (g_hash_table_add (tags, (gpointer) backend->tags[j]), "tag '%s' twice", backend->tags[j]);
        }
      FUZZ_ASSERT (backend->description == NULL ||
                   g_utf8_validate (backend->description, -1, NULL),
                   "description of '%s' is not UTF-8", backend->name);
      if (backend->details != NULL)
        fuzz_check_details (backend->name, backend->details);
    }
}

/* The manifest reader finds the values of a key file where GKeyFile would
 * (reg-keyfile.c): it accepts what GKeyFile accepts, lists the same
 * groups in the same order, and gives every key of a group (but those
 * with a locale, which nothing asks for) the raw value
 * g_key_file_get_value() gives. */
static inline void
fuzz_check_key_file (const char *text,
                     gsize       size)
{
  g_autoptr(GKeyFile) reference = g_key_file_new ();
  g_autoptr(RegKeyFile) ours = _reg_key_file_new (text, size, NULL);
  g_auto(GStrv) groups = NULL;
  const char * const *our_groups;
  gboolean accepted = g_key_file_load_from_data (reference, text, size, G_KEY_FILE_NONE, NULL);

  FUZZ_ASSERT ((ours != NULL) == accepted, "GKeyFile %s it, the reader does not",
               accepted ? "accepts" : "refuses");
  if (!accepted)
    return;

  groups = g_key_file_get_groups (reference, NULL);
  our_groups = _reg_key_file_get_groups (ours);
  for (guint i = 0; groups[i] != NULL || our_groups[i] != NULL; i++)
    {
      g_auto(GStrv) keys = NULL;
      RegKeyGroup group;

      FUZZ_ASSERT (g_strcmp0 (groups[i], our_groups[i]) == 0, "group %u: '%s', not '%s'",
                   i, our_groups[i], groups[i]);
      FUZZ_ASSERT (_reg_key_file_has_group (ours, groups[i]), "no group '%s'", groups[i]);

      _reg_key_group_init (&group, ours, groups[i]);
      keys = g_key_file_get_keys (reference, groups[i], NULL, NULL);
      for (guint j = 0; keys[j] != NULL; j++)
        {
          g_autofree char *value = g_key_file_get_value (reference, groups[i], keys[j], NULL);

          if (strchr (keys[j], '[') != NULL)
            continue;
          FUZZ_ASSERT (g_strcmp0 (_reg_key_group_get_value (&group, keys[j]), value) == 0,
                       "[%s] %s: '%s', not '%s'", groups[i], keys[j],
                       _reg_key_group_get_value (&group, keys[j]), value);
        }
    }
}
