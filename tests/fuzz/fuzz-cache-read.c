/* fuzz-cache-read.c: libFuzzer target for reading a discovery cache that
 * another process changes meanwhile
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input is a 6-byte prefix and a `backends.cache` file (its header's
 * body size and checksum set to match its body, as fuzz-cache does).  The
 * file is written into a directory of its own and discovery reads it
 * (_reg_manifest_cache_load()), with the file reader's test hook changing
 * the file after the first chunk it reads, as a process rewriting it in
 * place would:
 *
 *   bytes 0-3   a length (little-endian), taken modulo the file's size + 1
 *   byte 4      what happens: 0 truncate to the length; 1 truncate, then
 *               write the tail of the input back from there (a rewrite of
 *               another size); 2 flip the byte at the length (a rewrite of
 *               the same size); 3 append the input again; other values:
 *               nothing
 *   byte 5      the reader's chunk size, 1 to 256 bytes
 *
 * Whatever happens, the reader must not crash (a mapped file truncated
 * under it used to kill it with SIGBUS), and it either refuses the cache
 * or returns manifests that follow every rule of the manifest reader.
 */

#include <fcntl.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "fuzz-manifest-check.h"

#include "reg-file-private.h"
#include "reg-manifest-cache-private.h"

#define PREFIX_SIZE 6
#define HEADER_SIZE 32

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

typedef struct
{
  const char   *path;
  const guint8 *file;
  gsize         file_size;
  guint32       length;
  guint8        action;
  gboolean      done;
} Change;

static void
change_file (int      fd,
             gsize    offset,
             gpointer user_data)
{
  Change *change = user_data;
  gsize at = change->length % (change->file_size + 1);
  int out;

  if (change->done)
    return;
  change->done = TRUE;

  out = g_open (change->path, O_WRONLY | O_CLOEXEC, 0);
  FUZZ_ASSERT (out >= 0, "cannot reopen the cache file");

  switch (change->action)
    {
    case 0:
      FUZZ_ASSERT (ftruncate (out, at) == 0, "ftruncate");
      break;
    case 1:
      FUZZ_ASSERT (ftruncate (out, at) == 0, "ftruncate");
      FUZZ_ASSERT (pwrite (out, change->file + at / 2, change->file_size - at / 2, at) >= 0, "pwrite");
      break;
    case 2:
      if (at < change->file_size)
        {
          guint8 flipped = change->file[at] ^ 0x5a;

          FUZZ_ASSERT (pwrite (out, &flipped, 1, at) == 1, "pwrite");
        }
      break;
    case 3:
      FUZZ_ASSERT (pwrite (out, change->file, change->file_size, change->file_size) >= 0, "pwrite");
      break;
    default:
      break;
    }

  g_close (out, NULL);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static char *dir;
  static char *path;
  g_autoptr(GPtrArray) manifests = NULL;
  g_autofree guint8 *file = NULL;
  Change change = { 0, };
  gsize file_size;

  if (dir == NULL)
    {
      dir = g_dir_make_tmp ("fuzz-cache-read-XXXXXX", NULL);
      FUZZ_ASSERT (dir != NULL, "no temporary directory");
      path = g_build_filename (dir, REG_MANIFEST_CACHE_NAME, NULL);
    }

  if (size < PREFIX_SIZE)
    return 0;

  file_size = size - PREFIX_SIZE;
  file = g_malloc (file_size + 1);
  memcpy (file, data + PREFIX_SIZE, file_size);
  if (file_size >= HEADER_SIZE)
    _reg_manifest_cache_seal (file, file_size);
  /* Written in place, without the fsync() of g_file_set_contents(). */
  {
    int out = g_open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    FUZZ_ASSERT (out >= 0, "cannot write the cache file");
    FUZZ_ASSERT (write (out, file, file_size) == (gssize) file_size, "cannot write the cache file");
    g_close (out, NULL);
  }

  change.path = path;
  change.file = file;
  change.file_size = file_size;
  memcpy (&change.length, data, 4);
  change.length = GUINT32_FROM_LE (change.length);
  change.action = data[4];

  _reg_file_set_read_hook (change_file, 1 + data[5] % 256, &change);
  manifests = _reg_manifest_cache_load (dir);
  _reg_file_set_read_hook (NULL, 0, NULL);

  for (guint i = 0; manifests != NULL && i < manifests->len; i++)
    fuzz_check_manifest (g_ptr_array_index (manifests, i), dir);

  return 0;
}
