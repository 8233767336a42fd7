/* reg-once.c: data set once on an object, read by any thread
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-once-private.h"

/* GLib keeps an object's qdata in an array it allocates and grows under a
 * bit lock of its own, which ThreadSanitizer cannot see: two threads
 * setting the first data on one object look to it like a race on that
 * array.  This lock, a pthread read-write lock that it does see, orders
 * libreg's sets and gets; readers share it, so gets do not contend. */
static GRWLock qdata_lock;

gpointer
_reg_once_get (GObject *object,
               GQuark   quark)
{
  RegOnce *once;

  g_rw_lock_reader_lock (&qdata_lock);
  once = g_object_get_qdata (object, quark);
  g_rw_lock_reader_unlock (&qdata_lock);

  if (once == NULL || !g_atomic_int_get (&once->published))
    return NULL;

  return once;
}

gboolean
_reg_once_set (GObject        *object,
               GQuark          quark,
               gpointer        data,
               GDestroyNotify  destroy)
{
  RegOnce *once = data;
  gboolean set;

  g_atomic_int_set (&once->published, TRUE);

  g_rw_lock_writer_lock (&qdata_lock);
  set = g_object_replace_qdata (object, quark, NULL, data, destroy, NULL);
  g_rw_lock_writer_unlock (&qdata_lock);

  return set;
}
