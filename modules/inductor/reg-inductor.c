/* reg-inductor.c: the inductor backend, libreg's default optimizing compiler
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Compiling runs the graph passes and fusion (reg-inductor-plan.c) once;
 * each call runs the resulting kernels block by block with the vector
 * loops of reg-inductor-kernels.c.  docs/inductor.md has the design, the
 * options, the tolerance against eager and the benchmark figures.
 */

#include <gmodule.h>
#include <reg.h>

#include "reg-inductor-gemm.h"
#include "reg-inductor-plan.h"

#define REG_INDUCTOR_BACKEND "inductor"

/* Defaults: blocks of 512 floats (2 KiB) keep the handful of block
 * buffers a fused kernel needs, and the operands' block, in L1, and keep
 * the prefetch slices of the next block small; see docs/inductor.md. */
#define DEFAULT_BLOCK_SIZE 512
#define MAX_BLOCK_SIZE     (1u << 22)
#define MAX_THREADS        256

/* RegInductorFn: a compiled graph --------------------------------------- */

#define REG_TYPE_INDUCTOR_FN (reg_inductor_fn_get_type ())
G_DECLARE_FINAL_TYPE (RegInductorFn, reg_inductor_fn, REG, INDUCTOR_FN, GObject)

struct _RegInductorFn
{
  GObject   parent_instance;

  IndPlan  *plan;          /* immutable after compile: calls only read it */
  char     *description;
  RegGraph *optimized_graph;  /* built once, never changed: readers share it */
};

enum {
  PROP_0,
  PROP_PLAN,
  PROP_N_KERNELS,
  PROP_OPTIMIZED_GRAPH,
  N_PROPS
};

static GParamSpec *fn_properties[N_PROPS];

