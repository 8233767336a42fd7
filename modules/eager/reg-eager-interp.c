/* reg-eager-interp.c: the reference interpreter shared by the eager and
 * testing backend modules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <string.h>

#include "reg-eager-interp.h"

/* Operators ----------------------------------------------------------- */

typedef float (*UnaryFn)  (float x);
typedef float (*BinaryFn) (float x, float y);

static float
op_add (float x,
        float y)
{
  return x + y;
}

static float
op_sub (float x,
        float y)
{
  return x - y;
}

static float
op_mul (float x,
        float y)
{
  return x * y;
}

static float
op_div (float x,
        float y)
{
  return x / y;
}

/* maximum and minimum follow IEEE 754-2019 maximum/minimum: NaN if either
 * side is NaN (numpy's maximum/minimum, the reference of the tests, do too,
 * where fmaxf()/fminf() would return the number), and -0 < +0, so both are
 * commutative down to the sign of zero. */
static float
op_maximum (float x,
            float y)
{
  if (isnan (x) || isnan (y))
    return NAN;
  if (x == y)
    return signbit (x) ? y : x;
  return x > y ? x : y;
}

static float
op_minimum (float x,
            float y)
{
  if (isnan (x) || isnan (y))
    return NAN;
  if (x == y)
    return signbit (x) ? x : y;
  return x < y ? x : y;
}

static float
op_neg (float x)
{
  return -x;
}

/* relu (x) is maximum (x, 0), so NaN stays NaN (a bare `x > 0 ? x : 0`
 * would turn it into 0 and hide it) and relu (-0) is +0. */
static float
op_relu (float x)
{
  return op_maximum (x, 0.0f);
}

static float
op_sigmoid (float x)
{
  return 1.0f / (1.0f + expf (-x));
}

/* What the interpreter runs for @op: the function applied to each element
 * (@unary or @binary, by the operator's kind; sum and matmul have loops of
 * their own and set neither).  Returns FALSE for an operator this module
 * does not know: one added to libreg after the module was built.  The
 * switch has no default, so the compiler flags a RegOp left out here. */
static gboolean
lookup_op (RegOp     op,
           UnaryFn  *unary,
           BinaryFn *binary)
{
  *unary = NULL;
  *binary = NULL;

  switch (op)
    {
    case REG_OP_ADD:     *binary = op_add;     return TRUE;
    case REG_OP_SUB:     *binary = op_sub;     return TRUE;
    case REG_OP_MUL:     *binary = op_mul;     return TRUE;
    case REG_OP_DIV:     *binary = op_div;     return TRUE;
    case REG_OP_MAXIMUM: *binary = op_maximum; return TRUE;
    case REG_OP_MINIMUM: *binary = op_minimum; return TRUE;
    case REG_OP_NEG:     *unary = op_neg;      return TRUE;
    case REG_OP_RELU:    *unary = op_relu;     return TRUE;
    case REG_OP_EXP:     *unary = expf;        return TRUE;
    case REG_OP_LOG:     *unary = logf;        return TRUE;
    case REG_OP_SQRT:    *unary = sqrtf;       return TRUE;
    case REG_OP_TANH:    *unary = tanhf;       return TRUE;
    case REG_OP_SIGMOID: *unary = op_sigmoid;  return TRUE;
    case REG_OP_ABS:     *unary = fabsf;       return TRUE;
    case REG_OP_SUM:                           return TRUE;
    case REG_OP_MATMUL:                        return TRUE;
    }

  return FALSE;
}

/* Tensors ------------------------------------------------------------- */

static gboolean
shapes_equal (RegTensor *a,
              RegTensor *b)
{
  const gint64 *a_shape, *b_shape;
  guint a_dims, b_dims;

  a_shape = reg_tensor_get_shape (a, &a_dims);
  b_shape = reg_tensor_get_shape (b, &b_dims);

  return a_dims == b_dims &&
         (a_dims == 0 || memcmp (a_shape, b_shape, a_dims * sizeof (gint64)) == 0);
}

