/* reg-compiled-fn.c: the callable a compiler makes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "reg-compiled-fn-private.h"
#include "reg-message-private.h"
#include "reg-once-private.h"
#include "reg-task-private.h"
#include "reg-tensor.h"

/**
 * RegCompiledFn:
 *
 * A compiled graph, made by [method@Reg.Compiler.compile].  Call it with
 * [method@Reg.CompiledFn.call] on tensors shaped like the example inputs it
 * was compiled for.  It carries the signature of that compile (the graph's
 * input names, the shapes of the example inputs and those the graph gives
 * its outputs), and every call is checked against it, before the backend
 * runs (the inputs) and after (what the backend returned), so that a
 * backend that returns too few outputs, something that is not a tensor,
 * or a tensor of the wrong shape gives an error instead of wrong results.
 *
 * ## Implementing it
 *
 * A backend implements the [vfunc@Reg.CompiledFn.run] virtual method,
 * which returns the outputs as a [iface@Gio.ListModel] of
 * [class@Reg.Tensor], typically a [class@Gio.ListStore]: one object that
 * holds its tensors, which every binding hands over correctly
 * ([Writing a backend](writing-a-backend.html) shows it in C and Python).
 * The virtual method has a name of its own so that `call`, which runs it
 * between the checks, means the checked method in every language.
 *
 * The same function object may be returned by several compiles of the same
 * graph for the same input shapes (a backend's own cache, say); returning
 * it for a different signature is an error, as its calls could not be
 * checked against both.
 */

/**
 * RegCompiledFnInterface::run:
 * @self: a [iface@Reg.CompiledFn]
 * @inputs: (element-type Reg.Tensor): one tensor per graph input, in the
 *   order of the graph's inputs, already checked against the example
 *   inputs
 * @error: return location for a #GError
 *
 * Runs the compiled graph on @inputs.
 *
 * The outputs are new tensors, or tensors the function holds, or inputs
 * themselves; the caller must not modify them in place.  Errors are
 * %REG_COMPILER_ERROR_RUNTIME, or another libreg domain; an error of any
 * other domain reaches the caller of [method@Reg.CompiledFn.call] as
 * %REG_COMPILER_ERROR_RUNTIME with its message.
 *
 * Returns: (transfer full): the outputs, one [class@Reg.Tensor] per graph
 *   output in order, or %NULL with @error set
 */

/**
 * RegCompiledFnInterface::run_async: (skip)
 * @self: a [iface@Reg.CompiledFn]
 * @inputs: (element-type Reg.Tensor): one tensor per graph input, already
 *   checked against the example inputs
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: called in the thread-default main context of the caller when
 *   the run is done
 * @user_data: data for @callback
 *
 * Starts running the compiled graph on @inputs.  The default
 * implementation runs [vfunc@Reg.CompiledFn.run] in a worker thread with
 * @cancellable as the thread's current cancellable
 * (g_cancellable_get_current()), so that a long synchronous run can stop
 * early; for a class defined in JavaScript, whose code runs in one thread,
 * it runs it from the caller's main context instead.  Override it when the
 * backend can do better.
 */

/**
 * RegCompiledFnInterface::run_finish: (skip)
 * @self: a [iface@Reg.CompiledFn]
 * @result: the result given to the callback of
 *   [vfunc@Reg.CompiledFn.run_async]
 * @error: return location for a #GError
 *
 * Finishes [vfunc@Reg.CompiledFn.run_async].
 *
 * Returns: (transfer full): the outputs, as [vfunc@Reg.CompiledFn.run]
 *   returns them, or %NULL with @error set
 */

G_DEFINE_INTERFACE (RegCompiledFn, reg_compiled_fn, G_TYPE_OBJECT)

/* What the first compile that returned a function recorded on it: set
 * once (_reg_once_set()), never changed, freed with the object, so calls
 * in any thread read it without a lock. */
typedef struct
{
  char      *backend;    /* the backend's name, for messages */
  guint      n_inputs;
  guint      n_outputs;
  char     **names;      /* n_inputs input names, then n_outputs output names */
  RegShape  *shapes;     /* the same order: example inputs, then outputs */
  RegPlacementFunc placement;  /* nullable: set before anyone else has the function */
} Signature;

/* The qdata key of the Signature.  Set before any function exists
 * (reg_compiled_fn_default_init()), so that any thread reads it without a
 * race. */
static GQuark signature_quark;

static void
signature_free (gpointer data)
{
  Signature *sig = data;

  g_free (sig->backend);
  g_strfreev (sig->names);
  g_free (sig->shapes);
  g_free (sig);
}

