/* fixture-verify-fork.c: a backend that leaves a process behind
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The eager interpreter under another name, whose first compile forks a
 * child that sleeps for a minute, as a backend that starts a compile
 * server might.  The child's process id goes to the file named by the
 * environment variable FIXTURE_FORK_PID_FILE (when set), so that a test
 * can tell whether the check killed it.  The check itself is ok.
 */

#include <unistd.h>
#include <gmodule.h>
#include <glib/gstdio.h>

#include "../fixture-compiler.h"

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

static void
fork_sleeper (void)
{
  const char *pid_file = g_getenv ("FIXTURE_FORK_PID_FILE");
  g_autofree char *text = NULL;
  pid_t pid = fork ();

  if (pid == 0)
    {
      /* Only async-signal-safe calls in the child. */
      sleep (60);
      _exit (0);
    }
  g_assert (pid > 0);

  text = g_strdup_printf ("%d\n", (int) pid);
  if (pid_file != NULL && !g_file_set_contents (pid_file, text, -1, NULL))
    g_error ("cannot write %s", pid_file);
}

static RegCompiledFn *
compile (RegGraph   *graph,
         GPtrArray  *example_inputs,
         GVariant   *options,
         GError    **error)
{
  static gsize forked;

  if (g_once_init_enter (&forked))
    {
      fork_sleeper ();
      g_once_init_leave (&forked, 1);
    }

  return fixture_eager_compile ("verify_fork", graph, options, error);
}

static const FixtureCompilerSpec spec = { "verify_fork", NULL, compile };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  fixture_eager_register (G_TYPE_MODULE (module));
  reg_module_add_backend (module, "verify_fork", fixture_compiler_register (G_TYPE_MODULE (module), &spec));
}