static char *
shape_to_string (RegTensor *tensor)
{
  const gint64 *shape;
  guint n_dims;
  GString *s = g_string_new ("[");

  shape = reg_tensor_get_shape (tensor, &n_dims);
  for (guint i = 0; i < n_dims; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", shape[i]);
  g_string_append_c (s, ']');

  return g_string_free (s, FALSE);
}

/* Compile-time checks keep every call within the shapes below, but the
 * interpreter must never read out of bounds, so a mismatch that slips
 * through (a bug elsewhere in libreg) is an error rather than a crash. */
static void
set_shape_error (GError      **error,
                 const char   *backend,
                 guint         node,
                 RegOp         op,
                 RegTensor    *a,
                 RegTensor    *b)
{
  g_autofree char *a_str = shape_to_string (a);
  g_autofree char *b_str = shape_to_string (b);

  g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_RUNTIME,
               "%s: node %u (%s): operands of shape %s and %s do not fit",
               backend, node, reg_op_get_name (op), a_str, b_str);
}

/* A new output of @shape, or NULL and REG_TENSOR_ERROR_NO_MEMORY naming
 * the node: sizes come from the caller's inputs, so memory may be short. */
static RegTensor *
new_output (const char    *backend,
            guint          node,
            RegOp          op,
            const gint64  *shape,
            guint          n_dims,
            GError       **error)
{
  RegTensor *out = reg_tensor_try_new (shape, n_dims, error);

  if (out == NULL)
    g_prefix_error (error, "%s: node %u (%s): ", backend, node, reg_op_get_name (op));

  return out;
}

static RegTensor *
eval_unary (const char    *backend,
            guint          node,
            RegOp          op,
            UnaryFn        fn,
            RegTensor     *a,
            GError       **error)
{
  const gint64 *shape;
  guint n_dims;
  gsize n;
  const float *x;
  float *out_data;
  RegTensor *out;

  shape = reg_tensor_get_shape (a, &n_dims);
  x = reg_tensor_get_data (a, &n);
  out = new_output (backend, node, op, shape, n_dims, error);
  if (out == NULL)
    return NULL;
  out_data = reg_tensor_get_data (out, NULL);
  for (gsize i = 0; i < n; i++)
    out_data[i] = fn (x[i]);

  return out;
}

static RegTensor *
eval_binary (const char    *backend,
             guint          node,
             RegOp          op,
             BinaryFn       fn,
             RegTensor     *a,
             RegTensor     *b,
             GError       **error)
{
  RegTensor *like;
  const gint64 *shape;
  guint n_dims;
  gsize n, a_step = 1, b_step = 1;
  const float *x, *y;
  float *out_data;
  RegTensor *out;

  /* A 0-d side is broadcast by reading its one element at every step. */
  if (shapes_equal (a, b))
    {
      like = a;
    }
  else if (reg_tensor_get_n_dims (a) == 0)
    {
      like = b;
      a_step = 0;
    }
  else if (reg_tensor_get_n_dims (b) == 0)
    {
      like = a;
      b_step = 0;
    }
  else
    {
      set_shape_error (error, backend, node, op, a, b);
      return NULL;
    }

  shape = reg_tensor_get_shape (like, &n_dims);
  x = reg_tensor_get_data (a, NULL);
  y = reg_tensor_get_data (b, NULL);
  out = new_output (backend, node, op, shape, n_dims, error);
  if (out == NULL)
    return NULL;
  out_data = reg_tensor_get_data (out, &n);
  for (gsize i = 0; i < n; i++)
    out_data[i] = fn (x[i * a_step], y[i * b_step]);

  return out;
}

static RegTensor *
eval_sum (RegTensor *a)
{
  gsize n;
  const float *x;
  double acc = 0.0;
  RegTensor *out;

  /* A float accumulator loses the small terms of long or cancelling sums
   * (1e8 + 1 - 1e8 gives 0) and overflows on large partial sums; double,
   * rounded to float once at the end, gets those right and depends far
   * less on the order of the terms. */
  x = reg_tensor_get_data (a, &n);
  for (gsize i = 0; i < n; i++)
    acc += x[i];

  out = reg_tensor_new (NULL, 0);
  reg_tensor_get_data (out, NULL)[0] = (float) acc;

  return out;
}

