/* reg-manifest.c: `.backend` manifests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The format's reference is "Writing a module" in the documentation
 * (docs/writing-a-module.md, and for Loader=python and gjs, with the keys
 * their loaders read, docs/writing-a-backend-in-python-or-javascript.md):
 * a [Reg Module] group, one [Backend NAME] group per backend and one
 * [Option NAME KEY] group per option a backend lists in Options=.  Every
 * value goes through the checks of _reg_option_new_full() and of
 * check_text() below.
 */

#include <string.h>

#include "reg-file-private.h"
#include "reg-keyfile-private.h"
#include "reg-language-loader-private.h"
#include "reg-manifest-private.h"
#include "reg-message-private.h"
#include "reg-module-private.h"
#include "reg-name-private.h"
#include "reg-option-private.h"
#include "reg-version.h"

#define MODULE_GROUP "Reg Module"
#define BACKEND_GROUP_PREFIX "Backend "
#define OPTION_GROUP_PREFIX "Option "

/* What to do about a manifest that was skipped, by what was wrong (the
 * loader gives its own for its keys). */
#define HINT_FILE "Make it a readable regular file, or remove it."
#define HINT_SYNTAX "Fix the manifest (its format is in \"Writing a module\" of the libreg documentation)."
#define HINT_ABI "Rebuild the module against this libreg and set AbiVersion=" \
  G_STRINGIFY (REG_MODULE_ABI_VERSION) " in the manifest."

G_DEFINE_QUARK (reg-manifest-error-quark, _reg_manifest_error)

RegManifest *
_reg_manifest_ref (RegManifest *manifest)
{
  g_atomic_int_inc (&manifest->ref_count);
  return manifest;
}

void
_reg_manifest_unref (RegManifest *manifest)
{
  if (manifest == NULL || !g_atomic_int_dec_and_test (&manifest->ref_count))
    return;

  for (guint i = 0; i < manifest->n_backends; i++)
    g_clear_pointer (&manifest->backends[i].details, _reg_backend_details_unref);
  g_ref_string_release ((char *) manifest->dir);
  g_free (manifest);
}

char *
_reg_manifest_dup_path (const RegManifest *manifest)
{
  return g_build_filename (manifest->dir, manifest->file, NULL);
}

char *
_reg_manifest_dup_source_path (const RegManifest *manifest)
{
  if (manifest->loader->locate == NULL)
    return _reg_manifest_dup_path (manifest);

  return manifest->loader->locate (manifest->dir, manifest->source);
}

int
_reg_manifest_find_backend (const RegManifest *manifest,
                            const char        *name)
{
  for (guint i = 0; i < manifest->n_backends; i++)
    if (strcmp (manifest->backends[i].name, name) == 0)
      return (int) i;

  return -1;
}

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
  g_strfreev (details->operators);
  g_free (details->website);
  g_free (details->license);
  g_free (details);
}

/* @value, the value of @key, is at most @max_len bytes of visible text. */
static gboolean
check_text (const char  *value,
            const char  *key,
            gsize        max_len,
            GError     **error)
{
  gsize length = strlen (value);
  g_autofree char *invisible = length <= max_len ? _reg_find_invisible (value) : NULL;

  if (length > max_len)
    g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                 "%s: %" G_GSIZE_FORMAT " bytes, at most %" G_GSIZE_FORMAT " are allowed",
                 key, length, max_len);
  else if (invisible != NULL)
    g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                 "%s: %s is not visible text", key, invisible);

  return length <= max_len && invisible == NULL;
}

static gboolean
check_website (const char  *website,
               GError     **error)
{
  if (!check_text (website, "Website", REG_BACKEND_WEBSITE_MAX, error))
    return FALSE;

  if (!g_uri_is_valid (website, G_URI_FLAGS_NONE, NULL) ||
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

/* Reads one value of an [Option] group as the option's type. */
static gboolean
parse_value_key (RegKeyGroup  *group,
                 const char   *key,
                 const char   *type_string,
                 GVariant    **value,
                 GError      **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) local_error = NULL;

  *value = NULL;
  if (!_reg_key_group_get_string (group, key, &text, error))
    return FALSE;
  if (text == NULL)
    return TRUE;

  *value = _reg_option_parse_text (type_string, text, &local_error);
  if (*value == NULL)
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                   "[%s] %s: %s", group->name, key, local_error->message);
      return FALSE;
    }

  return TRUE;
}

