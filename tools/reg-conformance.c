/* reg-conformance.c: the graphs a backend must agree with eager on
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The conformance set of `regctl verify` (docs/verifying-backends.md):
 *
 *   op/NAME        every operator once, on NaN, infinities, zeros,
 *                  subnormals, overflowing values and random ones (binary
 *                  operators on every pair of them)
 *   const/NAME     each binary operator with a constant on either side,
 *                  NaN, infinity and -0 among the constants
 *   sweep/NAME     the functions a backend may approximate (exp, log,
 *                  tanh, sigmoid) over 131,073 floats spread over the
 *                  whole range, held to a bound in ulp
 *   sum/...        sums of a vector, an empty tensor, a 0-d one, one
 *                  holding an infinity
 *   matmul/MxKxN   matmuls of odd sizes, empty ones and k = 0 included
 *   shape/...      0-d and 8-d tensors and empty ones through several
 *                  operators
 *   chain/long     64 operators one after the other
 *   outputs/...    several outputs: an input, a constant, one node twice
 *
 * The operators are those of the library's table (RegOp), so a new one is
 * covered with the bound of its kind.  The inputs are the same on every
 * run (a GRand with a fixed seed), so a verdict can be reproduced.  Each case's bound comes from
 * reg-tolerance.h, the bounds the test suite holds the inductor to.
 */

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "reg-conformance.h"
#include "reg-tolerance.h"

#define SEED 20240601
#define SWEEP_STRIDE 32771  /* prime: every exponent and many mantissas */

static const float specials[] = {
  NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-45f, -1e-45f, 1e-40f, 1.17549435e-38f,
  1.0f, -1.0f, 0.5f, 0.625f, -0.625f, 9.0f, 20.0f, -20.0f, 44.0f, 88.0f, 88.72f, 88.73f, 89.0f,
  -87.0f, -88.0f, -100.0f, -103.0f, -104.0f, -110.0f, 1e30f, -1e30f, 3.4e38f, -3.4e38f,
};

void
conformance_case_free (ConformanceCase *c)
{
  g_free (c->name);
  g_clear_object (&c->graph);
  g_clear_pointer (&c->inputs, g_ptr_array_unref);
  g_free (c);
}

/* Building graphs: the set is fixed, so a builder error is a bug here. */

static guint
add_op (RegGraph    *graph,
        const char  *op,
        const guint *args,
        guint        n_args)
{
  g_autoptr(GError) error = NULL;
  guint node = reg_graph_add_op (graph, op, args, n_args, &error);

  if (node == REG_GRAPH_INVALID_NODE)
    g_error ("conformance set: %s: %s", op, error->message);
  return node;
}

#define op1(graph, op, a) add_op ((graph), (op), (const guint[]) { (a) }, 1)
#define op2(graph, op, a, b) add_op ((graph), (op), (const guint[]) { (a), (b) }, 2)

static void
set_outputs (RegGraph *graph,
             guint     n,
             ...)
{
  g_autofree guint *nodes = g_new (guint, n);
  va_list args;

  va_start (args, n);
  for (guint i = 0; i < n; i++)
    nodes[i] = va_arg (args, guint);
  va_end (args);

  reg_graph_set_outputs (graph, nodes, n);
}

/* Tensors */

static RegTensor *
tensor_uniform (GRand        *rand,
                const gint64 *shape,
                guint         n_dims,
                double        low,
                double        high)
{
  RegTensor *tensor = reg_tensor_new (shape, n_dims);
  gsize n;
  float *data = reg_tensor_get_data (tensor, &n);

  for (gsize i = 0; i < n; i++)
    data[i] = (float) g_rand_double_range (rand, low, high);

  return tensor;
}

/* The specials, then random values in [-3, 3): 64 elements. */
static RegTensor *
tensor_specials (GRand *rand)
{
  const gint64 n = 64;
  RegTensor *tensor = reg_tensor_new (&n, 1);
  float *data = reg_tensor_get_data (tensor, NULL);

  for (gint64 i = 0; i < n; i++)
    data[i] = i < (gint64) G_N_ELEMENTS (specials) ? specials[i]
                                                   : (float) g_rand_double_range (rand, -3, 3);

  return tensor;
}

