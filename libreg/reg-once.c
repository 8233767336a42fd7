/* reg-once.c: data set once on an object, read by any thread
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-once-private.h"

gpointer
_reg_once_get (GObject *object,
               GQuark   quark)
{
  RegOnce *once = g_object_get_qdata (object, quark);

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

  g_atomic_int_set (&once->published, TRUE);

  return g_object_replace_qdata (object, quark, NULL, data, destroy, NULL);
}
