/* test-objects.h: compilers, graphs and tensors that the test programs make
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <reg.h>

/* A compile function that always fails (FAILED, "refused"): tests of the
 * registry only store and hand out compilers. */
static inline RegCompiledFn *
refuse_compile (RegGraph   *graph,
                GPtrArray  *example_inputs,
                GVariant   *options,
                gpointer    user_data,
                GError    **error)
{
  g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED, "refused");
  return NULL;
}

/* The graph of @text, which must parse. */
static inline RegGraph *
graph_new_from_string (const char *text)
{
  g_autoptr(GError) error = NULL;
  RegGraph *graph = reg_graph_new_from_string (text, &error);

  g_assert_no_error (error);
  g_assert_nonnull (graph);

  return graph;
}

/* An empty array of tensors that owns what is added to it. */
static inline GPtrArray *
tensor_array_new (void)
{
  return g_ptr_array_new_with_free_func (g_object_unref);
}

/* A tensor of @shape with elements drawn uniformly from [@low, @high) by
 * the test's random generator (g_test_rand_*: the seed is printed). */
static inline RegTensor *
tensor_new_uniform (const gint64 *shape,
                    guint         n_dims,
                    double        low,
                    double        high)
{
  RegTensor *tensor = reg_tensor_new_uninitialized (shape, n_dims);
  gsize n;
  float *data = reg_tensor_get_data (tensor, &n);

  for (gsize i = 0; i < n; i++)
    data[i] = (float) g_test_rand_double_range (low, high);

  return tensor;
}

/* What one of check_concurrent_calls()'s threads calls, and whether every
 * call gave what a single call gave. */
typedef struct
{
  RegCompiledFn *fn;
  GPtrArray     *inputs;
  GPtrArray     *want;
  gboolean       ok;
} ConcurrentCaller;

static inline gpointer
concurrent_caller_run (gpointer data)
{
  ConcurrentCaller *caller = data;

  caller->ok = TRUE;
  for (guint i = 0; i < 10; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) got = reg_compiled_fn_call (caller->fn, caller->inputs, &error);

      if (got == NULL || got->len != caller->want->len)
        {
          caller->ok = FALSE;
          continue;
        }
      for (guint j = 0; j < got->len; j++)
        {
          g_autoptr(GBytes) a = reg_tensor_dup_bytes (g_ptr_array_index (got, j));
          g_autoptr(GBytes) b = reg_tensor_dup_bytes (g_ptr_array_index (caller->want, j));

          caller->ok &= g_bytes_equal (a, b);
        }
    }

  return NULL;
}

/* A graph for check_concurrent_calls() with an operator of each kind
 * (elementwise, matmul, reduction): inputs x [M, 40] and w [40, 30]. */
static inline RegGraph *
concurrent_calls_graph_new (void)
{
  return graph_new_from_string ("graph(x, w):\n"
                                "  a = exp(x)\n"
                                "  b = mul(a, 0.5)\n"
                                "  c = matmul(b, w)\n"
                                "  d = tanh(c)\n"
                                "  s = sum(d)\n"
                                "  return (d, s)\n");
}

/* Four threads call @fn at once, ten times each: every call gives, bit for
 * bit, what a single call gave.  A backend that declares its functions
 * shareable (the compile cache hands one function to every caller) must
 * pass this. */
static inline void
check_concurrent_calls (RegCompiledFn *fn,
                        GPtrArray     *inputs)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) want = reg_compiled_fn_call (fn, inputs, &error);
  ConcurrentCaller callers[4];
  GThread *threads[4];

  g_assert_no_error (error);
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    {
      callers[t] = (ConcurrentCaller) { fn, inputs, want, FALSE };
      threads[t] = g_thread_new ("caller", concurrent_caller_run, &callers[t]);
    }
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    {
      g_thread_join (threads[t]);
      g_assert_true (callers[t].ok);
    }
}

/* Matmuls of empty operands whose products are not empty, compiled and
 * called on @backend of @registry, as the output and as a temporary
 * summed: a result no tensor can hold is a shape error at compile time;
 * one the system has no memory for is REG_TENSOR_ERROR_NO_MEMORY from the
 * call, naming it; a small one is zeros.  Backends wrote through wild pointers for the first two. */
