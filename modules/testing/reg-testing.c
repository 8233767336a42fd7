/* reg-testing.c: backends that fail on purpose, for testing error paths
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <gmodule.h>
#include <reg.h>

#include "../eager/reg-eager-interp.h"

/* Both backends behave like eager on graphs without relu, and fail on
 * graphs with one (at any node, used or not, as TorchDynamo's backends of
 * these names do): the first when compiling, the second when calling, so
 * applications and bindings can exercise both error paths with a real
 * backend. */

#define COMPILE_ERROR_BACKEND "relu_compile_error_TESTING_ONLY"
#define RUNTIME_ERROR_BACKEND "relu_runtime_error_TESTING_ONLY"

#define REG_TYPE_TESTING_COMPILE_ERROR_COMPILER (reg_testing_compile_error_compiler_get_type ())
G_DECLARE_FINAL_TYPE (RegTestingCompileErrorCompiler, reg_testing_compile_error_compiler,
                      REG, TESTING_COMPILE_ERROR_COMPILER, GObject)

#define REG_TYPE_TESTING_RUNTIME_ERROR_COMPILER (reg_testing_runtime_error_compiler_get_type ())
G_DECLARE_FINAL_TYPE (RegTestingRuntimeErrorCompiler, reg_testing_runtime_error_compiler,
                      REG, TESTING_RUNTIME_ERROR_COMPILER, GObject)

struct _RegTestingCompileErrorCompiler
{
  GObject parent_instance;
};

struct _RegTestingRuntimeErrorCompiler
{
  GObject parent_instance;
};

static void reg_testing_compile_error_compiler_iface_init (RegCompilerInterface *iface);
static void reg_testing_runtime_error_compiler_iface_init (RegCompilerInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (RegTestingCompileErrorCompiler, reg_testing_compile_error_compiler,
                                G_TYPE_OBJECT, G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (REG_TYPE_COMPILER,
                                                               reg_testing_compile_error_compiler_iface_init))

G_DEFINE_DYNAMIC_TYPE_EXTENDED (RegTestingRuntimeErrorCompiler, reg_testing_runtime_error_compiler,
                                G_TYPE_OBJECT, G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (REG_TYPE_COMPILER,
                                                               reg_testing_runtime_error_compiler_iface_init))

/* relu_compile_error_TESTING_ONLY */

static RegCompiledFn *
reg_testing_compile_error_compiler_compile (RegCompiler  *compiler,
                                            RegGraph     *graph,
                                            GPtrArray    *example_inputs,
                                            GVariant     *options,
                                            GError      **error)
{
  g_autoptr(RegCompiledFn) fn = NULL;
  guint relu;

  /* Compile as eager first, so a bad option is reported as such. */
  fn = _reg_eager_compile (COMPILE_ERROR_BACKEND, graph, options, error);
  if (fn == NULL)
    return NULL;

  relu = _reg_eager_find_op (graph, REG_OP_RELU);
  if (relu != REG_GRAPH_INVALID_NODE)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                   "%s: the graph contains relu (node %u)", COMPILE_ERROR_BACKEND, relu);
      return NULL;
    }

  return g_steal_pointer (&fn);
}

static char *
reg_testing_compile_error_compiler_dup_name (RegCompiler *compiler)
{
  return g_strdup (COMPILE_ERROR_BACKEND);
}

static void
reg_testing_compile_error_compiler_iface_init (RegCompilerInterface *iface)
{
  iface->compile = reg_testing_compile_error_compiler_compile;
  iface->dup_name = reg_testing_compile_error_compiler_dup_name;
}

static void
reg_testing_compile_error_compiler_class_init (RegTestingCompileErrorCompilerClass *klass)
{
}

static void
reg_testing_compile_error_compiler_class_finalize (RegTestingCompileErrorCompilerClass *klass)
{
}

static void
reg_testing_compile_error_compiler_init (RegTestingCompileErrorCompiler *self)
{
}

/* relu_runtime_error_TESTING_ONLY */

static RegCompiledFn *
reg_testing_runtime_error_compiler_compile (RegCompiler  *compiler,
                                            RegGraph     *graph,
                                            GPtrArray    *example_inputs,
                                            GVariant     *options,
                                            GError      **error)
{
  RegCompiledFn *fn;
  guint relu;

  fn = _reg_eager_compile (RUNTIME_ERROR_BACKEND, graph, options, error);
  if (fn == NULL)
    return NULL;

  relu = _reg_eager_find_op (graph, REG_OP_RELU);
  if (relu != REG_GRAPH_INVALID_NODE)
    {
      g_autofree char *message =
        g_strdup_printf ("%s: the graph contains relu (node %u)", RUNTIME_ERROR_BACKEND, relu);

      _reg_eager_fn_set_call_error (fn, message);
    }

  return fn;
}

static char *
reg_testing_runtime_error_compiler_dup_name (RegCompiler *compiler)
{
  return g_strdup (RUNTIME_ERROR_BACKEND);
}

static void
reg_testing_runtime_error_compiler_iface_init (RegCompilerInterface *iface)
{
  iface->compile = reg_testing_runtime_error_compiler_compile;
  iface->dup_name = reg_testing_runtime_error_compiler_dup_name;
}

static void
reg_testing_runtime_error_compiler_class_init (RegTestingRuntimeErrorCompilerClass *klass)
{
}

static void
reg_testing_runtime_error_compiler_class_finalize (RegTestingRuntimeErrorCompilerClass *klass)
{
}

static void
reg_testing_runtime_error_compiler_init (RegTestingRuntimeErrorCompiler *self)
{
}

/* Module entry points */

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  GTypeModule *type_module = G_TYPE_MODULE (module);

  reg_testing_compile_error_compiler_register_type (type_module);
  reg_testing_runtime_error_compiler_register_type (type_module);
  _reg_eager_fn_register_type (type_module, "RegTestingFn");

  reg_module_add_backend (module, COMPILE_ERROR_BACKEND, REG_TYPE_TESTING_COMPILE_ERROR_COMPILER);
  reg_module_add_backend (module, RUNTIME_ERROR_BACKEND, REG_TYPE_TESTING_RUNTIME_ERROR_COMPILER);
}
