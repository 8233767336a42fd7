/* regctl-list.c: `regctl list`, `regctl info` and `regctl paths`, the
 * subcommands that look at the registry without running a graph
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "reg-environment-private.h"
#include "regctl.h"

static const char *
origin_to_string (RegBackendOrigin origin)
{
  return origin == REG_BACKEND_ORIGIN_RUNTIME ? "runtime" : "module";
}

/* The options of a backend as a JSON array of objects (null without a
 * schema), on lines indented by @indent. */
static void
append_options_json (GString    *out,
                     GListModel *options,
                     const char *indent)
{
  guint n;

  if (options == NULL)
    {
      g_string_append (out, "null");
      return;
    }

  n = g_list_model_get_n_items (options);
  g_string_append_c (out, '[');
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RegOption) option = g_list_model_get_item (options, i);

      g_string_append_printf (out, "%s\n%s  {\"name\": ", i > 0 ? "," : "", indent);
      regctl_json_append_string (out, reg_option_get_name (option));
      g_string_append (out, ", \"type\": ");
      regctl_json_append_string (out, reg_option_get_type_string (option));
      g_string_append (out, ", \"type_name\": ");
      regctl_json_append_string (out, reg_option_get_type_name (option));
      g_string_append (out, ", \"default\": ");
      regctl_json_append_variant (out, reg_option_get_default_value (option));
      g_string_append (out, ", \"minimum\": ");
      regctl_json_append_variant (out, reg_option_get_minimum (option));
      g_string_append (out, ", \"maximum\": ");
      regctl_json_append_variant (out, reg_option_get_maximum (option));
      g_string_append (out, ", \"choices\": ");
      if (reg_option_get_choices (option) != NULL)
        regctl_json_append_strv (out, reg_option_get_choices (option));
      else
        g_string_append (out, "null");
      g_string_append (out, ", \"description\": ");
      regctl_json_append_string (out, reg_option_get_description (option));
      g_string_append_c (out, '}');
    }
  if (n > 0)
    g_string_append_printf (out, "\n%s", indent);
  g_string_append_c (out, ']');
}

/* One backend as a JSON object, its keys indented by @indent spaces. */
static void
append_info_json (GString        *out,
                  RegBackendInfo *info,
                  const char     *indent)
{
  const char *description = reg_backend_info_get_description (info);
  const char * const *authors = reg_backend_info_get_authors (info);

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
  g_string_append_printf (out, ",\n%s\"loader\": ", indent);
  regctl_json_append_string (out, reg_backend_info_get_loader (info));
  g_string_append_printf (out, ",\n%s\"entry_point\": ", indent);
  regctl_json_append_string (out, reg_backend_info_get_entry_point (info));
  g_string_append_printf (out, ",\n%s\"default\": %s", indent,
                          reg_backend_info_get_is_default (info) ? "true" : "false");
  g_string_append_printf (out, ",\n%s\"version\": ", indent);
  regctl_json_append_string (out, reg_backend_info_get_version (info));
  g_string_append_printf (out, ",\n%s\"authors\": ", indent);
  if (authors != NULL)
    regctl_json_append_strv (out, authors);
  else
    g_string_append (out, "null");
  g_string_append_printf (out, ",\n%s\"website\": ", indent);
  regctl_json_append_string (out, reg_backend_info_get_website (info));
  g_string_append_printf (out, ",\n%s\"license\": ", indent);
  regctl_json_append_string (out, reg_backend_info_get_license (info));
  g_string_append_printf (out, ",\n%s\"options\": ", indent);
  append_options_json (out, reg_backend_info_get_options (info), indent);
}

/* The module file, or for a backend written in Python, which has none
 * before Python finds it, its entry point. */
static const char *
source_of (RegBackendInfo *info)
{
  const char *module_path = reg_backend_info_get_module_path (info);

  if (reg_backend_info_get_origin (info) == REG_BACKEND_ORIGIN_RUNTIME)
    return "runtime";
  if (module_path == NULL)
    return reg_backend_info_get_entry_point (info) != NULL ? reg_backend_info_get_entry_point (info)
                                                           : "runtime";

  return module_path;
}

