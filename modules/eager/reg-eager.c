/* reg-eager.c: the eager backend, libreg's reference interpreter
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <gmodule.h>
#include <reg.h>

#include "reg-eager-interp.h"

#define REG_EAGER_BACKEND "eager"

/* RegEagerCompiler: compiling only checks the options and operators and
 * keeps the graph; each call interprets it one node at a time (see
 * reg-eager-interp.h for the exact numerics). */

#define REG_TYPE_EAGER_COMPILER (reg_eager_compiler_get_type ())
G_DECLARE_FINAL_TYPE (RegEagerCompiler, reg_eager_compiler, REG, EAGER_COMPILER, GObject)

struct _RegEagerCompiler
{
  GObject parent_instance;
};

static void reg_eager_compiler_iface_init (RegCompilerInterface *iface);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (RegEagerCompiler, reg_eager_compiler, G_TYPE_OBJECT,
                                G_TYPE_FLAG_FINAL,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (REG_TYPE_COMPILER,
                                                               reg_eager_compiler_iface_init))

static RegCompiledFn *
reg_eager_compiler_compile (RegCompiler  *compiler,
                            RegGraph     *graph,
                            GPtrArray    *example_inputs,
                            GVariant     *options,
                            GError      **error)
{
  return _reg_eager_compile (REG_EAGER_BACKEND, graph, options, error);
}

static char *
reg_eager_compiler_dup_name (RegCompiler *compiler)
{
  return g_strdup (REG_EAGER_BACKEND);
}

/* Its functions only read what compile made (their scratch memory has a
 * lock of its own): they may be shared. */
static RegCompilerFlags
reg_eager_compiler_get_flags (RegCompiler *compiler)
{
  return REG_COMPILER_FLAGS_SHAREABLE;
}

static void
reg_eager_compiler_iface_init (RegCompilerInterface *iface)
{
  iface->get_flags = reg_eager_compiler_get_flags;
  iface->compile = reg_eager_compiler_compile;
  iface->dup_name = reg_eager_compiler_dup_name;
}

static void
reg_eager_compiler_class_init (RegEagerCompilerClass *klass)
{
}

static void
reg_eager_compiler_class_finalize (RegEagerCompilerClass *klass)
{
}

static void
reg_eager_compiler_init (RegEagerCompiler *self)
{
}

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  reg_eager_compiler_register_type (G_TYPE_MODULE (module));
  _reg_eager_fn_register_type (G_TYPE_MODULE (module), "RegEagerFn");

  reg_module_add_backend (module, REG_EAGER_BACKEND, REG_TYPE_EAGER_COMPILER);
}
