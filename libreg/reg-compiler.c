/* reg-compiler.c: the interface of compiler backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-compiler-private.h"
#include "reg-compiled-fn-private.h"
#include "reg-message-private.h"
#include "reg-once-private.h"
#include "reg-option-private.h"
#include "reg-task-private.h"
#include "reg-tensor.h"

/**
 * RegCompiler:
 *
 * A compiler backend: turns a [class@Reg.Graph] into a
 * [iface@Reg.CompiledFn] for inputs of given shapes.
 *
 * Implement it in C ([Writing a backend](writing-a-backend.html)), Python or
 * JavaScript ([Writing a backend in Python or
 * JavaScript](writing-a-backend-in-python-or-javascript.html), which show
 * each language's code), or wrap a plain function with
 * [ctor@Reg.FuncCompiler.new]; then register it with
 * [method@Reg.Registry.register_backend].  A backend implements
 * [vfunc@Reg.Compiler.compile], and may implement the other virtual
 * methods: each says what libreg does without it.
 *
 * Implementations must be safe to call from several threads at once: the
 * registry hands the same object to every caller.  In JavaScript:
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
 * without one (the default) gets its options unchecked, but for a key
 * given twice, which no backend gets.  Options written as text are read
 * by the schema with [method@Reg.BackendInfo.parse_options].
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
 * @graph never changes: on every path to the backend (compile or
 * compile_async, through the registry or not) libreg gives it a frozen
 * copy of the caller's graph, who may go on building its own.  The
 * backend may keep a reference to @graph in the function it returns and
 * read it on every call; builder calls on @graph are programmer errors.
 *
 * Every backend gets each key once.  A backend with a schema (see
 * [method@Reg.Compiler.get_options]) gets options that follow it: each key
 * declared, each value of the declared type, within its range or choices.
 * A backend without one must reject an option key it does not know with
 * %REG_COMPILER_ERROR_BAD_OPTION naming the key.  Reject a graph the
 * backend cannot run with %REG_COMPILER_ERROR_UNSUPPORTED_OP.  An error of
 * a domain that is not libreg's reaches the caller of
 * [method@Reg.Compiler.compile] as %REG_COMPILER_ERROR_FAILED with its
 * message.
 *
 * Returns: (transfer full): the compiled function, or %NULL with @error set
 */

/**
 * RegCompilerInterface::compile_async: (skip)
 * @self: a [iface@Reg.Compiler]
 * @graph: the graph to compile, already checked against @example_inputs
 * @example_inputs: (element-type Reg.Tensor): tensors shaped like the
 *   inputs the compiled function will be called with, one per graph input
 * @options: (nullable): the backend settings, an `a{sv}` dictionary
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: called in the thread-default main context of the caller when
 *   the compile is done
 * @user_data: data for @callback
 *
 * Starts compiling @graph.  The default implementation runs
 * [vfunc@Reg.Compiler.compile] in a worker thread with @cancellable as the
 * thread's current cancellable (g_cancellable_get_current()), so that a
 * long synchronous compile can stop early; for a class defined in
 * JavaScript, whose code runs in one thread, it runs it from the caller's
 * main context instead.  Override it when the backend can do better.
 */

/**
 * RegCompilerInterface::compile_finish: (skip)
 * @self: a [iface@Reg.Compiler]
 * @result: the result given to the callback of
 *   [vfunc@Reg.Compiler.compile_async]
 * @error: return location for a #GError
 *
 * Finishes [vfunc@Reg.Compiler.compile_async].
 *
 * Returns: (transfer full): the compiled function, or %NULL with @error set
 */

/**
 * RegCompilerInterface::get_flags:
 * @self: a [iface@Reg.Compiler]
 *
 * Says what the compiler guarantees; optional, the default is
 * %REG_COMPILER_FLAGS_NONE.  Set %REG_COMPILER_FLAGS_SHAREABLE only when
 * every function the compiler makes may be called from several threads at
 * once and handed to several callers.  A module backend may say it in its
 * manifest instead (`Shareable=true`).
 *
 * Returns: the flags
 */

