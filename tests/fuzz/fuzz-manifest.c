/* fuzz-manifest.c: libFuzzer target for the `.backend` manifest parser
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input is the text of a manifest.  A manifest is either refused with
 * a clear message, or it declares backends that all follow the rules a
 * registry relies on: valid names, normalized tags, and a module file in
 * the manifest's own directory.
 */

#include "fuzz-common.h"

#include "reg-manifest-private.h"
#include "reg-name-private.h"

#define DIR "/fuzz/manifests"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_init_logging ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegManifest) manifest = NULL;
  g_autoptr(GHashTable) names = NULL;
  /* An exact copy, without a terminating NUL: reading past the end is an
   * AddressSanitizer report. */
  g_autofree char *text = g_memdup2 (data, size);
  const char *module;

  if (size > REG_MANIFEST_MAX_SIZE)
    return 0;

  manifest = _reg_manifest_parse (DIR "/fuzz.backend", text, size, &error);
  if (manifest == NULL)
    {
      FUZZ_ASSERT (error != NULL, "NULL without an error");
      fuzz_check_message (error->message);
      return 0;
    }
  FUZZ_ASSERT (error == NULL, "a manifest and an error");

  /* The module is a file of the manifest's directory, nowhere else. */
  FUZZ_ASSERT (g_str_has_prefix (manifest->module_path, DIR "/"), "module %s",
               manifest->module_path);
  module = manifest->module_path + strlen (DIR "/");
  FUZZ_ASSERT (*module != '\0' && strchr (module, '/') == NULL &&
               strcmp (module, ".") != 0 && strcmp (module, ".."),
               "module file '%s' is not a bare file name", module);
  FUZZ_ASSERT (g_str_equal (manifest->path, DIR "/fuzz.backend"), "path %s", manifest->path);

  FUZZ_ASSERT (manifest->n_backends > 0, "a manifest without backends");
  names = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < manifest->n_backends; i++)
    {
      const RegManifestBackend *backend = &manifest->backends[i];
      g_autoptr(GHashTable) tags = g_hash_table_new (g_str_hash, g_str_equal);

      FUZZ_ASSERT (_reg_name_validate (backend->name, "backend name", NULL),
                   "declared backend name '%s' breaks the naming rules", backend->name);
      FUZZ_ASSERT (g_hash_table_add (names, backend->name), "'%s' declared twice", backend->name);
      FUZZ_ASSERT (backend->tags != NULL, "'%s' without a tag array", backend->name);
      for (guint j = 0; backend->tags[j] != NULL; j++)
        {
          FUZZ_ASSERT (_reg_name_validate (backend->tags[j], "tag", NULL),
                       "tag '%s' of '%s' breaks the naming rules", backend->tags[j], backend->name);
          FUZZ_ASSERT (g_hash_table_add (tags, backend->tags[j]), "tag '%s' twice", backend->tags[j]);
        }
      FUZZ_ASSERT (backend->description == NULL ||
                   g_utf8_validate (backend->description, -1, NULL),
                   "description of '%s' is not UTF-8", backend->name);
    }

  return 0;
}
