/* reg-compiler.c: the interface of compiler backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-backend-error-private.h"
#include "reg-compiler-private.h"
#include "reg-compiled-fn-private.h"
#include "reg-graph-private.h"
#include "reg-message-private.h"
#include "reg-option-private.h"
#include "reg-tensor.h"

/**
 * RegCompiler:
 *
 * A compiler backend: turns a [class@Reg.Graph] into a
 * [iface@Reg.CompiledFn] for inputs of given shapes.
 *
 * Implement it in C (see `docs/writing-a-backend.md`), in Python or in
 * JavaScript, or wrap a plain function with [ctor@Reg.FuncCompiler.new];
 * then register it with [method@Reg.Registry.register_backend].
 *
 * Implementations must be safe to call from several threads at once: the
 * registry hands the same object to every caller.
 *
 * ## Implementing it
 *
 * A backend implements [vfunc@Reg.Compiler.compile], and may implement
 * [vfunc@Reg.Compiler.dup_name] and [vfunc@Reg.Compiler.dup_options]:
 *
 * ```python
 * class MyCompiler(GObject.Object, Reg.Compiler):
 *     def do_compile(self, graph, example_inputs, options):
 *         return MyFn(graph)
 *
 *     def do_dup_name(self):
 *         return "mine"
 *
 *     def do_dup_options(self):
 *         options = Gio.ListStore.new(Reg.Option)
 *         options.append(Reg.Option.new("fast", "b", GLib.Variant("b", False),
 *                                       "Trade accuracy for speed"))
 *         return options
 * ```
 *
 * ```js
 * const MyCompiler = GObject.registerClass({
 *     Implements: [Reg.Compiler],
 * }, class MyCompiler extends GObject.Object {
 *     vfunc_compile(graph, exampleInputs, options) {
 *         return new MyFn({});
 *     }
 *
 *     vfunc_dup_name() {
 *         return 'mine';
 *     }
 *
 *     vfunc_dup_options() {
 *         const options = new Gio.ListStore({itemType: Reg.Option});
 *         options.append(Reg.Option.new('fast', 'b', new GLib.Variant('b', false),
 *             'Trade accuracy for speed'));
 *         return options;
 *     }
 * });
 * ```
 *
 * ## Options
 *
 * The options a backend takes are its schema, a list of [class@Reg.Option]:
 * a module backend declares it in its manifest, a backend registered at
 * run time returns it from [vfunc@Reg.Compiler.dup_options].
 * [method@Reg.Compiler.compile] checks the options of every compile
 * against it before the backend runs, so a backend with a schema only
 * reads the values it declared, of the types it declared.  A backend
 * without one (the default) gets its options unchecked.
 */

/**
 * RegCompilerInterface::compile:
 * @self: a [iface@Reg.Compiler]
 * @graph: the graph to compile, already checked against @example_inputs
 * @example_inputs: (element-type Reg.Tensor): tensors shaped like the
 *   inputs the compiled function will be called with, one per graph input
 * @options: (nullable): the backend settings, an `a{sv}` dictionary
 * @error: return location for a #GError
 *
 * Compiles @graph for inputs shaped like @example_inputs.
 *
 * A backend with a schema (see [method@Reg.Compiler.get_options]) gets
 * options that follow it: each key declared, each value of the declared
 * type, within its range or choices.  A backend without one must reject
 * an option key it does not know with %REG_COMPILER_ERROR_BAD_OPTION
 * naming the key.  Reject a graph the backend cannot run with
 * %REG_COMPILER_ERROR_UNSUPPORTED_OP.  An error of a domain
 * that is not libreg's reaches the caller of [method@Reg.Compiler.compile]
 * as %REG_COMPILER_ERROR_FAILED with its message.
 *
 * Returns: (transfer full): the compiled function, or %NULL with @error set
 */

/**
 * RegCompilerInterface::dup_name:
 * @self: a [iface@Reg.Compiler]
 *
 * Gives the compiler's own name, the one
 * [method@Reg.Registry.register_backend] uses when it is given none.
 * Optional: compilers that do not implement it are named after their type.
 * The name is asked for once per compiler object and must not change.
 *
 * Returns: (transfer full) (nullable): the name, or %NULL for the type's name
 */

/**
 * RegCompilerInterface::dup_options:
 * @self: a [iface@Reg.Compiler]
 *
 * Gives the options the compiler takes, its schema: a list model of
 * [class@Reg.Option], each name once.  Optional: a compiler that does not
 * implement it, or returns %NULL, has no schema and gets the options of a
 * compile unchecked.  An empty list is a schema too: the compiler takes no
 * option.
 *
 * The schema is asked for once per compiler object, copied, and must not
 * change.  It is not asked of module backends: their manifest declares
 * their schema (see `docs/writing-a-module.md`).  A list that is not a
 * schema (an item that is not a [class@Reg.Option], a name given twice)
 * makes every compile fail with %REG_COMPILER_ERROR_FAILED saying why.
 *
 * Returns: (transfer full) (nullable): the options, or %NULL for no schema
 */

