/* test-inductor.c: the inductor backend against the eager reference
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Both backends are loaded as modules through REG_BACKEND_PATH.  The
 * inductor's compiled functions have three read-only properties made for
 * tests and tools (docs/inductor.md): "plan" (the kernels, one per line),
 * "n-kernels" and "optimized-graph" (the graph after the passes); its
 * options "passes" (as) and "vector-math" (b) let each pass and the libm
 * fallback be tested on their own.
 *
 * Tolerances (docs/inductor.md, "Accuracy"; the bounds are those of
 * reg-tolerance.h, which `regctl verify` holds every backend to):
 * - elementwise graphs with vector-math off are bit-identical to eager
 *   (NaN compared as NaN: the payload is not specified);
 * - with vector math, exp and log are within 1 ulp of glibc, sigmoid
 *   within 4 and tanh within 5 (test_math_ulp() checks a sweep), so results
 *   of well-conditioned graphs agree to RTOL/ATOL below;
 * - sum accumulates in double in another order than eager, so it agrees to
 *   a float's last bit; matmul accumulates in float:
 *   |error| <= k * 2^-24 * sum |a||b| (checked with a margin).
 */

#include <math.h>
#include <string.h>

#include <reg.h>

#include "reg-tolerance.h"
#include "test-objects.h"

#define RTOL REG_TOLERANCE_RTOL
#define ATOL REG_TOLERANCE_ATOL

static RegRegistry *registry;

/* Helpers ------------------------------------------------------------- */

static float
random_value (gboolean specials)
{
  static const float special_values[] = {
    NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e30f, -1e30f, 1e-40f, -1e-40f,
    88.7f, -88.7f, 100.0f, -104.0f, 1.0f, -1.0f,
  };

  if (specials && g_test_rand_int_range (0, 8) == 0)
    return special_values[g_test_rand_int_range (0, G_N_ELEMENTS (special_values))];

  return (float) g_test_rand_double_range (-3.0, 3.0);
}

static RegTensor *
tensor_new_random (const gint64 *shape,
                   guint         n_dims,
                   gboolean      specials)
{
  RegTensor *tensor = reg_tensor_new (shape, n_dims);
  gsize n;
  float *data = reg_tensor_get_data (tensor, &n);

  for (gsize i = 0; i < n; i++)
    data[i] = random_value (specials);

  return tensor;
}

/* Options from a GVariant text such as "{'fuse': <false>}" (NULL: none),
 * a full (non-floating) reference. */
static GVariant *
options_parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  GVariant *options;

  if (text == NULL)
    return NULL;

  options = g_variant_parse (G_VARIANT_TYPE_VARDICT, text, NULL, NULL, &error);
  g_assert_no_error (error);

  return options;
}

static RegCompiledFn *
compile_with (const char *backend,
              RegGraph   *graph,
              GPtrArray  *inputs,
              const char *options_text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) options = options_parse (options_text);
  RegCompiledFn *fn;

  fn = reg_registry_compile (registry, backend, graph, inputs, options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (fn);

  return fn;
}

static GPtrArray *
call (RegCompiledFn *fn,
      GPtrArray     *inputs)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *outputs = reg_compiled_fn_call (fn, inputs, &error);

  g_assert_no_error (error);
  g_assert_nonnull (outputs);

  return outputs;
}

static GPtrArray *
run_with (const char *backend,
          RegGraph   *graph,
          GPtrArray  *inputs,
          const char *options_text)
{
  g_autoptr(RegCompiledFn) fn = compile_with (backend, graph, inputs, options_text);

  return call (fn, inputs);
}

static guint
fn_get_n_kernels (RegCompiledFn *fn)
{
  guint n = 0;

  g_object_get (fn, "n-kernels", &n, NULL);
  return n;
}

static char *
fn_dup_optimized_text (RegCompiledFn *fn)
{
  g_autoptr(RegGraph) graph = NULL;

  g_object_get (fn, "optimized-graph", &graph, NULL);
  g_assert_nonnull (graph);

  return reg_graph_to_string (graph);
}

/* The canonical text of @text, to compare with an optimized graph. */
static char *
canonical (const char *text)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (text);

  return reg_graph_to_string (graph);
}

typedef enum {
  COMPARE_EXACT,     /* equal floats, NaN with NaN, +0 apart from -0 */
  COMPARE_CLOSE,     /* RTOL/ATOL, NaN with NaN, infinities equal */
} Compare;

static gboolean
floats_agree (float    got,
              float    want,
              Compare  how,
              double   atol,
              double   rtol)
{
  if (how == COMPARE_EXACT)
    return (isnan (want) && isnan (got)) ||
           (got == want && signbit (got) == signbit (want));

  return _reg_tolerance_floats_agree (got, want, atol, rtol);
}

static void
assert_outputs_agree (GPtrArray  *got,
                      GPtrArray  *want,
                      Compare     how,
                      double      atol,
                      double      rtol,
                      const char *what)
{
  g_assert_cmpuint (got->len, ==, want->len);

  for (guint i = 0; i < want->len; i++)
    {
      RegTensor *g = g_ptr_array_index (got, i), *w = g_ptr_array_index (want, i);
      const gint64 *g_shape, *w_shape;
      guint g_dims, w_dims;
      gsize n;
      const float *gd, *wd;

      g_shape = reg_tensor_get_shape (g, &g_dims);
      w_shape = reg_tensor_get_shape (w, &w_dims);
      g_assert_cmpuint (g_dims, ==, w_dims);
      if (w_dims > 0)
        g_assert_cmpmem (g_shape, g_dims * sizeof (gint64), w_shape, w_dims * sizeof (gint64));

      gd = reg_tensor_get_data (g, &n);
      wd = reg_tensor_get_data (w, NULL);
      for (gsize j = 0; j < n; j++)
        if (!floats_agree (gd[j], wd[j], how, atol, rtol))
          {
            g_test_fail_printf ("%s: output %u element %" G_GSIZE_FORMAT
                                ": inductor %.9g, eager %.9g",
                                what, i, j, gd[j], wd[j]);
            return;
          }
    }
}

/* Runs @graph on @inputs with eager and with inductor under @options and
 * compares. */
static void
check_against_eager (RegGraph   *graph,
                     GPtrArray  *inputs,
                     const char *options,
                     Compare     how,
                     double      atol,
                     double      rtol)
{
  g_autoptr(GPtrArray) want = run_with ("eager", graph, inputs, NULL);
  g_autoptr(GPtrArray) got = run_with ("inductor", graph, inputs, options);

  if (g_test_failed ())
    return;

  if (!g_test_failed ())
    {
      g_autofree char *text = reg_graph_to_string (graph);
      g_autofree char *what = g_strdup_printf ("options %s, graph\n%s", options, text);

      assert_outputs_agree (got, want, how, atol, rtol, what);
    }
}

/* The registry -------------------------------------------------------- */

static void
test_registry_declared (void)
{
  g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, "inductor");
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) compiler = NULL;
  g_auto(GStrv) tags = NULL;
  g_autofree char *description = NULL;

  g_assert_nonnull (info);
  g_object_get (info, "tags", &tags, "description", &description, NULL);
  g_assert_cmpuint (g_strv_length (tags), ==, 0);
  g_assert_cmpstr (description, ==, "Default optimizing compiler");

  compiler = reg_registry_lookup_backend (registry, "inductor", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (reg_compiler_get_name (compiler), ==, "inductor");
}

/* reg_registry_compile (NULL backend) uses the default, the inductor. */
static void
test_registry_default (void)
{
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x):\n  y = relu(x)\n  return (y,)\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(RegCompiledFn) fn = NULL;

  g_ptr_array_add (inputs, tensor_new_random ((const gint64[]) { 3 }, 1, FALSE));
  fn = compile_with (NULL, graph, inputs, NULL);
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (fn), ==, "RegInductorFn");
}

/* Options ------------------------------------------------------------- */

static void
test_options_good (void)
{
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x):\n  y = exp(x)\n  return (y,)\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  const char *good[] = {
    "@a{sv} {}",
    "{'fuse': <false>}",
    "{'fuse': <true>, 'block-size': <uint32 7>, 'threads': <uint32 2>}",
    "{'threads': <uint32 0>}",
    "{'vector-math': <false>}",
    "{'passes': <@as []>}",
    "{'passes': <['fold', 'simplify', 'cse', 'dce']>}",
    "{'matmul': <'auto'>}",
    "{'matmul': <'blas'>}",
    "{'matmul': <'in-tree'>}",
  };

  g_ptr_array_add (inputs, tensor_new_random ((const gint64[]) { 5 }, 1, FALSE));
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(RegCompiledFn) fn = compile_with ("inductor", graph, inputs, good[i]);
      g_autoptr(GPtrArray) outputs = call (fn, inputs);

      g_assert_cmpuint (outputs->len, ==, 1);
    }
}

