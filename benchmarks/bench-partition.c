/* bench-partition.c: what partitioning a graph costs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Prints, measured in one run, with a backend "dsp" that takes matmul and
 * add only (it compiles them on another backend):
 * - a call of a graph that the registry splits into three groups (dsp,
 *   inductor, dsp) on 8x8 matrices, against calling the three parts as
 *   separate compiled functions, one after the other; the bound is the
 *   parts plus 5% and 2 us;
 * - the compile of a 10,000-node graph that splits into three groups,
 *   against the compile of the same graph whole, both on eager (dsp
 *   compiles its groups on eager too), the compile cache disabled; the
 *   bound is 10 ms more.  The same for a graph whose every node is a group
 *   of its own, the worst case, for information.
 *
 * Usage: REG_BACKEND_PATH=_build/modules bench-partition [--quick]
 * Not a test: nothing fails on a slow figure (benchmarks/README.md).
 */

#include <stdlib.h>
#include <string.h>

#include <reg.h>

#define BENCH_TYPE_DSP (bench_dsp_get_type ())
G_DECLARE_FINAL_TYPE (BenchDsp, bench_dsp, BENCH, DSP, GObject)

struct _BenchDsp
{
  GObject      parent_instance;
  RegCompiler *inner;  /* what it compiles on */
};

static gboolean
takes (RegGraph *graph,
       guint     node)
{
  const char *op = reg_graph_get_node_op (graph, node);

  return op != NULL && (g_str_equal (op, "matmul") || g_str_equal (op, "add"));
}

static RegCompiledFn *
bench_dsp_compile (RegCompiler  *compiler,
                   RegGraph     *graph,
                   GPtrArray    *example_inputs,
                   GVariant     *options,
                   GError      **error)
{
  RegCompiler *inner = BENCH_DSP (compiler)->inner;

  for (guint i = 0; i < reg_graph_get_n_nodes (graph); i++)
    if (reg_graph_get_node_kind (graph, i) == REG_NODE_OP && !takes (graph, i))
      {
        g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP,
                     "dsp: no %s", reg_graph_get_node_op (graph, i));
        return NULL;
      }

  return REG_COMPILER_GET_IFACE (inner)->compile (inner, graph, example_inputs, NULL, error);
}

static GVariant *
bench_dsp_dup_supported_nodes (RegCompiler  *compiler,
                               RegGraph     *graph,
                               GPtrArray    *example_inputs,
                               GError      **error)
{
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint i = 0; i < reg_graph_get_n_nodes (graph); i++)
    if (takes (graph, i))
      g_array_append_val (ids, i);

  return g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, ids->data, ids->len, sizeof (guint32));
}

static char *
bench_dsp_dup_name (RegCompiler *compiler)
{
  return g_strdup ("dsp");
}

static void
bench_dsp_iface_init (RegCompilerInterface *iface)
{
  iface->compile = bench_dsp_compile;
  iface->dup_name = bench_dsp_dup_name;
  iface->dup_supported_nodes = bench_dsp_dup_supported_nodes;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (BenchDsp, bench_dsp, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILER, bench_dsp_iface_init))

static void
bench_dsp_finalize (GObject *object)
{
  g_clear_object (&BENCH_DSP (object)->inner);
  G_OBJECT_CLASS (bench_dsp_parent_class)->finalize (object);
}

static void
bench_dsp_class_init (BenchDspClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = bench_dsp_finalize;
}

static void
bench_dsp_init (BenchDsp *self)
{
}

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

static RegGraph *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  RegGraph *graph = reg_graph_new_from_string (text, &error);

  g_assert_no_error (error);
  return graph;
}

static RegCompiledFn *
compile (RegRegistry *registry,
         const char  *backend,
         const char  *text,
         GPtrArray   *inputs)
{
  g_autoptr(RegGraph) graph = parse (text);
  g_autoptr(GError) error = NULL;
  RegCompiledFn *fn = reg_registry_compile (registry, backend, graph, inputs, NULL, &error);

  g_assert_no_error (error);
  return fn;
}

