/* fixture-verify-wrong.c: a backend wrong for one operator
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Computes sigmoid as tanh (the graph is rebuilt with the one operator
 * swapped, then interpreted as eager does) and everything else right:
 * `regctl verify` finds wrong results, on a graph with sigmoid.
 * verify_wrong_declared does the same, its manifest declaring that it
 * takes sigmoid and add only (Operators=): the verdict names sigmoid.
 */

#include <gmodule.h>

#include "../fixture-compiler.h"

G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;

static RegGraph *
swap_sigmoid (RegGraph  *graph,
              GError   **error)
{
  g_autoptr(RegGraph) copy = reg_graph_new ();
  guint n = reg_graph_get_n_nodes (graph);
  g_autofree guint *ids = g_new (guint, n);
  const guint *outputs;
  g_autofree guint *new_outputs = NULL;
  guint n_outputs;

  for (guint i = 0; i < n; i++)
    {
      const guint *args;
      guint n_args;
      g_autofree guint *new_args = NULL;
      const char *op;

      switch (reg_graph_get_node_kind (graph, i))
        {
        case REG_NODE_INPUT:
          ids[i] = reg_graph_add_input (copy, reg_graph_get_node_name (graph, i));
          break;
        case REG_NODE_CONSTANT:
          ids[i] = reg_graph_add_constant (copy, reg_graph_get_node_value (graph, i));
          break;
        default:
          args = reg_graph_get_node_args (graph, i, &n_args);
          new_args = g_new (guint, MAX (n_args, 1));
          for (guint a = 0; a < n_args; a++)
            new_args[a] = ids[args[a]];
          op = reg_graph_get_node_op (graph, i);
          ids[i] = reg_graph_add_op (copy, g_str_equal (op, "sigmoid") ? "tanh" : op,
                                     new_args, n_args, error);
          if (ids[i] == REG_GRAPH_INVALID_NODE)
            return NULL;
        }
    }

  outputs = reg_graph_get_outputs (graph, &n_outputs);
  new_outputs = g_new (guint, MAX (n_outputs, 1));
  for (guint i = 0; i < n_outputs; i++)
    new_outputs[i] = ids[outputs[i]];
  reg_graph_set_outputs (copy, new_outputs, n_outputs);

  return g_steal_pointer (&copy);
}

static RegCompiledFn *
compile (RegGraph   *graph,
         GPtrArray  *example_inputs,
         GVariant   *options,
         GError    **error)
{
  g_autoptr(RegGraph) swapped = swap_sigmoid (graph, error);

  if (swapped == NULL)
    return NULL;

  return fixture_eager_compile ("verify_wrong", swapped, options, error);
}

static const FixtureCompilerSpec spec = { "verify_wrong", NULL, compile };
static const FixtureCompilerSpec declared = { "verify_wrong_declared", NULL, compile };

G_MODULE_EXPORT void
reg_module_load (RegModule *module)
{
  fixture_eager_register (G_TYPE_MODULE (module));
  reg_module_add_backend (module, "verify_wrong", fixture_compiler_register (G_TYPE_MODULE (module), &spec));
  reg_module_add_backend (module, "verify_wrong_declared",
                          fixture_compiler_register (G_TYPE_MODULE (module), &declared));
}