static void
test_options_bad (void)
{
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x):\n  y = exp(x)\n  return (y,)\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  const struct
  {
    const char *options;
    const char *key;
  } bad[] = {
    { "{'fusion': <true>}", "'fusion'" },
    { "{'fuse': <1>}", "'fuse'" },
    { "{'fuse': <true>, 'block_size': <uint32 8>}", "'block_size'" },
    { "{'block-size': <8>}", "'block-size'" },
    { "{'block-size': <uint32 0>}", "'block-size'" },
    { "{'threads': <'2'>}", "'threads'" },
    { "{'threads': <uint32 100000>}", "'threads'" },
    { "{'vector-math': <uint32 1>}", "'vector-math'" },
    { "{'passes': <['fold', 'inline']>}", "'passes'" },
    { "{'passes': <'fold'>}", "'passes'" },
    { "{'matmul': <'openblas'>}", "'matmul'" },
    { "{'matmul': <true>}", "'matmul'" },
  };

  g_ptr_array_add (inputs, tensor_new_random ((const gint64[]) { 5 }, 1, FALSE));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GVariant) options = options_parse (bad[i].options);
      g_autoptr(RegCompiledFn) fn = NULL;

      fn = reg_registry_compile (registry, "inductor", graph, inputs, options, &error);
      g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
      g_assert_null (fn);
      g_assert_nonnull (strstr (error->message, bad[i].key));
    }
}

/* inductor.backend declares the options, and the schema's checks speak for
 * the backend: a close key is suggested, types and ranges are named. */
static void
test_options_messages (void)
{
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x):\n  y = exp(x)\n  return (y,)\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  const struct
  {
    const char *options;
    const char *message;
  } bad[] = {
    { "{'thread': <uint32 2>}",
      "unknown option 'thread' for backend 'inductor', did you mean 'threads'?" },
    { "{'threads': <2>}",
      "option 'threads' for backend 'inductor' must be of type uint32 ('u'), not int32 ('i')" },
    { "{'threads': <uint32 257>}",
      "option 'threads' for backend 'inductor' must be between 0 and 256, not 257" },
    { "{'block-size': <uint32 0>}",
      "option 'block-size' for backend 'inductor' must be between 1 and 4194304, not 0" },
    { "{'passes': <['fold', 'inline']>}",
      "option 'passes' for backend 'inductor' holds 'inline', which is not one of 'fold', 'simplify', 'cse', 'dce'" },
  };

  g_ptr_array_add (inputs, tensor_new_random ((const gint64[]) { 5 }, 1, FALSE));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GVariant) options = options_parse (bad[i].options);
      g_autoptr(RegCompiledFn) fn = NULL;

      fn = reg_registry_compile (registry, "inductor", graph, inputs, options, &error);
      g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
      g_assert_null (fn);
      g_assert_cmpstr (error->message, ==, bad[i].message);
    }
}

/* A key given twice is refused: inductor would read its first value, and
 * the compile cache must not file the compile under another. */
static void
test_options_repeated_key (void)
{
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x):\n  y = exp(x)\n  return (y,)\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GVariant) twice = options_parse ("{'vector-math': <false>, 'vector-math': <true>}");
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(RegCompiledFn) vector = NULL;
  g_autoptr(RegCompiledFn) exact = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (inputs, tensor_new_random ((const gint64[]) { 5 }, 1, FALSE));
  fn = reg_registry_compile (registry, "inductor", graph, inputs, twice, &error);
  g_assert_null (fn);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
  g_assert_cmpstr (error->message, ==, "option 'vector-math' for backend 'inductor' is given twice");

  vector = compile_with ("inductor", graph, inputs, "{'vector-math': <true>}");
  exact = compile_with ("inductor", graph, inputs, "{'vector-math': <false>}");
  g_assert_true (vector != exact);
}

/* Passes, each on its own --------------------------------------------- */

typedef struct
{
  const char *name;
  const char *passes;    /* the "passes" option */
  const char *before;
  const char *after;
} PassCase;

static const PassCase pass_cases[] = {
  {
    "fold", "['fold']",
    "graph(x):\n"
    "  a = add(1.5, 2)\n"
    "  b = exp(0)\n"
    "  c = mul(a, b)\n"
    "  d = neg(c)\n"
    "  e = mul(x, d)\n"
    "  f = sum(2)\n"
    "  g = sqrt(-1)\n"
    "  return (e, f, g, c)\n",
    "graph(x):\n"
    "  e = mul(x, -3.5)\n"
    "  return (e, 2, nan, 3.5)\n",
  },
  {
    /* exact rewrites only: x + 0, x * 0, x - x, x * -1 stay */
    "simplify", "['simplify']",
    "graph(x, y):\n"
    "  a = neg(x)\n"
    "  b = neg(a)\n"
    "  c = mul(b, 1)\n"
    "  d = mul(1, c)\n"
    "  e = div(d, 1)\n"
    "  f = add(e, -0.0)\n"
    "  g = sub(f, 0)\n"
    "  h = abs(a)\n"
    "  i = abs(h)\n"
    "  j = relu(y)\n"
    "  k = relu(j)\n"
    "  l = maximum(k, k)\n"
    "  m = add(g, 0)\n"
    "  n = mul(m, 0)\n"
    "  o = sub(n, n)\n"
    "  p = mul(o, -1)\n"
    "  return (g, i, l, p)\n",
    "graph(x, y):\n"
    "  a = neg(x)\n"
    "  h = abs(x)\n"
    "  j = relu(y)\n"
    "  m = add(x, 0)\n"
    "  n = mul(m, 0)\n"
    "  o = sub(n, n)\n"
    "  p = mul(o, -1)\n"
    "  return (x, h, j, p)\n",
  },
  {
    /* commutative operators match with their arguments swapped */
    "cse", "['cse']",
    "graph(x, y):\n"
    "  a = mul(x, y)\n"
    "  b = mul(y, x)\n"
    "  c = sub(x, y)\n"
    "  d = sub(y, x)\n"
    "  e = exp(a)\n"
    "  f = exp(b)\n"
    "  g = add(e, 2)\n"
    "  h = add(2, f)\n"
    "  i = maximum(c, d)\n"
    "  return (g, h, i)\n",
    "graph(x, y):\n"
    "  a = mul(x, y)\n"
    "  c = sub(x, y)\n"
    "  d = sub(y, x)\n"
    "  e = exp(a)\n"
    "  g = add(e, 2)\n"
    "  i = maximum(c, d)\n"
    "  return (g, g, i)\n",
  },
  {
    /* inputs stay: they are the function's signature */
    "dce", "['dce']",
    "graph(x, y, z):\n"
    "  a = exp(x)\n"
    "  b = log(y)\n"
    "  c = add(b, 1)\n"
    "  d = mul(a, 2)\n"
    "  return (d,)\n",
    "graph(x, y, z):\n"
    "  a = exp(x)\n"
    "  d = mul(a, 2)\n"
    "  return (d,)\n",
  },
  {
    "none", "@as []",
    "graph(x):\n"
    "  a = add(1, 2)\n"
    "  b = neg(x)\n"
    "  c = neg(b)\n"
    "  d = neg(b)\n"
    "  e = exp(x)\n"
    "  return (c, d)\n",
    "graph(x):\n"
    "  a = add(1, 2)\n"
    "  b = neg(x)\n"
    "  c = neg(b)\n"
    "  d = neg(b)\n"
    "  e = exp(x)\n"
    "  return (c, d)\n",
  },
  {
    /* together: folding feeds simplification (x * (3 - 2) is x), which
     * feeds CSE, which leaves dead code */
    "all", "['fold', 'simplify', 'cse', 'dce']",
    "graph(x, y):\n"
    "  one = sub(3, 2)\n"
    "  a = mul(x, one)\n"
    "  b = add(a, y)\n"
    "  c = add(y, x)\n"
    "  d = tanh(b)\n"
    "  e = tanh(c)\n"
    "  f = sub(d, e)\n"
    "  dead = exp(f)\n"
    "  return (f,)\n",
    "graph(x, y):\n"
    "  b = add(x, y)\n"
    "  d = tanh(b)\n"
    "  f = sub(d, d)\n"
    "  return (f,)\n",
  },
};

