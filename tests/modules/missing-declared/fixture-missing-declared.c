/* fixture-missing-declared.c: a module that provides less than declared
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * missing-declared.backend declares `x` and `y`; the module adds `x` only.
 */

#include <gmodule.h>

#include "../fixture-compiler.h"

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

static const FixtureCompilerSpec x = { "x", NULL };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  reg_module_add_backend (module, "x", fixture_compiler_register (G_TYPE_MODULE (module), &x));
}
