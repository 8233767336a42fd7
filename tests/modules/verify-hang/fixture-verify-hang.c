/* fixture-verify-hang.c: a backend whose compile never returns
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Loads and makes its compiler, then sleeps forever in the first compile:
 * `regctl verify` kills it when the timeout passes, and quarantines it.
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
  for (;;)
    g_usleep (G_USEC_PER_SEC);

  return NULL;
}

static const FixtureCompilerSpec spec = { "verify_hang", NULL, compile };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  reg_module_add_backend (module, "verify_hang", fixture_compiler_register (G_TYPE_MODULE (module), &spec));
}