gboolean
_reg_backend_fail (GError           **error,
                   RegCompilerError   code,
                   const char        *backend,
                   const char        *format,
                   ...)
{
  g_autofree char *who = _reg_text_for_message (backend, -1, 256);
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, REG_COMPILER_ERROR, code, "backend '%s'%s", who, what);
  return FALSE;
}

static gboolean
tensor_has_shape (RegTensor      *tensor,
                  const RegShape *shape)
{
  guint n_dims;
  const gint64 *dims = reg_tensor_get_shape (tensor, &n_dims);

  return _reg_shape_is (shape, dims, n_dims);
}

/* "[2, 3]" for a message. */
static char *
tensor_shape_to_string (RegTensor *tensor)
{
  guint n_dims;
  const gint64 *dims = reg_tensor_get_shape (tensor, &n_dims);

  return _reg_shape_to_string (dims, n_dims);
}

static gboolean
signature_equal (const Signature *a,
                 const Signature *b)
{
  guint n = a->n_inputs + a->n_outputs;

  if (a->n_inputs != b->n_inputs || a->n_outputs != b->n_outputs)
    return FALSE;

  for (guint i = 0; i < n; i++)
    if (!g_str_equal (a->names[i], b->names[i]) ||
        !_reg_shape_is (&a->shapes[i], b->shapes[i].dims, b->shapes[i].n_dims))
      return FALSE;

  return TRUE;
}

/* A copy of a caller's array of tensors, which it may change while an
 * asynchronous call runs. */
static GPtrArray *
tensors_copy (GPtrArray *tensors)
{
  GPtrArray *copy = g_ptr_array_new_full (tensors->len, g_object_unref);

  for (guint i = 0; i < tensors->len; i++)
    g_ptr_array_add (copy, g_object_ref (g_ptr_array_index (tensors, i)));

  return copy;
}

static gpointer
run_in_worker (gpointer   source_object,
               gpointer   data,
               GError   **error)
{
  RegCompiledFn *self = source_object;

  return REG_COMPILED_FN_GET_IFACE (self)->run (self, data, error);
}

static void
reg_compiled_fn_real_run_async (RegCompiledFn       *self,
                                GPtrArray           *inputs,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, reg_compiled_fn_real_run_async);
  _reg_task_run (task, run_in_worker, tensors_copy (inputs), (GDestroyNotify) g_ptr_array_unref);
}

static GListModel *
reg_compiled_fn_real_run_finish (RegCompiledFn  *self,
                                 GAsyncResult   *result,
                                 GError        **error)
{
  return _reg_task_propagate (G_TASK (result), error);
}

static void
reg_compiled_fn_default_init (RegCompiledFnInterface *iface)
{
  iface->run_async = reg_compiled_fn_real_run_async;
  iface->run_finish = reg_compiled_fn_real_run_finish;

  signature_quark = g_quark_from_static_string ("reg-compiled-fn-signature");
}

gboolean
_reg_compiled_fn_bind (RegCompiledFn   *fn,
                       const char      *backend,
                       RegGraph        *graph,
                       GPtrArray       *example_inputs,
                       const RegShape  *node_shapes,
                       GError         **error)
{
  Signature *sig = g_new0 (Signature, 1);
  gboolean same;
  const guint *inputs, *outputs;
  guint n_inputs, n_outputs;

  inputs = reg_graph_get_inputs (graph, &n_inputs);
  outputs = reg_graph_get_outputs (graph, &n_outputs);
  g_assert (n_inputs == example_inputs->len);

  sig->backend = g_strdup (backend);
  sig->n_inputs = n_inputs;
  sig->n_outputs = n_outputs;
  sig->names = g_new0 (char *, n_inputs + n_outputs + 1);
  sig->shapes = g_new0 (RegShape, n_inputs + n_outputs);
  for (guint i = 0; i < n_inputs; i++)
    {
      RegTensor *t = g_ptr_array_index (example_inputs, i);
      const gint64 *dims = reg_tensor_get_shape (t, &sig->shapes[i].n_dims);

      memcpy (sig->shapes[i].dims, dims, sizeof (gint64) * sig->shapes[i].n_dims);
      sig->names[i] = g_strdup (reg_graph_get_node_name (graph, inputs[i]));
    }
  for (guint i = 0; i < n_outputs; i++)
    {
      /* For messages: a constant returned as an output has no name. */
      const char *name = reg_graph_get_node_name (graph, outputs[i]);

      sig->shapes[n_inputs + i] = node_shapes[outputs[i]];
      sig->names[n_inputs + i] = name != NULL ? g_strdup (name)
                                              : g_strdup_printf ("%%%u", outputs[i]);
    }

  if (_reg_once_set (G_OBJECT (fn), signature_quark, sig, signature_free))
    return TRUE;

  /* Returned by an earlier compile: its signature stays as it is (calls in
   * other threads may be reading it), and must be this one. */
  same = signature_equal (_reg_once_get (G_OBJECT (fn), signature_quark), sig);
  signature_free (sig);

  if (!same)
    return _reg_backend_fail (error, REG_COMPILER_ERROR_FAILED, backend,
                              " returned a function that an earlier compile returned "
                              "for another graph signature; a compiled function serves "
                              "one signature (input names and shapes, output shapes)");

  return TRUE;
}

