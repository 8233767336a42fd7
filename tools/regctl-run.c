/* regctl-run.c: `regctl run` and `regctl bench`, the subcommands that
 * compile a graph file and call it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reg-message-private.h"
#include "regctl.h"

#define RUN_DEFAULT_SIZE     4
#define BENCH_DEFAULT_SIZE   256
#define BENCH_DEFAULT_REPEAT 10
#define BENCH_MAX_REPEAT     1000000
#define DEFAULT_RTOL         1e-4
#define DEFAULT_ATOL         1e-5
#define DEFAULT_MAX_VALUES   8

/* Turns a REGCTL_ERROR from option values into the exit status. */
static int
option_error (const RegctlCommand *command,
              const GError        *error)
{
  if (g_error_matches (error, REGCTL_ERROR, REGCTL_ERROR_USAGE))
    return regctl_usage_error (command, "%s", error->message);

  regctl_print_error (error);
  return REGCTL_EXIT_FAILURE;
}

/* Checks the numeric options every graph command has. */
/* How long a compile or a call runs before regctl run shows progress. */
#define PROGRESS_DELAY_NS (500 * G_GINT64_CONSTANT (1000000))

static int
check_common_numbers (const RegctlCommand *command,
                      gint64               seed,
                      int                  size)
{
  if (seed < 0 || seed > G_MAXUINT32)
    return regctl_usage_error (command, "--seed must be between 0 and %u", G_MAXUINT32);
  if (size < 1 || size > REGCTL_MAX_SIZE)
    return regctl_usage_error (command, "--size must be between 1 and %d", REGCTL_MAX_SIZE);

  return REGCTL_EXIT_OK;
}

/* Does any graph input take the default shape? */
static gboolean
uses_default_shape (RegGraph   *graph,
                    GHashTable *shapes)
{
  const guint *inputs;
  guint n_inputs;

  inputs = reg_graph_get_inputs (graph, &n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    if (!g_hash_table_contains (shapes, reg_graph_get_node_name (graph, inputs[i])))
      return TRUE;

  return FALSE;
}

/* Registry errors (unknown backend, failed load) are printed as they are:
 * their messages are part of the API; so are option errors.  Shape errors
 * are the graph's. */
static void
print_compile_error (const char   *graph_path,
                     const char   *backend,
                     RegGraph     *graph,
                     GHashTable   *shapes,
                     int           size,
                     const GError *error)
{
  g_autofree char *shown_path = regctl_escape (graph_path);
  g_autofree char *shown_backend = regctl_escape (backend);
  g_autofree char *why = regctl_escape (error->message);

  if (error->domain == REG_REGISTRY_ERROR ||
      g_error_matches (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION))
    {
      /* Both name the backend, and say what would be right. */
      regctl_print_error (error);
    }
  else if (g_error_matches (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE))
    {
      regctl_printerr ("%s: %s\n", shown_path, why);
      if (uses_default_shape (graph, shapes))
        regctl_printerr ("hint: inputs without --input are %dx%d matrices; "
                    "give other shapes with --input NAME=SHAPE\n", size, size);
    }
  else
    {
      regctl_printerr ("backend '%s' failed to compile %s: %s\n", shown_backend, shown_path, why);
    }
}

static char *
output_label (RegGraph *graph,
              guint     index)
{
  const guint *outputs = reg_graph_get_outputs (graph, NULL);
  const char *name = reg_graph_get_node_name (graph, outputs[index]);

  if (name == NULL)
    return g_strdup_printf ("output %u", index);

  return g_strdup_printf ("output %u (%s)", index, name);
}

/* Says that calling the function compiled from @graph_path by @backend
 * failed, and why. */
static void
print_call_error (const char   *graph_path,
                  const char   *backend,
                  const GError *error)
{
  g_autofree char *shown_path = regctl_escape (graph_path);
  g_autofree char *shown_backend = regctl_escape (backend);
  g_autofree char *why = regctl_escape (error->message);

  regctl_printerr ("calling %s compiled by backend '%s' failed: %s\n", shown_path, shown_backend, why);
}

/* "LABEL: SHAPE [values]" */
static void
print_tensor_line (const char *label,
                   RegTensor  *tensor,
                   gboolean    with_values,
                   guint       max_values)
{
  g_autoptr(GString) line = g_string_new (label);
  const gint64 *shape;
  g_autofree char *shape_text = NULL;
  guint n_dims;

  shape = reg_tensor_get_shape (tensor, &n_dims);
  shape_text = regctl_shape_to_string (shape, n_dims);
  g_string_append_printf (line, ": %s", shape_text);
  if (with_values)
    {
      g_string_append_c (line, ' ');
      regctl_append_values (line, tensor, max_values);
    }

  regctl_print ("%s\n", line->str);
}

/* Progress on a terminal: one line, rewritten in place. */
typedef struct
{
  gboolean enabled;
  gint64   last_ns;
} Progress;

static void
progress_update (Progress   *progress,
                 gboolean    force,
                 const char *format,
                 ...) G_GNUC_PRINTF (3, 4);

static void
progress_update (Progress   *progress,
                 gboolean    force,
                 const char *format,
                 ...)
{
  g_autofree char *text = NULL;
  g_autofree char *shown = NULL;
  gint64 now;
  va_list args;

  if (!progress->enabled)
    return;

  /* A few updates a second: writing each call of a fast graph to the
   * terminal would cost more than the call. */
  now = regctl_now_ns ();
  if (!force && now - progress->last_ns < 100 * G_GINT64_CONSTANT (1000000))
    return;
  progress->last_ns = now;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  shown = regctl_escape (text);

  regctl_printerr ("\r\033[K%s", shown);
}

static void
progress_clear (Progress *progress)
{
  if (progress->enabled)
    regctl_printerr ("\r\033[K");
}

/* Runs the thread-default main context until *@done, showing on the
 * terminal how long @what has taken once it takes longer than a moment:
 * regctl waits as a synchronous program does, but says it is waiting. */
static void
wait_with_progress (Progress   *progress,
                    gboolean   *done,
                    const char *what)
{
  GMainContext *context = g_main_context_get_thread_default ();
  gint64 start = regctl_now_ns ();
  gboolean shown = FALSE;

  while (!*done)
    {
      gint64 elapsed = regctl_now_ns () - start;

      if (elapsed >= PROGRESS_DELAY_NS)
        {
          g_autofree char *seconds = regctl_format_double (elapsed / 1e9, "%.1f");

          progress_update (progress, !shown, "%s: %s s", what, seconds);
          shown = TRUE;
        }
      /* Wake up now and then to update the line. */
      if (!g_main_context_iteration (context, FALSE))
        g_usleep (progress->enabled ? 20000 : 200);
    }

  if (shown)
    progress_clear (progress);
}

/* What regctl run waits for: a compile, then a call. */
typedef struct
{
  gboolean       done;
  RegCompiledFn *fn;
  GPtrArray     *outputs;
  GError        *error;
} Waiting;

static void
compiled_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Waiting *waiting = user_data;

  waiting->fn = reg_registry_compile_finish (REG_REGISTRY (source), result, &waiting->error);
  waiting->done = TRUE;
}

