/* test-eager.c: the eager reference interpreter and the TESTING_ONLY backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The backends are found as modules through REG_BACKEND_PATH (meson sets it
 * to the build's modules/ directory).  Operator results are checked against
 * data/eager-ops.txt, which data/gen-eager-ops.py computes with numpy in
 * float32.
 */

#include <math.h>
#include <string.h>

#include <reg.h>

#include "test-objects.h"

/* Results are compared element by element: equal when both are NaN, when
 * both are the same infinity, or when |got - want| <= ATOL + RTOL * |want|.
 * numpy's float32 exp, log, tanh and glibc's expf, logf, tanhf differ by up
 * to 1 ulp on the table's inputs (sigmoid, built on exp, by 2), that is
 * below 1.5e-7 relative; sum and matmul accumulate in double on both sides.
 * So 1e-6 leaves room for another libm without hiding a wrong operator;
 * ATOL covers results near zero (tanh (x) for small x, log near 1).
 * Signed zeros compare equal here; test_signed_zeros() checks them. */
#define RTOL 1e-6
#define ATOL 1e-6

/* One private registry for the whole program: every test looks backends
 * up in it, so each module is loaded once. */
static RegRegistry *registry;

static const char * const testing_backends[] = {
  "relu_compile_error_TESTING_ONLY",
  "relu_runtime_error_TESTING_ONLY",
};

/* Helpers ------------------------------------------------------------- */

static RegTensor *
tensor_new (const gint64 *shape,
            guint         n_dims,
            const float  *data)
{
  RegTensor *tensor = reg_tensor_new (shape, n_dims);
  gsize n = reg_tensor_get_n_elements (tensor);

  if (n > 0)
    memcpy (reg_tensor_get_data (tensor, NULL), data, n * sizeof (float));

  return tensor;
}

static gboolean
float_close (float got,
             float want)
{
  if (isnan (want))
    return isnan (got);
  if (isinf (want))
    return got == want;

  return fabs ((double) got - want) <= ATOL + RTOL * fabs (want);
}

static char *
shape_to_string (const gint64 *shape,
                 guint         n_dims)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < n_dims; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", shape[i]);
  g_string_append_c (s, ']');

  return g_string_free (s, FALSE);
}

/* Checks that @got has the shape @shape and elements close to @want (see
 * RTOL), and fails the test naming @what and the first bad element. */
static void
assert_tensor_close (RegTensor    *got,
                     const gint64 *shape,
                     guint         n_dims,
                     const float  *want,
                     const char   *what)
{
  const gint64 *got_shape;
  guint got_dims;
  gsize n;
  const float *data;

  g_assert_true (REG_IS_TENSOR (got));

  got_shape = reg_tensor_get_shape (got, &got_dims);
  if (got_dims != n_dims ||
      (n_dims > 0 && memcmp (got_shape, shape, n_dims * sizeof (gint64)) != 0))
    {
      g_autofree char *got_str = shape_to_string (got_shape, got_dims);
      g_autofree char *want_str = shape_to_string (shape, n_dims);

      g_test_fail_printf ("%s: shape %s, expected %s", what, got_str, want_str);
      return;
    }

  data = reg_tensor_get_data (got, &n);
  for (gsize i = 0; i < n; i++)
    if (!float_close (data[i], want[i]))
      {
        g_test_fail_printf ("%s: element %" G_GSIZE_FORMAT ": got %.9g, expected %.9g",
                            what, i, data[i], want[i]);
        return;
      }
}

static void
assert_tensors_equal (RegTensor  *got,
                      RegTensor  *want,
                      const char *what)
{
  const gint64 *shape;
  guint n_dims;

  shape = reg_tensor_get_shape (want, &n_dims);
  assert_tensor_close (got, shape, n_dims, reg_tensor_get_data (want, NULL), what);
}

static RegCompiledFn *
compile (const char  *backend,
         RegGraph    *graph,
         GPtrArray   *inputs,
         GError     **error)
{
  return reg_registry_compile (registry, backend, graph, inputs, NULL, error);
}

/* Compiles @graph with @backend for @inputs and calls it on them; both
 * steps must succeed. */
static GPtrArray *
run (const char *backend,
     RegGraph   *graph,
     GPtrArray  *inputs)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  GPtrArray *outputs;

  fn = compile (backend, graph, inputs, &error);
  g_assert_no_error (error);
  g_assert_nonnull (fn);

  outputs = reg_compiled_fn_call (fn, inputs, &error);
  g_assert_no_error (error);
  g_assert_nonnull (outputs);

  return outputs;
}

static gboolean
strv_contains_all (const char * const *strv,
                   const char * const *wanted,
                   gsize               n_wanted)
{
  for (gsize i = 0; i < n_wanted; i++)
    if (!g_strv_contains (strv, wanted[i]))
      return FALSE;

  return TRUE;
}

/* The operator table -------------------------------------------------- */

typedef enum {
  OPERAND_NONE,
  OPERAND_CONSTANT,
  OPERAND_TENSOR,
} OperandKind;

typedef struct
{
  OperandKind kind;
  guint       n_dims;
  gint64      shape[REG_TENSOR_MAX_DIMS];
  GArray     *data;     /* float */
} Operand;

typedef struct
{
  char    *op;
  guint    line;
  Operand  a, b, out;
} OpCase;

static void
op_case_free (OpCase *c)
{
  g_free (c->op);
  g_clear_pointer (&c->a.data, g_array_unref);
  g_clear_pointer (&c->b.data, g_array_unref);
  g_clear_pointer (&c->out.data, g_array_unref);
  g_free (c);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OpCase, op_case_free)

