/* test-loader-gjs.c: backends written in JavaScript, from a C program
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fixtures are in tests/loaders/gjs/, one module and manifest per
 * outcome, on the search path (REG_BACKEND_PATH).  The loader makes a GJS
 * context in a thread of its own, where every JavaScript backend runs;
 * the thread cases check what other threads get, here and in a program
 * that runs a GJS context of its own.  tests/gjs/test-loader.js does the same from a gjs
 * program.
 */

#include <string.h>

#include <glib/gstdio.h>
#include <gjs/gjs.h>
#include <reg.h>

#include "test-files.h"
#include "test-objects.h"

static gboolean
mapped (const char *fragment)
{
  g_autofree char *maps = NULL;
  g_autoptr(GError) error = NULL;

  if (!g_file_get_contents ("/proc/self/maps", &maps, NULL, &error))
    g_error ("this test needs /proc/self/maps: %s", error->message);

  return strstr (maps, fragment) != NULL;
}

static RegRegistry *
registry (void)
{
  return reg_registry_get_default ();
}

static RegGraph *
mul_add_graph (void)
{
  return graph_new_from_string ("graph(x, y):\n  a = mul(x, y)\n  b = add(a, 1.5)\n"
                                "  c = relu(b)\n  return (c,)\n");
}

static GPtrArray *
mul_add_inputs (void)
{
  const gint64 shape[] = { 3 };
  const float x[] = { 1, -2, 3 }, y[] = { 2, 2, 2 };
  GPtrArray *inputs = tensor_array_new ();

  g_ptr_array_add (inputs, reg_tensor_new_from_data (x, 3, shape, 1, NULL));
  g_ptr_array_add (inputs, reg_tensor_new_from_data (y, 3, shape, 1, NULL));
  return inputs;
}

static void
assert_mul_add_outputs (GPtrArray *outputs)
{
  const float *data;
  gsize n;

  g_assert_cmpuint (outputs->len, ==, 1);
  data = reg_tensor_get_data (g_ptr_array_index (outputs, 0), &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpfloat (data[0], ==, 3.5f);
  g_assert_cmpfloat (data[1], ==, 0.0f);
  g_assert_cmpfloat (data[2], ==, 7.5f);
}

static RegCompiledFn *
compile_mul_add (RegCompiler *compiler)
{
  g_autoptr(RegGraph) graph = mul_add_graph ();
  g_autoptr(GPtrArray) inputs = mul_add_inputs ();
  g_autoptr(GError) error = NULL;
  RegCompiledFn *fn = reg_compiler_compile (compiler, graph, inputs, NULL, &error);

  g_assert_no_error (error);
  return fn;
}

static void
assert_compiles_and_runs (RegCompiler *compiler)
{
  g_autoptr(RegCompiledFn) fn = compile_mul_add (compiler);
  g_autoptr(GPtrArray) inputs = mul_add_inputs ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) outputs = reg_compiled_fn_call (fn, inputs, &error);

  g_assert_no_error (error);
  assert_mul_add_outputs (outputs);
}

static void
assert_load_fails (const char         *name,
                   const char * const *fragments)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) compiler = reg_registry_lookup_backend (registry (), name, &error);

  g_assert_null (compiler);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
  g_test_message ("%s: %s", name, error->message);
  for (guint i = 0; fragments[i] != NULL; i++)
    if (strstr (error->message, fragments[i]) == NULL)
      g_error ("the error of %s, '%s', does not say '%s'", name, error->message, fragments[i]);
}

/* Listing and describing JavaScript backends starts no engine. */
static void
test_list_starts_nothing (void)
{
  if (g_test_subprocess ())
    {
      g_auto(GStrv) names = reg_registry_list_backends (registry (), (const char *[]) { NULL });
      g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry (), "js_good");

      g_assert_true (g_strv_contains ((const char * const *) names, "js_good"));
      g_assert_true (g_strv_contains ((const char * const *) names, "js_crash"));
      g_assert_cmpstr (reg_backend_info_get_loader (info), ==, "gjs");
      g_assert_cmpstr (reg_backend_info_get_entry_point (info), ==, "good.js:GoodCompiler");
      g_assert_true (g_str_has_suffix (reg_backend_info_get_module_path (info), "/loaders/gjs/good.js"));
      /* This program links libgjs for its last case; test-regctl checks
       * that regctl maps no libgjs. */
      g_assert_false (mapped ("libreg-loader-gjs"));
      g_assert_null (gjs_context_get_current ());
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static void
test_good (void)
{
  const char * const names[] = { "js_good", "js_good_fn" };

  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegCompiler) compiler = reg_registry_lookup_backend (registry (), names[i], &error);

      g_assert_no_error (error);
      g_assert_cmpstr (reg_compiler_get_name (compiler), ==, "js_good");
      assert_compiles_and_runs (compiler);
    }
  g_assert_true (mapped ("libreg-loader-gjs"));
}

