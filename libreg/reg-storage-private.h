/* reg-storage-private.h: the memory behind tensors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Backends run vector loops over tensor data; 64 bytes is a cache line and
 * the widest SIMD register (AVX-512), so no loop needs a scalar prologue. */
#define REG_STORAGE_ALIGNMENT 64

/* @n_bytes (at least 1) of REG_STORAGE_ALIGNMENT-aligned memory, zeroed
 * when @zeroed, or NULL when the system refuses it.  Thread-safe. */
gpointer _reg_storage_try_alloc (gsize    n_bytes,
                                 gboolean zeroed);

/* Gives back memory of _reg_storage_try_alloc() with the same @n_bytes. */
void     _reg_storage_free      (gpointer data,
                                 gsize    n_bytes);

G_END_DECLS