static GPtrArray *
call (RegCompiledFn *fn,
      RegTensor     *a,
      RegTensor     *b)
{
  g_autoptr(GPtrArray) inputs = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  GPtrArray *outputs;

  g_ptr_array_add (inputs, a);
  if (b != NULL)
    g_ptr_array_add (inputs, b);
  outputs = reg_compiled_fn_call (fn, inputs, &error);
  g_assert_no_error (error);

  return outputs;
}

#define CALLS_PER_SAMPLE 1000

/* The median time of a call, in us, of the partitioned function and of
 * the three parts one after the other, measured in turns. */
static void
time_calls (RegCompiledFn *whole,
            RegCompiledFn *parts[3],
            RegTensor     *x,
            RegTensor     *y,
            guint          samples,
            double        *whole_us,
            double        *parts_us)
{
  g_autofree double *a = g_new (double, samples);
  g_autofree double *b = g_new (double, samples);

  for (guint s = 0; s < samples; s++)
    {
      gint64 start = g_get_monotonic_time ();

      for (guint i = 0; i < CALLS_PER_SAMPLE; i++)
        g_ptr_array_unref (call (whole, x, y));
      a[s] = (double) (g_get_monotonic_time () - start) / CALLS_PER_SAMPLE;

      start = g_get_monotonic_time ();
      for (guint i = 0; i < CALLS_PER_SAMPLE; i++)
        {
          g_autoptr(GPtrArray) m = call (parts[0], x, y);
          g_autoptr(GPtrArray) r = call (parts[1], m->pdata[0], NULL);
          g_autoptr(GPtrArray) out = call (parts[2], r->pdata[0], x);
        }
      b[s] = (double) (g_get_monotonic_time () - start) / CALLS_PER_SAMPLE;
    }

  *whole_us = median (a, samples);
  *parts_us = median (b, samples);
}

/* A graph of @n_ops operators on 4x4 matrices x and y.  With @runs 3:
 * a third of matmuls and adds, a third of relus and tanhs, a third of
 * adds again (three groups for dsp); with @runs 1, matmul and relu in
 * turns (every node a group). */
static char *
long_graph_text (guint n_ops,
                 guint runs)
{
  GString *text = g_string_new ("graph(x, y):\n  t0 = matmul(x, y)\n");

  for (guint i = 1; i < n_ops; i++)
    {
      guint run = runs == 1 ? i % 2 : (i * 3 / n_ops) % 2;

      if (run == 0)
        g_string_append_printf (text, "  t%u = %s(t%u, %s)\n", i, i % 2 ? "add" : "matmul",
                                i - 1, i % 3 ? "y" : "x");
      else
        g_string_append_printf (text, "  t%u = %s(t%u)\n", i, i % 2 ? "relu" : "tanh", i - 1);
    }
  g_string_append_printf (text, "  return (t%u,)\n", n_ops - 1);

  return g_string_free (text, FALSE);
}

static guint
n_groups (RegCompiledFn *fn)
{
  g_autoptr(GVariant) placement = reg_compiled_fn_dup_placement (fn);

  return placement != NULL ? (guint) g_variant_n_children (placement) : 1;
}

/* The median time of a compile of @text, in ms. */
static double
time_compiles (RegRegistry *registry,
               const char  *backend,
               const char  *text,
               GPtrArray   *inputs,
               guint        runs,
               guint       *groups)
{
  g_autofree double *times = g_new (double, runs);

  for (guint r = 0; r < runs; r++)
    {
      g_autoptr(RegGraph) graph = parse (text);
      g_autoptr(RegCompiledFn) fn = NULL;
      g_autoptr(GError) error = NULL;
      gint64 start = g_get_monotonic_time ();

      fn = reg_registry_compile (registry, backend, graph, inputs, NULL, &error);
      times[r] = (double) (g_get_monotonic_time () - start) / 1000;
      g_assert_no_error (error);
      *groups = n_groups (fn);
    }

  return median (times, runs);
}

