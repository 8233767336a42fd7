/* reg-storage.c: the memory behind tensors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "reg-storage-private.h"

/* Large buffers are mapped directly and recycled.  A compiled function
 * called in a loop makes outputs of the same sizes again and again; with
 * fresh memory each time, faulting its pages in and zeroing them costs more
 * than the computation (64 MiB: 40 ms against 28 ms for a fused pass over
 * it, measured here).  A recycled buffer is warm, and a fresh mapping is
 * zero already, so neither needs a fault storm nor a second zeroing. */
#define LARGE_MIN        ((gsize) 1 << 20)
#define HUGE_PAGE        ((gsize) 2 << 20)
#define CACHE_SLOTS      8
#define CACHE_MAX_BYTES  ((gsize) 512 << 20)

typedef struct
{
  gpointer data;
  gsize    length;  /* mapped length, a multiple of HUGE_PAGE */
} Mapping;

/* A GRWLock used as a mutex: unlike GMutex, ThreadSanitizer sees it. */
static GRWLock cache_lock;
static Mapping cache[CACHE_SLOTS];  /* free mappings, oldest first */
static guint   cache_len;
static gsize   cache_bytes;

/* Maps @length bytes aligned to HUGE_PAGE, so that the kernel may back
 * them with transparent huge pages (a fault per 2 MiB, not per 4 KiB).
 * NULL when the system refuses. */
static gpointer
map_aligned (gsize length)
{
  guint8 *raw, *aligned;
  gsize head, raw_length;

  /* The extra huge page leaves room to align the start. */
  if (!g_size_checked_add (&raw_length, length, HUGE_PAGE))
    return NULL;

  raw = mmap (NULL, raw_length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    return NULL;

  aligned = (guint8 *) (((guintptr) raw + HUGE_PAGE - 1) & ~(guintptr) (HUGE_PAGE - 1));
  head = aligned - raw;
  if (head > 0)
    munmap (raw, head);
  munmap (aligned + length, HUGE_PAGE - head);

#if HAVE_MADV_HUGEPAGE
  madvise (aligned, length, MADV_HUGEPAGE);
#endif

  return aligned;
}

static Mapping
cache_remove_locked (guint i)
{
  Mapping mapping = cache[i];

  cache_bytes -= mapping.length;
  cache_len--;
  memmove (&cache[i], &cache[i + 1], (cache_len - i) * sizeof (Mapping));

  return mapping;
}

static gpointer
cache_take (gsize length)
{
  gpointer data = NULL;

  g_rw_lock_writer_lock (&cache_lock);
  for (guint i = 0; i < cache_len && data == NULL; i++)
    if (cache[i].length == length)
      data = cache_remove_locked (i).data;
  g_rw_lock_writer_unlock (&cache_lock);

  return data;
}

/* Keeps a mapping for reuse, evicting the oldest ones to stay within
 * bounds; what does not fit is unmapped, outside the lock. */
static void
cache_give (gpointer data,
            gsize    length)
{
  Mapping evicted[CACHE_SLOTS + 1];
  guint n_evicted = 0;

  g_rw_lock_writer_lock (&cache_lock);
  if (length > CACHE_MAX_BYTES)
    evicted[n_evicted++] = (Mapping) { data, length };
  else
    {
      while (cache_len == CACHE_SLOTS || cache_bytes + length > CACHE_MAX_BYTES)
        evicted[n_evicted++] = cache_remove_locked (0);
      cache[cache_len++] = (Mapping) { data, length };
      cache_bytes += length;
    }
  g_rw_lock_writer_unlock (&cache_lock);

  for (guint i = 0; i < n_evicted; i++)
    munmap (evicted[i].data, evicted[i].length);
}

gpointer
_reg_storage_try_alloc (gsize    n_bytes,
                        gboolean zeroed)
{
  gsize length;
  gpointer data;

  n_bytes = MAX (n_bytes, 1);

  /* posix_memalign() rather than g_aligned_alloc(), which aborts when
   * memory is short: the caller turns NULL into an error. */
  if (n_bytes < LARGE_MIN)
    {
      if (posix_memalign (&data, REG_STORAGE_ALIGNMENT, n_bytes) != 0)
        return NULL;
      if (zeroed)
        memset (data, 0, n_bytes);
      return data;
    }

  /* Whole huge pages; a size within one of G_MAXSIZE would round to 0. */
  if (!g_size_checked_add (&length, n_bytes, HUGE_PAGE - 1))
    return NULL;
  length &= ~(HUGE_PAGE - 1);

  data = cache_take (length);
  if (data == NULL)
    return map_aligned (length);  /* fresh anonymous pages read as zero */
  if (zeroed)
    memset (data, 0, n_bytes);

  return data;
}

void
_reg_storage_free (gpointer data,
                   gsize    n_bytes)
{
  if (n_bytes < LARGE_MIN)
    free (data);
  else  /* rounded as when it was allocated, which did not overflow */
    cache_give (data, (n_bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
}
