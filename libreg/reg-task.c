/* reg-task.c: a backend's synchronous method, run for a GTask
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-binding-private.h"
#include "reg-task-private.h"

typedef struct
{
  GTask           *task;
  GTaskThreadFunc  func;
} ContextRun;

static void
context_run_free (gpointer data)
{
  ContextRun *run = data;

  g_object_unref (run->task);
  g_free (run);
}

static gboolean
context_run_dispatch (gpointer data)
{
  ContextRun *run = data;

  run->func (run->task, g_task_get_source_object (run->task),
             g_task_get_task_data (run->task), g_task_get_cancellable (run->task));

  return G_SOURCE_REMOVE;
}

void
_reg_task_run (GTask           *task,
               GObject         *implementation,
               GTaskThreadFunc  func)
{
  ContextRun *run;
  GSource *source;

  if (!_reg_binding_is_thread_bound (G_OBJECT_TYPE (implementation)))
    {
      g_task_set_return_on_cancel (task, TRUE);
      g_task_run_in_thread (task, func);
      return;
    }

  /* Never run inline: the caller's callback must not be called before its
   * _async call has returned. */
  run = g_new (ContextRun, 1);
  run->task = g_object_ref (task);
  run->func = func;
  source = g_idle_source_new ();
  g_source_set_priority (source, g_task_get_priority (task));
  g_source_set_static_name (source, "[libreg] thread-bound backend method");
  g_source_set_callback (source, context_run_dispatch, run, context_run_free);
  g_source_attach (source, g_task_get_context (task));
  g_source_unref (source);
}

gboolean
_reg_task_begin (GTask        *task,
                 GCancellable *cancellable)
{
  if (g_task_return_error_if_cancelled (task))
    return FALSE;

  if (cancellable != NULL)
    g_cancellable_push_current (cancellable);

  return TRUE;
}

void
_reg_task_end (GCancellable *cancellable)
{
  if (cancellable != NULL)
    g_cancellable_pop_current (cancellable);
}