/**
 * reg_compiler_error_quark:
 *
 * The error domain of compiling and calling; see %REG_COMPILER_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (reg-compiler-error-quark, reg_compiler_error)

G_DEFINE_INTERFACE (RegCompiler, reg_compiler, G_TYPE_OBJECT)

static void
reg_compiler_default_init (RegCompilerInterface *iface)
{
}

/* A compiler's schema, set once: see compiler_get_schema(). */
typedef struct
{
  GListModel *options;  /* an option list, or NULL: no schema */
  char       *problem;  /* why the backend's schema was refused, or NULL */
} Schema;

static void
schema_free (gpointer data)
{
  Schema *schema = data;

  g_clear_object (&schema->options);
  g_free (schema->problem);
  g_free (schema);
}

/* The qdata key of a compiler's schema.  Atomic for the reason given in
 * reg-compiled-fn.c's signature_quark(). */
static GQuark
schema_quark (void)
{
  static gint quark;  /* atomic */
  GQuark value = (GQuark) g_atomic_int_get (&quark);

  if (G_UNLIKELY (value == 0))
    {
      value = g_quark_from_static_string ("reg-compiler-schema");
      g_atomic_int_set (&quark, (gint) value);
    }

  return value;
}

/* Sets @schema as @self's if it has none; frees it otherwise.  Returns
 * the schema @self keeps, which lives as long as @self. */
static Schema *
compiler_keep_schema (RegCompiler *self,
                      Schema      *schema)
{
  if (!g_object_replace_qdata (G_OBJECT (self), schema_quark (), NULL, schema, schema_free, NULL))
    schema_free (schema);

  return g_object_get_qdata (G_OBJECT (self), schema_quark ());
}

/* The schema of @self: set by the registry from a module's manifest, or
 * asked of the backend once (the vfunc runs without any lock held, and a
 * thread that loses the race to set it drops its copy). */
static Schema *
compiler_get_schema (RegCompiler *self)
{
  RegCompilerInterface *iface;
  g_autoptr(GListModel) model = NULL;
  g_autoptr(GError) error = NULL;
  Schema *schema;

  schema = g_object_get_qdata (G_OBJECT (self), schema_quark ());
  if (G_LIKELY (schema != NULL))
    return schema;

  schema = g_new0 (Schema, 1);
  iface = REG_COMPILER_GET_IFACE (self);
  if (iface->dup_options != NULL)
    model = iface->dup_options (self);

  if (model != NULL && !G_IS_LIST_MODEL (model))
    schema->problem = g_strdup_printf ("backend '%s' declares its options with a %s, "
                                       "not a GListModel",
                                       reg_compiler_get_name (self), G_OBJECT_TYPE_NAME (model));
  else if (model != NULL)
    {
      schema->options = _reg_option_list_copy_checked (model, reg_compiler_get_name (self), &error);
      if (schema->options == NULL)
        schema->problem = g_strdup (error->message);
    }

  return compiler_keep_schema (self, schema);
}

gboolean
_reg_compiler_set_options (RegCompiler *self,
                           GListModel  *options)
{
  Schema *schema = g_new0 (Schema, 1);

  schema->options = options != NULL ? g_object_ref (options) : NULL;

  return compiler_keep_schema (self, schema)->options == options;
}

/* The qdata key of a compiler's name, set once: see
 * reg_compiler_get_name().  Atomic for the reason given in
 * reg-compiled-fn.c's signature_quark(). */
static GQuark
name_quark (void)
{
  static gint quark;  /* atomic */
  GQuark value = (GQuark) g_atomic_int_get (&quark);

  if (G_UNLIKELY (value == 0))
    {
      value = g_quark_from_static_string ("reg-compiler-name");
      g_atomic_int_set (&quark, (gint) value);
    }

  return value;
}

/**
 * reg_compiler_compile:
 * @self: a [iface@Reg.Compiler]
 * @graph: the graph to compile
 * @example_inputs: (element-type Reg.Tensor): tensors shaped like the
 *   inputs the compiled function will be called with, one per graph input
 * @options: (nullable): backend settings, an `a{sv}` dictionary; an empty
 *   dictionary reaches the backend as given
 * @error: return location for a #GError
 *
 * Compiles @graph for inputs shaped like @example_inputs.
 *
 * The graph is checked first: a builder error it holds, or shapes that do
 * not fit @example_inputs, fail with a %REG_GRAPH_ERROR before the backend
 * sees the graph.  @options that are not an `a{sv}` dictionary fail with
 * %REG_COMPILER_ERROR_BAD_OPTION, and so do options that do not follow the
 * compiler's schema ([method@Reg.Compiler.get_options]): a key it does not
 * declare (the message suggests close names: `unknown option 'thread' for
 * backend 'inductor', did you mean 'threads'?`), a value of another type
 * than the declared one, out of its range or not among its choices.  The
 * options then reach the backend as given: defaults are not filled in.
 * A backend that fails without saying why
 * (a binding's implementation that raised an exception) gives
 * %REG_COMPILER_ERROR_FAILED.
 *
 * The returned function checks every call against the signature of this
 * compile: the shapes of @example_inputs, and the number and shapes of the
 * outputs the graph gives (see [method@Reg.CompiledFn.call]).
 *
 * This function is thread-safe if the backend is.
 *
 * Returns: (transfer full): the compiled function, or %NULL with @error set
 */
