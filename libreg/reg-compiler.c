/* reg-compiler.c: the interface of compiler backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-compiler.h"
#include "reg-compiled-fn-private.h"
#include "reg-graph-private.h"
#include "reg-tensor.h"

/**
 * RegCompiler:
 *
 * A compiler backend: turns a [class@Reg.Graph] into a
 * [iface@Reg.CompiledFn] for inputs of given shapes.
 *
 * Implement it in C (see `docs/writing-a-backend.md`), in Python or in
 * JavaScript, or wrap a plain function with [ctor@Reg.FuncCompiler.new];
 * then register it with [method@Reg.Registry.register_backend].
 *
 * Implementations must be safe to call from several threads at once: the
 * registry hands the same object to every caller.
 */

/**
 * reg_compiler_error_quark:
 *
 * The error domain of compiling and calling; see %REG_COMPILER_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (reg-compiler-error-quark, reg_compiler_error)

G_DEFINE_INTERFACE (RegCompiler, reg_compiler, G_TYPE_OBJECT)

static const char *
reg_compiler_real_get_name (RegCompiler *self)
{
  return G_OBJECT_TYPE_NAME (self);
}

static void
reg_compiler_default_init (RegCompilerInterface *iface)
{
  iface->get_name = reg_compiler_real_get_name;
}

/**
 * reg_compiler_compile:
 * @self: a [iface@Reg.Compiler]
 * @graph: the graph to compile
 * @example_inputs: (element-type Reg.Tensor): tensors shaped like the
 *   inputs the compiled function will be called with, one per graph input
 * @options: (nullable): backend settings, an `a{sv}` dictionary; an empty
 *   dictionary reaches the backend as given
 * @error: return location for a #GError
 *
 * Compiles @graph for inputs shaped like @example_inputs.
 *
 * The graph is checked first: a builder error it holds, or shapes that do
 * not fit @example_inputs, fail with a %REG_GRAPH_ERROR before the backend
 * sees the graph.  A backend that fails without saying why gives
 * %REG_COMPILER_ERROR_FAILED.  The returned function checks the inputs of
 * every call against the shapes of @example_inputs.
 *
 * This function is thread-safe if the backend is.
 *
 * Returns: (transfer full): the compiled function, or %NULL with @error set
 */
RegCompiledFn *
reg_compiler_compile (RegCompiler  *self,
                      RegGraph     *graph,
                      GPtrArray    *example_inputs,
                      GVariant     *options,
                      GError      **error)
{
  RegCompilerInterface *iface;
  g_autoptr(GVariant) options_ref = NULL;
  g_autoptr(GError) local_error = NULL;
  RegCompiledFn *fn;

  g_return_val_if_fail (REG_IS_COMPILER (self), NULL);
  g_return_val_if_fail (REG_IS_GRAPH (graph), NULL);
  g_return_val_if_fail (example_inputs != NULL, NULL);
  g_return_val_if_fail (options == NULL ||
                        g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  for (guint i = 0; i < example_inputs->len; i++)
    g_return_val_if_fail (REG_IS_TENSOR (g_ptr_array_index (example_inputs, i)), NULL);

  if (!_reg_graph_infer_shapes (graph, example_inputs, NULL, error))
    return NULL;

  iface = REG_COMPILER_GET_IFACE (self);
  if (iface->compile == NULL)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                   "compiler '%s' does not implement compile",
                   reg_compiler_get_name (self));
      return NULL;
    }

  /* A floating options variant is sunk here so that the backend, whatever
   * it does with it, never owns the caller's only reference. */
  if (options != NULL)
    options_ref = g_variant_ref_sink (options);

  fn = iface->compile (self, graph, example_inputs, options, &local_error);

  /* Bindings turn an exception that is not a GError into NULL without an
   * error (API.md §9): never let that reach the caller as a silent NULL. */
  if (fn == NULL)
    {
      if (local_error == NULL)
        g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                     "compiler '%s' failed without giving a reason",
                     reg_compiler_get_name (self));
      else
        g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  if (local_error != NULL)
    g_warning ("compiler '%s' returned a function and set an error: %s",
               reg_compiler_get_name (self), local_error->message);

  if (!REG_IS_COMPILED_FN (fn))
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                   "compiler '%s' returned a %s, not a RegCompiledFn",
                   reg_compiler_get_name (self), G_OBJECT_TYPE_NAME (fn));
      g_object_unref (fn);
      return NULL;
    }

  _reg_compiled_fn_set_signature (fn, graph, example_inputs);

  return fn;
}

/**
 * reg_compiler_get_name:
 * @self: a [iface@Reg.Compiler]
 *
 * Gets the compiler's own name: the name
 * [method@Reg.Registry.register_backend] uses when it is given none.
 * Compilers that do not implement `get_name` are named after their type.
 *
 * Returns: (transfer none): the name
 */
const char *
reg_compiler_get_name (RegCompiler *self)
{
  RegCompilerInterface *iface;
  const char *name;

  g_return_val_if_fail (REG_IS_COMPILER (self), NULL);

  iface = REG_COMPILER_GET_IFACE (self);
  name = iface->get_name != NULL ? iface->get_name (self) : NULL;

  return name != NULL ? name : G_OBJECT_TYPE_NAME (self);
}