void
_reg_compiled_fn_set_placement_func (RegCompiledFn    *fn,
                                     RegPlacementFunc  func)
{
  Signature *sig = _reg_once_get (G_OBJECT (fn), signature_quark);

  g_assert (sig != NULL && sig->placement == NULL);
  sig->placement = func;
}

static gboolean
check_inputs (const Signature  *sig,
              GPtrArray        *inputs,
              GError          **error)
{
  if (inputs->len != sig->n_inputs)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_INPUTS,
                   "expected %u input%s, got %u",
                   sig->n_inputs, sig->n_inputs == 1 ? "" : "s", inputs->len);
      return FALSE;
    }

  for (guint i = 0; i < inputs->len; i++)
    {
      RegTensor *input = g_ptr_array_index (inputs, i);

      if (!tensor_has_shape (input, &sig->shapes[i]))
        {
          g_autofree char *got_s = tensor_shape_to_string (input);
          g_autofree char *want_s = _reg_shape_to_string (sig->shapes[i].dims,
                                                          sig->shapes[i].n_dims);

          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_INPUTS,
                       "input %u ('%s'): expected shape %s, got %s",
                       i, sig->names[i], want_s, got_s);
          return FALSE;
        }
    }

  return TRUE;
}

/* Judges what the backend's run gave (@model and @local_error, taken
 * over) and reads the model, once, into an array that owns its tensors:
 * whatever the model does afterwards, the caller keeps what was checked.
 * Every item must be a tensor; with a signature, the number of outputs
 * and the shape of each are checked as the inputs are.  The model's count
 * is checked before any item is read: it is not ours to believe. */
static GPtrArray *
call_conclude (RegCompiledFn    *self,
               const Signature  *sig,
               GListModel       *model,
               GError           *local_error,
               GError          **error)
{
  g_autoptr(GListModel) result = model;
  const char *backend = sig != NULL ? sig->backend : G_OBJECT_TYPE_NAME (self);
  g_autoptr(GPtrArray) outputs = NULL;
  guint n;

  if (!_reg_backend_check_result (G_OBJECT (self), backend, result != NULL,
                                  REG_COMPILER_ERROR_RUNTIME, &local_error, error))
    return NULL;

  if (!G_IS_LIST_MODEL (result))
    {
      _reg_backend_fail (error, REG_COMPILER_ERROR_RUNTIME, backend,
                         " returned a %s, not a GListModel of RegTensor",
                         G_OBJECT_TYPE_NAME (result));
      return NULL;
    }

  n = g_list_model_get_n_items (result);
  if (sig != NULL && n != sig->n_outputs)
    {
      _reg_backend_fail (error, REG_COMPILER_ERROR_RUNTIME, backend,
                         " returned %u output%s, the graph has %u",
                         n, n == 1 ? "" : "s", sig->n_outputs);
      return NULL;
    }

  outputs = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < n; i++)
    {
      GObject *item = g_list_model_get_item (result, i);
      const RegShape *want;

      if (item == NULL || !REG_IS_TENSOR (item))
        {
          _reg_backend_fail (error, REG_COMPILER_ERROR_RUNTIME, backend,
                             " returned output %u as %s, not a RegTensor",
                             i, item == NULL ? "nothing" : G_OBJECT_TYPE_NAME (item));
          g_clear_object (&item);
          return NULL;
        }
      g_ptr_array_add (outputs, item);

      if (sig == NULL)
        continue;

      want = &sig->shapes[sig->n_inputs + i];
      if (!tensor_has_shape (REG_TENSOR (item), want))
        {
          g_autofree char *got_s = tensor_shape_to_string (REG_TENSOR (item));
          g_autofree char *want_s = _reg_shape_to_string (want->dims, want->n_dims);

          _reg_backend_fail (error, REG_COMPILER_ERROR_RUNTIME, backend,
                             " returned output %u ('%s') of shape %s, "
                             "the graph gives it shape %s",
                             i, sig->names[sig->n_inputs + i], got_s, want_s);
          return NULL;
        }
    }

  return g_steal_pointer (&outputs);
}

