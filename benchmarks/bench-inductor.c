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
 *   bench-inductor [--sizes 1048576,16777216] [--graphs chain8,chain16,sum,mlp,layer]
 *                  [--layers 256x256x256,2048x1024x1024] [--sweep]
 *                  [--quick] [--no-numpy] [--numpy-script PATH]
 *
 * The graph `layer`, one MLP layer y = relu(x w + b) for each shape MxKxN of
 * --layers, compares the inductor with numpy on the same OpenBLAS at 1 and 2
 * threads and with a hand-written C loop.  Each of its figures comes from a
 * child process (this program with --child, or bench-numpy.py) whose
 * OpenBLAS thread count is set in its environment (OPENBLAS_NUM_THREADS),
 * since OpenBLAS reads it once per process.  --sweep times the inductor at
 * 1 and 2 threads from 64^3 to 4096^3 (the layer) and from 1K to 16M
 * elements (chain8), the cost model's range.
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
  GRAPH_LAYER,
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
  [GRAPH_LAYER] = { "layer",
    "graph(x, w, b):\n"
    "  h = matmul(x, w)\n"
    "  c = add(h, b)\n"
    "  y = relu(c)\n"
    "  return (y,)\n",
    "y = relu(x w + b), x [M, K], w [K, N], b [M, N]" },
};

/* Inputs: the same formula as bench-numpy.py, so both see the same data:
 * a multiplicative hash of the index, scaled to [-1, 1). */
static void
fill_input (float  *data,
            gsize   n,
            guint   seed,
            double  scale)
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
           double        scale)
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

/* Calls @func until @slice_ms are spent (once at least) and returns the
 * mean ms per call. */
static double
mean_ms (BenchFunc func,
         gpointer  data,
         double    slice_ms)
{
  gint64 start = g_get_monotonic_time ();
  double spent;
  guint n = 0;

  do
    {
      func (data);
      n++;
      spent = (g_get_monotonic_time () - start) / 1000.0;
    }
  while (spent < slice_ms);

  return spent / n;
}

/* Times @a and @b in turns, in rounds of @budget_ms each share: a change
 * in the machine's state (another process, the clock speed) then weighs
 * on both alike, where two figures taken one after the other can differ
 * by 10% for the same code.  Sets the median of the rounds' ms per call
 * of each and the median of the rounds' ratios b / a. */
static void
paired_ms (BenchFunc  func,
           gpointer   a,
           gpointer   b,
           double     budget_ms,
           double    *ms_a,
           double    *ms_b,
           double    *ratio)
{
  double ta[15], tb[15], ratios[15];
  gint64 t0;
  double first;
  guint rounds;

  /* a warm-up call each; the first tells how many rounds fit */
  t0 = g_get_monotonic_time ();
  func (a);
  first = (g_get_monotonic_time () - t0) / 1000.0;
  func (b);
  rounds = (guint) CLAMP (budget_ms / MAX (2 * first, 1e-3), 3, G_N_ELEMENTS (ta));

  for (guint r = 0; r < rounds; r++)
    {
      ta[r] = mean_ms (func, a, budget_ms / (2 * rounds));
      tb[r] = mean_ms (func, b, budget_ms / (2 * rounds));
      ratios[r] = tb[r] / ta[r];
    }

  qsort (ta, rounds, sizeof (double), compare_doubles);
  qsort (tb, rounds, sizeof (double), compare_doubles);
  qsort (ratios, rounds, sizeof (double), compare_doubles);
  *ms_a = ta[rounds / 2];
  *ms_b = tb[rounds / 2];
  *ratio = ratios[rounds / 2];
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
    case GRAPH_LAYER:
      /* timed apart, in bench_layer () */
      g_assert_not_reached ();
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
    case GRAPH_LAYER:
      g_assert_not_reached ();
    }
}

/* numpy ----------------------------------------------------------------- */

/* The environment of a child process, with OPENBLAS_NUM_THREADS set to
 * @blas_threads (NULL: as in this process). */
static char **
child_environ (const char *blas_threads)
{
  char **env = g_get_environ ();

  if (blas_threads != NULL)
    env = g_environ_setenv (env, "OPENBLAS_NUM_THREADS", blas_threads, TRUE);

  return env;
}