static void
parse_operand (Operand    *operand,
               const char *shape,
               const char *data,
               guint       line)
{
  g_auto(GStrv) dims = NULL;
  g_auto(GStrv) values = NULL;
  gsize n_elements = 1;

  operand->data = g_array_new (FALSE, FALSE, sizeof (float));

  if (g_str_equal (shape, "-"))
    {
      operand->kind = OPERAND_NONE;
      g_assert_cmpstr (data, ==, "");
      return;
    }

  if (g_str_equal (shape, "const"))
    {
      operand->kind = OPERAND_CONSTANT;
    }
  else
    {
      operand->kind = OPERAND_TENSOR;
      if (!g_str_equal (shape, "scalar"))
        {
          dims = g_strsplit (shape, "x", -1);
          operand->n_dims = g_strv_length (dims);
          g_assert_cmpuint (operand->n_dims, <=, REG_TENSOR_MAX_DIMS);
          for (guint i = 0; i < operand->n_dims; i++)
            {
              guint64 dim;

              if (!g_ascii_string_to_unsigned (dims[i], 10, 0, G_MAXINT32, &dim, NULL))
                g_error ("eager-ops.txt:%u: bad shape '%s'", line, shape);
              operand->shape[i] = (gint64) dim;
              n_elements *= dim;
            }
        }
    }

  values = g_strsplit (data, " ", -1);
  for (guint i = 0; values[i] != NULL; i++)
    {
      char *end;
      float value = (float) g_ascii_strtod (values[i], &end);

      if (values[i][0] == '\0' || *end != '\0')
        g_error ("eager-ops.txt:%u: bad number '%s'", line, values[i]);
      g_array_append_val (operand->data, value);
    }

  if (operand->data->len != n_elements)
    g_error ("eager-ops.txt:%u: %u numbers for shape %s", line, operand->data->len, shape);
}

/* Returns the cases of data/eager-ops.txt for @op, in file order. */
static GPtrArray *
load_op_cases (const char *op)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *cases = g_ptr_array_new_with_free_func ((GDestroyNotify) op_case_free);

  path = g_test_build_filename (G_TEST_DIST, "data", "eager-ops.txt", NULL);
  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);

  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      g_autoptr(OpCase) c = NULL;

      if (lines[i][0] == '\0' || lines[i][0] == '#')
        continue;

      fields = g_strsplit (lines[i], "|", -1);
      if (g_strv_length (fields) != 7)
        g_error ("eager-ops.txt:%u: %u fields, expected 7", i + 1, g_strv_length (fields));
      if (!g_str_equal (fields[0], op))
        continue;

      c = g_new0 (OpCase, 1);
      c->op = g_strdup (fields[0]);
      c->line = i + 1;
      parse_operand (&c->a, fields[1], fields[2], c->line);
      parse_operand (&c->b, fields[3], fields[4], c->line);
      parse_operand (&c->out, fields[5], fields[6], c->line);
      g_assert_cmpint (c->a.kind, !=, OPERAND_NONE);
      g_assert_cmpint (c->out.kind, ==, OPERAND_TENSOR);
      g_ptr_array_add (cases, g_steal_pointer (&c));
    }

  return cases;
}

/* Adds @operand to @graph: an input (its tensor appended to @inputs) or a
 * constant.  Returns the node. */
static guint
add_operand (RegGraph   *graph,
             GPtrArray  *inputs,
             Operand    *operand,
             const char *name)
{
  float *data = (float *) (gpointer) operand->data->data;

  if (operand->kind == OPERAND_CONSTANT)
    return reg_graph_add_constant (graph, data[0]);

  g_ptr_array_add (inputs, tensor_new (operand->shape, operand->n_dims, data));
  return reg_graph_add_input (graph, name);
}

static void
test_op (gconstpointer user_data)
{
  const char *op = user_data;
  g_autoptr(GPtrArray) cases = load_op_cases (op);

  g_assert_cmpuint (cases->len, >, 0);

  for (guint i = 0; i < cases->len; i++)
    {
      OpCase *c = g_ptr_array_index (cases, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(RegGraph) graph = reg_graph_new ();
      g_autoptr(GPtrArray) inputs = tensor_array_new ();
      g_autoptr(GPtrArray) outputs = NULL;
      g_autofree char *what = g_strdup_printf ("%s (eager-ops.txt:%u)", op, c->line);
      guint args[2], n_args = 0, node;

      args[n_args++] = add_operand (graph, inputs, &c->a, "a");
      if (c->b.kind != OPERAND_NONE)
        args[n_args++] = add_operand (graph, inputs, &c->b, "b");
      node = reg_graph_add_op (graph, op, args, n_args, &error);
      g_assert_no_error (error);
      reg_graph_set_outputs (graph, &node, 1);

      outputs = run ("eager", graph, inputs);
      g_assert_cmpuint (outputs->len, ==, 1);
      assert_tensor_close (g_ptr_array_index (outputs, 0), c->out.shape, c->out.n_dims,
                           (const float *) (gconstpointer) c->out.data->data, what);
    }
}

/* Broadcasting, shapes ------------------------------------------------ */

/* The table covers every operator with a constant on either side; this
 * pins the operand order of the non-commutative ones by hand. */
static void
test_broadcast_both_sides (void)
{
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GPtrArray) outputs = NULL;
  const gint64 shape[] = { 2, 2 };
  const float x[] = { 1, 2, 4, -8 };
  const float want[][4] = {
    { -1, 0, 2, -10 },        /* sub (x, 2) */
    { 1, 0, -2, 10 },         /* sub (2, x) */
    { 1, 0.5, 0.25, -0.125 }, /* div (1, x) */
    { 0.25, 0.5, 1, -2 },     /* div (x, 4) */
    { 2, 2, 4, 2 },           /* maximum (2, x) */
    { 1, 2, 2, -8 },          /* minimum (x, 2) */
  };

  graph = graph_new_from_string ("graph(x):\n"
                                 "  a = sub(x, 2)\n"
                                 "  b = sub(2, x)\n"
                                 "  c = div(1, x)\n"
                                 "  d = div(x, 4)\n"
                                 "  e = maximum(2, x)\n"
                                 "  f = minimum(x, 2)\n"
                                 "  return (a, b, c, d, e, f)\n");
  g_ptr_array_add (inputs, tensor_new (shape, 2, x));
  outputs = run ("eager", graph, inputs);

  g_assert_cmpuint (outputs->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < outputs->len; i++)
    {
      g_autofree char *what = g_strdup_printf ("output %u", i);

      assert_tensor_close (g_ptr_array_index (outputs, i), shape, 2, want[i], what);
    }
}

