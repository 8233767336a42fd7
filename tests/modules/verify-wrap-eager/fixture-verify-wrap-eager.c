/* fixture-verify-wrap-eager.c: a backend built on another backend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * It compiles every graph on the backend eager of the default registry,
 * as a backend that builds on another one does: `regctl verify` finds it
 * ok when the registry that asks for the check reaches eager.
 */

#include <gmodule.h>

#include "../fixture-compiler.h"

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

static RegCompiledFn *
compile (RegGraph   *graph,
         GPtrArray  *example_inputs,
         GVariant   *options,
         GError    **error)
{
  return reg_registry_compile (reg_registry_get_default (), "eager", graph, example_inputs, NULL, error);
}

static const FixtureCompilerSpec spec = { "verify_wrap_eager", NULL, compile };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  reg_module_add_backend (module, "verify_wrap_eager",
                          fixture_compiler_register (G_TYPE_MODULE (module), &spec));
}
