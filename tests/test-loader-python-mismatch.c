/* test-loader-python-mismatch.c: a backend written in Python, looked up
 * from a program that runs another Python than the loader's
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * This program exports the two symbols by which the Python loader tells
 * that the process runs Python already, and says it runs Python 3.99: the
 * loader must refuse, with an error, rather than use an interpreter whose
 * ABI is not its own (or start a second one beside it).  Nothing of
 * Python is ever called here but these two functions.
 */

#include <string.h>

#include <reg.h>

G_MODULE_EXPORT int Py_IsInitialized (void);
G_MODULE_EXPORT const char *Py_GetVersion (void);

G_MODULE_EXPORT int
Py_IsInitialized (void)
{
  return 1;
}

G_MODULE_EXPORT const char *
Py_GetVersion (void)
{
  return "3.99.0 (main, Jan 1 2030, 00:00:00) [a Python of the tests]";
}

static void
test_refused (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) compiler = NULL;

  compiler = reg_registry_lookup_backend (reg_registry_get_default (), "py_good", &error);
  g_assert_null (compiler);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "this program runs Python 3.99.0, and the Python "
                                            "loader is built for Python 3."));

  /* And it stays so: the program's Python is what it is. */
  g_clear_error (&error);
  compiler = reg_registry_lookup_backend (reg_registry_get_default (), "py_good", &error);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/loader-python/host-of-another-version", test_refused);

  return g_test_run ();
}
