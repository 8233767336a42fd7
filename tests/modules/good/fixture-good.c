/* fixture-good.c: a well-behaved module declaring two backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Provides `fixture_a` and `fixture_b`, as good.backend declares.  The
 * test reads the two counters with dlsym() to see how often the module was
 * initialised and how many compilers were made from it.
 */

#include <gmodule.h>

#include "../fixture-compiler.h"

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

/* Times reg_module_load() ran, and compilers made, in this copy of the
 * module.  Read atomically. */
G_MODULE_EXPORT gint fixture_good_n_loads;
G_MODULE_EXPORT gint fixture_good_n_constructed;

static const FixtureCompilerSpec fixture_a = { "fixture_a", &fixture_good_n_constructed };
static const FixtureCompilerSpec fixture_b = { "fixture_b", &fixture_good_n_constructed };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  GTypeModule *type_module = G_TYPE_MODULE (module);

  g_atomic_int_inc (&fixture_good_n_loads);

  /* Take a while, so that concurrent first lookups really wait for one
   * another rather than finishing one after the other. */
  g_usleep (20 * G_TIME_SPAN_MILLISECOND);

  reg_module_add_backend (module, "fixture_a", fixture_compiler_register (type_module, &fixture_a));
  reg_module_add_backend (module, "fixture_b", fixture_compiler_register (type_module, &fixture_b));
}