static void
test_pass (gconstpointer data)
{
  const PassCase *pc = data;
  g_autoptr(RegGraph) graph = graph_new_from_string (pc->before);
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autofree char *options = g_strdup_printf ("{'passes': <%s>}", pc->passes);
  g_autofree char *got = NULL, *want = NULL;
  guint n_inputs;

  /* 0-d inputs: the shape rules then let folded operators meet inputs */
  reg_graph_get_inputs (graph, &n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    g_ptr_array_add (inputs, tensor_new_random (NULL, 0, TRUE));

  fn = compile_with ("inductor", graph, inputs, options);
  got = fn_dup_optimized_text (fn);
  want = canonical (pc->after);
  g_assert_cmpstr (got, ==, want);

  /* and the result is still eager's */
  check_against_eager (graph, inputs, options, COMPARE_CLOSE, ATOL, RTOL);
}

static void
test_optimized_graph_built_once (void)
{
  /* The source mixes named and unnamed calls; CSE merges b into a, DCE
   * drops d, and an output is a constant. */
  g_autoptr(RegGraph) graph = reg_graph_new ();
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(RegGraph) first = NULL, second = NULL, parsed = NULL;
  g_autoptr(GPtrArray) want = NULL, got = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  static const char expected[] =
    "graph(x, y):\n"
    "  a = add(x, y)\n"
    "  _5 = mul(a, 2.5)\n"
    "  return (_5, a, 0.5)\n";
  guint x, y, a, b, k, c, outputs[3];

  x = reg_graph_add_input (graph, "x");
  y = reg_graph_add_input (graph, "y");
  a = reg_graph_add_op (graph, "add", (guint[]) { x, y }, 2, &error);
  g_assert_true (reg_graph_set_node_name (graph, a, "a", &error));
  b = reg_graph_add_op (graph, "add", (guint[]) { y, x }, 2, &error);
  k = reg_graph_add_constant (graph, 2.5);
  c = reg_graph_add_op (graph, "mul", (guint[]) { b, k }, 2, &error);
  g_assert_cmpuint (c, ==, 5);
  g_assert_true (reg_graph_set_node_name (graph, reg_graph_add_op (graph, "exp", &x, 1, &error),
                                          "d", &error));
  g_assert_no_error (error);
  outputs[0] = c, outputs[1] = a, outputs[2] = reg_graph_add_constant (graph, 0.5);
  reg_graph_set_outputs (graph, outputs, 3);

  g_ptr_array_add (inputs, tensor_new_random ((const gint64[]) { 7 }, 1, FALSE));
  g_ptr_array_add (inputs, tensor_new_random ((const gint64[]) { 7 }, 1, FALSE));
  fn = compile_with ("inductor", graph, inputs, NULL);

  /* Built once, when compiling: every read is the same graph. */
  g_object_get (fn, "optimized-graph", &first, NULL);
  g_object_get (fn, "optimized-graph", &second, NULL);
  g_assert_nonnull (first);
  g_assert_true (first == second);

  text = reg_graph_to_string (first);
  g_assert_cmpstr (text, ==, expected);
  g_assert_true (reg_graph_validate (first, NULL));

  /* Node for node, the graph that parsing its text gives. */
  parsed = graph_new_from_string (expected);
  g_assert_cmpuint (reg_graph_get_n_nodes (first), ==, reg_graph_get_n_nodes (parsed));
  for (guint id = 0; id < reg_graph_get_n_nodes (parsed); id++)
    {
      const guint *first_args, *parsed_args;
      guint n_first, n_parsed;

      g_assert_cmpint (reg_graph_get_node_kind (first, id), ==, reg_graph_get_node_kind (parsed, id));
      g_assert_cmpstr (reg_graph_get_node_name (first, id), ==, reg_graph_get_node_name (parsed, id));
      first_args = reg_graph_get_node_args (first, id, &n_first);
      parsed_args = reg_graph_get_node_args (parsed, id, &n_parsed);
      g_assert_cmpmem (first_args, n_first * sizeof (guint), parsed_args, n_parsed * sizeof (guint));
      if (reg_graph_get_node_kind (parsed, id) == REG_NODE_OP)
        g_assert_cmpint (reg_graph_get_node_operator (first, id), ==,
                         reg_graph_get_node_operator (parsed, id));
      else if (reg_graph_get_node_kind (parsed, id) == REG_NODE_CONSTANT)
        g_assert_cmpfloat (reg_graph_get_node_value (first, id), ==,
                           reg_graph_get_node_value (parsed, id));
    }

  /* And it computes what the source does. */
  want = run_with ("eager", graph, inputs, NULL);
  got = run_with ("eager", first, inputs, NULL);
  assert_outputs_agree (got, want, COMPARE_EXACT, 0, 0, "optimized graph under eager");
}

/* Fusion -------------------------------------------------------------- */

typedef struct
{
  const char *name;
  const char *graph;
  gint64      n;             /* inputs are [n] (or matrices, see below) */
  guint       fused;         /* kernels with fuse on */
  guint       unfused;       /* kernels with fuse off */
} FusionCase;

static const FusionCase fusion_cases[] = {
  {
    /* the benchmark's chain: 7 elementwise operators, one pass */
    "chain", "graph(x, a, b):\n"
    "  t0 = mul(x, a)\n"
    "  t1 = add(t0, b)\n"
    "  t2 = relu(t1)\n"
    "  t3 = sigmoid(x)\n"
    "  t4 = mul(t2, t3)\n"
    "  t5 = tanh(b)\n"
    "  y = add(t4, t5)\n"
    "  return (y,)\n", 1000, 1, 7,
  },
  {
    /* a tree with constants and two outputs from the same pass */
    "tree", "graph(x, y):\n"
    "  a = mul(x, 2)\n"
    "  b = sub(1, y)\n"
    "  c = maximum(a, b)\n"
    "  d = exp(c)\n"
    "  e = minimum(a, d)\n"
    "  return (d, e)\n", 333, 1, 5,
  },
  {
    /* the sum is computed in the pass that makes its argument */
    "sum", "graph(x, a):\n"
    "  e = exp(x)\n"
    "  p = mul(e, a)\n"
    "  s = sum(p)\n"
    "  return (s,)\n", 4097, 1, 3,
  },
  {
    /* 0-d work after a sum is a second pass; two sums of one pass */
    "sum-then-scalar", "graph(x):\n"
    "  s = sum(x)\n"
    "  q = mul(x, x)\n"
    "  t = sum(q)\n"
    "  m = div(s, 100)\n"
    "  v = sub(t, m)\n"
    "  r = sqrt(v)\n"
    "  return (r, s)\n", 100, 2, 6,
  },
};

static void
test_fusion (gconstpointer data)
{
  const FusionCase *fc = data;
  g_autoptr(RegGraph) graph = graph_new_from_string (fc->graph);
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(RegCompiledFn) fused = NULL, unfused = NULL;
  guint n_inputs;

  reg_graph_get_inputs (graph, &n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { fc->n }, 1, 0.0, 2.0));

  fused = compile_with ("inductor", graph, inputs, NULL);
  unfused = compile_with ("inductor", graph, inputs, "{'fuse': <false>}");
  g_assert_cmpuint (fn_get_n_kernels (fused), ==, fc->fused);
  g_assert_cmpuint (fn_get_n_kernels (unfused), ==, fc->unfused);

  check_against_eager (graph, inputs, NULL, COMPARE_CLOSE, ATOL, RTOL);
  check_against_eager (graph, inputs, "{'fuse': <false>}", COMPARE_CLOSE, ATOL, RTOL);
  check_against_eager (graph, inputs, "{'block-size': <uint32 7>}", COMPARE_CLOSE, ATOL, RTOL);
}

/* Two layers: each matmul is fused with what follows it (bias,
 * activation, and the final sum with the sigmoid): two kernels, four
 * without fusion. */
static void
test_fusion_mlp (void)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (
    "graph(x, w1, b1, w2, b2):\n"
    "  h = matmul(x, w1)\n"
    "  h_bias = add(h, b1)\n"
    "  h_act = relu(h_bias)\n"
    "  out = matmul(h_act, w2)\n"
    "  logits = add(out, b2)\n"
    "  probs = sigmoid(logits)\n"
    "  loss = sum(probs)\n"
    "  return (probs, loss)\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(RegCompiledFn) unfused = NULL;
  g_autofree char *plan = NULL;

  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 9, 5 }, 2, -1, 1));
  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 5, 6 }, 2, -1, 1));
  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 9, 6 }, 2, -1, 1));
  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 6, 3 }, 2, -1, 1));
  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 9, 3 }, 2, -1, 1));

  fn = compile_with ("inductor", graph, inputs, NULL);
  g_assert_cmpuint (fn_get_n_kernels (fn), ==, 2);
  unfused = compile_with ("inductor", graph, inputs, "{'fuse': <false>}");
  g_assert_cmpuint (fn_get_n_kernels (unfused), ==, 7);

  /* h and out live in panels of rows only, h_bias and logits in block
   * buffers */
  g_object_get (fn, "plan", &plan, NULL);
  g_assert_nonnull (strstr (plan, "kernel 0: 3 ops over 54 elements, 1 block buffer: "
                                  "h=matmul(x,w1) h_bias=add(h,b1) *h_act=relu(h_bias)\n"));
  g_assert_nonnull (strstr (plan, "kernel 1: 4 ops over 27 elements, 1 block buffer: "
                                  "out=matmul(h_act,w2) logits=add(out,b2) *probs=sigmoid(logits) "
                                  "*loss=sum(probs)\n"));

  check_against_eager (graph, inputs, NULL, COMPARE_CLOSE, 1e-5, 1e-5);
  check_against_eager (graph, inputs, "{'fuse': <false>, 'threads': <uint32 3>}",
                       COMPARE_CLOSE, 1e-5, 1e-5);
  /* in-tree panels of 4 rows (4, 4 and 1) for h, of 8 rows (8 and 1) for
   * out, blocks that do not end with a row */
  check_against_eager (graph, inputs, "{'block-size': <uint32 24>, 'threads': <uint32 2>}",
                       COMPARE_CLOSE, 1e-5, 1e-5);
  check_against_eager (graph, inputs, "{'block-size': <uint32 24>, 'matmul': <'in-tree'>}",
                       COMPARE_CLOSE, 1e-5, 1e-5);
  check_against_eager (graph, inputs, "{'block-size': <uint32 24>, 'matmul': <'blas'>}",
                       COMPARE_CLOSE, 1e-5, 1e-5);
  /* a block smaller than 4 rows of 6: panels still of 4 rows, each
   * product still fused with its epilogue */
  g_clear_object (&fn);
  fn = compile_with ("inductor", graph, inputs, "{'block-size': <uint32 23>}");
  g_assert_cmpuint (fn_get_n_kernels (fn), ==, 2);
  check_against_eager (graph, inputs, "{'block-size': <uint32 23>}", COMPARE_CLOSE, 1e-5, 1e-5);
  check_against_eager (graph, inputs, "{'block-size': <uint32 5>, 'matmul': <'in-tree'>}",
                       COMPARE_CLOSE, 1e-5, 1e-5);
}

