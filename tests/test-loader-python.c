/* test-loader-python.c: backends written in Python, from a C program
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fixtures are in tests/loaders/python/, one module and manifest per
 * outcome; the test environment puts that directory on the search path
 * (REG_BACKEND_PATH) and on Python's (PYTHONPATH), with
 * PYTHONDONTWRITEBYTECODE.  This program runs no Python of its own: the
 * loader starts the interpreter, once, at the first lookup.  Cases that
 * need a fresh process (nothing started yet, another environment) run in
 * a subprocess.  tests/python/test_loader_python.py does the same from a
 * Python program; the fixtures that kill or hang the process are only
 * used by the verification tests.
 */

#include <locale.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <reg.h>

#include "test-files.h"
#include "test-objects.h"

/* Whether a file whose name contains @fragment is mapped into this
 * process (/proc/self/maps). */
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

/* Runs @graph_text through the backend @name on [1, -2, 3] and [2, 2, 2]
 * and checks the result of mul-add-relu. */
static void
assert_compiles_and_runs (RegCompiler *compiler)
{
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x, y):\n  a = mul(x, y)\n"
                                                     "  b = add(a, 1.5)\n  c = relu(b)\n"
                                                     "  return (c,)\n");
  const gint64 shape[] = { 3 };
  const float x[] = { 1, -2, 3 }, y[] = { 2, 2, 2 };
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GError) error = NULL;
  const float *data;
  gsize n;

  g_ptr_array_add (inputs, reg_tensor_new_from_data (x, 3, shape, 1, NULL));
  g_ptr_array_add (inputs, reg_tensor_new_from_data (y, 3, shape, 1, NULL));
  fn = reg_compiler_compile (compiler, graph, inputs, NULL, &error);
  g_assert_no_error (error);
  outputs = reg_compiled_fn_call (fn, inputs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (outputs->len, ==, 1);
  data = reg_tensor_get_data (g_ptr_array_index (outputs, 0), &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpfloat (data[0], ==, 3.5f);
  g_assert_cmpfloat (data[1], ==, 0.0f);
  g_assert_cmpfloat (data[2], ==, 7.5f);
}

/* Fails to look up @name with LOAD_FAILED, the message holding each of
 * @fragments. */
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

/* Listing and describing Python backends starts no interpreter and opens
 * no loader. */
static void
test_list_starts_nothing (void)
{
  if (g_test_subprocess ())
    {
      g_auto(GStrv) names = reg_registry_list_backends (registry (), (const char *[]) { NULL });
      g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry (), "py_good");

      g_assert_true (g_strv_contains ((const char * const *) names, "py_good"));
      g_assert_true (g_strv_contains ((const char * const *) names, "py_crash"));
      g_assert_nonnull (info);
      g_assert_cmpstr (reg_backend_info_get_loader (info), ==, "python");
      g_assert_cmpstr (reg_backend_info_get_entry_point (info), ==, "regfix_good:GoodCompiler");
      g_assert_null (reg_backend_info_get_module_path (info));
      g_assert_false (reg_backend_info_get_loaded (info));
      g_assert_cmpstr (reg_backend_info_get_description (info), ==,
                       "For tests: a backend written in Python, a class");

      g_assert_false (mapped ("libpython"));
      g_assert_false (mapped ("libreg-loader-python"));
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* The first lookup starts an interpreter without touching the process:
 * no signal handler, the locale and the environment as they were. */
static void
test_interpreter_leaves_process_alone (void)
{
  if (g_test_subprocess ())
    {
      struct sigaction before[NSIG], after;
      g_autofree char *locale = g_strdup (setlocale (LC_ALL, NULL));
      g_auto(GStrv) environment = g_get_environ ();
      g_auto(GStrv) environment_after = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(RegCompiler) compiler = NULL;

      for (int signum = 1; signum < NSIG; signum++)
        sigaction (signum, NULL, &before[signum]);

      compiler = reg_registry_lookup_backend (registry (), "py_good", &error);
      g_assert_no_error (error);
      g_assert_true (mapped ("libpython"));

      for (int signum = 1; signum < NSIG; signum++)
        {
          sigaction (signum, NULL, &after);
          if (after.sa_handler != before[signum].sa_handler)
            g_error ("signal %d got another handler", signum);
        }
      g_assert_cmpstr (setlocale (LC_ALL, NULL), ==, locale);
      environment_after = g_get_environ ();
      g_assert_cmpstrv (environment_after, environment);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* A C program's Python has the prefix of the Python the loader is built
 * for, whichever python3 comes first in PATH: a virtual environment's
 * there does not become the backend's. */
static void
test_prefix_not_from_path (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *venv = g_dir_make_tmp ("regfix-venv-XXXXXX", NULL);
      g_autofree char *bin = g_build_filename (venv, "bin", NULL);
      g_autofree char *program = g_build_filename (bin, "python3", NULL);
      g_autofree char *cfg = g_build_filename (venv, "pyvenv.cfg", NULL);
      g_autofree char *path = g_strconcat (bin, ":", g_getenv ("PATH"), NULL);
      g_autoptr(RegCompiler) compiler = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_nonnull (venv);
      g_assert_cmpint (g_mkdir (bin, 0700), ==, 0);
      g_assert_cmpint (symlink ("/bin/true", program), ==, 0);
      g_assert_true (g_file_set_contents (cfg, "home = /usr/bin\n", -1, NULL));
      g_setenv ("PATH", path, TRUE);

      compiler = reg_registry_lookup_backend (registry (), "py_prefix", &error);
      g_assert_no_error (error);
      g_assert_nonnull (compiler);

      g_remove (cfg);
      g_remove (program);
      g_rmdir (bin);
      g_rmdir (venv);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* A class and a function, looked up from C, compile and run. */
static void
test_good (void)
{
  const char * const names[] = { "py_good", "py_good_fn" };

  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegCompiler) compiler = reg_registry_lookup_backend (registry (), names[i], &error);
      g_autoptr(RegBackendInfo) info = NULL;

      g_assert_no_error (error);
      g_assert_true (REG_IS_COMPILER (compiler));
      g_assert_cmpstr (G_OBJECT_TYPE_NAME (compiler), ==, "regfix_good+GoodCompiler");
      assert_compiles_and_runs (compiler);

      info = reg_registry_get_backend_info (registry (), names[i]);
      g_assert_true (reg_backend_info_get_loaded (info));
      g_assert_cmpstr (reg_backend_info_get_loader (info), ==, "python");
    }
}

/* Every failure is LOAD_FAILED with its reason; the backends of other
 * modules keep working. */
static void
test_failures (void)
{
  static const struct { const char *name; const char *fragments[6]; } cases[] = {
    { "py_raising", { "backend 'py_raising' (declared by ", "raising.backend",
                      "the Python module regfix_raising cannot be imported: ValueError: "
                      "regfix_raising refuses to be imported (traceback, most recent call last: ",
                      "regfix_raising.py:11 in <module>, ", "regfix_raising.py:8 in _check)", NULL } },
    { "py_syntax", { "the Python module regfix_syntax cannot be imported: SyntaxError: ",
                     "regfix_syntax.py, line 5) in /", "/loaders/python/regfix_syntax.py", NULL } },
    { "py_missing_module", { "the Python module regfix_no_such_module cannot be imported: "
                             "ModuleNotFoundError: No module named 'regfix_no_such_module'", NULL } },
    { "py_missing_object", { "the Python module regfix_wrong has no Missing (Object=Missing in "
                             "the manifest): AttributeError: module 'regfix_wrong' has no "
                             "attribute 'Missing'", NULL } },
    { "py_not_compiler", { "regfix_wrong.NotACompiler() returned a regfix_wrong+NotACompiler, "
                           "which does not implement Reg.Compiler", NULL } },
    { "py_not_initialised", { "regfix_wrong.NotInitialised() returned a GObject.Object that "
                              "was never initialised", NULL } },
    { "py_not_gobject", { "regfix_wrong.NotAGObject is a class, but not a GObject.Object "
                          "implementing Reg.Compiler", NULL } },
    { "py_not_callable", { "regfix_wrong.NOT_CALLABLE is a value of type int, not a class "
                           "implementing Reg.Compiler or a function returning a compiler", NULL } },
    { "py_returns_none", { "regfix_wrong.returns_none() returned a value of type NoneType, "
                           "not a GObject.Object implementing Reg.Compiler", NULL } },
    { "py_make_raises", { "regfix_wrong.raises() raised an exception: RuntimeError: "
                          "regfix_wrong.raises() fails (traceback", "regfix_wrong.py:", NULL } },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) good = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      assert_load_fails (cases[i].name, cases[i].fragments);
      /* Again: a failure is not remembered, and says the same. */
      assert_load_fails (cases[i].name, cases[i].fragments);
    }

  good = reg_registry_lookup_backend (registry (), "py_good", &error);
  g_assert_no_error (error);
  assert_compiles_and_runs (good);
}

/* A module that looks up and lists other backends while it is imported,
 * a Python one among them, works. */
static void
test_lookup_others (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) compiler = reg_registry_lookup_backend (registry (), "py_others", &error);
  g_autoptr(RegCompiler) good = reg_registry_lookup_backend (registry (), "py_good", NULL);

  g_assert_no_error (error);
  g_assert_true (compiler == good);
}

/* A module that looks its own backend up while it is imported gets an
 * error (and, here, passes it on), rather than waiting for itself. */
static void
test_lookup_self (void)
{
  const char * const fragments[] = {
    "the Python module regfix_self cannot be imported: gi.repository.GLib.GError: ",
    "backend 'py_self' (declared by ",
    "it was looked up while its code (regfix_self, Loader=python) was being imported in "
    "this thread, by that import",
    "regfix_self.py:14 in <module>",
    NULL
  };

  assert_load_fails ("py_self", fragments);
}

typedef struct
{
  const char  *name;
  GMutex      *lock;
  GCond       *cond;
  gint        *waiting;
  RegCompiler *compiler;
  GError      *error;
} Looker;

static gpointer
look_up (gpointer data)
{
  Looker *looker = data;

  /* All at once. */
  g_mutex_lock (looker->lock);
  if (--*looker->waiting == 0)
    g_cond_broadcast (looker->cond);
  while (*looker->waiting > 0)
    g_cond_wait (looker->cond, looker->lock);
  g_mutex_unlock (looker->lock);

  looker->compiler = reg_registry_lookup_backend (registry (), looker->name, &looker->error);
  return NULL;
}

/* Threads that look a Python backend up for the first time at once get
 * one compiler, and the module is imported once. */
static void
test_concurrent_first_lookups (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *log = NULL;
  g_autofree char *logged = NULL;
  Looker lookers[8];
  GThread *threads[G_N_ELEMENTS (lookers)];
  GMutex lock;
  GCond cond;
  gint waiting = G_N_ELEMENTS (lookers);

  if (g_test_subprocess ())
    {
      g_mutex_init (&lock);
      g_cond_init (&cond);
      for (gsize i = 0; i < G_N_ELEMENTS (lookers); i++)
        {
          lookers[i] = (Looker) { "py_slow", &lock, &cond, &waiting, NULL, NULL };
          threads[i] = g_thread_new ("looker", look_up, &lookers[i]);
        }
      for (gsize i = 0; i < G_N_ELEMENTS (lookers); i++)
        {
          g_thread_join (threads[i]);
          g_assert_no_error (lookers[i].error);
          g_assert_true (lookers[i].compiler == lookers[0].compiler);
        }
      for (gsize i = 0; i < G_N_ELEMENTS (lookers); i++)
        g_object_unref (lookers[i].compiler);
      g_mutex_clear (&lock);
      g_cond_clear (&cond);
      return;
    }

  /* In a process of its own, where the interpreter starts meanwhile. */
  dir = make_tmp_dir ();
  log = g_build_filename (dir, "imports", NULL);
  g_setenv ("REGFIX_IMPORT_LOG", log, TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_assert_true (g_file_get_contents (log, &logged, NULL, NULL));
  g_assert_cmpstr (logged, ==, "imported\n");

  g_assert_no_errno (g_unlink (log));
  remove_tmp_dir (dir);
}

/* Threads calling one function of a Python backend at once: each call
 * runs Python code. */
static void
test_threads_call (void)
{
  g_autoptr(RegCompiler) compiler = reg_registry_lookup_backend (registry (), "py_good", NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x, y):\n  a = mul(x, y)\n"
                                                     "  return (a,)\n");
  const gint64 shape[] = { 2, 2 };
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GPtrArray) want = NULL;
  g_autoptr(GError) error = NULL;
  ConcurrentCaller callers[8];
  GThread *threads[G_N_ELEMENTS (callers)];

  g_assert_nonnull (compiler);
  g_ptr_array_add (inputs, tensor_new_uniform (shape, 2, -1, 1));
  g_ptr_array_add (inputs, tensor_new_uniform (shape, 2, -1, 1));
  fn = reg_compiler_compile (compiler, graph, inputs, NULL, &error);
  g_assert_no_error (error);
  want = reg_compiled_fn_call (fn, inputs, &error);
  g_assert_no_error (error);

  for (gsize i = 0; i < G_N_ELEMENTS (callers); i++)
    {
      callers[i] = (ConcurrentCaller) { fn, inputs, want, FALSE };
      threads[i] = g_thread_new ("caller", concurrent_caller_run, &callers[i]);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (callers); i++)
    {
      g_thread_join (threads[i]);
      g_assert_true (callers[i].ok);
    }
}

