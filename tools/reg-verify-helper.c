/* reg-verify-helper.c: checks one backend, in a process of its own
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   reg-verify-helper --dir DIR --module PATH NAME
 *
 * libreg runs this program (installed in $libexecdir/libreg-1, found
 * through REG_VERIFY_HELPER in a build tree) to check the backend NAME
 * that a manifest of the directory DIR declares, with the module file
 * PATH: it loads the module, makes the compiler, compiles and calls every
 * graph of the conformance set (reg-conformance.c) and compares each
 * output with the eager interpreter's, built into this program rather
 * than loaded from a module, so that no module found on the search path
 * can change the reference.
 *
 * The module's code runs here, so anything may happen: the parent judges
 * a crash by the wait status, a hang by its timeout, and takes nothing
 * from this process but the one line of the report, which it parses
 * without trusting.  The report goes to the standard output as it was
 * when the program started; the module's own writes to the standard
 * output go to the standard error, which the parent keeps the end of.
 *
 * The report is one line of GVariant text of type REPORT_TYPE:
 * (version, verdict nick, reason, operators refused).  The verdict is
 * ok, unsupported, wrong-results or load-failed; crashed and timeout are
 * for the parent to tell.  Exit status 0 after a report, 2 for a bad
 * command line.
 */

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <string.h>
#include <unistd.h>

#include <reg.h>

#include "reg-conformance.h"
#include "reg-eager-interp.h"

#define REPORT_VERSION 1
#define REPORT_TYPE "(ussas)"

/* A type module for the reference interpreter's function type, which the
 * interpreter registers on a GTypeModule (it is module code elsewhere).
 * It is never unloaded. */
#define VERIFY_TYPE_TYPES (verify_types_get_type ())
G_DECLARE_FINAL_TYPE (VerifyTypes, verify_types, VERIFY, TYPES, GTypeModule)

struct _VerifyTypes
{
  GTypeModule parent_instance;
};

G_DEFINE_FINAL_TYPE (VerifyTypes, verify_types, G_TYPE_TYPE_MODULE)

static gboolean
verify_types_load (GTypeModule *module)
{
  return TRUE;
}

static void
verify_types_unload (GTypeModule *module)
{
}

static void
verify_types_class_init (VerifyTypesClass *klass)
{
  GTypeModuleClass *module_class = G_TYPE_MODULE_CLASS (klass);

  module_class->load = verify_types_load;
  module_class->unload = verify_types_unload;
}

static void
verify_types_init (VerifyTypes *self)
{
}

static RegCompiledFn *
reference_compile (RegGraph   *graph,
                   GPtrArray  *example_inputs,
                   GVariant   *options,
                   gpointer    user_data,
                   GError    **error)
{
  return _reg_eager_compile ("eager", graph, options, error);
}

static RegCompiler *
reference_new (void)
{
  GTypeModule *types = g_object_new (VERIFY_TYPE_TYPES, NULL);

  g_type_module_set_name (types, "reg-verify-helper");
  if (!g_type_module_use (types))
    g_error ("the reference interpreter's types cannot be registered");
  _reg_eager_fn_register_type (types, "RegVerifyReferenceFn");

  return reg_func_compiler_new ("eager", reference_compile, NULL, NULL);
}

/* The report */

static int report_fd = -1;

static int
report (const char         *verdict,
        const char         *reason,
        const char * const *unsupported)
{
  const char * const none[] = { NULL };
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  gsize written = 0;

  value = g_variant_ref_sink (g_variant_new ("(uss^as)", REPORT_VERSION, verdict,
                                             reason != NULL ? reason : "",
                                             unsupported != NULL ? unsupported : none));
  g_variant_print_string (value, text, FALSE);
  g_string_append_c (text, '\n');

  while (written < text->len)
    {
      gssize n = write (report_fd, text->str + written, text->len - written);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return 1;
      written += n;
    }

  return 0;
}

/* Checking */

typedef struct
{
  GPtrArray *refused_ops;     /* operator names, each once */
  GPtrArray *refused_graphs;  /* graphs about several operators */
  char      *first_wrong;     /* what the first wrong graph did */
  guint      n_wrong;
  guint      n_cases;
} Results;

static void
results_clear (Results *results)
{
  g_clear_pointer (&results->refused_ops, g_ptr_array_unref);
  g_clear_pointer (&results->refused_graphs, g_ptr_array_unref);
  g_clear_pointer (&results->first_wrong, g_free);
}

static void
note_wrong (Results    *results,
            const char *name,
            const char *what)
{
  if (results->first_wrong == NULL)
    results->first_wrong = g_strdup_printf ("graph '%s': %s", name, what);
  results->n_wrong++;
}