/* @inputs NULL: they are known to fit (see call_sync()). */
static gboolean
call_begin (RegCompiledFn    *self,
            GPtrArray        *inputs,
            const Signature **sig,
            GError          **error)
{
  *sig = _reg_once_get (G_OBJECT (self), signature_quark);
  if (*sig != NULL && inputs != NULL && !check_inputs (*sig, inputs, error))
    return FALSE;

  /* run is required, whether or not run_async is overridden. */
  if (REG_COMPILED_FN_GET_IFACE (self)->run == NULL)
    return _reg_backend_fail (error, REG_COMPILER_ERROR_RUNTIME,
                              *sig != NULL ? (*sig)->backend : G_OBJECT_TYPE_NAME (self),
                              ": %s does not implement run", G_OBJECT_TYPE_NAME (self));

  return TRUE;
}

/* reg_compiled_fn_call(), its arguments checked; @inputs are checked
 * against the signature only when @check_inputs. */
static GPtrArray *
call_sync (RegCompiledFn  *self,
           GPtrArray      *inputs,
           gboolean        check_inputs,
           GError        **error)
{
  const Signature *sig;
  GError *local_error = NULL;
  GListModel *model;

  if (!call_begin (self, check_inputs ? inputs : NULL, &sig, error))
    return NULL;

  model = REG_COMPILED_FN_GET_IFACE (self)->run (self, inputs, &local_error);

  return call_conclude (self, sig, model, local_error, error);
}

/**
 * reg_compiled_fn_call:
 * @self: a [iface@Reg.CompiledFn]
 * @inputs: (element-type Reg.Tensor): one tensor per graph input, in order
 * @error: return location for a #GError
 *
 * Runs the compiled graph.
 *
 * The inputs must match the example inputs the function was compiled for in
 * number and shapes, or the call fails with %REG_COMPILER_ERROR_BAD_INPUTS
 * before the backend runs.  What the backend returns is checked too: a
 * number of outputs other than the graph's, an output that is not a
 * [class@Reg.Tensor], or one whose shape differs from the shape the graph
 * gives it fails with %REG_COMPILER_ERROR_RUNTIME naming the backend and the
 * output.  A backend that fails without saying why (a binding's
 * implementation that raised an exception) gives
 * %REG_COMPILER_ERROR_RUNTIME too.
 *
 * The returned array owns its tensors (its element free function is
 * g_object_unref()): C callers free it with g_ptr_array_unref().  The
 * tensors may be the function's own or the inputs themselves: do not
 * modify them in place.
 *
 * This function is thread-safe if the backend is.
 *
 * Returns: (transfer container) (element-type Reg.Tensor): the outputs, or
 *   %NULL with @error set
 */
GPtrArray *
reg_compiled_fn_call (RegCompiledFn  *self,
                      GPtrArray      *inputs,
                      GError        **error)
{
  g_return_val_if_fail (REG_IS_COMPILED_FN (self), NULL);
  g_return_val_if_fail (inputs != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  for (guint i = 0; i < inputs->len; i++)
    g_return_val_if_fail (REG_IS_TENSOR (g_ptr_array_index (inputs, i)), NULL);

  return call_sync (self, inputs, TRUE, error);
}

GPtrArray *
_reg_compiled_fn_call_trusted (RegCompiledFn  *self,
                               GPtrArray      *inputs,
                               GError        **error)
{
  return call_sync (self, inputs, FALSE, error);
}

static void
run_async_done (GObject      *source_object,
                GAsyncResult *result,
                gpointer      user_data)
{
  RegCompiledFn *self = REG_COMPILED_FN (source_object);
  g_autoptr(GTask) task = user_data;
  GError *local_error = NULL;
  GError *error = NULL;
  GListModel *model;
  GPtrArray *outputs;

  model = REG_COMPILED_FN_GET_IFACE (self)->run_finish (self, result, &local_error);

  /* Cancelled is not the backend's failure: it stays as it is. */
  if (model == NULL && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, local_error);
      return;
    }

  outputs = call_conclude (self, g_task_get_task_data (task), model, local_error, &error);
  if (outputs == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, outputs, (GDestroyNotify) g_ptr_array_unref);
}