RegCompiledFn *
reg_compiler_compile (RegCompiler  *self,
                      RegGraph     *graph,
                      GPtrArray    *example_inputs,
                      GVariant     *options,
                      GError      **error)
{
  RegCompilerInterface *iface;
  const char *name;
  Schema *schema;
  g_autoptr(GVariant) options_ref = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree RegShape *shapes = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;

  g_return_val_if_fail (REG_IS_COMPILER (self), NULL);
  g_return_val_if_fail (REG_IS_GRAPH (graph), NULL);
  g_return_val_if_fail (example_inputs != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  for (guint i = 0; i < example_inputs->len; i++)
    g_return_val_if_fail (REG_IS_TENSOR (g_ptr_array_index (example_inputs, i)), NULL);

  /* Sunk here so that the backend, whatever it does with a floating
   * options variant, never owns the caller's only reference. */
  if (options != NULL)
    options_ref = g_variant_ref_sink (options);

  name = reg_compiler_get_name (self);

  if (options != NULL && !g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT))
    {
      g_autofree char *who = _reg_text_for_message (name, -1, 256);

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "options for backend '%s' must be an a{sv} dictionary, not a "
                   "value of type '%s'", who, g_variant_get_type_string (options));
      return NULL;
    }

  schema = compiler_get_schema (self);
  if (schema->problem != NULL)
    {
      g_autofree char *why = _reg_text_for_message (schema->problem, -1, 512);

      g_set_error_literal (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED, why);
      return NULL;
    }
  if (options != NULL && schema->options != NULL &&
      !_reg_option_list_check_options (schema->options, name, options, error))
    return NULL;

  if (!_reg_graph_infer_shapes (graph, example_inputs, &shapes, error))
    return NULL;

  iface = REG_COMPILER_GET_IFACE (self);
  if (iface->compile == NULL)
    {
      g_autofree char *who = _reg_text_for_message (name, -1, 256);

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                   "backend '%s' does not implement compile", who);
      return NULL;
    }

  fn = iface->compile (self, graph, example_inputs, options, &local_error);
  if (!_reg_backend_check_result (G_OBJECT (self), name, fn != NULL,
                                  REG_COMPILER_ERROR_FAILED, &local_error, error))
    return NULL;

  if (!REG_IS_COMPILED_FN (fn))
    {
      g_autofree char *who = _reg_text_for_message (name, -1, 256);

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                   "backend '%s' returned a %s, not a RegCompiledFn",
                   who, G_OBJECT_TYPE_NAME (fn));
      return NULL;
    }

  if (!_reg_compiled_fn_bind (fn, name, graph, example_inputs, shapes, error))
    return NULL;

  return g_steal_pointer (&fn);
}

/**
 * reg_compiler_get_name:
 * @self: a [iface@Reg.Compiler]
 *
 * Gets the compiler's own name: the name
 * [method@Reg.Registry.register_backend] uses when it is given none.
 * Compilers that do not implement [vfunc@Reg.Compiler.dup_name] are named
 * after their type.
 *
 * The name is asked for once, on the first call, and kept for the life of
 * the compiler.  This function is thread-safe.
 *
 * Returns: (transfer none): the name
 */
const char *
reg_compiler_get_name (RegCompiler *self)
{
  RegCompilerInterface *iface;
  const char *name;
  char *fresh = NULL;

  g_return_val_if_fail (REG_IS_COMPILER (self), NULL);

  name = g_object_get_qdata (G_OBJECT (self), name_quark ());
  if (G_LIKELY (name != NULL))
    return name;

  iface = REG_COMPILER_GET_IFACE (self);
  if (iface->dup_name != NULL)
    fresh = iface->dup_name (self);
  if (fresh == NULL)
    fresh = g_strdup (G_OBJECT_TYPE_NAME (self));

  /* Set once: a thread that lost the race frees its copy and returns the
   * winner's, which lives as long as the compiler. */
  if (!g_object_replace_qdata (G_OBJECT (self), name_quark (), NULL, fresh, g_free, NULL))
    g_free (fresh);

  return g_object_get_qdata (G_OBJECT (self), name_quark ());
}

/**
 * reg_compiler_get_options:
 * @self: a [iface@Reg.Compiler]
 *
 * Gets the options the compiler takes, its schema: for a backend that a
 * module provides, the options its manifest declares; for others, what
 * [vfunc@Reg.Compiler.dup_options] returns, asked once and kept for the
 * life of the compiler.  [method@Reg.Compiler.compile] checks options
 * against it.  The list does not change.
 *
 * This function is thread-safe.
 *
 * Returns: (transfer none) (nullable): a list model of [class@Reg.Option],
 *   or %NULL when the compiler has no schema (its options go unchecked, or
 *   the schema it gave was refused)
 */
GListModel *
reg_compiler_get_options (RegCompiler *self)
{
  g_return_val_if_fail (REG_IS_COMPILER (self), NULL);

  return compiler_get_schema (self)->options;
}
