/* reg-inductor-parallel.c: sharing a kernel's chunks among threads
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See reg-inductor-parallel.h.  The state of one run is shared by the
 * caller and the helpers it queued, and reference-counted: a helper that
 * starts after the last chunk was taken touches only this state (never
 * the caller's data, which may be gone by then), and the last one to
 * drop it frees it.
 */

#include "reg-inductor-parallel.h"

typedef struct
{
  gint             ref_count;     /* atomic */
  RegIndChunkFunc  func;
  gpointer         data;
  gsize            n_chunks;
  gsize            next_chunk;    /* atomic: the next chunk to take */
  guint            next_worker;   /* atomic: the next helper's index - 1 */
  guint            n_workers;

  GMutex           mutex;
  GCond            cond;
  gsize            done;          /* atomic: chunks finished; the last
                                   * helper to add to it signals cond under
                                   * mutex */
} Share;

/* How long the caller spins for the chunks still being computed before it
 * sleeps: they are short, and waking up a sleeping thread costs 10 to 50
 * microseconds, a quarter of a small kernel. */
#define SPIN_USEC 50

#if defined (__x86_64__) || defined (__i386__)
# define cpu_relax() __builtin_ia32_pause ()
#else
# define cpu_relax() do { } while (0)
#endif

static void
share_unref (Share *share)
{
  if (!g_atomic_int_dec_and_test (&share->ref_count))
    return;

  g_mutex_clear (&share->mutex);
  g_cond_clear (&share->cond);
  g_free (share);
}

/* Takes chunks until none is left, then counts them as done. */
static void
share_work (Share *share,
            guint  worker)
{
  gsize finished = 0;

  for (;;)
    {
      gsize chunk = __atomic_fetch_add (&share->next_chunk, 1, __ATOMIC_RELAXED);

      if (chunk >= share->n_chunks)
        break;
      share->func (share->data, chunk, worker);
      finished++;
    }

  if (finished == 0)
    return;

  if (__atomic_add_fetch (&share->done, finished, __ATOMIC_ACQ_REL) == share->n_chunks)
    {
      g_mutex_lock (&share->mutex);
      g_cond_signal (&share->cond);
      g_mutex_unlock (&share->mutex);
    }
}

static void
helper_func (gpointer data,
             gpointer user_data)
{
  Share *share = data;
  guint worker = g_atomic_int_add (&share->next_worker, 1) + 1;

  g_assert (worker < share->n_workers);
  share_work (share, worker);
  share_unref (share);
}

/* One pool for the process: helpers never wait for anything but a chunk
 * they compute, so runs of concurrent calls cannot deadlock however many
 * there are. */
static GThreadPool *
get_pool (void)
{
  static GThreadPool *pool;

  if (g_once_init_enter (&pool))
    g_once_init_leave (&pool, g_thread_pool_new (helper_func, NULL, -1, FALSE, NULL));

  return pool;
}

void
_reg_ind_parallel_run (guint            n_workers,
                       gsize            n_chunks,
                       RegIndChunkFunc  func,
                       gpointer         data)
{
  Share *share;

  n_workers = (guint) MIN ((gsize) MAX (n_workers, 1), MAX (n_chunks, 1));
  if (n_workers == 1)
    {
      for (gsize c = 0; c < n_chunks; c++)
        func (data, c, 0);
      return;
    }

  share = g_new0 (Share, 1);
  share->ref_count = n_workers;   /* the caller and each helper */
  share->func = func;
  share->data = data;
  share->n_chunks = n_chunks;
  share->n_workers = n_workers;
  g_mutex_init (&share->mutex);
  g_cond_init (&share->cond);

  for (guint w = 1; w < n_workers; w++)
    g_thread_pool_push (get_pool (), share, NULL);

  share_work (share, 0);

  if (__atomic_load_n (&share->done, __ATOMIC_ACQUIRE) < share->n_chunks)
    {
      gint64 until = g_get_monotonic_time () + SPIN_USEC;

      while (__atomic_load_n (&share->done, __ATOMIC_ACQUIRE) < share->n_chunks &&
             g_get_monotonic_time () < until)
        cpu_relax ();

      g_mutex_lock (&share->mutex);
      while (__atomic_load_n (&share->done, __ATOMIC_ACQUIRE) < share->n_chunks)
        g_cond_wait (&share->cond, &share->mutex);
      g_mutex_unlock (&share->mutex);
    }

  share_unref (share);
}
