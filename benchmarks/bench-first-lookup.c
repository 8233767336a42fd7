/* bench-first-lookup.c: the first lookup of one backend, in a C program
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   bench-first-lookup NAME
 *
 * Runs discovery (reg_registry_list_backends), then looks NAME up in the
 * default registry and prints how long the lookup took, in microseconds:
 * for a backend written in Python, opening the loader, starting the
 * interpreter and importing the module.  bench-loaders.py runs it in
 * fresh processes (benchmarks/README.md).
 */

#include <stdio.h>

#include <reg.h>

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) compiler = NULL;
  g_auto(GStrv) names = NULL;
  gint64 start, end;

  if (argc != 2)
    {
      fprintf (stderr, "usage: %s NAME\n", argv[0]);
      return 2;
    }

  names = reg_registry_list_backends (reg_registry_get_default (), NULL);
  start = g_get_monotonic_time ();
  compiler = reg_registry_lookup_backend (reg_registry_get_default (), argv[1], &error);
  end = g_get_monotonic_time ();
  if (compiler == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }

  printf ("%" G_GINT64_FORMAT "\n", end - start);
  return 0;
}
