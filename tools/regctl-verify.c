/* regctl-verify.c: `regctl verify`, checking backends out of process, and
 * how `regctl list` and `regctl info` show the verdicts
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "regctl.h"

/**
 * regctl_verdict_nick:
 * @kind: a verdict
 *
 * Returns: (transfer none): the word for @kind ("wrong-results")
 */
const char *
regctl_verdict_nick (RegVerdictKind kind)
{
  GEnumClass *klass = g_type_class_ref (REG_TYPE_VERDICT_KIND);
  GEnumValue *value = g_enum_get_value (klass, kind);

  g_type_class_unref (klass);
  return value != NULL ? value->value_nick : "?";
}

/**
 * regctl_format_time:
 * @seconds: seconds since the epoch
 * @iso: ISO 8601 (for JSON) rather than text
 *
 * Returns: (transfer full): the UTC date and time
 */
char *
regctl_format_time (gint64   seconds,
                    gboolean iso)
{
  g_autoptr(GDateTime) time = g_date_time_new_from_unix_utc (seconds);

  if (time == NULL)
    return g_strdup ("?");

  return g_date_time_format (time, iso ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%d %H:%M:%S UTC");
}

/**
 * regctl_append_verdict_json:
 * @out: where to append
 * @verdict: (nullable): a verdict
 * @indent: the indentation of its keys
 *
 * Appends @verdict's keys (without braces): verdict, reason,
 * unsupported_ops, quarantined, time and, when it is about another
 * backend, checked_backend; `null` values for no verdict.
 */
void
regctl_append_verdict_json (GString    *out,
                            RegVerdict *verdict,
                            const char *indent)
{
  g_autofree char *time = verdict != NULL ? regctl_format_time (reg_verdict_get_time (verdict), TRUE) : NULL;

  g_string_append_printf (out, "%s\"verdict\": ", indent);
  regctl_json_append_string (out, verdict != NULL ? regctl_verdict_nick (reg_verdict_get_kind (verdict)) : NULL);
  g_string_append_printf (out, ",\n%s\"reason\": ", indent);
  regctl_json_append_string (out, verdict != NULL ? reg_verdict_get_reason (verdict) : NULL);
  g_string_append_printf (out, ",\n%s\"unsupported_ops\": ", indent);
  regctl_json_append_strv (out, verdict != NULL ? reg_verdict_get_unsupported_ops (verdict) : NULL);
  g_string_append_printf (out, ",\n%s\"quarantined\": %s", indent,
                          verdict != NULL && reg_verdict_get_quarantines (verdict) ? "true" : "false");
  g_string_append_printf (out, ",\n%s\"time\": ", indent);
  regctl_json_append_string (out, time);
  g_string_append_printf (out, ",\n%s\"module_path\": ", indent);
  regctl_json_append_string (out, verdict != NULL ? reg_verdict_get_module_path (verdict) : NULL);
}

typedef struct
{
  char       *name;
  RegVerdict *verdict;  /* NULL when the check could not be made */
} Checked;

static void
checked_clear (gpointer data)
{
  Checked *checked = data;

  g_free (checked->name);
  g_clear_object (&checked->verdict);
}

/* The module backends of the registry, debug and experimental included;
 * for the system store, those written in C only (the others' verdicts are
 * each user's). */
static char **
module_backends (RegRegistry *registry,
                 gboolean     system)
{
  const char * const none[] = { NULL };
  g_auto(GStrv) names = reg_registry_list_backends (registry, none);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, names[i]);

      if (info != NULL && reg_backend_info_get_origin (info) == REG_BACKEND_ORIGIN_MODULE &&
          (!system || g_strcmp0 (reg_backend_info_get_loader (info), "c") == 0))
        g_strv_builder_add (builder, names[i]);
    }

  return g_strv_builder_end (builder);
}

static void
print_json (GArray *checked)
{
  g_autoptr(GString) out = g_string_new ("[");

  for (guint i = 0; i < checked->len; i++)
    {
      Checked *c = &g_array_index (checked, Checked, i);
      const GError *store_error;

      if (c->verdict == NULL)
        continue;

      store_error = reg_verdict_get_store_error (c->verdict);
      g_string_append (out, out->len > 1 ? ",\n  {\n    \"name\": " : "\n  {\n    \"name\": ");
      regctl_json_append_string (out, c->name);
      g_string_append (out, ",\n");
      regctl_append_verdict_json (out, c->verdict, "    ");
      g_string_append (out, ",\n    \"store_error\": ");
      regctl_json_append_string (out, store_error != NULL ? store_error->message : NULL);
      g_string_append (out, "\n  }");
    }
  g_string_append (out, out->len > 1 ? "\n]\n" : "]\n");

  regctl_write_stdout (out->str, out->len);
}

