/* fixture-no-abi-symbol.c: a module without reg_module_abi_version
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A module that does not say which ABI it was built for must not run: its
 * reg_module_load() aborts the test if libreg calls it.
 */

#include <stdlib.h>
#include <gmodule.h>
#include <reg.h>

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  g_printerr ("fixture-no-abi-symbol: reg_module_load() ran without an ABI version\n");
  abort ();
}