static void
called_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Waiting *waiting = user_data;

  waiting->outputs = reg_compiled_fn_call_finish (REG_COMPILED_FN (source), result, &waiting->error);
  waiting->done = TRUE;
}

/* The first fallback of a compile: who failed, and why. */
typedef struct
{
  char *failed;
  char *reason;
} Fallback;

static void
fallback_clear (Fallback *fallback)
{
  g_clear_pointer (&fallback->failed, g_free);
  g_clear_pointer (&fallback->reason, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Fallback, fallback_clear)

static void
on_fallback (RegRegistry  *registry,
             const char   *failed,
             const char   *next,
             const GError *error,
             gpointer      user_data)
{
  Fallback *fallback = user_data;
  g_autofree char *escaped = NULL;

  if (fallback->failed != NULL)
    return;
  escaped = regctl_escape (error->message);
  fallback->failed = g_strdup (failed);
  /* Inside a line that goes on: without its final period. */
  fallback->reason = _reg_message_embed (escaped);
}

/* What regctl reads of the backend asked for (NULL: the default) before
 * compiling: its info, which a manifest gives without its module being
 * loaded.  regctl then compiles as any program does, through
 * reg_registry_compile(), which loads the module and falls back when it
 * cannot; it never looks the backend up first, which would fail where the
 * compile falls back.  A default that REG_DEFAULT_BACKEND names but no
 * backend has is replaced by the built-in one when a compile first needs
 * it (the library warns then): the built-in one's options are read.
 * NULL for a name that is no backend, whose compile fails. */
static RegBackendInfo *
dup_asked_info (RegRegistry *registry,
                const char  *backend)
{
  g_autofree char *name = backend != NULL ? g_strdup (backend) : reg_registry_dup_default_backend (registry);
  RegBackendInfo *info = name != NULL ? reg_registry_get_backend_info (registry, name) : NULL;

  if (info == NULL && backend == NULL &&
      reg_registry_get_default_backend_source (registry) == REG_SETTING_SOURCE_ENVIRONMENT)
    info = reg_registry_get_backend_info (registry, REG_DEFAULT_BACKEND);

  return info;
}

/* The options of @specs for the backend of @info, read by its schema; none
 * when @info is NULL (no backend: the compile fails before options
 * matter). */
static gboolean
parse_options_for (char           **specs,
                   gboolean         allow_backend,
                   RegBackendInfo  *info,
                   GVariant       **options,
                   GError         **error)
{
  *options = NULL;
  if (info == NULL)
    return TRUE;

  return regctl_parse_options (specs, allow_backend, info, options, error);
}

/* ---- run ---------------------------------------------------------------- */

/* Where @fn runs the nodes of @graph: its placement, or, for a function
 * one backend compiled whole, every operator node on that backend. */
static GVariant *
dup_placement (RegCompiledFn *fn,
               RegGraph      *graph)
{
  GVariant *placement = reg_compiled_fn_dup_placement (fn);
  g_autoptr(GArray) nodes = NULL;

  if (placement != NULL)
    return placement;

  nodes = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < reg_graph_get_n_nodes (graph); i++)
    if (reg_graph_get_node_kind (graph, i) == REG_NODE_OP)
      g_array_append_val (nodes, i);

  return g_variant_ref_sink (g_variant_new_parsed ("[(%s, %@au)]", reg_compiled_fn_get_backend (fn),
                                                   g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32,
                                                                              nodes->data, nodes->len,
                                                                              sizeof (guint32))));
}