/* Runs bench-numpy.py once for @graph_list on @size_list (and @layer_list
 * for the graph `layer`), with OpenBLAS on @blas_threads threads (NULL:
 * its default); fills @numpy_ms (graph name + size -> median ms as a
 * string), and @version and @blas when they are NULL. */
static gboolean
run_numpy (const char  *script,
           const char  *graph_list,
           const char  *size_list,
           const char  *layer_list,
           const char  *blas_threads,
           gboolean     quick,
           GHashTable  *numpy_ms,
           char       **version,
           char       **blas)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) env = child_environ (blas_threads);
  int status;
  const char *argv[] = {
    "/usr/bin/python3", script, "--graphs", graph_list, "--sizes", size_list,
    "--layers", layer_list, quick ? "--quick" : NULL, NULL,
  };

  if (!g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL,
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
        {
          if (*version == NULL)
            *version = g_strdup (fields[1]);
        }
      else if (g_strv_length (fields) >= 2 && g_str_equal (fields[0], "numpy-blas"))
        {
          if (*blas == NULL)
            *blas = g_strdup (fields[1]);
        }
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

/* The MLP layer, and the sweeps: measured in child processes ----------- */

static gboolean
parse_shape (const char *text,
             gsize       dims[3])
{
  g_auto(GStrv) parts = g_strsplit (text, "x", -1);

  if (g_strv_length (parts) != 3)
    return FALSE;
  for (guint i = 0; i < 3; i++)
    {
      guint64 v;

      if (!g_ascii_string_to_unsigned (parts[i], 10, 1, 1 << 16, &v, NULL))
        return FALSE;
      dims[i] = v;
    }

  return TRUE;
}

/* The inputs of `layer` as bench-numpy.py makes them (w scaled by
 * 1/sqrt(K), so that the products stay near 1 whatever K). */
static GPtrArray *
layer_inputs_new (const gsize dims[3])
{
  GPtrArray *inputs = g_ptr_array_new_with_free_func (g_object_unref);
  gint64 m = dims[0], k = dims[1], n = dims[2];

  g_ptr_array_add (inputs, input_new ((const gint64[]) { m, k }, 2, 0, 1.0));
  g_ptr_array_add (inputs, input_new ((const gint64[]) { k, n }, 2, 1, 1.0 / sqrt ((double) k)));
  g_ptr_array_add (inputs, input_new ((const gint64[]) { m, n }, 2, 2, 1.0));

  return inputs;
}

static GPtrArray *
chain_inputs_new (gsize n)
{
  GPtrArray *inputs = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < 3; i++)
    g_ptr_array_add (inputs, input_new ((const gint64[]) { n }, 1, i, 1.0));

  return inputs;
}

/* @graph compiled on inductor with the options threads and matmul. */
static RegCompiledFn *
compile_threads (RegRegistry *registry,
                 RegGraph    *graph,
                 GPtrArray   *inputs,
                 guint        threads,
                 const char  *matmul)
{
  g_autofree char *options = g_strdup_printf ("{'threads': <uint32 %u>, 'matmul': <'%s'>}",
                                              threads, matmul);

  return compile (registry, "inductor", graph, inputs, options);
}

/* --child GRAPH:SIZE:THREADS[:MATMUL] (GRAPH layer with SIZE MxKxN, or
 * chain8 with SIZE elements; MATMUL the option matmul, auto by default):
 * one contender of a table, in a process of its own; prints `ms MEDIAN`.
 * THREADS `1/2` times 1 and 2 threads in turns (paired_ms()) and prints
 * `pair MS1 MS2 RATIO`. */