/* What loads the backend's code, in words. */
static const char *
loader_of (RegBackendInfo *info)
{
  const char *loader = reg_backend_info_get_loader (info);

  if (loader == NULL)
    return "none (registered at run time)";
  if (g_str_equal (loader, "c"))
    return "c (a shared object)";
  if (g_str_equal (loader, "python"))
    return "python (imports the entry point's module into Python)";
  if (g_str_equal (loader, "gjs"))
    return "gjs (imports the ES module into GJS)";

  return loader;
}

/* declared, loaded, failed or quarantined. */
static const char *
state_of (RegBackendInfo *info)
{
  g_autoptr(GEnumClass) states = g_type_class_ref (REG_TYPE_BACKEND_STATE);

  return g_enum_get_value (states, reg_backend_info_get_state (info))->value_nick;
}

/* Whether the registry caches the backend's compiled functions: its
 * manifest says Shareable=true, or its compiler (when it exists) says
 * so. */
static gboolean
is_shareable (RegBackendInfo *info)
{
  return (reg_backend_info_get_compiler_flags (info) & REG_COMPILER_FLAGS_SHAREABLE) != 0;
}

static const char *
description_of (RegBackendInfo *info)
{
  const char *description = reg_backend_info_get_description (info);

  return description != NULL && description[0] != '\0' ? description : "-";
}

/* ---- list --------------------------------------------------------------- */

/* The keys of `list --json`; a backend's state shows in the table and in
 * `info`. */
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

/* On a terminal the table keeps within its width: SOURCE shows the
 * module's file name (its directory is in `regctl paths`), and long
 * descriptions are cut.  Piped, it is whole. */
static void
print_list_table (GPtrArray *infos)
{
  g_autoptr(RegctlTable) table = regctl_table_new (5, "NAME", "TAGS", "STATE", "SOURCE", "DESCRIPTION");
  g_autofree char *text = NULL;
  guint width = regctl_stdout_width ();

  for (guint i = 0; i < infos->len; i++)
    {
      RegBackendInfo *info = g_ptr_array_index (infos, i);
      g_autofree char *tags = regctl_join_tags (reg_backend_info_get_tags (info));
      g_autofree char *source = width > 0 && reg_backend_info_get_module_path (info) != NULL
        ? g_path_get_basename (source_of (info))
        : g_strdup (source_of (info));

      regctl_table_add_row (table, reg_backend_info_get_name (info), tags,
                            state_of (info), source,
                            description_of (info));
    }

  regctl_table_fit (table, 4, width);
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

      if (info == NULL)
        continue;
      g_ptr_array_add (infos, info);
    }

  if (json)
    print_list_json (infos);
  else
    print_list_table (infos);

  return REGCTL_EXIT_OK;
}

/* ---- info --------------------------------------------------------------- */

/* Where the default backend came from, for a person. */
static const char *
default_source_text (RegRegistry *registry)
{
  switch (reg_registry_get_default_backend_source (registry))
    {
    case REG_SETTING_SOURCE_ENVIRONMENT:
      return "from REG_DEFAULT_BACKEND";
    case REG_SETTING_SOURCE_APPLICATION:
      return "set by the program";
    case REG_SETTING_SOURCE_BUILT_IN:
    default:
      return "built in";
    }
}

/* @name, escaped, and marked when nothing declares it (the registry's
 * settings may name anything that follows the naming rules):
 * "eagr (not a backend: did you mean 'eager'?)". */
static void
append_choice (GString     *out,
               RegRegistry *registry,
               const char  *name)
{
  g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, name);
  g_autofree char *shown = regctl_escape (name);
  g_auto(GStrv) close = NULL;

  g_string_append (out, shown);
  if (info != NULL)
    return;

  close = reg_registry_suggest (registry, name);
  g_string_append (out, " (not a backend");
  for (guint i = 0; close[i] != NULL; i++)
    {
      g_autofree char *shown_close = regctl_escape (close[i]);

      g_string_append_printf (out, "%s'%s'", i == 0 ? ": did you mean " : ", ", shown_close);
    }
  g_string_append (out, close[0] != NULL ? "?)" : ")");
}

/* The default backend and the fallback chain, where they came from, and
 * which of their names are no backends. */
