/* fixture-verify-null.c: a backend that dereferences NULL in a compile
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The eager interpreter under another name, but a compile of a graph
 * holding matmul writes through a NULL pointer, as a backend with a
 * missing case would: the check crashes with SIGSEGV while compiling the
 * first such graph of the conformance set, 'op/matmul', far from any
 * memory limit.
 */

#include <gmodule.h>

#include "../fixture-compiler.h"

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

/* volatile: the compiler cannot know it is NULL, and writes through it. */
static int *volatile nowhere;

static RegCompiledFn *
compile (RegGraph   *graph,
         GPtrArray  *example_inputs,
         GVariant   *options,
         GError    **error)
{
  for (guint n = 0; n < reg_graph_get_n_nodes (graph); n++)
    if (reg_graph_get_node_kind (graph, n) == REG_NODE_OP &&
        reg_graph_get_node_operator (graph, n) == REG_OP_MATMUL)
      *nowhere = 1;

  return fixture_eager_compile ("verify_null", graph, options, error);
}

static const FixtureCompilerSpec spec = { "verify_null", NULL, compile };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  fixture_eager_register (G_TYPE_MODULE (module));
  reg_module_add_backend (module, "verify_null", fixture_compiler_register (G_TYPE_MODULE (module), &spec));
}