/* Epilogue fusion: the elementwise kernel that reads a matmul's result
 * takes the matmul in, whatever else reads the product (an output, a sum,
 * another matmul), on row counts that are not multiples of the rows of a
 * block, down to one row of one element, and with no rows at all. */
static void
test_fusion_matmul_epilogue (void)
{
  static const struct {
    const char *text;
    guint       fused, unfused;   /* kernels */
    const char *plan;             /* in the fused plan */
  } graphs[] = {
    { "graph(x, w, b):\n  h = matmul(x, w)\n  c = add(h, b)\n  y = relu(c)\n  return (y,)\n",
      1, 3, "kernel 0: 3 ops over " },
    /* the product is an output too, and read by a sum; the sum by a scalar */
    { "graph(x, w, b):\n  h = matmul(x, w)\n  c = mul(h, b)\n  y = tanh(c)\n  s = sum(h)\n"
      "  t = mul(s, 2)\n  return (h, y, t)\n",
      2, 5, "*h=matmul(x,w) c=mul(h,b) *y=tanh(c) *s=sum(h)\nkernel 1: 1 op over 1 element" },
    /* two products added: one matmul stays apart */
    { "graph(x, w, b):\n  h = matmul(x, w)\n  g = matmul(x, b)\n  y = add(h, g)\n"
      "  return (y,)\n",
      2, 3, "kernel 0: matmul g = x " },
    /* the product read by a later matmul keeps its memory */
    { "graph(x, w, b):\n  h = matmul(x, w)\n  y = exp(h)\n  z = matmul(h, b)\n"
      "  return (y, z)\n",
      2, 3, "kernel 0: 2 ops over " },
  };
  /* m, k, n: x [m, k], w [k, n], b as each graph needs */
  static const gint64 shapes[][3] = {
    { 1, 1, 1 }, { 9, 5, 6 }, { 37, 3, 4 }, { 130, 17, 16 }, { 5, 64, 64 }, { 0, 3, 2 },
  };
  static const char * const options[] = {
    NULL,
    "{'block-size': <uint32 4>}",
    "{'block-size': <uint32 24>, 'threads': <uint32 3>}",
    "{'block-size': <uint32 100>, 'threads': <uint32 2>}",
    "{'fuse': <false>}",
  };

  for (guint g = 0; g < G_N_ELEMENTS (graphs); g++)
    for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
      {
        g_autoptr(RegGraph) graph = graph_new_from_string (graphs[g].text);
        g_autoptr(GPtrArray) inputs = tensor_array_new ();
        gint64 m = shapes[i][0], k = shapes[i][1], n = shapes[i][2];
        double atol = 4 * (double) k * k * 6e-8 + (double) m * n * 1e-6;

        g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { m, k }, 2, -1, 1));
        g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { k, n }, 2, -1, 1));
        g_ptr_array_add (inputs, tensor_new_uniform (g == 0 || g == 1
                                                     ? (const gint64[]) { m, n }
                                                     : (const gint64[]) { k, n }, 2, -1, 1));
        if (g == 3)
          {
            /* z = h b needs b [n, p] */
            g_ptr_array_set_size (inputs, 2);
            g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { n, 3 }, 2, -1, 1));
          }

        if (m > 0)
          {
            g_autoptr(RegCompiledFn) fn = compile_with ("inductor", graph, inputs, NULL);
            g_autoptr(RegCompiledFn) unfused = compile_with ("inductor", graph, inputs,
                                                             "{'fuse': <false>}");
            g_autofree char *plan = NULL;

            g_object_get (fn, "plan", &plan, NULL);
            g_test_message ("graph %u, [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "] x [%"
                            G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]:\n%s",
                            g, m, k, k, n, plan);
            g_assert_cmpuint (fn_get_n_kernels (fn), ==, graphs[g].fused);
            g_assert_cmpuint (fn_get_n_kernels (unfused), ==, graphs[g].unfused);
            g_assert_nonnull (strstr (plan, graphs[g].plan));
          }

        for (guint o = 0; o < G_N_ELEMENTS (options); o++)
          check_against_eager (graph, inputs, options[o], COMPARE_CLOSE, atol, 1e-5);
      }
}

/* The plan is logged with g_debug() when compiling. */
static void
test_fusion_debug_plan (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(RegGraph) graph = graph_new_from_string (
        "graph(x):\n  a = exp(x)\n  b = add(a, 1)\n  return (b,)\n");
      g_autoptr(GPtrArray) inputs = tensor_array_new ();
      g_autoptr(RegCompiledFn) fn = NULL;

      g_setenv ("G_MESSAGES_DEBUG", "Reg", TRUE);
      g_ptr_array_add (inputs, tensor_new_random ((const gint64[]) { 4 }, 1, FALSE));
      fn = compile_with ("inductor", graph, inputs, NULL);
      return;
    }

  g_test_trap_subprocess (NULL, 0, 0);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("*inductor: 1 kernel (fuse on, block size 512, 1 thread,*"
                             "kernel 0: 2 ops over 4 elements, 1 block buffer: a=exp(x) *b=add(a,1)*");
}

/* Random graphs against eager ----------------------------------------- */

static const char * const unary_ops[] = {
  "neg", "relu", "exp", "log", "sqrt", "tanh", "sigmoid", "abs",
};
static const char * const binary_ops[] = {
  "add", "sub", "mul", "div", "maximum", "minimum",
};
static const float constants[] = {
  0.5f, -1.25f, 2.0f, 1.0f, 0.0f, -0.0f, 1e-3f, NAN, INFINITY,
};

/* Adds @n_ops random elementwise operators over the tensor nodes in
 * @tensors (appending the new ones), with constants on either side of a
 * third of the binary ones, and now and then a pattern a pass rewrites. */
static void
add_random_elementwise (RegGraph   *graph,
                        GArray     *tensors,
                        guint       n_ops,
                        const char * const *unary,
                        guint       n_unary,
                        const char * const *binary,
                        guint       n_binary,
                        gboolean    special_constants)
{
  for (guint i = 0; i < n_ops; i++)
    {
      g_autoptr(GError) error = NULL;
      guint args[2], id;
      guint n_args;
      const char *op;

      args[0] = g_array_index (tensors, guint, g_test_rand_int_range (0, tensors->len));
      switch (g_test_rand_int_range (0, 10))
        {
        case 0:
          /* the same operator on the same value again: CSE */
          op = unary[g_test_rand_int_range (0, n_unary)];
          id = reg_graph_add_op (graph, op, args, 1, &error);
          g_assert_no_error (error);
          g_array_append_val (tensors, id);
          n_args = 1;
          break;
        case 1:
          /* neg (neg (x)) or x * 1: simplification */
          if (g_test_rand_bit ())
            {
              id = reg_graph_add_op (graph, "neg", args, 1, &error);
              g_assert_no_error (error);
              args[0] = id;
              op = "neg";
              n_args = 1;
            }
          else
            {
              args[1] = reg_graph_add_constant (graph, 1.0);
              op = "mul";
              n_args = 2;
            }
          break;
        default:
          if (g_test_rand_bit ())
            {
              op = unary[g_test_rand_int_range (0, n_unary)];
              n_args = 1;
            }
          else
            {
              op = binary[g_test_rand_int_range (0, n_binary)];
              n_args = 2;
              if (g_test_rand_int_range (0, 3) == 0)
                {
                  guint n_constants = special_constants ? G_N_ELEMENTS (constants)
                                                        : G_N_ELEMENTS (constants) - 2;

                  args[1] = reg_graph_add_constant (graph,
                                                    constants[g_test_rand_int_range (0, n_constants)]);
                  if (g_test_rand_bit ())
                    {
                      guint t = args[0];

                      args[0] = args[1];
                      args[1] = t;
                    }
                }
              else
                args[1] = g_array_index (tensors, guint, g_test_rand_int_range (0, tensors->len));
            }
        }

      id = reg_graph_add_op (graph, op, args, n_args, &error);
      g_assert_no_error (error);
      g_array_append_val (tensors, id);
    }
}

static void
set_random_outputs (RegGraph *graph,
                    GArray   *tensors)
{
  guint outputs[4];
  guint n = g_test_rand_int_range (1, 4);

  /* the last node, then any (an input or a repeat now and then) */
  outputs[0] = g_array_index (tensors, guint, tensors->len - 1);
  for (guint i = 1; i < n; i++)
    outputs[i] = g_array_index (tensors, guint, g_test_rand_int_range (0, tensors->len));
  reg_graph_set_outputs (graph, outputs, n);
}