static void reg_inductor_fn_iface_init (RegCompiledFnInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (RegInductorFn, reg_inductor_fn, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (REG_TYPE_COMPILED_FN,
                                                               reg_inductor_fn_iface_init))

static GListModel *
reg_inductor_fn_run (RegCompiledFn  *fn,
                     GPtrArray      *inputs,
                     GError        **error)
{
  RegInductorFn *self = REG_INDUCTOR_FN (fn);
  g_autoptr(GPtrArray) results = _reg_ind_plan_run (self->plan, inputs, error);
  GListStore *outputs;

  if (results == NULL)
    return NULL;

  /* The plan hands over a reference to each result. */
  g_ptr_array_set_free_func (results, g_object_unref);
  outputs = g_list_store_new (REG_TYPE_TENSOR);
  g_list_store_splice (outputs, 0, 0, results->pdata, results->len);

  return G_LIST_MODEL (outputs);
}

static void
reg_inductor_fn_iface_init (RegCompiledFnInterface *iface)
{
  iface->run = reg_inductor_fn_run;
}

static void
reg_inductor_fn_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  RegInductorFn *self = REG_INDUCTOR_FN (object);

  switch (prop_id)
    {
    case PROP_PLAN:
      g_value_set_string (value, self->description);
      break;

    case PROP_N_KERNELS:
      g_value_set_uint (value, _reg_ind_plan_get_n_kernels (self->plan));
      break;

    case PROP_OPTIMIZED_GRAPH:
      g_value_set_object (value, self->optimized_graph);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reg_inductor_fn_finalize (GObject *object)
{
  RegInductorFn *self = REG_INDUCTOR_FN (object);

  g_clear_pointer (&self->plan, _reg_ind_plan_free);
  g_clear_pointer (&self->description, g_free);
  g_clear_object (&self->optimized_graph);

  G_OBJECT_CLASS (reg_inductor_fn_parent_class)->finalize (object);
}

static void
reg_inductor_fn_class_init (RegInductorFnClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = reg_inductor_fn_get_property;
  object_class->finalize = reg_inductor_fn_finalize;

  /**
   * RegInductorFn:plan:
   *
   * The kernels after fusion, one line each (what compiling logs with
   * g_debug() under `G_MESSAGES_DEBUG=Reg`).
   */
  fn_properties[PROP_PLAN] =
    g_param_spec_string ("plan", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * RegInductorFn:n-kernels:
   *
   * How many kernels a call runs (fused elementwise passes and matmuls).
   */
  fn_properties[PROP_N_KERNELS] =
    g_param_spec_uint ("n-kernels", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * RegInductorFn:optimized-graph:
   *
   * The graph after constant folding, simplification, CSE and dead code
   * elimination, as a [class@Reg.Graph] (unnamed values are called `_N`,
   * N their node in the source graph).  It is built once, when the
   * function is compiled, and every read returns that same graph, which
   * may be shared with other users of the function: read it, do not
   * change it.
   */
  fn_properties[PROP_OPTIMIZED_GRAPH] =
    g_param_spec_object ("optimized-graph", NULL, NULL, REG_TYPE_GRAPH,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, fn_properties);
}

static void
reg_inductor_fn_class_finalize (RegInductorFnClass *klass)
{
}

static void
reg_inductor_fn_init (RegInductorFn *self)
{
}

/* RegInductorCompiler ------------------------------------------------- */

#define REG_TYPE_INDUCTOR_COMPILER (reg_inductor_compiler_get_type ())
G_DECLARE_FINAL_TYPE (RegInductorCompiler, reg_inductor_compiler, REG, INDUCTOR_COMPILER, GObject)

struct _RegInductorCompiler
{
  GObject parent_instance;
};

static void reg_inductor_compiler_iface_init (RegCompilerInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (RegInductorCompiler, reg_inductor_compiler, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (REG_TYPE_COMPILER,
                                                               reg_inductor_compiler_iface_init))

static const struct
{
  const char *name;
  guint       flag;
} pass_names[] = {
  { "fold",     REG_IND_PASS_FOLD },
  { "simplify", REG_IND_PASS_SIMPLIFY },
  { "cse",      REG_IND_PASS_CSE },
  { "dce",      REG_IND_PASS_DCE },
};

/* Reads the options.  The registry gave this compiler the schema of
 * inductor.backend, and reg_compiler_compile() checked them against it:
 * every key is known, every value of its type and within its range, every
 * pass named in `passes` is one of pass_names[], `matmul` is one of its
 * choices.  Only what the schema
 * cannot say is done here; the bounds are kept on the values, as the
 * plan's buffers rely on them. */
static void
read_options (GVariant      *options,
              RegIndOptions *out)
{
  const char **names;
  const char *choice;
  guint32 number;

  out->fuse = TRUE;
  out->block_size = DEFAULT_BLOCK_SIZE;
  out->threads = 1;
  out->vector_math = TRUE;
  out->passes = REG_IND_PASS_ALL;
  out->matmul = REG_IND_MATMUL_AUTO;

  if (options == NULL)
    return;

  g_variant_lookup (options, "fuse", "b", &out->fuse);
  g_variant_lookup (options, "vector-math", "b", &out->vector_math);

  if (g_variant_lookup (options, "block-size", "u", &number))
    out->block_size = CLAMP (number, 1, MAX_BLOCK_SIZE);

  /* 0: one thread per processor. */
  if (g_variant_lookup (options, "threads", "u", &number))
    out->threads = MIN (number == 0 ? g_get_num_processors () : number, MAX_THREADS);

  if (g_variant_lookup (options, "passes", "^a&s", &names))
    {
      out->passes = 0;
      for (guint i = 0; names[i] != NULL; i++)
        for (guint j = 0; j < G_N_ELEMENTS (pass_names); j++)
          if (g_str_equal (names[i], pass_names[j].name))
            out->passes |= pass_names[j].flag;
      g_free (names);
    }

  if (g_variant_lookup (options, "matmul", "&s", &choice))
    {
      if (g_str_equal (choice, "blas"))
        out->matmul = REG_IND_MATMUL_BLAS;
      else if (g_str_equal (choice, "in-tree"))
        out->matmul = REG_IND_MATMUL_IN_TREE;
    }
}

static RegCompiledFn *
reg_inductor_compiler_compile (RegCompiler  *compiler,
                               RegGraph     *graph,
                               GPtrArray    *example_inputs,
                               GVariant     *options,
                               GError      **error)
{
  /* The cancellable of the operation that runs this compile, if any (see
   * reg_registry_compile_async()): checked between the stages. */
  GCancellable *cancellable = g_cancellable_get_current ();
  RegIndOptions opts;
  g_autoptr(RegShapeList) shapes = NULL;
  g_autofree char *matmul = NULL;
  IndGraph *ind_graph;
  g_autoptr(RegGraph) optimized_graph = NULL;
  RegInductorFn *fn;

  read_options (options, &opts);

  shapes = reg_graph_infer_shapes (graph, example_inputs, error);
  if (shapes == NULL)
    return NULL;

  /* The graph passes (folding, simplifying, common subexpressions, dead
   * code), then the optimized graph, then fusion into kernels. */
  ind_graph = _reg_ind_graph_new (graph, shapes, opts.passes, error);
  if (ind_graph == NULL)
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      _reg_ind_graph_free (ind_graph);
      return NULL;
    }

  optimized_graph = _reg_ind_graph_to_reg_graph (ind_graph, error);
  if (optimized_graph == NULL)
    {
      _reg_ind_graph_free (ind_graph);
      g_prefix_error (error, REG_INDUCTOR_BACKEND ": optimized graph: ");
      return NULL;
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      _reg_ind_graph_free (ind_graph);
      return NULL;
    }

  fn = g_object_new (REG_TYPE_INDUCTOR_FN, NULL);
  fn->optimized_graph = g_steal_pointer (&optimized_graph);
  fn->plan = _reg_ind_plan_new (ind_graph, &opts);
  fn->description = _reg_ind_plan_describe (fn->plan);

  /* the matmul line says what OpenBLAS would do now; each call looks
   * again (reg-inductor-gemm.h) */
  matmul = _reg_ind_gemm_dup_description (opts.threads, opts.matmul);
  g_debug (REG_INDUCTOR_BACKEND ": %u kernel%s (fuse %s, block size %u, %u thread%s, %s math, "
           "matmul %s)\n%s",
           _reg_ind_plan_get_n_kernels (fn->plan),
           _reg_ind_plan_get_n_kernels (fn->plan) == 1 ? "" : "s",
           opts.fuse ? "on" : "off", opts.block_size,
           opts.threads, opts.threads == 1 ? "" : "s",
           opts.vector_math ? _reg_ind_isa_name () : "libm",
           matmul, fn->description);

  return REG_COMPILED_FN (fn);
}

static char *
reg_inductor_compiler_dup_name (RegCompiler *compiler)
{
  return g_strdup (REG_INDUCTOR_BACKEND);
}

/* Its functions only read what compile made (their scratch memory has a
 * lock of its own): they may be shared. */
static RegCompilerFlags
reg_inductor_compiler_get_flags (RegCompiler *compiler)
{
  return REG_COMPILER_FLAGS_SHAREABLE;
}

static void
reg_inductor_compiler_iface_init (RegCompilerInterface *iface)
{
  iface->get_flags = reg_inductor_compiler_get_flags;
  iface->compile = reg_inductor_compiler_compile;
  iface->dup_name = reg_inductor_compiler_dup_name;
}

static void
reg_inductor_compiler_class_init (RegInductorCompilerClass *klass)
{
}

static void
reg_inductor_compiler_class_finalize (RegInductorCompilerClass *klass)
{
}

static void
reg_inductor_compiler_init (RegInductorCompiler *self)
{
}

/* The module ---------------------------------------------------------- */

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  reg_inductor_compiler_register_type (G_TYPE_MODULE (module));
  reg_inductor_fn_register_type (G_TYPE_MODULE (module));

  reg_module_add_backend (module, REG_INDUCTOR_BACKEND, REG_TYPE_INDUCTOR_COMPILER);
}
