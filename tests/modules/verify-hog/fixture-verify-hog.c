/* fixture-verify-hog.c: a backend that allocates without bound
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The first compile allocates 64 MiB blocks, and keeps them, until
 * allocating fails: under the memory limit of `regctl verify` GLib then
 * aborts the process, which the check reports as a crash naming the
 * limit.  The blocks are never written, so they take address space, not
 * memory; past 16 GiB of it (no limit: a sanitizer build) it sleeps, and
 * the timeout ends it.
 */

#include <gmodule.h>

#include "../fixture-compiler.h"

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

#define BLOCK ((gsize) 64 << 20)
#define MAX_BLOCKS 256

static gpointer blocks[MAX_BLOCKS];

static RegCompiledFn *
compile (RegGraph   *graph,
         GPtrArray  *example_inputs,
         GVariant   *options,
         GError    **error)
{
  for (guint i = 0; i < MAX_BLOCKS; i++)
    blocks[i] = g_malloc (BLOCK);

  for (;;)
    g_usleep (G_USEC_PER_SEC);

  return NULL;
}

static const FixtureCompilerSpec spec = { "verify_hog", NULL, compile };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  reg_module_add_backend (module, "verify_hog", fixture_compiler_register (G_TYPE_MODULE (module), &spec));
}
