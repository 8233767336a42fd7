/* reg-compiled-fn.c: the callable a compiler makes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "reg-compiled-fn-private.h"
#include "reg-compiler.h"
#include "reg-graph-private.h"
#include "reg-tensor.h"

/**
 * RegCompiledFn:
 *
 * A compiled graph, made by [method@Reg.Compiler.compile].  Call it with
 * [method@Reg.CompiledFn.call] on tensors shaped like the example inputs it
 * was compiled for.
 */

G_DEFINE_INTERFACE (RegCompiledFn, reg_compiled_fn, G_TYPE_OBJECT)

/* What reg_compiler_compile() recorded: immutable once set, replaced as a
 * whole (qdata) if the same object is returned by another compile. */
typedef struct
{
  guint      n_inputs;
  char     **names;    /* the graph's input names */
  RegShape  *shapes;   /* the example inputs' shapes */
} Signature;

/* The qdata key of the Signature.  Not G_DEFINE_QUARK: its cache is a
 * plain variable that the first compiles, in any threads, may store at
 * once (benign, the same value, but a data race all the same). */
static GQuark
signature_quark (void)
{
  static gint quark;  /* atomic */
  GQuark value = (GQuark) g_atomic_int_get (&quark);

  if (G_UNLIKELY (value == 0))
    {
      value = g_quark_from_static_string ("reg-compiled-fn-signature");
      g_atomic_int_set (&quark, (gint) value);
    }

  return value;
}

static void
signature_free (gpointer data)
{
  Signature *sig = data;

  g_strfreev (sig->names);
  g_free (sig->shapes);
  g_free (sig);
}

static void
reg_compiled_fn_default_init (RegCompiledFnInterface *iface)
{
}

void
_reg_compiled_fn_set_signature (RegCompiledFn *fn,
                                RegGraph      *graph,
                                GPtrArray     *example_inputs)
{
  Signature *sig = g_new0 (Signature, 1);
  const guint *inputs;
  guint n_inputs;

  inputs = reg_graph_get_inputs (graph, &n_inputs);
  g_assert (n_inputs == example_inputs->len);

  sig->n_inputs = n_inputs;
  sig->names = g_new0 (char *, n_inputs + 1);
  sig->shapes = g_new0 (RegShape, n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    {
      RegTensor *t = g_ptr_array_index (example_inputs, i);
      const gint64 *dims = reg_tensor_get_shape (t, &sig->shapes[i].n_dims);

      memcpy (sig->shapes[i].dims, dims, sizeof (gint64) * sig->shapes[i].n_dims);
      sig->names[i] = g_strdup (reg_graph_get_node_name (graph, inputs[i]));
    }

  g_object_set_qdata_full (G_OBJECT (fn), signature_quark (), sig, signature_free);
}

static gboolean
signature_check (const Signature  *sig,
                 GPtrArray        *inputs,
                 GError          **error)
{
  if (inputs->len != sig->n_inputs)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_INPUTS,
                   "expected %u input%s, got %u",
                   sig->n_inputs, sig->n_inputs == 1 ? "" : "s", inputs->len);
      return FALSE;
    }

  for (guint i = 0; i < inputs->len; i++)
    {
      const RegShape *want = &sig->shapes[i];
      const gint64 *dims;
      guint n_dims;

      dims = reg_tensor_get_shape (g_ptr_array_index (inputs, i), &n_dims);
      if (n_dims != want->n_dims ||
          memcmp (dims, want->dims, sizeof (gint64) * n_dims) != 0)
        {
          g_autofree char *got_s = _reg_shape_to_string (dims, n_dims);
          g_autofree char *want_s = _reg_shape_to_string (want->dims, want->n_dims);

          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_INPUTS,
                       "input %u ('%s'): expected shape %s, got %s",
                       i, sig->names[i], want_s, got_s);
          return FALSE;
        }
    }

  return TRUE;
}

/**
 * reg_compiled_fn_call:
 * @self: a [iface@Reg.CompiledFn]
 * @inputs: (element-type Reg.Tensor): one tensor per graph input, in order
 * @error: return location for a #GError
 *
 * Runs the compiled graph.
 *
 * The inputs must match the example inputs the function was compiled for in
 * number and shapes, or the call fails with %REG_COMPILER_ERROR_BAD_INPUTS.
 * A backend that fails without saying why gives
 * %REG_COMPILER_ERROR_RUNTIME.
 *
 * The returned array owns its tensors (its element free function is
 * g_object_unref()): C callers free it with g_ptr_array_unref().
 *
 * This function is thread-safe if the backend is.
 *
 * Returns: (transfer container) (element-type Reg.Tensor): the outputs, or
 *   %NULL with @error set
 */
GPtrArray *
reg_compiled_fn_call (RegCompiledFn  *self,
                      GPtrArray      *inputs,
                      GError        **error)
{
  RegCompiledFnInterface *iface;
  const Signature *sig;
  g_autoptr(GError) local_error = NULL;
  GPtrArray *outputs;

  g_return_val_if_fail (REG_IS_COMPILED_FN (self), NULL);
  g_return_val_if_fail (inputs != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  for (guint i = 0; i < inputs->len; i++)
    g_return_val_if_fail (REG_IS_TENSOR (g_ptr_array_index (inputs, i)), NULL);

  sig = g_object_get_qdata (G_OBJECT (self), signature_quark ());
  if (sig != NULL && !signature_check (sig, inputs, error))
    return NULL;

  iface = REG_COMPILED_FN_GET_IFACE (self);
  if (iface->call == NULL)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_RUNTIME,
                   "%s does not implement call", G_OBJECT_TYPE_NAME (self));
      return NULL;
    }

  outputs = iface->call (self, inputs, &local_error);
  if (outputs == NULL)
    {
      if (local_error == NULL)
        g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_RUNTIME,
                     "%s failed without giving a reason", G_OBJECT_TYPE_NAME (self));
      else
        g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  if (local_error != NULL)
    g_warning ("%s returned outputs and set an error: %s",
               G_OBJECT_TYPE_NAME (self), local_error->message);

  /* The vfunc hands over its elements (transfer full) whether or not it
   * set a free function; from here on the array owns them (API.md §9). */
  g_ptr_array_set_free_func (outputs, g_object_unref);

  return outputs;
}
