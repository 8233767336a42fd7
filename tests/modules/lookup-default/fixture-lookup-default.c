/* fixture-lookup-default.c: a module that uses the default registry while
 * it loads
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Provides `fixture_lookup`, as lookup-default.backend declares.  Its
 * reg_module_load() first looks up, in the default registry, the backend
 * named by the environment variable FIXTURE_LOOKUP_NAME (fixture_a when
 * unset), as a module that builds on another backend might: loading it
 * takes the module lock and a registry's load lock, then the default
 * registry's.  The counters say how often the lookup found a compiler and
 * how often it failed; the test reads them with dlsym().
 */

#include <gmodule.h>

#include "../fixture-compiler.h"

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

G_MODULE_EXPORT gint fixture_lookup_n_found;
G_MODULE_EXPORT gint fixture_lookup_n_failed;

static const FixtureCompilerSpec fixture_lookup = { "fixture_lookup", NULL };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  const char *name = g_getenv ("FIXTURE_LOOKUP_NAME");
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(GError) error = NULL;

  compiler = reg_registry_lookup_backend (reg_registry_get_default (),
                                          name != NULL ? name : "fixture_a", &error);
  if (compiler != NULL)
    g_atomic_int_inc (&fixture_lookup_n_found);
  else
    g_atomic_int_inc (&fixture_lookup_n_failed);

  reg_module_add_backend (module, "fixture_lookup",
                          fixture_compiler_register (G_TYPE_MODULE (module), &fixture_lookup));
}
