/* regctl-cache.c: `regctl cache`, which writes the discovery cache of
 * module directories
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "regctl.h"

/* Writes the cache of @dir and says so on stdout, or prints why not on
 * stderr.  With @skip_missing, a directory that does not exist is only
 * mentioned: the search path commonly names directories nobody made. */
static gboolean
write_one (const char *dir,
           gboolean    skip_missing)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *display = regctl_escape (dir);
  g_autofree char *path = g_build_filename (dir, "backends.cache", NULL);
  g_autofree char *path_display = regctl_escape (path);

  if (reg_backend_cache_write (dir, &error))
    {
      regctl_print ("Wrote %s\n", path_display);
      return TRUE;
    }

  if (skip_missing && g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      regctl_print ("Skipped %s (missing)\n", display);
      return TRUE;
    }

  {
    g_autofree char *why = regctl_escape (error->message);

    regctl_printerr ("regctl cache: %s\n", why);
  }
  return FALSE;
}

int
regctl_cache (const RegctlCommand  *command,
              int                   argc,
              char                **argv)
{
  g_auto(GStrv) add_paths = NULL;
  g_auto(GStrv) positionals = NULL;
  const GOptionEntry entries[] = {
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &positionals, NULL, NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = regctl_option_context_new (command, "[DIR...]", entries, &add_paths);
  gboolean ok = TRUE;
  int status;

  if (!regctl_parse_args (command, context, &argc, &argv, &status))
    return status;

  if (positionals != NULL && positionals[0] != NULL)
    {
      for (guint i = 0; positionals[i] != NULL; i++)
        ok &= write_one (positionals[i], FALSE);
    }
  else
    {
      g_auto(GStrv) dirs = reg_registry_get_search_paths (regctl_get_registry (add_paths));

      for (guint i = 0; dirs[i] != NULL; i++)
        ok &= write_one (dirs[i], TRUE);
    }

  return ok ? REGCTL_EXIT_OK : REGCTL_EXIT_FAILURE;
}