int
main (int   argc,
      char *argv[])
{
  gboolean quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  guint samples = quick ? 5 : 21;
  guint compile_runs = quick ? 3 : 11;
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(BenchDsp) dsp = g_object_new (BENCH_TYPE_DSP, NULL);
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) small = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(RegCompiledFn) whole = NULL;
  g_autoptr(GError) error = NULL;
  RegCompiledFn *parts[3];
  double whole_us, parts_us;

  /* Load the modules first: what is measured is calling and compiling. */
  dsp->inner = reg_registry_lookup_backend (registry, "inductor", &error);
  g_assert_no_error (error);
  g_assert_true (reg_registry_register_backend (registry, NULL, REG_COMPILER (dsp), NULL, &error));
  reg_registry_set_fallback_backends (registry, (const char *[]) { "inductor", NULL });

  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 8, 8 }, 2));
  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 8, 8 }, 2));
  whole = compile (registry, "dsp",
                   "graph(x, y):\n  m = matmul(x, y)\n  r = relu(m)\n  a = add(r, x)\n  return (a,)\n",
                   inputs);
  g_assert_cmpuint (n_groups (whole), ==, 3);
  parts[0] = compile (registry, "dsp", "graph(x, y):\n  m = matmul(x, y)\n  return (m,)\n", inputs);
  g_ptr_array_set_size (inputs, 1);
  parts[1] = compile (registry, "inductor", "graph(m):\n  r = relu(m)\n  return (r,)\n", inputs);
  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 8, 8 }, 2));
  parts[2] = compile (registry, "dsp", "graph(r, x):\n  a = add(r, x)\n  return (a,)\n", inputs);

  time_calls (whole, parts, inputs->pdata[0], inputs->pdata[1], samples, &whole_us, &parts_us);
  g_print ("Calling matmul, relu, add on 8x8 matrices: dsp, inductor, dsp "
           "(%u samples of %u calls, median):\n", samples, CALLS_PER_SAMPLE);
  g_print ("  partitioned function (3 groups)   %8.2f us\n", whole_us);
  g_print ("  the 3 parts, called in turn       %8.2f us\n", parts_us);
  g_print ("  partitioned / parts               %8.3fx  (bound: %.2f us = parts + 5%% + 2 us: %s)\n",
           whole_us / parts_us, parts_us * 1.05 + 2, whole_us <= parts_us * 1.05 + 2 ? "met" : "missed");
  for (guint i = 0; i < 3; i++)
    g_object_unref (parts[i]);

  /* Compiles on eager, which compiles in time linear in the graph and
   * does little else: what differs is the partitioning. */
  g_clear_object (&dsp->inner);
  dsp->inner = reg_registry_lookup_backend (registry, "eager", &error);
  g_assert_no_error (error);
  reg_registry_set_fallback_backends (registry, (const char *[]) { "eager", NULL });
  reg_registry_set_compile_cache_size (registry, 0);
  g_ptr_array_set_size (small, 0);
  g_ptr_array_add (small, reg_tensor_new ((const gint64[]) { 4, 4 }, 2));
  g_ptr_array_add (small, reg_tensor_new ((const gint64[]) { 4, 4 }, 2));
  g_print ("\nCompiling a 10,000-node graph on eager (%u runs, median):\n", compile_runs);
  for (guint runs = 3; runs > 0; runs = runs == 3 ? 1 : 0)
    {
      g_autofree char *text = long_graph_text (10000, runs);
      guint groups = 0, one = 0;
      double partitioned = time_compiles (registry, "dsp", text, small, compile_runs, &groups);
      double plain = time_compiles (registry, "eager", text, small, compile_runs, &one);

      g_print ("  %s\n", runs == 3 ? "three runs of operators:" : "matmul and relu in turns (worst case):");
      g_print ("    whole, on eager                  %8.2f ms\n", plain);
      g_print ("    partitioned, %5u groups         %8.2f ms\n", groups, partitioned);
      g_print ("    partitioning adds                %8.2f ms", partitioned - plain);
      if (runs == 3)
        g_print ("  (bound: 10 ms: %s)", partitioned - plain <= 10 ? "met" : "missed");
      g_print ("\n");
    }

  return 0;
}