static ConformanceCase *
case_new (GPtrArray  *cases,
          const char *name,
          const char *op,
          RegGraph   *graph,
          double      atol,
          double      rtol)
{
  ConformanceCase *c = g_new0 (ConformanceCase, 1);

  c->name = g_strdup (name);
  c->op = op;
  c->graph = graph;
  c->inputs = g_ptr_array_new_with_free_func (g_object_unref);
  c->atol = atol;
  c->rtol = rtol;
  c->max_ulp = G_MAXUINT;
  g_ptr_array_add (cases, c);

  return c;
}

/* Every operator of the library's table (RegOp), in its order. */
static GArray *
all_ops (void)
{
  GEnumClass *klass = g_type_class_ref (REG_TYPE_OP);
  GArray *ops = g_array_new (FALSE, FALSE, sizeof (RegOp));

  for (guint i = 0; i < klass->n_values; i++)
    {
      RegOp op = klass->values[i].value;

      g_array_append_val (ops, op);
    }
  g_type_class_unref (klass);

  return ops;
}

static void
add_operator_cases (GPtrArray *cases,
                    GArray    *ops,
                    GRand     *rand)
{
  for (guint i = 0; i < ops->len; i++)
    {
      RegOp op = g_array_index (ops, RegOp, i);
      const char *op_name = reg_op_get_name (op);
      g_autofree char *name = g_strdup_printf ("op/%s", op_name);
      RegGraph *graph = reg_graph_new ();
      ConformanceCase *c;
      guint x, y;

      switch (reg_op_get_kind (op))
        {
        case REG_OP_KIND_ELEMENTWISE_UNARY:
          x = reg_graph_add_input (graph, "x");
          set_outputs (graph, 1, op1 (graph, op_name, x));
          c = case_new (cases, name, op_name, graph, 0, REG_TOLERANCE_ONE_OP_RTOL);
          g_ptr_array_add (c->inputs, tensor_specials (rand));
          break;

        case REG_OP_KIND_ELEMENTWISE_BINARY:
          {
            const gint64 n = G_N_ELEMENTS (specials);
            const gint64 pairs = n * n;
            RegTensor *a = reg_tensor_new (&pairs, 1);
            RegTensor *b = reg_tensor_new (&pairs, 1);
            float *ad = reg_tensor_get_data (a, NULL);
            float *bd = reg_tensor_get_data (b, NULL);

            for (gint64 j = 0; j < n; j++)
              for (gint64 k = 0; k < n; k++)
                {
                  ad[j * n + k] = specials[j];
                  bd[j * n + k] = specials[k];
                }

            x = reg_graph_add_input (graph, "x");
            y = reg_graph_add_input (graph, "y");
            set_outputs (graph, 1, op2 (graph, op_name, x, y));
            c = case_new (cases, name, op_name, graph, 0, REG_TOLERANCE_ONE_OP_RTOL);
            g_ptr_array_add (c->inputs, a);
            g_ptr_array_add (c->inputs, b);
          }
          break;

        case REG_OP_KIND_REDUCTION:
          {
            const gint64 n = 1000;

            x = reg_graph_add_input (graph, "x");
            set_outputs (graph, 1, op1 (graph, op_name, x));
            c = case_new (cases, name, op_name, graph, REG_TOLERANCE_ATOL, REG_TOLERANCE_RTOL);
            g_ptr_array_add (c->inputs, tensor_uniform (rand, &n, 1, -1, 1));
          }
          break;

        case REG_OP_KIND_MATMUL:
          {
            const gint64 a_shape[] = { 7, 13 }, b_shape[] = { 13, 5 };

            x = reg_graph_add_input (graph, "x");
            y = reg_graph_add_input (graph, "y");
            set_outputs (graph, 1, op2 (graph, op_name, x, y));
            c = case_new (cases, name, op_name, graph, _reg_tolerance_matmul_atol (13), REG_TOLERANCE_RTOL);
            g_ptr_array_add (c->inputs, tensor_uniform (rand, a_shape, 2, -1, 1));
            g_ptr_array_add (c->inputs, tensor_uniform (rand, b_shape, 2, -1, 1));
          }
          break;

        default:
          g_assert_not_reached ();
        }
    }
}

/* Binary operators with constants: op(x, 2.5), op(-0.75, x), op(x, -0),
 * op(inf, x), op(x, nan). */
