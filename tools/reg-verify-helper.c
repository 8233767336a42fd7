/* reg-verify-helper.c: checks one backend, in a process of its own
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   reg-verify-helper --dir DIR --module PATH [--path SEARCHDIR...] NAME
 *
 * libreg runs this program (installed in $libexecdir/libreg-1, found
 * through REG_VERIFY_HELPER in a build tree) to check the backend NAME that
 * a manifest of DIR declares with the module file PATH, as
 * docs/verifying-backends.md says: the reference outputs are computed
 * first, by the eager interpreter built in here; the backend is looked up
 * in a registry that reads DIR only and checks nothing before loading;
 * what the module reaches through reg_registry_get_default() is the
 * SEARCHDIRs of the registry that asked, in order, with the quarantine on.
 *
 * A backend whose manifest declares the operators it takes (Operators=)
 * is held to them: the graphs of those operators only compile on it
 * directly, and refusing one is wrong; the graphs that mix them with
 * others compile through that registry, which partitions them, the other
 * nodes on the reference; the graphs of none of them are not its business.
 *
 * The module's code runs here, so the parent takes nothing from this
 * process but its exit and the lines it writes on the standard output as
 * it was when the program started (the module's own writes go to the
 * standard error, whose end the parent keeps).
 *
 * Each line is GVariant text of type LINE_TYPE: (version, word, text,
 * operators).  The words, in order:
 *
 *   loading NAME        the handshake: the checker works and is about to
 *                       open the module; without it, nothing that happens
 *                       is about the module
 *   compiling GRAPH     the backend is compiling GRAPH of the set
 *   calling GRAPH       it is calling what it compiled from GRAPH
 *   near-memory-limit   written on SIGSEGV when the address space is
 *                       within an eighth of its limit
 *   a verdict           ok, unsupported, wrong-results or load-failed,
 *                       with the reason and the operators refused; or
 *                       unreachable: a graph failed because a backend it
 *                       builds on could not be reached (and none failed
 *                       otherwise), which is no verdict on it
 *
 * crashed and timeout are for the parent to tell.  Exit status 0 after
 * the verdict, 2 for a bad command line.
 */

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <reg.h>

#include "reg-conformance.h"
#include "reg-eager-interp.h"

#define LINE_VERSION 2

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

/* The lines to the parent */

static int report_fd = -1;

/* Writes one line; FALSE when it cannot (the parent is gone). */
static gboolean
say (const char         *word,
     const char         *text,
     const char * const *ops)
{
  const char * const none[] = { NULL };
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GString) line = g_string_new (NULL);
  gsize written = 0;

  value = g_variant_ref_sink (g_variant_new ("(uss^as)", LINE_VERSION, word,
                                             text != NULL ? text : "",
                                             ops != NULL ? ops : none));
  g_variant_print_string (value, line, FALSE);
  g_string_append_c (line, '\n');

  while (written < line->len)
    {
      gssize n = write (report_fd, line->str + written, line->len - written);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      written += n;
    }

  return TRUE;
}

/* On SIGSEGV, whether the address space had neared its limit, which then
 * may be the cause (a stack that could not grow, an allocation that
 * failed and was not checked).  The handler makes only async-signal-safe
 * calls, on a stack of its own (the one that overflowed cannot run it). */
static guint64 address_space_limit;
static guint64 page_size;
static const char near_limit_line[] = "(" G_STRINGIFY (LINE_VERSION) ", 'near-memory-limit', '', [])\n";

static void
on_segv (int signum)
{
  char text[64];
  ssize_t n = 0;
  guint64 pages = 0;
  int fd = open ("/proc/self/statm", O_RDONLY | O_CLOEXEC);

  if (fd >= 0)
    {
      n = read (fd, text, sizeof text);
      close (fd);
    }
  for (ssize_t i = 0; i < n && text[i] >= '0' && text[i] <= '9'; i++)
    pages = pages * 10 + (guint64) (text[i] - '0');

  if (pages > 0 && pages * page_size >= address_space_limit - address_space_limit / 8)
    {
      ssize_t ignored = write (report_fd, near_limit_line, sizeof near_limit_line - 1);

      (void) ignored;
    }

  /* SA_RESETHAND made the action the default again: the process dies of
   * the signal, as it would have. */
  raise (signum);
}