static void
print_table (GArray *checked)
{
  g_autoptr(RegctlTable) table = regctl_table_new (3, "NAME", "VERDICT", "REASON");
  g_autofree char *text = NULL;

  for (guint i = 0; i < checked->len; i++)
    {
      Checked *c = &g_array_index (checked, Checked, i);

      if (c->verdict == NULL)
        continue;

      /* The table escapes its cells. */
      regctl_table_add_row (table, c->name, regctl_verdict_nick (reg_verdict_get_kind (c->verdict)),
                            reg_verdict_get_reason (c->verdict));
    }

  text = regctl_table_to_string (table);
  regctl_print ("%s", text);
}

int
regctl_verify (const RegctlCommand  *command,
               int                   argc,
               char                **argv)
{
  gboolean all = FALSE;
  gboolean json = FALSE;
  gboolean system = FALSE;
  double timeout = 20.0;
  gint64 memory_limit_mib = 4096;
  g_auto(GStrv) add_paths = NULL;
  g_auto(GStrv) positionals = NULL;
  const GOptionEntry entries[] = {
    { "all", 'a', 0, G_OPTION_ARG_NONE, &all,
      "Check every backend that a module declares, debug and experimental ones included", NULL },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { "timeout", 't', 0, G_OPTION_ARG_DOUBLE, &timeout,
      "Give each backend SECONDS to finish (default 20)", "SECONDS" },
    { "memory-limit", 'm', 0, G_OPTION_ARG_INT64, &memory_limit_mib,
      "Limit each check's address space to MIB mebibytes (default 4096, 0: no limit)", "MIB" },
    { "system", 's', 0, G_OPTION_ARG_NONE, &system,
      "Record the verdicts beside the modules (backends.verdicts), for every user, not in the user's cache",
      NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &positionals, NULL, NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = regctl_option_context_new (command, "[NAME...]", entries, &add_paths);
  g_autoptr(GArray) checked = g_array_new (FALSE, TRUE, sizeof (Checked));
  g_autoptr(GVariantDict) options = g_variant_dict_new (NULL);
  g_autoptr(GVariant) options_value = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = NULL;
  RegRegistry *registry;
  gboolean failed = FALSE;
  int status;

  g_array_set_clear_func (checked, checked_clear);

  if (!regctl_parse_args (command, context, &argc, &argv, &status))
    return status;
  if (all && positionals != NULL)
    return regctl_usage_error (command, "--all and backend names cannot be used together");
  if (!all && positionals == NULL)
    return regctl_usage_error (command, "give backend names, or --all");
  if (!(timeout > 0 && timeout <= 24 * 3600))
    return regctl_usage_error (command, "--timeout must be more than 0 and at most 86400 seconds");
  if (memory_limit_mib < 0 || memory_limit_mib > (G_MAXINT64 >> 20))
    return regctl_usage_error (command, "--memory-limit must be a number of MiB, 0 for no limit");
  if (!regctl_args_to_utf8 (positionals, &error))
    return regctl_usage_error (command, "%s", error->message);

  registry = regctl_get_registry (add_paths);
  names = all ? module_backends (registry, system) : g_strdupv (positionals);

  g_variant_dict_insert (options, "timeout", "d", timeout);
  g_variant_dict_insert (options, "memory-limit", "t", (guint64) memory_limit_mib << 20);
  g_variant_dict_insert (options, "store", "s", system ? "system" : "user");
  options_value = g_variant_ref_sink (g_variant_dict_end (options));

  for (guint i = 0; names[i] != NULL; i++)
    {
      Checked c = { g_strdup (names[i]), NULL };

      c.verdict = reg_registry_verify_backend (registry, names[i], options_value, NULL, &error);
      g_array_append_val (checked, c);
      if (c.verdict == NULL)
        {
          /* A checker that cannot be started cannot check the others
           * either: said once, not once per backend. */
          gboolean no_checker = error->domain == G_SPAWN_ERROR;

          regctl_print_error (error);
          g_clear_error (&error);
          failed = TRUE;
          if (no_checker)
            break;
        }
      else
        {
          const GError *store_error = reg_verdict_get_store_error (c.verdict);

          /* The verdict stands, and is shown; that it is not kept is
           * said beside it. */
          if (store_error != NULL)
            {
              g_autofree char *name = regctl_escape (names[i]);
              g_autofree char *shown = regctl_escape (store_error->message);

              regctl_printerr ("The verdict of backend '%s' is not recorded: %s\n", name, shown);
              failed = TRUE;
            }
          if (reg_verdict_get_kind (c.verdict) != REG_VERDICT_KIND_OK &&
              reg_verdict_get_kind (c.verdict) != REG_VERDICT_KIND_UNSUPPORTED)
            failed = TRUE;
        }
    }

  if (json)
    print_json (checked);
  else
    print_table (checked);

  return failed ? REGCTL_EXIT_FAILURE : REGCTL_EXIT_OK;
}
