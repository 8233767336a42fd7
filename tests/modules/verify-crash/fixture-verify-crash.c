/* fixture-verify-crash.c: a module that crashes while it loads
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * reg_module_load() kills the process with SIGSEGV, as a module with a
 * bad pointer would: `regctl verify` finds it crashed and quarantines it,
 * after which no registry opens it.  Loading it in a test process kills
 * the test, so the tests only ever load it in a child.
 */

#include <signal.h>
#include <gmodule.h>
#include <reg.h>

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  raise (SIGSEGV);
}
