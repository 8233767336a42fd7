/* reg-tensor-private.h: shapes, shared inside libreg
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <string.h>

#include "reg-tensor.h"

G_BEGIN_DECLS

/* A tensor shape by value: what shape inference produces for each node. */
typedef struct
{
  guint  n_dims;
  gint64 dims[REG_TENSOR_MAX_DIMS];
} RegShape;

static inline gboolean
_reg_shape_is (const RegShape *shape,
               const gint64   *dims,
               guint           n_dims)
{
  return shape->n_dims == n_dims && memcmp (shape->dims, dims, n_dims * sizeof (gint64)) == 0;
}

/* The one rule for tensors and for inferred shapes: whether a tensor of
 * shape @dims can be addressed, with no negative dimension and at most
 * G_MAXSSIZE bytes (4 per element; a zero dimension empties it, however
 * large the others).  Sets @n_elements (optional) when it can. */
gboolean      _reg_shape_count          (const gint64 *dims,
                                         guint         n_dims,
                                         gsize        *n_elements);

/* "[4, 3]", "[]" for 0-d */
char         *_reg_shape_to_string      (const gint64 *dims,
                                         guint         n_dims);

/* A shape list of the @n_shapes shapes of @shapes (g_new()ed, taken). */
RegShapeList *_reg_shape_list_new_take  (RegShape     *shapes,
                                         guint         n_shapes);

G_END_DECLS
