/* reg-binding-private.h: what libreg knows of the language bindings
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* Whether @type is a class defined in Python (PyGObject), whose exceptions
 * reach C as a failure without an error (PyGObject prints them). */
gboolean _reg_binding_is_python       (GType type);

/* Whether the methods of @type may only run in one thread: a class defined
 * in JavaScript (GJS), whose code runs in the thread of its interpreter
 * only.  libreg runs their asynchronous work in the caller's main context
 * instead of a worker thread. */
gboolean _reg_binding_is_thread_bound (GType type);

G_END_DECLS