static void
test_matmul_shapes (void)
{
  const gint64 sizes[][3] = {
    { 1, 1, 1 }, { 2, 3, 4 }, { 5, 1, 3 }, { 3, 7, 1 }, { 16, 33, 9 },
    { 0, 4, 2 }, { 3, 0, 2 }, { 2, 3, 0 }, { 0, 0, 0 },
  };

  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      gint64 m = sizes[s][0], k = sizes[s][1], n = sizes[s][2];
      g_autoptr(RegGraph) graph = graph_new_from_string ("graph(a, b):\n"
                                                         "  c = matmul(a, b)\n"
                                                         "  return (c,)\n");
      g_autoptr(GPtrArray) inputs = tensor_array_new ();
      g_autoptr(GPtrArray) outputs = NULL;
      g_autofree float *want = g_new0 (float, m * n + 1);
      g_autofree char *what = g_strdup_printf ("[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "] x "
                                               "[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]",
                                               m, k, k, n);
      const float *a, *b;

      g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { m, k }, 2, -2, 2));
      g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { k, n }, 2, -2, 2));
      a = reg_tensor_get_data (g_ptr_array_index (inputs, 0), NULL);
      b = reg_tensor_get_data (g_ptr_array_index (inputs, 1), NULL);

      for (gint64 i = 0; i < m; i++)
        for (gint64 j = 0; j < n; j++)
          {
            double acc = 0.0;

            for (gint64 l = 0; l < k; l++)
              acc += (double) a[i * k + l] * b[l * n + j];
            want[i * n + j] = (float) acc;
          }

      outputs = run ("eager", graph, inputs);
      assert_tensor_close (g_ptr_array_index (outputs, 0), (const gint64[]) { m, n }, 2,
                           want, what);
    }
}

static void
test_sum_to_0d (void)
{
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GPtrArray) outputs = NULL;
  const gint64 shape[] = { 2, 3, 4 };
  RegTensor *x;
  const float *data;
  double total = 0.0, squares = 0.0;
  float want[2];

  graph = graph_new_from_string ("graph(x):\n"
                                 "  s = sum(x)\n"
                                 "  t = sum(s)\n"
                                 "  m = mul(x, x)\n"
                                 "  q = sum(m)\n"
                                 "  return (t, q)\n");
  x = tensor_new_uniform (shape, G_N_ELEMENTS (shape), -10, 10);
  g_ptr_array_add (inputs, x);
  data = reg_tensor_get_data (x, NULL);
  for (gsize i = 0; i < reg_tensor_get_n_elements (x); i++)
    {
      total += data[i];
      squares += data[i] * data[i];
    }
  want[0] = (float) total;
  want[1] = (float) squares;

  outputs = run ("eager", graph, inputs);
  assert_tensor_close (g_ptr_array_index (outputs, 0), NULL, 0, &want[0], "sum (sum (x))");
  assert_tensor_close (g_ptr_array_index (outputs, 1), NULL, 0, &want[1], "sum (x * x)");
  g_assert_cmpuint (reg_tensor_get_n_elements (g_ptr_array_index (outputs, 0)), ==, 1);
}

static void
test_zero_d_inputs (void)
{
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GPtrArray) outputs = NULL;
  const float x = 2.0f, y = -3.0f;
  const float want[] = { -6.0f, -5.0f, expf (2.0f), -3.0f, 2.0f };

  graph = graph_new_from_string ("graph(x, y):\n"
                                 "  a = mul(x, y)\n"
                                 "  b = add(a, 1)\n"
                                 "  c = exp(x)\n"
                                 "  d = sum(y)\n"
                                 "  e = maximum(x, y)\n"
                                 "  return (a, b, c, d, e)\n");
  g_ptr_array_add (inputs, tensor_new (NULL, 0, &x));
  g_ptr_array_add (inputs, tensor_new (NULL, 0, &y));
  outputs = run ("eager", graph, inputs);

  g_assert_cmpuint (outputs->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < outputs->len; i++)
    {
      g_autofree char *what = g_strdup_printf ("output %u", i);

      assert_tensor_close (g_ptr_array_index (outputs, i), NULL, 0, &want[i], what);
    }
}

static void
test_zero_elements (void)
{
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GPtrArray) outputs = NULL;
  const float zero = 0.0f;

  graph = graph_new_from_string ("graph(x, y):\n"
                                 "  a = exp(x)\n"
                                 "  b = add(a, 1)\n"
                                 "  c = mul(a, x)\n"
                                 "  d = matmul(x, y)\n"
                                 "  e = sum(x)\n"
                                 "  return (b, c, d, e)\n");
  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 0, 3 }, 2));
  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 3, 2 }, 2, -1, 1));
  outputs = run ("eager", graph, inputs);

  g_assert_cmpuint (outputs->len, ==, 4);
  assert_tensor_close (g_ptr_array_index (outputs, 0), (const gint64[]) { 0, 3 }, 2, NULL, "b");
  assert_tensor_close (g_ptr_array_index (outputs, 1), (const gint64[]) { 0, 3 }, 2, NULL, "c");
  assert_tensor_close (g_ptr_array_index (outputs, 2), (const gint64[]) { 0, 2 }, 2, NULL, "d");
  assert_tensor_close (g_ptr_array_index (outputs, 3), NULL, 0, &zero, "e");
}