/* "5 of 7 nodes on dsp: matmul, add; 2 on inductor: sum, exp": the nodes
 * of each backend, in the order the backends first run, with the
 * operators they call in the order they first appear; then one line per
 * group, its nodes by name. */
static void
print_placement (GVariant *placement,
                 RegGraph *graph)
{
  g_autoptr(GString) line = g_string_new ("placement: ");
  g_autoptr(GPtrArray) backends = g_ptr_array_new ();
  guint n_total = 0;
  gsize n_groups = g_variant_n_children (placement);

  for (gsize g = 0; g < n_groups; g++)
    {
      const char *backend;
      g_autoptr(GVariant) nodes = NULL;

      g_variant_get_child (placement, g, "(&s@au)", &backend, &nodes);
      n_total += g_variant_n_children (nodes);
      if (!g_ptr_array_find_with_equal_func (backends, backend, g_str_equal, NULL))
        g_ptr_array_add (backends, (gpointer) backend);
    }

  for (guint b = 0; b < backends->len; b++)
    {
      g_autoptr(GPtrArray) ops = g_ptr_array_new ();
      g_autofree char *shown = regctl_escape (backends->pdata[b]);
      guint n = 0;

      for (gsize g = 0; g < n_groups; g++)
        {
          const char *backend;
          g_autoptr(GVariant) nodes = NULL;
          const guint32 *ids;
          gsize n_ids;

          g_variant_get_child (placement, g, "(&s@au)", &backend, &nodes);
          if (!g_str_equal (backend, backends->pdata[b]))
            continue;
          ids = g_variant_get_fixed_array (nodes, &n_ids, sizeof (guint32));
          n += n_ids;
          for (gsize k = 0; k < n_ids; k++)
            if (!g_ptr_array_find (ops, reg_graph_get_node_op (graph, ids[k]), NULL))
              g_ptr_array_add (ops, (gpointer) reg_graph_get_node_op (graph, ids[k]));
        }
      g_ptr_array_add (ops, NULL);
      if (b == 0)
        g_string_append_printf (line, "%u of %u nodes on %s", n, n_total, shown);
      else
        g_string_append_printf (line, "; %u on %s", n, shown);
      if (ops->len > 1)
        {
          g_autofree char *joined = g_strjoinv (", ", (char **) ops->pdata);

          g_string_append_printf (line, ": %s", joined);
        }
    }
  regctl_print ("%s\n", line->str);

  for (gsize g = 0; g < n_groups && n_groups > 1; g++)
    {
      const char *backend;
      g_autoptr(GVariant) nodes = NULL;
      g_autoptr(GString) names = g_string_new (NULL);
      g_autofree char *shown = NULL;
      g_autofree char *shown_names = NULL;
      const guint32 *ids;
      gsize n_ids;

      g_variant_get_child (placement, g, "(&s@au)", &backend, &nodes);
      ids = g_variant_get_fixed_array (nodes, &n_ids, sizeof (guint32));
      for (gsize k = 0; k < n_ids; k++)
        {
          const char *name = reg_graph_get_node_name (graph, ids[k]);

          g_string_append (names, k > 0 ? ", " : "");
          if (name != NULL)
            g_string_append (names, name);
          else
            g_string_append_printf (names, "%%%u", ids[k]);
        }
      shown = regctl_escape (backend);
      shown_names = regctl_escape (names->str);
      regctl_print ("  group %" G_GSIZE_FORMAT " on %s: %s\n", g + 1, shown, shown_names);
    }
}

