/* regctl-list.c: `regctl list`, `regctl info` and `regctl paths`, the
 * subcommands that look at the registry without running a graph
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>
#include <sys/auxv.h>

#include "regctl.h"

static const char *
origin_to_string (RegBackendOrigin origin)
{
  return origin == REG_BACKEND_ORIGIN_RUNTIME ? "runtime" : "module";
}

/* One backend as a JSON object, its keys indented by @indent spaces. */
static void
append_info_json (GString        *out,
                  RegBackendInfo *info,
                  const char     *indent)
{
  const char *description = reg_backend_info_get_description (info);

  g_string_append_printf (out, "{\n%s\"name\": ", indent);
  regctl_json_append_string (out, reg_backend_info_get_name (info));
  g_string_append_printf (out, ",\n%s\"tags\": ", indent);
  regctl_json_append_strv (out, reg_backend_info_get_tags (info));
  g_string_append_printf (out, ",\n%s\"description\": ", indent);
  regctl_json_append_string (out, description != NULL && description[0] != '\0' ? description : NULL);
  g_string_append_printf (out, ",\n%s\"loaded\": %s", indent,
                          reg_backend_info_get_loaded (info) ? "true" : "false");
  g_string_append_printf (out, ",\n%s\"origin\": ", indent);
  regctl_json_append_string (out, origin_to_string (reg_backend_info_get_origin (info)));
  g_string_append_printf (out, ",\n%s\"module_path\": ", indent);
  regctl_json_append_string (out, reg_backend_info_get_module_path (info));
}

static const char *
source_of (RegBackendInfo *info)
{
  const char *module_path = reg_backend_info_get_module_path (info);

  if (reg_backend_info_get_origin (info) == REG_BACKEND_ORIGIN_RUNTIME || module_path == NULL)
    return "runtime";

  return module_path;
}

static const char *
state_of (RegBackendInfo *info)
{
  return reg_backend_info_get_loaded (info) ? "loaded" : "declared";
}

static const char *
description_of (RegBackendInfo *info)
{
  const char *description = reg_backend_info_get_description (info);

  return description != NULL && description[0] != '\0' ? description : "-";
}

/* ---- list --------------------------------------------------------------- */

static void
print_list_json (GPtrArray *infos)
{
  g_autoptr(GString) out = g_string_new ("[");

  for (guint i = 0; i < infos->len; i++)
    {
      g_string_append (out, i > 0 ? ",\n  " : "\n  ");
      append_info_json (out, g_ptr_array_index (infos, i), "    ");
      g_string_append (out, "\n  }");
    }
  g_string_append (out, infos->len > 0 ? "\n]\n" : "]\n");

  regctl_write_stdout (out->str, out->len);
}

static void
print_list_table (GPtrArray *infos)
{
  g_autoptr(RegctlTable) table = regctl_table_new (5, "NAME", "TAGS", "STATE", "SOURCE", "DESCRIPTION");
  g_autofree char *text = NULL;

  for (guint i = 0; i < infos->len; i++)
    {
      RegBackendInfo *info = g_ptr_array_index (infos, i);
      g_autofree char *tags = regctl_join_tags (reg_backend_info_get_tags (info));

      regctl_table_add_row (table, reg_backend_info_get_name (info), tags,
                            state_of (info), source_of (info), description_of (info));
    }

  text = regctl_table_to_string (table);
  regctl_print ("%s", text);
}