/**
 * RegCompilerInterface::dup_supported_nodes:
 * @self: a [iface@Reg.Compiler]
 * @graph: the graph about to be compiled, already checked against
 *   @example_inputs
 * @example_inputs: (element-type Reg.Tensor): tensors shaped like the
 *   inputs of @graph
 * @error: return location for a #GError
 *
 * Says which operator nodes of @graph the compiler takes, for inputs
 * shaped like @example_inputs: optional.  A compiler that does not
 * implement it takes every node whose operator its module's manifest
 * declares (`Operators=`), every node when it declares none.  One that
 * does may take fewer, by the shapes (reg_graph_infer_shapes()) or the
 * constants of the graph; a node whose operator the manifest does not
 * declare is never taken.
 *
 * [method@Reg.Registry.compile] asks it before it compiles a graph on the
 * backend: when it does not take every node, the registry compiles the
 * groups of nodes it takes on it and the others on another backend (see
 * [Partial backends](partial-backends.html)).  A node it names and then
 * refuses to compile makes that compile fail as any refusal does.
 *
 * Returns: (transfer full) (nullable): the ids of the nodes it takes, an
 *   `au` variant, in any order; %NULL for every node the manifest allows,
 *   as when it is not implemented; or %NULL with @error set, which fails
 *   the compile as an error of [vfunc@Reg.Compiler.compile] would
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

G_DEFINE_INTERFACE (RegCompiler, reg_compiler, G_TYPE_OBJECT)

/* The qdata keys of what is set once on a compiler (reg-once-private.h):
 * its name, its schema, what its manifest declares.  Set before any
 * compiler exists (reg_compiler_default_init()), so that any thread reads
 * them without a race. */
static GQuark name_quark;
static GQuark schema_quark;
static GQuark declared_quark;

typedef struct
{
  RegGraph  *graph;
  GPtrArray *example_inputs;
  GVariant  *options;   /* nullable */
  RegShape  *shapes;    /* nullable: for the conclusion of a prepared compile */
  char      *backend;   /* nullable: the name to bind, or the compiler's own */
} CompileData;

static void
compile_data_free (gpointer data)
{
  CompileData *cd = data;

  g_object_unref (cd->graph);
  g_ptr_array_unref (cd->example_inputs);
  g_clear_pointer (&cd->options, g_variant_unref);
  g_free (cd->shapes);
  g_free (cd->backend);
  g_free (cd);
}

static CompileData *
compile_data_new (RegGraph  *graph,
                  GPtrArray *example_inputs,
                  GVariant  *options)
{
  CompileData *cd = g_new0 (CompileData, 1);

  /* Copies: the caller may change its graph and its array while the
   * compile runs, and the backend may keep the graph. */
  cd->graph = _reg_graph_dup_frozen (graph);
  cd->example_inputs = g_ptr_array_copy (example_inputs, (GCopyFunc) (void (*) (void)) g_object_ref, NULL);
  g_ptr_array_set_free_func (cd->example_inputs, g_object_unref);
  cd->options = options != NULL ? g_variant_ref_sink (options) : NULL;

  return cd;
}

static gpointer
compile_in_worker (gpointer   source_object,
                   gpointer   data,
                   GError   **error)
{
  RegCompiler *self = source_object;
  CompileData *cd = data;

  return REG_COMPILER_GET_IFACE (self)->compile (self, cd->graph, cd->example_inputs,
                                                 cd->options, error);
}

static void
reg_compiler_real_compile_async (RegCompiler         *self,
                                 RegGraph            *graph,
                                 GPtrArray           *example_inputs,
                                 GVariant            *options,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, reg_compiler_real_compile_async);
  _reg_task_run (task, compile_in_worker, compile_data_new (graph, example_inputs, options),
                 compile_data_free);
}

static RegCompiledFn *
reg_compiler_real_compile_finish (RegCompiler   *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  return _reg_task_propagate (G_TASK (result), error);
}

static void
reg_compiler_default_init (RegCompilerInterface *iface)
{
  iface->compile_async = reg_compiler_real_compile_async;
  iface->compile_finish = reg_compiler_real_compile_finish;

  name_quark = g_quark_from_static_string ("reg-compiler-name");
  schema_quark = g_quark_from_static_string ("reg-compiler-schema");
  declared_quark = g_quark_from_static_string ("reg-compiler-declared");
}