static const char * const option_sets[] = {
  NULL,
  "{'fuse': <false>}",
  "{'block-size': <uint32 1>}",
  "{'block-size': <uint32 7>, 'threads': <uint32 2>}",
  "{'block-size': <uint32 64>, 'threads': <uint32 3>}",
  "{'passes': <@as []>}",
  "{'passes': <@as []>, 'fuse': <false>, 'block-size': <uint32 5>}",
};

static const gint64 random_shapes[][3] = {
  /* n_dims, dims... */
  { 0 }, { 1, 1 }, { 1, 5 }, { 2, 3, 7 }, { 1, 64 }, { 1, 1001 }, { 2, 65, 2 }, { 1, 0 },
};

/* Elementwise trees with every operator, NaN, infinities and signed zeros
 * among inputs and constants, libm math: bit-identical to eager. */
static void
test_random_elementwise_exact (void)
{
  for (guint iteration = 0; iteration < 60; iteration++)
    {
      g_autoptr(RegGraph) graph = reg_graph_new ();
      g_autoptr(GPtrArray) inputs = tensor_array_new ();
      g_autoptr(GArray) tensors = g_array_new (FALSE, FALSE, sizeof (guint));
      const gint64 *shape = random_shapes[iteration % G_N_ELEMENTS (random_shapes)];
      guint n_inputs = g_test_rand_int_range (1, 4);

      for (guint i = 0; i < n_inputs; i++)
        {
          g_autofree char *name = g_strdup_printf ("x%u", i);
          guint id = reg_graph_add_input (graph, name);

          g_array_append_val (tensors, id);
          g_ptr_array_add (inputs, tensor_new_random (shape + 1, shape[0], TRUE));
        }
      add_random_elementwise (graph, tensors, g_test_rand_int_range (1, 20),
                              unary_ops, G_N_ELEMENTS (unary_ops),
                              binary_ops, G_N_ELEMENTS (binary_ops), TRUE);
      set_random_outputs (graph, tensors);

      for (guint o = 0; o < G_N_ELEMENTS (option_sets); o++)
        {
          g_autofree char *options = NULL;

          if (option_sets[o] == NULL)
            options = g_strdup ("{'vector-math': <false>}");
          else
            options = g_strdup_printf ("{'vector-math': <false>, %s", option_sets[o] + 1);
          check_against_eager (graph, inputs, options, COMPARE_EXACT, 0, 0);
          if (g_test_failed ())
            return;
        }
    }
}

/* With the vector math, on graphs whose values stay moderate (no division,
 * log or subtraction, exp only of bounded values): within RTOL/ATOL. */
static void
test_random_elementwise_vector (void)
{
  static const char * const bounded_unary[] = { "neg", "relu", "tanh", "sigmoid", "abs", "sqrt" };
  static const char * const bounded_binary[] = { "add", "mul", "maximum", "minimum" };

  for (guint iteration = 0; iteration < 60; iteration++)
    {
      g_autoptr(RegGraph) graph = reg_graph_new ();
      g_autoptr(GPtrArray) inputs = tensor_array_new ();
      g_autoptr(GArray) tensors = g_array_new (FALSE, FALSE, sizeof (guint));
      const gint64 *shape = random_shapes[iteration % G_N_ELEMENTS (random_shapes)];
      guint n_inputs = g_test_rand_int_range (1, 4);

      for (guint i = 0; i < n_inputs; i++)
        {
          g_autofree char *name = g_strdup_printf ("x%u", i);
          g_autoptr(GError) error = NULL;
          guint id = reg_graph_add_input (graph, name);

          g_array_append_val (tensors, id);
          g_ptr_array_add (inputs, tensor_new_uniform (shape + 1, shape[0], -1, 1));

          /* exp and log of bounded, positive values */
          id = reg_graph_add_op (graph, g_test_rand_bit () ? "exp" : "sigmoid", &id, 1, &error);
          g_assert_no_error (error);
          id = reg_graph_add_op (graph, "log", &id, 1, &error);
          g_assert_no_error (error);
          g_array_append_val (tensors, id);
        }
      add_random_elementwise (graph, tensors, g_test_rand_int_range (1, 12),
                              bounded_unary, G_N_ELEMENTS (bounded_unary),
                              bounded_binary, G_N_ELEMENTS (bounded_binary), FALSE);
      /* and once more bounded, then exp */
      {
        g_autoptr(GError) error = NULL;
        guint last = g_array_index (tensors, guint, tensors->len - 1);

        last = reg_graph_add_op (graph, "tanh", &last, 1, &error);
        last = reg_graph_add_op (graph, "exp", &last, 1, &error);
        g_assert_no_error (error);
        g_array_append_val (tensors, last);
      }
      set_random_outputs (graph, tensors);

      for (guint o = 0; o < G_N_ELEMENTS (option_sets); o++)
        {
          check_against_eager (graph, inputs, option_sets[o], COMPARE_CLOSE, ATOL, RTOL);
          if (g_test_failed ())
            return;
        }
    }
}

/* Sums of random trees, and 0-d arithmetic on the sums.  The sums agree
 * to their last bit, and a sum of a thousand elements reaches the
 * hundreds: exp of it (or of a product of two) would turn that last bit
 * into a relative error of 1e-5 and more, so exp is left out of the
 * arithmetic on the sums (the other operators keep a relative error of a
 * few ulp, or saturate). */
static void
test_random_reductions (void)
{
  static const char * const bounded_unary[] = { "neg", "relu", "tanh", "sigmoid", "abs", "exp" };
  static const char * const scalar_unary[] = { "neg", "relu", "tanh", "sigmoid", "abs" };
  static const char * const bounded_binary[] = { "add", "mul", "maximum", "minimum", "sub" };

  for (guint iteration = 0; iteration < 40; iteration++)
    {
      g_autoptr(RegGraph) graph = reg_graph_new ();
      g_autoptr(GPtrArray) inputs = tensor_array_new ();
      g_autoptr(GArray) tensors = g_array_new (FALSE, FALSE, sizeof (guint));
      g_autoptr(GArray) scalars = g_array_new (FALSE, FALSE, sizeof (guint));
      const gint64 *shape = random_shapes[iteration % G_N_ELEMENTS (random_shapes)];
      guint n_inputs = g_test_rand_int_range (1, 3);
      guint n_sums = g_test_rand_int_range (1, 4);

      for (guint i = 0; i < n_inputs; i++)
        {
          g_autofree char *name = g_strdup_printf ("x%u", i);
          guint id = reg_graph_add_input (graph, name);

          g_array_append_val (tensors, id);
          g_ptr_array_add (inputs, tensor_new_uniform (shape + 1, shape[0], -1, 1));
        }
      add_random_elementwise (graph, tensors, g_test_rand_int_range (1, 8),
                              bounded_unary, G_N_ELEMENTS (bounded_unary),
                              bounded_binary, G_N_ELEMENTS (bounded_binary), FALSE);

      for (guint i = 0; i < n_sums; i++)
        {
          g_autoptr(GError) error = NULL;
          guint arg = g_array_index (tensors, guint, g_test_rand_int_range (0, tensors->len));
          guint id = reg_graph_add_op (graph, "sum", &arg, 1, &error);

          g_assert_no_error (error);
          g_array_append_val (scalars, id);
        }
      add_random_elementwise (graph, scalars, g_test_rand_int_range (0, 5),
                              scalar_unary, G_N_ELEMENTS (scalar_unary),
                              bounded_binary, G_N_ELEMENTS (bounded_binary), FALSE);
      set_random_outputs (graph, scalars);

      for (guint o = 0; o < G_N_ELEMENTS (option_sets); o++)
        {
          check_against_eager (graph, inputs, option_sets[o], COMPARE_CLOSE, ATOL, RTOL);
          if (g_test_failed ())
            return;
        }
    }
}

/* Matmuls with elementwise work before and after. */
static void
test_random_matmul (void)
{
  static const gint64 dims[] = { 1, 2, 3, 4, 5, 7, 17, 33, 64, 65, 70 };

  for (guint iteration = 0; iteration < 30; iteration++)
    {
      g_autoptr(RegGraph) graph = reg_graph_new ();
      g_autoptr(GPtrArray) inputs = tensor_array_new ();
      g_autoptr(GError) error = NULL;
      gint64 m = dims[g_test_rand_int_range (0, G_N_ELEMENTS (dims))];
      gint64 k = dims[g_test_rand_int_range (0, G_N_ELEMENTS (dims))];
      gint64 n = dims[g_test_rand_int_range (0, G_N_ELEMENTS (dims))];
      guint x, w, bias, a, h, outputs[2];
      const char *act = g_test_rand_bit () ? "relu" : "tanh";

      x = reg_graph_add_input (graph, "x");
      w = reg_graph_add_input (graph, "w");
      bias = reg_graph_add_input (graph, "b");
      g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { m, k }, 2, -1, 1));
      g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { k, n }, 2, -1, 1));
      g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { m, n }, 2, -1, 1));

      /* x' = tanh (x) * 0.5, h = act (x' w + b), out = (h, sum (h)) */
      a = reg_graph_add_op (graph, "tanh", &x, 1, &error);
      a = reg_graph_add_op (graph, "mul", (guint[]) { a, reg_graph_add_constant (graph, 0.5) }, 2, &error);
      h = reg_graph_add_op (graph, "matmul", (guint[]) { a, w }, 2, &error);
      h = reg_graph_add_op (graph, "add", (guint[]) { h, bias }, 2, &error);
      h = reg_graph_add_op (graph, act, &h, 1, &error);
      if (g_test_rand_bit () && n == k)
        {
          /* a second layer with the same weights */
          h = reg_graph_add_op (graph, "matmul", (guint[]) { h, w }, 2, &error);
        }
      outputs[0] = h;
      outputs[1] = reg_graph_add_op (graph, "sum", &h, 1, &error);
      g_assert_no_error (error);
      reg_graph_set_outputs (graph, outputs, 2);

      for (guint o = 0; o < G_N_ELEMENTS (option_sets); o++)
        {
          /* float accumulation over k terms of magnitude <= 1, twice,
           * and a sum over m n of them */
          double atol = 2 * _reg_tolerance_matmul_atol (k) + (double) m * n * 1e-6;

          check_against_eager (graph, inputs, option_sets[o], COMPARE_CLOSE, atol, RTOL);
          if (g_test_failed ())
            return;
        }
    }
}