/* The tolerance of assert_tensor_close() does not see the sign of zero,
 * but 1 / x does: maximum and minimum order -0 before +0 whichever side
 * it is on, and relu (-0) is +0. */
static void
test_signed_zeros (void)
{
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GPtrArray) outputs = NULL;
  const gint64 shape[] = { 2 };
  const float x[] = { -0.0f, +0.0f };
  const gboolean negative[][2] = {
    { FALSE, FALSE }, /* maximum (x, 0) */
    { FALSE, FALSE }, /* maximum (0, x) */
    { TRUE, FALSE },  /* maximum (x, -0.0) */
    { TRUE, FALSE },  /* maximum (x, x) */
    { TRUE, TRUE },   /* minimum (x, -0.0) */
    { TRUE, TRUE },   /* minimum (-0.0, x) */
    { TRUE, FALSE },  /* minimum (0, x) */
    { FALSE, FALSE }, /* relu (x) */
    { FALSE, TRUE },  /* neg (x) */
  };

  graph = graph_new_from_string ("graph(x):\n"
                                 "  a = maximum(x, 0)\n"
                                 "  b = maximum(0, x)\n"
                                 "  c = maximum(x, -0.0)\n"
                                 "  d = maximum(x, x)\n"
                                 "  e = minimum(x, -0.0)\n"
                                 "  f = minimum(-0.0, x)\n"
                                 "  g = minimum(0, x)\n"
                                 "  h = relu(x)\n"
                                 "  i = neg(x)\n"
                                 "  return (a, b, c, d, e, f, g, h, i)\n");
  g_ptr_array_add (inputs, tensor_new (shape, 1, x));
  outputs = run ("eager", graph, inputs);

  g_assert_cmpuint (outputs->len, ==, G_N_ELEMENTS (negative));
  for (guint i = 0; i < outputs->len; i++)
    {
      const float *data = reg_tensor_get_data (g_ptr_array_index (outputs, i), NULL);

      for (guint j = 0; j < 2; j++)
        {
          g_assert_cmpfloat (data[j], ==, 0.0f);
          if (!signbit (data[j]) != !negative[i][j])
            g_test_fail_printf ("output %u, element %u: got %s0, expected %s0", i, j,
                                signbit (data[j]) ? "-" : "+", negative[i][j] ? "-" : "+");
        }
    }
}

/* The example graph of docs/overview.md. */
static void
test_api_example (void)
{
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GPtrArray) outputs = NULL;
  const gint64 shape[] = { 2, 3 };
  const float x[] = { 1, -2, 3, 0.5, NAN, -1 };
  const float y[] = { 2, 1, -1, -4, 1, INFINITY };
  /* relu (x * y + 1.5) */
  const float want[] = { 3.5, 0, 0, 0, NAN, 0 };

  graph = graph_new_from_string ("graph(x, y):\n"
                                 "  a = mul(x, y)\n"
                                 "  b = add(a, 1.5)\n"
                                 "  c = relu(b)\n"
                                 "  return (c,)\n");
  g_ptr_array_add (inputs, tensor_new (shape, 2, x));
  g_ptr_array_add (inputs, tensor_new (shape, 2, y));
  outputs = run ("eager", graph, inputs);

  g_assert_cmpuint (outputs->len, ==, 1);
  assert_tensor_close (g_ptr_array_index (outputs, 0), shape, 2, want, "relu (x * y + 1.5)");
}

/* Random elementwise graphs ------------------------------------------- */

static const char * const unary_ops[] = {
  "neg", "relu", "exp", "log", "sqrt", "tanh", "sigmoid", "abs",
};

static const char * const binary_ops[] = {
  "add", "sub", "mul", "div", "maximum", "minimum",
};

/* A node of a random graph, kept by the test to evaluate it on its own. */
typedef struct
{
  const char *op;      /* NULL: an input or a constant */
  guint       args[2]; /* indices into the nodes, for ops */
  int         input;   /* the input index, or -1 */
  float       value;   /* for constants */
} ChainNode;

/* The operators written out again, one element at a time, from the
 * definitions of RegOp (reg-op.h) rather than from the interpreter's code. */
static float
eval_scalar (const char *op,
             float       x,
             float       y)
{
  if (g_str_equal (op, "add"))
    return x + y;
  if (g_str_equal (op, "sub"))
    return x - y;
  if (g_str_equal (op, "mul"))
    return x * y;
  if (g_str_equal (op, "div"))
    return x / y;
  /* NaN wins, then -0 < +0 (fmaxf()/fminf() are loose on both). */
  if (g_str_equal (op, "maximum"))
    return isnan (x) || isnan (y) ? NAN : x > y || (x == y && !signbit (x)) ? x : y;
  if (g_str_equal (op, "minimum"))
    return isnan (x) || isnan (y) ? NAN : x < y || (x == y && signbit (x)) ? x : y;
  if (g_str_equal (op, "neg"))
    return -x;
  if (g_str_equal (op, "relu"))
    return isnan (x) || x > 0 ? x : +0.0f;
  if (g_str_equal (op, "exp"))
    return expf (x);
  if (g_str_equal (op, "log"))
    return logf (x);
  if (g_str_equal (op, "sqrt"))
    return sqrtf (x);
  if (g_str_equal (op, "tanh"))
    return tanhf (x);
  if (g_str_equal (op, "sigmoid"))
    return 1.0f / (1.0f + expf (-x));
  if (g_str_equal (op, "abs"))
    return fabsf (x);

  g_assert_not_reached ();
}

