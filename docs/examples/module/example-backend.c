/* example-backend.c: a libreg backend module, built out of tree
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The backend "example" runs graphs of elementwise operators one node at
 * a time.  It takes one option, "check-finite" (a boolean, default false):
 * when it is true, a call fails if an output holds NaN or an infinity.
 */

#include <math.h>
#include <gmodule.h>
#include <reg.h>

#define EXAMPLE_BACKEND "example"

/* ---- The compiled function ---------------------------------------------- */

/* A node of the graph, as the compiled function runs it. */
typedef struct
{
  RegNodeKind kind;
  RegOp       op;       /* REG_NODE_OP: the operator and its arguments */
  guint       args[2];
  double      value;    /* REG_NODE_CONSTANT */
  guint       input;    /* REG_NODE_INPUT: its place among the inputs */
} ExampleNode;

#define EXAMPLE_TYPE_FN (example_fn_get_type ())
G_DECLARE_FINAL_TYPE (ExampleFn, example_fn, EXAMPLE, FN, GObject)

/* Immutable once compiled, so that several threads may call it at once. */
struct _ExampleFn
{
  GObject       parent_instance;

  ExampleNode  *nodes;
  guint         n_nodes;
  guint        *outputs;
  guint         n_outputs;
  RegShapeList *shapes;        /* the shape of each node */
  gboolean      check_finite;
};

static void example_fn_iface_init (RegCompiledFnInterface *iface);

/* A dynamic type: its code is in this module, so it is registered on the
 * RegModule (a GTypeModule) in reg_module_load() below. */
G_DEFINE_DYNAMIC_TYPE_EXTENDED (ExampleFn, example_fn, G_TYPE_OBJECT, G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (REG_TYPE_COMPILED_FN,
                                                               example_fn_iface_init))

static float
apply_unary (RegOp op,
             float x)
{
  switch (op)
    {
    case REG_OP_NEG: return -x;
    case REG_OP_RELU: return isnan (x) ? x : (x > 0 ? x : 0.0f);
    case REG_OP_EXP: return expf (x);
    case REG_OP_LOG: return logf (x);
    case REG_OP_SQRT: return sqrtf (x);
    case REG_OP_TANH: return tanhf (x);
    case REG_OP_SIGMOID: return 1.0f / (1.0f + expf (-x));
    case REG_OP_ABS: return fabsf (x);
    default: g_assert_not_reached ();
    }
}

static float
apply_binary (RegOp op,
              float x,
              float y)
{
  switch (op)
    {
    case REG_OP_ADD: return x + y;
    case REG_OP_SUB: return x - y;
    case REG_OP_MUL: return x * y;
    case REG_OP_DIV: return x / y;
    case REG_OP_MAXIMUM: return isnan (x) || isnan (y) ? NAN : fmaxf (x, y);
    case REG_OP_MINIMUM: return isnan (x) || isnan (y) ? NAN : fminf (x, y);
    default: g_assert_not_reached ();
    }
}

/* The operators this backend runs.  A libreg newer than this module may
 * have more: those fail to compile with REG_COMPILER_ERROR_UNSUPPORTED_OP. */
static gboolean
example_supports (RegOp op)
{
  switch (op)
    {
    case REG_OP_ADD: case REG_OP_SUB: case REG_OP_MUL: case REG_OP_DIV:
    case REG_OP_MAXIMUM: case REG_OP_MINIMUM:
    case REG_OP_NEG: case REG_OP_RELU: case REG_OP_EXP: case REG_OP_LOG:
    case REG_OP_SQRT: case REG_OP_TANH: case REG_OP_SIGMOID: case REG_OP_ABS:
      return TRUE;
    default:
      return FALSE;
    }
}

/* The tensor of node @n for this call: a new reference.  Sizes come from
 * the caller's inputs, so a result may not fit in memory: the try
 * constructor reports that (REG_TENSOR_ERROR_NO_MEMORY) instead of
 * aborting the application. */