/* Products of odd shapes (one row, one column, primes, nothing at all),
 * alone and with an epilogue, on 1 and 2 threads, on the BLAS (when the
 * module has one: `matmul` 'blas') and on the in-tree loops.  The shapes reach every way a
 * product is cut: one panel, panels shared by two threads, a product too
 * wide for a panel in cache (a temporary), an in-tree panel wider than
 * the cache budget.  The suite runs this with OpenBLAS single-threaded
 * and again with 2 OpenBLAS threads (tests/meson.build), so that the three
 * modes of reg-inductor-gemm.h all run. */
static void
test_matmul_odd_shapes (void)
{
  static const gint64 shapes[][3] = {
    { 1, 1, 1 }, { 1, 97, 1 }, { 1, 31, 257 }, { 257, 31, 1 }, { 97, 1, 13 },
    { 0, 5, 7 }, { 5, 0, 7 }, { 5, 7, 0 }, { 0, 0, 0 }, { 13, 13, 13 }, { 67, 61, 59 },
    { 31, 257, 3 }, { 300, 128, 128 }, { 300, 4, 1000 }, { 600, 8, 1000 }, { 5, 3, 33000 },
  };
  static const char * const texts[] = {
    /* the product alone: a kernel of its own */
    "graph(x, w, b):\n  y = matmul(x, w)\n  return (y,)\n",
    /* with its epilogue, the product kept in panels */
    "graph(x, w, b):\n  h = matmul(x, w)\n  c = add(h, b)\n  y = relu(c)\n  s = sum(y)\n"
    "  return (y, s)\n",
    /* with its epilogue, the product an output too */
    "graph(x, w, b):\n  h = matmul(x, w)\n  c = mul(h, b)\n  y = tanh(c)\n  return (h, y)\n",
  };
  static const char * const options[] = {
    "{'threads': <uint32 1>}",
    "{'threads': <uint32 2>}",
    "{'threads': <uint32 1>, 'matmul': <'blas'>}",
    "{'threads': <uint32 2>, 'matmul': <'blas'>}",
    "{'threads': <uint32 1>, 'matmul': <'in-tree'>}",
    "{'threads': <uint32 2>, 'matmul': <'in-tree'>}",
    "{'threads': <uint32 2>, 'block-size': <uint32 5>, 'matmul': <'blas'>}",
    "{'threads': <uint32 2>, 'block-size': <uint32 5>, 'matmul': <'in-tree'>}",
    "{'fuse': <false>, 'threads': <uint32 2>, 'matmul': <'blas'>}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      gint64 m = shapes[i][0], k = shapes[i][1], n = shapes[i][2];
      g_autoptr(GPtrArray) inputs = tensor_array_new ();
      /* float accumulation over k terms of magnitude <= 1 (eager
       * accumulates in double), and a sum over m n of them */
      double atol = 4 * (double) k * k * 6e-8 + (double) m * n * 1e-6;

      g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { m, k }, 2, -1, 1));
      g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { k, n }, 2, -1, 1));
      g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { m, n }, 2, -1, 1));

      for (guint g = 0; g < G_N_ELEMENTS (texts); g++)
        {
          g_autoptr(RegGraph) graph = graph_new_from_string (texts[g]);

          for (guint o = 0; o < G_N_ELEMENTS (options); o++)
            {
              check_against_eager (graph, inputs, options[o], COMPARE_CLOSE, atol, 1e-5);
              if (g_test_failed ())
                {
                  g_test_message ("shape [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "] x [%"
                                  G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]", m, k, k, n);
                  return;
                }
            }
        }
    }
}

#ifdef TEST_HAVE_BLAS
#include <cblas.h>

/* The rule of `matmul` auto (reg-inductor-gemm.h): the in-tree loops when
 * they run their AVX-512 variant and OpenBLAS's core has no AVX-512 GEMM
 * kernels. */
static gboolean
intree_is_wider (void)
{
  static const char * const avx512_cores[] = { "skylakex", "cooperlake", "sapphirerapids" };
  gboolean wider = FALSE;

#if defined (__GNUC__) && !defined (__clang__) && defined (__x86_64__)
  __builtin_cpu_init ();
  wider = __builtin_cpu_supports ("x86-64-v4");
#endif
  for (guint i = 0; wider && i < G_N_ELEMENTS (avx512_cores); i++)
    if (g_ascii_strcasecmp (openblas_get_corename (), avx512_cores[i]) == 0)
      wider = FALSE;

  return wider;
}
#endif

/* The plan's log line says how products are computed: on OpenBLAS when
 * the module has it (and OpenBLAS's thread count allows it), else on the
 * in-tree loops.  tests/meson.build defines TEST_HAVE_BLAS and runs the
 * suite with OPENBLAS_NUM_THREADS=1, and the products again with 2. */
static void
test_matmul_log_line (gconstpointer data)
{
  guint threads = GPOINTER_TO_UINT (data);
  const char *blas_threads = g_getenv ("OPENBLAS_NUM_THREADS");
  const char *want = "*matmul *";

  if (g_test_subprocess ())
    {
      g_autoptr(RegGraph) graph = graph_new_from_string (
        "graph(x, w):\n  h = matmul(x, w)\n  y = relu(h)\n  return (y,)\n");
      g_autoptr(GPtrArray) inputs = tensor_array_new ();
      g_autofree char *options = g_strdup_printf ("{'threads': <uint32 %u>, 'matmul': <'blas'>}",
                                                  threads);
      g_autoptr(RegCompiledFn) fn = NULL;

      g_setenv ("G_MESSAGES_DEBUG", "Reg", TRUE);
      g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 4, 3 }, 2, -1, 1));
      g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 3, 5 }, 2, -1, 1));
      fn = compile_with ("inductor", graph, inputs, options);
      g_clear_object (&fn);
      /* the default, `auto`: whichever the machine makes faster */
      fn = compile_with ("inductor", graph, inputs, "{'matmul': <'auto'>}");
      g_clear_object (&fn);
      fn = compile_with ("inductor", graph, inputs, "{'matmul': <'in-tree'>}");
      return;
    }

#ifdef TEST_HAVE_BLAS
  if (g_strcmp0 (blas_threads, "1") == 0)
    want = "*matmul OpenBLAS *, 1 thread: sgemm per panel on the inductor's threads)*";
  else if (g_strcmp0 (blas_threads, "2") == 0 && threads == 1)
    want = "*matmul in-tree loops (OpenBLAS * would use 2 threads))*";
  else if (g_strcmp0 (blas_threads, "2") == 0)
    want = "*matmul OpenBLAS *, 2 threads: one sgemm on OpenBLAS's threads from "
           "2^27 multiply-adds, in-tree loops below)*";
#else
  want = "*matmul in-tree loops)*";
#endif
  g_test_message ("OPENBLAS_NUM_THREADS=%s, threads %u: %s", blas_threads, threads, want);

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout (want);
#ifdef TEST_HAVE_BLAS
  if (intree_is_wider ())
    g_test_trap_assert_stdout ("*matmul in-tree loops (AVX-512, wider than OpenBLAS *'s kernels)*"
                               "*matmul in-tree loops (matmul in-tree)*");
  else
    g_test_trap_assert_stdout ("*matmul OpenBLAS *matmul in-tree loops (matmul in-tree)*");
#else
  g_test_trap_assert_stdout ("*matmul in-tree loops)*matmul in-tree loops (matmul in-tree)*");
#endif
}

/* A product large enough for OpenBLAS's own threads (2^27 multiply-adds:
 * under OPENBLAS_NUM_THREADS=2, one sgemm on them, then the epilogue on
 * the inductor's 2 threads), against the in-tree loops and against the
 * layer computed in double on some rows (eager would take seconds under
 * valgrind). */