static void
test_random_chains (void)
{
  const float constants[] = { 0.5f, -1.25f, 2.0f, 3.0f, -0.0f, 1e-3f };

  for (guint iteration = 0; iteration < 50; iteration++)
    {
      g_autoptr(RegGraph) graph = reg_graph_new ();
      g_autoptr(GPtrArray) inputs = tensor_array_new ();
      g_autoptr(GPtrArray) outputs = NULL;
      g_autoptr(GArray) nodes = g_array_new (FALSE, TRUE, sizeof (ChainNode));
      /* The graph's tensor nodes (not constants): what ops may read. */
      g_autoptr(GArray) tensors = g_array_new (FALSE, FALSE, sizeof (guint));
      const gint64 shape[] = { g_test_rand_int_range (1, 5), g_test_rand_int_range (1, 6) };
      gsize n_elements = shape[0] * shape[1];
      guint n_inputs = g_test_rand_int_range (1, 4);
      guint n_ops = g_test_rand_int_range (1, 25);
      guint out_nodes[2];
      g_autofree float *values = NULL;

      for (guint i = 0; i < n_inputs; i++)
        {
          g_autofree char *name = g_strdup_printf ("x%u", i);
          ChainNode node = { NULL, { 0, 0 }, i, 0 };
          guint id = reg_graph_add_input (graph, name);

          g_assert_cmpuint (id, ==, nodes->len);
          g_array_append_val (nodes, node);
          g_array_append_val (tensors, id);
          g_ptr_array_add (inputs, tensor_new_uniform (shape, 2, -4, 4));
        }

      for (guint i = 0; i < n_ops; i++)
        {
          g_autoptr(GError) error = NULL;
          ChainNode node = { NULL, { 0, 0 }, -1, 0 };
          guint args[2];
          guint n_args, id;

          node.args[0] = g_array_index (tensors, guint, g_test_rand_int_range (0, tensors->len));
          if (g_test_rand_bit ())
            {
              node.op = unary_ops[g_test_rand_int_range (0, G_N_ELEMENTS (unary_ops))];
              n_args = 1;
            }
          else
            {
              node.op = binary_ops[g_test_rand_int_range (0, G_N_ELEMENTS (binary_ops))];
              n_args = 2;
              if (g_test_rand_int_range (0, 3) == 0)
                {
                  /* A constant on a random side. */
                  ChainNode constant = { NULL, { 0, 0 }, -1,
                                         constants[g_test_rand_int_range (0, G_N_ELEMENTS (constants))] };

                  node.args[1] = reg_graph_add_constant (graph, constant.value);
                  g_assert_cmpuint (node.args[1], ==, nodes->len);
                  g_array_append_val (nodes, constant);
                  if (g_test_rand_bit ())
                    {
                      guint t = node.args[0];

                      node.args[0] = node.args[1];
                      node.args[1] = t;
                    }
                }
              else
                {
                  node.args[1] = g_array_index (tensors, guint,
                                                g_test_rand_int_range (0, tensors->len));
                }
            }

          args[0] = node.args[0];
          args[1] = node.args[1];
          id = reg_graph_add_op (graph, node.op, args, n_args, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (id, ==, nodes->len);
          g_array_append_val (nodes, node);
          g_array_append_val (tensors, id);
        }

      /* The last node and a random tensor node (maybe an input). */
      out_nodes[0] = nodes->len - 1;
      out_nodes[1] = g_array_index (tensors, guint, g_test_rand_int_range (0, tensors->len));
      reg_graph_set_outputs (graph, out_nodes, G_N_ELEMENTS (out_nodes));

      outputs = run ("eager", graph, inputs);
      g_assert_cmpuint (outputs->len, ==, G_N_ELEMENTS (out_nodes));

      /* values[node * n_elements + e]: every node, one element at a time
       * (constants broadcast). */
      values = g_new (float, nodes->len * n_elements);
      for (guint id = 0; id < nodes->len; id++)
        for (gsize e = 0; e < n_elements; e++)
          {
            const ChainNode *node = &g_array_index (nodes, ChainNode, id);
            float *v = &values[id * n_elements + e];

            if (node->input >= 0)
              *v = reg_tensor_get_data (g_ptr_array_index (inputs, node->input), NULL)[e];
            else if (node->op == NULL)
              *v = node->value;
            else
              *v = eval_scalar (node->op,
                                values[node->args[0] * n_elements + e],
                                values[node->args[1] * n_elements + e]);
          }

      for (guint i = 0; i < G_N_ELEMENTS (out_nodes); i++)
        {
          g_autofree char *text = reg_graph_to_string (graph);
          g_autofree char *what = g_strdup_printf ("output %u of\n%s", i, text);

          assert_tensor_close (g_ptr_array_index (outputs, i), shape, 2,
                               &values[out_nodes[i] * n_elements], what);
        }

      if (g_test_failed ())
        return;
    }
}

/* Outputs ------------------------------------------------------------- */

static void
test_outputs_do_not_alias (void)
{
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GPtrArray) first = NULL;
  g_autoptr(GPtrArray) second = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  const gint64 shape[] = { 3 };
  const float x[] = { 1, -2, 3 };
  const float neg_x[] = { -1, 2, -3 };
  RegTensor *input;

  graph = graph_new_from_string ("graph(x):\n"
                                 "  a = neg(x)\n"
                                 "  return (x, a, a)\n");
  input = tensor_new (shape, 1, x);
  g_ptr_array_add (inputs, input);

  fn = compile ("eager", graph, inputs, &error);
  g_assert_no_error (error);
  first = reg_compiled_fn_call (fn, inputs, &error);
  g_assert_no_error (error);
  second = reg_compiled_fn_call (fn, inputs, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (first->len, ==, 3);
  assert_tensor_close (g_ptr_array_index (first, 0), shape, 1, x, "x");
  assert_tensor_close (g_ptr_array_index (first, 1), shape, 1, neg_x, "a");
  assert_tensor_close (g_ptr_array_index (first, 2), shape, 1, neg_x, "a again");

  /* An input returned as an output is a copy, and so is a node returned
   * twice: changing one result changes nothing else. */
  g_assert_true (g_ptr_array_index (first, 0) != input);
  g_assert_true (g_ptr_array_index (first, 1) != g_ptr_array_index (first, 2));
  reg_tensor_get_data (g_ptr_array_index (first, 0), NULL)[0] = 42;
  reg_tensor_get_data (g_ptr_array_index (first, 1), NULL)[0] = 42;
  assert_tensor_close (input, shape, 1, x, "input after the call");
  assert_tensor_close (g_ptr_array_index (first, 2), shape, 1, neg_x, "a after changing a");

  /* Every call makes fresh tensors. */
  for (guint i = 0; i < first->len; i++)
    g_assert_true (g_ptr_array_index (first, i) != g_ptr_array_index (second, i));
  assert_tensor_close (g_ptr_array_index (second, 1), shape, 1, neg_x, "a of the second call");
}

/* Graphs that change after compiling ------------------------------------ */

typedef enum {
  COMPILE_COMPILER,          /* reg_compiler_compile () */
  COMPILE_COMPILER_ASYNC,    /* reg_compiler_compile_async () */
  COMPILE_REGISTRY,          /* reg_registry_compile () */
  COMPILE_REGISTRY_ASYNC,    /* reg_registry_compile_async () */
} CompilePath;

static void
store_result (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static RegCompiledFn *
compile_by (CompilePath  path,
            RegGraph    *graph,
            GPtrArray   *inputs)
{
  g_autoptr(RegCompiler) eager = reg_registry_lookup_backend (registry, "eager", NULL);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  RegCompiledFn *fn = NULL;

  switch (path)
    {
    case COMPILE_COMPILER:
      fn = reg_compiler_compile (eager, graph, inputs, NULL, &error);
      break;
    case COMPILE_COMPILER_ASYNC:
      reg_compiler_compile_async (eager, graph, inputs, NULL, NULL, store_result, &result);
      break;
    case COMPILE_REGISTRY:
      fn = reg_registry_compile (registry, "eager", graph, inputs, NULL, &error);
      break;
    case COMPILE_REGISTRY_ASYNC:
      reg_registry_compile_async (registry, "eager", graph, inputs, NULL, NULL,
                                  store_result, &result);
      break;
    default:
      g_assert_not_reached ();
    }

  /* The caller goes on building before the compile is done. */
  reg_graph_add_input (graph, "late");

  if (path == COMPILE_COMPILER_ASYNC || path == COMPILE_REGISTRY_ASYNC)
    {
      while (result == NULL)
        g_main_context_iteration (NULL, TRUE);
      fn = path == COMPILE_COMPILER_ASYNC ? reg_compiler_compile_finish (eager, result, &error)
                                          : reg_registry_compile_finish (registry, result, &error);
    }
  g_assert_no_error (error);

  return fn;
}

/* A compiled function does not depend on its graph staying as it was: on
 * every path, the backend gets a copy that never changes, so a builder
 * call after the compile (or while it runs) changes nothing of it. */
static void
test_graph_changed_after_compile (gconstpointer data)
{
  CompilePath path = GPOINTER_TO_INT (data);
  g_autoptr(RegGraph) graph = reg_graph_new ();
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;
  const float x[] = { 1, 2, 3 };
  const float want[] = { 1.0f - path, 2.0f - path, 3.0f - path };
  guint in, out;

  /* A constant of its own on each path: no compile is a cache hit. */
  in = reg_graph_add_input (graph, "x");
  out = reg_graph_add_op (graph, "sub", (guint[]) { in, reg_graph_add_constant (graph, path) },
                          2, &error);
  reg_graph_set_outputs (graph, &out, 1);
  g_ptr_array_add (inputs, tensor_new ((const gint64[]) { 3 }, 1, x));

  fn = compile_by (path, graph, inputs);
  out = reg_graph_add_op (graph, "neg", &out, 1, &error);
  g_assert_no_error (error);
  reg_graph_set_outputs (graph, (guint[]) { out, out }, 2);

  outputs = reg_compiled_fn_call (fn, inputs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (outputs->len, ==, 1);
  assert_tensor_close (g_ptr_array_index (outputs, 0), (const gint64[]) { 3 }, 1, want,
                       "the graph as it was compiled");
}

/* Errors -------------------------------------------------------------- */

static void
test_options (void)
{
  const char *backends[] = { "eager", testing_backends[0], testing_backends[1] };
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  const gint64 shape[] = { 2 };

  graph = graph_new_from_string ("graph(x):\n"
                                 "  y = mul(x, 2)\n"
                                 "  return (y,)\n");
  g_ptr_array_add (inputs, reg_tensor_new (shape, 1));

  for (gsize i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegCompiledFn) fn = NULL;
      g_autoptr(GVariant) empty = g_variant_ref_sink (g_variant_new_parsed ("@a{sv} {}"));
      const char *keys[] = { "fuse", "threads", "block-size", "" };

      /* NULL and an empty dictionary: nothing to reject. */
      fn = reg_registry_compile (registry, backends[i], graph, inputs, NULL, &error);
      g_assert_no_error (error);
      g_clear_object (&fn);
      fn = reg_registry_compile (registry, backends[i], graph, inputs, empty, &error);
      g_assert_no_error (error);
      g_clear_object (&fn);

      /* None of them takes any option, not even the inductor's. */
      for (gsize k = 0; k < G_N_ELEMENTS (keys); k++)
        {
          g_autoptr(GVariantDict) dict = g_variant_dict_new (NULL);
          g_autoptr(GVariant) options = NULL;
          g_autofree char *quoted = g_strdup_printf ("'%s'", keys[k]);

          g_variant_dict_insert (dict, keys[k], "b", TRUE);
          options = g_variant_ref_sink (g_variant_dict_end (dict));
          fn = reg_registry_compile (registry, backends[i], graph, inputs, options, &error);
          g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
          g_assert_null (fn);
          g_assert_nonnull (strstr (error->message, backends[i]));
          g_assert_nonnull (strstr (error->message, quoted));
          g_clear_error (&error);
        }
    }
}

static void
test_bad_inputs (void)
{
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GPtrArray) too_few = tensor_array_new ();
  g_autoptr(GPtrArray) too_many = tensor_array_new ();
  g_autoptr(GPtrArray) wrong_shape = tensor_array_new ();
  g_autoptr(GPtrArray) wrong_rank = tensor_array_new ();
  g_autoptr(GPtrArray) none = tensor_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  const gint64 shape[] = { 2, 2 };
  GPtrArray *bad[] = { too_few, too_many, wrong_shape, wrong_rank, none };

  graph = graph_new_from_string ("graph(x, y):\n"
                                 "  z = add(x, y)\n"
                                 "  return (z,)\n");
  g_ptr_array_add (inputs, reg_tensor_new (shape, 2));
  g_ptr_array_add (inputs, reg_tensor_new (shape, 2));

  g_ptr_array_add (too_few, reg_tensor_new (shape, 2));
  for (guint i = 0; i < 3; i++)
    g_ptr_array_add (too_many, reg_tensor_new (shape, 2));
  g_ptr_array_add (wrong_shape, reg_tensor_new (shape, 2));
  g_ptr_array_add (wrong_shape, reg_tensor_new ((const gint64[]) { 2, 3 }, 2));
  g_ptr_array_add (wrong_rank, reg_tensor_new ((const gint64[]) { 4 }, 1));
  g_ptr_array_add (wrong_rank, reg_tensor_new ((const gint64[]) { 4 }, 1));

  fn = compile ("eager", graph, inputs, &error);
  g_assert_no_error (error);

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GPtrArray) outputs = reg_compiled_fn_call (fn, bad[i], &error);

      g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_INPUTS);
      g_assert_null (outputs);
      g_clear_error (&error);
    }

  /* A failed call leaves the function usable. */
  {
    g_autoptr(GPtrArray) outputs = reg_compiled_fn_call (fn, inputs, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (outputs->len, ==, 1);
  }
}

