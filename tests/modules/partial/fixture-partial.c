/* fixture-partial.c: backends that take matmul and add only
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Their manifest declares Operators=matmul;add.  partial refuses any
 * other operator with REG_COMPILER_ERROR_UNSUPPORTED_OP, as such a
 * backend would, and computes what it takes as eager: the registry
 * compiles the other nodes of a graph elsewhere, and `regctl verify`
 * finds it ok.  partial_refuses_add refuses add as well, which it
 * declares: `regctl verify` finds its results wrong, naming add.
 */

#include <gmodule.h>

#include "../fixture-compiler.h"

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

/* Compiles @graph as eager when it calls no operator but @takes. */
static RegCompiledFn *
compile_taking (const char   *backend,
                const char  **takes,
                RegGraph     *graph,
                GVariant     *options,
                GError      **error)
{
  for (guint i = 0; i < reg_graph_get_n_nodes (graph); i++)
    {
      const char *op = reg_graph_get_node_op (graph, i);

      if (op != NULL && !g_strv_contains (takes, op))
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP,
                       "%s: no %s (node %u)", backend, op, i);
          return NULL;
        }
    }

  return fixture_eager_compile (backend, graph, options, error);
}

static RegCompiledFn *
compile (RegGraph   *graph,
         GPtrArray  *example_inputs,
         GVariant   *options,
         GError    **error)
{
  return compile_taking ("partial", (const char *[]) { "matmul", "add", NULL }, graph, options, error);
}

static RegCompiledFn *
compile_refusing_add (RegGraph   *graph,
                      GPtrArray  *example_inputs,
                      GVariant   *options,
                      GError    **error)
{
  return compile_taking ("partial_refuses_add", (const char *[]) { "matmul", NULL }, graph,
                         options, error);
}

static const FixtureCompilerSpec spec = { "partial", NULL, compile };
static const FixtureCompilerSpec refusing = { "partial_refuses_add", NULL, compile_refusing_add };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  fixture_eager_register (G_TYPE_MODULE (module));
  reg_module_add_backend (module, "partial",
                          fixture_compiler_register (G_TYPE_MODULE (module), &spec));
  reg_module_add_backend (module, "partial_refuses_add",
                          fixture_compiler_register (G_TYPE_MODULE (module), &refusing));
}
