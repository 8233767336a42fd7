/* test-async.c: compiling and calling without blocking, and cancelling
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <reg.h>

#include "test-backend.h"
#include "test-files.h"
#include "test-objects.h"

static const char *neg_text =
  "graph(x):\n"
  "  a = neg(x)\n"
  "  return (a,)\n";

/* Where and with what a callback ran. */
typedef struct
{
  gboolean      done;
  GThread      *thread;
  GMainContext *context;
  GObject      *result;   /* the function, or the outputs' first tensor */
  GPtrArray    *outputs;
  GError       *error;
} Outcome;

static void
outcome_clear (Outcome *o)
{
  g_clear_object (&o->result);
  g_clear_pointer (&o->outputs, g_ptr_array_unref);
  g_clear_error (&o->error);
}

static void
note_where (Outcome *o)
{
  o->done = TRUE;
  o->thread = g_thread_self ();
  o->context = g_main_context_get_thread_default ();
}

static void
registry_compiled (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Outcome *o = user_data;

  note_where (o);
  o->result = G_OBJECT (reg_registry_compile_finish (REG_REGISTRY (source), result, &o->error));
}

static void
compiler_compiled (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Outcome *o = user_data;

  note_where (o);
  o->result = G_OBJECT (reg_compiler_compile_finish (REG_COMPILER (source), result, &o->error));
}

static void
fn_called (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Outcome *o = user_data;

  note_where (o);
  o->outputs = reg_compiled_fn_call_finish (REG_COMPILED_FN (source), result, &o->error);
}

static void
wait_for (Outcome *o)
{
  while (!o->done)
    g_main_context_iteration (g_main_context_get_thread_default (), TRUE);
}

typedef struct
{
  RegRegistry *registry;
  TestBackend *backend;    /* "steered", shareable */
  RegGraph    *graph;
  GPtrArray   *inputs;
  GMainContext *context;   /* thread-default for the test */
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->registry = reg_registry_new ();
  f->backend = test_backend_new ("steered", REG_COMPILER_FLAGS_SHAREABLE);
  g_assert_true (reg_registry_register_backend (f->registry, NULL, REG_COMPILER (f->backend),
                                                NULL, &error));
  f->graph = graph_new_from_string (neg_text);
  f->inputs = tensor_array_new ();
  g_ptr_array_add (f->inputs, reg_tensor_new_from_data ((const float[]) { 1, -2 }, 2,
                                                        (const gint64[]) { 2 }, 1, &error));
  g_assert_no_error (error);
  /* Callbacks must come in the caller's thread-default context, not the
   * global default one. */
  f->context = g_main_context_new ();
  g_main_context_push_thread_default (f->context);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  /* Let finished workers drop what they hold. */
  while (g_main_context_iteration (f->context, FALSE))
    ;
  g_main_context_pop_thread_default (f->context);
  g_main_context_unref (f->context);
  g_ptr_array_unref (f->inputs);
  g_object_unref (f->graph);
  g_object_unref (f->backend);
  g_object_unref (f->registry);
}