static RegTensor *
compute_node (ExampleFn  *self,
              guint       n,
              GPtrArray  *inputs,
              GPtrArray  *values,
              GError    **error)
{
  const ExampleNode *node = &self->nodes[n];
  guint n_dims;
  const gint64 *shape = reg_shape_list_get_shape (self->shapes, n, &n_dims);
  RegTensor *result;
  float *out;
  gsize size;

  if (node->kind == REG_NODE_INPUT)
    return g_object_ref (g_ptr_array_index (inputs, node->input));

  result = reg_tensor_try_new_uninitialized (shape, n_dims, error);
  if (result == NULL)
    {
      g_prefix_error (error, "example: node %u: ", n);
      return NULL;
    }
  out = reg_tensor_get_data (result, &size);

  if (node->kind == REG_NODE_CONSTANT)
    {
      out[0] = (float) node->value;
      return result;
    }

  if (reg_op_get_arity (node->op) == 1)
    {
      const float *x = reg_tensor_get_data (g_ptr_array_index (values, node->args[0]), NULL);

      for (gsize i = 0; i < size; i++)
        out[i] = apply_unary (node->op, x[i]);
    }
  else
    {
      /* Both arguments have the result's shape, or one is a constant
       * (a 0-d tensor), which stands for every element. */
      RegTensor *a = g_ptr_array_index (values, node->args[0]);
      RegTensor *b = g_ptr_array_index (values, node->args[1]);
      gsize step_a = reg_tensor_get_n_elements (a) == size ? 1 : 0;
      gsize step_b = reg_tensor_get_n_elements (b) == size ? 1 : 0;
      const float *x = reg_tensor_get_data (a, NULL);
      const float *y = reg_tensor_get_data (b, NULL);

      for (gsize i = 0; i < size; i++)
        out[i] = apply_binary (node->op, x[i * step_a], y[i * step_b]);
    }

  return result;
}

/* The run virtual method: the inputs have been checked against the
 * example inputs (count and shapes) before it is called, and libreg
 * checks what it returns (one tensor per output, of the graph's shapes). */
static GListModel *
example_fn_run (RegCompiledFn  *fn,
                GPtrArray      *inputs,
                GError        **error)
{
  ExampleFn *self = EXAMPLE_FN (fn);
  g_autoptr(GPtrArray) values = g_ptr_array_new_full (self->n_nodes, g_object_unref);
  g_autoptr(GListStore) outputs = g_list_store_new (REG_TYPE_TENSOR);

  /* Node ids are in definition order: every argument comes first. */
  for (guint n = 0; n < self->n_nodes; n++)
    {
      RegTensor *value = compute_node (self, n, inputs, values, error);

      if (value == NULL)
        return NULL;
      g_ptr_array_add (values, value);
    }

  for (guint i = 0; i < self->n_outputs; i++)
    {
      RegTensor *output = g_ptr_array_index (values, self->outputs[i]);
      gsize size;
      const float *data = reg_tensor_get_data (output, &size);

      for (gsize k = 0; self->check_finite && k < size; k++)
        {
          if (!isfinite (data[k]))
            {
              g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_RUNTIME,
                           "example: output %u holds %g at element %" G_GSIZE_FORMAT
                           " (check-finite is set)", i, data[k], k);
              return NULL;
            }
        }
      g_list_store_append (outputs, output);   /* the store takes a reference */
    }

  return G_LIST_MODEL (g_steal_pointer (&outputs));
}

static void
example_fn_iface_init (RegCompiledFnInterface *iface)
{
  iface->run = example_fn_run;
}

static void
example_fn_finalize (GObject *object)
{
  ExampleFn *self = EXAMPLE_FN (object);

  g_free (self->nodes);
  g_free (self->outputs);
  g_clear_pointer (&self->shapes, reg_shape_list_unref);

  G_OBJECT_CLASS (example_fn_parent_class)->finalize (object);
}

static void
example_fn_class_init (ExampleFnClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = example_fn_finalize;
}

static void
example_fn_class_finalize (ExampleFnClass *klass)
{
}

static void
example_fn_init (ExampleFn *self)
{
}

/* ---- The compiler ------------------------------------------------------- */

#define EXAMPLE_TYPE_COMPILER (example_compiler_get_type ())
G_DECLARE_FINAL_TYPE (ExampleCompiler, example_compiler, EXAMPLE, COMPILER, GObject)

struct _ExampleCompiler
{
  GObject parent_instance;
};