static void
test_failures (void)
{
  static const struct { const char *name; const char *fragments[4]; } cases[] = {
    { "js_raising", { "raising.js cannot be imported: TypeError: raising.js refuses to be "
                      "imported (at file://", "raising.js:7:11; stack: check@file://",
                      "raising.js:10:1)", NULL } },
    { "js_syntax", { "syntax.js cannot be imported: SyntaxError: expected expression, got ';' "
                     "(at file://", "syntax.js:5:24)", NULL } },
    { "js_missing_module", { "no-such-module.js does not exist (Import=no-such-module.js names "
                             "a file beside the manifest)", NULL } },
    { "js_missing_export", { "wrong.js cannot make Missing: ReferenceError: the module exports "
                             "no Missing", NULL } },
    { "js_not_compiler", { "wrong.js cannot make NotACompiler: it gave a Gjs_NotACompiler, "
                           "which does not implement Reg.Compiler", NULL } },
    { "js_not_gobject", { "wrong.js cannot make NotAGObject: TypeError: class constructors "
                          "must be invoked with 'new'", NULL } },
    { "js_not_callable", { "wrong.js cannot make NOT_CALLABLE: TypeError: NOT_CALLABLE is a "
                           "number, not a class or a function", NULL } },
    { "js_returns_null", { "wrong.js cannot make returnsNull: TypeError: returnsNull() gave "
                           "null, not a GObject.Object implementing Reg.Compiler", NULL } },
    { "js_make_throws", { "wrong.js cannot make throws: RangeError: wrong.js throws() fails "
                          "(at file://", "wrong.js:18:11; stack: throws@file://", NULL } },
  };
  g_autoptr(RegCompiler) good = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      assert_load_fails (cases[i].name, cases[i].fragments);
      assert_load_fails (cases[i].name, cases[i].fragments);
    }

  good = reg_registry_lookup_backend (registry (), "js_good", NULL);
  assert_compiles_and_runs (good);
}

static void
test_lookup_others (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) compiler = reg_registry_lookup_backend (registry (), "js_others", &error);
  g_autoptr(RegCompiler) good = reg_registry_lookup_backend (registry (), "js_good", NULL);

  g_assert_no_error (error);
  g_assert_true (compiler == good);
}

static void
test_lookup_self (void)
{
  const char * const fragments[] = {
    "self.js cannot be imported: Reg.RegistryError: backend 'js_self' (declared by ",
    "it was looked up while its code (self.js, Loader=gjs) was being imported",
    "by that import: a backend exists only once its code is imported",
    "(stack: @file://", "self.js:10:28)",
    NULL
  };

  assert_load_fails ("js_self", fragments);
}

static void
test_retry_after_rescan (void)
{
  g_autofree char *flag = g_strconcat (g_getenv ("REGFIX_RETRY_FLAG"), "-gjs", NULL);
  const char * const fragments[] = { "Error: retry.js is told to fail", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) compiler = NULL;

  g_assert_true (g_file_set_contents (flag, "", 0, NULL));
  assert_load_fails ("js_retry", fragments);

  g_assert_no_errno (g_unlink (flag));
  reg_registry_rescan (registry ());
  compiler = reg_registry_lookup_backend (registry (), "js_retry", &error);
  g_assert_no_error (error);
  assert_compiles_and_runs (compiler);
}

/* From other threads.  In a program without GJS of its own, the context
 * is the loader's, in a thread of its own: every thread may look up,
 * compile and call, the work running in that thread.  In a gjs program
 * (here: a program that makes a GjsContext first, as gjs does), the
 * context's thread is the program's: the others get errors, and their
 * asynchronous calls are run in its main context. */

typedef struct
{
  gboolean       expect_errors;
  RegCompiler   *compiler;    /* looked up in the main thread */
  RegCompiledFn *fn;
  GMainLoop     *main_loop;   /* the main thread's, run meanwhile */
  GError        *lookup_error;
  GError        *compile_error;
  GError        *call_error;
  GPtrArray     *async_outputs;
  GError        *async_error;
} Elsewhere;

static void
called_async (GObject      *source,
              GAsyncResult *result,
              gpointer      data)
{
  Elsewhere *e = data;

  e->async_outputs = reg_compiled_fn_call_finish (REG_COMPILED_FN (source), result, &e->async_error);
}

