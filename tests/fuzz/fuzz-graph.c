/* fuzz-graph.c: libFuzzer target for the graph text parser
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input is graph text.  A text is either refused with a clear message
 * that starts with its line and column, or it gives a valid graph whose
 * printed form (reg_graph_to_string) parses again to the same graph and
 * prints the same text.  Shapes are then inferred for small inputs, which
 * either works or fails as a shape error.
 */

#include <math.h>

#include "fuzz-common.h"

#include "reg-graph.h"
#include "reg-tensor.h"

#define MAX_INPUTS_FOR_SHAPES 64

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gboolean
same_value (double a,
            double b)
{
  /* Every NaN prints as `nan`; otherwise the very same double, the sign
   * of zero included. */
  if (isnan (a) || isnan (b))
    return isnan (a) && isnan (b);
  return memcmp (&a, &b, sizeof a) == 0;
}

static void
assert_same_graph (RegGraph *a,
                   RegGraph *b)
{
  guint n = reg_graph_get_n_nodes (a);
  const guint *ia, *ib, *oa, *ob;
  guint nia, nib, noa, nob;

  FUZZ_ASSERT (reg_graph_get_n_nodes (b) == n, "%u nodes, %u after printing and parsing",
               n, reg_graph_get_n_nodes (b));

  for (guint i = 0; i < n; i++)
    {
      RegNodeKind kind = reg_graph_get_node_kind (a, i);
      guint na, nb;
      const guint *aa, *ab;

      FUZZ_ASSERT (reg_graph_get_node_kind (b, i) == kind, "node %u changes kind", i);
      FUZZ_ASSERT (g_strcmp0 (reg_graph_get_node_name (a, i), reg_graph_get_node_name (b, i)) == 0,
                   "node %u renamed from '%s' to '%s'", i, reg_graph_get_node_name (a, i),
                   reg_graph_get_node_name (b, i));

      switch (kind)
        {
        case REG_NODE_CONSTANT:
          FUZZ_ASSERT (same_value (reg_graph_get_node_value (a, i), reg_graph_get_node_value (b, i)),
                       "constant %u changes from %.17g to %.17g", i,
                       reg_graph_get_node_value (a, i), reg_graph_get_node_value (b, i));
          break;

        case REG_NODE_OP:
          /* Interned: equal strings are the same pointer. */
          FUZZ_ASSERT (reg_graph_get_node_op (a, i) == reg_graph_get_node_op (b, i),
                       "node %u changes operator", i);
          aa = reg_graph_get_node_args (a, i, &na);
          ab = reg_graph_get_node_args (b, i, &nb);
          FUZZ_ASSERT (na == nb && memcmp (aa, ab, na * sizeof (guint)) == 0,
                       "node %u changes arguments", i);
          for (guint k = 0; k < na; k++)
            FUZZ_ASSERT (aa[k] < i, "node %u takes node %u, not an earlier one", i, aa[k]);
          break;

        case REG_NODE_INPUT:
        default:
          break;
        }
    }

  ia = reg_graph_get_inputs (a, &nia);
  ib = reg_graph_get_inputs (b, &nib);
  FUZZ_ASSERT (nia == nib && (nia == 0 || memcmp (ia, ib, nia * sizeof (guint)) == 0),
               "inputs change");
  oa = reg_graph_get_outputs (a, &noa);
  ob = reg_graph_get_outputs (b, &nob);
  FUZZ_ASSERT (noa == nob && (noa == 0 || memcmp (oa, ob, noa * sizeof (guint)) == 0),
               "outputs change");
  for (guint k = 0; k < noa; k++)
    FUZZ_ASSERT (oa[k] < n, "output %u is node %u of %u", k, oa[k], n);
}

/* "LINE:COLUMN: ..." with LINE within the text */
static void
check_location (const char *message,
                const char *text)
{
  guint64 line, column;
  char *end;
  guint n_lines = 1;

  for (const char *p = text; *p != '\0'; p++)
    n_lines += *p == '\n';

  line = g_ascii_strtoull (message, &end, 10);
  FUZZ_ASSERT (end != message && *end == ':', "no line in '%s'", message);
  column = g_ascii_strtoull (end + 1, &end, 10);
  FUZZ_ASSERT (*end == ':' && end[1] == ' ', "no column in '%s'", message);
  FUZZ_ASSERT (line >= 1 && line <= n_lines, "line %" G_GUINT64_FORMAT " of a text of %u lines",
               line, n_lines);
  FUZZ_ASSERT (column >= 1, "column %" G_GUINT64_FORMAT, column);
}

static void
infer_small_shapes (RegGraph *graph)
{
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(RegShapeList) shapes = NULL;
  g_autoptr(GError) error = NULL;
  const gint64 shape[] = { 2, 2 };
  guint n_inputs;

  reg_graph_get_inputs (graph, &n_inputs);
  if (n_inputs > MAX_INPUTS_FOR_SHAPES)
    return;
  for (guint i = 0; i < n_inputs; i++)
    g_ptr_array_add (inputs, reg_tensor_new (shape, i % 3 == 2 ? 1 : 2));

  shapes = reg_graph_infer_shapes (graph, inputs, &error);
  if (shapes == NULL)
    {
      FUZZ_ASSERT (g_error_matches (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE),
                   "shape inference: %s", error->message);
      fuzz_check_message (error->message);
    }
  else
    FUZZ_ASSERT (reg_shape_list_get_n_shapes (shapes) == reg_graph_get_n_nodes (graph),
                 "%u shapes for %u nodes", reg_shape_list_get_n_shapes (shapes),
                 reg_graph_get_n_nodes (graph));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(RegGraph) again = NULL;
  g_autofree char *printed = NULL;
  g_autofree char *printed_again = NULL;

  graph = reg_graph_new_from_string (text, &error);
  if (graph == NULL)
    {
      FUZZ_ASSERT (error != NULL && error->domain == REG_GRAPH_ERROR, "NULL without a graph error");
      fuzz_check_message (error->message);
      check_location (error->message, text);
      return 0;
    }
  FUZZ_ASSERT (error == NULL, "a graph and an error");
  FUZZ_ASSERT (reg_graph_validate (graph, &error), "a parsed graph is invalid: %s", error->message);

  printed = reg_graph_to_string (graph);
  FUZZ_ASSERT (g_utf8_validate (printed, -1, NULL), "printed text is not UTF-8");
  again = reg_graph_new_from_string (printed, &error);
  FUZZ_ASSERT (again != NULL, "printed text does not parse: %s\n%s", error->message, printed);
  printed_again = reg_graph_to_string (again);
  FUZZ_ASSERT (g_str_equal (printed, printed_again), "printing is not stable:\n%s\n---\n%s",
               printed, printed_again);
  assert_same_graph (graph, again);

  infer_small_shapes (graph);

  return 0;
}