static RegOption *
parse_option (RegKeyFile  *keyfile,
              const char  *backend,
              const char  *name,
              GError     **error)
{
  g_autofree char *group_name = g_strconcat (OPTION_GROUP_PREFIX, backend, " ", name, NULL);
  RegKeyGroup group;
  g_autofree char *type_string = NULL;
  g_autofree char *description = NULL;
  g_auto(GStrv) choices = NULL;
  g_autoptr(GVariant) default_value = NULL;
  g_autoptr(GVariant) minimum = NULL;
  g_autoptr(GVariant) maximum = NULL;
  g_autoptr(GError) local_error = NULL;
  RegOption *option;

  if (!_reg_key_file_has_group (keyfile, group_name))
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_MISSING,
                   "[Backend %s] Options: lists '%s', but there is no [%s] group",
                   backend, name, group_name);
      return NULL;
    }

  _reg_key_group_init (&group, keyfile, group_name);
  if (!_reg_key_group_get_string (&group, "Type", &type_string, error))
    return NULL;
  if (type_string == NULL)
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_MISSING,
                   "[%s] has no Type=", group_name);
      return NULL;
    }

  /* The type first: the values are read by it. */
  option = _reg_option_new_full (name, type_string, NULL, NULL, NULL, NULL, NULL, &local_error);
  g_clear_object (&option);
  if (local_error == NULL &&
      (!parse_value_key (&group, "Default", type_string, &default_value, error) ||
       !parse_value_key (&group, "Minimum", type_string, &minimum, error) ||
       !parse_value_key (&group, "Maximum", type_string, &maximum, error) ||
       !_reg_key_group_get_string_list (&group, "Choices", &choices, error) ||
       !_reg_key_group_get_string (&group, "Description", &description, error)))
    return NULL;

  if (local_error == NULL)
    option = _reg_option_new_full (name, type_string, default_value, description, minimum,
                                   maximum, (const char * const *) choices, &local_error);
  if (option == NULL)
    g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                 "[%s] %s", group_name, local_error->message);

  return option;
}

/* An empty value is one not given. */
static void
clear_if_empty (char **value)
{
  if (*value != NULL && **value == '\0')
    g_clear_pointer (value, g_free);
}

/* Operators=: operator names, each once. */
static gboolean
check_operators (char   **names,
                 GError **error)
{
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *shown = _reg_quote_for_message (names[i], -1);
      const char *problem = NULL;

      if (!reg_op_from_name (names[i], NULL))
        problem = "is not an operator libreg knows";
      for (guint j = 0; j < i && problem == NULL; j++)
        if (g_str_equal (names[i], names[j]))
          problem = "is listed twice";
      if (problem != NULL)
        {
          g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                       "Operators: %s %s", shown, problem);
          return FALSE;
        }
    }

  return TRUE;
}

/* Version=, Authors=, Website=, License=, Shareable=, Operators= and
 * Options= with the [Option BACKEND KEY] groups it names; @details is NULL
 * when the group gives none of them. */