int
regctl_list (const RegctlCommand  *command,
             int                   argc,
             char                **argv)
{
  gboolean all = FALSE;
  gboolean json = FALSE;
  g_autofree char *exclude_tags = NULL;
  g_auto(GStrv) add_paths = NULL;
  g_auto(GStrv) positionals = NULL;
  const GOptionEntry entries[] = {
    { "all", 'a', 0, G_OPTION_ARG_NONE, &all,
      "List every backend, debug and experimental ones included", NULL },
    { "exclude-tags", 'x', 0, G_OPTION_ARG_FILENAME, &exclude_tags,
      "Leave out backends carrying any of TAGS (comma-separated), instead of debug,experimental",
      "TAGS" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &positionals, NULL, NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = regctl_option_context_new (command, NULL, entries, &add_paths);
  g_auto(GStrv) exclude = NULL;
  g_auto(GStrv) names = NULL;
  g_autoptr(GPtrArray) infos = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GError) error = NULL;
  RegRegistry *registry;
  int status;

  if (!regctl_parse_args (command, context, &argc, &argv, &status))
    return status;
  if ((status = regctl_check_positionals (command, positionals, 0, NULL)) != REGCTL_EXIT_OK)
    return status;
  if (all && exclude_tags != NULL)
    return regctl_usage_error (command, "--all and --exclude-tags cannot be used together");
  if (!regctl_arg_to_utf8 (&exclude_tags, &error))
    return regctl_usage_error (command, "%s", error->message);

  if (all)
    exclude = g_new0 (char *, 1);
  else if (exclude_tags != NULL)
    exclude = regctl_split_list (exclude_tags);

  registry = regctl_get_registry (add_paths);
  names = reg_registry_list_backends (registry, (const char * const *) exclude);

  /* Info snapshots never load a module.  A name gone in between (another
   * thread could unregister it; not in regctl) is skipped. */
  for (guint i = 0; names[i] != NULL; i++)
    {
      RegBackendInfo *info = reg_registry_get_backend_info (registry, names[i]);

      if (info != NULL)
        g_ptr_array_add (infos, info);
    }

  if (json)
    print_list_json (infos);
  else
    print_list_table (infos);

  return REGCTL_EXIT_OK;
}

/* ---- info --------------------------------------------------------------- */

static void
print_info_text (RegBackendInfo *info,
                 gboolean        is_default,
                 RegCompiler    *compiler,
                 gint64          load_ns)
{
  /* Everything but regctl's own words comes from manifests and modules:
   * escaped, so that it keeps to its line and cannot drive the terminal. */
  g_autofree char *name = regctl_escape (reg_backend_info_get_name (info));
  g_autofree char *joined_tags = regctl_join_tags (reg_backend_info_get_tags (info));
  g_autofree char *tags = regctl_escape (joined_tags);
  g_autofree char *description = regctl_escape (description_of (info));
  g_autofree char *module_path = regctl_escape (reg_backend_info_get_module_path (info));

  regctl_print ("Name:         %s\n", name);
  regctl_print ("Tags:         %s\n", tags);
  regctl_print ("Description:  %s\n", description);
  regctl_print ("State:        %s\n", state_of (info));
  regctl_print ("Origin:       %s\n", origin_to_string (reg_backend_info_get_origin (info)));
  regctl_print ("Module:       %s\n", module_path);
  regctl_print ("Default:      %s\n", is_default ? "yes" : "no");
  if (compiler != NULL)
    {
      g_autofree char *ms = regctl_format_ms (load_ns, "%.3f");
      g_autofree char *compiler_name = regctl_escape (reg_compiler_get_name (compiler));
      g_autofree char *type_name = regctl_escape (G_OBJECT_TYPE_NAME (compiler));

      regctl_print ("Compiler:     %s (%s)\n", compiler_name, type_name);
      regctl_print ("Lookup:       ok, %s ms\n", ms);
    }
}

static void
print_info_json (RegBackendInfo *info,
                 gboolean        is_default,
                 RegCompiler    *compiler)
{
  g_autoptr(GString) out = g_string_new (NULL);

  append_info_json (out, info, "  ");
  g_string_append_printf (out, ",\n  \"default\": %s", is_default ? "true" : "false");
  if (compiler != NULL)
    {
      g_string_append (out, ",\n  \"compiler\": ");
      regctl_json_append_string (out, reg_compiler_get_name (compiler));
      g_string_append (out, ",\n  \"compiler_type\": ");
      regctl_json_append_string (out, G_OBJECT_TYPE_NAME (compiler));
    }
  g_string_append (out, "\n}\n");

  regctl_write_stdout (out->str, out->len);
}

int
regctl_info (const RegctlCommand  *command,
             int                   argc,
             char                **argv)
{
  gboolean json = FALSE;
  gboolean load = FALSE;
  g_auto(GStrv) add_paths = NULL;
  g_auto(GStrv) positionals = NULL;
  const GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { "load", 'l', 0, G_OPTION_ARG_NONE, &load,
      "Look the backend up, loading its module, and report the compiler", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &positionals, NULL, NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = regctl_option_context_new (command, "NAME", entries, &add_paths);
  g_autoptr(RegBackendInfo) info = NULL;
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *default_name = NULL;
  RegRegistry *registry;
  const char *name;
  gint64 load_ns = 0;
  int status;

  if (!regctl_parse_args (command, context, &argc, &argv, &status))
    return status;
  if ((status = regctl_check_positionals (command, positionals, 1, "backend NAME")) != REGCTL_EXIT_OK)
    return status;
  if (!regctl_args_to_utf8 (positionals, &error))
    return regctl_usage_error (command, "%s", error->message);
  name = positionals[0];

  registry = regctl_get_registry (add_paths);

  /* get_backend_info() says nothing of unknown names; get_backend_tags()
   * has the registry's message, suggestions included. */
  info = reg_registry_get_backend_info (registry, name);
  if (info == NULL)
    {
      g_auto(GStrv) tags = reg_registry_get_backend_tags (registry, name, &error);

      if (tags == NULL)
        {
          regctl_print_error (error);
          return REGCTL_EXIT_FAILURE;
        }
    }

  if (load)
    {
      gint64 start = regctl_now_ns ();

      compiler = reg_registry_lookup_backend (registry, name, &error);
      load_ns = regctl_now_ns () - start;
      if (compiler == NULL)
        {
          regctl_print_error (error);
          return REGCTL_EXIT_FAILURE;
        }

      /* The state changed: take a new snapshot. */
      g_clear_object (&info);
      info = reg_registry_get_backend_info (registry, name);
    }

  if (info == NULL)
    {
      g_autofree char *shown = regctl_escape (name);

      regctl_printerr ("backend '%s' disappeared while regctl looked at it\n", shown);
      return REGCTL_EXIT_FAILURE;
    }

  default_name = reg_registry_dup_default_backend (registry);

  if (json)
    print_info_json (info, g_strcmp0 (default_name, name) == 0, compiler);
  else
    print_info_text (info, g_strcmp0 (default_name, name) == 0, compiler, load_ns);

  return REGCTL_EXIT_OK;
}

/* ---- paths -------------------------------------------------------------- */

typedef struct
{
  char       *dir;
  const char *origin;
} PathEntry;

static void
path_entry_clear (PathEntry *entry)
{
  g_free (entry->dir);
}

/* The directories the library takes from the environment, read again the
 * way it does (reg-registry.c): REG_BACKEND_PATH split at ':' without empty
 * entries, then REG_BACKEND_SYSTEM_DIR or the installed directory, all
 * canonicalized; nothing from the environment in setuid programs. */
static GArray *
environment_entries (void)
{
  GArray *entries = g_array_new (FALSE, TRUE, sizeof (PathEntry));
  gboolean trusted = getauxval (AT_SECURE) == 0;
  const char *system_dir = REGCTL_BACKEND_DIR;
  const char *system_origin = "system";
  const char *path = trusted ? g_getenv ("REG_BACKEND_PATH") : NULL;

  g_array_set_clear_func (entries, (GDestroyNotify) path_entry_clear);

  if (path != NULL)
    {
      g_auto(GStrv) parts = g_strsplit (path, G_SEARCHPATH_SEPARATOR_S, -1);

      for (guint i = 0; parts[i] != NULL; i++)
        if (parts[i][0] != '\0')
          {
            PathEntry entry = { g_canonicalize_filename (parts[i], NULL), "REG_BACKEND_PATH" };

            g_array_append_val (entries, entry);
          }
    }

  if (trusted && g_getenv ("REG_BACKEND_SYSTEM_DIR") != NULL)
    {
      system_dir = g_getenv ("REG_BACKEND_SYSTEM_DIR");
      system_origin = "REG_BACKEND_SYSTEM_DIR";
    }

  if (system_dir[0] != '\0')
    {
      PathEntry entry = { g_canonicalize_filename (system_dir, NULL), system_origin };

      g_array_append_val (entries, entry);
    }

  return entries;
}

/* Each search directory's origin.  The registry's list is the added
 * directories followed by the environment's, so the environment's are
 * matched from the end; whatever comes before them was added. */
static const char **
search_path_origins (char **dirs)
{
  g_autoptr(GArray) env = environment_entries ();
  guint n_dirs = g_strv_length (dirs);
  const char **origins = g_new0 (const char *, n_dirs + 1);
  guint matched = 0;

  while (matched < env->len && matched < n_dirs &&
         g_str_equal (dirs[n_dirs - 1 - matched],
                      g_array_index (env, PathEntry, env->len - 1 - matched).dir))
    {
      origins[n_dirs - 1 - matched] = g_array_index (env, PathEntry, env->len - 1 - matched).origin;
      matched++;
    }
  for (guint i = 0; i < n_dirs - matched; i++)
    origins[i] = "added";

  return origins;
}

typedef enum {
  DIR_OK,
  DIR_MISSING,
  DIR_NOT_A_DIRECTORY,
  DIR_UNREADABLE,
} DirStatus;

static const char * const dir_status_names[] = { "ok", "missing", "not-a-directory", "unreadable" };
static const char * const dir_status_labels[] = { NULL, "missing", "not a directory", "unreadable" };

/* Counts the manifests as discovery finds them: entries named *.backend. */
static guint
count_manifests (const char *dir,
                 DirStatus  *status)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) gdir = g_dir_open (dir, 0, &error);
  const char *name;
  guint n = 0;

  if (gdir == NULL)
    {
      if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        *status = DIR_MISSING;
      else if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR))
        *status = DIR_NOT_A_DIRECTORY;
      else
        *status = DIR_UNREADABLE;
      return 0;
    }

  while ((name = g_dir_read_name (gdir)) != NULL)
    if (g_str_has_suffix (name, ".backend"))
      n++;

  *status = DIR_OK;
  return n;
}

