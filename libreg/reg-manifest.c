/* reg-manifest.c: `.backend` manifests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "reg-file-private.h"
#include "reg-manifest-private.h"
#include "reg-message-private.h"
#include "reg-version.h"
#include "reg-name-private.h"

#define MODULE_GROUP "Reg Module"
#define BACKEND_GROUP_PREFIX "Backend "

/* What to do about a manifest that was skipped, by what was wrong. */
#define HINT_FILE "Make it a readable regular file, or remove it."
#define HINT_SYNTAX "Fix the manifest (its format is in \"Writing a module\" of the libreg documentation)."
#define HINT_ABI "Rebuild the module against this libreg and set AbiVersion=" \
  G_STRINGIFY (REG_MODULE_ABI_VERSION) " in the manifest."
#define HINT_MODULE "Fix Module= in the manifest: it names the module file, in the manifest's own directory."

G_DEFINE_QUARK (reg-manifest-error-quark, _reg_manifest_error)

void
_reg_manifest_free (RegManifest *manifest)
{
  if (manifest == NULL)
    return;

  for (guint i = 0; i < manifest->n_backends; i++)
    {
      g_free (manifest->backends[i].name);
      g_strfreev (manifest->backends[i].tags);
      g_free (manifest->backends[i].description);
      g_clear_pointer (&manifest->backends[i].details, _reg_backend_details_unref);
    }
  g_free (manifest->backends);
  g_free (manifest->path);
  g_free (manifest->module_path);
  g_free (manifest);
}

/* Module= must name a file in the manifest's own directory: a manifest may
 * not make libreg open a library elsewhere on the system. */
static gboolean
check_module_name (const char  *module,
                   GError     **error)
{
  if (module[0] == '\0')
    g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                 "Module= is empty");
  else if (strchr (module, '/') != NULL)
    g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                 "Module=%s is not a bare file name (it holds a '/')", module);
  else if (g_str_equal (module, ".") || g_str_equal (module, ".."))
    g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                 "Module=%s is not a file name", module);
  else
    return TRUE;

  return FALSE;
}

/* Gets the value of @key of @group as GKeyFile holds it, escapes and all
 * (NULL when the key is missing), after checking its escape sequences:
 * GLib 2.74 sets its GError twice (a warning, fatal in test programs) when
 * it unescapes an invalid escape followed by a backslash at the end of the
 * value.  The escapes GKeyFile knows are \s \n \t \r \\ and, in lists, \; */
static gboolean
get_raw_value (GKeyFile    *keyfile,
               const char  *group,
               const char  *key,
               char       **raw,
               GError     **error)
{
  *raw = g_key_file_get_value (keyfile, group, key, NULL);

  for (const char *p = *raw; p != NULL && *p != '\0'; p++)
    {
      if (*p != '\\')
        continue;

      p++;
      if (*p == '\0' || strchr ("sntr\\;", *p) == NULL)
        {
          g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                       "[%s] %s: %s", group, key,
                       *p == '\0' ? "a backslash ends the value"
                                  : "invalid escape sequence");
          g_clear_pointer (raw, g_free);
          return FALSE;
        }
    }

  return TRUE;
}

/* The string value of @key of @group, from its @raw value (taken over):
 * without a backslash it is already what g_key_file_get_string() would
 * return (that also checks UTF-8, which parse_manifest() has checked of
 * the whole text), so only a value with escapes is looked up again.  NULL
 * with GKeyFile's error when the key is missing. */
static char *
get_string (GKeyFile    *keyfile,
            const char  *group,
            const char  *key,
            char        *raw,
            GError     **error)
{
  if (raw != NULL && strchr (raw, '\\') == NULL)
    return raw;

  g_free (raw);
  return g_key_file_get_string (keyfile, group, key, error);
}

