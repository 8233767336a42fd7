/* reg-tensor.h: float32 tensors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <glib-object.h>

#include "reg-error.h"
#include "reg-version-macros.h"

G_BEGIN_DECLS

/**
 * REG_TENSOR_MAX_DIMS:
 *
 * The largest number of dimensions a [class@Reg.Tensor] can have.
 */
#define REG_TENSOR_MAX_DIMS 8

#define REG_TYPE_TENSOR (reg_tensor_get_type ())

REG_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (RegTensor, reg_tensor, REG, TENSOR, GObject)

REG_AVAILABLE_IN_ALL
RegTensor     *reg_tensor_new             (const gint64  *shape,
                                           guint          n_dims);
REG_AVAILABLE_IN_ALL
RegTensor     *reg_tensor_new_uninitialized (const gint64 *shape,
                                           guint         n_dims);
REG_AVAILABLE_IN_ALL
RegTensor     *reg_tensor_try_new         (const gint64  *shape,
                                           guint          n_dims,
                                           GError       **error);
REG_AVAILABLE_IN_ALL
RegTensor     *reg_tensor_try_new_uninitialized (const gint64 *shape,
                                           guint          n_dims,
                                           GError       **error);
REG_AVAILABLE_IN_ALL
RegTensor     *reg_tensor_new_from_data   (const float   *data,
                                           gsize          n_elements,
                                           const gint64  *shape,
                                           guint          n_dims,
                                           GError       **error);
REG_AVAILABLE_IN_ALL
RegTensor     *reg_tensor_new_from_bytes  (GBytes        *bytes,
                                           const gint64  *shape,
                                           guint          n_dims,
                                           GError       **error);
REG_AVAILABLE_IN_ALL
float         *reg_tensor_get_data        (RegTensor     *self,
                                           gsize         *n_elements);
REG_AVAILABLE_IN_ALL
const gint64  *reg_tensor_get_shape       (RegTensor     *self,
                                           guint         *n_dims);
REG_AVAILABLE_IN_ALL
guint          reg_tensor_get_n_dims      (RegTensor     *self);
REG_AVAILABLE_IN_ALL
gsize          reg_tensor_get_n_elements  (RegTensor     *self);
REG_AVAILABLE_IN_ALL
GBytes        *reg_tensor_dup_bytes       (RegTensor     *self);
REG_AVAILABLE_IN_ALL
RegTensor     *reg_tensor_copy            (RegTensor     *self);
REG_AVAILABLE_IN_ALL
gboolean       reg_tensor_allclose        (RegTensor     *a,
                                           RegTensor     *b,
                                           double         rtol,
                                           double         atol);

/**
 * RegShapeList:
 *
 * The shapes of the nodes of a graph, indexed by node id, as
 * [method@Reg.Graph.infer_shapes] gives them.  A shape list never changes:
 * any number of threads may read it at once.
 */
typedef struct _RegShapeList RegShapeList;

#define REG_TYPE_SHAPE_LIST (reg_shape_list_get_type ())

REG_AVAILABLE_IN_ALL
GType          reg_shape_list_get_type    (void) G_GNUC_CONST;
REG_AVAILABLE_IN_ALL
RegShapeList  *reg_shape_list_ref         (RegShapeList  *self);
REG_AVAILABLE_IN_ALL
void           reg_shape_list_unref       (RegShapeList  *self);
REG_AVAILABLE_IN_ALL
guint          reg_shape_list_get_n_shapes (RegShapeList *self);
REG_AVAILABLE_IN_ALL
const gint64  *reg_shape_list_get_shape   (RegShapeList  *self,
                                           guint          index,
                                           guint         *n_dims);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RegShapeList, reg_shape_list_unref)

G_END_DECLS
