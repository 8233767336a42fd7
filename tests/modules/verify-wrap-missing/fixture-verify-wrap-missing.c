/* fixture-verify-wrap-missing.c: a backend built on another backend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * It compiles every graph on the backend verify_nowhere of the default
 * registry, which no manifest declares: every compile fails with the
 * registry's INVALID_BACKEND, and `regctl verify` must not blame it for
 * that.
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
  return reg_registry_compile (reg_registry_get_default (), "verify_nowhere", graph, example_inputs, NULL, error);
}

static const FixtureCompilerSpec spec = { "verify_wrap_missing", NULL, compile };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  reg_module_add_backend (module, "verify_wrap_missing",
                          fixture_compiler_register (G_TYPE_MODULE (module), &spec));
}
