/* fixture-verify-ok.c: a backend that agrees with eager
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The eager interpreter under another name: `regctl verify` finds it ok.
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
  return fixture_eager_compile ("verify_ok", graph, options, error);
}

static const FixtureCompilerSpec spec = { "verify_ok", NULL, compile };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  fixture_eager_register (G_TYPE_MODULE (module));
  reg_module_add_backend (module, "verify_ok", fixture_compiler_register (G_TYPE_MODULE (module), &spec));
}