static RegTensor *
eval_matmul (const char    *backend,
             guint          node,
             RegOp          op,
             RegTensor     *a,
             RegTensor     *b,
             GError       **error)
{
  const gint64 *a_shape, *b_shape;
  guint a_dims, b_dims;
  gint64 m, k, n;
  const float *x, *y;
  float *out_data;
  RegTensor *out;

  a_shape = reg_tensor_get_shape (a, &a_dims);
  b_shape = reg_tensor_get_shape (b, &b_dims);
  if (a_dims != 2 || b_dims != 2 || a_shape[1] != b_shape[0])
    {
      set_shape_error (error, backend, node, op, a, b);
      return NULL;
    }

  m = a_shape[0];
  k = a_shape[1];
  n = b_shape[1];
  x = reg_tensor_get_data (a, NULL);
  y = reg_tensor_get_data (b, NULL);
  out = new_output (backend, node, op, (const gint64[]) { m, n }, 2, error);
  if (out == NULL)
    return NULL;
  out_data = reg_tensor_get_data (out, NULL);

  /* Accumulated in double, like sum, so the reference does not depend on
   * the order of the additions. */
  for (gint64 i = 0; i < m; i++)
    for (gint64 j = 0; j < n; j++)
      {
        double acc = 0.0;

        for (gint64 l = 0; l < k; l++)
          acc += (double) x[i * k + l] * y[l * n + j];
        out_data[i * n + j] = (float) acc;
      }

  return out;
}

/* The compiled function type --------------------------------------------- */

/* The function keeps its graph and reads it on every call: the graph
 * compile is given never changes (libreg compiles a frozen copy of the
 * caller's), so neither do the arrays it lends. */
typedef struct
{
  GObject      parent_instance;

  const char  *backend;      /* static string of the module that made us */
  RegGraph    *graph;
  guint        n_nodes;
  const guint *outputs;      /* the graph's */
  guint        n_outputs;
  guint       *last_use;     /* per node: the last node that reads it */
  char        *call_error;   /* nullable: every call fails with this */
} EagerFn;

typedef GObjectClass EagerFnClass;

/* Static, so each module that compiles this file has its own type. */
static GType eager_fn_type;
static gpointer eager_fn_parent_class;

#define EAGER_FN(obj) (G_TYPE_CHECK_INSTANCE_CAST ((obj), eager_fn_type, EagerFn))

static void
eager_fn_finalize (GObject *object)
{
  EagerFn *self = EAGER_FN (object);

  g_clear_object (&self->graph);
  g_clear_pointer (&self->last_use, g_free);
  g_clear_pointer (&self->call_error, g_free);

  G_OBJECT_CLASS (eager_fn_parent_class)->finalize (object);
}

static RegTensor *
eval_node (EagerFn     *self,
           guint        node,
           GPtrArray   *values,
           GError     **error)
{
  const guint *args;
  guint n_args;
  RegOp op;
  UnaryFn unary;
  BinaryFn binary;
  gboolean known;
  RegTensor *a, *b;

  /* Ops were checked at compile time (_reg_eager_compile) and the graph
   * checked the arity when the node was added. */
  op = reg_graph_get_node_operator (self->graph, node);
  known = lookup_op (op, &unary, &binary);
  args = reg_graph_get_node_args (self->graph, node, &n_args);
  g_assert (known);
  g_assert (n_args == reg_op_get_arity (op));

  a = g_ptr_array_index (values, args[0]);
  b = n_args > 1 ? g_ptr_array_index (values, args[1]) : NULL;

  switch (op)
    {
    case REG_OP_SUM:
      return eval_sum (a);
    case REG_OP_MATMUL:
      return eval_matmul (self->backend, node, op, a, b, error);
    default:
      break;
    }

  if (unary != NULL)
    return eval_unary (self->backend, node, op, unary, a, error);
  g_assert (binary != NULL);
  return eval_binary (self->backend, node, op, binary, a, b, error);
}

/* The free function of the value array, whose released slots are NULL. */
static void
value_free (gpointer value)
{
  if (value != NULL)
    g_object_unref (value);
}

/* Drops the values that no node after @node reads: its arguments whose last
 * reader it is, and its own value if nothing reads it. */
