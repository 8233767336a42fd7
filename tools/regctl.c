/* regctl.c: the command-line face of the libreg registry
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * `regctl COMMAND [OPTION...]`: main() picks the subcommand and hands it
 * the rest of the command line; each subcommand parses its own options
 * with a GOptionContext (so each has its own --help).  Exit statuses: 0
 * success, 1 failure (unknown backend, bad graph, failed compile...), 2 a
 * command line regctl does not understand.
 */

#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>

#include "regctl.h"

static const char list_description[] =
  "Lists the backends the registry knows: those registered at run time and\n"
  "those declared by module manifests in the search path (see `regctl paths`).\n"
  "No module is loaded: STATE says whether a backend's compiler object exists\n"
  "(\"loaded\") or only its declaration (\"declared\").  On a terminal, lines keep\n"
  "within 100 columns (fewer on a narrower terminal): SOURCE shows the module's\n"
  "file name and long descriptions are cut, ending in an ellipsis.  Piped\n"
  "output and --json are whole.\n"
  "\n"
  "By default backends tagged debug or experimental are left out; --all lists\n"
  "every backend and --exclude-tags=TAGS (comma-separated) replaces the set of\n"
  "tags left out (--exclude-tags= excludes nothing, like --all).\n"
  "\n"
  "--json prints an array of objects with the keys name, tags (array),\n"
  "description (string or null), loaded (boolean), origin (\"runtime\" or\n"
  "\"module\"), module_path (string or null), default (boolean), version,\n"
  "authors, website, license (each null when the manifest gives none) and\n"
  "options: null when the backend declares none (its options are not checked),\n"
  "otherwise an array of objects with the keys name, type (a GVariant type\n"
  "string), type_name, default, minimum, maximum (values as JSON, or null),\n"
  "choices (array or null) and description.";

static const char info_description[] =
  "Shows what the registry knows of backend NAME (debug and experimental ones\n"
  "included): tags, description, state, origin, module file, the manifest that\n"
  "declared it and those whose declarations of NAME it hides (Shadows), its last\n"
  "check's verdict, whether it is the default, the version, authors, website and\n"
  "license its manifest gives, and the options it takes (name, type, default, the\n"
  "range or choices allowed, and a description), all without loading its module.\n"
  "--json prints the object `regctl list --json` prints for it, with the manifests\n"
  "and the check.  --load also looks the backend up, which loads its module, and\n"
  "fails (exit status 1, the error on stderr) when the module cannot provide it.\n"
  "\n"
  "An unknown NAME prints the registry's message, with close matches, on\n"
  "stderr and exits with status 1.";

static const char run_description[] =
  "Parses the graph text in GRAPH_FILE (\"-\" reads standard input), makes one\n"
  "input tensor per graph input, compiles the graph on the backend (the\n"
  "registry's default backend when --backend is not given), calls it once and\n"
  "prints the backend that compiled it, each output's shape and first values,\n"
  "then the compile and call times.  When the backend could not compile the\n"
  "graph (its module does not load or is quarantined, or it fails) and the\n"
  "registry fell back to another (REG_FALLBACK_BACKENDS), the first line says\n"
  "so: `backend: eager (fallback from NAME: REASON)`.  The compile time\n"
  "includes loading the backend's module, as a program's first compile on it\n"
  "does.  A compile or call that takes longer than half a second shows how long\n"
  "it has taken on stderr when stderr is a terminal.\n"
  "\n"
  "Inputs hold pseudo-random values, uniform in [-1, 1), drawn from a GRand\n"
  "seeded with --seed (default 0), input after input in graph order: the same\n"
  "seed gives the same inputs.  An input without --input NAME=SHAPE is a\n"
  "SIZExSIZE matrix (--size, default 4); SHAPE is dimensions joined by 'x'\n"
  "(4x3, 16, 2x3x4) or \"scalar\" for a 0-d tensor.  Graphs whose inputs are\n"
  "not all square matrices of one size (matmul of a 4x3 by a 3x8 matrix, say)\n"
  "need --input.\n"
  "\n"
  "--option KEY=VALUE passes a backend option.  VALUE is read by the type the\n"
  "backend declares for KEY (see `regctl info NAME`): threads=2, fuse=false,\n"
  "mode=fast, passes=fold,cse (a string list); GVariant text of that type\n"
  "works too (threads=\"uint32 2\").  A value that is not of the type, or is out\n"
  "of its range or choices, is a usage error (exit status 2).  A key the\n"
  "backend does not declare fails the compile (exit status 1), naming close\n"
  "keys.  For a backend that declares no options, VALUE is GVariant text\n"
  "(a bare 2 is then a signed int32).\n"
  "\n"
  "Examples:\n"
  "  regctl run docs/examples/elementwise.graph\n"
  "  regctl run mlp.graph --backend eager --input x=4x3 --input w=3x8 --input b=4x8\n"
  "  regctl run elementwise.graph --option fuse=false --option threads=2";