static gboolean
parse_backend (GKeyFile            *keyfile,
               const char          *group,
               RegManifestBackend  *backend,
               GError             **error)
{
  const char *name = group + strlen (BACKEND_GROUP_PREFIX);
  g_autofree char *raw_tags = NULL;
  g_autofree char *raw_description = NULL;
  g_auto(GStrv) tags = NULL;
  g_autoptr(RegBackendDetails) details = NULL;
  g_autoptr(GError) local_error = NULL;

  if (!_reg_name_validate (name, "backend name", error))
    return FALSE;

  if (!get_raw_value (keyfile, group, "Tags", &raw_tags, error) ||
      !get_raw_value (keyfile, group, "Description", &raw_description, error))
    return FALSE;

  if (!_reg_backend_details_parse (keyfile, group, name, &details, error))
    return FALSE;

  /* A missing or empty Tags= is no tag. */
  if (raw_tags != NULL && raw_tags[0] != '\0')
    {
      tags = g_key_file_get_string_list (keyfile, group, "Tags", NULL, &local_error);
      if (local_error != NULL)
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                      "[%s] Tags: ", group);
          return FALSE;
        }
    }

  backend->tags = _reg_tags_normalize ((const char * const *) tags, &local_error);
  if (backend->tags == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  "[%s] Tags: ", group);
      return FALSE;
    }

  /* Optional: no error when it is missing. */
  backend->description = get_string (keyfile, group, "Description",
                                     g_steal_pointer (&raw_description), NULL);
  backend->name = g_strdup (name);
  backend->details = g_steal_pointer (&details);

  return TRUE;
}

/* Every [Option BACKEND KEY] group belongs to an option a backend of the
 * manifest lists. */
static gboolean
check_option_groups (const RegManifest   *manifest,
                     const char * const  *groups,
                     GError             **error)
{
  g_autofree const char **names = g_new0 (const char *, manifest->n_backends + 1);
  g_autofree RegBackendDetails **details = g_new0 (RegBackendDetails *, manifest->n_backends + 1);

  for (guint i = 0; i < manifest->n_backends; i++)
    {
      names[i] = manifest->backends[i].name;
      details[i] = manifest->backends[i].details;
    }

  return _reg_backend_details_check_groups (groups, names, details, manifest->n_backends, error);
}

/* Parses a manifest; on failure *@hint says what to do about it. */
static RegManifest *
parse_manifest (const char  *path,
                const char  *data,
                gsize        length,
                const char **hint,
                GError     **error)
{
  g_autoptr(GKeyFile) keyfile = g_key_file_new ();
  g_autoptr(RegManifest) manifest = NULL;
  g_autofree char *module = NULL;
  g_autofree char *dir = NULL;
  g_auto(GStrv) groups = NULL;
  g_autoptr(GError) local_error = NULL;
  const char *end;
  gint64 abi_version;
  gsize n_groups;

  *hint = HINT_SYNTAX;

  /* Validate the whole text first: GKeyFile would stop at a NUL byte and
   * quietly drop a value that is not UTF-8 where no error is asked for. */
  if (!g_utf8_validate_len (data, length, &end))
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_ENCODING,
                   "not a UTF-8 key file: %s at byte %" G_GSIZE_FORMAT,
                   *end == '\0' ? "a NUL byte" : "invalid UTF-8",
                   (gsize) (end - data));
      return NULL;
    }

  if (!g_key_file_load_from_data (keyfile, data, length, G_KEY_FILE_NONE, &local_error))
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  "not a key file: ");
      return NULL;
    }

  if (!g_key_file_has_group (keyfile, MODULE_GROUP))
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_MISSING,
                   "no [" MODULE_GROUP "] group");
      return NULL;
    }

  abi_version = g_key_file_get_int64 (keyfile, MODULE_GROUP, "AbiVersion", &local_error);
  *hint = HINT_ABI;
  if (local_error != NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "AbiVersion: ");
      return NULL;
    }
  if (abi_version != REG_MODULE_ABI_VERSION)
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID,
                   "AbiVersion=%" G_GINT64_FORMAT " is not supported, this libreg supports %d",
                   abi_version, REG_MODULE_ABI_VERSION);
      return NULL;
    }

  *hint = HINT_MODULE;
  if (!get_raw_value (keyfile, MODULE_GROUP, "Module", &module, error))
    return NULL;

  module = get_string (keyfile, MODULE_GROUP, "Module", module, &local_error);
  if (module == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "Module: ");
      return NULL;
    }
  if (!check_module_name (module, error))
    return NULL;

  *hint = HINT_SYNTAX;
  dir = g_path_get_dirname (path);
  manifest = g_new0 (RegManifest, 1);
  manifest->path = g_strdup (path);
  manifest->module_path = g_build_filename (dir, module, NULL);

  groups = g_key_file_get_groups (keyfile, &n_groups);
  manifest->backends = g_new0 (RegManifestBackend, n_groups);
  for (gsize i = 0; i < n_groups; i++)
    {
      if (!g_str_has_prefix (groups[i], BACKEND_GROUP_PREFIX))
        continue;

      if (!parse_backend (keyfile, groups[i], &manifest->backends[manifest->n_backends], error))
        return NULL;
      manifest->n_backends++;
    }

  if (manifest->n_backends == 0)
    {
      g_set_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_MISSING,
                   "declares no backend (no [" BACKEND_GROUP_PREFIX "NAME] group)");
      return NULL;
    }

  if (!check_option_groups (manifest, (const char * const *) groups, error))
    return NULL;

  return g_steal_pointer (&manifest);
}