static void
release_dead_values (EagerFn   *self,
                     GPtrArray *values,
                     guint      node)
{
  const guint *args;
  guint n_args;

  args = reg_graph_get_node_args (self->graph, node, &n_args);
  for (guint i = 0; i < n_args; i++)
    if (self->last_use[args[i]] == node)
      g_clear_object (&g_ptr_array_index (values, args[i]));

  if (self->last_use[node] == node)
    g_clear_object (&g_ptr_array_index (values, node));
}

/* Returns the outputs, each a tensor no one else holds. */
static GPtrArray *
eager_fn_interpret (EagerFn    *self,
                    GPtrArray  *inputs,
                    GError    **error)
{
  g_autoptr(GPtrArray) values = NULL;
  GPtrArray *results;
  const guint *input_nodes;
  guint n_inputs;

  input_nodes = reg_graph_get_inputs (self->graph, &n_inputs);
  if (inputs->len != n_inputs)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_INPUTS,
                   "%s: the graph takes %u inputs, got %u",
                   self->backend, n_inputs, inputs->len);
      return NULL;
    }

  /* values[node] holds a reference to the node's tensor from its
   * evaluation to its last use (see eager_fn_new()). */
  values = g_ptr_array_new_full (self->n_nodes, value_free);
  g_ptr_array_set_size (values, self->n_nodes);
  for (guint i = 0; i < n_inputs; i++)
    g_ptr_array_index (values, input_nodes[i]) = g_object_ref (g_ptr_array_index (inputs, i));

  for (guint node = 0; node < self->n_nodes; node++)
    {
      switch (reg_graph_get_node_kind (self->graph, node))
        {
        case REG_NODE_INPUT:
          break;

        case REG_NODE_CONSTANT:
          {
            RegTensor *value = reg_tensor_new (NULL, 0);

            reg_tensor_get_data (value, NULL)[0] =
              (float) reg_graph_get_node_value (self->graph, node);
            g_ptr_array_index (values, node) = value;
          }
          break;

        case REG_NODE_OP:
          {
            RegTensor *value = eval_node (self, node, values, error);

            if (value == NULL)
              return NULL;
            g_ptr_array_index (values, node) = value;
          }
          break;

        default:
          g_assert_not_reached ();
        }

      release_dead_values (self, values, node);
    }

  /* The caller owns the results, so none may be one of its inputs or
   * another result: those are copied. */
  results = g_ptr_array_new_full (self->n_outputs, g_object_unref);
  for (guint i = 0; i < self->n_outputs; i++)
    {
      RegTensor *value = g_ptr_array_index (values, self->outputs[i]);
      gboolean aliased;

      aliased = g_ptr_array_find (inputs, value, NULL) ||
                g_ptr_array_find (results, value, NULL);
      g_ptr_array_add (results, aliased ? reg_tensor_copy (value) : g_object_ref (value));
    }

  return results;
}

static GListModel *
eager_fn_run (RegCompiledFn  *fn,
              GPtrArray      *inputs,
              GError        **error)
{
  EagerFn *self = EAGER_FN (fn);
  g_autoptr(GPtrArray) results = NULL;
  GListStore *outputs;

  if (self->call_error != NULL)
    {
      g_set_error_literal (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_RUNTIME,
                           self->call_error);
      return NULL;
    }

  results = eager_fn_interpret (self, inputs, error);
  if (results == NULL)
    return NULL;

  outputs = g_list_store_new (REG_TYPE_TENSOR);
  g_list_store_splice (outputs, 0, 0, results->pdata, results->len);

  return G_LIST_MODEL (outputs);
}

static void
eager_fn_class_init (gpointer klass,
                     gpointer class_data)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  eager_fn_parent_class = g_type_class_peek_parent (klass);
  object_class->finalize = eager_fn_finalize;
}

static void
eager_fn_compiled_fn_iface_init (gpointer iface,
                                 gpointer iface_data)
{
  RegCompiledFnInterface *compiled_fn_iface = iface;

  compiled_fn_iface->run = eager_fn_run;
}

