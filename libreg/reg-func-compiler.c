/* reg-func-compiler.c: a plain function as a compiler backend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-func-compiler.h"

/**
 * RegFuncCompiler:
 *
 * A [iface@Reg.Compiler] whose `compile` is a function: the way to make a
 * backend of a C function, a Python callable or a JavaScript closure
 * without defining a class.
 *
 * ```python
 * def compile_fn(graph, example_inputs, options):
 *     return MyCompiledFn(graph)
 *
 * registry.register_backend(None, Reg.FuncCompiler.new("mine", compile_fn), None)
 * ```
 */

struct _RegFuncCompiler
{
  GObject         parent_instance;

  char           *name;
  RegCompileFunc  func;
  gpointer        user_data;
  GDestroyNotify  destroy;
};

static void reg_func_compiler_iface_init (RegCompilerInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (RegFuncCompiler, reg_func_compiler, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILER,
                                                      reg_func_compiler_iface_init))

static RegCompiledFn *
reg_func_compiler_compile (RegCompiler  *compiler,
                           RegGraph     *graph,
                           GPtrArray    *example_inputs,
                           GVariant     *options,
                           GError      **error)
{
  RegFuncCompiler *self = REG_FUNC_COMPILER (compiler);

  /* Made with g_object_new() alone (Reg.FuncCompiler() in a binding). */
  if (self->func == NULL)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                   "this RegFuncCompiler has no function: make it with reg_func_compiler_new()");
      return NULL;
    }

  return self->func (graph, example_inputs, options, self->user_data, error);
}

static char *
reg_func_compiler_dup_name (RegCompiler *compiler)
{
  return g_strdup (REG_FUNC_COMPILER (compiler)->name);
}

static void
reg_func_compiler_iface_init (RegCompilerInterface *iface)
{
  iface->compile = reg_func_compiler_compile;
  iface->dup_name = reg_func_compiler_dup_name;
}

static void
reg_func_compiler_finalize (GObject *object)
{
  RegFuncCompiler *self = REG_FUNC_COMPILER (object);

  if (self->destroy != NULL)
    self->destroy (self->user_data);
  g_free (self->name);

  G_OBJECT_CLASS (reg_func_compiler_parent_class)->finalize (object);
}

static void
reg_func_compiler_class_init (RegFuncCompilerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = reg_func_compiler_finalize;
}

static void
reg_func_compiler_init (RegFuncCompiler *self)
{
}

/**
 * reg_func_compiler_new:
 * @name: the compiler's name (what [method@Reg.Compiler.get_name] returns)
 * @func: (scope notified) (closure user_data) (destroy destroy): the
 *   function that compiles
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data when the compiler is finalized
 *
 * Makes a compiler of a function.  @func is called from whichever thread
 * calls [method@Reg.Compiler.compile], possibly from several at once.
 *
 * Returns: (transfer full) (type Reg.FuncCompiler): a new compiler
 */
RegCompiler *
reg_func_compiler_new (const char     *name,
                       RegCompileFunc  func,
                       gpointer        user_data,
                       GDestroyNotify  destroy)
{
  RegFuncCompiler *self;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (func != NULL, NULL);

  self = g_object_new (REG_TYPE_FUNC_COMPILER, NULL);
  self->name = g_strdup (name);
  self->func = func;
  self->user_data = user_data;
  self->destroy = destroy;

  return REG_COMPILER (self);
}