/* What `regctl run --json` prints. */
static void
print_run_json (const char *backend,
                Fallback   *fallback,
                GVariant   *placement,
                RegGraph   *graph,
                GPtrArray  *outputs,
                guint       max_values,
                gint64      compile_ns,
                gint64      call_ns)
{
  g_autoptr(GString) out = g_string_new ("{\n  \"backend\": ");
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  regctl_json_append_string (out, backend);
  g_string_append (out, ",\n  \"fallback_from\": ");
  regctl_json_append_string (out, fallback->failed);
  g_string_append (out, ",\n  \"placement\": [");
  for (gsize g = 0; g < g_variant_n_children (placement); g++)
    {
      const char *name;
      g_autoptr(GVariant) nodes = NULL;
      const guint32 *ids;
      gsize n_ids;

      g_variant_get_child (placement, g, "(&s@au)", &name, &nodes);
      ids = g_variant_get_fixed_array (nodes, &n_ids, sizeof (guint32));
      g_string_append_printf (out, "%s\n    {\"backend\": ", g > 0 ? "," : "");
      regctl_json_append_string (out, name);
      g_string_append (out, ", \"nodes\": [");
      for (gsize k = 0; k < n_ids; k++)
        g_string_append_printf (out, "%s%u", k > 0 ? ", " : "", ids[k]);
      g_string_append (out, "]}");
    }
  g_string_append (out, "\n  ],\n  \"outputs\": [");
  for (guint i = 0; i < outputs->len; i++)
    {
      RegTensor *tensor = g_ptr_array_index (outputs, i);
      const char *name = reg_graph_get_node_name (graph, reg_graph_get_outputs (graph, NULL)[i]);
      guint n_dims;
      const gint64 *shape = reg_tensor_get_shape (tensor, &n_dims);
      gsize n_elements;
      const float *data = reg_tensor_get_data (tensor, &n_elements);
      gsize n_shown = max_values > 0 ? MIN (n_elements, max_values) : n_elements;

      g_string_append_printf (out, "%s\n    {\"name\": ", i > 0 ? "," : "");
      regctl_json_append_string (out, name);
      g_string_append (out, ", \"shape\": [");
      for (guint d = 0; d < n_dims; d++)
        g_string_append_printf (out, "%s%" G_GINT64_FORMAT, d > 0 ? ", " : "", shape[d]);
      /* JSON has no NaN or infinity: those are null. */
      g_string_append (out, "], \"values\": [");
      for (gsize k = 0; k < n_shown; k++)
        g_string_append_printf (out, "%s%s", k > 0 ? ", " : "",
                                isfinite (data[k]) ? g_ascii_formatd (number, sizeof number, "%.9g", data[k])
                                                   : "null");
      g_string_append (out, "]}");
    }
  g_string_append_printf (out, "\n  ],\n  \"compile_ms\": %s", g_ascii_formatd (number, sizeof number, "%.3f", compile_ns / 1e6));
  g_string_append_printf (out, ",\n  \"call_ms\": %s\n}\n", g_ascii_formatd (number, sizeof number, "%.3f", call_ns / 1e6));
  regctl_write_stdout (out->str, out->len);
}