void
_reg_eager_fn_register_type (GTypeModule *module,
                             const char  *type_name)
{
  const GTypeInfo type_info = {
    .class_size = sizeof (EagerFnClass),
    .class_init = eager_fn_class_init,
    .instance_size = sizeof (EagerFn),
  };
  const GInterfaceInfo compiled_fn_info = {
    .interface_init = eager_fn_compiled_fn_iface_init,
  };

  eager_fn_type = g_type_module_register_type (module, G_TYPE_OBJECT, type_name,
                                               &type_info, G_TYPE_FLAG_FINAL);
  g_type_module_add_interface (module, eager_fn_type, REG_TYPE_COMPILED_FN,
                               &compiled_fn_info);
}

static RegCompiledFn *
eager_fn_new (const char *backend,
              RegGraph   *graph)
{
  EagerFn *self;
  g_assert (eager_fn_type != 0);

  self = g_object_new (eager_fn_type, NULL);
  self->backend = backend;
  self->graph = g_object_ref (graph);
  self->n_nodes = reg_graph_get_n_nodes (graph);
  self->outputs = reg_graph_get_outputs (graph, &self->n_outputs);

  /* Nodes come in definition order, after their arguments, so the last
   * reader of a node is the last one found; a node no one reads is its own
   * last use, and outputs live until the end. */
  self->last_use = g_new (guint, self->n_nodes);
  for (guint node = 0; node < self->n_nodes; node++)
    {
      guint n_args;
      const guint *args = reg_graph_get_node_args (self->graph, node, &n_args);

      self->last_use[node] = node;
      for (guint i = 0; i < n_args; i++)
        self->last_use[args[i]] = node;
    }
  for (guint i = 0; i < self->n_outputs; i++)
    self->last_use[self->outputs[i]] = G_MAXUINT;

  return (RegCompiledFn *) self;
}

void
_reg_eager_fn_set_call_error (RegCompiledFn *fn,
                              const char    *message)
{
  EagerFn *self = EAGER_FN (fn);

  g_free (self->call_error);
  self->call_error = g_strdup (message);
}

/* Compiling ----------------------------------------------------------- */

static gboolean
check_options (const char  *backend,
               GVariant    *options,
               GError     **error)
{
  const char *key;

  if (options == NULL)
    return TRUE;

  if (!g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT))
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: options must be of type a{sv}, not %s",
                   backend, g_variant_get_type_string (options));
      return FALSE;
    }

  /* This interpreter has nothing to tune: any key is unknown. */
  if (g_variant_n_children (options) > 0)
    {
      g_variant_get_child (options, 0, "{&sv}", &key, NULL);
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: unknown option '%s'", backend, key);
      return FALSE;
    }

  return TRUE;
}

/* A graph only holds RegOp values, and lookup_op() knows every one this
 * module was built with; this catches an operator added to libreg after. */
static gboolean
check_ops (const char  *backend,
           RegGraph    *graph,
           GError     **error)
{
  guint n_nodes = reg_graph_get_n_nodes (graph);

  for (guint node = 0; node < n_nodes; node++)
    {
      RegOp op;
      UnaryFn unary;
      BinaryFn binary;

      if (reg_graph_get_node_kind (graph, node) != REG_NODE_OP)
        continue;

      op = reg_graph_get_node_operator (graph, node);
      if (!lookup_op (op, &unary, &binary))
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP,
                       "%s: node %u calls '%s', which this backend does not support",
                       backend, node, reg_graph_get_node_op (graph, node));
          return FALSE;
        }
    }

  return TRUE;
}

RegCompiledFn *
_reg_eager_compile (const char  *backend,
                    RegGraph    *graph,
                    GVariant    *options,
                    GError     **error)
{
  if (!check_options (backend, options, error) ||
      !check_ops (backend, graph, error))
    return NULL;

  return eager_fn_new (backend, graph);
}

guint
_reg_eager_find_op (RegGraph *graph,
                    RegOp     op)
{
  guint n_nodes = reg_graph_get_n_nodes (graph);

  for (guint node = 0; node < n_nodes; node++)
    if (reg_graph_get_node_kind (graph, node) == REG_NODE_OP &&
        reg_graph_get_node_operator (graph, node) == op)
      return node;

  return REG_GRAPH_INVALID_NODE;
}