/* The TESTING_ONLY backends -------------------------------------------- */

#define GRAPH_WITH_RELU \
  "graph(x, y):\n" \
  "  a = mul(x, y)\n" \
  "  b = relu(a)\n" \
  "  c = add(b, 1)\n" \
  "  return (c,)\n"

#define GRAPH_WITHOUT_RELU \
  "graph(x, y):\n" \
  "  a = mul(x, y)\n" \
  "  b = tanh(a)\n" \
  "  c = add(b, 1)\n" \
  "  d = sum(c)\n" \
  "  return (c, d)\n"

/* relu in a node no output needs counts too. */
#define GRAPH_WITH_DEAD_RELU \
  "graph(x, y):\n" \
  "  a = relu(x)\n" \
  "  b = add(x, y)\n" \
  "  return (b,)\n"

static GPtrArray *
testing_inputs_new (void)
{
  GPtrArray *inputs = tensor_array_new ();
  const gint64 shape[] = { 3, 2 };

  g_ptr_array_add (inputs, tensor_new_uniform (shape, 2, -2, 2));
  g_ptr_array_add (inputs, tensor_new_uniform (shape, 2, -2, 2));

  return inputs;
}

/* Without relu, @backend computes what eager computes. */
static void
assert_like_eager (const char *backend)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (GRAPH_WITHOUT_RELU);
  g_autoptr(GPtrArray) inputs = testing_inputs_new ();
  g_autoptr(GPtrArray) got = run (backend, graph, inputs);
  g_autoptr(GPtrArray) want = run ("eager", graph, inputs);

  g_assert_cmpuint (got->len, ==, want->len);
  for (guint i = 0; i < got->len; i++)
    assert_tensors_equal (g_ptr_array_index (got, i), g_ptr_array_index (want, i), backend);
}

