/* test-async.c: compiling and calling without blocking, and cancelling
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <reg.h>

#include "test-backend.h"
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
#undef ADD
  g_test_add_func ("/async/shipped-backends", test_shipped_backends);

  return g_test_run ();
}
