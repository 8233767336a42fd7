/* bench-inductor.c: the inductor backend against eager, numpy, a hand-fused
 * loop and the memory bandwidth
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For each graph and size, on the same inputs, prints one table row per
 * contender: the median milliseconds per call over repeated calls, the
 * effective bandwidth (the bytes the graph must move at least: its inputs
 * read once, its outputs written once, divided by the time), the time
 * relative to the hand-fused loop (lower is better, 1.00 is the loop) and
 * the speed-up over numpy (higher is better).  See benchmarks/README.md.
 *
 *   bench-inductor [--sizes 1048576,16777216] [--graphs chain8,chain16,sum,mlp]
 *                  [--quick] [--no-numpy] [--numpy-script PATH]
 *
 * It also checks that the inductor's results agree with eager's (within
 * the tolerance of docs/inductor.md) and prints the largest difference.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <reg.h>

#include "bench-fused.h"

#ifndef BENCH_SRCDIR
# define BENCH_SRCDIR "."
#endif

typedef enum {
  GRAPH_CHAIN8,
  GRAPH_CHAIN16,
  GRAPH_SUM,
  GRAPH_MLP,
} GraphId;

typedef struct
{
  const char *name;
  const char *text;
  const char *what;
} GraphInfo;

static const GraphInfo graphs[] = {
  [GRAPH_CHAIN8] = { "chain8",
    "graph(x, a, b):\n"
    "  t0 = mul(x, a)\n"
    "  t1 = add(t0, b)\n"
    "  t2 = relu(t1)\n"
    "  t3 = sigmoid(x)\n"
    "  t4 = mul(t2, t3)\n"
    "  t5 = tanh(b)\n"
    "  t6 = add(t4, t5)\n"
    "  y = mul(t6, 0.5)\n"
    "  return (y,)\n",
    "y = (relu(x*a + b) * sigmoid(x) + tanh(b)) * 0.5  (8 ops)" },
  [GRAPH_CHAIN16] = { "chain16",
    "graph(x, a, b):\n"
    "  t0 = mul(x, a)\n"
    "  t1 = add(t0, b)\n"
    "  t2 = relu(t1)\n"
    "  t3 = sigmoid(x)\n"
    "  t4 = mul(t2, t3)\n"
    "  t5 = tanh(b)\n"
    "  t6 = add(t4, t5)\n"
    "  t7 = abs(a)\n"
    "  t8 = add(t7, 1)\n"
    "  t9 = log(t8)\n"
    "  t10 = sub(t6, t9)\n"
    "  t11 = exp(t10)\n"
    "  t12 = maximum(t11, x)\n"
    "  t13 = sqrt(t12)\n"
    "  t14 = div(t13, t8)\n"
    "  y = minimum(t14, 2)\n"
    "  return (y,)\n",
    "chain8 without the 0.5, then min(sqrt(max(exp(. - log(|a|+1)), x)) / (|a|+1), 2)  (16 ops)" },
  [GRAPH_SUM] = { "sum",
    "graph(x, a):\n"
    "  e = exp(x)\n"
    "  p = mul(e, a)\n"
    "  s = sum(p)\n"
    "  return (s,)\n",
    "s = sum(exp(x) * a)" },
  [GRAPH_MLP] = { "mlp",
    "graph(x, w1, w2):\n"
    "  h = matmul(x, w1)\n"
    "  hb = add(h, 0.1)\n"
    "  ha = relu(hb)\n"
    "  o = matmul(ha, w2)\n"
    "  ob = sub(o, 0.05)\n"
    "  y = sigmoid(ob)\n"
    "  return (y,)\n",
    "y = sigmoid(relu(x w1 + 0.1) w2 - 0.05), x [N/64, 64], w1 [64, 64], w2 [64, 16]" },
};

/* Inputs: the same formula as bench-numpy.py, so both see the same data:
 * a multiplicative hash of the index, scaled to [-1, 1). */