static void
test_matmul_large (void)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (
    "graph(x, w, b):\n  h = matmul(x, w)\n  c = add(h, b)\n  y = relu(c)\n  s = sum(y)\n"
    "  return (y, s)\n");
  const gint64 m = 512, k = 512, n = 512;
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GPtrArray) intree = NULL;
  const float *x, *w, *b;
  double atol = 4 * (double) k * 6e-8 * k;

  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { m, k }, 2, -1, 1));
  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { k, n }, 2, -1, 1));
  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { m, n }, 2, -1, 1));
  x = reg_tensor_get_data (g_ptr_array_index (inputs, 0), NULL);
  w = reg_tensor_get_data (g_ptr_array_index (inputs, 1), NULL);
  b = reg_tensor_get_data (g_ptr_array_index (inputs, 2), NULL);

  intree = run_with ("inductor", graph, inputs, "{'matmul': <'in-tree'>}");
  for (guint threads = 1; threads <= 2; threads++)
    {
      g_autofree char *options = g_strdup_printf ("{'threads': <uint32 %u>, 'matmul': <'blas'>}",
                                                  threads);
      g_autoptr(GPtrArray) got = run_with ("inductor", graph, inputs, options);
      const float *y = reg_tensor_get_data (g_ptr_array_index (got, 0), NULL);

      assert_outputs_agree (got, intree, COMPARE_CLOSE, atol, 1e-5, options);
      for (gint64 i = 0; i < m; i += 73)
        for (gint64 j = 0; j < n; j++)
          {
            double acc = b[i * n + j];

            for (gint64 l = 0; l < k; l++)
              acc += (double) x[i * k + l] * w[l * n + j];
            g_assert_cmpfloat_with_epsilon (y[i * n + j], MAX (acc, 0.0), atol);
          }
    }
}

/* A product of NaN and infinities: the BLAS and the in-tree loops give
 * NaN where eager does, and the same infinities. */
static void
test_matmul_specials (void)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (
    "graph(x, w, b):\n  h = matmul(x, w)\n  y = add(h, b)\n  return (y, h)\n");
  static const char * const options[] = {
    "{'threads': <uint32 1>}",
    "{'threads': <uint32 2>, 'matmul': <'blas'>}",
    "{'matmul': <'in-tree'>}",
  };
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  float *x;

  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 9, 4 }, 2, -1, 1));
  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 4, 6 }, 2, -1, 1));
  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 9, 6 }, 2, -1, 1));
  x = reg_tensor_get_data (g_ptr_array_index (inputs, 0), NULL);
  x[0] = NAN;                  /* row 0: NaN everywhere */
  x[5] = INFINITY;             /* row 1: +-inf, or NaN where w is 0 */
  x[9] = -INFINITY;
  x[10] = INFINITY;            /* row 2: inf - inf where w's signs differ */

  for (guint o = 0; o < G_N_ELEMENTS (options); o++)
    check_against_eager (graph, inputs, options[o], COMPARE_CLOSE, 1e-5, 1e-5);
}

/* Shapes -------------------------------------------------------------- */

/* Sizes around the block size, for several block sizes, with a value read
 * by two kernels (the sum and the 0-d work after it). */
static void
test_shapes_odd_sizes (void)
{
  static const gint64 sizes[] = { 0, 1, 2, 5, 15, 16, 17, 63, 64, 65, 1000, 2047, 2049 };
  static const char * const options[] = {
    "{'block-size': <uint32 1>}",
    "{'block-size': <uint32 3>}",
    "{'block-size': <uint32 16>, 'threads': <uint32 2>}",
    "{'block-size': <uint32 64>}",
    NULL,
  };
  g_autoptr(RegGraph) graph = graph_new_from_string (
    "graph(x, y):\n"
    "  a = mul(x, y)\n"
    "  b = sigmoid(a)\n"
    "  c = maximum(b, x)\n"
    "  s = sum(c)\n"
    "  d = mul(s, 0.5)\n"
    "  return (c, d, s)\n");

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autoptr(GPtrArray) inputs = tensor_array_new ();

      g_ptr_array_add (inputs, tensor_new_random ((const gint64[]) { sizes[i] }, 1, FALSE));
      g_ptr_array_add (inputs, tensor_new_random ((const gint64[]) { sizes[i] }, 1, FALSE));
      for (guint o = 0; o < G_N_ELEMENTS (options); o++)
        check_against_eager (graph, inputs, options[o], COMPARE_CLOSE, 1e-5, 1e-5);
    }
}

static void
test_shapes_0d (void)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (
    "graph(x, y):\n"
    "  a = add(x, y)\n"
    "  b = exp(a)\n"
    "  c = sum(b)\n"
    "  d = mul(c, 3)\n"
    "  return (d, b, x, 2.5)\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;

  g_ptr_array_add (inputs, reg_tensor_new (NULL, 0));
  g_ptr_array_add (inputs, reg_tensor_new (NULL, 0));
  reg_tensor_get_data (g_ptr_array_index (inputs, 0), NULL)[0] = 0.25f;
  reg_tensor_get_data (g_ptr_array_index (inputs, 1), NULL)[0] = -1.0f;

  check_against_eager (graph, inputs, NULL, COMPARE_CLOSE, ATOL, RTOL);
  check_against_eager (graph, inputs, "{'fuse': <false>}", COMPARE_CLOSE, ATOL, RTOL);

  fn = compile_with ("inductor", graph, inputs, NULL);
  outputs = call (fn, inputs);
  g_assert_cmpuint (outputs->len, ==, 4);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpuint (reg_tensor_get_n_dims (g_ptr_array_index (outputs, i)), ==, 0);
  g_assert_cmpfloat (reg_tensor_get_data (g_ptr_array_index (outputs, 3), NULL)[0], ==, 2.5f);
}

/* Outputs never alias inputs or each other. */
static void
test_outputs_no_alias (void)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (
    "graph(x):\n"
    "  a = mul(x, 1)\n"
    "  b = exp(x)\n"
    "  return (a, x, b, b)\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GPtrArray) outputs = NULL;

  g_ptr_array_add (inputs, tensor_new_random ((const gint64[]) { 6 }, 1, FALSE));
  outputs = run_with ("inductor", graph, inputs, NULL);
  g_assert_cmpuint (outputs->len, ==, 4);

  for (guint i = 0; i < outputs->len; i++)
    {
      RegTensor *t = g_ptr_array_index (outputs, i);

      g_assert_true (t != g_ptr_array_index (inputs, 0));
      g_assert_cmpint (G_OBJECT (t)->ref_count, ==, 1);
      for (guint j = 0; j < i; j++)
        g_assert_true (t != g_ptr_array_index (outputs, j));
    }

  check_against_eager (graph, inputs, NULL, COMPARE_CLOSE, ATOL, RTOL);
}

/* Numerics ------------------------------------------------------------ */

/* Every operator on NaN, infinities, zeros, subnormals and overflowing
 * values, with the vector math: NaN and infinities exactly where eager
 * has them, the rest within a few ulp. */
static void
test_numerics_specials (void)
{
  static const float specials[] = {
    NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-45f, -1e-45f, 1e-40f, 1.17549435e-38f,
    1.0f, -1.0f, 0.5f, 0.625f, -0.625f, 9.0f, 20.0f, -20.0f, 44.0f, 88.0f, 88.72f, 88.73f, 89.0f,
    -87.0f, -88.0f, -100.0f, -103.0f, -104.0f, -110.0f, 1e30f, -1e30f, 3.4e38f, -3.4e38f,
  };
  const gint64 n = G_N_ELEMENTS (specials);
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  RegTensor *x, *y;
  float *xd, *yd;

  /* all pairs, for the binary operators */
  x = reg_tensor_new ((const gint64[]) { n * n }, 1);
  y = reg_tensor_new ((const gint64[]) { n * n }, 1);
  xd = reg_tensor_get_data (x, NULL);
  yd = reg_tensor_get_data (y, NULL);
  for (gint64 i = 0; i < n; i++)
    for (gint64 j = 0; j < n; j++)
      {
        xd[i * n + j] = specials[i];
        yd[i * n + j] = specials[j];
      }
  g_ptr_array_add (inputs, x);
  g_ptr_array_add (inputs, y);

  for (guint i = 0; i < G_N_ELEMENTS (unary_ops) + G_N_ELEMENTS (binary_ops); i++)
    {
      gboolean unary = i < G_N_ELEMENTS (unary_ops);
      const char *op = unary ? unary_ops[i] : binary_ops[i - G_N_ELEMENTS (unary_ops)];
      g_autofree char *text = g_strdup_printf ("graph(x, y):\n  r = %s(x%s)\n  return (r,)\n",
                                               op, unary ? "" : ", y");
      g_autoptr(RegGraph) graph = graph_new_from_string (text);

      /* relative: 5 ulp is at most 6e-7 */
      check_against_eager (graph, inputs, NULL, COMPARE_CLOSE, 0, REG_TOLERANCE_ONE_OP_RTOL);
      check_against_eager (graph, inputs, "{'vector-math': <false>}", COMPARE_EXACT, 0, 0);
    }
}

/* A sweep of about 2^17 floats over the whole range through each vector
 * function, against eager (glibc): the largest error in ulp must stay
 * within the documented bound (the exhaustive figures of
 * benchmarks/inductor-ulp), and NaN/inf must match exactly. */