static const char bench_description[] =
  "Compiles the graph in GRAPH_FILE once on each backend of --backends, calls\n"
  "it once to check its outputs, then times --repeat more calls (default 10)\n"
  "and prints the compile time, the time of the same compile again (AGAIN_MS:\n"
  "the registry's compile cache answers it for backends that share their\n"
  "functions), the median and fastest time per call, and the ratio of each\n"
  "backend's median to the first backend's; then the compile cache's hits,\n"
  "misses and evictions.  A backend that falls back (REG_FALLBACK_BACKENDS)\n"
  "has its row named after the backend that compiled it: `eager (fallback\n"
  "from NAME)`.\n"
  "\n"
  "Every backend's outputs must match the first backend's (shape, and\n"
  "values within --rtol and --atol as in numpy.allclose, NaN matching NaN):\n"
  "otherwise the difference is reported on stderr and the exit status is 1.\n"
  "\n"
  "Inputs are made as by `regctl run`, except that the default shape is\n"
  "SIZExSIZE with --size defaulting to 256.  --option KEY=VALUE applies to\n"
  "every backend, --option BACKEND/KEY=VALUE to that backend only (the\n"
  "eager backend takes no option); each backend reads VALUE by the type it\n"
  "declares for KEY, as `regctl run` does.  When stderr is a terminal,\n"
  "progress is shown there.\n"
  "\n"
  "Example:\n"
  "  regctl bench docs/examples/elementwise.graph --backends eager,inductor --size 512";

static const char paths_description[] =
  "Prints the directories searched for backend manifests (*.backend files),\n"
  "in search order, where each comes from, how many manifests discovery used\n"
  "there and how many it skipped (listed after the table, with the reason):\n"
  "  added                   --add-path\n"
  "  REG_BACKEND_PATH        the colon-separated environment variable\n"
  "  REG_BACKEND_SYSTEM_DIR  the variable replacing the installed directory\n"
  "  system                  the installed directory, " REGCTL_BACKEND_DIR "\n"
  "A directory that does not exist shows 0 (missing).  Then the default\n"
  "backend and the fallback backends, and where they come from (built in, or\n"
  "REG_DEFAULT_BACKEND and REG_FALLBACK_BACKENDS); a name that no backend has\n"
  "is marked: eagr (not a backend: did you mean 'eager'?).";

static const char verify_description[] =
  "Checks each backend NAME (or, with --all, every backend a module declares)\n"
  "in a process of its own: loads its module there, makes its compiler, then\n"
  "compiles and calls a fixed conformance set of graphs (every operator, NaN,\n"
  "infinities, -0, 0-d, 8-d and empty tensors, odd matmuls, a long chain,\n"
  "several outputs) and compares every output with eager's, under the timeout\n"
  "and the memory limit.  No module code runs in regctl itself.\n"
  "\n"
  "Verdicts: ok; unsupported (some graphs refused with UNSUPPORTED_OP, which\n"
  "is allowed: the operators are listed); wrong-results (the graph, the output\n"
  "and the largest error); crashed (the signal); timeout; load-failed (the\n"
  "error).  A crashed or timeout verdict quarantines the module file: no\n"
  "registry opens it until the file changes or a new check passes.  Verdicts\n"
  "are recorded in the user's cache ($XDG_CACHE_HOME/libreg/verdicts), or with\n"
  "--system beside the modules, for every user (run it from a package's\n"
  "post-install step, as gio-querymodules is).\n"
  "\n"
  "--json prints an array of objects with the keys name, verdict, reason\n"
  "(null for ok), unsupported_ops, quarantined, time and module_path.  Exit\n"
  "status 0 when every backend is ok or unsupported, 1 otherwise.";

