/* fixture-other.c: another well-behaved module, with one backend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Provides `other`, as other.backend declares: the test loads it to show
 * that a registry still works after another module failed.
 */

#include <gmodule.h>

#include "../fixture-compiler.h"

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

static const FixtureCompilerSpec other = { "other", NULL };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  reg_module_add_backend (module, "other",
                          fixture_compiler_register (G_TYPE_MODULE (module), &other));
}
