/* reg-task-private.h: running a backend's methods, judging what they report
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "reg-error.h"

G_BEGIN_DECLS

/* Whether the methods of @type may only run in one thread: a class defined
 * in JavaScript (GJS), whose code runs in the thread of its interpreter
 * only.  libreg runs their asynchronous work in the caller's main context
 * instead of a worker thread. */
gboolean _reg_binding_is_thread_bound (GType type);

/* A backend's synchronous method, called for a task with the task's
 * source object: a new object, or NULL with @error set. */
typedef gpointer (*RegTaskFunc) (gpointer   source_object,
                                 gpointer   data,
                                 GError   **error);

/* Runs @func with @data (the task data of @task, freed with @destroy) for
 * @task: in a worker thread, with return-on-cancel set (a cancelled task
 * returns at once, the work's late result dropped), or, when the task's
 * source object is thread-bound, from an idle source of the task's main
 * context.  Not at all when the task's cancellable is cancelled by then;
 * otherwise with it as the thread's current one, for the backend's code
 * to check.  The task returns what @func returned or the error it set:
 * its _finish() takes them with _reg_task_propagate() and judges them
 * with _reg_backend_check_result(). */
void     _reg_task_run                (GTask            *task,
                                       RegTaskFunc       func,
                                       gpointer          data,
                                       GDestroyNotify    destroy);

/* What a task of _reg_task_run() returned: its result, or NULL with
 * @error set; with a result, @error is set too when @func set one beside
 * it, as a synchronous call reports both. */
gpointer _reg_task_propagate          (GTask            *task,
                                       GError          **error);

/* Judges what a compile or call that @implementation made for the backend
 * named @backend reported: @returned says whether it returned its result,
 * @local_error is the error it set (cleared here).  TRUE when it returned
 * (with a warning if it also set an error).  Otherwise FALSE with @error
 * set: the backend's own error (its text escaped) when it is in one of
 * libreg's domains or a cancellation; REG_COMPILER_ERROR_BACKEND_UNAVAILABLE
 * for the registry's error about a backend this one builds on; else
 * REG_COMPILER_ERROR @code with the backend's message, or saying that
 * there was none (for a class defined in Python: that it raised an
 * exception or returned None). */
gboolean _reg_backend_check_result    (GObject          *implementation,
                                       const char       *backend,
                                       gboolean          returned,
                                       RegCompilerError  code,
                                       GError          **local_error,
                                       GError          **error);

G_END_DECLS
