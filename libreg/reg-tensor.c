/* reg-tensor.c: float32 tensors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <string.h>

#include "reg-storage-private.h"
#include "reg-tensor-private.h"

/**
 * RegTensor:
 *
 * A dense tensor of 32-bit floats in row-major order, with 0 to
 * %REG_TENSOR_MAX_DIMS dimensions, outermost first.  A tensor with no
 * dimension is a scalar (one element); a tensor with a dimension of 0 holds
 * no element.  The data is 64-byte aligned and writable in place through
 * [method@Reg.Tensor.get_data]; the shape never changes.
 *
 * Shapes are checked the same way for tensors as for graphs: a shape that
 * is not one (a negative dimension, more than %REG_TENSOR_MAX_DIMS
 * dimensions, more elements than memory can address) is
 * %REG_GRAPH_ERROR_SHAPE.  A valid shape whose memory cannot be allocated
 * is %REG_TENSOR_ERROR_NO_MEMORY, naming the shape and its size in bytes,
 * from the `try` constructors ([ctor@Reg.Tensor.try_new]), which are the
 * ones to use for a shape that comes from outside the program; the other
 * constructors abort then, as g_malloc() does.
 *
 * A tensor is not locked: it may be read from several threads at once, but
 * writing its data while another thread reads it is a data race.
 */
struct _RegTensor
{
  GObject parent_instance;

  guint   n_dims;
  gint64  shape[REG_TENSOR_MAX_DIMS];
  gsize   n_elements;
  /* Never NULL, even for zero elements, so that callers may pass it to
   * memcpy() and friends without a special case. */
  float  *data;
};

G_DEFINE_FINAL_TYPE (RegTensor, reg_tensor, G_TYPE_OBJECT)

static void
reg_tensor_finalize (GObject *object)
{
  RegTensor *self = REG_TENSOR (object);

  _reg_storage_free (self->data, self->n_elements * sizeof (float));

  G_OBJECT_CLASS (reg_tensor_parent_class)->finalize (object);
}

static void
reg_tensor_class_init (RegTensorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = reg_tensor_finalize;
}

static void
reg_tensor_init (RegTensor *self)
{
  /* A tensor made with g_object_new() alone (Reg.Tensor() in a binding) is
   * a zero scalar, never one without storage.  Four bytes: when even they
   * cannot be had, abort as g_malloc() would. */
  self->n_elements = 1;
  self->data = _reg_storage_try_alloc (sizeof (float), TRUE);
  if (self->data == NULL)
    g_error ("%s: failed to allocate %" G_GSIZE_FORMAT " bytes", G_STRLOC, sizeof (float));
}

/* Checks a shape from outside and computes its element count. */
static gboolean
check_shape (const gint64  *shape,
             guint          n_dims,
             gsize         *n_elements,
             GError       **error)
{
  g_autofree char *str = NULL;

  if (n_dims > REG_TENSOR_MAX_DIMS)
    {
      g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE,
                   "a tensor has at most %d dimensions, %u given", REG_TENSOR_MAX_DIMS, n_dims);
      return FALSE;
    }
  if (_reg_shape_count (shape, n_dims, n_elements))
    return TRUE;

  str = _reg_shape_to_string (shape, n_dims);
  for (guint i = 0; i < n_dims; i++)
    if (shape[i] < 0)
      {
        g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE,
                     "shape %s: dimension %u is negative", str, i);
        return FALSE;
      }
  g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE,
               "shape %s has more elements than memory can address", str);
  return FALSE;
}

/* Checks @shape as check_shape() does, then allocates.  NULL with
 * REG_TENSOR_ERROR_NO_MEMORY when the memory cannot be had. */