static void
test_testing_compile_error (void)
{
  const char *backend = "relu_compile_error_TESTING_ONLY";
  const char *graphs[] = { GRAPH_WITH_RELU, GRAPH_WITH_DEAD_RELU };

  for (gsize i = 0; i < G_N_ELEMENTS (graphs); i++)
    {
      g_autoptr(RegGraph) graph = graph_new_from_string (graphs[i]);
      g_autoptr(GPtrArray) inputs = testing_inputs_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(RegCompiledFn) fn = compile (backend, graph, inputs, &error);

      g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
      g_assert_null (fn);
      g_assert_nonnull (strstr (error->message, "relu"));
    }

  assert_like_eager (backend);
}

static void
test_testing_runtime_error (void)
{
  const char *backend = "relu_runtime_error_TESTING_ONLY";
  const char *graphs[] = { GRAPH_WITH_RELU, GRAPH_WITH_DEAD_RELU };

  for (gsize i = 0; i < G_N_ELEMENTS (graphs); i++)
    {
      g_autoptr(RegGraph) graph = graph_new_from_string (graphs[i]);
      g_autoptr(GPtrArray) inputs = testing_inputs_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(RegCompiledFn) fn = compile (backend, graph, inputs, &error);

      g_assert_no_error (error);
      g_assert_nonnull (fn);

      /* Every call fails, not only the first. */
      for (guint call = 0; call < 2; call++)
        {
          g_autoptr(GPtrArray) outputs = reg_compiled_fn_call (fn, inputs, &error);

          g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_RUNTIME);
          g_assert_null (outputs);
          g_assert_nonnull (strstr (error->message, "relu"));
          g_clear_error (&error);
        }
    }

  assert_like_eager (backend);
}

