/* fixture-verify-hog-unchecked.c: a backend that allocates without bound
 * and does not check what malloc() returns
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The first compile allocates 16 MiB blocks with malloc() and writes the
 * first byte of each, until the address space reaches the memory limit
 * of `regctl verify`: malloc() then returns NULL, and the write kills
 * the process with SIGSEGV, which the check reports as a crash naming
 * the limit.  Past 16 GiB (no limit: a sanitizer build) it sleeps, and
 * the timeout ends it.
 */

#include <stdlib.h>
#include <gmodule.h>

#include "../fixture-compiler.h"

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

#define BLOCK ((gsize) 16 << 20)
#define MAX_BLOCKS 1024

static char *blocks[MAX_BLOCKS];

static RegCompiledFn *
compile (RegGraph   *graph,
         GPtrArray  *example_inputs,
         GVariant   *options,
         GError    **error)
{
  for (guint i = 0; i < MAX_BLOCKS; i++)
    {
      blocks[i] = malloc (BLOCK);
      blocks[i][0] = 1;
    }

  for (;;)
    g_usleep (G_USEC_PER_SEC);

  return NULL;
}

static const FixtureCompilerSpec spec = { "verify_hog_unchecked", NULL, compile };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  reg_module_add_backend (module, "verify_hog_unchecked",
                          fixture_compiler_register (G_TYPE_MODULE (module), &spec));
}