int
regctl_run (const RegctlCommand  *command,
            int                   argc,
            char                **argv)
{
  g_autofree char *backend = NULL;
  g_auto(GStrv) input_specs = NULL;
  g_auto(GStrv) option_specs = NULL;
  g_auto(GStrv) add_paths = NULL;
  g_auto(GStrv) positionals = NULL;
  gint64 seed = 0;
  int size = RUN_DEFAULT_SIZE;
  int max_values = DEFAULT_MAX_VALUES;
  gboolean print_inputs = FALSE;
  gboolean explain = FALSE;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "backend", 'b', 0, G_OPTION_ARG_FILENAME, &backend,
      "Compile on backend NAME (default: the registry's default backend)", "NAME" },
    { "input", 'i', 0, G_OPTION_ARG_FILENAME_ARRAY, &input_specs,
      "Give input NAME the shape SHAPE (4x3, 16, scalar); repeatable", "NAME=SHAPE" },
    { "size", 0, 0, G_OPTION_ARG_INT, &size,
      "Inputs without --input are NxN matrices (default 4)", "N" },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed,
      "Seed of the pseudo-random input values (default 0)", "N" },
    { "option", 'o', 0, G_OPTION_ARG_FILENAME_ARRAY, &option_specs,
      "Backend option, VALUE read by the option's type (threads=2, fuse=false); repeatable",
      "KEY=VALUE" },
    { "print-inputs", 'p', 0, G_OPTION_ARG_NONE, &print_inputs,
      "Print the inputs' values too", NULL },
    { "max-values", 'n', 0, G_OPTION_ARG_INT, &max_values,
      "Print at most N values of each tensor (default 8, 0 for all)", "N" },
    { "explain", 'e', 0, G_OPTION_ARG_NONE, &explain,
      "Print which backend runs each node", NULL },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json,
      "Print the result as JSON, with where each node runs", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &positionals, NULL, NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = regctl_option_context_new (command, "GRAPH_FILE", entries, &add_paths);
  g_autoptr(GHashTable) shapes = NULL;
  g_autoptr(GVariant) options = NULL;
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(RegBackendInfo) info = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GVariant) placement = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *default_name = NULL;
  g_autofree char *compile_ms = NULL;
  g_autofree char *call_ms = NULL;
  g_autofree char *shown_backend = NULL;
  g_autofree char *what = NULL;
  g_autoptr(GMainContext) main_context = NULL;
  Progress progress = { regctl_stderr_is_terminal (), 0 };
  Waiting compiling = { 0 };
  Waiting calling = { 0 };
  g_auto(Fallback) fallback = { NULL, NULL };
  gulong fallback_handler;
  RegRegistry *registry;
  const char *path;
  const char *compiled_by;
  const guint *input_ids;
  gint64 start, compile_ns, call_ns;
  int status;

  if (!regctl_parse_args (command, context, &argc, &argv, &status))
    return status;
  if ((status = regctl_check_positionals (command, positionals, 1, "GRAPH_FILE")) != REGCTL_EXIT_OK)
    return status;
  if ((status = check_common_numbers (command, seed, size)) != REGCTL_EXIT_OK)
    return status;
  if (max_values < 0)
    return regctl_usage_error (command, "--max-values must not be negative");
  if (!regctl_arg_to_utf8 (&backend, &error) ||
      !regctl_args_to_utf8 (input_specs, &error) ||
      !regctl_args_to_utf8 (option_specs, &error))
    return option_error (command, error);
  path = positionals[0];

  shapes = regctl_parse_input_specs (input_specs, &error);
  if (shapes == NULL)
    return option_error (command, error);
  if (!regctl_check_options (option_specs, FALSE, &error))
    return option_error (command, error);

  graph = regctl_load_graph (path, &error);
  if (graph == NULL)
    {
      regctl_print_error (error);
      return REGCTL_EXIT_FAILURE;
    }

  inputs = regctl_make_inputs (graph, shapes, size, (guint32) seed, &error);
  if (inputs == NULL)
    return option_error (command, error);

  registry = regctl_get_registry (add_paths);
  default_name = reg_registry_dup_default_backend (registry);

  /* Values are read by the types the backend declares. */
  info = dup_asked_info (registry, backend);
  if (!parse_options_for (option_specs, FALSE, info, &options, &error))
    return option_error (command, error);

  /* Asynchronous calls waited for, so that a long compile or call shows
   * progress on a terminal. */
  main_context = g_main_context_new ();
  g_main_context_push_thread_default (main_context);
  fallback_handler = g_signal_connect (registry, "fallback", G_CALLBACK (on_fallback), &fallback);

  start = regctl_now_ns ();
  reg_registry_compile_async (registry, backend, graph, inputs, options, NULL, compiled_cb, &compiling);
  what = g_strdup_printf ("compiling on '%s'", backend != NULL ? backend : default_name);
  wait_with_progress (&progress, &compiling.done, what);
  compile_ns = regctl_now_ns () - start;
  g_signal_handler_disconnect (registry, fallback_handler);
  fn = g_steal_pointer (&compiling.fn);
  if (fn == NULL)
    {
      g_main_context_pop_thread_default (main_context);
      print_compile_error (path, backend != NULL ? backend : default_name, graph, shapes, size,
                           compiling.error);
      g_clear_error (&compiling.error);
      return REGCTL_EXIT_FAILURE;
    }
  compiled_by = reg_compiled_fn_get_backend (fn);

  start = regctl_now_ns ();
  reg_compiled_fn_call_async (fn, inputs, NULL, called_cb, &calling);
  g_free (what);
  what = g_strdup_printf ("calling what '%s' compiled", compiled_by);
  wait_with_progress (&progress, &calling.done, what);
  call_ns = regctl_now_ns () - start;
  g_main_context_pop_thread_default (main_context);
  outputs = g_steal_pointer (&calling.outputs);
  if (outputs == NULL)
    {
      print_call_error (path, compiled_by, calling.error);
      g_clear_error (&calling.error);
      return REGCTL_EXIT_FAILURE;
    }

  placement = dup_placement (fn, graph);
  if (json)
    {
      print_run_json (compiled_by, &fallback, placement, graph, outputs, max_values,
                      compile_ns, call_ns);
      return REGCTL_EXIT_OK;
    }

  shown_backend = regctl_escape (compiled_by);
  if (fallback.failed != NULL && g_variant_n_children (placement) > 1)
    {
      regctl_print ("backend: %s (partitioned: %s)\n", shown_backend, fallback.reason);
    }
  else if (fallback.failed != NULL)
    {
      g_autofree char *shown_failed = regctl_escape (fallback.failed);

      regctl_print ("backend: %s (fallback from %s: %s)\n", shown_backend, shown_failed, fallback.reason);
    }
  else
    {
      regctl_print ("backend: %s%s\n", shown_backend, backend != NULL ? "" : " (default)");
    }

  if (explain)
    print_placement (placement, graph);

  input_ids = reg_graph_get_inputs (graph, NULL);
  for (guint i = 0; i < inputs->len; i++)
    {
      g_autofree char *label = g_strdup_printf ("input %s", reg_graph_get_node_name (graph, input_ids[i]));

      print_tensor_line (label, g_ptr_array_index (inputs, i), print_inputs, max_values);
    }

  for (guint i = 0; i < outputs->len; i++)
    {
      g_autofree char *label = output_label (graph, i);

      print_tensor_line (label, g_ptr_array_index (outputs, i), TRUE, max_values);
    }

  compile_ms = regctl_format_ms (compile_ns, "%.3f");
  call_ms = regctl_format_ms (call_ns, "%.3f");
  regctl_print ("compile: %s ms\n", compile_ms);
  regctl_print ("call: %s ms\n", call_ms);

  return REGCTL_EXIT_OK;
}

/* ---- bench -------------------------------------------------------------- */

typedef struct
{
  char   *name;
  char   *label;       /* the table's name of the row */
  gint64  compile_ns;
  gint64  again_ns;    /* the same compile again: the compile cache's answer */
  gint64  median_ns;
  gint64  min_ns;
} BenchResult;

static void
bench_result_clear (BenchResult *result)
{
  g_free (result->name);
  g_free (result->label);
}