static void example_compiler_iface_init (RegCompilerInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (ExampleCompiler, example_compiler, G_TYPE_OBJECT, G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (REG_TYPE_COMPILER,
                                                               example_compiler_iface_init))

/* @options is NULL or an a{sv} dictionary (libreg checks its type).  A
 * key the backend does not know, or a value of the wrong type, is
 * REG_COMPILER_ERROR_BAD_OPTION naming the key. */
static gboolean
read_options (GVariant  *options,
              gboolean  *check_finite,
              GError   **error)
{
  GVariantIter iter;
  const char *key;
  GVariant *value;

  if (options == NULL)
    return TRUE;

  g_variant_iter_init (&iter, options);
  while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
    {
      if (!g_str_equal (key, "check-finite"))
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                       "example: unknown option '%s' (the only option is check-finite)", key);
          g_variant_unref (value);
          return FALSE;
        }
      if (!g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                       "example: option 'check-finite' is of type '%s', expected 'b'",
                       g_variant_get_type_string (value));
          g_variant_unref (value);
          return FALSE;
        }
      *check_finite = g_variant_get_boolean (value);
    }

  return TRUE;
}

/* The compile virtual method: the graph has been checked against the
 * example inputs before it is called.  It may run in several threads at
 * once, as the registry hands one compiler to every caller. */
static RegCompiledFn *
example_compiler_compile (RegCompiler  *compiler,
                          RegGraph     *graph,
                          GPtrArray    *example_inputs,
                          GVariant     *options,
                          GError      **error)
{
  g_autoptr(ExampleFn) fn = g_object_new (EXAMPLE_TYPE_FN, NULL);
  const guint *inputs, *outputs;
  guint n_inputs, n_outputs;

  if (!read_options (options, &fn->check_finite, error))
    return NULL;

  fn->n_nodes = reg_graph_get_n_nodes (graph);
  fn->nodes = g_new0 (ExampleNode, fn->n_nodes);
  for (guint n = 0; n < fn->n_nodes; n++)
    {
      ExampleNode *node = &fn->nodes[n];

      node->kind = reg_graph_get_node_kind (graph, n);
      if (node->kind == REG_NODE_CONSTANT)
        node->value = reg_graph_get_node_value (graph, n);
      else if (node->kind == REG_NODE_OP)
        {
          guint n_args;
          const guint *args = reg_graph_get_node_args (graph, n, &n_args);

          node->op = reg_graph_get_node_operator (graph, n);
          if (!example_supports (node->op))
            {
              g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP,
                           "example: node %u calls %s; only elementwise operators are supported",
                           n, reg_graph_get_node_op (graph, n));
              return NULL;
            }
          for (guint a = 0; a < n_args; a++)
            node->args[a] = args[a];
        }
    }

  inputs = reg_graph_get_inputs (graph, &n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    fn->nodes[inputs[i]].input = i;

  outputs = reg_graph_get_outputs (graph, &n_outputs);
  fn->outputs = g_memdup2 (outputs, n_outputs * sizeof (guint));
  fn->n_outputs = n_outputs;

  fn->shapes = reg_graph_infer_shapes (graph, example_inputs, error);
  if (fn->shapes == NULL)
    return NULL;

  return REG_COMPILED_FN (g_steal_pointer (&fn));
}

/* Optional: the name reg_compiler_get_name() gives, a new string. */
static char *
example_compiler_dup_name (RegCompiler *compiler)
{
  return g_strdup (EXAMPLE_BACKEND);
}

/* Optional: its functions only read what compile made, so they may be
 * shared between callers and threads, and the registry's compile cache
 * hands the same function out again for an equal compile. */
static RegCompilerFlags
example_compiler_get_flags (RegCompiler *compiler)
{
  return REG_COMPILER_FLAGS_SHAREABLE;
}

static void
example_compiler_iface_init (RegCompilerInterface *iface)
{
  iface->compile = example_compiler_compile;
  iface->dup_name = example_compiler_dup_name;
  iface->get_flags = example_compiler_get_flags;
}

static void
example_compiler_class_init (ExampleCompilerClass *klass)
{
}

static void
example_compiler_class_finalize (ExampleCompilerClass *klass)
{
}

static void
example_compiler_init (ExampleCompiler *self)
{
}

/* ---- The module's entry points ------------------------------------------ */

/* Read before any code of the module runs: a module built for another ABI
 * is refused. */
G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

/* Called once, the first time a backend of the module is looked up:
 * registers every type of the module on it, then offers each backend that
 * the manifest declares.  The registry makes the compiler itself, with
 * g_object_new (EXAMPLE_TYPE_COMPILER, NULL). */
G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  example_fn_register_type (G_TYPE_MODULE (module));
  example_compiler_register_type (G_TYPE_MODULE (module));

  reg_module_add_backend (module, EXAMPLE_BACKEND, EXAMPLE_TYPE_COMPILER);
}