static void
add_constant_cases (GPtrArray *cases,
                    GArray    *ops,
                    GRand     *rand)
{
  for (guint i = 0; i < ops->len; i++)
    {
      RegOp op = g_array_index (ops, RegOp, i);
      const char *op_name = reg_op_get_name (op);
      g_autofree char *name = NULL;
      RegGraph *graph;
      ConformanceCase *c;
      guint x;

      if (reg_op_get_kind (op) != REG_OP_KIND_ELEMENTWISE_BINARY)
        continue;

      name = g_strdup_printf ("const/%s", op_name);
      graph = reg_graph_new ();
      x = reg_graph_add_input (graph, "x");
      set_outputs (graph, 5,
                   op2 (graph, op_name, x, reg_graph_add_constant (graph, 2.5)),
                   op2 (graph, op_name, reg_graph_add_constant (graph, -0.75), x),
                   op2 (graph, op_name, x, reg_graph_add_constant (graph, -0.0)),
                   op2 (graph, op_name, reg_graph_add_constant (graph, INFINITY), x),
                   op2 (graph, op_name, x, reg_graph_add_constant (graph, NAN)));
      c = case_new (cases, name, op_name, graph, 0, REG_TOLERANCE_ONE_OP_RTOL);
      g_ptr_array_add (c->inputs, tensor_specials (rand));
    }
}

/* The approximated functions over the whole range of floats. */
static void
add_sweep_cases (GPtrArray *cases,
                 GArray    *ops)
{
  for (guint i = 0; i < ops->len; i++)
    {
      RegOp op = g_array_index (ops, RegOp, i);
      const char *op_name = reg_op_get_name (op);
      const gint64 n = (gint64) (G_MAXUINT32 / SWEEP_STRIDE) + 1;
      g_autofree char *name = NULL;
      RegGraph *graph;
      ConformanceCase *c;
      RegTensor *x;
      float *data;

      if (_reg_tolerance_max_ulp (op) == G_MAXUINT)
        continue;

      name = g_strdup_printf ("sweep/%s", op_name);
      graph = reg_graph_new ();
      set_outputs (graph, 1, op1 (graph, op_name, reg_graph_add_input (graph, "x")));
      c = case_new (cases, name, op_name, graph, 0, 0);
      c->max_ulp = _reg_tolerance_max_ulp (op);

      x = reg_tensor_new (&n, 1);
      data = reg_tensor_get_data (x, NULL);
      for (gint64 j = 0; j < n; j++)
        {
          guint32 bits = (guint32) (j * SWEEP_STRIDE);

          memcpy (&data[j], &bits, sizeof bits);
        }
      g_ptr_array_add (c->inputs, x);
    }
}

/* An empty tensor, a 0-d one, one holding an infinity */
static void
add_sum_cases (GPtrArray *cases,
               GRand     *rand)
{
  static const char * const names[] = { "sum/empty", "sum/0d", "sum/infinity" };
  static const float with_infinity[] = { 1.0f, 2.0f, INFINITY, -3.0f };
  const gint64 empty = 0, four = 4;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      RegGraph *graph = reg_graph_new ();
      ConformanceCase *c;
      RegTensor *x;

      set_outputs (graph, 1, op1 (graph, "sum", reg_graph_add_input (graph, "x")));
      c = case_new (cases, names[i], "sum", graph, REG_TOLERANCE_ATOL, REG_TOLERANCE_RTOL);
      x = i == 0 ? reg_tensor_new (&empty, 1) : i == 1 ? tensor_uniform (rand, NULL, 0, -1, 1)
                                                       : reg_tensor_new (&four, 1);
      if (i == 2)
        memcpy (reg_tensor_get_data (x, NULL), with_infinity, sizeof with_infinity);
      g_ptr_array_add (c->inputs, x);
    }
}