/* The manifest's code for an error of the checks it shares with others:
 * GKeyFile's getters, the naming rules (REG_REGISTRY_ERROR_INVALID_NAME). */
static RegManifestError
manifest_error_code (const GError *error)
{
  if (g_error_matches (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND) ||
      g_error_matches (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND))
    return REG_MANIFEST_ERROR_MISSING;
  if (g_error_matches (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_UNKNOWN_ENCODING))
    return REG_MANIFEST_ERROR_ENCODING;
  return REG_MANIFEST_ERROR_INVALID;
}

static RegManifest *
parse_with_hint (const char  *path,
                 const char  *data,
                 gsize        length,
                 const char **hint,
                 GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  RegManifest *manifest = parse_manifest (path, data, length, hint, &local_error);

  /* A reason may quote the file's text (GKeyFile quotes the line it
   * stopped at, our checks the value): escaped and cut, so that a
   * manifest cannot put megabytes or terminal escapes into a warning. */
  if (manifest == NULL)
    {
      g_autofree char *reason = _reg_text_for_message (local_error->message, -1, 300);

      /* GKeyFile's domain for the key file syntax, the manifest's for
       * everything else. */
      if (g_error_matches (local_error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE) ||
          local_error->domain == REG_MANIFEST_ERROR)
        g_set_error_literal (error, local_error->domain, local_error->code, reason);
      else
        g_set_error_literal (error, REG_MANIFEST_ERROR, manifest_error_code (local_error), reason);
    }

  return manifest;
}

RegManifest *
_reg_manifest_parse (const char  *path,
                     const char  *data,
                     gsize        length,
                     GError     **error)
{
  const char *hint;

  return parse_with_hint (path, data, length, &hint, error);
}

RegManifest *
_reg_manifest_load (const char  *path,
                    GError     **error)
{
  g_autoptr(GBytes) contents = NULL;
  gsize length;
  const char *data;

  /* A special file is refused unread (a FIFO would block discovery, a
   * device never end), and so is one over REG_MANIFEST_MAX_SIZE. */
  contents = _reg_file_read (path, REG_MANIFEST_MAX_SIZE, "a manifest", NULL, error);
  if (contents == NULL)
    return NULL;

  data = g_bytes_get_data (contents, &length);
  return _reg_manifest_parse (path, data, length, error);
}

