/* fixture-eager.c: the eager interpreter in fixture modules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fixtures of `regctl verify` compute with the eager interpreter
 * (modules/eager/reg-eager-interp.c, compiled into each of them), and
 * each copy of them must register its function type under a name of its
 * own, as fixture-compiler.c does for the compilers.
 */

#include "fixture-compiler.h"
#include "reg-eager-interp.h"

void
fixture_eager_register (GTypeModule *module)
{
  char type_name[64];

  for (guint i = 0; ; i++)
    {
      g_snprintf (type_name, sizeof type_name, "FixtureEagerFn%u", i);
      if (g_type_from_name (type_name) == G_TYPE_INVALID)
        break;
    }

  _reg_eager_fn_register_type (module, type_name);
}

RegCompiledFn *
fixture_eager_compile (const char  *backend,
                       RegGraph    *graph,
                       GVariant    *options,
                       GError     **error)
{
  return _reg_eager_compile (backend, graph, options, error);
}