static RegTensor *
reg_tensor_try_alloc (const gint64  *shape,
                      guint          n_dims,
                      gboolean       zeroed,
                      GError       **error)
{
  gsize n_elements, n_bytes;
  float *data;
  RegTensor *self;

  if (!check_shape (shape, n_dims, &n_elements, error))
    return NULL;

  /* _reg_shape_count() made sure that this fits. */
  n_bytes = n_elements * sizeof (float);
  data = _reg_storage_try_alloc (n_bytes, zeroed);
  if (data == NULL)
    {
      g_autofree char *str = _reg_shape_to_string (shape, n_dims);
      /* Value and unit apart: g_format_size() joins them with a no-break
       * space, and messages are plain text. */
      g_autofree char *value = g_format_size_full (n_bytes, G_FORMAT_SIZE_IEC_UNITS |
                                                   G_FORMAT_SIZE_ONLY_VALUE);
      g_autofree char *unit = g_format_size_full (n_bytes, G_FORMAT_SIZE_IEC_UNITS |
                                                  G_FORMAT_SIZE_ONLY_UNIT);

      g_set_error (error, REG_TENSOR_ERROR, REG_TENSOR_ERROR_NO_MEMORY,
                   "not enough memory for a tensor of shape %s: %" G_GSIZE_FORMAT
                   " bytes (%s %s)", str, n_bytes, value, unit);
      return NULL;
    }

  self = g_object_new (REG_TYPE_TENSOR, NULL);
  self->n_dims = n_dims;
  if (n_dims > 0)
    memcpy (self->shape, shape, n_dims * sizeof (gint64));
  _reg_storage_free (self->data, self->n_elements * sizeof (float));
  self->n_elements = n_elements;
  self->data = data;

  return self;
}

/* The same for the constructors that abort when memory is short, as
 * g_malloc() does, naming the public @function that failed. */
static RegTensor *
reg_tensor_alloc (const char   *function,
                  const gint64 *shape,
                  guint         n_dims,
                  gboolean      zeroed)
{
  g_autoptr(GError) error = NULL;
  RegTensor *self = reg_tensor_try_alloc (shape, n_dims, zeroed, &error);

  if (self == NULL)
    g_error ("%s: %s", function, error->message);

  return self;
}

/* The guards of the constructors whose shape is the caller's promise: a
 * macro, so that a critical names the public function that was misused.
 * Its arguments are plain variables, named as in the messages. */
#define RETURN_IF_BAD_SHAPE(shape, n_dims) \
  G_STMT_START { \
    g_return_val_if_fail (shape != NULL || n_dims == 0, NULL); \
    g_return_val_if_fail (n_dims <= REG_TENSOR_MAX_DIMS, NULL); \
    for (guint i = 0; i < n_dims; i++) \
      g_return_val_if_fail (shape[i] >= 0, NULL); \
    g_return_val_if_fail (check_shape (shape, n_dims, NULL, NULL), NULL); \
  } G_STMT_END

/**
 * reg_tensor_new:
 * @shape: (array length=n_dims) (nullable): the size of each dimension,
 *   outermost first; %NULL when @n_dims is 0
 * @n_dims: the number of dimensions, at most %REG_TENSOR_MAX_DIMS
 *
 * Creates a tensor of the given shape filled with zeros.  A shape that is
 * not one (see [class@Reg.Tensor]) is a programmer error, and the program
 * aborts when the memory cannot be allocated, as with g_malloc(); use
 * [ctor@Reg.Tensor.try_new] for a shape that comes from outside the
 * program (a file, a command line, a graph's inputs).
 *
 * Returns: (transfer full): a new tensor
 */
RegTensor *
reg_tensor_new (const gint64 *shape,
                guint         n_dims)
{
  RETURN_IF_BAD_SHAPE (shape, n_dims);

  return reg_tensor_alloc (G_STRFUNC, shape, n_dims, TRUE);
}

/**
 * reg_tensor_new_uninitialized:
 * @shape: (array length=n_dims) (nullable): the size of each dimension,
 *   outermost first; %NULL when @n_dims is 0
 * @n_dims: the number of dimensions, at most %REG_TENSOR_MAX_DIMS
 *
 * Creates a tensor as [ctor@Reg.Tensor.new] does, but with unspecified
 * elements, for a backend that is about to write every one of them: it
 * saves filling a large output with zeros first.
 *
 * Returns: (transfer full): a new tensor
 */
RegTensor *
reg_tensor_new_uninitialized (const gint64 *shape,
                              guint         n_dims)
{
  RETURN_IF_BAD_SHAPE (shape, n_dims);

  return reg_tensor_alloc (G_STRFUNC, shape, n_dims, FALSE);
}