/**
 * reg_compiled_fn_call_async:
 * @self: a [iface@Reg.CompiledFn]
 * @inputs: (element-type Reg.Tensor): one tensor per graph input, in order
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: called when the call is done
 * @user_data: data for @callback
 *
 * Runs the compiled graph without blocking: the asynchronous form of
 * [method@Reg.CompiledFn.call], with the same checks and errors.  The
 * inputs are checked in the calling thread; the backend runs in a worker
 * thread, or as the backend's [vfunc@Reg.CompiledFn.run_async] arranges.
 * The caller must not modify the input tensors until the call is done.
 *
 * @callback runs in the thread-default main context of the calling
 * thread.  Cancelling @cancellable makes the call finish promptly with
 * %G_IO_ERROR_CANCELLED; if it is cancelled before the backend starts,
 * the backend never runs.  Call [method@Reg.CompiledFn.call_finish] from
 * @callback.
 */
void
reg_compiled_fn_call_async (RegCompiledFn       *self,
                            GPtrArray           *inputs,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GPtrArray) inputs_copy = NULL;
  const Signature *sig;
  GError *error = NULL;

  g_return_if_fail (REG_IS_COMPILED_FN (self));
  g_return_if_fail (inputs != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  for (guint i = 0; i < inputs->len; i++)
    g_return_if_fail (REG_IS_TENSOR (g_ptr_array_index (inputs, i)));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, reg_compiled_fn_call_async);

  if (!call_begin (self, inputs, &sig, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  /* The signature lives as long as @self, which the task holds. */
  g_task_set_task_data (task, (gpointer) sig, NULL);
  inputs_copy = tensors_copy (inputs);
  REG_COMPILED_FN_GET_IFACE (self)->run_async (self, inputs_copy, cancellable,
                                               run_async_done, g_steal_pointer (&task));
}

/**
 * reg_compiled_fn_call_finish:
 * @self: a [iface@Reg.CompiledFn]
 * @result: the result given to the callback of
 *   [method@Reg.CompiledFn.call_async]
 * @error: return location for a #GError
 *
 * Finishes [method@Reg.CompiledFn.call_async].  The outputs are owned as
 * those of [method@Reg.CompiledFn.call] are.
 *
 * Returns: (transfer container) (element-type Reg.Tensor): the outputs, or
 *   %NULL with @error set
 */
GPtrArray *
reg_compiled_fn_call_finish (RegCompiledFn  *self,
                             GAsyncResult   *result,
                             GError        **error)
{
  g_return_val_if_fail (REG_IS_COMPILED_FN (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * reg_compiled_fn_dup_placement:
 * @self: a [iface@Reg.CompiledFn]
 *
 * Tells where the nodes of a partitioned function run.  A registry
 * partitions a graph when its backend does not take every node (see
 * [Partial backends](partial-backends.html)): the function then runs
 * groups of nodes in order, each compiled by one backend.  The placement
 * gives, for each group in the order they run, the name of that backend
 * and the ids of the group's nodes in the graph that was compiled
 * (operator nodes only: inputs and constants run nowhere):
 *
 * ```python
 * for backend, nodes in fn.dup_placement().unpack():
 *     print(backend, [graph.get_node_op(n) for n in nodes])
 * ```
 *
 * This function is thread-safe.
 *
 * Returns: (transfer full) (nullable): an `a(sau)` variant, or %NULL for a
 *   function that one backend compiled whole
 *   ([method@Reg.CompiledFn.get_backend] names it)
 */
GVariant *
reg_compiled_fn_dup_placement (RegCompiledFn *self)
{
  const Signature *sig;

  g_return_val_if_fail (REG_IS_COMPILED_FN (self), NULL);

  sig = _reg_once_get (G_OBJECT (self), signature_quark);

  return sig != NULL && sig->placement != NULL ? sig->placement (self) : NULL;
}

/**
 * reg_compiled_fn_get_backend:
 * @self: a [iface@Reg.CompiledFn]
 *
 * Gets the name of the backend that compiled @self: the name the registry
 * compiled it under ([method@Reg.Registry.compile] tells which backend of
 * a fallback chain succeeded this way), or the compiler's own name
 * ([method@Reg.Compiler.get_name]) when it was compiled directly.  For a
 * partitioned function, the backend that the registry partitioned the
 * graph for, which compiled part of it:
 * [method@Reg.CompiledFn.dup_placement] tells where each node runs.  A
 * function returned by several compiles keeps the name of the first.
 * This function is thread-safe.
 *
 * Returns: (nullable): the name, or %NULL for a function that no compile
 *   returned
 */
const char *
reg_compiled_fn_get_backend (RegCompiledFn *self)
{
  const Signature *sig;

  g_return_val_if_fail (REG_IS_COMPILED_FN (self), NULL);

  sig = _reg_once_get (G_OBJECT (self), signature_quark);

  return sig != NULL ? sig->backend : NULL;
}
