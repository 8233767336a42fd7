/* reg-hazard-private.h: hazard pointers, for reading shared data lock-free
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Each thread owns one hazard slot.  A reader publishes in its slot the
 * pointer it is about to read through; a writer that has unpublished a
 * pointer frees it only once no slot holds it.  Readers never write a
 * shared cache line, so they scale across cores, unlike a reader lock.
 *
 * One slot per thread is enough: a protected section never nests (it only
 * reads a table and takes a reference). */

/* Loads *@location and protects what it read until _reg_hazard_release().
 * Returns the protected pointer, possibly NULL. */
gpointer _reg_hazard_protect          (gpointer *location);
void     _reg_hazard_release          (void);

/* Whether some thread's slot holds @pointer.  Writers call it after
 * unpublishing @pointer: from then on no reader can newly protect it. */
gboolean _reg_hazard_is_protected     (gconstpointer pointer);

G_END_DECLS