static gboolean
parse_details (RegKeyGroup        *group,
               const char         *backend,
               RegBackendDetails **details,
               GError            **error)
{
  g_autoptr(RegBackendDetails) made = g_new0 (RegBackendDetails, 1);
  g_autoptr(GPtrArray) options = NULL;
  g_autoptr(GError) local_error = NULL;
  g_auto(GStrv) names = NULL;
  const char *repeated;
  gboolean shareable = FALSE;
  guint n;

  made->ref_count = 1;
  *details = NULL;
  if (!_reg_key_group_get_string (group, "Version", &made->version, error) ||
      !_reg_key_group_get_string_list (group, "Authors", &made->authors, error) ||
      !_reg_key_group_get_string (group, "Website", &made->website, error) ||
      !_reg_key_group_get_string (group, "License", &made->license, error) ||
      !_reg_key_group_get_boolean (group, "Shareable", &shareable, error) ||
      !_reg_key_group_get_string_list (group, "Operators", &made->operators, error) ||
      !_reg_key_group_get_string_list (group, "Options", &names, error))
    return FALSE;
  clear_if_empty (&made->version);
  clear_if_empty (&made->website);
  clear_if_empty (&made->license);
  if (made->authors != NULL && made->authors[0] == NULL)
    g_clear_pointer (&made->authors, g_strfreev);
  made->compiler_flags = shareable ? REG_COMPILER_FLAGS_SHAREABLE : REG_COMPILER_FLAGS_NONE;
  if (made->operators != NULL && !check_operators (made->operators, &local_error))
    goto failed;

  /* The list first, then the groups it names. */
  n = names != NULL ? g_strv_length (names) : 0;
  if (n > REG_OPTION_MAX_OPTIONS)
    g_set_error (&local_error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                 "%u of them, at most %d are allowed", n, REG_OPTION_MAX_OPTIONS);
  for (guint i = 0; i < n && local_error == NULL; i++)
    _reg_name_validate (names[i], "option name", &local_error);
  repeated = local_error == NULL ? _reg_option_find_repeated ((const char * const *) names, n) : NULL;
  if (repeated != NULL)
    g_set_error (&local_error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                 "'%s' is listed twice", repeated);
  if (local_error != NULL)
    {
      g_prefix_error (&local_error, "Options: ");
      goto failed;
    }

  if (names != NULL)
    {
      options = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = 0; i < n; i++)
        {
          RegOption *option = parse_option (group->keyfile, backend, names[i], error);

          if (option == NULL)
            return FALSE;
          g_ptr_array_add (options, option);
        }
      made->options = _reg_option_list_new (g_steal_pointer (&options));
    }

  if ((made->version != NULL && !check_text (made->version, "Version", REG_BACKEND_VERSION_MAX, &local_error)) ||
      (made->authors != NULL && !check_authors (made->authors, &local_error)) ||
      (made->website != NULL && !check_website (made->website, &local_error)) ||
      (made->license != NULL && !check_license (made->license, &local_error)))
    goto failed;

  if (made->version != NULL || made->authors != NULL || made->website != NULL ||
      made->license != NULL || made->options != NULL || made->compiler_flags != 0 ||
      made->operators != NULL)
    *details = g_steal_pointer (&made);
  return TRUE;

failed:
  g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "[%s] ", group->name);
  return FALSE;
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
  if (a == b || a == NULL || b == NULL)
    return a == b;

  return g_strcmp0 (a->version, b->version) == 0 &&
         strv_equal (a->authors, b->authors) &&
         g_strcmp0 (a->website, b->website) == 0 &&
         g_strcmp0 (a->license, b->license) == 0 &&
         a->compiler_flags == b->compiler_flags &&
         strv_equal (a->operators, b->operators) &&
         _reg_option_list_equal (a->options, b->options);
}

/* A backend as parse_backend() read it, before it goes into the block. */
typedef struct
{
  char              *name;
  char             **tags;
  char              *description;
  char              *entry;
  RegBackendDetails *details;
} Parsed;

static void
parsed_clear (Parsed *parsed)
{
  g_free (parsed->name);
  g_strfreev (parsed->tags);
  g_free (parsed->description);
  g_free (parsed->entry);
  g_clear_pointer (&parsed->details, _reg_backend_details_unref);
}

/* Every [Option BACKEND KEY] group belongs to an option that a backend of
 * the manifest lists in Options=: a stray group is a typo worth reporting. */