/* A compiler's schema, set once (reg-once-private.h): see
 * compiler_get_schema(). */
typedef struct
{
  GListModel *options;  /* an option list, or NULL: no schema */
  char       *problem;  /* why the backend's schema was refused ("declares
                         * ..."; each caller names the backend), or NULL */
} Schema;

static void
schema_free (gpointer data)
{
  Schema *schema = data;

  g_clear_object (&schema->options);
  g_free (schema->problem);
  g_free (schema);
}

/* Sets @data on @self under @quark unless it has some (a thread that lost
 * the race), freeing @data then.  Returns what @self keeps, which lives as
 * long as @self. */
static gpointer
compiler_keep (RegCompiler    *self,
               GQuark          quark,
               gpointer        data,
               GDestroyNotify  destroy)
{
  if (!_reg_once_set (G_OBJECT (self), quark, data, destroy))
    destroy (data);

  return _reg_once_get (G_OBJECT (self), quark);
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

  schema = _reg_once_get (G_OBJECT (self), schema_quark);
  if (G_LIKELY (schema != NULL))
    return schema;

  schema = g_new0 (Schema, 1);
  iface = REG_COMPILER_GET_IFACE (self);
  if (iface->dup_options != NULL)
    model = iface->dup_options (self);

  if (model != NULL && !G_IS_LIST_MODEL (model))
    schema->problem = g_strdup_printf ("declares its options with a %s, not a GListModel",
                                       G_OBJECT_TYPE_NAME (model));
  else if (model != NULL)
    {
      schema->options = _reg_option_list_copy_checked (model, &error);
      if (schema->options == NULL)
        schema->problem = g_strdup (error->message);
    }

  return compiler_keep (self, schema_quark, schema, schema_free);
}

gboolean
_reg_compiler_set_options (RegCompiler *self,
                           GListModel  *options)
{
  Schema *schema = g_new0 (Schema, 1);
  Schema *kept;

  schema->options = options != NULL ? g_object_ref (options) : NULL;
  kept = compiler_keep (self, schema_quark, schema, schema_free);

  return kept->options == options;
}

/* The flags and operators a module backend's manifest declares for its
 * compiler, set once (reg-once-private.h) by the registry that made it;
 * none is set when the manifest declares neither. */
typedef struct
{
  RegCompilerFlags flags;
  char           **operators;  /* NULL: every operator */
} Declared;

static void
declared_free (gpointer data)
{
  Declared *declared = data;

  g_strfreev (declared->operators);
  g_free (declared);
}

void
_reg_compiler_set_declared (RegCompiler      *self,
                            RegCompilerFlags  flags,
                            char            **operators)
{
  Declared *declared;

  if (flags == REG_COMPILER_FLAGS_NONE && operators == NULL)
    return;

  declared = g_new0 (Declared, 1);
  declared->flags = flags;
  declared->operators = g_strdupv (operators);
  compiler_keep (self, declared_quark, declared, declared_free);
}

RegCompilerFlags
_reg_compiler_get_effective_flags (RegCompiler *self)
{
  Declared *declared = _reg_once_get (G_OBJECT (self), declared_quark);

  return reg_compiler_get_flags (self) |
         (declared != NULL ? declared->flags : REG_COMPILER_FLAGS_NONE);
}