static int
compare_ns (gconstpointer a,
            gconstpointer b)
{
  gint64 x = *(const gint64 *) a;
  gint64 y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* The median of @n times (sorted in place). */
static gint64
median_ns (gint64 *times,
           guint   n)
{
  qsort (times, n, sizeof (gint64), compare_ns);

  return n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

/* As numpy.allclose (@b the reference), except that NaN matches NaN: two
 * backends that both compute NaN (log of a negative input) agree. */
static gboolean
tensors_match (RegTensor  *a,
               RegTensor  *b,
               double      rtol,
               double      atol,
               char      **reason)
{
  const gint64 *shape_a, *shape_b;
  const float *data_a, *data_b;
  guint n_dims_a, n_dims_b;
  gsize n_elements;
  gsize first_bad = G_MAXSIZE;
  double max_diff = 0.0;

  if (reg_tensor_allclose (a, b, rtol, atol))
    return TRUE;

  shape_a = reg_tensor_get_shape (a, &n_dims_a);
  shape_b = reg_tensor_get_shape (b, &n_dims_b);
  if (n_dims_a != n_dims_b || memcmp (shape_a, shape_b, n_dims_a * sizeof (gint64)) != 0)
    {
      g_autofree char *text_a = regctl_shape_to_string (shape_a, n_dims_a);
      g_autofree char *text_b = regctl_shape_to_string (shape_b, n_dims_b);

      *reason = g_strdup_printf ("shape %s instead of %s", text_a, text_b);
      return FALSE;
    }

  data_a = reg_tensor_get_data (a, &n_elements);
  data_b = reg_tensor_get_data (b, NULL);
  for (gsize i = 0; i < n_elements; i++)
    {
      double x = data_a[i], y = data_b[i];
      gboolean close;

      if (isnan (x) || isnan (y))
        close = isnan (x) && isnan (y);
      else if (isinf (x) || isinf (y))
        close = x == y;
      else
        close = fabs (x - y) <= atol + rtol * fabs (y);

      if (!close)
        {
          if (first_bad == G_MAXSIZE)
            first_bad = i;
          if (!isnan (fabs (x - y)))
            max_diff = MAX (max_diff, fabs (x - y));
        }
    }

  if (first_bad == G_MAXSIZE)
    return TRUE;

  {
    g_autofree char *x = regctl_format_double (data_a[first_bad], "%.9g");
    g_autofree char *y = regctl_format_double (data_b[first_bad], "%.9g");
    g_autofree char *diff = regctl_format_double (max_diff, "%.3g");

    *reason = g_strdup_printf ("element %" G_GSIZE_FORMAT " is %s instead of %s "
                               "(largest absolute difference %s)",
                               first_bad, x, y, diff);
  }
  return FALSE;
}

static gboolean
outputs_match (GPtrArray  *outputs,
               GPtrArray  *reference,
               double      rtol,
               double      atol,
               char      **reason)
{
  if (outputs->len != reference->len)
    {
      *reason = g_strdup_printf ("%u outputs instead of %u", outputs->len, reference->len);
      return FALSE;
    }

  for (guint i = 0; i < outputs->len; i++)
    {
      g_autofree char *why = NULL;

      if (!tensors_match (g_ptr_array_index (outputs, i), g_ptr_array_index (reference, i),
                          rtol, atol, &why))
        {
          *reason = g_strdup_printf ("output %u: %s", i, why);
          return FALSE;
        }
    }

  return TRUE;
}

/* Every BACKEND/ prefix of --option must name a backend of --backends. */
static gboolean
check_option_backends (char       **option_specs,
                       char       **backends,
                       GError     **error)
{
  for (guint i = 0; option_specs != NULL && option_specs[i] != NULL; i++)
    {
      g_autofree char *backend = NULL;
      g_autofree char *key = NULL;
      g_autofree char *value = NULL;

      if (!regctl_parse_option (option_specs[i], TRUE, &backend, &key, &value, error))
        return FALSE;

      if (backend != NULL && !g_strv_contains ((const char * const *) backends, backend))
        {
          g_set_error (error, REGCTL_ERROR, REGCTL_ERROR_USAGE,
                       "--option '%s': '%s' is not one of --backends", option_specs[i], backend);
          return FALSE;
        }
    }

  return TRUE;
}

static char *
describe_inputs (RegGraph  *graph,
                 GPtrArray *inputs)
{
  g_autoptr(GString) out = g_string_new (NULL);
  const guint *ids = reg_graph_get_inputs (graph, NULL);

  for (guint i = 0; i < inputs->len; i++)
    {
      guint n_dims;
      const gint64 *shape = reg_tensor_get_shape (g_ptr_array_index (inputs, i), &n_dims);
      g_autofree char *text = regctl_shape_to_string (shape, n_dims);

      g_string_append_printf (out, "%s%s=%s", i > 0 ? " " : "",
                              reg_graph_get_node_name (graph, ids[i]), text);
    }

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Compiles and times @graph on one backend.  The first call's outputs are
 * checked against @reference (or become it, for the first backend). */
static int
bench_backend (const RegctlCommand *command,
               RegRegistry         *registry,
               const char          *path,
               RegGraph            *graph,
               GHashTable          *shapes,
               int                  size,
               GPtrArray           *inputs,
               char               **option_specs,
               guint                repeat,
               double               rtol,
               double               atol,
               const char          *reference_name,
               GPtrArray          **reference,
               Progress            *progress,
               const char          *progress_prefix,
               BenchResult         *result)
{
  g_autoptr(GVariant) options = NULL;
  g_autoptr(RegBackendInfo) info = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree gint64 *times = g_new (gint64, repeat);
  g_autofree char *reason = NULL;
  gint64 start;

  progress_update (progress, TRUE, "%s %s: compiling", progress_prefix, result->name);

  /* Values are read by the types this backend declares; the compile loads
   * its module, and falls back when it cannot (see dup_asked_info()). */
  info = dup_asked_info (registry, result->name);
  if (!parse_options_for (option_specs, TRUE, info, &options, &error))
    {
      progress_clear (progress);
      return option_error (command, error);
    }

  start = regctl_now_ns ();
  fn = reg_registry_compile (registry, result->name, graph, inputs, options, &error);
  result->compile_ns = regctl_now_ns () - start;
  if (fn == NULL)
    {
      progress_clear (progress);
      print_compile_error (path, result->name, graph, shapes, size, error);
      return REGCTL_EXIT_FAILURE;
    }

  /* A row the chain gave to another backend says so (the library said
   * why on standard error). */
  if (g_str_equal (reg_compiled_fn_get_backend (fn), result->name))
    result->label = g_strdup (result->name);
  else
    result->label = g_strdup_printf ("%s (fallback from %s)", reg_compiled_fn_get_backend (fn),
                                     result->name);

  /* Again: a backend that shares its functions answers from the cache. */
  {
    g_autoptr(RegCompiledFn) again = NULL;

    start = regctl_now_ns ();
    again = reg_registry_compile (registry, result->name, graph, inputs, options, NULL);
    result->again_ns = regctl_now_ns () - start;
  }

  /* One call not timed, to check the outputs (and warm caches up). */
  outputs = reg_compiled_fn_call (fn, inputs, &error);
  if (outputs == NULL)
    {
      progress_clear (progress);
      print_call_error (path, result->name, error);
      return REGCTL_EXIT_FAILURE;
    }
  if (*reference == NULL)
    {
      *reference = g_steal_pointer (&outputs);
    }
  else if (!outputs_match (outputs, *reference, rtol, atol, &reason))
    {
      g_autofree char *rtol_text = regctl_format_double (rtol, "%g");
      g_autofree char *atol_text = regctl_format_double (atol, "%g");
      g_autofree char *shown_name = regctl_escape (result->name);
      g_autofree char *shown_reference = regctl_escape (reference_name);

      progress_clear (progress);
      regctl_printerr ("backend '%s' does not match backend '%s' (rtol %s, atol %s): %s\n",
                       shown_name, shown_reference, rtol_text, atol_text, reason);
      return REGCTL_EXIT_FAILURE;
    }

  for (guint k = 0; k < repeat; k++)
    {
      g_autoptr(GPtrArray) timed_outputs = NULL;

      progress_update (progress, k == 0, "%s %s: call %u/%u", progress_prefix, result->name, k + 1, repeat);
      start = regctl_now_ns ();
      timed_outputs = reg_compiled_fn_call (fn, inputs, &error);
      times[k] = regctl_now_ns () - start;
      if (timed_outputs == NULL)
        {
          progress_clear (progress);
          print_call_error (path, result->name, error);
          return REGCTL_EXIT_FAILURE;
        }
    }

  result->median_ns = median_ns (times, repeat);
  result->min_ns = times[0];  /* sorted by median_ns() */

  return REGCTL_EXIT_OK;
}

static void
print_bench_table (GArray *results)
{
  g_autoptr(RegctlTable) table = regctl_table_new (6, "BACKEND", "COMPILE_MS", "AGAIN_MS",
                                                   "MEDIAN_MS", "MIN_MS", "RATIO");
  g_autofree char *text = NULL;
  gint64 first = g_array_index (results, BenchResult, 0).median_ns;

  for (guint col = 1; col < 6; col++)
    regctl_table_set_right_aligned (table, col);

  for (guint i = 0; i < results->len; i++)
    {
      BenchResult *result = &g_array_index (results, BenchResult, i);
      g_autofree char *compile = regctl_format_ms (result->compile_ns, "%.3f");
      g_autofree char *again = regctl_format_ms (result->again_ns, "%.3f");
      g_autofree char *median = regctl_format_ms (result->median_ns, "%.4f");
      g_autofree char *min = regctl_format_ms (result->min_ns, "%.4f");
      g_autofree char *ratio = first > 0
        ? regctl_format_double ((double) result->median_ns / (double) first, "%.2f")
        : g_strdup ("-");

      regctl_table_add_row (table, result->label, compile, again, median, min, ratio);
    }

  text = regctl_table_to_string (table);
  regctl_print ("%s", text);
}

int
regctl_bench (const RegctlCommand  *command,
              int                   argc,
              char                **argv)
{
  g_autofree char *backends_text = NULL;
  g_auto(GStrv) input_specs = NULL;
  g_auto(GStrv) option_specs = NULL;
  g_auto(GStrv) add_paths = NULL;
  g_auto(GStrv) positionals = NULL;
  gint64 seed = 0;
  int size = BENCH_DEFAULT_SIZE;
  int repeat = BENCH_DEFAULT_REPEAT;
  double rtol = DEFAULT_RTOL;
  double atol = DEFAULT_ATOL;
  const GOptionEntry entries[] = {
    { "backends", 'b', 0, G_OPTION_ARG_FILENAME, &backends_text,
      "Comma-separated backends to compare; the first is the reference (required)", "A,B,..." },
    { "size", 0, 0, G_OPTION_ARG_INT, &size,
      "Inputs without --input are NxN matrices (default 256)", "N" },
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat,
      "Time K calls per backend (default 10)", "K" },
    { "input", 'i', 0, G_OPTION_ARG_FILENAME_ARRAY, &input_specs,
      "Give input NAME the shape SHAPE (4x3, 16, scalar); repeatable", "NAME=SHAPE" },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed,
      "Seed of the pseudo-random input values (default 0)", "N" },
    { "option", 'o', 0, G_OPTION_ARG_FILENAME_ARRAY, &option_specs,
      "Backend option for every backend, or for BACKEND only, VALUE read by the option's type; repeatable",
      "[BACKEND/]KEY=VALUE" },
    { "rtol", 0, 0, G_OPTION_ARG_DOUBLE, &rtol,
      "Relative tolerance of the output check (default 1e-4)", "R" },
    { "atol", 0, 0, G_OPTION_ARG_DOUBLE, &atol,
      "Absolute tolerance of the output check (default 1e-5)", "A" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &positionals, NULL, NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = regctl_option_context_new (command, "GRAPH_FILE", entries, &add_paths);
  g_auto(GStrv) backends = NULL;
  g_autoptr(GHashTable) shapes = NULL;
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GPtrArray) reference = NULL;
  g_autoptr(GArray) results = g_array_new (FALSE, TRUE, sizeof (BenchResult));
  g_autoptr(GError) error = NULL;
  g_autofree char *input_text = NULL;
  g_autofree char *shown_reference = NULL;
  Progress progress = { regctl_stderr_is_terminal (), 0 };
  RegRegistry *registry;
  const char *path;
  guint64 hits, misses, evictions;
  guint n_backends;
  int status;

  g_array_set_clear_func (results, (GDestroyNotify) bench_result_clear);

  if (!regctl_parse_args (command, context, &argc, &argv, &status))
    return status;
  if ((status = regctl_check_positionals (command, positionals, 1, "GRAPH_FILE")) != REGCTL_EXIT_OK)
    return status;
  if ((status = check_common_numbers (command, seed, size)) != REGCTL_EXIT_OK)
    return status;
  if (backends_text == NULL)
    return regctl_usage_error (command, "missing --backends");
  if (!regctl_arg_to_utf8 (&backends_text, &error) ||
      !regctl_args_to_utf8 (input_specs, &error) ||
      !regctl_args_to_utf8 (option_specs, &error))
    return option_error (command, error);
  backends = regctl_split_list (backends_text);
  n_backends = g_strv_length (backends);
  if (n_backends == 0)
    return regctl_usage_error (command, "--backends names no backend");
  if (repeat < 1 || repeat > BENCH_MAX_REPEAT)
    return regctl_usage_error (command, "--repeat must be between 1 and %d", BENCH_MAX_REPEAT);
  if (!(rtol >= 0.0) || !(atol >= 0.0))
    return regctl_usage_error (command, "--rtol and --atol must not be negative");
  path = positionals[0];

  shapes = regctl_parse_input_specs (input_specs, &error);
  if (shapes == NULL)
    return option_error (command, error);
  if (!check_option_backends (option_specs, backends, &error))
    return option_error (command, error);

  graph = regctl_load_graph (path, &error);
  if (graph == NULL)
    {
      regctl_print_error (error);
      return REGCTL_EXIT_FAILURE;
    }

  inputs = regctl_make_inputs (graph, shapes, size, (guint32) seed, &error);
  if (inputs == NULL)
    return option_error (command, error);

  registry = regctl_get_registry (add_paths);
  for (guint i = 0; i < n_backends; i++)
    {
      BenchResult result = { g_strdup (backends[i]), NULL, 0, 0, 0, 0 };
      g_autofree char *prefix = g_strdup_printf ("[%u/%u]", i + 1, n_backends);

      g_array_append_val (results, result);
      status = bench_backend (command, registry, path, graph, shapes, size, inputs, option_specs,
                              repeat, rtol, atol, backends[0], &reference, &progress, prefix,
                              &g_array_index (results, BenchResult, i));
      if (status != REGCTL_EXIT_OK)
        return status;
    }
  progress_clear (&progress);

  input_text = describe_inputs (graph, inputs);
  regctl_print ("inputs: %s\n", input_text[0] != '\0' ? input_text : "none");
  shown_reference = regctl_escape (backends[0]);
  regctl_print ("calls: %d per backend, after one checked call; outputs match backend '%s'\n",
                repeat, shown_reference);
  print_bench_table (results);
  reg_registry_get_compile_cache_counters (registry, &hits, &misses, &evictions);
  regctl_print ("compile cache: %" G_GUINT64_FORMAT " hits, %" G_GUINT64_FORMAT " misses, %"
                G_GUINT64_FORMAT " evictions (AGAIN_MS: the same compile again)\n",
                hits, misses, evictions);

  return REGCTL_EXIT_OK;
}