static void
add_matmul_cases (GPtrArray *cases,
                  GRand     *rand)
{
  static const gint64 sizes[][3] = {
    { 1, 1, 1 }, { 33, 65, 17 }, { 0, 3, 4 }, { 3, 0, 4 }, { 5, 1, 9 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      const gint64 m = sizes[i][0], k = sizes[i][1], n = sizes[i][2];
      const gint64 a_shape[] = { m, k }, b_shape[] = { k, n };
      g_autofree char *name = g_strdup_printf ("matmul/%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                                               "x%" G_GINT64_FORMAT, m, k, n);
      RegGraph *graph = reg_graph_new ();
      ConformanceCase *c;
      guint x = reg_graph_add_input (graph, "x");
      guint y = reg_graph_add_input (graph, "y");

      set_outputs (graph, 1, op2 (graph, "matmul", x, y));
      c = case_new (cases, name, "matmul", graph, _reg_tolerance_matmul_atol (k), REG_TOLERANCE_RTOL);
      g_ptr_array_add (c->inputs, tensor_uniform (rand, a_shape, 2, -1, 1));
      g_ptr_array_add (c->inputs, tensor_uniform (rand, b_shape, 2, -1, 1));
    }
}

static void
add_graph_cases (GPtrArray *cases,
                 GRand     *rand)
{
  static const gint64 shape_8d[] = { 2, 1, 3, 1, 2, 2, 1, 3 };
  static const gint64 shape_empty[] = { 3, 0, 2 };
  const gint64 chain_length = 257;
  RegGraph *graph;
  ConformanceCase *c;
  guint x, y, a, b, s;

  /* 0-d tensors throughout, and a constant and an input as outputs */
  graph = reg_graph_new ();
  x = reg_graph_add_input (graph, "x");
  y = reg_graph_add_input (graph, "y");
  a = op1 (graph, "exp", op2 (graph, "add", x, y));
  s = op1 (graph, "sum", a);
  set_outputs (graph, 4, op2 (graph, "mul", s, reg_graph_add_constant (graph, 3)), a, x,
               reg_graph_add_constant (graph, 2.5));
  c = case_new (cases, "shape/0d", NULL, graph, REG_TOLERANCE_ATOL, REG_TOLERANCE_RTOL);
  g_ptr_array_add (c->inputs, tensor_uniform (rand, NULL, 0, -1, 1));
  g_ptr_array_add (c->inputs, tensor_uniform (rand, NULL, 0, -1, 1));

  /* 8 dimensions */
  graph = reg_graph_new ();
  x = reg_graph_add_input (graph, "x");
  y = reg_graph_add_input (graph, "y");
  a = op2 (graph, "maximum", op1 (graph, "tanh", op2 (graph, "mul", x, y)), x);
  s = op2 (graph, "div", op1 (graph, "sum", a), reg_graph_add_constant (graph, 7));
  set_outputs (graph, 2, a, s);
  c = case_new (cases, "shape/8d", NULL, graph, REG_TOLERANCE_ATOL, REG_TOLERANCE_RTOL);
  g_ptr_array_add (c->inputs, tensor_uniform (rand, shape_8d, G_N_ELEMENTS (shape_8d), -1, 1));
  g_ptr_array_add (c->inputs, tensor_uniform (rand, shape_8d, G_N_ELEMENTS (shape_8d), -1, 1));

  /* empty tensors: no element, a sum of 0 */
  graph = reg_graph_new ();
  x = reg_graph_add_input (graph, "x");
  y = reg_graph_add_input (graph, "y");
  b = op1 (graph, "relu", op2 (graph, "add", x, y));
  s = op1 (graph, "sum", b);
  set_outputs (graph, 3, b, s, op1 (graph, "exp", s));
  c = case_new (cases, "shape/empty", NULL, graph, REG_TOLERANCE_ATOL, REG_TOLERANCE_RTOL);
  g_ptr_array_add (c->inputs, reg_tensor_new (shape_empty, G_N_ELEMENTS (shape_empty)));
  g_ptr_array_add (c->inputs, reg_tensor_new (shape_empty, G_N_ELEMENTS (shape_empty)));

  /* a long chain of bounded steps */
  graph = reg_graph_new ();
  x = reg_graph_add_input (graph, "x");
  y = reg_graph_add_input (graph, "y");
  a = x;
  for (guint i = 0; i < 64; i++)
    switch (i % 8)
      {
      case 0: a = op1 (graph, "tanh", a); break;
      case 1: a = op2 (graph, "mul", a, reg_graph_add_constant (graph, 1.5)); break;
      case 2: a = op2 (graph, "add", a, x); break;
      case 3: a = op1 (graph, "sigmoid", a); break;
      case 4: a = op2 (graph, "sub", a, reg_graph_add_constant (graph, 0.25)); break;
      case 5: a = op2 (graph, "maximum", a, reg_graph_add_constant (graph, -0.5)); break;
      case 6: a = op2 (graph, "mul", reg_graph_add_constant (graph, 0.75), a); break;
      default: a = op2 (graph, "minimum", a, y); break;
      }
  set_outputs (graph, 1, a);
  c = case_new (cases, "chain/long", NULL, graph, REG_TOLERANCE_ATOL, REG_TOLERANCE_RTOL);
  g_ptr_array_add (c->inputs, tensor_uniform (rand, &chain_length, 1, -1, 1));
  g_ptr_array_add (c->inputs, tensor_uniform (rand, &chain_length, 1, -1, 1));

  /* several outputs: one node twice, an input, a constant, a reduction */
  graph = reg_graph_new ();
  x = reg_graph_add_input (graph, "x");
  y = reg_graph_add_input (graph, "y");
  a = op2 (graph, "mul", x, y);
  b = op1 (graph, "exp", op2 (graph, "add", a, reg_graph_add_constant (graph, 1)));
  set_outputs (graph, 6, b, a, x, b, reg_graph_add_constant (graph, 2), op1 (graph, "sum", b));
  c = case_new (cases, "outputs/several", NULL, graph, REG_TOLERANCE_ATOL, REG_TOLERANCE_RTOL);
  g_ptr_array_add (c->inputs, tensor_uniform (rand, &chain_length, 1, -1, 1));
  g_ptr_array_add (c->inputs, tensor_uniform (rand, &chain_length, 1, -1, 1));
}

GPtrArray *
conformance_cases_new (void)
{
  GPtrArray *cases = g_ptr_array_new_with_free_func ((GDestroyNotify) conformance_case_free);
  g_autoptr(GArray) ops = all_ops ();
  GRand *rand = g_rand_new_with_seed (SEED);

  add_operator_cases (cases, ops, rand);
  add_constant_cases (cases, ops, rand);
  add_sweep_cases (cases, ops);
  add_sum_cases (cases, rand);
  add_matmul_cases (cases, rand);
  add_graph_cases (cases, rand);

  g_rand_free (rand);
  return cases;
}

/* Comparing */

static gboolean
element_agrees (const ConformanceCase *c,
                float                  got,
                float                  want,
                double                *error)
{
  if (isnan (got) || isnan (want) || isinf (got) || isinf (want))
    {
      *error = INFINITY;
      return (isnan (got) && isnan (want)) || got == want;
    }

  if (c->max_ulp != G_MAXUINT)
    {
      guint64 distance = _reg_tolerance_ulp_distance (got, want);

      *error = (double) distance;
      return distance <= c->max_ulp;
    }

  *error = fabs ((double) got - want);
  return _reg_tolerance_floats_agree (got, want, c->atol, c->rtol);
}

gboolean
conformance_compare (const ConformanceCase  *c,
                     GPtrArray              *got,
                     GPtrArray              *want,
                     char                  **problem)
{
  g_return_val_if_fail (got->len == want->len, FALSE);

  for (guint i = 0; i < want->len; i++)
    {
      gsize n, n_got;
      const float *w = reg_tensor_get_data (g_ptr_array_index (want, i), &n);
      const float *g = reg_tensor_get_data (g_ptr_array_index (got, i), &n_got);
      gsize worst = G_MAXSIZE;
      double worst_error = -1;

      g_return_val_if_fail (n == n_got, FALSE);

      for (gsize j = 0; j < n; j++)
        {
          double error;

          if (!element_agrees (c, g[j], w[j], &error) && error > worst_error)
            {
              worst = j;
              worst_error = error;
            }
        }

      if (worst == G_MAXSIZE)
        continue;

      if (c->max_ulp != G_MAXUINT && isfinite (worst_error))
        *problem = g_strdup_printf ("output %u: largest error %.0f ulp at element %" G_GSIZE_FORMAT
                                    " (backend %.9g, eager %.9g), at most %u ulp allowed",
                                    i, worst_error, worst, g[worst], w[worst], c->max_ulp);
      else if (isfinite (worst_error))
        *problem = g_strdup_printf ("output %u: largest error %.3g at element %" G_GSIZE_FORMAT
                                    " (backend %.9g, eager %.9g), %.3g + %.3g |eager| allowed",
                                    i, worst_error, worst, g[worst], w[worst], c->atol, c->rtol);
      else
        *problem = g_strdup_printf ("output %u: element %" G_GSIZE_FORMAT
                                    " is %.9g where eager gives %.9g",
                                    i, worst, g[worst], w[worst]);
      return FALSE;
    }

  return TRUE;
}
