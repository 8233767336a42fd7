/* reg-task-private.h: a backend's synchronous method, run for a GTask
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Runs @func for @task on behalf of @implementation, the object whose
 * synchronous method @func calls: in a worker thread, with
 * return-on-cancel set (a cancelled task returns at once; the work's late
 * result is dropped), or, when @implementation may only run in one thread
 * (_reg_binding_is_thread_bound()), from an idle source of the task's main
 * context.  @func starts with _reg_task_begin() and ends with
 * _reg_task_end(). */
void     _reg_task_run   (GTask           *task,
                          GObject         *implementation,
                          GTaskThreadFunc  func);

/* Returns FALSE, with @task returned as cancelled, when @cancellable is
 * already cancelled: then the work must not start.  Otherwise pushes
 * @cancellable as the thread's current one (g_cancellable_get_current()),
 * so that the backend's synchronous code can check it, and returns TRUE. */
gboolean _reg_task_begin (GTask           *task,
                          GCancellable    *cancellable);
void     _reg_task_end   (GCancellable    *cancellable);

G_END_DECLS