static void
test_math_ulp (gconstpointer data)
{
  RegOp reg_op = GPOINTER_TO_INT (data);
  const char *op = reg_op_get_name (reg_op);
  guint64 max_ulp = _reg_tolerance_max_ulp (reg_op);
  const guint32 stride = 32771;  /* prime: hits every exponent and many mantissas */
  gint64 n = (gint64) (G_MAXUINT32 / stride) + 1;
  g_autofree char *text = g_strdup_printf ("graph(x):\n  r = %s(x)\n  return (r,)\n", op);
  g_autoptr(RegGraph) graph = graph_new_from_string (text);
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GPtrArray) want = NULL, got = NULL;
  RegTensor *x = reg_tensor_new (&n, 1);
  float *xd = reg_tensor_get_data (x, NULL);
  const float *wd, *gd;
  guint64 worst = 0;

  for (gint64 i = 0; i < n; i++)
    {
      guint32 u = (guint32) (i * stride);

      memcpy (&xd[i], &u, sizeof u);
    }
  g_ptr_array_add (inputs, x);

  want = run_with ("eager", graph, inputs, NULL);
  got = run_with ("inductor", graph, inputs, NULL);
  wd = reg_tensor_get_data (g_ptr_array_index (want, 0), NULL);
  gd = reg_tensor_get_data (g_ptr_array_index (got, 0), NULL);

  for (gint64 i = 0; i < n; i++)
    {
      if (isnan (wd[i]) || isinf (wd[i]) || isnan (gd[i]) || isinf (gd[i]))
        {
          if (!(isnan (wd[i]) && isnan (gd[i])) && wd[i] != gd[i])
            g_test_fail_printf ("%s (%.9g): inductor %.9g, eager %.9g", op, xd[i], gd[i], wd[i]);
          continue;
        }
      worst = MAX (worst, _reg_tolerance_ulp_distance (gd[i], wd[i]));
    }

  g_test_message ("%s: largest difference from glibc %" G_GUINT64_FORMAT " ulp", op, worst);
  g_assert_cmpuint (worst, <=, max_ulp);
}

/* Threads ------------------------------------------------------------- */

/* Splitting blocks over threads changes nothing in elementwise results.
 * The kernel (8 instructions on 2^20 + 7 elements) is 9 chunks of 2^17
 * elements, the cost model's smallest: enough for 4 threads to get two
 * chunks each. */
static void
test_threads_split (void)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (
    "graph(x, a, b):\n"
    "  t0 = mul(x, a)\n"
    "  t1 = add(t0, b)\n"
    "  t2 = relu(t1)\n"
    "  t3 = sigmoid(x)\n"
    "  t4 = mul(t2, t3)\n"
    "  t5 = tanh(b)\n"
    "  y = add(t4, t5)\n"
    "  s = sum(y)\n"
    "  return (y, s)\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GPtrArray) one = NULL;
  const gint64 n = (1 << 20) + 7;

  for (guint i = 0; i < 3; i++)
    g_ptr_array_add (inputs, tensor_new_random (&n, 1, TRUE));

  one = run_with ("inductor", graph, inputs, "{'block-size': <uint32 512>}");
  for (guint threads = 2; threads <= 4; threads++)
    {
      g_autofree char *options = g_strdup_printf ("{'block-size': <uint32 512>, 'threads': <uint32 %u>}",
                                                  threads);
      g_autoptr(GPtrArray) many = run_with ("inductor", graph, inputs, options);

      assert_outputs_agree (many, one, COMPARE_CLOSE, 0, 1e-6, options);
    }
  check_against_eager (graph, inputs, "{'threads': <uint32 2>}", COMPARE_CLOSE, ATOL, RTOL);
}

/* Several threads call one compiled function at once (itself splitting
 * its blocks over threads): every call gets the single-call result. */
static void
test_threads_concurrent_calls (void)
{
  g_autoptr(RegGraph) graph = concurrent_calls_graph_new ();
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(RegCompiledFn) fn = NULL;

  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 300, 40 }, 2, -1, 1));
  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 40, 30 }, 2, -1, 1));
  fn = compile_with ("inductor", graph, inputs, "{'threads': <uint32 2>, 'block-size': <uint32 256>}");
  check_concurrent_calls (fn, inputs);
}

/* The cancellable of the operation a compile or a call runs in (the
 * thread's current one) stops inductor between its stages and between the
 * chunks of a call, with G_IO_ERROR_CANCELLED. */
static void
test_cancellation (void)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (
    "graph(x, y):\n"
    "  a = mul(x, y)\n"
    "  b = exp(a)\n"
    "  c = matmul(b, y)\n"
    "  d = tanh(c)\n"
    "  return (d,)\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(RegCompiledFn) refused = NULL;
  g_autoptr(RegCompiler) inductor = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (inputs, tensor_new_random ((const gint64[]) { 64, 64 }, 2, FALSE));
  g_ptr_array_add (inputs, tensor_new_random ((const gint64[]) { 64, 64 }, 2, FALSE));
  fn = compile_with ("inductor", graph, inputs, "{'threads': <uint32 2>}");
  inductor = reg_registry_lookup_backend (registry, "inductor", &error);
  g_assert_no_error (error);

  g_cancellable_cancel (cancellable);
  g_cancellable_push_current (cancellable);
  outputs = reg_compiled_fn_call (fn, inputs, &error);
  g_assert_null (outputs);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  /* the compiler itself, not the registry's cache */
  refused = reg_compiler_compile (inductor, graph, inputs, NULL, &error);
  g_assert_null (refused);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_cancellable_pop_current (cancellable);

  /* and without it, the same function runs */
  outputs = call (fn, inputs);
  g_assert_cmpuint (outputs->len, ==, 1);
}

static void
test_matmul_of_empty_operands (void)
{
  check_matmul_of_empty_operands (registry, "inductor");
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GEnumClass) op_class = g_type_class_ref (REG_TYPE_OP);
  int ret;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  registry = reg_registry_new ();

  g_test_add_func ("/inductor/registry/declared", test_registry_declared);
  g_test_add_func ("/inductor/registry/default", test_registry_default);
  g_test_add_func ("/inductor/options/good", test_options_good);
  g_test_add_func ("/inductor/options/bad", test_options_bad);
  g_test_add_func ("/inductor/options/messages", test_options_messages);
  g_test_add_func ("/inductor/options/repeated-key", test_options_repeated_key);
  for (guint i = 0; i < G_N_ELEMENTS (pass_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/inductor/passes/%s", pass_cases[i].name);

      g_test_add_data_func (path, &pass_cases[i], test_pass);
    }
  g_test_add_func ("/inductor/passes/optimized-graph", test_optimized_graph_built_once);
  for (guint i = 0; i < G_N_ELEMENTS (fusion_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/inductor/fusion/%s", fusion_cases[i].name);

      g_test_add_data_func (path, &fusion_cases[i], test_fusion);
    }
  g_test_add_func ("/inductor/fusion/mlp", test_fusion_mlp);
  g_test_add_func ("/inductor/fusion/matmul-epilogue", test_fusion_matmul_epilogue);
  g_test_add_func ("/inductor/fusion/debug-plan", test_fusion_debug_plan);
  g_test_add_func ("/inductor/random/elementwise-exact", test_random_elementwise_exact);
  g_test_add_func ("/inductor/random/elementwise-vector", test_random_elementwise_vector);
  g_test_add_func ("/inductor/random/reductions", test_random_reductions);
  g_test_add_func ("/inductor/random/matmul", test_random_matmul);
  g_test_add_func ("/inductor/matmul/odd-shapes", test_matmul_odd_shapes);
  g_test_add_func ("/inductor/matmul/specials", test_matmul_specials);
  g_test_add_func ("/inductor/matmul/large", test_matmul_large);
  g_test_add_data_func ("/inductor/matmul/log-line/1-thread", GUINT_TO_POINTER (1),
                        test_matmul_log_line);
  g_test_add_data_func ("/inductor/matmul/log-line/2-threads", GUINT_TO_POINTER (2),
                        test_matmul_log_line);
  g_test_add_func ("/inductor/shapes/odd-sizes", test_shapes_odd_sizes);
  g_test_add_func ("/inductor/shapes/0d", test_shapes_0d);
  g_test_add_func ("/inductor/shapes/matmul-of-empty-operands", test_matmul_of_empty_operands);
  g_test_add_func ("/inductor/outputs/no-alias", test_outputs_no_alias);
  g_test_add_func ("/inductor/numerics/specials", test_numerics_specials);
  for (guint i = 0; i < op_class->n_values; i++)
    {
      RegOp op = op_class->values[i].value;
      g_autofree char *path = g_strdup_printf ("/inductor/math/ulp/%s", reg_op_get_name (op));

      if (_reg_tolerance_max_ulp (op) == G_MAXUINT)
        continue;
      g_test_add_data_func (path, GINT_TO_POINTER (op), test_math_ulp);
    }
  g_test_add_func ("/inductor/threads/split", test_threads_split);
  g_test_add_func ("/inductor/threads/concurrent-calls", test_threads_concurrent_calls);
  g_test_add_func ("/inductor/cancellation", test_cancellation);

  ret = g_test_run ();

  g_object_unref (registry);

  return ret;
}
