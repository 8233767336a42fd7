/* scaled-backend.c: a libreg backend built on another backend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The backend "scaled" multiplies every output of a graph by a factor.
 * It computes nothing itself: its compile rewrites the graph, with a mul
 * node after each output, and compiles the result on another backend of
 * the default registry; its function calls the one that backend made.
 * Its options, declared in scaled.backend: "factor" (a double, default 1)
 * and "target" (the backend that compiles the result, default "eager").
 */

#include <gmodule.h>
#include <reg.h>

#define SCALED_BACKEND "scaled"

/* ---- The rewrite -------------------------------------------------------- */

/* A new graph: a copy of @graph, built with the graph builder, whose
 * outputs are those of @graph times @factor. */
static RegGraph *
scale_outputs (RegGraph  *graph,
               double     factor,
               GError   **error)
{
  g_autoptr(RegGraph) scaled = reg_graph_new ();
  guint n_nodes = reg_graph_get_n_nodes (graph);
  g_autofree guint *copy_of = g_new (guint, n_nodes);  /* node of @graph -> node of the copy */
  const guint *outputs;
  g_autofree guint *scaled_outputs = NULL;
  guint n_outputs, factor_node;

  /* Node ids are in definition order: every argument is copied before the
   * node that uses it, and the inputs keep their order. */
  for (guint n = 0; n < n_nodes; n++)
    {
      switch (reg_graph_get_node_kind (graph, n))
        {
        case REG_NODE_INPUT:
          copy_of[n] = reg_graph_add_input (scaled, reg_graph_get_node_name (graph, n));
          break;

        case REG_NODE_CONSTANT:
          copy_of[n] = reg_graph_add_constant (scaled, reg_graph_get_node_value (graph, n));
          break;

        case REG_NODE_OP:
          {
            guint n_args;
            const guint *args = reg_graph_get_node_args (graph, n, &n_args);
            g_autofree guint *copied_args = g_new (guint, n_args);

            for (guint a = 0; a < n_args; a++)
              copied_args[a] = copy_of[args[a]];
            copy_of[n] = reg_graph_add_op (scaled, reg_graph_get_node_op (graph, n),
                                           copied_args, n_args, error);
            if (copy_of[n] == REG_GRAPH_INVALID_NODE)
              return NULL;
          }
          break;

        default:
          /* A kind of node a later libreg may add: not this backend's. */
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP,
                       "scaled: node %u is of a kind this backend does not know", n);
          return NULL;
        }
    }

  /* One constant, and a mul of each output by it. */
  factor_node = reg_graph_add_constant (scaled, factor);
  outputs = reg_graph_get_outputs (graph, &n_outputs);
  scaled_outputs = g_new (guint, n_outputs);
  for (guint i = 0; i < n_outputs; i++)
    {
      const guint args[] = { copy_of[outputs[i]], factor_node };

      scaled_outputs[i] = reg_graph_add_op (scaled, "mul", args, 2, error);
      if (scaled_outputs[i] == REG_GRAPH_INVALID_NODE)
        return NULL;
    }
  reg_graph_set_outputs (scaled, scaled_outputs, n_outputs);

  return g_steal_pointer (&scaled);
}

/* ---- The compiled function ---------------------------------------------- */

#define SCALED_TYPE_FN (scaled_fn_get_type ())
G_DECLARE_FINAL_TYPE (ScaledFn, scaled_fn, SCALED, FN, GObject)

/* A function of its own rather than the target's: a compiled function
 * serves the one graph signature it was compiled for (input names and
 * shapes, output names and shapes), and the outputs of the rewritten
 * graph are other nodes than those of the graph asked for. */
struct _ScaledFn
{
  GObject        parent_instance;

  RegCompiledFn *target_fn;  /* the target's, for the rewritten graph */
};