int
regctl_paths (const RegctlCommand  *command,
              int                   argc,
              char                **argv)
{
  gboolean json = FALSE;
  g_auto(GStrv) add_paths = NULL;
  g_auto(GStrv) positionals = NULL;
  const GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &positionals, NULL, NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = regctl_option_context_new (command, NULL, entries, &add_paths);
  g_autoptr(RegctlTable) table = regctl_table_new (4, "ORDER", "DIRECTORY", "ORIGIN", "MANIFESTS");
  g_autoptr(GString) out = g_string_new (NULL);
  g_auto(GStrv) dirs = NULL;
  g_autofree const char **origins = NULL;
  int status;

  if (!regctl_parse_args (command, context, &argc, &argv, &status))
    return status;
  if ((status = regctl_check_positionals (command, positionals, 0, NULL)) != REGCTL_EXIT_OK)
    return status;

  dirs = reg_registry_get_search_paths (regctl_get_registry (add_paths));
  origins = search_path_origins (dirs);

  regctl_table_set_right_aligned (table, 0);
  if (json)
    g_string_append_c (out, '[');

  for (guint i = 0; dirs[i] != NULL; i++)
    {
      DirStatus dir_status;
      guint n = count_manifests (dirs[i], &dir_status);

      if (json)
        {
          g_string_append (out, i > 0 ? ",\n  {\n    \"directory\": " : "\n  {\n    \"directory\": ");
          regctl_json_append_string (out, dirs[i]);
          g_string_append (out, ",\n    \"origin\": ");
          regctl_json_append_string (out, origins[i]);
          g_string_append_printf (out, ",\n    \"manifests\": %u,\n    \"status\": ", n);
          regctl_json_append_string (out, dir_status_names[dir_status]);
          g_string_append (out, "\n  }");
        }
      else
        {
          g_autofree char *order = g_strdup_printf ("%u", i + 1);
          g_autofree char *count = dir_status == DIR_OK
            ? g_strdup_printf ("%u", n)
            : g_strdup_printf ("0 (%s)", dir_status_labels[dir_status]);
          /* The table escapes the name (a directory of the environment
           * may hold anything). */
          regctl_table_add_row (table, order, dirs[i], origins[i], count);
        }
    }

  if (json)
    {
      g_string_append (out, dirs[0] != NULL ? "\n]\n" : "]\n");
      regctl_write_stdout (out->str, out->len);
    }
  else
    {
      g_autofree char *text = regctl_table_to_string (table);

      regctl_print ("%s", text);
    }

  return REGCTL_EXIT_OK;
}