static void
fill_input (float  *data,
            gsize   n,
            guint   seed,
            float   scale)
{
  for (gsize i = 0; i < n; i++)
    {
      guint32 h = (guint32) ((guint64) (i + (guint64) seed * 0x9E3779B9u) * 2654435761u);

      data[i] = (float) (((double) h / 4294967296.0 * 2.0 - 1.0) * scale);
    }
}

static RegTensor *
input_new (const gint64 *shape,
           guint         n_dims,
           guint         seed,
           float         scale)
{
  RegTensor *tensor = reg_tensor_new (shape, n_dims);
  gsize n;
  float *data = reg_tensor_get_data (tensor, &n);

  fill_input (data, n, seed, scale);
  return tensor;
}

/* Timing -------------------------------------------------------------- */

typedef void (*BenchFunc) (gpointer data);

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* One call to warm up, then calls until @min_reps are done and @budget_ms
 * spent (at most 51); returns the median in ms. */
static double
median_ms (BenchFunc func,
           gpointer  data,
           guint     min_reps,
           double    budget_ms)
{
  double times[51];
  guint n = 0;
  double spent = 0;

  func (data);
  while (n < G_N_ELEMENTS (times) && (n < min_reps || spent < budget_ms))
    {
      gint64 t0 = g_get_monotonic_time ();

      func (data);
      times[n] = (g_get_monotonic_time () - t0) / 1000.0;
      spent += times[n++];
    }

  qsort (times, n, sizeof (double), compare_doubles);
  return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

typedef struct
{
  RegCompiledFn *fn;
  GPtrArray     *inputs;
} CallData;

static void
call_fn (gpointer data)
{
  CallData *cd = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) outputs = reg_compiled_fn_call (cd->fn, cd->inputs, &error);

  if (outputs == NULL)
    g_error ("call failed: %s", error->message);
}

/* What every call of a backend pays before computing anything: a new,
 * zero-filled output tensor (reg_tensor_new), and freeing it. */
typedef struct
{
  gint64 shape[2];
  guint  n_dims;
} AllocData;

static void
call_alloc (gpointer data)
{
  AllocData *ad = data;

  g_object_unref (reg_tensor_new (ad->shape, ad->n_dims));
}

typedef struct
{
  GraphId      graph;
  const float *in[3];
  float       *out;
  gsize        n;
  double       sink;
} LoopData;

static void
call_fused (gpointer data)
{
  LoopData *ld = data;

  switch (ld->graph)
    {
    case GRAPH_CHAIN8:
      bench_fused_chain8 (ld->in[0], ld->in[1], ld->in[2], ld->out, ld->n);
      break;
    case GRAPH_CHAIN16:
      bench_fused_chain16 (ld->in[0], ld->in[1], ld->in[2], ld->out, ld->n);
      break;
    case GRAPH_SUM:
      ld->sink += bench_fused_sum (ld->in[0], ld->in[1], ld->n);
      break;
    case GRAPH_MLP:
      bench_fused_mlp (ld->in[0], ld->in[1], ld->in[2], ld->out, ld->n / BENCH_MLP_IN);
      break;
    }
}

static void
call_stream (gpointer data)
{
  LoopData *ld = data;

  switch (ld->graph)
    {
    case GRAPH_CHAIN8:
    case GRAPH_CHAIN16:
      bench_stream_3to1 (ld->in[0], ld->in[1], ld->in[2], ld->out, ld->n);
      break;
    case GRAPH_SUM:
      ld->sink += bench_stream_2to0 (ld->in[0], ld->in[1], ld->n);
      break;
    case GRAPH_MLP:
      bench_stream_4to1 (ld->in[0], ld->out, ld->n / 4);
      break;
    }
}

/* numpy ----------------------------------------------------------------- */

/* Runs bench-numpy.py once for all graphs and sizes; fills @numpy_ms
 * (graph name + size -> median ms as a string). */
