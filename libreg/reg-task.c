/* reg-task.c: running a backend's methods, judging what they report
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-message-private.h"
#include "reg-task-private.h"

/* Type data the bindings set (to a non-NULL value) on every type a class
 * of theirs defines, and on no other type. */
#define PYGOBJECT_CUSTOM_KEY "PyGObject::custom"
#define GJS_CUSTOM_KEY       "gjs::custom-type"

/* A backend's message is cut after this many bytes: enough for any
 * message meant to be read. */
#define BACKEND_MESSAGE_MAX 4096

typedef struct
{
  RegTaskFunc     func;
  gpointer        data;
  GDestroyNotify  destroy;
  GError         *stray;  /* set by func beside its result */
} Work;

static gboolean
has_type_data (GType       type,
               const char *key)
{
  GQuark quark = g_quark_try_string (key);

  return quark != 0 && g_type_get_qdata (type, quark) != NULL;
}

gboolean
_reg_binding_is_thread_bound (GType type)
{
  return has_type_data (type, GJS_CUSTOM_KEY);
}

static void
work_free (gpointer data)
{
  Work *work = data;

  work->destroy (work->data);
  g_clear_error (&work->stray);
  g_free (work);
}

static void
run_work (GTask        *task,
          gpointer      source_object,
          gpointer      task_data,
          GCancellable *cancellable)
{
  Work *work = task_data;
  GError *error = NULL;
  gpointer result;

  if (g_task_return_error_if_cancelled (task))
    return;

  if (cancellable != NULL)
    g_cancellable_push_current (cancellable);
  result = work->func (source_object, work->data, &error);
  if (cancellable != NULL)
    g_cancellable_pop_current (cancellable);

  if (result == NULL && error != NULL)
    {
      g_task_return_error (task, error);
    }
  else
    {
      work->stray = error;
      g_task_return_pointer (task, result, g_object_unref);
    }
}

static gboolean
run_work_in_context (gpointer data)
{
  GTask *task = data;

  run_work (task, g_task_get_source_object (task), g_task_get_task_data (task),
            g_task_get_cancellable (task));

  return G_SOURCE_REMOVE;
}

void
_reg_task_run (GTask          *task,
               RegTaskFunc     func,
               gpointer        data,
               GDestroyNotify  destroy)
{
  Work *work = g_new0 (Work, 1);
  GSource *source;

  work->func = func;
  work->data = data;
  work->destroy = destroy;
  g_task_set_task_data (task, work, work_free);

  if (!_reg_binding_is_thread_bound (G_OBJECT_TYPE (g_task_get_source_object (task))))
    {
      g_task_set_return_on_cancel (task, TRUE);
      g_task_run_in_thread (task, run_work);
      return;
    }

  /* Never run inline: the caller's callback must not be called before its
   * _async call has returned. */
  source = g_idle_source_new ();
  g_source_set_priority (source, g_task_get_priority (task));
  g_source_set_static_name (source, "[libreg] thread-bound backend method");
  g_source_set_callback (source, run_work_in_context, g_object_ref (task), g_object_unref);
  g_source_attach (source, g_task_get_context (task));
  g_source_unref (source);
}

gpointer
_reg_task_propagate (GTask   *task,
                     GError **error)
{
  gpointer result = g_task_propagate_pointer (task, error);
  Work *work = g_task_get_task_data (task);

  /* Written before the task returned its result. */
  if (result != NULL && work != NULL && work->stray != NULL)
    g_propagate_error (error, g_steal_pointer (&work->stray));

  return result;
}

gboolean
_reg_backend_check_result (GObject           *implementation,
                           const char        *backend,
                           gboolean           returned,
                           RegCompilerError   code,
                           GError           **local_error,
                           GError           **error)
{
  g_autofree char *who = NULL;
  g_autoptr(GError) reported = g_steal_pointer (local_error);
  g_autofree char *why = NULL;

  /* Every call comes here: escaped only for a message. */
  if (returned && reported == NULL)
    return TRUE;

  who = _reg_text_for_message (backend, -1, 256);
  if (reported != NULL)
    why = _reg_text_for_message (reported->message, -1, BACKEND_MESSAGE_MAX);

  if (returned)
    {
      g_warning ("backend '%s' returned its result and set an error: %s", who, why);
      return TRUE;
    }

  if (reported == NULL)
    {
      /* PyGObject prints an exception that is not a GLib.Error and gives C
       * no error for it. */
      g_set_error (error, REG_COMPILER_ERROR, code, "backend '%s'%s", who,
                   has_type_data (G_OBJECT_TYPE (implementation), PYGOBJECT_CUSTOM_KEY)
                   ? ": the Python implementation raised an exception (its traceback "
                     "was printed) or returned None"
                   : " failed without giving a reason");
    }
  else if (reported->domain == REG_COMPILER_ERROR || reported->domain == REG_GRAPH_ERROR ||
           reported->domain == REG_TENSOR_ERROR ||
           g_error_matches (reported, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* The errors callers of libreg handle (in its domains, or the
       * cancellation of a cancellable the caller gave) reach the caller
       * as they are, the text escaped like any other from outside. */
      g_free (reported->message);
      reported->message = g_steal_pointer (&why);
      g_propagate_error (error, g_steal_pointer (&reported));
    }
  else
    {
      /* A registry error is not the registry's of this call (this backend
       * exists) but says it could not provide a backend this one builds
       * on: a code of its own, so that callers and `regctl verify` tell it
       * from this backend's failures. */
      gboolean unavailable =
        g_error_matches (reported, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND) ||
        g_error_matches (reported, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);

      g_set_error (error, REG_COMPILER_ERROR,
                   unavailable ? REG_COMPILER_ERROR_BACKEND_UNAVAILABLE : code,
                   "backend '%s': %s", who, why);
    }

  return FALSE;
}
