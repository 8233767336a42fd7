/* fixture-partial.c: a backend that takes matmul and add only
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Its manifest declares Operators=matmul;add; it refuses any other
 * operator with REG_COMPILER_ERROR_UNSUPPORTED_OP, as such a backend
 * would, and computes what it takes as eager.  The registry compiles the
 * other nodes of a graph elsewhere.
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
    {
      const char *op = reg_graph_get_node_op (graph, i);

      if (op != NULL && !g_str_equal (op, "matmul") && !g_str_equal (op, "add"))
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP,
                       "partial: no %s (node %u)", op, i);
          return NULL;
        }
    }

  return fixture_eager_compile ("partial", graph, options, error);
}

static const FixtureCompilerSpec spec = { "partial", NULL, compile };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  fixture_eager_register (G_TYPE_MODULE (module));
  reg_module_add_backend (module, "partial",
                          fixture_compiler_register (G_TYPE_MODULE (module), &spec));
}
