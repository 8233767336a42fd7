/* test-objects.h: compilers, graphs and tensors that the test programs make
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <reg.h>

/* A compile function that always fails (FAILED, "refused"): tests of the
 * registry only store and hand out compilers. */
static inline RegCompiledFn *
refuse_compile (RegGraph   *graph,
                GPtrArray  *example_inputs,
                GVariant   *options,
                gpointer    user_data,
                GError    **error)
{
  g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED, "refused");
  return NULL;
}

/* The graph of @text, which must parse. */
static inline RegGraph *
graph_new_from_string (const char *text)
{
  g_autoptr(GError) error = NULL;
  RegGraph *graph = reg_graph_new_from_string (text, &error);

  g_assert_no_error (error);
  g_assert_nonnull (graph);

  return graph;
}

/* An empty array of tensors that owns what is added to it. */
static inline GPtrArray *
tensor_array_new (void)
{
  return g_ptr_array_new_with_free_func (g_object_unref);
}

/* A tensor of @shape with elements drawn uniformly from [@low, @high) by
 * the test's random generator (g_test_rand_*: the seed is printed). */
static inline RegTensor *
tensor_new_uniform (const gint64 *shape,
                    guint         n_dims,
                    double        low,
                    double        high)
{
  RegTensor *tensor = reg_tensor_new_uninitialized (shape, n_dims);
  gsize n;
  float *data = reg_tensor_get_data (tensor, &n);

  for (gsize i = 0; i < n; i++)
    data[i] = (float) g_test_rand_double_range (low, high);

  return tensor;
}
