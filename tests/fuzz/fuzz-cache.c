/* fuzz-cache.c: libFuzzer target for the discovery cache reader
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input is a `backends.cache` file.  Its header's body size and
 * checksum are set to match its body first (_reg_manifest_cache_seal()),
 * so that changes to the body reach the checks behind the checksum, which
 * only a forger or a broken writer could otherwise get past.  A cache is
 * either refused with a clear reason, or it yields manifests that follow
 * every rule the manifest reader applies.  (Freshness, the comparison with
 * the directory, is left out: it reads the file system, not the input.)
 */

#include "fuzz-manifest-check.h"

#include "reg-manifest-cache-private.h"

#define DIR "/fuzz/cache"
#define HEADER_SIZE 32

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GPtrArray) manifests = NULL;
  g_autoptr(GBytes) contents = NULL;
  g_autofree char *why = NULL;
  /* A copy of its own, of exactly @size bytes: reading past the end is an
   * AddressSanitizer report. */
  guint8 *copy = g_memdup2 (data, size);

  if (size >= HEADER_SIZE)
    _reg_manifest_cache_seal (copy, size);
  contents = g_bytes_new_take (copy, size);

  manifests = _reg_manifest_cache_decode (contents, DIR, &why);
  if (manifests == NULL)
    {
      FUZZ_ASSERT (why != NULL, "NULL without a reason");
      fuzz_check_message (why);
      return 0;
    }
  FUZZ_ASSERT (why == NULL, "manifests and a reason");

  for (guint i = 0; i < manifests->len; i++)
    {
      const RegManifest *manifest = g_ptr_array_index (manifests, i);

      fuzz_check_manifest (manifest, DIR);
      /* In byte order of file names, each once. */
      if (i > 0)
        {
          const RegManifest *previous = g_ptr_array_index (manifests, i - 1);

          FUZZ_ASSERT (strcmp (previous->path, manifest->path) < 0,
                       "%s after %s", manifest->path, previous->path);
        }
    }

  return 0;
}