gboolean
_reg_compiler_select_nodes (RegCompiler  *self,
                            const char   *backend,
                            RegGraph     *graph,
                            GPtrArray    *example_inputs,
                            guint8       *taken,
                            GError      **error)
{
  RegCompilerInterface *iface = REG_COMPILER_GET_IFACE (self);
  const Declared *declared = _reg_once_get (G_OBJECT (self), declared_quark);
  char **operators = declared != NULL ? declared->operators : NULL;
  guint n_nodes = reg_graph_get_n_nodes (graph);
  g_autoptr(GVariant) named = NULL;
  g_autofree guint8 *claimed = NULL;
  GError *local_error = NULL;
  const guint32 *ids;
  gsize n_ids;

  for (guint i = 0; i < n_nodes; i++)
    taken[i] = reg_graph_get_node_kind (graph, i) == REG_NODE_OP &&
               (operators == NULL ||
                g_strv_contains ((const char * const *) operators, reg_graph_get_node_op (graph, i)));
  if (iface->dup_supported_nodes == NULL)
    return TRUE;

  /* A C implementation may return a floating variant, a binding a
   * reference of its own: either way, one reference that is ours. */
  named = iface->dup_supported_nodes (self, graph, example_inputs, &local_error);
  if (named != NULL)
    g_variant_take_ref (named);
  else if (local_error == NULL)
    return TRUE;
  if (!_reg_backend_check_result (G_OBJECT (self), backend, named != NULL,
                                  REG_COMPILER_ERROR_FAILED, &local_error, error))
    return FALSE;

  if (!g_variant_is_of_type (named, G_VARIANT_TYPE ("au")))
    return _reg_backend_fail (error, REG_COMPILER_ERROR_FAILED, backend,
                              " named the nodes it takes with a '%s' variant, not 'au'",
                              g_variant_get_type_string (named));

  claimed = g_new0 (guint8, MAX (n_nodes, 1));
  ids = g_variant_get_fixed_array (named, &n_ids, sizeof (guint32));
  for (gsize i = 0; i < n_ids; i++)
    {
      if (ids[i] >= n_nodes || reg_graph_get_node_kind (graph, ids[i]) != REG_NODE_OP)
        return _reg_backend_fail (error, REG_COMPILER_ERROR_FAILED, backend,
                                  " says it takes node %u, which is not an operator node "
                                  "of the graph (%u nodes)", ids[i], n_nodes);
      claimed[ids[i]] = 1;
    }
  for (guint i = 0; i < n_nodes; i++)
    taken[i] = taken[i] && claimed[i];

  return TRUE;
}

gboolean
_reg_compiler_compiles_in_worker (RegCompiler *self)
{
  return REG_COMPILER_GET_IFACE (self)->compile_async == reg_compiler_real_compile_async &&
         !_reg_binding_is_thread_bound (G_OBJECT_TYPE (self));
}

RegShape *
_reg_compiler_prepare (RegCompiler  *self,
                       const char   *backend,
                       RegGraph     *graph,
                       GPtrArray    *example_inputs,
                       GVariant     *options,
                       GError      **error)
{
  const char *name = backend != NULL ? backend : reg_compiler_get_name (self);
  RegShape *shapes = NULL;
  Schema *schema = compiler_get_schema (self);

  /* compile is required, whether or not compile_async is overridden; a
   * schema the backend gave may have been refused. */
  if (REG_COMPILER_GET_IFACE (self)->compile == NULL || schema->problem != NULL)
    {
      g_autofree char *why = _reg_text_for_message (schema->problem != NULL ? schema->problem
                                                    : "does not implement compile", -1, 512);

      _reg_backend_fail (error, REG_COMPILER_ERROR_FAILED, name, " %s", why);
      return NULL;
    }

  /* On every path to the backend (synchronous, asynchronous, the
   * registry's, a fallback's): the backend and the compile cache rely on it. */
  if (options != NULL &&
      !_reg_option_list_check_options (schema->options, name, options, error))
    return NULL;

  if (!_reg_graph_infer_shapes (graph, example_inputs, &shapes, error))
    return NULL;

  return shapes;
}

/* Judges what the backend's compile gave (@fn and @local_error, both taken
 * over) and binds the function to the signature of this compile. */
static RegCompiledFn *
conclude (RegCompiler     *self,
          const char      *backend,
          RegCompiledFn   *fn,
          GError          *local_error,
          RegGraph        *graph,
          GPtrArray       *example_inputs,
          const RegShape  *shapes,
          GError         **error)
{
  g_autoptr(RegCompiledFn) result = fn;
  const char *name = backend != NULL ? backend : reg_compiler_get_name (self);

  if (!_reg_backend_check_result (G_OBJECT (self), name, result != NULL,
                                  REG_COMPILER_ERROR_FAILED, &local_error, error))
    return NULL;

  if (!REG_IS_COMPILED_FN (result))
    {
      _reg_backend_fail (error, REG_COMPILER_ERROR_FAILED, name,
                         " returned a %s, not a RegCompiledFn", G_OBJECT_TYPE_NAME (result));
      return NULL;
    }

  if (!_reg_compiled_fn_bind (result, name, graph, example_inputs, shapes, error))
    return NULL;

  return g_steal_pointer (&result);
}

