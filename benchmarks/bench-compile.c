/* bench-compile.c: compiling again, and compiling without blocking
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Prints, measured in one run:
 * - a compile of a 50-operator graph on inductor, cold (the compile
 *   cache disabled, the module already loaded) and repeated (an equal
 *   graph parsed again, answered by the cache), and their ratio;
 * - the overhead of reg_registry_compile_async() over
 *   reg_registry_compile() for a small graph on eager (cache disabled, so
 *   that both compile), median of 1,000 runs each.
 *
 * Usage: REG_BACKEND_PATH=_build/modules bench-compile [--quick]
 * Not a test: nothing fails on a slow figure (benchmarks/README.md).
 */

#include <stdlib.h>
#include <string.h>

#include <reg.h>

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static double
median (double *values,
        guint   n)
{
  qsort (values, n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/* A graph of @n_ops elementwise operators over x and y. */
static char *
chain_text (guint n_ops)
{
  static const char *unary[] = { "neg", "relu", "tanh", "sigmoid", "abs" };
  static const char *binary[] = { "add", "mul", "sub", "maximum", "minimum" };
  GString *text = g_string_new ("graph(x, y):\n  t0 = add(x, y)\n");

  for (guint i = 1; i < n_ops; i++)
    {
      if (i % 2)
        g_string_append_printf (text, "  t%u = %s(t%u)\n", i, unary[i % 5], i - 1);
      else
        g_string_append_printf (text, "  t%u = %s(t%u, %s)\n", i, binary[i % 5], i - 1,
                                i % 3 ? "y" : "0.5");
    }
  g_string_append_printf (text, "  return (t%u,)\n", n_ops - 1);

  return g_string_free (text, FALSE);
}

static RegGraph *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  RegGraph *graph = reg_graph_new_from_string (text, &error);

  g_assert_no_error (error);
  return graph;
}

/* The median time of a compile of a freshly parsed @text, in us: @runs
 * samples of BATCH compiles each, of graphs parsed beforehand (the parse
 * is not timed), so that a compile much shorter than the clock's
 * microsecond is measured. */
#define BATCH 20

static double
time_compiles (RegRegistry *registry,
               const char  *backend,
               const char  *text,
               GPtrArray   *inputs,
               guint        runs)
{
  g_autofree double *times = g_new (double, runs);

  for (guint i = 0; i < runs; i++)
    {
      RegGraph *graphs[BATCH];
      RegCompiledFn *fns[BATCH];
      gint64 start;

      for (guint j = 0; j < BATCH; j++)
        graphs[j] = parse (text);

      start = g_get_monotonic_time ();
      for (guint j = 0; j < BATCH; j++)
        fns[j] = reg_registry_compile (registry, backend, graphs[j], inputs, NULL, NULL);
      times[i] = (double) (g_get_monotonic_time () - start) / BATCH;

      for (guint j = 0; j < BATCH; j++)
        {
          g_assert_nonnull (fns[j]);
          g_object_unref (fns[j]);
          g_object_unref (graphs[j]);
        }
    }

  return median (times, runs);
}

static void
compiled (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  RegCompiledFn **fn = user_data;
  g_autoptr(GError) error = NULL;

  *fn = reg_registry_compile_finish (REG_REGISTRY (source), result, &error);
  g_assert_no_error (error);
}

static double
time_async_compiles (RegRegistry *registry,
                     const char  *backend,
                     RegGraph    *graph,
                     GPtrArray   *inputs,
                     guint        runs)
{
  g_autofree double *times = g_new (double, runs);
  GMainContext *context = g_main_context_default ();

  for (guint i = 0; i < runs; i++)
    {
      RegCompiledFn *fn = NULL;
      gint64 start = g_get_monotonic_time ();

      reg_registry_compile_async (registry, backend, graph, inputs, NULL, NULL, compiled, &fn);
      while (fn == NULL)
        g_main_context_iteration (context, TRUE);
      times[i] = g_get_monotonic_time () - start;
      g_object_unref (fn);
    }

  return median (times, runs);
}

int
main (int   argc,
      char *argv[])
{
  gboolean quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  guint runs = quick ? 50 : 300;
  guint async_runs = quick ? 200 : 1000;
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) small_inputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(RegCompiler) inductor = NULL;
  g_autoptr(RegCompiler) eager = NULL;
  g_autoptr(RegGraph) small = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = chain_text (50);
  double cold, repeated, sync_time, async_time;

  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 4096 }, 1));
  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 4096 }, 1));
  g_ptr_array_add (small_inputs, reg_tensor_new ((const gint64[]) { 16 }, 1));

  /* Load the modules first: what is measured is compiling. */
  inductor = reg_registry_lookup_backend (registry, "inductor", &error);
  g_assert_no_error (error);
  eager = reg_registry_lookup_backend (registry, "eager", &error);
  g_assert_no_error (error);

  g_print ("Compiling a 50-operator graph on inductor (%u runs, median):\n", runs);
  reg_registry_set_compile_cache_size (registry, 0);
  cold = time_compiles (registry, "inductor", text, inputs, runs);
  reg_registry_set_compile_cache_size (registry, REG_COMPILE_CACHE_DEFAULT_SIZE);
  time_compiles (registry, "inductor", text, inputs, 1);
  repeated = time_compiles (registry, "inductor", text, inputs, runs);
  g_print ("  cold compile (no cache)        %10.2f us\n", cold);
  g_print ("  repeated compile (cache hit)   %10.2f us\n", repeated);
  g_print ("  cold / repeated                %10.1fx   (bound: >= 100x)\n", cold / repeated);

  g_print ("\nCompiling a 1-operator graph on eager, cache disabled (%u runs, median):\n",
           async_runs);
  reg_registry_set_compile_cache_size (registry, 0);
  small = parse ("graph(x):\n  a = neg(x)\n  return (a,)\n");
  {
    g_autofree double *times = g_new (double, async_runs);

    for (guint i = 0; i < async_runs; i++)
      {
        g_autoptr(RegCompiledFn) fn = NULL;
        gint64 start = g_get_monotonic_time ();

        fn = reg_registry_compile (registry, "eager", small, small_inputs, NULL, &error);
        times[i] = g_get_monotonic_time () - start;
        g_assert_no_error (error);
      }
    sync_time = median (times, async_runs);
  }
  async_time = time_async_compiles (registry, "eager", small, small_inputs, async_runs);
  g_print ("  reg_registry_compile           %10.2f us\n", sync_time);
  g_print ("  reg_registry_compile_async     %10.2f us (to the callback, main loop running)\n",
           async_time);
  g_print ("  async overhead                 %10.2f us   (bound: <= 50 us)\n",
           async_time - sync_time);

  return 0;
}