/* Registry view --------------------------------------------------------- */

static void
test_backends_are_debug (void)
{
  const char *backends[] = { "eager", testing_backends[0], testing_backends[1] };

  for (gsize i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegCompiler) compiler = NULL;
      g_auto(GStrv) tags = NULL;

      tags = reg_registry_get_backend_tags (registry, backends[i], &error);
      g_assert_no_error (error);
      g_assert_cmpstrv (tags, ((const char * const[]) { REG_TAG_DEBUG, NULL }));

      compiler = reg_registry_lookup_backend (registry, backends[i], &error);
      g_assert_no_error (error);
      g_assert_true (REG_IS_COMPILER (compiler));
      g_assert_cmpstr (reg_compiler_get_name (compiler), ==, backends[i]);
    }
}

static void
test_list_hides_debug (void)
{
  const char *backends[] = { "eager", testing_backends[0], testing_backends[1] };
  const char * const nothing[] = { NULL };
  const char * const experimental[] = { REG_TAG_EXPERIMENTAL, NULL };
  g_auto(GStrv) by_default = reg_registry_list_backends (registry, NULL);
  g_auto(GStrv) all = reg_registry_list_backends (registry, nothing);
  g_auto(GStrv) not_experimental = reg_registry_list_backends (registry, experimental);

  for (gsize i = 0; i < G_N_ELEMENTS (backends); i++)
    g_assert_false (g_strv_contains ((const char * const *) by_default, backends[i]));
  g_assert_true (strv_contains_all ((const char * const *) all, backends,
                                    G_N_ELEMENTS (backends)));
  g_assert_true (strv_contains_all ((const char * const *) not_experimental, backends,
                                    G_N_ELEMENTS (backends)));
}

static void
test_matmul_of_empty_operands (void)
{
  check_matmul_of_empty_operands (registry, "eager");
}

/* eager declares its functions shareable: one function, called from
 * several threads at once, gives every caller the single-call result. */
static void
test_concurrent_calls (void)
{
  g_autoptr(RegGraph) graph = concurrent_calls_graph_new ();
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 60, 40 }, 2, -1, 1));
  g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 40, 30 }, 2, -1, 1));
  fn = compile ("eager", graph, inputs, &error);
  g_assert_no_error (error);
  check_concurrent_calls (fn, inputs);
}

int
main (int   argc,
      char *argv[])
{
  static const char * const ops[] = {
    "add", "sub", "mul", "div", "maximum", "minimum",
    "neg", "relu", "exp", "log", "sqrt", "tanh", "sigmoid", "abs",
    "sum", "matmul",
  };
  int ret;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  registry = reg_registry_new ();

  for (gsize i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      g_autofree char *path = g_strdup_printf ("/eager/op/%s", ops[i]);

      g_test_add_data_func (path, ops[i], test_op);
    }
  g_test_add_func ("/eager/broadcast/both-sides", test_broadcast_both_sides);
  g_test_add_func ("/eager/matmul/shapes", test_matmul_shapes);
  g_test_add_func ("/eager/sum/to-0d", test_sum_to_0d);
  g_test_add_func ("/eager/shape/0d-inputs", test_zero_d_inputs);
  g_test_add_func ("/eager/shape/zero-elements", test_zero_elements);
  g_test_add_func ("/eager/shape/matmul-of-empty-operands", test_matmul_of_empty_operands);
  g_test_add_func ("/eager/threads/concurrent-calls", test_concurrent_calls);
  g_test_add_func ("/eager/numerics/signed-zeros", test_signed_zeros);
  g_test_add_func ("/eager/graph/api-example", test_api_example);
  g_test_add_func ("/eager/graph/random-chains", test_random_chains);
  g_test_add_func ("/eager/outputs/no-alias", test_outputs_do_not_alias);
  g_test_add_data_func ("/eager/graph/changed-after-compile/compiler",
                        GINT_TO_POINTER (COMPILE_COMPILER), test_graph_changed_after_compile);
  g_test_add_data_func ("/eager/graph/changed-after-compile/compiler-async",
                        GINT_TO_POINTER (COMPILE_COMPILER_ASYNC), test_graph_changed_after_compile);
  g_test_add_data_func ("/eager/graph/changed-after-compile/registry",
                        GINT_TO_POINTER (COMPILE_REGISTRY), test_graph_changed_after_compile);
  g_test_add_data_func ("/eager/graph/changed-after-compile/registry-async",
                        GINT_TO_POINTER (COMPILE_REGISTRY_ASYNC), test_graph_changed_after_compile);
  g_test_add_func ("/eager/compile/bad-option", test_options);
  g_test_add_func ("/eager/call/bad-inputs", test_bad_inputs);
  g_test_add_func ("/eager/testing/compile-error", test_testing_compile_error);
  g_test_add_func ("/eager/testing/runtime-error", test_testing_runtime_error);
  g_test_add_func ("/eager/registry/tags-and-names", test_backends_are_debug);
  g_test_add_func ("/eager/registry/list-hides-debug", test_list_hides_debug);

  ret = g_test_run ();

  g_object_unref (registry);

  return ret;
}
