/* fixture-verify-unsupported.c: a backend without matmul
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Refuses every graph with a matmul, as REG_COMPILER_ERROR_UNSUPPORTED_OP
 * allows, and computes the others as eager: `regctl verify` finds it
 * unsupported, naming matmul.
 */

#include <gmodule.h>

#include "../fixture-compiler.h"

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

static RegCompiledFn *
compile (RegGraph   *graph,
         GPtrArray  *example_inputs,
         GVariant   *options,
         GError    **error)
{
  for (guint i = 0; i < reg_graph_get_n_nodes (graph); i++)
    if (reg_graph_get_node_kind (graph, i) == REG_NODE_OP &&
        g_str_equal (reg_graph_get_node_op (graph, i), "matmul"))
      {
        g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP,
                     "verify_unsupported: no matmul (node %u)", i);
        return NULL;
      }

  return fixture_eager_compile ("verify_unsupported", graph, options, error);
}

static const FixtureCompilerSpec spec = { "verify_unsupported", NULL, compile };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  fixture_eager_register (G_TYPE_MODULE (module));
  reg_module_add_backend (module, "verify_unsupported",
                          fixture_compiler_register (G_TYPE_MODULE (module), &spec));
}