static gboolean
check_option_groups (const char * const  *groups,
                     const Parsed        *parsed,
                     guint                n_parsed,
                     GError             **error)
{
  for (guint i = 0; groups[i] != NULL; i++)
    {
      const char *rest, *space;
      g_autofree char *backend = NULL;
      gboolean listed = FALSE;

      if (strncmp (groups[i], OPTION_GROUP_PREFIX, strlen (OPTION_GROUP_PREFIX)) != 0)
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
      for (guint j = 0; j < n_parsed && !listed; j++)
        {
          const Parsed *p = &parsed[j];

          listed = g_str_equal (p->name, backend) && p->details != NULL &&
                   p->details->options != NULL &&
                   _reg_option_list_lookup (p->details->options, space + 1) != NULL;
        }

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

static char *
copy_string (char       **cursor,
             const char  *string)
{
  gsize size = strlen (string) + 1;
  char *copy = memcpy (*cursor, string, size);

  *cursor += size;
  return copy;
}

/* Makes the manifest @file of @dir (a GRefString), taking the details of
 * @parsed over.  The sizes summed here are bounded by the file's (at most
 * REG_MANIFEST_MAX_SIZE): no overflow is possible. */
static RegManifest *
manifest_new (const char      *dir,
              const char      *file,
              const RegLoader *loader,
              const char      *source,
              Parsed          *parsed,
              guint            n_parsed)
{
  gsize n_pointers = 0, strings = strlen (file) + 1 + strlen (source) + 1;
  RegManifest *manifest;
  const char **pointers;
  char *cursor;

  for (guint i = 0; i < n_parsed; i++)
    {
      const Parsed *p = &parsed[i];

      strings += strlen (p->name) + 1;
      strings += p->description != NULL ? strlen (p->description) + 1 : 0;
      strings += p->entry != NULL ? strlen (p->entry) + 1 : 0;
      for (guint j = 0; p->tags[j] != NULL; j++)
        strings += strlen (p->tags[j]) + 1;
      n_pointers += g_strv_length (p->tags) + 1;
    }

  manifest = g_malloc (sizeof (RegManifest) + n_parsed * sizeof (RegManifestBackend) +
                       n_pointers * sizeof (char *) + strings);
  pointers = (const char **) (gpointer) &manifest->backends[n_parsed];
  cursor = (char *) (pointers + n_pointers);

  manifest->ref_count = 1;
  manifest->n_backends = n_parsed;
  manifest->dir = g_ref_string_acquire ((char *) dir);
  manifest->file = copy_string (&cursor, file);
  manifest->loader = loader;
  manifest->source = copy_string (&cursor, source);

  for (guint i = 0; i < n_parsed; i++)
    {
      Parsed *p = &parsed[i];
      RegManifestBackend *backend = &manifest->backends[i];

      backend->name = copy_string (&cursor, p->name);
      backend->description = p->description != NULL ? copy_string (&cursor, p->description) : NULL;
      backend->entry = p->entry != NULL ? copy_string (&cursor, p->entry) : NULL;
      backend->details = g_steal_pointer (&p->details);
      backend->tags = pointers;
      for (guint j = 0; p->tags[j] != NULL; j++)
        *pointers++ = copy_string (&cursor, p->tags[j]);
      *pointers++ = NULL;
    }

  return manifest;
}

static gboolean
parse_backend (RegKeyFile       *keyfile,
               const char       *group_name,
               const RegLoader  *loader,
               Parsed           *parsed,
               GError          **error)
{
  const char *name = group_name + strlen (BACKEND_GROUP_PREFIX);
  RegKeyGroup group;
  g_auto(GStrv) tags = NULL;
  g_autoptr(GError) local_error = NULL;

  if (!_reg_name_validate (name, "backend name", error))
    return FALSE;

  _reg_key_group_init (&group, keyfile, group_name);
  if (!_reg_key_group_get_string_list (&group, "Tags", &tags, error) ||
      !_reg_key_group_get_string (&group, "Description", &parsed->description, error) ||
      !parse_details (&group, name, &parsed->details, error))
    return FALSE;

  if (loader->entry_key != NULL)
    {
      if (!_reg_key_group_get_string (&group, loader->entry_key, &parsed->entry, error))
        return FALSE;
      if (parsed->entry == NULL || parsed->entry[0] == '\0')
        {
          g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_MISSING,
                       "[%s] has no %s= (Loader=%s needs it)", group_name, loader->entry_key,
                       loader->name);
          return FALSE;
        }
      if (loader->check_entry != NULL && !loader->check_entry (parsed->entry, &local_error))
        {
          g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                       "[%s] %s=%s: %s", group_name, loader->entry_key, parsed->entry,
                       local_error->message);
          return FALSE;
        }
    }

  /* A missing or empty Tags= is no tag. */
  parsed->tags = _reg_tags_normalize ((const char * const *) tags, &local_error);
  if (parsed->tags == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "[%s] Tags: ", group_name);
      return FALSE;
    }
  parsed->name = g_strdup (name);

  return TRUE;
}