static void
run_case (RegCompiler           *backend,
          RegCompiler           *reference,
          const ConformanceCase *c,
          Results               *results)
{
  g_autoptr(RegCompiledFn) reference_fn = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GPtrArray) want = NULL;
  g_autoptr(GPtrArray) got = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *problem = NULL;

  reference_fn = reg_compiler_compile (reference, c->graph, c->inputs, NULL, &error);
  if (reference_fn != NULL)
    want = reg_compiled_fn_call (reference_fn, c->inputs, &error);
  if (want == NULL)
    g_error ("conformance graph '%s' fails on the reference: %s", c->name, error->message);

  fn = reg_compiler_compile (backend, c->graph, c->inputs, NULL, &error);
  if (fn == NULL && g_error_matches (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP))
    {
      if (c->op == NULL)
        g_ptr_array_add (results->refused_graphs, g_strdup (c->name));
      else if (!g_ptr_array_find_with_equal_func (results->refused_ops, c->op, g_str_equal, NULL))
        g_ptr_array_add (results->refused_ops, g_strdup (c->op));
      return;
    }
  if (fn == NULL)
    {
      g_autofree char *what = g_strdup_printf ("compile failed: %s", error->message);

      note_wrong (results, c->name, what);
      return;
    }

  got = reg_compiled_fn_call (fn, c->inputs, &error);
  if (got == NULL)
    {
      g_autofree char *what = g_strdup_printf ("call failed: %s", error->message);

      note_wrong (results, c->name, what);
      return;
    }

  if (!conformance_compare (c, got, want, &problem))
    note_wrong (results, c->name, problem);
}

static int
check (RegCompiler *backend)
{
  g_autoptr(RegCompiler) reference = reference_new ();
  g_autoptr(GPtrArray) cases = conformance_cases_new ();
  g_autoptr(GString) reason = g_string_new (NULL);
  Results results = { g_ptr_array_new_with_free_func (g_free),
                      g_ptr_array_new_with_free_func (g_free), NULL, 0, cases->len };
  int status;

  for (guint i = 0; i < cases->len; i++)
    run_case (backend, reference, g_ptr_array_index (cases, i), &results);

  g_ptr_array_add (results.refused_ops, NULL);

  if (results.n_wrong > 0)
    {
      g_string_append (reason, results.first_wrong);
      if (results.n_wrong > 1)
        g_string_append_printf (reason, " (and %u more of the %u graphs)",
                                results.n_wrong - 1, results.n_cases);
      status = report ("wrong-results", reason->str,
                       (const char * const *) results.refused_ops->pdata);
    }
  else if (results.refused_ops->len > 1 || results.refused_graphs->len > 0)
    {
      g_string_append (reason, "refused with UNSUPPORTED_OP:");
      if (results.refused_ops->len > 1)
        {
          g_autofree char *ops = g_strjoinv (", ", (char **) results.refused_ops->pdata);

          g_string_append_printf (reason, " operators %s", ops);
        }
      if (results.refused_graphs->len > 0)
        {
          g_autofree char *graphs = NULL;

          g_ptr_array_add (results.refused_graphs, NULL);
          graphs = g_strjoinv (", ", (char **) results.refused_graphs->pdata);
          g_string_append_printf (reason, "%s graphs %s",
                                  results.refused_ops->len > 1 ? ";" : "", graphs);
        }
      status = report ("unsupported", reason->str,
                       (const char * const *) results.refused_ops->pdata);
    }
  else
    status = report ("ok", NULL, NULL);

  results_clear (&results);
  return status;
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *dir = NULL;
  g_autofree char *module = NULL;
  g_auto(GStrv) names = NULL;
  const GOptionEntry entries[] = {
    { "dir", 0, 0, G_OPTION_ARG_FILENAME, &dir, "The directory of the manifest", "DIR" },
    { "module", 0, 0, G_OPTION_ARG_FILENAME, &module, "The module file", "PATH" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &names, NULL, NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("NAME - check a backend (run by libreg)");
  g_autoptr(RegRegistry) registry = NULL;
  g_autoptr(RegBackendInfo) info = NULL;
  g_autoptr(RegCompiler) backend = NULL;
  g_autoptr(GError) error = NULL;

  setlocale (LC_ALL, "");

  /* The report's channel, before any module code runs; the module's
   * writes to the standard output land in the standard error. */
  report_fd = fcntl (STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (report_fd < 0 || dup2 (STDERR_FILENO, STDOUT_FILENO) < 0)
    return 2;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) ||
      dir == NULL || module == NULL || names == NULL || names[0] == NULL || names[1] != NULL)
    {
      g_printerr ("reg-verify-helper: %s\n",
                  error != NULL ? error->message : "expected --dir, --module and one NAME");
      return 2;
    }

  /* Only DIR, and no check of the module: this is the check. */
  registry = reg_registry_new ();
  reg_registry_set_module_checks (registry, REG_MODULE_CHECKS_NONE);
  reg_registry_add_search_path (registry, dir);

  info = reg_registry_get_backend_info (registry, names[0]);
  if (info == NULL || g_strcmp0 (reg_backend_info_get_module_path (info), module) != 0)
    {
      g_autofree char *reason =
        g_strdup_printf ("backend '%s' is no longer declared with the module %s in %s",
                         names[0], module, dir);

      return report ("load-failed", reason, NULL);
    }

  backend = reg_registry_lookup_backend (registry, names[0], &error);
  if (backend == NULL)
    return report ("load-failed", error->message, NULL);

  return check (backend);
}