static void scaled_fn_iface_init (RegCompiledFnInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (ScaledFn, scaled_fn, G_TYPE_OBJECT, G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (REG_TYPE_COMPILED_FN,
                                                               scaled_fn_iface_init))

/* The target's function checks the inputs again and runs; its errors
 * (REG_COMPILER_ERROR_RUNTIME, naming the target) are passed on. */
static GListModel *
scaled_fn_run (RegCompiledFn  *fn,
               GPtrArray      *inputs,
               GError        **error)
{
  ScaledFn *self = SCALED_FN (fn);
  g_autoptr(GPtrArray) outputs = reg_compiled_fn_call (self->target_fn, inputs, error);
  g_autoptr(GListStore) store = NULL;

  if (outputs == NULL)
    return NULL;

  store = g_list_store_new (REG_TYPE_TENSOR);
  for (guint i = 0; i < outputs->len; i++)
    g_list_store_append (store, g_ptr_array_index (outputs, i));

  return G_LIST_MODEL (g_steal_pointer (&store));
}

static void
scaled_fn_iface_init (RegCompiledFnInterface *iface)
{
  iface->run = scaled_fn_run;
}

static void
scaled_fn_dispose (GObject *object)
{
  ScaledFn *self = SCALED_FN (object);

  g_clear_object (&self->target_fn);

  G_OBJECT_CLASS (scaled_fn_parent_class)->dispose (object);
}

static void
scaled_fn_class_init (ScaledFnClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = scaled_fn_dispose;
}

static void
scaled_fn_class_finalize (ScaledFnClass *klass)
{
}

static void
scaled_fn_init (ScaledFn *self)
{
}

/* ---- The compiler ------------------------------------------------------- */

#define SCALED_TYPE_COMPILER (scaled_compiler_get_type ())
G_DECLARE_FINAL_TYPE (ScaledCompiler, scaled_compiler, SCALED, COMPILER, GObject)

struct _ScaledCompiler
{
  GObject parent_instance;
};

static void scaled_compiler_iface_init (RegCompilerInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (ScaledCompiler, scaled_compiler, G_TYPE_OBJECT, G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (REG_TYPE_COMPILER,
                                                               scaled_compiler_iface_init))

static RegCompiledFn *
scaled_compiler_compile (RegCompiler  *compiler,
                         RegGraph     *graph,
                         GPtrArray    *example_inputs,
                         GVariant     *options,
                         GError      **error)
{
  g_autoptr(RegGraph) scaled = NULL;
  g_autoptr(ScaledFn) fn = NULL;
  const char *target = "eager";
  double factor = 1.0;

  /* The manifest declares both options, so libreg has refused any other
   * key and any value of another type: only the defaults are ours. */
  if (options != NULL)
    {
      g_variant_lookup (options, "factor", "d", &factor);
      g_variant_lookup (options, "target", "&s", &target);
    }
  if (g_str_equal (target, SCALED_BACKEND))
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "scaled: option 'target' names this backend; name the one that compiles");
      return NULL;
    }

  scaled = scale_outputs (graph, factor, error);
  if (scaled == NULL)
    return NULL;

  /* The target's errors are passed on as they are: libreg tells a target
   * that cannot be had (REG_COMPILER_ERROR_BACKEND_UNAVAILABLE, and
   * `regctl verify` then does not blame this backend) from one that cannot
   * compile the graph (REG_COMPILER_ERROR_UNSUPPORTED_OP, say). */
  fn = g_object_new (SCALED_TYPE_FN, NULL);
  fn->target_fn = reg_registry_compile (reg_registry_get_default (), target, scaled, example_inputs,
                                        NULL, error);
  if (fn->target_fn == NULL)
    return NULL;

  return REG_COMPILED_FN (g_steal_pointer (&fn));
}

static void
scaled_compiler_iface_init (RegCompilerInterface *iface)
{
  iface->compile = scaled_compiler_compile;
}

static void
scaled_compiler_class_init (ScaledCompilerClass *klass)
{
}

static void
scaled_compiler_class_finalize (ScaledCompilerClass *klass)
{
}

static void
scaled_compiler_init (ScaledCompiler *self)
{
}

/* ---- The module's entry points ------------------------------------------ */

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  scaled_fn_register_type (G_TYPE_MODULE (module));
  scaled_compiler_register_type (G_TYPE_MODULE (module));

  reg_module_add_backend (module, SCALED_BACKEND, SCALED_TYPE_COMPILER);
}