static const RegctlCommand commands[] = {
  { "list", "[--all] [--exclude-tags=TAGS] [--json]",
    "List the backends the registry knows, without loading any",
    list_description, regctl_list },
  { "info", "NAME [--json] [--load]",
    "Show everything the registry knows of one backend",
    info_description, regctl_info },
  { "run", "GRAPH_FILE [--backend=NAME] [--input=NAME=SHAPE...] [--seed=N] [--option=KEY=VALUE...]",
    "Compile a graph on a backend, call it and print its outputs",
    run_description, regctl_run },
  { "bench", "GRAPH_FILE --backends=A,B... [--size=N] [--repeat=K] [--input=NAME=SHAPE...] [--option=[BACKEND/]KEY=VALUE...]",
    "Time a graph on several backends and check they agree",
    bench_description, regctl_bench },
  { "paths", "[--json]",
    "Show the backend search path and the manifests in it",
    paths_description, regctl_paths },
  { "verify", "[NAME...] [--all] [--json] [--timeout=SECONDS] [--system]",
    "Check backends in a process of their own; quarantine those that crash",
    verify_description, regctl_verify },
};

/* Prints the program's usage, listing the subcommands. */
static void
print_usage (FILE *stream)
{
  fprintf (stream,
           "Usage:\n"
           "  regctl COMMAND [OPTION...]\n"
           "  regctl --help | --version\n"
           "\n"
           "Inspect the libreg backend registry and try backends on graphs.\n"
           "\n"
           "Commands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (stream, "  %-7s %s\n", commands[i].name, commands[i].summary);
  fprintf (stream,
           "  help    Show the help of a command (regctl help COMMAND)\n"
           "\n"
           "Run `regctl COMMAND --help` for a command's options; see also regctl(1).\n"
           "\n"
           "Environment:\n"
           "  REG_BACKEND_PATH        colon-separated directories searched for backends\n"
           "  REG_BACKEND_SYSTEM_DIR  replaces the installed backend directory (empty: none)\n"
           "  REG_VERIFY_MODULES=1    check modules out of process before their first load\n"
           "\n"
           "Exit status: 0 success, 1 failure, 2 bad command line.\n");
}

static const RegctlCommand *
find_command (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (commands[i].name, name))
      return &commands[i];

  return NULL;
}

static int
top_level_usage_error (const char *format,
                       ...) G_GNUC_PRINTF (1, 2);

static int
top_level_usage_error (const char *format,
                       ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  /* It may quote the command line: escaped like any text from outside. */
  {
    g_autofree char *shown = regctl_escape (message);

    fprintf (stderr, "regctl: %s\n", shown);
  }
  fprintf (stderr, "Usage: regctl COMMAND [OPTION...]\nCommands:");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (stderr, " %s", commands[i].name);
  fprintf (stderr, " help\nTry 'regctl --help' for more information.\n");
  return REGCTL_EXIT_USAGE;
}

/**
 * regctl_usage_error:
 * @command: the subcommand
 * @format: printf() format of what was wrong
 *
 * Prints what was wrong with the command line, the command's synopsis and
 * where to find help on stderr.
 *
 * Returns: %REGCTL_EXIT_USAGE, for the caller to return
 */
int
regctl_usage_error (const RegctlCommand *command,
                    const char          *format,
                    ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  /* It may quote the command line: escaped like any text from outside. */
  {
    g_autofree char *shown = regctl_escape (message);

    regctl_printerr ("regctl %s: %s\n", command->name, shown);
  }
  regctl_printerr ("Usage: regctl %s %s\n", command->name, command->synopsis);
  regctl_printerr ("Try 'regctl %s --help' for more information.\n", command->name);
  return REGCTL_EXIT_USAGE;
}

/**
 * regctl_option_context_new:
 * @command: the subcommand
 * @parameters: the positional arguments, for the Usage line
 * @entries: the command's options, %NULL-terminated
 * @add_paths: where --add-path stores its directories
 *
 * Makes the option context of a subcommand, with the options every
 * subcommand shares.  Sets the program name so that the Usage line of
 * --help reads "regctl COMMAND".
 *
 * Returns: (transfer full): the context
 */
GOptionContext *
regctl_option_context_new (const RegctlCommand   *command,
                           const char            *parameters,
                           const GOptionEntry    *entries,
                           char                ***add_paths)
{
  const GOptionEntry common_entries[] = {
    { "add-path", 'A', 0, G_OPTION_ARG_FILENAME_ARRAY, add_paths,
      "Search DIR for backend manifests before the other directories (repeatable, in the order given)",
      "DIR" },
    G_OPTION_ENTRY_NULL
  };
  g_autofree char *prgname = g_strdup_printf ("regctl %s", command->name);
  GOptionContext *context;

  g_set_prgname (prgname);

  context = g_option_context_new (parameters);
  g_option_context_set_summary (context, command->summary);
  g_option_context_set_description (context, command->description);
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_main_entries (context, common_entries, NULL);

  return context;
}

