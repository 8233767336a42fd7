/* reg-task-private.h: running a backend's methods, and judging what they
 * report
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

/* Runs @func with @data (freed with @destroy; the task data of @task) for
 * @task: in a worker thread, with return-on-cancel set (a cancelled task
 * returns at once; the work's late result is dropped), or, when the
 * task's source object is thread-bound, from an idle source of the task's
 * main context.  When the task's cancellable is cancelled by then, @func
 * does not run; otherwise it runs with the cancellable as the thread's
 * current one (g_cancellable_get_current()), for the backend's code to
 * check.  The task returns what @func returned or the error it set, as
 * they are: its _finish() judges them with _reg_backend_check_result(). */
void     _reg_task_run                (GTask            *task,
                                       RegTaskFunc       func,
                                       gpointer          data,
                                       GDestroyNotify    destroy);

/* Judges the outcome of a backend's compile or call, made by
 * @implementation for the backend named @backend: @returned says whether
 * it returned its result, @local_error is the error it set (cleared here).
 *
 * Returned with no error: TRUE.  Returned and set an error: a warning, the
 * error dropped, TRUE.  Failed with an error: the error goes to @error, as
 * REG_COMPILER_ERROR_BACKEND_UNAVAILABLE when it is the registry's for a
 * backend it cannot provide (one this backend builds on), as
 * REG_COMPILER_ERROR @code with the backend's message when its domain is
 * not one of libreg's (a binding's own, such as GJS's); FALSE.  Failed
 * without an error: REG_COMPILER_ERROR @code saying so; when
 * @implementation is of a class defined in Python, saying that it raised
 * an exception whose traceback was printed or returned None; FALSE. */
gboolean _reg_backend_check_result    (GObject          *implementation,
                                       const char       *backend,
                                       gboolean          returned,
                                       RegCompilerError  code,
                                       GError          **local_error,
                                       GError          **error);

G_END_DECLS