static gboolean
run_numpy (const char *script,
           const char *graph_list,
           const char *size_list,
           gboolean    quick,
           GHashTable *numpy_ms,
           char      **version)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;
  int status;
  const char *argv[] = {
    "/usr/bin/python3", script, "--graphs", graph_list, "--sizes", size_list,
    quick ? "--quick" : NULL, NULL,
  };

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                     &out, &err, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    {
      g_printerr ("numpy: %s%s%s\n", error->message, err && *err ? "\n" : "", err ? err : "");
      return FALSE;
    }

  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], " ", -1);

      if (g_strv_length (fields) >= 2 && g_str_equal (fields[0], "numpy-version"))
        *version = g_strdup (fields[1]);
      else if (g_strv_length (fields) >= 3)
        g_hash_table_insert (numpy_ms, g_strdup_printf ("%s/%s", fields[0], fields[1]),
                             g_strdup (fields[2]));
    }

  return TRUE;
}

/* Table --------------------------------------------------------------- */

static void
print_row (const char *name,
           double      ms,
           double      bytes,
           double      fused_ms,
           double      numpy_ms,
           const char *note)
{
  printf ("  %-22s %10.2f %9.2f", name, ms, bytes / (ms * 1e-3) / 1e9);
  if (fused_ms > 0)
    printf (" %9.2f", ms / fused_ms);
  else
    printf (" %9s", "-");
  if (numpy_ms > 0)
    printf (" %9.2f", numpy_ms / ms);
  else
    printf (" %9s", "-");
  printf ("  %s\n", note != NULL ? note : "");
}

/* The largest difference between the inductor's and eager's outputs,
 * relative to max (|eager|, 1): the figure docs/inductor.md bounds. */
static double
max_difference (GPtrArray *got,
                GPtrArray *want)
{
  double worst = 0;

  for (guint i = 0; i < want->len; i++)
    {
      gsize n;
      const float *g = reg_tensor_get_data (g_ptr_array_index (got, i), &n);
      const float *w = reg_tensor_get_data (g_ptr_array_index (want, i), NULL);

      for (gsize j = 0; j < n; j++)
        {
          double d = fabs ((double) g[j] - w[j]) / MAX (fabs (w[j]), 1.0);

          if (isnan (g[j]) != isnan (w[j]))
            return INFINITY;
          if (!isnan (d))
            worst = MAX (worst, d);
        }
    }

  return worst;
}