static inline void
check_matmul_of_empty_operands (RegRegistry *registry,
                                const char  *backend)
{
  static const struct {
    gint64      a[2];
    gint64      b[2];
    const char *error;  /* NULL: the call works */
  } cases[] = {
    { { 2147483647, 0 }, { 0, 2147483649 },
      "node 'c': matmul of [2147483647, 0] and [0, 2147483649]: "
      "the result [2147483647, 2147483649] has more elements than memory can address" },
    { { G_GINT64_CONSTANT (1) << 32, 0 }, { 0, G_GINT64_CONSTANT (1) << 32 },
      "node 'c': matmul of [4294967296, 0] and [0, 4294967296]: "
      "the result [4294967296, 4294967296] has more elements than memory can address" },
    /* 2^48 bytes: more than the address space of an x86-64 process */
    { { G_GINT64_CONSTANT (1) << 23, 0 }, { 0, G_GINT64_CONSTANT (1) << 23 },
      "*node 2*: not enough memory for a tensor of shape [8388608, 8388608]: "
      "281474976710656 bytes (256.0 TiB)" },
    { { 3, 0 }, { 0, 5 }, NULL },
  };
  /* The product as the output, and as a temporary that only its sum
   * reads (the inductor fuses the two into one kernel). */
  static const char *const graphs[] = {
    "graph(a, b):\n"
    "  c = matmul(a, b)\n"
    "  return (c,)\n",
    "graph(a, b):\n"
    "  c = matmul(a, b)\n"
    "  s = sum(c)\n"
    "  return (s,)\n",
  };

  for (guint g = 0; g < G_N_ELEMENTS (graphs); g++)
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autoptr(RegGraph) graph = graph_new_from_string (graphs[g]);
        g_autoptr(GPtrArray) inputs = tensor_array_new ();
        g_autoptr(RegCompiledFn) fn = NULL;
        g_autoptr(GPtrArray) outputs = NULL;
        g_autoptr(GError) error = NULL;
        gboolean summed = g > 0;

        g_ptr_array_add (inputs, reg_tensor_new (cases[i].a, 2));
        g_ptr_array_add (inputs, reg_tensor_new (cases[i].b, 2));

        fn = reg_registry_compile (registry, backend, graph, inputs, NULL, &error);
        if (cases[i].error != NULL && cases[i].error[0] != '*')
          {
            g_assert_null (fn);
            g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE);
            g_assert_cmpstr (error->message, ==, cases[i].error);
            continue;
          }
        g_assert_no_error (error);

        outputs = reg_compiled_fn_call (fn, inputs, &error);
        if (cases[i].error != NULL)
          {
            g_assert_null (outputs);
            g_assert_error (error, REG_TENSOR_ERROR, REG_TENSOR_ERROR_NO_MEMORY);
            if (!g_pattern_match_simple (cases[i].error, error->message))
              g_error ("'%s' does not match '%s'", error->message, cases[i].error);
            continue;
          }

        g_assert_no_error (error);
        g_assert_cmpuint (outputs->len, ==, 1);
        {
          RegTensor *c = g_ptr_array_index (outputs, 0);
          gsize n;
          const float *data = reg_tensor_get_data (c, &n);

          g_assert_cmpuint (n, ==, summed ? 1 : (gsize) (cases[i].a[0] * cases[i].b[1]));
          for (gsize j = 0; j < n; j++)
            g_assert_true (data[j] == 0.0f);
        }
      }
}

/* Fails the test (g_error()) if it is not disarmed within a generous
 * time: a guard against a hang, which would be the failure, never a
 * measure of speed. */
typedef struct
{
  GMutex   mutex;
  GCond    cond;
  gboolean disarmed;
  GThread *thread;
} Watchdog;

#define WATCHDOG_US (120 * G_TIME_SPAN_SECOND)

static inline gpointer
watchdog_run (gpointer data)
{
  Watchdog *dog = data;
  gint64 deadline = g_get_monotonic_time () + WATCHDOG_US;

  g_mutex_lock (&dog->mutex);
  while (!dog->disarmed)
    if (!g_cond_wait_until (&dog->cond, &dog->mutex, deadline))
      g_error ("%s: still not done after %d s: something waits for what cannot come",
               g_test_get_path (), (int) (WATCHDOG_US / G_TIME_SPAN_SECOND));
  g_mutex_unlock (&dog->mutex);

  return NULL;
}

static inline void
watchdog_arm (Watchdog *dog)
{
  g_mutex_init (&dog->mutex);
  g_cond_init (&dog->cond);
  dog->disarmed = FALSE;
  dog->thread = g_thread_new ("watchdog", watchdog_run, dog);
}

static inline void
watchdog_disarm (Watchdog *dog)
{
  g_mutex_lock (&dog->mutex);
  dog->disarmed = TRUE;
  g_cond_signal (&dog->cond);
  g_mutex_unlock (&dog->mutex);
  g_thread_join (dog->thread);
  g_mutex_clear (&dog->mutex);
  g_cond_clear (&dog->cond);
}
