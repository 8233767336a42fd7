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
  "(\"loaded\") or only its declaration (\"declared\").\n"
  "\n"
  "By default backends tagged debug or experimental are left out; --all lists\n"
  "every backend and --exclude-tags=TAGS (comma-separated) replaces the set of\n"
  "tags left out (--exclude-tags= excludes nothing, like --all).\n"
  "\n"
  "--json prints an array of objects with the keys name, tags (array),\n"
  "description (string or null), loaded (boolean), origin (\"runtime\" or\n"
  "\"module\") and module_path (string or null).";

static const char info_description[] =
  "Shows what the registry knows of backend NAME (debug and experimental ones\n"
  "included): tags, description, state, origin and module file.  --load also\n"
  "looks the backend up, which loads its module, and fails (exit status 1,\n"
  "the error on stderr) when the module cannot provide it.\n"
  "\n"
  "An unknown NAME prints the registry's message, with close matches, on\n"
  "stderr and exits with status 1.";

static const char run_description[] =
  "Parses the graph text in GRAPH_FILE (\"-\" reads standard input), makes one\n"
  "input tensor per graph input, compiles the graph on the backend (the\n"
  "registry's default backend when --backend is not given), calls it once and\n"
  "prints each output's shape and first values, then the compile and call\n"
  "times.\n"
  "\n"
  "Inputs hold pseudo-random values, uniform in [-1, 1), drawn from a GRand\n"
  "seeded with --seed (default 0), input after input in graph order: the same\n"
  "seed gives the same inputs.  An input without --input NAME=SHAPE is a\n"
  "SIZExSIZE matrix (--size, default 4); SHAPE is dimensions joined by 'x'\n"
  "(4x3, 16, 2x3x4) or \"scalar\" for a 0-d tensor.  Graphs whose inputs are\n"
  "not all square matrices of one size (matmul of a 4x3 by a 3x8 matrix, say)\n"
  "need --input.\n"
  "\n"
  "--option KEY=VALUE passes a backend option: VALUE is GVariant text, read\n"
  "with g_variant_parse(), so fuse=false is a boolean, threads=\"uint32 2\"\n"
  "and block-size=\"uint32 4096\" are unsigned 32-bit integers (a bare 2 is a\n"
  "signed int32), mode=\"'fast'\" is a string.  Backends reject keys they do\n"
  "not know.\n"
  "\n"
  "Examples:\n"
  "  regctl run docs/examples/elementwise.graph\n"
  "  regctl run mlp.graph --backend eager --input x=4x3 --input w=3x8 --input b=4x8\n"
  "  regctl run elementwise.graph --option fuse=false --option threads=\"uint32 2\"";

static const char bench_description[] =
  "Compiles the graph in GRAPH_FILE once on each backend of --backends, calls\n"
  "it once to check its outputs, then times --repeat more calls (default 10)\n"
  "and prints the compile time and the median and fastest time per call, with\n"
  "the ratio of each backend's median to the first backend's.\n"
  "\n"
  "Every backend's outputs must match the first backend's (shape, and\n"
  "values within --rtol and --atol as in numpy.allclose, NaN matching NaN):\n"
  "otherwise the difference is reported on stderr and the exit status is 1.\n"
  "\n"
  "Inputs are made as by `regctl run`, except that the default shape is\n"
  "SIZExSIZE with --size defaulting to 256.  --option KEY=VALUE applies to\n"
  "every backend, --option BACKEND/KEY=VALUE to that backend only (the\n"
  "eager backend takes no option).  When stderr is a terminal, progress is\n"
  "shown there.\n"
  "\n"
  "Example:\n"
  "  regctl bench docs/examples/elementwise.graph --backends eager,inductor --size 512";

static const char paths_description[] =
  "Prints the directories searched for backend manifests (*.backend files),\n"
  "in search order, where each comes from, and how many manifests it holds:\n"
  "  added                   --add-path\n"
  "  REG_BACKEND_PATH        the colon-separated environment variable\n"
  "  REG_BACKEND_SYSTEM_DIR  the variable replacing the installed directory\n"
  "  system                  the installed directory, " REGCTL_BACKEND_DIR "\n"
  "A directory that does not exist shows 0 (missing).";

static const char cache_description[] =
  "Writes the discovery cache of each DIR (default: every directory of the\n"
  "search path, see `regctl paths`): the file backends.cache in DIR, holding\n"
  "the declarations of DIR's manifests and the times and sizes of the\n"
  "manifests and module files.  Discovery then reads that one file instead of\n"
  "every manifest, for as long as nothing in DIR changes; after any change it\n"
  "reads the manifests again, until the cache is written anew.\n"
  "\n"
  "Broken manifests are reported and left out, and the cache is not used\n"
  "while they are there.  Without DIR, directories that do not exist are\n"
  "skipped; a DIR that cannot be listed or written is an error (exit status 1).";

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
  { "bench", "GRAPH_FILE --backends=A,B... [--size=N] [--repeat=K] [--input=NAME=SHAPE...]",
    "Time a graph on several backends and check they agree",
    bench_description, regctl_bench },
  { "paths", "[--json]",
    "Show the backend search path and the manifests in it",
    paths_description, regctl_paths },
  { "cache", "[DIR...]",
    "Write the discovery cache of module directories",
    cache_description, regctl_cache },
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
