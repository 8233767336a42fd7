/* fuzz-shapes.c: libFuzzer target for shape inference with huge and zero
 * dimensions
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input is a few bytes of example input shapes, then a graph text:
 *
 *   byte 0          the number of example inputs, modulo 8
 *   per input       a byte, its number of dimensions modulo 5, then one
 *                   byte per dimension: an index into dims[] below, which
 *                   holds 0, small sizes and sizes around 2^31, 2^32, 2^61,
 *                   2^62 and 2^63
 *   the rest        the graph's text
 *
 * An example input whose shape has more than a few thousand elements
 * could not be made without memory the fuzzer does not have: its first
 * dimension is made 0, so that it holds no element whatever the others
 * are, which is how huge shapes reach a graph (a matmul of a [N, 0] by a
 * [0, M] matrix is N by M).
 *
 * Shape inference either fails with a clear REG_GRAPH_ERROR_SHAPE message,
 * or every node's shape can be addressed, as checked here independently
 * of libreg: no negative dimension, at most REG_TENSOR_MAX_DIMS of them,
 * and an element count whose size in bytes is at most G_MAXSSIZE (a zero
 * dimension empties it).  A tensor of each such shape that holds no
 * element is then made.
 */

#include "fuzz-common.h"

#include "reg-graph.h"
#include "reg-tensor.h"

#define MAX_EXAMPLE_ELEMENTS 4096

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static const gint64 dims[] = {
  0, 1, 2, 3, 7, 255, 65536,
  G_GINT64_CONSTANT (2147483647), G_GINT64_CONSTANT (2147483648), G_GINT64_CONSTANT (2147483649),
  G_GINT64_CONSTANT (4294967295), G_GINT64_CONSTANT (4294967296), G_GINT64_CONSTANT (4294967297),
  G_GINT64_CONSTANT (1) << 40,
  (G_GINT64_CONSTANT (1) << 61) - 1, G_GINT64_CONSTANT (1) << 61,
  (G_GINT64_CONSTANT (1) << 62) - 1, G_GINT64_CONSTANT (1) << 62,
  G_MAXINT64,
};

/* Whether a tensor of @shape can be addressed, computed without libreg. */
static gboolean
addressable (const gint64 *shape,
             gsize         n_dims)
{
  guint64 count = 1;
  gboolean overflow = FALSE;

  for (gsize d = 0; d < n_dims; d++)
    {
      FUZZ_ASSERT (shape[d] >= 0, "dimension %zu is %" G_GINT64_FORMAT, d, shape[d]);
      if (shape[d] == 0)
        return TRUE;
    }

  for (gsize d = 0; d < n_dims && !overflow; d++)
    overflow = __builtin_mul_overflow (count, (guint64) shape[d], &count);

  return !overflow && count <= (guint64) G_MAXSSIZE / sizeof (float);
}

static RegTensor *
example_tensor (gint64 *shape,
                guint   n_dims)
{
  g_autoptr(GError) error = NULL;
  guint64 count = 1;
  RegTensor *tensor;

  for (guint d = 0; d < n_dims; d++)
    if (__builtin_mul_overflow (count, (guint64) shape[d], &count))
      count = G_MAXUINT64;
  if (n_dims > 0 && count > MAX_EXAMPLE_ELEMENTS)
    shape[0] = 0;

  tensor = reg_tensor_try_new (shape, n_dims, &error);
  FUZZ_ASSERT (tensor != NULL, "an example tensor of at most %d elements: %s",
               MAX_EXAMPLE_ELEMENTS, error->message);

  return tensor;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GError) error = NULL;
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(RegShapeList) shapes = NULL;
  g_autofree char *text = NULL;
  gsize at = 0;
  guint n_inputs;

  if (size < 1)
    return 0;

  n_inputs = data[at++] % 8;
  for (guint i = 0; i < n_inputs; i++)
    {
      gint64 shape[4];
      guint n_dims;

      if (at >= size)
        return 0;
      n_dims = data[at++] % 5;
      for (guint d = 0; d < n_dims; d++)
        {
          if (at >= size)
            return 0;
          shape[d] = dims[data[at++] % G_N_ELEMENTS (dims)];
        }
      g_ptr_array_add (inputs, example_tensor (shape, n_dims));
    }

  text = g_strndup ((const char *) data + at, size - at);
  graph = reg_graph_new_from_string (text, NULL);
  if (graph == NULL)
    return 0;

  shapes = reg_graph_infer_shapes (graph, inputs, &error);
  if (shapes == NULL)
    {
      FUZZ_ASSERT (g_error_matches (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE),
                   "shape inference: %s", error->message);
      fuzz_check_message (error->message);
      return 0;
    }

  FUZZ_ASSERT (reg_shape_list_get_n_shapes (shapes) == reg_graph_get_n_nodes (graph),
               "%u shapes for %u nodes", reg_shape_list_get_n_shapes (shapes),
               reg_graph_get_n_nodes (graph));

  for (guint i = 0; i < reg_shape_list_get_n_shapes (shapes); i++)
    {
      g_autoptr(RegTensor) empty = NULL;
      gint64 empty_shape[REG_TENSOR_MAX_DIMS];
      guint n_dims;
      const gint64 *shape = reg_shape_list_get_shape (shapes, i, &n_dims);

      FUZZ_ASSERT (n_dims <= REG_TENSOR_MAX_DIMS, "node %u has %u dimensions", i, n_dims);
      FUZZ_ASSERT (addressable (shape, n_dims), "node %u has a shape no tensor can hold", i);

      /* The same shape, emptied: a tensor of it is made without memory. */
      if (n_dims > 0)
        {
          memcpy (empty_shape, shape, n_dims * sizeof (gint64));
          empty_shape[0] = 0;
          empty = reg_tensor_try_new (empty_shape, n_dims, &error);
          FUZZ_ASSERT (empty != NULL, "an empty tensor like node %u: %s", i, error->message);
        }
    }

  return 0;
}