/* The loaders this libreg has (reg-loader-private.h), by their Loader=.
 * Python and JavaScript are known whether or not their loader modules
 * were built: a manifest of theirs is listed, and its lookup says what is
 * missing. */
static const RegLoader * const loaders[] = {
  &_reg_module_loader,
  &_reg_python_loader,
  &_reg_gjs_loader,
};

static const RegLoader *
find_loader (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (loaders); i++)
    if (strcmp (loaders[i]->name, name) == 0)
      return loaders[i];

  return NULL;
}

/* [Reg Module]: the ABI, the loader and what it loads.  On failure
 * *@hint says what to do. */
static gboolean
parse_module_group (RegKeyFile       *keyfile,
                    const RegLoader **loader,
                    char            **source,
                    const char      **hint,
                    GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *loader_name = NULL;
  gint64 abi_version;
  RegKeyGroup group;

  if (!_reg_key_file_has_group (keyfile, MODULE_GROUP))
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_MISSING,
                   "no [" MODULE_GROUP "] group");
      return FALSE;
    }

  *hint = HINT_ABI;
  _reg_key_group_init (&group, keyfile, MODULE_GROUP);
  if (_reg_key_group_get_value (&group, "AbiVersion") == NULL)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                   "AbiVersion: missing (the module ABI the module was built for)");
      return FALSE;
    }
  if (!_reg_key_group_get_int64 (&group, "AbiVersion", &abi_version, error))
    return FALSE;
  if (abi_version != REG_MODULE_ABI_VERSION)
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                   "AbiVersion=%" G_GINT64_FORMAT " is not supported, this libreg supports %d",
                   abi_version, REG_MODULE_ABI_VERSION);
      return FALSE;
    }

  *hint = HINT_SYNTAX;
  if (!_reg_key_group_get_string (&group, "Loader", &loader_name, error))
    return FALSE;
  *loader = find_loader (loader_name != NULL ? loader_name : "c");
  if (*loader == NULL)
    {
      g_autofree char *shown = _reg_quote_for_message (loader_name, -1);
      g_autoptr(GString) names = g_string_new (NULL);

      for (gsize i = 0; i < G_N_ELEMENTS (loaders); i++)
        g_string_append_printf (names, "%s%s", i > 0 ? ", " : "", loaders[i]->name);
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                   "Loader=%s is not a loader this libreg has (it has: %s)", shown, names->str);
      return FALSE;
    }

  *hint = (*loader)->hint;
  *source = (*loader)->read_source (&group, error);
  return *source != NULL;
}