static int
child_main (RegRegistry *registry,
            const char  *spec,
            gboolean     quick)
{
  g_auto(GStrv) parts = g_strsplit (spec, ":", -1);
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;
  const char *matmul;
  gsize dims[3];
  guint64 threads;
  CallData cd;

  gboolean pair = g_strv_length (parts) >= 3 && g_str_equal (parts[2], "1/2");

  if (g_strv_length (parts) < 3 ||
      (!pair && !g_ascii_string_to_unsigned (parts[2], 10, 1, 256, &threads, NULL)))
    {
      g_printerr ("--child: expected GRAPH:SIZE:THREADS[:MATMUL], got %s\n", spec);
      return 2;
    }

  if (g_str_equal (parts[0], "layer") && parse_shape (parts[1], dims))
    {
      graph = reg_graph_new_from_string (graphs[GRAPH_LAYER].text, &error);
      inputs = layer_inputs_new (dims);
    }
  else if (g_str_equal (parts[0], "chain8"))
    {
      graph = reg_graph_new_from_string (graphs[GRAPH_CHAIN8].text, &error);
      inputs = chain_inputs_new (g_ascii_strtoull (parts[1], NULL, 10));
    }
  else
    {
      g_printerr ("--child: unknown graph or size in %s\n", spec);
      return 2;
    }
  g_assert_no_error (error);
  matmul = parts[3] != NULL ? parts[3] : "auto";

  if (pair)
    {
      g_autoptr(RegCompiledFn) fn2 = compile_threads (registry, graph, inputs, 2, matmul);
      CallData cd2 = { fn2, inputs };
      double ms1, ms2, ratio;

      fn = compile_threads (registry, graph, inputs, 1, matmul);
      cd = (CallData) { fn, inputs };
      paired_ms (call_fn, &cd, &cd2, quick ? 600 : 4000, &ms1, &ms2, &ratio);
      printf ("pair %.5f %.5f %.4f\n", ms1, ms2, ratio);
      return 0;
    }

  fn = compile_threads (registry, graph, inputs, (guint) threads, matmul);
  cd = (CallData) { fn, inputs };
  printf ("ms %.4f\n", median_ms (call_fn, &cd, quick ? 3 : 5, quick ? 300 : 2000));

  return 0;
}

/* Runs `SELF --child SPEC` with OpenBLAS on @blas_threads threads (NULL:
 * its default) and returns its median ms (a negative number if it
 * failed); *@matmul (if not NULL) gets what the inductor's plan says it
 * does with products.  For a SPEC of threads `1/2`, @pair gets the 1- and
 * 2-thread ms and their ratio, and the 1-thread ms is returned. */
static double
child_ms (const char  *self,
          const char  *spec,
          const char  *blas_threads,
          gboolean     quick,
          char       **matmul,
          double       pair[3])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_auto(GStrv) env = child_environ (blas_threads);
  g_auto(GStrv) lines = NULL;
  double ms = -1;
  int status;
  const char *argv[] = { self, "--child", spec, quick ? "--quick" : NULL, NULL };

  /* the plan's log line names the matmul */
  env = g_environ_setenv (env, "G_MESSAGES_DEBUG", "Reg", TRUE);
  if (!g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL,
                     &out, &err, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    {
      g_printerr ("child %s: %s\n%s", spec, error->message, err != NULL ? err : "");
      return -1;
    }

  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *m = strstr (lines[i], ", matmul ");

      if (g_str_has_prefix (lines[i], "ms "))
        ms = g_ascii_strtod (lines[i] + 3, NULL);
      else if (g_str_has_prefix (lines[i], "pair ") && pair != NULL)
        {
          char *end = lines[i] + 5;

          for (guint j = 0; j < 3; j++)
            pair[j] = g_ascii_strtod (end, &end);
          ms = pair[0];
        }
      else if (m != NULL && matmul != NULL && *matmul == NULL)
        {
          *matmul = g_strdup (m + strlen (", matmul "));
          if (g_str_has_suffix (*matmul, ")"))
            (*matmul)[strlen (*matmul) - 1] = '\0';
        }
    }

  return ms;
}

typedef struct
{
  const float *x, *w, *b;
  float       *y;
  gsize        m, k, n;
} LayerData;

static void
call_layer_loop (gpointer data)
{
  LayerData *ld = data;

  bench_fused_layer (ld->x, ld->w, ld->b, ld->y, ld->m, ld->k, ld->n);
}

/* The largest difference of the inductor's layer from the layer computed
 * in double, on 16 rows spread over the matrix, relative to max(|y|, 1). */