/**
 * reg_tensor_try_new:
 * @shape: (array length=n_dims) (nullable): the size of each dimension,
 *   outermost first; %NULL when @n_dims is 0
 * @n_dims: the number of dimensions
 * @error: return location for a #GError
 *
 * Creates a tensor of the given shape filled with zeros, for a shape that
 * comes from outside the program.  Fails with %REG_GRAPH_ERROR_SHAPE when
 * @shape is not a shape, and with %REG_TENSOR_ERROR_NO_MEMORY when its
 * memory cannot be allocated (see [class@Reg.Tensor]).  This function is
 * thread-safe.
 *
 * Returns: (transfer full): a new tensor, or %NULL with @error set
 */
RegTensor *
reg_tensor_try_new (const gint64  *shape,
                    guint          n_dims,
                    GError       **error)
{
  g_return_val_if_fail (shape != NULL || n_dims == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return reg_tensor_try_alloc (shape, n_dims, TRUE, error);
}

/**
 * reg_tensor_try_new_uninitialized:
 * @shape: (array length=n_dims) (nullable): the size of each dimension,
 *   outermost first; %NULL when @n_dims is 0
 * @n_dims: the number of dimensions
 * @error: return location for a #GError
 *
 * Creates a tensor as [ctor@Reg.Tensor.try_new] does, but with unspecified
 * elements, for a backend that is about to write every one of them.  This
 * function is thread-safe.
 *
 * Returns: (transfer full): a new tensor, or %NULL with @error set
 */
RegTensor *
reg_tensor_try_new_uninitialized (const gint64  *shape,
                                  guint          n_dims,
                                  GError       **error)
{
  g_return_val_if_fail (shape != NULL || n_dims == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return reg_tensor_try_alloc (shape, n_dims, FALSE, error);
}

/**
 * reg_tensor_new_from_data:
 * @data: (array length=n_elements) (nullable): the elements in row-major
 *   order; may be %NULL when @n_elements is 0
 * @n_elements: the number of elements in @data
 * @shape: (array length=n_dims) (nullable): the size of each dimension,
 *   outermost first; %NULL when @n_dims is 0
 * @n_dims: the number of dimensions
 * @error: return location for a #GError
 *
 * Creates a tensor holding a copy of @data.  Fails as
 * [ctor@Reg.Tensor.try_new] does, and with %REG_GRAPH_ERROR_SHAPE when
 * @shape holds another number of elements than @n_elements.
 *
 * Returns: (transfer full): a new tensor, or %NULL with @error set
 */
RegTensor *
reg_tensor_new_from_data (const float   *data,
                          gsize          n_elements,
                          const gint64  *shape,
                          guint          n_dims,
                          GError       **error)
{
  RegTensor *self;
  gsize expected;

  g_return_val_if_fail (data != NULL || n_elements == 0, NULL);
  g_return_val_if_fail (shape != NULL || n_dims == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_shape (shape, n_dims, &expected, error))
    return NULL;

  if (expected != n_elements)
    {
      g_autofree char *str = _reg_shape_to_string (shape, n_dims);

      g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE,
                   "shape %s holds %" G_GSIZE_FORMAT " element%s, %" G_GSIZE_FORMAT " given",
                   str, expected, expected == 1 ? "" : "s", n_elements);
      return NULL;
    }

  self = reg_tensor_try_alloc (shape, n_dims, FALSE, error);
  if (self != NULL && n_elements > 0)
    memcpy (self->data, data, n_elements * sizeof (float));

  return self;
}

/**
 * reg_tensor_new_from_bytes:
 * @bytes: the elements as native-endian float32 values in row-major order
 * @shape: (array length=n_dims) (nullable): the size of each dimension,
 *   outermost first; %NULL when @n_dims is 0
 * @n_dims: the number of dimensions
 * @error: return location for a #GError
 *
 * Creates a tensor holding a copy of @bytes: the whole buffer at once, which
 * is what bindings want (a numpy array's `tobytes()`, a `GLib.Bytes`).
 *
 * Fails with %REG_GRAPH_ERROR_SHAPE when the size of @bytes is not a
 * multiple of 4, or as [ctor@Reg.Tensor.new_from_data] does.
 *
 * Returns: (transfer full): a new tensor, or %NULL with @error set
 */
RegTensor *
reg_tensor_new_from_bytes (GBytes        *bytes,
                           const gint64  *shape,
                           guint          n_dims,
                           GError       **error)
{
  gconstpointer data;
  gsize size;

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (shape != NULL || n_dims == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  data = g_bytes_get_data (bytes, &size);
  if (size % sizeof (float) != 0)
    {
      g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE, "%" G_GSIZE_FORMAT " bytes of "
                   "data are not a whole number of float32 values (4 bytes each)", size);
      return NULL;
    }

  /* The data of a GBytes carries no alignment guarantee: copied by
   * memcpy(), never read through a float pointer. */
  return reg_tensor_new_from_data (data, size / sizeof (float), shape, n_dims, error);
}

/**
 * reg_tensor_get_data:
 * @self: a [class@Reg.Tensor]
 * @n_elements: (out) (optional): return location for the number of elements
 *
 * Returns: (array length=n_elements) (transfer none): the elements of @self
 *   in row-major order, which may be written in place; never %NULL
 */
float *
reg_tensor_get_data (RegTensor *self,
                     gsize     *n_elements)
{
  g_return_val_if_fail (REG_IS_TENSOR (self), NULL);

  if (n_elements != NULL)
    *n_elements = self->n_elements;

  return self->data;
}

/**
 * reg_tensor_get_shape:
 * @self: a [class@Reg.Tensor]
 * @n_dims: (out) (optional): return location for the number of dimensions
 *
 * Returns: (array length=n_dims) (transfer none): the size of each
 *   dimension of @self, outermost first
 */
const gint64 *
reg_tensor_get_shape (RegTensor *self,
                      guint     *n_dims)
{
  g_return_val_if_fail (REG_IS_TENSOR (self), NULL);

  if (n_dims != NULL)
    *n_dims = self->n_dims;

  return self->shape;
}

/**
 * reg_tensor_get_n_dims:
 * @self: a [class@Reg.Tensor]
 *
 * Returns: the number of dimensions of @self, 0 for a scalar
 */
guint
reg_tensor_get_n_dims (RegTensor *self)
{
  g_return_val_if_fail (REG_IS_TENSOR (self), 0);

  return self->n_dims;
}

/**
 * reg_tensor_get_n_elements:
 * @self: a [class@Reg.Tensor]
 *
 * Returns: the number of elements of @self: the product of its dimensions
 */
gsize
reg_tensor_get_n_elements (RegTensor *self)
{
  g_return_val_if_fail (REG_IS_TENSOR (self), 0);

  return self->n_elements;
}

/**
 * reg_tensor_copy:
 * @self: a [class@Reg.Tensor]
 *
 * Makes a new tensor holding a copy of @self: what a backend returns for an
 * output that would otherwise be one of its inputs.
 *
 * Returns: (transfer full): the copy
 */
RegTensor *
reg_tensor_copy (RegTensor *self)
{
  RegTensor *copy;

  g_return_val_if_fail (REG_IS_TENSOR (self), NULL);

  copy = reg_tensor_alloc (G_STRFUNC, self->shape, self->n_dims, FALSE);
  memcpy (copy->data, self->data, self->n_elements * sizeof (float));

  return copy;
}

/**
 * reg_tensor_dup_bytes:
 * @self: a [class@Reg.Tensor]
 *
 * Copies the elements of @self, as native-endian float32 values in
 * row-major order, for [ctor@Reg.Tensor.new_from_bytes] or a binding's
 * array type.
 *
 * Returns: (transfer full): a copy of the data
 */
GBytes *
reg_tensor_dup_bytes (RegTensor *self)
{
  g_return_val_if_fail (REG_IS_TENSOR (self), NULL);

  return g_bytes_new (self->data, self->n_elements * sizeof (float));
}

/**
 * reg_tensor_allclose:
 * @a: a [class@Reg.Tensor]
 * @b: the [class@Reg.Tensor] to compare @a to
 * @rtol: the tolerance relative to the elements of @b
 * @atol: the absolute tolerance
 *
 * Compares two tensors as `numpy.allclose()` does, without broadcasting:
 * they have the same shape and every pair of elements satisfies
 * `|a - b| <= atol + rtol * |b|`.  Infinities are close only to an infinity
 * of the same sign; NaN is close to nothing, not even NaN.
 *
 * Returns: %TRUE if @a and @b are close
 */
gboolean
reg_tensor_allclose (RegTensor *a,
                     RegTensor *b,
                     double     rtol,
                     double     atol)
{
  g_return_val_if_fail (REG_IS_TENSOR (a), FALSE);
  g_return_val_if_fail (REG_IS_TENSOR (b), FALSE);

  if (a->n_dims != b->n_dims ||
      memcmp (a->shape, b->shape, a->n_dims * sizeof (gint64)) != 0)
    return FALSE;

  for (gsize i = 0; i < a->n_elements; i++)
    {
      double x = a->data[i], y = b->data[i];

      /* As numpy.isclose(): an infinity is close only to itself (the
       * difference would be NaN or infinite), NaN to nothing. */
      if (isinf (x) || isinf (y) ? x != y : !(fabs (x - y) <= atol + rtol * fabs (y)))
        return FALSE;
    }

  return TRUE;
}

/* ---- Shapes ------------------------------------------------------------- */

char *
_reg_shape_to_string (const gint64 *dims,
                      guint         n_dims)
{
  GString *out = g_string_new ("[");

  for (guint i = 0; i < n_dims; i++)
    g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", dims[i]);
  g_string_append_c (out, ']');

  return g_string_free (out, FALSE);
}

gboolean
_reg_shape_count (const gint64 *dims,
                  guint         n_dims,
                  gsize        *n_elements)
{
  gboolean empty = FALSE;
  gsize count = 1;

  for (guint d = 0; d < n_dims; d++)
    {
      if (dims[d] < 0)
        return FALSE;
      empty |= dims[d] == 0;
    }

  for (guint d = 0; d < n_dims && !empty; d++)
    if ((guint64) dims[d] > G_MAXSIZE || !g_size_checked_mul (&count, count, (gsize) dims[d]))
      return FALSE;

  /* At most G_MAXSSIZE bytes: the largest object C allows, and the largest
   * offset a signed index reaches. */
  if (count > G_MAXSSIZE / sizeof (float))
    return FALSE;

  if (n_elements != NULL)
    *n_elements = empty ? 0 : count;
  return TRUE;
}

/* An atomic GRcBox */
struct _RegShapeList
{
  guint     n_shapes;
  RegShape *shapes;
};

G_DEFINE_BOXED_TYPE (RegShapeList, reg_shape_list, reg_shape_list_ref, reg_shape_list_unref)

RegShapeList *
_reg_shape_list_new_take (RegShape *shapes,
                          guint     n_shapes)
{
  RegShapeList *self = g_atomic_rc_box_new (RegShapeList);

  *self = (RegShapeList) { n_shapes, shapes };
  return self;
}

static void
shape_list_clear (gpointer data)
{
  g_free (((RegShapeList *) data)->shapes);
}

/**
 * reg_shape_list_ref:
 * @self: a [struct@Reg.ShapeList]
 *
 * Takes a reference to @self.  This function is thread-safe.
 *
 * Returns: (transfer full): @self
 */
RegShapeList *
reg_shape_list_ref (RegShapeList *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_atomic_rc_box_acquire (self);
}

/**
 * reg_shape_list_unref:
 * @self: (transfer full): a [struct@Reg.ShapeList]
 *
 * Drops a reference to @self.  This function is thread-safe.
 */
void
reg_shape_list_unref (RegShapeList *self)
{
  g_return_if_fail (self != NULL);

  g_atomic_rc_box_release_full (self, shape_list_clear);
}

/**
 * reg_shape_list_get_n_shapes:
 * @self: a [struct@Reg.ShapeList]
 *
 * Returns: the number of shapes in @self: one per node of the graph it was
 *   computed for
 */
guint
reg_shape_list_get_n_shapes (RegShapeList *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_shapes;
}

/**
 * reg_shape_list_get_shape:
 * @self: a [struct@Reg.ShapeList]
 * @index: a node id, less than [method@Reg.ShapeList.get_n_shapes]
 * @n_dims: (out) (optional): return location for the number of dimensions
 *
 * Returns: (array length=n_dims) (transfer none): the shape of node @index,
 *   outermost dimension first
 */
const gint64 *
reg_shape_list_get_shape (RegShapeList *self,
                          guint         index,
                          guint        *n_dims)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->n_shapes, NULL);

  if (n_dims != NULL)
    *n_dims = self->shapes[index].n_dims;

  return self->shapes[index].dims;
}