/* A module whose import failed is imported again by a later lookup, as
 * after a rescan: the failure is not kept. */
static void
test_retry_after_rescan (void)
{
  const char *flag = g_getenv ("REGFIX_RETRY_FLAG");
  const char * const fragments[] = { "ImportError: regfix_retry is told to fail", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) compiler = NULL;

  g_assert_nonnull (flag);
  g_assert_true (g_file_set_contents (flag, "", 0, NULL));
  assert_load_fails ("py_retry", fragments);

  g_assert_no_errno (g_unlink (flag));
  reg_registry_rescan (registry ());
  compiler = reg_registry_lookup_backend (registry (), "py_retry", &error);
  g_assert_no_error (error);
  assert_compiles_and_runs (compiler);
}

/* What is said when the loader, PyGObject or the Reg typelib is missing:
 * each in a process of its own, where the interpreter has not started. */
static void
test_missing_pieces (void)
{
  g_autofree char *fixtures = g_test_build_filename (G_TEST_DIST, "loaders", "python", NULL);
  g_autofree char *no_gi = g_strconcat (fixtures, "/no-gi:", fixtures, NULL);
  const struct { const char *variable; const char *value; const char *fragment; } cases[] = {
    { "REG_LOADER_DIR", "/nonexistent", "the Python loader is not installed "
      "(/nonexistent/libreg-loader-python.so does not exist): this libreg was built without "
      "it, or it was removed. Build libreg with -Dpython_loader=enabled" },
    { "PYTHONPATH", no_gi, "PyGObject (the Python module gi) cannot be "
      "imported; install it (python3-gi) for this Python: ImportError: No module named 'gi' "
      "(hidden by the tests)" },
    { "GI_TYPELIB_PATH", "/nonexistent", "the Reg 1.0 typelib (Reg-1.0.typelib) is not found: "
      "install libreg's introspection data, or name its directory in GI_TYPELIB_PATH: "
      "ValueError: Namespace Reg not available" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      if (g_test_subprocess ())
        {
          const char *which = g_getenv ("REGFIX_CASE");
          const char * const fragments[] = { "backend 'py_good'", cases[i].fragment, NULL };

          if (which == NULL || atoi (which) != (int) i)
            continue;
          g_setenv (cases[i].variable, cases[i].value, TRUE);
          assert_load_fails ("py_good", fragments);
          return;
        }
      else
        {
          g_autofree char *number = g_strdup_printf ("%" G_GSIZE_FORMAT, i);

          g_setenv ("REGFIX_CASE", number, TRUE);
          g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
          g_test_trap_assert_passed ();
        }
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/loader-python/list-starts-nothing", test_list_starts_nothing);
  g_test_add_func ("/loader-python/interpreter-leaves-process-alone",
                   test_interpreter_leaves_process_alone);
  g_test_add_func ("/loader-python/missing-pieces", test_missing_pieces);
  g_test_add_func ("/loader-python/prefix-not-from-path", test_prefix_not_from_path);
  g_test_add_func ("/loader-python/concurrent-first-lookups", test_concurrent_first_lookups);
  g_test_add_func ("/loader-python/good", test_good);
  g_test_add_func ("/loader-python/failures", test_failures);
  g_test_add_func ("/loader-python/lookup-others", test_lookup_others);
  g_test_add_func ("/loader-python/lookup-self", test_lookup_self);
  g_test_add_func ("/loader-python/threads-call", test_threads_call);
  g_test_add_func ("/loader-python/retry-after-rescan", test_retry_after_rescan);

  return g_test_run ();
}
