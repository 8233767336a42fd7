/* reg-inductor-parallel.h: sharing a kernel's chunks among threads
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A kernel is cut into chunks (runs of blocks, or panels of a product's
 * rows) that are independent of each other.  _reg_ind_parallel_run() runs
 * them on the calling thread and on up to @n_workers - 1 threads of a
 * process-wide pool, each thread taking the next chunk not yet taken.  So
 * a helper thread that starts late (its core busy, or still waking up)
 * takes fewer chunks or none: the caller never waits for a thread that
 * has not started, only for the chunks already being computed, and a
 * split call is never much slower than the same call on one thread.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Computes chunk @chunk; @worker (0 for the calling thread, then 1, 2...
 * in the order the helpers start, below n_workers) picks the per-thread
 * buffers. */
typedef void (*RegIndChunkFunc) (gpointer data,
                                 gsize    chunk,
                                 guint    worker);

/* Runs @func on every chunk in [0, @n_chunks) and returns when all are
 * done.  @n_workers 1 (or a single chunk) runs them in order on the
 * calling thread without touching the pool. */
void _reg_ind_parallel_run (guint            n_workers,
                            gsize            n_chunks,
                            RegIndChunkFunc  func,
                            gpointer         data);

G_END_DECLS