/* Parses a manifest; on failure *@hint says what to do about it. */
static RegManifest *
parse_manifest (const char  *dir,
                const char  *file,
                const char  *data,
                gsize        length,
                const char **hint,
                GError     **error)
{
  g_autoptr(RegKeyFile) keyfile = NULL;
  g_autofree Parsed *parsed = NULL;
  g_autofree char *source = NULL;
  g_autoptr(GError) local_error = NULL;
  const RegLoader *loader = NULL;
  RegManifest *manifest = NULL;
  const char * const *groups;
  guint n_groups, n_parsed = 0;
  const char *end;

  /* A text that is not plain is validated whole before anything else:
   * GKeyFile would stop at a NUL byte and quietly drop a value that is not
   * UTF-8 where no error is asked for.  A plain text is ASCII without NUL
   * bytes, which manifests are but for a few descriptions; so is the empty
   * text, whose @data may be NULL. */
  *hint = HINT_SYNTAX;
  keyfile = _reg_key_file_new (data, length, &local_error);
  if ((keyfile == NULL || !_reg_key_file_is_plain (keyfile)) &&
      !g_utf8_validate_len (data, length, &end))
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_ENCODING,
                   "not a UTF-8 key file: %s at byte %" G_GSIZE_FORMAT,
                   *end == '\0' ? "a NUL byte" : "invalid UTF-8",
                   (gsize) (end - data));
      return NULL;
    }

  if (keyfile == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "not a key file: ");
      return NULL;
    }

  if (!parse_module_group (keyfile, &loader, &source, hint, error))
    return NULL;

  *hint = HINT_SYNTAX;
  groups = _reg_key_file_get_groups (keyfile);
  n_groups = g_strv_length ((char **) groups);
  parsed = g_new0 (Parsed, n_groups);
  for (guint i = 0; i < n_groups; i++)
    {
      if (strncmp (groups[i], BACKEND_GROUP_PREFIX, strlen (BACKEND_GROUP_PREFIX)) != 0)
        continue;
      if (!parse_backend (keyfile, groups[i], loader, &parsed[n_parsed], error))
        goto out;
      n_parsed++;
    }

  if (n_parsed == 0)
    g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_MISSING,
                 "declares no backend (no [" BACKEND_GROUP_PREFIX "NAME] group)");
  else if (check_option_groups (groups, parsed, n_parsed, error))
    manifest = manifest_new (dir, file, loader, source, parsed, n_parsed);

out:
  /* Up to the one that failed, if one did. */
  for (guint i = 0; i < MIN (n_parsed + 1, n_groups); i++)
    parsed_clear (&parsed[i]);

  return manifest;
}

static RegManifest *
parse_with_hint (const char  *dir,
                 const char  *file,
                 const char  *data,
                 gsize        length,
                 const char **hint,
                 GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  RegManifest *manifest = parse_manifest (dir, file, data, length, hint, &local_error);

  /* A reason may quote the file's text (GKeyFile quotes the line it
   * stopped at, our checks the value): escaped and cut, so that a
   * manifest cannot put megabytes or terminal escapes into a warning.
   * GKeyFile's domain stays for the key file syntax, the manifest's is
   * for everything else, the errors of the checks it shares with others
   * (GKeyFile's loading and getters, the loaders', the naming rules)
   * included. */
  if (manifest == NULL)
    {
      g_autofree char *reason = _reg_text_for_message (local_error->message, -1, 300);
      GQuark domain = REG_MANIFEST_ERROR;
      int code = REG_MANIFEST_ERROR_INVALID;

      if (g_error_matches (local_error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE) ||
          local_error->domain == REG_MANIFEST_ERROR)
        {
          domain = local_error->domain;
          code = local_error->code;
        }
      else if (g_error_matches (local_error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND) ||
               g_error_matches (local_error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND))
        code = REG_MANIFEST_ERROR_MISSING;
      else if (g_error_matches (local_error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_UNKNOWN_ENCODING))
        code = REG_MANIFEST_ERROR_ENCODING;
      g_set_error_literal (error, domain, code, reason);
    }

  return manifest;
}

RegManifest *
_reg_manifest_parse (const char  *path,
                     const char  *data,
                     gsize        length,
                     GError     **error)
{
  g_autofree char *dirname = g_path_get_dirname (path);
  char *dir = g_ref_string_new_intern (dirname);
  const char *slash = strrchr (path, '/');
  const char *hint;
  RegManifest *manifest;

  manifest = parse_with_hint (dir, slash != NULL ? slash + 1 : path, data, length, &hint, error);
  g_ref_string_release (dir);
  return manifest;
}

/* A special file is refused unread (a FIFO would block discovery, a
 * device never end), and so is one over REG_MANIFEST_MAX_SIZE. */
static GBytes *
read_manifest (const char  *path,
               GError     **error)
{
  return _reg_file_read (path, REG_MANIFEST_MAX_SIZE, "a manifest", NULL, error);
}

RegManifest *
_reg_manifest_load (const char  *path,
                    GError     **error)
{
  g_autoptr(GBytes) contents = read_manifest (path, error);

  if (contents == NULL)
    return NULL;

  return _reg_manifest_parse (path, g_bytes_get_data (contents, NULL),
                              g_bytes_get_size (contents), error);
}

