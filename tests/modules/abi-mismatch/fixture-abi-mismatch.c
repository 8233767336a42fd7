/* fixture-abi-mismatch.c: a module built for another module ABI
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Its manifest claims the ABI this libreg speaks, so discovery accepts it,
 * but the module exports the next one: libreg must refuse it before running
 * any of its code, so reg_module_load() aborts the test if it ever runs.
 */

#include <stdlib.h>
#include <gmodule.h>
#include <reg.h>

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION + 1;

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  g_printerr ("fixture-abi-mismatch: reg_module_load() ran despite the ABI mismatch\n");
  abort ();
}
