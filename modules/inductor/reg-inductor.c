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
  char     *graph_text;
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

static GPtrArray *
reg_inductor_fn_call (RegCompiledFn  *fn,
                      GPtrArray      *inputs,
                      GError        **error)
{
  RegInductorFn *self = REG_INDUCTOR_FN (fn);

  return _reg_ind_plan_run (self->plan, inputs, error);
}

static void
reg_inductor_fn_iface_init (RegCompiledFnInterface *iface)
{
  iface->call = reg_inductor_fn_call;
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
      /* a new graph each time: the caller may change it */
      g_value_take_object (value, reg_graph_new_from_string (self->graph_text, NULL));
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
  g_clear_pointer (&self->graph_text, g_free);

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
   * elimination, as a new [class@Reg.Graph] (unnamed values are called
   * `_N`, N their node in the source graph).
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

static gboolean
bad_option (GError    **error,
            const char *key,
            const char *format,
            ...) G_GNUC_PRINTF (3, 4);

static gboolean
bad_option (GError    **error,
            const char *key,
            const char *format,
            ...)
{
  g_autofree char *reason = NULL;
  va_list args;

  va_start (args, format);
  reason = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
               REG_INDUCTOR_BACKEND ": option '%s': %s", key, reason);
  return FALSE;
}

static gboolean
check_type (GVariant     *value,
            const char   *type,
            const char   *key,
            GError      **error)
{
  if (g_variant_is_of_type (value, G_VARIANT_TYPE (type)))
    return TRUE;

  return bad_option (error, key, "expected a value of type '%s', got '%s'",
                     type, g_variant_get_type_string (value));
}

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

static gboolean
parse_options (GVariant       *options,
               RegIndOptions  *out,
               GError        **error)
{
  GVariantIter iter;
  const char *key;
  GVariant *value;

  out->fuse = TRUE;
  out->block_size = DEFAULT_BLOCK_SIZE;
  out->threads = 1;
  out->vector_math = TRUE;
  out->passes = REG_IND_PASS_ALL;
  out->matmul = REG_IND_MATMUL_AUTO;

  if (options == NULL)
    return TRUE;

  if (!g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT))
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   REG_INDUCTOR_BACKEND ": options must be of type a{sv}, not %s",
                   g_variant_get_type_string (options));
      return FALSE;
    }

  g_variant_iter_init (&iter, options);
  while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
    {
      gboolean ok = TRUE;

      if (g_str_equal (key, "fuse"))
        {
          if ((ok = check_type (value, "b", key, error)))
            out->fuse = g_variant_get_boolean (value);
        }
      else if (g_str_equal (key, "vector-math"))
        {
          if ((ok = check_type (value, "b", key, error)))
            out->vector_math = g_variant_get_boolean (value);
        }
      else if (g_str_equal (key, "matmul"))
        {
          if ((ok = check_type (value, "s", key, error)))
            {
              const char *choice = g_variant_get_string (value, NULL);

              if (g_str_equal (choice, "auto"))
                out->matmul = REG_IND_MATMUL_AUTO;
              else if (g_str_equal (choice, "blas"))
                out->matmul = REG_IND_MATMUL_BLAS;
              else if (g_str_equal (choice, "in-tree"))
                out->matmul = REG_IND_MATMUL_IN_TREE;
              else
                ok = bad_option (error, key, "expected 'auto', 'blas' or 'in-tree'");
            }
        }
      else if (g_str_equal (key, "block-size"))
        {
          if ((ok = check_type (value, "u", key, error)))
            {
              out->block_size = g_variant_get_uint32 (value);
              if (out->block_size == 0 || out->block_size > MAX_BLOCK_SIZE)
                ok = bad_option (error, key, "%u is not between 1 and %u",
                                 out->block_size, MAX_BLOCK_SIZE);
            }
        }
      else if (g_str_equal (key, "threads"))
        {
          if ((ok = check_type (value, "u", key, error)))
            {
              out->threads = g_variant_get_uint32 (value);
              if (out->threads == 0)
                out->threads = g_get_num_processors ();
              if (out->threads > MAX_THREADS)
                ok = bad_option (error, key, "%u is more than %u",
                                 out->threads, MAX_THREADS);
            }
        }
      else if (g_str_equal (key, "passes"))
        {
          if ((ok = check_type (value, "as", key, error)))
            {
              g_autofree const char **names = g_variant_get_strv (value, NULL);

              out->passes = 0;
              for (guint i = 0; ok && names[i] != NULL; i++)
                {
                  guint j;

                  for (j = 0; j < G_N_ELEMENTS (pass_names); j++)
                    if (g_str_equal (names[i], pass_names[j].name))
                      break;
                  if (j == G_N_ELEMENTS (pass_names))
                    ok = bad_option (error, key, "unknown pass '%s' (known: fold, simplify, cse, dce)",
                                     names[i]);
                  else
                    out->passes |= pass_names[j].flag;
                }
            }
        }
      else
        {
          ok = bad_option (error, key, "unknown option (known: fuse, block-size, threads, "
                           "vector-math, passes, matmul)");
        }

      if (!ok)
        {
          g_variant_unref (value);
          return FALSE;
        }
    }

  return TRUE;
}

static RegCompiledFn *
reg_inductor_compiler_compile (RegCompiler  *compiler,
                               RegGraph     *graph,
                               GPtrArray    *example_inputs,
                               GVariant     *options,
                               GError      **error)
{
  RegIndOptions opts;
  g_autoptr(GVariant) shapes = NULL;
  g_autofree char *matmul = NULL;
  IndGraph *ind_graph;
  RegInductorFn *fn;

  if (!parse_options (options, &opts, error))
    return NULL;

  shapes = reg_graph_infer_shapes (graph, example_inputs, error);
  if (shapes == NULL)
    return NULL;
  g_variant_take_ref (shapes);

  ind_graph = _reg_ind_graph_new (graph, shapes, opts.passes, error);
  if (ind_graph == NULL)
    return NULL;

  fn = g_object_new (REG_TYPE_INDUCTOR_FN, NULL);
  fn->graph_text = _reg_ind_graph_to_text (ind_graph);
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

static const char *
reg_inductor_compiler_get_name (RegCompiler *compiler)
{
  return REG_INDUCTOR_BACKEND;
}

static void
reg_inductor_compiler_iface_init (RegCompilerInterface *iface)
{
  iface->compile = reg_inductor_compiler_compile;
  iface->get_name = reg_inductor_compiler_get_name;
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

/* The prototype keeps -Wmissing-prototypes quiet: the loader finds this
 * function with g_module_symbol(), not through a header. */
G_MODULE_EXPORT void reg_module_load (RegModule *module);

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  reg_inductor_compiler_register_type (G_TYPE_MODULE (module));
  reg_inductor_fn_register_type (G_TYPE_MODULE (module));

  reg_module_add_backend (module, REG_INDUCTOR_BACKEND, REG_TYPE_INDUCTOR_COMPILER);
}