void
_reg_manifest_skip_free (RegManifestSkip *skip)
{
  g_free (skip->path);
  g_free (skip->reason);
  g_strfreev (skip->names);
  g_free (skip);
}

/* The names of the [Backend NAME] group lines of @data, line by line, for
 * a manifest GKeyFile would not read: whatever is wrong elsewhere in it,
 * a lookup of one of these names can then say which manifest was meant.
 * Only names the naming rules accept are kept. */
static char **
find_backend_names (GBytes *contents)
{
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
  const gsize prefix = strlen ("[" BACKEND_GROUP_PREFIX);
  const char *line, *end;
  gsize length;

  if (contents == NULL)
    return g_strv_builder_end (names);

  line = g_bytes_get_data (contents, &length);
  end = line + length;

  while (line < end)
    {
      const char *eol = memchr (line, '\n', end - line);
      const char *stop = eol != NULL ? eol : end;
      const char *p = line;

      while (p < stop && (*p == ' ' || *p == '\t'))
        p++;
      while (stop > p && (stop[-1] == ' ' || stop[-1] == '\t' || stop[-1] == '\r'))
        stop--;

      if ((gsize) (stop - p) > prefix + 1 && memcmp (p, "[" BACKEND_GROUP_PREFIX, prefix) == 0 &&
          stop[-1] == ']')
        {
          g_autofree char *name = g_strndup (p + prefix, stop - 1 - (p + prefix));

          if (strlen (name) == (gsize) (stop - 1 - (p + prefix)) &&
              _reg_name_validate (name, "backend name", NULL))
            g_strv_builder_add (names, name);
        }

      line = eol != NULL ? eol + 1 : end;
    }

  return g_strv_builder_end (names);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

void
_reg_manifest_scan_dir (const char *dir,
                        GPtrArray  *manifests,
                        GPtrArray  *skipped)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) gdir = NULL;
  char *interned;
  const char *name;

  gdir = g_dir_open (dir, 0, &error);
  if (gdir == NULL)
    {
      g_autofree char *shown_dir = _reg_escape (dir);
      g_autofree char *why = _reg_escape (error->message);

      g_debug ("backend directory %s not scanned: %s", shown_dir, why);
      return;
    }

  while ((name = g_dir_read_name (gdir)) != NULL)
    if (g_str_has_suffix (name, ".backend"))
      g_ptr_array_add (names, g_strdup (name));

  /* Byte order, so that which of two manifests in one directory declares a
   * name first does not depend on the file system. */
  g_ptr_array_sort (names, compare_names);

  interned = g_ref_string_new_intern (dir);
  for (guint i = 0; i < names->len; i++)
    {
      const char *file = g_ptr_array_index (names, i);
      g_autofree char *path = g_strconcat (dir, "/", file, NULL);
      g_autoptr(GBytes) contents = NULL;
      g_autoptr(GError) local_error = NULL;
      g_autofree char *shown_path = NULL;
      g_autofree char *escaped = NULL;
      g_autofree char *why = NULL;
      RegManifestSkip *skip;
      RegManifest *manifest = NULL;
      const char *hint = HINT_FILE;

      contents = read_manifest (path, &local_error);
      if (contents != NULL)
        manifest = parse_with_hint (interned, file, g_bytes_get_data (contents, NULL),
                                    g_bytes_get_size (contents), &hint, &local_error);
      if (manifest != NULL)
        {
          g_ptr_array_add (manifests, manifest);
          continue;
        }

      shown_path = _reg_escape (path);
      escaped = _reg_escape (local_error->message);
      why = _reg_message_embed (escaped);
      g_warning ("manifest %s skipped: %s. %s", shown_path, why, hint);

      skip = g_new0 (RegManifestSkip, 1);
      skip->path = g_steal_pointer (&path);
      skip->reason = g_strdup (local_error->message);
      skip->hint = hint;
      skip->names = find_backend_names (contents);
      g_ptr_array_add (skipped, skip);
    }

  g_ref_string_release (interned);
}