static void
watch_address_space (void)
{
  static char alternate[64 * 1024];
  stack_t stack = { .ss_sp = alternate, .ss_size = sizeof alternate };
  struct sigaction action = { .sa_handler = on_segv, .sa_flags = SA_ONSTACK | SA_RESETHAND | SA_NODEFER };
  struct rlimit limit;

  if (getrlimit (RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    return;

  address_space_limit = limit.rlim_cur;
  page_size = (guint64) sysconf (_SC_PAGESIZE);
  sigemptyset (&action.sa_mask);
  if (sigaltstack (&stack, NULL) == 0)
    sigaction (SIGSEGV, &action, NULL);
}

/* Checking */

typedef struct
{
  GPtrArray *refused_ops;     /* operator names, each once */
  GPtrArray *refused_graphs;  /* graphs about several operators */
  GPtrArray *wrong;           /* what each wrong graph did */
  GPtrArray *unreachable;     /* each graph that needed a backend that
                               * could not be reached */
} Results;

/* A compile or call that failed: the backend's fault, unless a backend
 * it builds on could not be provided (REG_COMPILER_ERROR_BACKEND_UNAVAILABLE:
 * no such backend, or its module cannot be loaded or is quarantined).
 * That one could not be reached here, as in the application: nothing is
 * said of this one. */
static void
note_failure (Results      *results,
              const char   *name,
              const char   *stage,
              const GError *error)
{
  gboolean unreachable = g_error_matches (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BACKEND_UNAVAILABLE);

  g_ptr_array_add (unreachable ? results->unreachable : results->wrong,
                   g_strdup_printf ("graph '%s': %s failed: %s", name, stage, error->message));
}

/* The name of the reference when a graph is partitioned: registered
 * beside the backend, and the fallback of the registry that has it. */
#define REFERENCE_NAME "verify_reference"

/* The operators of @c's graph, each once, in @declared (names, NULL for
 * every operator) and not, as ", "-separated lists. */
static void
split_operators (const ConformanceCase *c,
                 const char * const    *declared,
                 GString               *in,
                 GString               *out)
{
  g_autoptr(GPtrArray) seen = g_ptr_array_new ();

  for (guint i = 0; i < reg_graph_get_n_nodes (c->graph); i++)
    {
      const char *op = reg_graph_get_node_op (c->graph, i);
      GString *list;

      if (op == NULL || g_ptr_array_find_with_equal_func (seen, op, g_str_equal, NULL))
        continue;
      g_ptr_array_add (seen, (gpointer) op);
      list = declared == NULL || g_strv_contains (declared, op) ? in : out;
      g_string_append_printf (list, "%s%s", list->len > 0 ? ", " : "", op);
    }
}

static void
run_case (RegRegistry           *registry,
          const char            *name,
          RegCompiler           *backend,
          const char * const    *declared,
          const ConformanceCase *c,
          GPtrArray             *want,
          Results               *results)
{
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GPtrArray) got = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *problem = NULL;
  g_autoptr(GString) taken = g_string_new (NULL);
  g_autoptr(GString) others = g_string_new (NULL);

  split_operators (c, declared, taken, others);
  if (taken->len == 0 && others->len > 0)
    return;

  say ("compiling", c->name, NULL);
  if (others->len == 0)
    fn = reg_compiler_compile (backend, c->graph, c->inputs, NULL, &error);
  else
    fn = reg_registry_compile (registry, name, c->graph, c->inputs, NULL, &error);
  if (fn == NULL && declared != NULL &&
      g_error_matches (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP))
    {
      /* It said it takes them. */
      g_ptr_array_add (results->wrong, g_strdup_printf ("graph '%s': refused %s, which it declares: %s",
                                                        c->name, taken->str, error->message));
      return;
    }
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
      note_failure (results, c->name, "compile", error);
      return;
    }

  say ("calling", c->name, NULL);
  got = reg_compiled_fn_call (fn, c->inputs, &error);
  if (got == NULL)
    note_failure (results, c->name, "call", error);
  else if (!conformance_compare (c, got, want, &problem))
    g_ptr_array_add (results->wrong,
                     declared != NULL
                     ? g_strdup_printf ("graph '%s', %s on it: %s", c->name, taken->str, problem)
                     : g_strdup_printf ("graph '%s': %s", c->name, problem));
}

/* "WHAT (and N more of the M graphs)" */
static char *
first_and_more (GPtrArray *failed,
                guint      n_cases)
{
  if (failed->len > 1)
    return g_strdup_printf ("%s (and %u more of the %u graphs)", (char *) failed->pdata[0], failed->len - 1,
                            n_cases);

  return g_strdup (failed->pdata[0]);
}

/* Says the verdict, the last line; returns the exit status. */
static int
check (RegRegistry        *registry,
       const char         *name,
       RegCompiler        *backend,
       const char * const *declared,
       GPtrArray          *cases,
       GPtrArray          *wants)
{
  g_autoptr(GPtrArray) refused_ops = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) refused_graphs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) wrong = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) unreachable = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) reason = g_string_new ("refused with UNSUPPORTED_OP:");
  g_autofree char *what = NULL;
  Results results = { refused_ops, refused_graphs, wrong, unreachable };
  gboolean ok;

  for (guint i = 0; i < cases->len; i++)
    run_case (registry, name, backend, declared, g_ptr_array_index (cases, i),
              g_ptr_array_index (wants, i), &results);

  g_ptr_array_add (refused_ops, NULL);
  g_ptr_array_add (refused_graphs, NULL);

  if (wrong->len > 0)
    {
      what = first_and_more (wrong, cases->len);
      ok = say ("wrong-results", what, (const char * const *) refused_ops->pdata);
    }
  else if (unreachable->len > 0)
    {
      what = first_and_more (unreachable, cases->len);
      ok = say ("unreachable", what, NULL);
    }
  else if (refused_ops->len > 1 || refused_graphs->len > 1)
    {
      g_autofree char *ops = g_strjoinv (", ", (char **) refused_ops->pdata);
      g_autofree char *graphs = g_strjoinv (", ", (char **) refused_graphs->pdata);

      if (refused_ops->len > 1)
        g_string_append_printf (reason, " operators %s", ops);
      if (refused_graphs->len > 1)
        g_string_append_printf (reason, "%s graphs %s", refused_ops->len > 1 ? ";" : "", graphs);
      ok = say ("unsupported", reason->str, (const char * const *) refused_ops->pdata);
    }
  else
    ok = say ("ok", NULL, NULL);

  return ok ? 0 : 1;
}