static double
layer_difference (RegRegistry *registry,
                  GPtrArray   *inputs,
                  const gsize  dims[3])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegGraph) graph = reg_graph_new_from_string (graphs[GRAPH_LAYER].text, &error);
  g_autoptr(RegCompiledFn) fn = compile (registry, "inductor", graph, inputs, NULL);
  g_autoptr(GPtrArray) got = reg_compiled_fn_call (fn, inputs, &error);
  const float *x = reg_tensor_get_data (g_ptr_array_index (inputs, 0), NULL);
  const float *w = reg_tensor_get_data (g_ptr_array_index (inputs, 1), NULL);
  const float *b = reg_tensor_get_data (g_ptr_array_index (inputs, 2), NULL);
  const float *y;
  gsize m = dims[0], k = dims[1], n = dims[2];
  double worst = 0;

  g_assert_no_error (error);
  y = reg_tensor_get_data (g_ptr_array_index (got, 0), NULL);
  for (gsize r = 0; r < 16; r++)
    {
      gsize i = r * (m - 1) / 15;

      for (gsize j = 0; j < n; j++)
        {
          double acc = b[i * n + j];

          for (gsize l = 0; l < k; l++)
            acc += (double) x[i * k + l] * w[l * n + j];
          acc = MAX (acc, 0.0);
          worst = MAX (worst, fabs (y[i * n + j] - acc) / MAX (fabs (acc), 1.0));
        }
    }

  return worst;
}

static void
print_layer_row (const char *name,
                 double      ms,
                 double      flops,
                 double      numpy_ms,
                 const char *note)
{
  if (ms < 0)
    {
      printf ("  %-40s %9s  %s\n", name, "failed", note != NULL ? note : "");
      return;
    }
  printf ("  %-40s %9.3f %8.1f", name, ms, flops / (ms * 1e-3) / 1e9);
  if (numpy_ms > 0)
    printf (" %8.2f", ms / numpy_ms);
  else
    printf (" %8s", "-");
  printf ("  %s\n", note != NULL ? note : "");
}

static void
bench_layer (RegRegistry *registry,
             const char  *self,
             const char  *shape,
             GHashTable  *numpy1,
             GHashTable  *numpy2,
             gboolean     quick)
{
  gsize dims[3];
  g_autoptr(GPtrArray) inputs = NULL;
  g_autofree float *y = NULL;
  g_autofree char *key = NULL;
  double flops, np1 = -1, np2 = -1, loop_ms, diff;
  struct {
    const char *name;
    guint       threads;
    const char *blas_threads;   /* OPENBLAS_NUM_THREADS of the child */
    const char *matmul;         /* the option matmul */
    guint       numpy;          /* compared with numpy on 1 or 2 threads */
  } rows[] = {
    { "inductor 1 thread", 1, "1", "auto", 1 },
    { "inductor 2 threads", 2, "1", "auto", 2 },
    { "inductor 1 thread, OpenBLAS 2 threads", 1, "2", "auto", 1 },
    { "inductor 2 threads, OpenBLAS 2 threads", 2, "2", "auto", 2 },
    { "inductor matmul=blas, 1 thread", 1, "1", "blas", 1 },
    { "inductor matmul=blas, 2 threads", 2, "1", "blas", 2 },
    { "inductor matmul=blas, 2 thr, OpenBLAS 2", 2, "2", "blas", 2 },
    { "inductor matmul=in-tree, 1 thread", 1, "1", "in-tree", 1 },
    { "inductor matmul=in-tree, 2 threads", 2, "1", "in-tree", 2 },
  };
  double ms[G_N_ELEMENTS (rows)];
  LayerData ld;
  const char *s;

  if (!parse_shape (shape, dims))
    {
      g_printerr ("--layers: expected MxKxN, got %s\n", shape);
      exit (2);
    }
  flops = 2.0 * dims[0] * dims[1] * dims[2];
  key = g_strdup_printf ("layer/%s", shape);
  if ((s = g_hash_table_lookup (numpy1, key)) != NULL)
    np1 = g_ascii_strtod (s, NULL);
  if ((s = g_hash_table_lookup (numpy2, key)) != NULL)
    np2 = g_ascii_strtod (s, NULL);

  printf ("\nlayer %s (%.2f GFLOP): %s\n", shape, flops / 1e9, graphs[GRAPH_LAYER].what);
  printf ("  %-40s %9s %8s %8s\n", "", "ms", "GFLOPS", "/numpy");
  print_layer_row ("numpy, OpenBLAS 1 thread", np1, flops, np1, NULL);
  print_layer_row ("numpy, OpenBLAS 2 threads", np2, flops, np2, NULL);

  for (guint r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      g_autofree char *spec = g_strdup_printf ("layer:%s:%u:%s", shape, rows[r].threads,
                                               rows[r].matmul);
      g_autofree char *matmul = NULL;
      g_autofree char *note = NULL;

      ms[r] = child_ms (self, spec, rows[r].blas_threads, quick, &matmul, NULL);
      note = g_strdup_printf ("OPENBLAS_NUM_THREADS=%s; matmul %s", rows[r].blas_threads,
                              matmul != NULL ? matmul : "?");
      print_layer_row (rows[r].name, ms[r], flops, rows[r].numpy == 1 ? np1 : np2, note);
    }

  inputs = layer_inputs_new (dims);
  y = g_new (float, dims[0] * dims[2]);
  ld = (LayerData) {
    reg_tensor_get_data (g_ptr_array_index (inputs, 0), NULL),
    reg_tensor_get_data (g_ptr_array_index (inputs, 1), NULL),
    reg_tensor_get_data (g_ptr_array_index (inputs, 2), NULL),
    y, dims[0], dims[1], dims[2],
  };
  loop_ms = median_ms (call_layer_loop, &ld, quick ? 3 : 5, quick ? 300 : 2000);
  print_layer_row ("hand-written C, 1 thread", loop_ms, flops, np1,
                   "-O3 -march=native -ffast-math, no BLAS");

  diff = layer_difference (registry, inputs, dims);
  printf ("  inductor 2 threads / 1 thread: %.2f; / the C loop: %.2f; largest difference from a "
          "double-precision layer (16 rows) %.2g\n",
          ms[1] / ms[0], ms[0] / loop_ms, diff);
}