static void
print_choice_text (RegRegistry *registry)
{
  g_autofree char *name = reg_registry_dup_default_backend (registry);
  g_auto(GStrv) fallbacks = reg_registry_dup_fallback_backends (registry);
  g_autoptr(GString) chosen = g_string_new (NULL);
  g_autoptr(GString) chain = g_string_new (NULL);

  if (name != NULL)
    append_choice (chosen, registry, name);
  else
    g_string_append (chosen, "(a compiler object)");
  for (guint i = 0; fallbacks[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append (chain, ", ");
      append_choice (chain, registry, fallbacks[i]);
    }

  regctl_print ("\nDefault backend: %s (%s)\n", chosen->str, default_source_text (registry));
  regctl_print ("Fallback backends: %s%s\n", fallbacks[0] != NULL ? chain->str : "none",
                fallbacks[0] != NULL ? " (from REG_FALLBACK_BACKENDS)" : "");
}

/* What an option allows besides its type: "0 to 256", "fast, small". */
static char *
allowed_values (RegOption *option)
{
  GVariant *minimum = reg_option_get_minimum (option);
  GVariant *maximum = reg_option_get_maximum (option);
  const char * const *choices = reg_option_get_choices (option);
  g_autofree char *low = minimum != NULL ? reg_option_value_to_string (option, minimum) : NULL;
  g_autofree char *high = maximum != NULL ? reg_option_value_to_string (option, maximum) : NULL;

  if (low != NULL && high != NULL)
    return g_strdup_printf ("%s to %s", low, high);
  if (low != NULL)
    return g_strdup_printf ("at least %s", low);
  if (high != NULL)
    return g_strdup_printf ("at most %s", high);
  if (choices != NULL)
    {
      g_autofree char *joined = g_strjoinv (", ", (char **) choices);

      if (g_str_equal (reg_option_get_type_string (option), "as"))
        return g_strdup_printf ("any of %s", joined);
      return g_steal_pointer (&joined);
    }

  return g_strdup ("-");
}

/* The options, as a table under "Options:". */
static void
print_options_text (GListModel *options)
{
  g_autoptr(RegctlTable) table = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  guint n;

  if (options == NULL)
    {
      regctl_print ("Options:      not declared (given to the backend unchecked)\n");
      return;
    }

  n = g_list_model_get_n_items (options);
  if (n == 0)
    {
      regctl_print ("Options:      none\n");
      return;
    }

  regctl_print ("Options:\n");
  table = regctl_table_new (5, "NAME", "TYPE", "DEFAULT", "ALLOWED", "DESCRIPTION");
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RegOption) option = g_list_model_get_item (options, i);
      GVariant *default_value = reg_option_get_default_value (option);
      g_autofree char *shown_default = default_value != NULL
        ? reg_option_value_to_string (option, default_value)
        : g_strdup ("-");
      g_autofree char *allowed = allowed_values (option);
      const char *description = reg_option_get_description (option);

      regctl_table_add_row (table, reg_option_get_name (option), reg_option_get_type_name (option),
                            shown_default[0] != '\0' ? shown_default : "''", allowed,
                            description != NULL ? description : "-");
    }

  /* Within the terminal, under its indent of two columns. */
  regctl_table_fit (table, 4, regctl_stdout_width () > 2 ? regctl_stdout_width () - 2 : 0);
  text = regctl_table_to_string (table);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    regctl_print ("  %s\n", lines[i]);
}

/* The manifest that declared the backend, and those it hides: one per
 * line, under one label. */
static void
print_declaration_text (RegBackendInfo *info)
{
  const char *manifest = reg_backend_info_get_manifest_path (info);
  const char * const *shadowed = reg_backend_info_get_shadowed_manifests (info);
  g_autofree char *shown = regctl_escape (manifest);

  regctl_print ("Manifest:     %s\n", shown);
  for (guint i = 0; shadowed[i] != NULL; i++)
    {
      g_autofree char *path = regctl_escape (shadowed[i]);

      regctl_print ("%s%s\n", i == 0 ? "Shadows:      " : "              ", path);
    }
}

/* The verdict of the backend's last check, its date and reason. */
static void
print_verdict_text (RegBackendInfo *info,
                    RegVerdict     *verdict)
{
  g_autofree char *name = regctl_escape (reg_backend_info_get_name (info));
  g_autofree char *time = NULL;

  if (reg_backend_info_get_origin (info) != REG_BACKEND_ORIGIN_MODULE)
    return;

  if (verdict == NULL)
    {
      regctl_print ("Verdict:      none (`regctl verify %s` checks it)\n", name);
      return;
    }

  time = regctl_format_time (reg_verdict_get_time (verdict), FALSE);
  regctl_print ("Verdict:      %s, %s%s\n", regctl_verdict_nick (reg_verdict_get_kind (verdict)), time,
                reg_verdict_get_quarantines (verdict) ? " (the module is quarantined)" : "");
  if (!g_str_equal (reg_verdict_get_backend_name (verdict), reg_backend_info_get_name (info)))
    {
      g_autofree char *checked = regctl_escape (reg_verdict_get_backend_name (verdict));

      regctl_print ("Checked:      backend '%s' of the same module\n", checked);
    }
  if (reg_verdict_get_reason (verdict) != NULL)
    {
      g_autofree char *reason = regctl_escape (reg_verdict_get_reason (verdict));

      regctl_print ("Reason:       %s\n", reason);
    }
}