/* The reference's outputs for every case, computed before any code of
 * the module runs. */
static GPtrArray *
reference_outputs (RegCompiler *reference,
                   GPtrArray   *cases)
{
  GPtrArray *wants = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);

  for (guint i = 0; i < cases->len; i++)
    {
      const ConformanceCase *c = g_ptr_array_index (cases, i);
      g_autoptr(RegCompiledFn) fn = NULL;
      g_autoptr(GError) error = NULL;
      GPtrArray *want = NULL;

      fn = reg_compiler_compile (reference, c->graph, c->inputs, NULL, &error);
      if (fn != NULL)
        want = reg_compiled_fn_call (fn, c->inputs, &error);
      if (want == NULL)
        g_error ("conformance graph '%s' fails on the reference: %s", c->name, error->message);
      g_ptr_array_add (wants, want);
    }

  return wants;
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *dir = NULL;
  g_autofree char *module = NULL;
  g_auto(GStrv) search_path = NULL;
  g_auto(GStrv) names = NULL;
  const GOptionEntry entries[] = {
    { "dir", 0, 0, G_OPTION_ARG_FILENAME, &dir, "The directory of the manifest", "DIR" },
    { "module", 0, 0, G_OPTION_ARG_FILENAME, &module, "The module file", "PATH" },
    { "path", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &search_path,
      "A directory of the search path of the registry that asks, in order", "SEARCHDIR" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &names, NULL, NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("NAME - check a backend (run by libreg)");
  g_autoptr(RegRegistry) registry = NULL;
  g_autoptr(RegBackendInfo) info = NULL;
  g_autoptr(RegCompiler) backend = NULL;
  g_autoptr(RegCompiler) reference = NULL;
  g_autoptr(GPtrArray) cases = NULL;
  g_autoptr(GPtrArray) wants = NULL;
  g_autoptr(GError) error = NULL;
  RegRegistry *reachable;

  setlocale (LC_ALL, "");

  /* The parent's channel, before any module code runs; the module's
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

  /* What the module reaches: the default registry, with the search path
   * of the registry that asks (the parent left the environment's out).
   * Each directory added goes first, so the last is added first. */
  reachable = reg_registry_get_default ();
  for (guint i = search_path != NULL ? g_strv_length (search_path) : 0; i > 0; i--)
    reg_registry_add_search_path (reachable, search_path[i - 1]);

  /* Only DIR, and no check of the module: this is the check. */
  registry = reg_registry_new ();
  reg_registry_set_module_checks (registry, REG_MODULE_CHECKS_NONE);
  reg_registry_add_search_path (registry, dir);
  info = reg_registry_get_backend_info (registry, names[0]);

  cases = conformance_cases_new ();
  reference = reference_new ();
  wants = reference_outputs (reference, cases);
  watch_address_space ();

  /* The other nodes of the graphs the registry partitions, whatever the
   * environment says of fallbacks and strictness. */
  if (!reg_registry_register_backend (registry, REFERENCE_NAME, reference, NULL, &error))
    g_error ("the reference cannot be registered: %s", error->message);
  reg_registry_set_fallback_backends (registry, (const char *[]) { REFERENCE_NAME, NULL });
  reg_registry_set_strict (registry, FALSE);

  /* The handshake: from here on, what happens is the module's doing. */
  if (!say ("loading", names[0], NULL))
    return 1;

  /* MODULE is the backend's module file, or for a backend whose code is
   * no file of its own (Python, which finds its module on its path), its
   * manifest. */
  if (info == NULL ||
      g_strcmp0 (reg_backend_info_get_module_path (info) != NULL
                 ? reg_backend_info_get_module_path (info)
                 : reg_backend_info_get_manifest_path (info), module) != 0)
    {
      g_autofree char *reason =
        g_strdup_printf ("backend '%s' is no longer declared with the module %s in %s",
                         names[0], module, dir);

      return say ("load-failed", reason, NULL) ? 0 : 1;
    }

  backend = reg_registry_lookup_backend (registry, names[0], &error);
  if (backend == NULL)
    return say ("load-failed", error->message, NULL) ? 0 : 1;

  return check (registry, names[0], backend, reg_backend_info_get_operators (info), cases, wants);
}