static RegCompiledFn *
compile (RegRegistry *registry,
         const char  *backend,
         RegGraph    *graph,
         GPtrArray   *inputs,
         const char  *options_text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) options = NULL;
  RegCompiledFn *fn;

  if (options_text != NULL)
    options = g_variant_parse (G_VARIANT_TYPE_VARDICT, options_text, NULL, NULL, &error);
  g_assert_no_error (error);

  fn = reg_registry_compile (registry, backend, graph, inputs, options, &error);
  if (fn == NULL)
    g_error ("compiling with %s: %s", backend, error->message);

  return fn;
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *size_list = g_strdup ("1048576,16777216");
  g_autofree char *graph_list = g_strdup ("chain8,chain16,sum,mlp");
  g_autofree char *numpy_script = g_build_filename (BENCH_SRCDIR, "bench-numpy.py", NULL);
  g_autofree char *numpy_version = NULL;
  gboolean quick = FALSE, no_numpy = FALSE;
  GOptionEntry entries[] = {
    { "sizes", 0, 0, G_OPTION_ARG_STRING, &size_list, "Comma-separated sizes (elements of x)", "N,..." },
    { "graphs", 0, 0, G_OPTION_ARG_STRING, &graph_list, "Comma-separated graphs", "chain8,..." },
    { "quick", 0, 0, G_OPTION_ARG_NONE, &quick, "Fewer repetitions", NULL },
    { "no-numpy", 0, 0, G_OPTION_ARG_NONE, &no_numpy, "Skip numpy", NULL },
    { "numpy-script", 0, 0, G_OPTION_ARG_FILENAME, &numpy_script, "bench-numpy.py", "PATH" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- benchmark the inductor backend");
  g_autoptr(GError) error = NULL;
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(GHashTable) numpy_ms = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto(GStrv) sizes = NULL, graph_names = NULL;
  gboolean have_numpy = FALSE;
  double budget = quick ? 300 : 2000;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  budget = quick ? 300 : 2000;

  sizes = g_strsplit (size_list, ",", -1);
  graph_names = g_strsplit (graph_list, ",", -1);

  if (!no_numpy && g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    have_numpy = run_numpy (numpy_script, graph_list, size_list, quick, numpy_ms, &numpy_version);

  printf ("inductor benchmark: %u cores, numpy %s\n", g_get_num_processors (),
          have_numpy ? numpy_version : "not run");
  printf ("columns: median ms per call | effective GB/s (minimal bytes: inputs read once, outputs\n"
          "written once) | time / hand-fused loop (lower is better) | speed-up over numpy\n");

  for (guint g = 0; graph_names[g] != NULL; g++)
    for (guint s = 0; sizes[s] != NULL; s++)
      {
        GraphId id = G_N_ELEMENTS (graphs);
        gsize n = g_ascii_strtoull (sizes[s], NULL, 10);
        g_autoptr(RegGraph) graph = NULL;
        g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
        g_autofree float *out = NULL;
        g_autofree char *key = NULL;
        const char *np_str;
        double bytes, eager_ms, ind1_ms, ind2_ms, unfused_ms, fused_ms, stream_ms, alloc_ms, np_ms = 0;
        AllocData ad = { { (gint64) n, 0 }, 1 };
        double diff;
        LoopData ld = { 0 };

        for (guint i = 0; i < G_N_ELEMENTS (graphs); i++)
          if (g_str_equal (graphs[i].name, graph_names[g]))
            id = i;
        if (id == G_N_ELEMENTS (graphs))
          {
            g_printerr ("unknown graph %s\n", graph_names[g]);
            return 2;
          }

        graph = reg_graph_new_from_string (graphs[id].text, &error);
        g_assert_no_error (error);

        switch (id)
          {
          case GRAPH_CHAIN8:
          case GRAPH_CHAIN16:
            for (guint i = 0; i < 3; i++)
              g_ptr_array_add (inputs, input_new ((const gint64[]) { n }, 1, i, 1.0f));
            bytes = 16.0 * n;
            out = g_new (float, n);
            break;
          case GRAPH_SUM:
            for (guint i = 0; i < 2; i++)
              g_ptr_array_add (inputs, input_new ((const gint64[]) { n }, 1, i, 1.0f));
            bytes = 8.0 * n;
            ad.n_dims = 0;
            break;
          case GRAPH_MLP:
          default:
            n -= n % BENCH_MLP_IN;
            g_ptr_array_add (inputs, input_new ((const gint64[]) { n / BENCH_MLP_IN, BENCH_MLP_IN }, 2, 0, 1.0f));
            g_ptr_array_add (inputs, input_new ((const gint64[]) { BENCH_MLP_IN, BENCH_MLP_HIDDEN }, 2, 1, 0.125f));
            g_ptr_array_add (inputs, input_new ((const gint64[]) { BENCH_MLP_HIDDEN, BENCH_MLP_OUT }, 2, 2, 0.125f));
            bytes = 4.0 * n + 4.0 * (n / BENCH_MLP_IN) * BENCH_MLP_OUT;
            ad.shape[0] = n / BENCH_MLP_IN;
            ad.shape[1] = BENCH_MLP_OUT;
            ad.n_dims = 2;
            out = g_new (float, n);
            break;
          }

        ld.graph = id;
        ld.n = n;
        ld.out = out;
        for (guint i = 0; i < inputs->len; i++)
          ld.in[i] = reg_tensor_get_data (g_ptr_array_index (inputs, i), NULL);

        printf ("\n%s, N = %" G_GSIZE_FORMAT " (%.0f MB moved at least): %s\n", graphs[id].name, n,
                bytes / 1e6, graphs[id].what);
        printf ("  %-22s %10s %9s %9s %9s\n", "", "ms", "GB/s", "/fused", "numpy x");

        {
          g_autoptr(RegCompiledFn) eager = compile (registry, "eager", graph, inputs, NULL);
          g_autoptr(RegCompiledFn) ind1 = compile (registry, "inductor", graph, inputs, NULL);
          g_autoptr(RegCompiledFn) ind2 = compile (registry, "inductor", graph, inputs,
                                                   "{'threads': <uint32 2>}");
          g_autoptr(RegCompiledFn) unfused = compile (registry, "inductor", graph, inputs,
                                                      "{'fuse': <false>}");
          g_autoptr(GPtrArray) want = reg_compiled_fn_call (eager, inputs, &error);
          g_autoptr(GPtrArray) got = NULL;
          CallData cd;

          g_assert_no_error (error);
          got = reg_compiled_fn_call (ind1, inputs, &error);
          g_assert_no_error (error);
          diff = max_difference (got, want);

          fused_ms = median_ms (call_fused, &ld, quick ? 3 : 5, budget);
          stream_ms = median_ms (call_stream, &ld, quick ? 3 : 5, budget);
          alloc_ms = median_ms (call_alloc, &ad, quick ? 3 : 5, budget / 2);
          cd = (CallData) { ind1, inputs };
          ind1_ms = median_ms (call_fn, &cd, quick ? 3 : 5, budget);
          cd = (CallData) { ind2, inputs };
          ind2_ms = median_ms (call_fn, &cd, quick ? 3 : 5, budget);
          cd = (CallData) { unfused, inputs };
          unfused_ms = median_ms (call_fn, &cd, quick ? 3 : 5, budget);
          cd = (CallData) { eager, inputs };
          eager_ms = median_ms (call_fn, &cd, quick ? 1 : 3, budget / 4);
        }

        key = g_strdup_printf ("%s/%" G_GSIZE_FORMAT, graphs[id].name, n);
        np_str = g_hash_table_lookup (numpy_ms, key);
        if (np_str == NULL && id == GRAPH_MLP)
          {
            g_free (key);
            key = g_strdup_printf ("%s/%s", graphs[id].name, sizes[s]);
            np_str = g_hash_table_lookup (numpy_ms, key);
          }
        if (np_str != NULL)
          np_ms = g_ascii_strtod (np_str, NULL);

        print_row ("eager", eager_ms, bytes, fused_ms, np_ms, NULL);
        if (np_ms > 0)
          print_row ("numpy", np_ms, bytes, fused_ms, np_ms, NULL);
        print_row ("inductor fuse=false", unfused_ms, bytes, fused_ms, np_ms, "1 thread");
        print_row ("inductor 1 thread", ind1_ms, bytes, fused_ms, np_ms, NULL);
        {
          g_autofree char *note = g_strdup_printf ("%.2fx its 1-thread speed", ind1_ms / ind2_ms);

          print_row ("inductor 2 threads", ind2_ms, bytes, fused_ms, np_ms, note);
        }
        print_row ("hand-fused -O3 native", fused_ms, bytes, fused_ms, np_ms, "-ffast-math, libmvec, 1 thread");
        print_row ("stream probe", stream_ms, bytes, fused_ms, np_ms, "same bytes, 1 thread");
        print_row ("output allocation", alloc_ms, bytes, fused_ms, np_ms,
                   "reg_tensor_new + unref of the outputs: in every backend's call");
        printf ("  inductor vs eager: %.0fx faster, largest difference %.2g (relative to max(|eager|, 1))\n",
                eager_ms / ind1_ms, diff);
      }

  return 0;
}
