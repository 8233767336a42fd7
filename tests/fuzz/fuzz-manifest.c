/* fuzz-manifest.c: libFuzzer target for the `.backend` manifest parser
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input is the text of a manifest.  Its values are found where
 * GKeyFile finds them; a manifest is either refused with a clear message,
 * or it declares backends that all follow the rules a registry relies on:
 * valid names, normalized tags, and a module file in the manifest's own
 * directory.
 */

#include "fuzz-manifest-check.h"

#define DIR "/fuzz/manifests"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegManifest) manifest = NULL;
  /* An exact copy, without a terminating NUL: reading past the end is an
   * AddressSanitizer report. */
  g_autofree char *text = g_memdup2 (data, size);

  if (size > REG_MANIFEST_MAX_SIZE)
    return 0;

  fuzz_check_key_file (text, size);

  manifest = _reg_manifest_parse (DIR "/fuzz.backend", text, size, &error);
  if (manifest == NULL)
    {
      FUZZ_ASSERT (error != NULL, "NULL without an error");
      fuzz_check_message (error->message);
      return 0;
    }
  FUZZ_ASSERT (error == NULL, "a manifest and an error");
  FUZZ_ASSERT (g_str_equal (manifest->file, "fuzz.backend"), "file %s", manifest->file);
  fuzz_check_manifest (manifest, DIR);

  return 0;
}
