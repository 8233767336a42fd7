/* reg-once-private.h: data set once on an object, read by any thread
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* The first member of a structure set with _reg_once_set().  GLib's qdata
 * functions publish the structure under a lock of their own, which
 * ThreadSanitizer cannot see; `published`, stored with release before the
 * structure is published and loaded with acquire after it is found, makes
 * the ordering visible to it, for one atomic load per read. */
typedef struct
{
  gint published;
} RegOnce;

/* The structure set on @object under @quark, or NULL. */
gpointer _reg_once_get (GObject        *object,
                        GQuark          quark);

/* Sets @data (a structure that starts with a RegOnce) on @object under
 * @quark, to be freed with @destroy with @object, unless something is set
 * there already: then returns FALSE and @data stays the caller's.  What is
 * set lives as long as @object. */
gboolean _reg_once_set (GObject        *object,
                        GQuark          quark,
                        gpointer        data,
                        GDestroyNotify  destroy);

G_END_DECLS