static void
compiled_async (GObject      *source,
                GAsyncResult *result,
                gpointer      data)
{
  Elsewhere *e = data;
  g_autoptr(RegCompiledFn) fn = reg_compiler_compile_finish (REG_COMPILER (source), result,
                                                             &e->async_error);
  g_autoptr(GPtrArray) inputs = mul_add_inputs ();

  if (fn != NULL)
    reg_compiled_fn_call_async (fn, inputs, NULL, called_async, e);
}

static gpointer
work_elsewhere (gpointer data)
{
  Elsewhere *e = data;
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(RegGraph) graph = mul_add_graph ();
  g_autoptr(GPtrArray) inputs = mul_add_inputs ();
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(RegCompiler) others = NULL;

  /* A backend not loaded yet, a compile, a call. */
  others = reg_registry_lookup_backend (registry (), "js_others", &e->lookup_error);
  fn = reg_compiler_compile (e->compiler, graph, inputs, NULL, &e->compile_error);
  outputs = reg_compiled_fn_call (e->fn, inputs, &e->call_error);
  if (e->expect_errors)
    {
      g_assert_null (others);
      g_assert_null (fn);
      g_assert_null (outputs);
    }
  else
    {
      g_assert_nonnull (others);
      assert_compiles_and_runs (others);
      g_assert_nonnull (fn);
      assert_mul_add_outputs (outputs);
    }

  /* Asynchronously, the main thread running its main loop meanwhile. */
  g_main_context_push_thread_default (context);
  reg_compiler_compile_async (e->compiler, graph, inputs, NULL, NULL, compiled_async, e);
  while (e->async_outputs == NULL && e->async_error == NULL)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);

  g_main_loop_quit (e->main_loop);
  return NULL;
}

static void
run_elsewhere (Elsewhere *e)
{
  g_autoptr(GError) error = NULL;
  GThread *thread;

  e->compiler = reg_registry_lookup_backend (registry (), "js_good", &error);
  g_assert_no_error (error);
  e->fn = compile_mul_add (e->compiler);
  e->main_loop = g_main_loop_new (NULL, FALSE);

  thread = g_thread_new ("elsewhere", work_elsewhere, e);
  g_main_loop_run (e->main_loop);
  g_thread_join (thread);

  g_assert_no_error (e->async_error);
  assert_mul_add_outputs (e->async_outputs);

  g_ptr_array_unref (e->async_outputs);
  g_main_loop_unref (e->main_loop);
  g_object_unref (e->fn);
  g_object_unref (e->compiler);
}

static void
test_any_thread (void)
{
  Elsewhere e = { FALSE, };

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }

  run_elsewhere (&e);
  g_assert_no_error (e.lookup_error);
  g_assert_no_error (e.compile_error);
  g_assert_no_error (e.call_error);
}

static void
test_gjs_program_thread (void)
{
  Elsewhere e = { TRUE, };
  GjsContext *program;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }

  /* As gjs does, before anything else. */
  program = gjs_context_new ();
  run_elsewhere (&e);

  g_assert_error (e.lookup_error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
  g_assert_nonnull (strstr (e.lookup_error->message, "it cannot be loaded from this thread: in "
                            "a gjs program, a backend written in JavaScript runs in the thread "
                            "of the program's GJS context only"));
  g_assert_error (e.compile_error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
  g_assert_nonnull (strstr (e.compile_error->message, "backend 'js_good' cannot compile from "
                            "this thread"));
  g_assert_error (e.call_error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
  g_assert_nonnull (strstr (e.call_error->message, "backend 'js_good' cannot call its "
                            "compiled function from this thread"));
  g_clear_error (&e.lookup_error);
  g_clear_error (&e.compile_error);
  g_clear_error (&e.call_error);
  g_object_unref (program);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/loader-gjs/list-starts-nothing", test_list_starts_nothing);
  g_test_add_func ("/loader-gjs/any-thread", test_any_thread);
  g_test_add_func ("/loader-gjs/gjs-program-thread", test_gjs_program_thread);
  g_test_add_func ("/loader-gjs/good", test_good);
  g_test_add_func ("/loader-gjs/failures", test_failures);
  g_test_add_func ("/loader-gjs/lookup-others", test_lookup_others);
  g_test_add_func ("/loader-gjs/lookup-self", test_lookup_self);
  g_test_add_func ("/loader-gjs/retry-after-rescan", test_retry_after_rescan);

  return g_test_run ();
}
