/* fixture-undeclared.c: a module that provides more than declared
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * undeclared.backend declares `declared`; the module adds it and
 * `undeclared`, which libreg must ignore with a warning.
 */

#include <gmodule.h>

#include "../fixture-compiler.h"

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

static const FixtureCompilerSpec declared = { "declared", NULL };
static const FixtureCompilerSpec undeclared = { "undeclared", NULL };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  GTypeModule *type_module = G_TYPE_MODULE (module);

  reg_module_add_backend (module, "undeclared",
                          fixture_compiler_register (type_module, &undeclared));
  reg_module_add_backend (module, "declared",
                          fixture_compiler_register (type_module, &declared));
}