/**
 * regctl_parse_args:
 * @command: the subcommand
 * @context: its option context
 * @argc: (inout): the argument count, the command name first
 * @argv: (inout): the arguments
 * @status: (out): the exit status when parsing fails
 *
 * Parses the command line; on failure prints the usage message.
 *
 * Returns: %TRUE on success
 */
gboolean
regctl_parse_args (const RegctlCommand   *command,
                   GOptionContext        *context,
                   int                   *argc,
                   char                ***argv,
                   int                   *status)
{
  g_autoptr(GError) error = NULL;

  if (g_option_context_parse (context, argc, argv, &error))
    return TRUE;

  *status = regctl_usage_error (command, "%s", error->message);
  return FALSE;
}

/**
 * regctl_check_positionals:
 * @command: the subcommand
 * @positionals: (nullable): the arguments left after the options
 * @n_expected: how many the command takes
 * @what: what they are, for the message ("a graph file")
 *
 * Returns: %REGCTL_EXIT_OK when there are @n_expected arguments, or
 *   %REGCTL_EXIT_USAGE after printing what is wrong
 */
int
regctl_check_positionals (const RegctlCommand  *command,
                          char                **positionals,
                          guint                 n_expected,
                          const char           *what)
{
  guint n = positionals != NULL ? g_strv_length (positionals) : 0;

  if (n < n_expected)
    return regctl_usage_error (command, "missing %s", what);
  if (n > n_expected)
    return regctl_usage_error (command, "unexpected argument '%s'", positionals[n_expected]);

  return REGCTL_EXIT_OK;
}

/**
 * regctl_get_registry:
 * @add_paths: (nullable): directories of --add-path, in search order
 *
 * Gets the default registry, with the --add-path directories first in the
 * search path.  reg_registry_add_search_path() puts a directory first, so
 * they are added last to first.
 *
 * Returns: (transfer none): the registry
 */
RegRegistry *
regctl_get_registry (char **add_paths)
{
  RegRegistry *registry = reg_registry_get_default ();

  if (add_paths != NULL)
    for (guint i = g_strv_length (add_paths); i > 0; i--)
      reg_registry_add_search_path (registry, add_paths[i - 1]);

  return registry;
}

/**
 * regctl_print_error:
 * @error: an error
 *
 * Prints @error's message alone on a line of stderr, escaped like any text
 * from outside (a backend's message may hold anything): the registry's
 * messages, made of visible text, are shown as they are.
 */
void
regctl_print_error (const GError *error)
{
  g_autofree char *shown = regctl_escape (error->message);

  regctl_printerr ("%s\n", shown);
}

static int
run_help (int    argc,
          char **argv)
{
  const RegctlCommand *command;
  char *help_argv[] = { NULL, (char *) "--help", NULL };

  if (argc < 3)
    {
      print_usage (stdout);
      return REGCTL_EXIT_OK;
    }
  if (argc > 3)
    return top_level_usage_error ("help takes one command name");

  command = find_command (argv[2]);
  if (command == NULL)
    return top_level_usage_error ("unknown command '%s'", argv[2]);

  /* The command's option parser prints its help and exits. */
  help_argv[0] = (char *) command->name;
  return command->func (command, 2, help_argv);
}

int
main (int    argc,
      char **argv)
{
  const RegctlCommand *command;
  const char *name;

  setlocale (LC_ALL, "");
  g_set_prgname ("regctl");

  /* Output to a closed pipe (`regctl list | head -1`) ends regctl quietly,
   * as it does other tools, even if it was started with SIGPIPE ignored;
   * any other failure to write stdout is an error at exit. */
  signal (SIGPIPE, SIG_DFL);
  atexit (regctl_check_stdout);
  g_set_print_handler (regctl_print_handler);

  if (argc < 2)
    return top_level_usage_error ("no command given");

  name = argv[1];
  if (g_str_equal (name, "--help") || g_str_equal (name, "-h") ||
      g_str_equal (name, "-?") || g_str_equal (name, "help"))
    return run_help (argc, argv);

  if (g_str_equal (name, "--version"))
    {
      if (argc > 2)
        return top_level_usage_error ("--version takes no argument");
      printf ("regctl %s\n", REG_VERSION_S);
      return REGCTL_EXIT_OK;
    }

  if (name[0] == '-')
    return top_level_usage_error ("unknown option '%s' (options follow the command)", name);

  command = find_command (name);
  if (command == NULL)
    return top_level_usage_error ("unknown command '%s'", name);

  return command->func (command, argc - 1, argv + 1);
}