RegCompiledFn *
_reg_compiler_compile_prepared (RegCompiler     *self,
                                const char      *backend,
                                RegGraph        *graph,
                                GPtrArray       *example_inputs,
                                GVariant        *options,
                                const RegShape  *shapes,
                                GError         **error)
{
  g_autoptr(RegGraph) frozen = _reg_graph_dup_frozen (graph);
  GError *local_error = NULL;
  RegCompiledFn *fn;

  fn = REG_COMPILER_GET_IFACE (self)->compile (self, frozen, example_inputs, options,
                                               &local_error);

  return conclude (self, backend, fn, local_error, frozen, example_inputs, shapes, error);
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
 * %REG_COMPILER_ERROR_BAD_OPTION, and so do options that give a key twice
 * (a backend would read the first value, a #GVariantDict the last) and
 * options that do not follow the compiler's schema
 * ([method@Reg.Compiler.get_options]): a key it does not declare (the
 * message suggests close names: `unknown option 'thread' for backend
 * 'inductor', did you mean 'threads'?`), a value of another type than the
 * declared one (an `int32` for a `uint32` option, even one that fits),
 * out of its range or not among its choices.  The options then reach the
 * backend as given: defaults are not filled in.  Messages name the backend
 * by the compiler's own name ([method@Reg.Compiler.get_name]);
 * [method@Reg.Registry.compile] names it as it was asked for.  A backend
 * that fails without saying why (a binding's implementation that raised an
 * exception) gives %REG_COMPILER_ERROR_FAILED.
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
  g_autoptr(GVariant) options_ref = NULL;
  g_autofree RegShape *shapes = NULL;

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

  shapes = _reg_compiler_prepare (self, NULL, graph, example_inputs, options, error);
  if (shapes == NULL)
    return NULL;

  return _reg_compiler_compile_prepared (self, NULL, graph, example_inputs, options, shapes,
                                         error);
}

static void
prepared_compile_done (GObject      *source_object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  RegCompiler *self = REG_COMPILER (source_object);
  g_autoptr(GTask) task = user_data;
  CompileData *cd = g_task_get_task_data (task);
  GError *local_error = NULL;
  GError *error = NULL;
  RegCompiledFn *fn;

  fn = REG_COMPILER_GET_IFACE (self)->compile_finish (self, result, &local_error);

  /* Cancelled is not the backend's failure: it stays as it is. */
  if (fn == NULL && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, local_error);
      return;
    }

  fn = conclude (self, cd->backend, fn, local_error, cd->graph, cd->example_inputs, cd->shapes,
                 &error);
  if (fn == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, fn, g_object_unref);
}

void
_reg_compiler_compile_prepared_async (RegCompiler          *self,
                                      const char           *backend,
                                      RegGraph             *graph,
                                      GPtrArray            *example_inputs,
                                      GVariant             *options,
                                      RegShape             *shapes,
                                      GCancellable         *cancellable,
                                      GAsyncReadyCallback   callback,
                                      gpointer              user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  CompileData *cd = compile_data_new (graph, example_inputs, options);

  g_task_set_source_tag (task, _reg_compiler_compile_prepared_async);
  cd->shapes = shapes;
  cd->backend = g_strdup (backend);
  g_task_set_task_data (task, cd, compile_data_free);

  REG_COMPILER_GET_IFACE (self)->compile_async (self, cd->graph, cd->example_inputs,
                                                cd->options, cancellable,
                                                prepared_compile_done, task);
}