static void
print_info_text (RegRegistry    *registry,
                 RegBackendInfo *info,
                 RegVerdict     *verdict,
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
  g_autofree char *loader = regctl_escape (loader_of (info));
  g_autofree char *entry_point = regctl_escape (reg_backend_info_get_entry_point (info));
  const char * const *authors = reg_backend_info_get_authors (info);
  const char * const *operators = reg_backend_info_get_operators (info);
  const struct { const char *label; const char *value; } about[] = {
    { "Version:  ", reg_backend_info_get_version (info) },
    { "Website:  ", reg_backend_info_get_website (info) },
    { "License:  ", reg_backend_info_get_license (info) },
  };

  regctl_print ("Name:         %s\n", name);
  regctl_print ("Tags:         %s\n", tags);
  regctl_print ("Description:  %s\n", description);
  regctl_print ("State:        %s\n", state_of (info));
  regctl_print ("Origin:       %s\n", origin_to_string (reg_backend_info_get_origin (info)));
  regctl_print ("Loader:       %s\n", loader);
  if (reg_backend_info_get_entry_point (info) != NULL)
    regctl_print ("Entry point:  %s\n", entry_point);
  regctl_print ("Module:       %s\n", module_path);
  print_declaration_text (info);
  print_verdict_text (info, verdict);
  if (reg_backend_info_get_is_default (info))
    regctl_print ("Default:      yes (%s)\n", default_source_text (registry));
  else
    regctl_print ("Default:      no\n");
  regctl_print ("Shareable:    %s\n", is_shareable (info) ? "yes" : "no");
  if (operators == NULL)
    regctl_print ("Operators:    all\n");
  else
    {
      g_autofree char *joined = g_strjoinv (", ", (char **) operators);

      regctl_print ("Operators:    %s\n", operators[0] != NULL ? joined : "none");
    }
  for (gsize i = 0; i < G_N_ELEMENTS (about); i++)
    if (about[i].value != NULL)
      {
        g_autofree char *value = regctl_escape (about[i].value);

        regctl_print ("%s    %s\n", about[i].label, value);
      }
  if (authors != NULL)
    {
      g_autofree char *joined = g_strjoinv (", ", (char **) authors);
      g_autofree char *value = regctl_escape (joined);

      regctl_print ("Authors:      %s\n", value);
    }
  print_options_text (reg_backend_info_get_options (info));
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
                 RegVerdict     *verdict,
                 RegCompiler    *compiler)
{
  g_autoptr(GString) out = g_string_new (NULL);

  append_info_json (out, info, "  ");
  g_string_append_printf (out, ",\n  \"shareable\": %s", is_shareable (info) ? "true" : "false");
  g_string_append (out, ",\n  \"operators\": ");
  if (reg_backend_info_get_operators (info) != NULL)
    regctl_json_append_strv (out, reg_backend_info_get_operators (info));
  else
    g_string_append (out, "null");
  g_string_append (out, ",\n  \"manifest_path\": ");
  regctl_json_append_string (out, reg_backend_info_get_manifest_path (info));
  g_string_append (out, ",\n  \"shadowed_manifests\": ");
  regctl_json_append_strv (out, reg_backend_info_get_shadowed_manifests (info));
  g_string_append (out, ",\n  \"check\": ");
  if (verdict == NULL)
    g_string_append (out, "null");
  else
    {
      g_string_append (out, "{\n    \"backend\": ");
      regctl_json_append_string (out, reg_verdict_get_backend_name (verdict));
      g_string_append (out, ",\n");
      regctl_append_verdict_json (out, verdict, "    ");
      g_string_append (out, "\n  }");
    }
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
  g_autoptr(RegVerdict) verdict = NULL;
  g_autoptr(GError) error = NULL;
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

  verdict = reg_backend_info_get_verdict (info) != NULL ? g_object_ref (reg_backend_info_get_verdict (info)) : NULL;

  if (json)
    print_info_json (info, verdict, compiler);
  else
    print_info_text (registry, info, verdict, compiler, load_ns);

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
  gboolean trusted = _reg_environment_is_trusted ();
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

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

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

/* The skipped manifests of @dir, by name. */
static GPtrArray *
skipped_in (GHashTable *skipped,
            const char *dir)
{
  GPtrArray *paths = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, skipped);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      g_autofree char *parent = g_path_get_dirname (key);

      if (g_str_equal (parent, dir))
        g_ptr_array_add (paths, key);
    }
  g_ptr_array_sort (paths, compare_paths);

  return paths;
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
  g_autoptr(RegctlTable) table = regctl_table_new (5, "ORDER", "DIRECTORY", "ORIGIN", "MANIFESTS", "SKIPPED");
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GString) skipped_text = g_string_new (NULL);
  g_autoptr(GHashTable) skipped = NULL;
  g_auto(GStrv) dirs = NULL;
  g_autofree const char **origins = NULL;
  RegRegistry *registry;
  int status;

  if (!regctl_parse_args (command, context, &argc, &argv, &status))
    return status;
  if ((status = regctl_check_positionals (command, positionals, 0, NULL)) != REGCTL_EXIT_OK)
    return status;

  registry = regctl_get_registry (add_paths);
  dirs = reg_registry_get_search_paths (registry);
  origins = search_path_origins (dirs);
  skipped = reg_registry_dup_skipped_manifests (registry);

  regctl_table_set_right_aligned (table, 0);
  if (json)
    g_string_append_c (out, '[');

  for (guint i = 0; dirs[i] != NULL; i++)
    {
      g_autoptr(GPtrArray) dir_skipped = skipped_in (skipped, dirs[i]);
      DirStatus dir_status;
      guint n = count_manifests (dirs[i], &dir_status);

      /* Used: those discovery read, all but the skipped ones. */
      n -= MIN (n, dir_skipped->len);

      if (json)
        {
          g_string_append (out, i > 0 ? ",\n  {\n    \"directory\": " : "\n  {\n    \"directory\": ");
          regctl_json_append_string (out, dirs[i]);
          g_string_append (out, ",\n    \"origin\": ");
          regctl_json_append_string (out, origins[i]);
          g_string_append_printf (out, ",\n    \"manifests\": %u,\n    \"skipped\": %u,\n    \"status\": ",
                                  n, dir_skipped->len);
          regctl_json_append_string (out, dir_status_names[dir_status]);
          g_string_append (out, ",\n    \"skipped_manifests\": [");
          for (guint j = 0; j < dir_skipped->len; j++)
            {
              const char *path = g_ptr_array_index (dir_skipped, j);

              g_string_append (out, j > 0 ? ",\n      {\"path\": " : "\n      {\"path\": ");
              regctl_json_append_string (out, path);
              g_string_append (out, ", \"reason\": ");
              regctl_json_append_string (out, g_hash_table_lookup (skipped, path));
              g_string_append (out, j + 1 == dir_skipped->len ? "}\n    " : "}");
            }
          g_string_append (out, "]\n  }");
        }
      else
        {
          g_autofree char *order = g_strdup_printf ("%u", i + 1);
          g_autofree char *count = dir_status == DIR_OK
            ? g_strdup_printf ("%u", n)
            : g_strdup_printf ("0 (%s)", dir_status_labels[dir_status]);
          g_autofree char *n_skipped = g_strdup_printf ("%u", dir_skipped->len);

          /* The table escapes the name (a directory of the environment
           * may hold anything). */
          regctl_table_add_row (table, order, dirs[i], origins[i], count, n_skipped);

          for (guint j = 0; j < dir_skipped->len; j++)
            {
              const char *path = g_ptr_array_index (dir_skipped, j);
              g_autofree char *shown = regctl_escape (path);
              g_autofree char *reason = regctl_escape (g_hash_table_lookup (skipped, path));

              g_string_append_printf (skipped_text, "  %s: %s\n", shown, reason);
            }
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
      if (skipped_text->len > 0)
        regctl_print ("\nSkipped manifests:\n%s", skipped_text->str);
      print_choice_text (registry);
    }

  return REGCTL_EXIT_OK;
}