static void
test_registry_compile_async (Fixture       *f,
                             gconstpointer  data)
{
  Outcome o = { 0 };
  g_autoptr(RegCompiledFn) sync_fn = NULL;
  g_autoptr(GError) error = NULL;

  reg_registry_compile_async (f->registry, "steered", f->graph, f->inputs, NULL, NULL,
                              registry_compiled, &o);
  g_assert_false (o.done);   /* never called back before the call returns */
  wait_for (&o);
  g_assert_no_error (o.error);
  g_assert_true (REG_IS_COMPILED_FN (o.result));
  g_assert_true (o.thread == g_thread_self ());
  g_assert_true (o.context == f->context);
  g_assert_cmpstr (reg_compiled_fn_get_backend (REG_COMPILED_FN (o.result)), ==, "steered");
  /* the backend saw a worker's current cancellable: none was given */
  g_assert_false (f->backend->saw_cancellable);

  /* the same cache as the synchronous path */
  sync_fn = reg_registry_compile (f->registry, "steered", f->graph, f->inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (G_OBJECT (sync_fn) == o.result);
  g_assert_cmpint (test_backend_get_compiles (f->backend), ==, 1);
  outcome_clear (&o);
}

/* The default backend, errors through the callback, and the fallback
 * signal in the caller's context. */
static void
on_fallback (RegRegistry  *registry,
             const char   *failed,
             const char   *next,
             const GError *error,
             gpointer      user_data)
{
  Outcome *o = user_data;

  note_where (o);
}

static void
test_registry_compile_async_default_and_errors (Fixture       *f,
                                                gconstpointer  data)
{
  g_autoptr(TestBackend) fallback = test_backend_new ("spare", REG_COMPILER_FLAGS_NONE);
  g_autoptr(GPtrArray) wrong = tensor_array_new ();
  g_autoptr(GError) error = NULL;
  Outcome o = { 0 };
  Outcome heard = { 0 };

  reg_registry_set_default_backend (f->registry, "steered");
  reg_registry_compile_async (f->registry, NULL, f->graph, f->inputs, NULL, NULL,
                              registry_compiled, &o);
  wait_for (&o);
  g_assert_no_error (o.error);
  outcome_clear (&o);
  o = (Outcome) { 0 };

  g_ptr_array_add (wrong, reg_tensor_new ((const gint64[]) { 2, 2 }, 2));
  g_ptr_array_add (wrong, reg_tensor_new ((const gint64[]) { 2, 2 }, 2));
  reg_registry_compile_async (f->registry, "steered", f->graph, wrong, NULL, NULL,
                              registry_compiled, &o);
  wait_for (&o);
  g_assert_error (o.error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE);
  outcome_clear (&o);
  o = (Outcome) { 0 };

  reg_registry_compile_async (f->registry, "stered", f->graph, f->inputs, NULL, NULL,
                              registry_compiled, &o);
  wait_for (&o);
  g_assert_error (o.error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
  outcome_clear (&o);
  o = (Outcome) { 0 };

  g_assert_true (reg_registry_register_backend (f->registry, NULL, REG_COMPILER (fallback), NULL, &error));
  reg_registry_set_fallback_backends (f->registry, (const char *[]) { "spare", NULL });
  g_signal_connect (f->registry, "fallback", G_CALLBACK (on_fallback), &heard);
  test_backend_fail_with (f->backend, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  /* Not the graph compiled above, which the cache would answer. */
  reg_registry_set_compile_cache_size (f->registry, 0);
  g_test_expect_message ("Reg", G_LOG_LEVEL_MESSAGE, "*falling back to 'spare'");
  reg_registry_compile_async (f->registry, "steered", f->graph, f->inputs, NULL, NULL,
                              registry_compiled, &o);
  wait_for (&o);
  g_test_assert_expected_messages ();
  g_assert_no_error (o.error);
  g_assert_cmpstr (reg_compiled_fn_get_backend (REG_COMPILED_FN (o.result)), ==, "spare");
  g_assert_true (heard.done);
  g_assert_true (heard.thread == g_thread_self ());
  g_assert_true (heard.context == f->context);
  outcome_clear (&o);
}

/* Cancelled before it starts: no backend runs. */
static void
test_cancel_before_start (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;
  Outcome o = { 0 };
  Outcome c = { 0 };

  g_cancellable_cancel (cancellable);
  reg_registry_compile_async (f->registry, "steered", f->graph, f->inputs, NULL, cancellable,
                              registry_compiled, &o);
  wait_for (&o);
  g_assert_error (o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (o.result);
  outcome_clear (&o);
  o = (Outcome) { 0 };

  reg_compiler_compile_async (REG_COMPILER (f->backend), f->graph, f->inputs, NULL, cancellable,
                              compiler_compiled, &o);
  wait_for (&o);
  g_assert_error (o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (test_backend_get_compiles (f->backend), ==, 0);
  outcome_clear (&o);

  fn = reg_registry_compile (f->registry, "steered", f->graph, f->inputs, NULL, &error);
  g_assert_no_error (error);
  reg_compiled_fn_call_async (fn, f->inputs, cancellable, fn_called, &c);
  wait_for (&c);
  g_assert_error (c.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (TEST_BACKEND_FN (fn)->runs, ==, 0);
  outcome_clear (&c);
}

static void
count_module_loads (RegRegistry *registry,
                    RegModule   *module,
                    gpointer     data)
{
  (*(guint *) data)++;
}

/* A declared backend whose compile is cancelled before it starts is not
 * even loaded: the module is never opened (the lookup runs in the
 * compile's worker, after the check for a cancellation). */
static void
test_cancel_before_start_module (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(RegGraph) graph = reg_graph_new_from_string ("graph(x):\n  y = neg(x)\n  return (y,)\n", NULL);
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(RegBackendInfo) info = NULL;
  g_autofree char *dir = make_tmp_dir ();
  const gint64 shape[] = { 4 };
  guint loads = 0;
  Outcome o = { 0 };

  copy_fixture (dir, "good");
  reg_registry_add_search_path (registry, dir);
  g_signal_connect (registry, "module-loaded", G_CALLBACK (count_module_loads), &loads);
  g_ptr_array_add (inputs, reg_tensor_new (shape, 1));

  g_cancellable_cancel (cancellable);
  reg_registry_compile_async (registry, "fixture_a", graph, inputs, NULL, cancellable,
                              registry_compiled, &o);
  wait_for (&o);
  g_assert_error (o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  outcome_clear (&o);

  /* The callback comes at once (the task returns on cancel), while its
   * worker may still run: it holds the registry until it is done. */
  for (guint waited = 0; G_OBJECT (registry)->ref_count > 1; waited++)
    {
      g_assert_cmpuint (waited, <, 10000);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_cmpuint (loads, ==, 0);
  info = reg_registry_get_backend_info (registry, "fixture_a");
  g_assert_cmpint (reg_backend_info_get_state (info), ==, REG_BACKEND_STATE_DECLARED);

  remove_tmp_dir (dir);
}

/* Cancelled while the backend runs: the compile finishes at once, and
 * what the backend makes afterwards is dropped, not cached. */
static void
test_cancel_while_running (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(RegCompiledFn) fresh = NULL;
  g_autoptr(GError) error = NULL;
  Outcome o = { 0 };

  test_backend_close_gate (f->backend);
  reg_registry_compile_async (f->registry, "steered", f->graph, f->inputs, NULL, cancellable,
                              registry_compiled, &o);
  /* The compile moves on through the caller's main context. */
  while (!test_backend_is_waiting (f->backend))
    g_main_context_iteration (f->context, FALSE);
  g_assert_true (f->backend->saw_cancellable);
  g_cancellable_cancel (cancellable);
  wait_for (&o);
  g_assert_error (o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  outcome_clear (&o);

  /* The backend is still held: let it finish, and its result go. */
  test_backend_open_gate (f->backend);
  fresh = reg_registry_compile (f->registry, "steered", f->graph, f->inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (test_backend_get_compiles (f->backend), ==, 2);
}

static void
test_compiler_compile_async (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(GPtrArray) wrong = tensor_array_new ();
  Outcome o = { 0 };

  reg_compiler_compile_async (REG_COMPILER (f->backend), f->graph, f->inputs, NULL, NULL,
                              compiler_compiled, &o);
  wait_for (&o);
  g_assert_no_error (o.error);
  g_assert_true (o.context == f->context);
  g_assert_cmpstr (reg_compiled_fn_get_backend (REG_COMPILED_FN (o.result)), ==, "steered");
  outcome_clear (&o);
  o = (Outcome) { 0 };

  /* The checks of the synchronous compile, reported through the callback. */
  g_ptr_array_add (wrong, reg_tensor_new (NULL, 0));
  g_ptr_array_add (wrong, reg_tensor_new (NULL, 0));
  reg_compiler_compile_async (REG_COMPILER (f->backend), f->graph, wrong, NULL, NULL,
                              compiler_compiled, &o);
  g_assert_false (o.done);
  wait_for (&o);
  g_assert_error (o.error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE);
  outcome_clear (&o);
  o = (Outcome) { 0 };

  test_backend_fail_with (f->backend, G_IO_ERROR, G_IO_ERROR_FAILED);
  reg_compiler_compile_async (REG_COMPILER (f->backend), f->graph, f->inputs, NULL, NULL,
                              compiler_compiled, &o);
  wait_for (&o);
  g_assert_error (o.error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
  g_assert_cmpstr (o.error->message, ==, "backend 'steered': steered fails as told");
  outcome_clear (&o);
}

static void
test_call_async (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GPtrArray) wrong = tensor_array_new ();
  g_autoptr(GError) error = NULL;
  Outcome o = { 0 };

  fn = reg_registry_compile (f->registry, "steered", f->graph, f->inputs, NULL, &error);
  g_assert_no_error (error);
  reg_compiled_fn_call_async (fn, f->inputs, NULL, fn_called, &o);
  g_assert_false (o.done);
  wait_for (&o);
  g_assert_no_error (o.error);
  g_assert_true (o.context == f->context);
  g_assert_cmpuint (o.outputs->len, ==, 1);
  g_assert_true (g_ptr_array_index (o.outputs, 0) == g_ptr_array_index (f->inputs, 0));
  outcome_clear (&o);
  o = (Outcome) { 0 };

  g_ptr_array_add (wrong, reg_tensor_new ((const gint64[]) { 3 }, 1));
  reg_compiled_fn_call_async (fn, wrong, NULL, fn_called, &o);
  wait_for (&o);
  g_assert_error (o.error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_INPUTS);
  outcome_clear (&o);
}

/* One key, two callers */

/* A shareable backend with a compile_async of its own, as a backend that
 * does its work its own way writes it: a GTask that runs the compile of
 * @inner (whose gate and counters the tests steer) in a thread and
 * completes in the caller's main context. */
#define TEST_TYPE_OWN_ASYNC (test_own_async_get_type ())
G_DECLARE_FINAL_TYPE (TestOwnAsync, test_own_async, TEST, OWN_ASYNC, GObject)

struct _TestOwnAsync
{
  GObject      parent_instance;
  TestBackend *inner;
};

typedef struct
{
  RegGraph  *graph;
  GPtrArray *inputs;
  GVariant  *options;
} OwnAsyncData;

static void
own_async_data_free (gpointer data)
{
  OwnAsyncData *d = data;

  g_object_unref (d->graph);
  g_ptr_array_unref (d->inputs);
  g_clear_pointer (&d->options, g_variant_unref);
  g_free (d);
}

static RegCompiledFn *
test_own_async_compile (RegCompiler  *compiler,
                        RegGraph     *graph,
                        GPtrArray    *example_inputs,
                        GVariant     *options,
                        GError      **error)
{
  RegCompiler *inner = REG_COMPILER (TEST_OWN_ASYNC (compiler)->inner);

  return REG_COMPILER_GET_IFACE (inner)->compile (inner, graph, example_inputs, options, error);
}

static void
own_async_in_thread (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  OwnAsyncData *d = task_data;
  GError *error = NULL;
  RegCompiledFn *fn = test_own_async_compile (source_object, d->graph, d->inputs, d->options,
                                              &error);

  if (fn == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, fn, g_object_unref);
}

static void
test_own_async_compile_async (RegCompiler         *compiler,
                              RegGraph            *graph,
                              GPtrArray           *example_inputs,
                              GVariant            *options,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (compiler, cancellable, callback, user_data);
  OwnAsyncData *d = g_new0 (OwnAsyncData, 1);

  d->graph = g_object_ref (graph);
  d->inputs = g_ptr_array_ref (example_inputs);
  d->options = options != NULL ? g_variant_ref (options) : NULL;
  g_task_set_task_data (task, d, own_async_data_free);
  g_task_run_in_thread (task, own_async_in_thread);
}

static RegCompiledFn *
test_own_async_compile_finish (RegCompiler   *compiler,
                               GAsyncResult  *result,
                               GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static char *
test_own_async_dup_name (RegCompiler *compiler)
{
  return g_strdup ("own-async");
}

static RegCompilerFlags
test_own_async_get_flags (RegCompiler *compiler)
{
  return REG_COMPILER_FLAGS_SHAREABLE;
}

static void
test_own_async_iface_init (RegCompilerInterface *iface)
{
  iface->compile = test_own_async_compile;
  iface->compile_async = test_own_async_compile_async;
  iface->compile_finish = test_own_async_compile_finish;
  iface->dup_name = test_own_async_dup_name;
  iface->get_flags = test_own_async_get_flags;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestOwnAsync, test_own_async, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILER, test_own_async_iface_init))

static void
test_own_async_finalize (GObject *object)
{
  g_clear_object (&TEST_OWN_ASYNC (object)->inner);

  G_OBJECT_CLASS (test_own_async_parent_class)->finalize (object);
}

static void
test_own_async_class_init (TestOwnAsyncClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_own_async_finalize;
}

static void
test_own_async_init (TestOwnAsync *self)
{
}

typedef enum {
  CALL_SYNC,
  CALL_ASYNC,
} CallMode;

/* A combination: the backend ("steered", whose compile_async is the
 * default, or "own-async"), and how and where each of two callers
 * compiles one key. */
typedef struct
{
  char       *path;
  const char *backend;
  CallMode    first;
  gboolean    first_in_worker;
  CallMode    second;
  gboolean    second_in_worker;
} Combination;

typedef struct
{
  Fixture       *f;
  const char    *backend;
  TestBackend   *gated;          /* whose gate the compiles pass */
  CallMode       mode;
  gboolean       after_gate;     /* starts once a compile is held at the gate */
  RegCompiledFn *fn;
  GError        *error;
  gint           done;           /* atomic */
} Caller;

static void
caller_compiled (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Caller *caller = user_data;

  caller->fn = reg_registry_compile_finish (REG_REGISTRY (source), result, &caller->error);
  g_atomic_int_set (&caller->done, TRUE);
}

/* Waits until a compile is held at the gate, running @context meanwhile
 * (a compile may move on through it). */
static void
wait_for_gate (TestBackend  *gated,
               GMainContext *context)
{
  while (!test_backend_is_waiting (gated))
    if (!g_main_context_iteration (context, FALSE))
      g_usleep (1000);
}

/* Starts the caller's compile in the calling thread: a synchronous one
 * returns when it is done, an asynchronous one is done when the
 * thread-default context has run its callback. */
static void
caller_start (Caller *caller)
{
  if (caller->after_gate)
    wait_for_gate (caller->gated, g_main_context_get_thread_default ());

  if (caller->mode == CALL_SYNC)
    {
      caller->fn = reg_registry_compile (caller->f->registry, caller->backend, caller->f->graph,
                                         caller->f->inputs, NULL, &caller->error);
      g_atomic_int_set (&caller->done, TRUE);
    }
  else
    {
      reg_registry_compile_async (caller->f->registry, caller->backend, caller->f->graph,
                                  caller->f->inputs, NULL, NULL, caller_compiled, caller);
    }
}

static gpointer
caller_run_in_worker (gpointer data)
{
  Caller *caller = data;
  g_autoptr(GMainContext) context = g_main_context_new ();

  g_main_context_push_thread_default (context);
  caller_start (caller);
  while (!g_atomic_int_get (&caller->done))
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);
  /* The main thread may be waiting in its context for this. */
  g_main_context_wakeup (caller->f->context);

  return NULL;
}

typedef struct
{
  TestBackend *gated;
  guint        n;
} Opener;

/* Opens the gate once @n compiles are held there, and a moment later (for
 * callers that wait for one of them to come to their wait first; they
 * get the same function however late they come). */
static gpointer
opener_run (gpointer data)
{
  Opener *opener = data;

  test_backend_wait_for_waiting (opener->gated, opener->n);
  g_usleep (50 * G_TIME_SPAN_MILLISECOND);
  test_backend_open_gate (opener->gated);

  return NULL;
}

/* Two compiles of one key, the second while the first is held at the
 * backend's gate.  The second waits for the first when the first is a
 * compile that runs to its end in one thread (a synchronous one, or the
 * default compile_async, which runs it in a worker): they compile once.
 * A compile through the backend's own compile_async is finished by a main
 * context, which may be the one the second blocks: the second never waits
 * for it, and compiles itself.  Either way nothing hangs, and the cache
 * answers the key afterwards. */
static void
test_one_key (Fixture       *f,
              gconstpointer  data)
{
  const Combination *c = data;
  g_autoptr(TestOwnAsync) own = g_object_new (TEST_TYPE_OWN_ASYNC, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) again = NULL;
  gboolean waited_for = c->first == CALL_SYNC || g_str_equal (c->backend, "steered");
  Caller first = { f, c->backend, f->backend, c->first, FALSE, NULL, NULL, FALSE };
  Caller second = { f, c->backend, f->backend, c->second, TRUE, NULL, NULL, FALSE };
  Opener opener = { f->backend, waited_for ? 1 : 2 };
  GThread *first_thread = NULL;
  GThread *second_thread = NULL;
  GThread *opener_thread;
  Watchdog dog;

  g_assert_false (c->first == CALL_SYNC && !c->first_in_worker && !c->second_in_worker);

  own->inner = g_object_ref (f->backend);
  g_assert_true (reg_registry_register_backend (f->registry, NULL, REG_COMPILER (own), NULL, &error));
  g_assert_no_error (error);

  watchdog_arm (&dog);
  test_backend_close_gate (f->backend);
  opener_thread = g_thread_new ("opener", opener_run, &opener);

  if (c->first_in_worker)
    first_thread = g_thread_new ("first", caller_run_in_worker, &first);
  else if (c->first == CALL_ASYNC)
    caller_start (&first);
  if (c->second_in_worker)
    second_thread = g_thread_new ("second", caller_run_in_worker, &second);

  /* A synchronous caller of the main thread blocks it: it comes last. */
  if (!c->first_in_worker && c->first == CALL_SYNC)
    caller_start (&first);
  else if (!c->second_in_worker)
    caller_start (&second);

  while (!g_atomic_int_get (&first.done) || !g_atomic_int_get (&second.done))
    g_main_context_iteration (f->context, TRUE);
  if (first_thread != NULL)
    g_thread_join (first_thread);
  if (second_thread != NULL)
    g_thread_join (second_thread);
  g_thread_join (opener_thread);
  watchdog_disarm (&dog);

  g_assert_no_error (first.error);
  g_assert_no_error (second.error);
  g_assert_true (REG_IS_COMPILED_FN (first.fn));
  g_assert_true (REG_IS_COMPILED_FN (second.fn));
  g_assert_cmpint (test_backend_get_compiles (f->backend), ==, waited_for ? 1 : 2);
  if (waited_for)
    g_assert_true (first.fn == second.fn);

  again = reg_registry_compile (f->registry, c->backend, f->graph, f->inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (again == first.fn || again == second.fn);
  g_assert_cmpint (test_backend_get_compiles (f->backend), ==, waited_for ? 1 : 2);

  g_object_unref (first.fn);
  g_object_unref (second.fn);
}

/* A rescan while a compile through the backend's own compile_async runs
 * drops what it makes, as it drops any compile in flight. */
static void
test_own_async_dropped_in_flight (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(TestOwnAsync) own = g_object_new (TEST_TYPE_OWN_ASYNC, NULL);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;
  Caller caller = { f, "own-async", f->backend, CALL_ASYNC, FALSE, NULL, NULL, FALSE };

  own->inner = g_object_ref (f->backend);
  g_assert_true (reg_registry_register_backend (f->registry, NULL, REG_COMPILER (own), NULL, &error));
  g_assert_no_error (error);

  test_backend_close_gate (f->backend);
  caller_start (&caller);
  wait_for_gate (f->backend, f->context);
  reg_registry_rescan (f->registry);
  test_backend_open_gate (f->backend);
  while (!g_atomic_int_get (&caller.done))
    g_main_context_iteration (f->context, TRUE);
  g_assert_no_error (caller.error);
  g_clear_object (&caller.fn);

  fn = reg_registry_compile (f->registry, "own-async", f->graph, f->inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (test_backend_get_compiles (f->backend), ==, 2);
}

/* Every combination of a synchronous and an asynchronous caller, each in
 * the main thread or in a worker, on either backend; but a synchronous
 * first caller in the main thread blocks it, so its second is a worker. */
static void
combination_free (gpointer data)
{
  Combination *c = data;

  g_free (c->path);
  g_free (c);
}

static GPtrArray *
combinations_new (void)
{
  GPtrArray *combinations = g_ptr_array_new_with_free_func (combination_free);
  const char *backends[] = { "steered", "own-async" };
  const char *modes[] = { "sync", "async" };
  const char *places[] = { "main", "worker" };

  for (guint b = 0; b < G_N_ELEMENTS (backends); b++)
    for (guint i = 0; i < 4; i++)
      for (guint j = 0; j < 4; j++)
        {
          Combination *c = g_new0 (Combination, 1);

          c->backend = backends[b];
          c->first = i / 2;
          c->first_in_worker = i % 2;
          c->second = j / 2;
          c->second_in_worker = j % 2;
          if (c->first == CALL_SYNC && !c->first_in_worker && !c->second_in_worker)
            {
              g_free (c);
              continue;
            }
          c->path = g_strdup_printf ("/async/one-key/%s/%s-%s+%s-%s", backends[b],
                                     modes[c->first], places[c->first_in_worker],
                                     modes[c->second], places[c->second_in_worker]);
          g_ptr_array_add (combinations, c);
        }

  return combinations;
}

/* The shipped backends through the asynchronous pairs, with the numbers. */
static void
test_shipped_backends (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(RegGraph) graph = graph_new_from_string (neg_text);
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GError) error = NULL;
  const char *names[] = { "eager", "inductor" };

  g_main_context_push_thread_default (context);
  g_ptr_array_add (inputs, reg_tensor_new_from_data ((const float[]) { 1, -2, 3 }, 3,
                                                     (const gint64[]) { 3 }, 1, &error));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      Outcome compiled = { 0 };
      Outcome called = { 0 };
      const float *data;

      reg_registry_compile_async (registry, names[i], graph, inputs, NULL, NULL,
                                  registry_compiled, &compiled);
      wait_for (&compiled);
      g_assert_no_error (compiled.error);
      reg_compiled_fn_call_async (REG_COMPILED_FN (compiled.result), inputs, NULL, fn_called, &called);
      wait_for (&called);
      g_assert_no_error (called.error);
      data = reg_tensor_get_data (g_ptr_array_index (called.outputs, 0), NULL);
      g_assert_cmpfloat (data[0], ==, -1.0f);
      g_assert_cmpfloat (data[1], ==, 2.0f);
      g_assert_cmpfloat (data[2], ==, -3.0f);
      outcome_clear (&compiled);
      outcome_clear (&called);
    }
  g_main_context_pop_thread_default (context);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GPtrArray) combinations = NULL;

  g_setenv ("REG_BACKEND_SYSTEM_DIR", "", TRUE);
  g_unsetenv ("REG_DEFAULT_BACKEND");
  g_unsetenv ("REG_FALLBACK_BACKENDS");
  g_unsetenv ("REG_COMPILE_CACHE_SIZE");

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/async/registry/compile", test_registry_compile_async);
  ADD ("/async/registry/default-and-errors", test_registry_compile_async_default_and_errors);
  ADD ("/async/cancel/before-start", test_cancel_before_start);
  ADD ("/async/cancel/while-running", test_cancel_while_running);
  ADD ("/async/compiler/compile", test_compiler_compile_async);
  ADD ("/async/compiled-fn/call", test_call_async);
  ADD ("/async/own-async/dropped-in-flight", test_own_async_dropped_in_flight);
#undef ADD
  g_test_add_func ("/async/cancel/before-start/module", test_cancel_before_start_module);
  g_test_add_func ("/async/shipped-backends", test_shipped_backends);

  combinations = combinations_new ();
  for (guint i = 0; i < combinations->len; i++)
    {
      const Combination *c = g_ptr_array_index (combinations, i);

      g_test_add (c->path, Fixture, c, fixture_set_up, test_one_key, fixture_tear_down);
    }

  return g_test_run ();
}