RegCompiledFn *
_reg_compiler_compile_prepared_finish (RegCompiler   *self,
                                       GAsyncResult  *result,
                                       GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * reg_compiler_compile_async:
 * @self: a [iface@Reg.Compiler]
 * @graph: the graph to compile
 * @example_inputs: (element-type Reg.Tensor): tensors shaped like the
 *   inputs the compiled function will be called with, one per graph input
 * @options: (nullable): backend settings, an `a{sv}` dictionary
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: called when the compile is done
 * @user_data: data for @callback
 *
 * Compiles @graph without blocking: the asynchronous form of
 * [method@Reg.Compiler.compile], with the same checks and errors.  The
 * graph and options are checked in the calling thread; the backend's
 * compile runs in a worker thread, or as the backend's
 * [vfunc@Reg.Compiler.compile_async] arranges, on a copy of @graph: the
 * caller may change @graph as soon as this function returns.
 *
 * @callback runs in the thread-default main context of the calling
 * thread.  Cancelling @cancellable makes the compile finish promptly with
 * %G_IO_ERROR_CANCELLED; if it is cancelled before the backend starts,
 * the backend never runs.  Call [method@Reg.Compiler.compile_finish] from
 * @callback.
 */
void
reg_compiler_compile_async (RegCompiler         *self,
                            RegGraph            *graph,
                            GPtrArray           *example_inputs,
                            GVariant            *options,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GVariant) options_ref = NULL;
  GError *error = NULL;
  RegShape *shapes;

  g_return_if_fail (REG_IS_COMPILER (self));
  g_return_if_fail (REG_IS_GRAPH (graph));
  g_return_if_fail (example_inputs != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  for (guint i = 0; i < example_inputs->len; i++)
    g_return_if_fail (REG_IS_TENSOR (g_ptr_array_index (example_inputs, i)));

  if (options != NULL)
    options_ref = g_variant_ref_sink (options);

  shapes = _reg_compiler_prepare (self, NULL, graph, example_inputs, options, &error);
  if (shapes == NULL)
    {
      g_task_report_error (self, callback, user_data, _reg_compiler_compile_prepared_async, error);
      return;
    }

  _reg_compiler_compile_prepared_async (self, NULL, graph, example_inputs, options, shapes,
                                        cancellable, callback, user_data);
}

/**
 * reg_compiler_compile_finish:
 * @self: a [iface@Reg.Compiler]
 * @result: the result given to the callback of
 *   [method@Reg.Compiler.compile_async]
 * @error: return location for a #GError
 *
 * Finishes [method@Reg.Compiler.compile_async].
 *
 * Returns: (transfer full): the compiled function, or %NULL with @error set
 */
RegCompiledFn *
reg_compiler_compile_finish (RegCompiler   *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (REG_IS_COMPILER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return _reg_compiler_compile_prepared_finish (self, result, error);
}

/**
 * reg_compiler_get_flags:
 * @self: a [iface@Reg.Compiler]
 *
 * Gets what the compiler says of itself: whether the functions it makes
 * may be shared (%REG_COMPILER_FLAGS_SHAREABLE), which lets the registry
 * cache them.  A module backend's manifest may say it instead
 * (`Shareable=true`), which this function does not see; the registry goes
 * by both, as [method@Reg.BackendInfo.get_compiler_flags] tells.  This
 * function is thread-safe.
 *
 * Returns: the flags
 */
RegCompilerFlags
reg_compiler_get_flags (RegCompiler *self)
{
  RegCompilerInterface *iface;

  g_return_val_if_fail (REG_IS_COMPILER (self), REG_COMPILER_FLAGS_NONE);

  iface = REG_COMPILER_GET_IFACE (self);

  return iface->get_flags != NULL ? iface->get_flags (self) : REG_COMPILER_FLAGS_NONE;
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
  const char *known;
  char *name = NULL;

  g_return_val_if_fail (REG_IS_COMPILER (self), NULL);

  known = _reg_once_get (G_OBJECT (self), name_quark);
  if (G_LIKELY (known != NULL))
    return known;

  iface = REG_COMPILER_GET_IFACE (self);
  if (iface->dup_name != NULL)
    name = iface->dup_name (self);
  if (name == NULL)
    name = g_strdup (G_OBJECT_TYPE_NAME (self));

  return compiler_keep (self, name_quark, name, g_free);
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
