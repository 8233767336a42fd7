/* reg-graph-private.h: graph internals shared inside libreg
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-graph.h"
#include "reg-tensor.h"

G_BEGIN_DECLS

/* A tensor shape by value: what shape inference produces for each node. */
typedef struct
{
  guint  n_dims;
  gint64 dims[REG_TENSOR_MAX_DIMS];
} RegShape;

/* Checks @graph (sticky builder error included, see reg_graph_validate())
 * against @example_inputs (count, then the shape of every node under the
 * operator rules) and, on success, returns in @shapes (optional) a newly
 * allocated array of reg_graph_get_n_nodes() shapes, one per node.
 * Errors: REG_GRAPH_ERROR_SHAPE naming the node and both shapes, or the
 * graph's own validation error. */
gboolean _reg_graph_infer_shapes (RegGraph   *graph,
                                  GPtrArray  *example_inputs,
                                  RegShape  **shapes,
                                  GError    **error);

/* Appends to @out bytes that are equal for two graphs exactly when their
 * canonical text forms (reg_graph_to_string()) are equal, in time linear
 * in the size of the graph, without printing it: the compile cache's key.
 * Returns FALSE, @out holding part of it, when @out would pass @max_size
 * bytes (at most G_MAXUINT, what a GByteArray holds).  @self must be valid
 * (reg_graph_validate()). */
gboolean _reg_graph_append_key   (RegGraph    *self,
                                  GByteArray  *out,
                                  gsize        max_size);

/* Whether a tensor of shape @dims can be addressed: no negative dimension,
 * and an element count whose size in bytes (4 per element) is at most
 * G_MAXSSIZE.  A zero dimension empties it, however large the others.
 * Sets @n_elements (optional) when it can.  The one rule for tensors and
 * for the shapes that shape inference computes. */
gboolean _reg_shape_count       (const gint64 *dims,
                                 guint         n_dims,
                                 gsize        *n_elements);

/* Formats a shape as "[4, 3]" ("[]" for 0-d). */
char    *_reg_shape_to_string    (const gint64 *dims,
                                  guint         n_dims);

G_END_DECLS