/* Threads against one thread over the cost model's range, each size in
 * a child process with OpenBLAS single-threaded (the inductor's threads
 * split the work) that times 1 and 2 threads in turns: the ratio is the
 * median of the rounds' ratios. */
static void
bench_sweep (const char *self,
             gboolean    quick)
{
  static const char * const layers[] = {
    "64x64x64", "128x128x128", "256x256x256", "512x512x512", "1024x1024x1024",
    "2048x2048x2048", "4096x4096x4096",
  };
  static const char * const chains[] = {
    "1024", "4096", "16384", "65536", "262144", "1048576", "4194304", "16777216",
  };
  double worst = 0;

  printf ("\nsweep: 2 threads against 1 (OPENBLAS_NUM_THREADS=1)\n");
  printf ("  %-28s %10s %10s %8s\n", "", "1 thr ms", "2 thr ms", "2 / 1");
  for (guint g = 0; g < 2; g++)
    {
      const char * const *sizes = g == 0 ? layers : chains;
      guint n = g == 0 ? G_N_ELEMENTS (layers) : G_N_ELEMENTS (chains);

      for (guint i = 0; i < n; i++)
        {
          g_autofree char *spec = g_strdup_printf ("%s:%s:1/2", g == 0 ? "layer" : "chain8", sizes[i]);
          g_autofree char *name = g_strdup_printf ("%s %s", g == 0 ? "layer" : "chain8", sizes[i]);
          double pair[3] = { -1, -1, -1 };

          if (child_ms (self, spec, "1", quick, NULL, pair) < 0)
            continue;
          printf ("  %-28s %10.4f %10.4f %8.2f\n", name, pair[0], pair[1], pair[2]);
          worst = MAX (worst, pair[2]);
          fflush (stdout);
        }
    }
  printf ("  slowest 2-thread call relative to 1 thread: %.2f\n", worst);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *size_list = g_strdup ("1048576,16777216");
  g_autofree char *graph_list = g_strdup ("chain8,chain16,sum,mlp,layer");
  g_autofree char *layer_list = g_strdup ("256x256x256,2048x1024x1024");
  g_autofree char *numpy_script = g_build_filename (BENCH_SRCDIR, "bench-numpy.py", NULL);
  g_autofree char *numpy_version = NULL, *numpy_blas = NULL, *child = NULL, *self = NULL;
  gboolean quick = FALSE, no_numpy = FALSE, sweep = FALSE;
  GOptionEntry entries[] = {
    { "sizes", 0, 0, G_OPTION_ARG_STRING, &size_list, "Comma-separated sizes (elements of x)", "N,..." },
    { "graphs", 0, 0, G_OPTION_ARG_STRING, &graph_list, "Comma-separated graphs", "chain8,..." },
    { "layers", 0, 0, G_OPTION_ARG_STRING, &layer_list, "Shapes of the graph layer", "MxKxN,..." },
    { "sweep", 0, 0, G_OPTION_ARG_NONE, &sweep, "Time 2 threads against 1 over the cost model's range", NULL },
    { "child", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &child, "One figure (internal)", "SPEC" },
    { "quick", 0, 0, G_OPTION_ARG_NONE, &quick, "Fewer repetitions", NULL },
    { "no-numpy", 0, 0, G_OPTION_ARG_NONE, &no_numpy, "Skip numpy", NULL },
    { "numpy-script", 0, 0, G_OPTION_ARG_FILENAME, &numpy_script, "bench-numpy.py", "PATH" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- benchmark the inductor backend");
  g_autoptr(GError) error = NULL;
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(GHashTable) numpy_ms = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) numpy1_ms = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) numpy2_ms = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto(GStrv) sizes = NULL, graph_names = NULL, layers = NULL;
  gboolean have_numpy = FALSE, with_layer = FALSE;
  g_autoptr(GString) other_graphs = g_string_new (NULL);
  double budget = quick ? 300 : 2000;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  budget = quick ? 300 : 2000;

  if (child != NULL)
    return child_main (registry, child, quick);

  /* the children are this very program */
  self = g_file_read_link ("/proc/self/exe", NULL);
  if (self == NULL)
    self = g_strdup (argv[0]);

  sizes = g_strsplit (size_list, ",", -1);
  graph_names = g_strsplit (graph_list, ",", -1);
  layers = g_strsplit (layer_list, ",", -1);
  for (guint g = 0; graph_names[g] != NULL; g++)
    if (g_str_equal (graph_names[g], "layer"))
      with_layer = TRUE;
    else
      g_string_append_printf (other_graphs, "%s%s", other_graphs->len > 0 ? "," : "",
                              graph_names[g]);

  if (!no_numpy && g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      have_numpy = other_graphs->len == 0 ||
                   run_numpy (numpy_script, other_graphs->str, size_list, layer_list, NULL, quick,
                              numpy_ms, &numpy_version, &numpy_blas);
      /* the layer with numpy's OpenBLAS on 1, then 2 threads */
      if (have_numpy && with_layer)
        have_numpy = run_numpy (numpy_script, "layer", size_list, layer_list, "1", quick,
                                numpy1_ms, &numpy_version, &numpy_blas) &&
                     run_numpy (numpy_script, "layer", size_list, layer_list, "2", quick,
                                numpy2_ms, &numpy_version, &numpy_blas);
    }

  printf ("inductor benchmark: %u cores, numpy %s on %s\n", g_get_num_processors (),
          have_numpy ? numpy_version : "not run", numpy_blas != NULL ? numpy_blas : "-");
  if (numpy_blas != NULL && strstr (numpy_blas, "openblas") == NULL)
    printf ("warning: numpy does not run on OpenBLAS here (install libopenblas0-pthread): its "
            "matmul figures are not the ones to compare with\n");
  printf ("columns: median ms per call | effective GB/s (minimal bytes: inputs read once, outputs\n"
          "written once) | time / hand-fused loop (lower is better) | speed-up over numpy\n");

  for (guint g = 0; graph_names[g] != NULL; g++)
    for (guint s = 0; sizes[s] != NULL && !g_str_equal (graph_names[g], "layer"); s++)
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

  if (with_layer)
    {
      printf ("\ncolumns: median ms per call | GFLOPS | time / numpy's on as many threads "
              "(lower is better)\n");
      for (guint l = 0; layers[l] != NULL; l++)
        bench_layer (registry, self, layers[l], numpy1_ms, numpy2_ms, quick);
    }

  if (sweep)
    bench_sweep (self, quick);

  return 0;
}
