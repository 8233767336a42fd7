/* reg-once-private.h: data set once on an object, read by any thread
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* The data set on @object under @quark with _reg_once_set(), or NULL. */
gpointer _reg_once_get (GObject        *object,
                        GQuark          quark);

/* Sets @data on @object under @quark, to be freed with @destroy with
 * @object, unless something is set there already: then returns FALSE and
 * @data stays the caller's.  What is set lives as long as @object and is
 * never changed, so any thread may read it without a lock. */
gboolean _reg_once_set (GObject        *object,
                        GQuark          quark,
                        gpointer        data,
                        GDestroyNotify  destroy);

G_END_DECLS