void
_reg_manifest_skip_free (RegManifestSkip *skip)
{
  if (skip == NULL)
    return;

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
find_backend_names (const char *data,
                    gsize       length)
{
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
  const char *end = data + length;
  const char *line = data;

  while (line < end)
    {
      const char *eol = memchr (line, '\n', end - line);
      const char *stop = eol != NULL ? eol : end;
      const char *p = line;

      while (p < stop && (*p == ' ' || *p == '\t'))
        p++;
      while (stop > p && (stop[-1] == ' ' || stop[-1] == '\t' || stop[-1] == '\r'))
        stop--;

      if (stop - p > (gssize) strlen ("[" BACKEND_GROUP_PREFIX "]") &&
          memcmp (p, "[" BACKEND_GROUP_PREFIX, strlen ("[" BACKEND_GROUP_PREFIX)) == 0 &&
          stop[-1] == ']')
        {
          const char *name = p + strlen ("[" BACKEND_GROUP_PREFIX);
          g_autofree char *copy = g_strndup (name, stop - 1 - name);

          if (strlen (copy) == (gsize) (stop - 1 - name) &&
              _reg_name_validate (copy, "backend name", NULL))
            g_strv_builder_add (names, copy);
        }

      line = eol != NULL ? eol + 1 : end;
    }

  return g_strv_builder_end (names);
}

/* Reads and parses the manifest @path; on failure fills a new @skip. */
static RegManifest *
load_or_skip (const char       *path,
              RegManifestSkip **skip)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) contents = NULL;
  const char *data = NULL;
  RegManifest *manifest = NULL;
  const char *hint = HINT_FILE;
  gsize length = 0;

  /* A special file is refused unread (a FIFO would block discovery, a
   * device never end), and so is one over REG_MANIFEST_MAX_SIZE. */
  contents = _reg_file_read (path, REG_MANIFEST_MAX_SIZE, "a manifest", NULL, &error);
  if (contents != NULL)
    {
      data = g_bytes_get_data (contents, &length);
      manifest = parse_with_hint (path, data, length, &hint, &error);
    }

  if (manifest != NULL)
    return manifest;

  *skip = g_new0 (RegManifestSkip, 1);
  (*skip)->path = g_strdup (path);
  (*skip)->reason = g_strdup (error->message);
  (*skip)->hint = hint;
  (*skip)->names = data != NULL ? find_backend_names (data, length) : g_new0 (char *, 1);

  return NULL;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

GPtrArray *
_reg_manifest_scan_dir (const char *dir,
                        GPtrArray  *skipped)
{
  GPtrArray *manifests;
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) gdir = NULL;
  const char *name;

  manifests = g_ptr_array_new_with_free_func ((GDestroyNotify) _reg_manifest_free);
  names = g_ptr_array_new_with_free_func (g_free);

  gdir = g_dir_open (dir, 0, &error);
  if (gdir == NULL)
    {
      g_autofree char *shown_dir = _reg_escape (dir);
      g_autofree char *why = _reg_escape (error->message);

      g_debug ("backend directory %s not scanned: %s", shown_dir, why);
      return manifests;
    }

  while ((name = g_dir_read_name (gdir)) != NULL)
    if (g_str_has_suffix (name, ".backend"))
      g_ptr_array_add (names, g_strdup (name));

  /* Byte order, so that which of two manifests in one directory declares a
   * name first does not depend on the file system. */
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (dir, g_ptr_array_index (names, i), NULL);
      RegManifestSkip *skip = NULL;
      RegManifest *manifest = load_or_skip (path, &skip);

      if (manifest != NULL)
        g_ptr_array_add (manifests, manifest);
      else
        {
          g_autofree char *shown_path = _reg_escape (path);
          g_autofree char *why = _reg_escape (skip->reason);

          g_warning ("manifest %s skipped: %s. %s", shown_path, why, skip->hint);
          if (skipped != NULL)
            g_ptr_array_add (skipped, skip);
          else
            _reg_manifest_skip_free (skip);
        }
    }

  return manifests;
}

gboolean
_reg_manifest_get_string (GKeyFile    *keyfile,
                          const char  *group,
                          const char  *key,
                          char       **value,
                          GError     **error)
{
  g_autofree char *raw = NULL;
  g_autoptr(GError) local_error = NULL;

  *value = NULL;
  if (!get_raw_value (keyfile, group, key, &raw, error))
    return FALSE;
  if (raw == NULL)
    return TRUE;

  *value = get_string (keyfile, group, key, g_steal_pointer (&raw), &local_error);
  if (*value == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "[%s] %s: ", group, key);
      return FALSE;
    }

  return TRUE;
}

gboolean
_reg_manifest_get_string_list (GKeyFile     *keyfile,
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
