/* reg-once.c: data set once on an object, read by any thread
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-once-private.h"

/* GLib keeps an object's qdata in an array it allocates and grows under a
 * bit lock of its own, which ThreadSanitizer cannot see: two threads
 * setting the first data on one object look to it like a race on that
 * array, and a get in one thread like a race with the set that published
 * the data in another.  This lock, a pthread read-write lock that it does
 * see, orders libreg's sets and gets: a get that finds the data comes
 * after the set's unlock, and so after everything written to the data
 * before it was set.  Readers share it, so gets do not contend. */
static GRWLock qdata_lock;

gpointer
_reg_once_get (GObject *object,
               GQuark   quark)
{
  gpointer data;

  g_rw_lock_reader_lock (&qdata_lock);
  data = g_object_get_qdata (object, quark);
  g_rw_lock_reader_unlock (&qdata_lock);

  return data;
}

gboolean
_reg_once_set (GObject        *object,
               GQuark          quark,
               gpointer        data,
               GDestroyNotify  destroy)
{
  gboolean set;

  g_rw_lock_writer_lock (&qdata_lock);
  set = g_object_replace_qdata (object, quark, NULL, data, destroy, NULL);
  g_rw_lock_writer_unlock (&qdata_lock);

  return set;
}
