/* reg-compile.c: compiling on a registry's backends: the backend asked
 * for, then the fallback chain, synchronously and asynchronously
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The rules are in the RegRegistry documentation ("Compiling"): a compile
 * that its backend cannot do (the module does not load, UNSUPPORTED_OP,
 * FAILED) falls back along fallback-backends; the caller's own mistakes
 * (inputs, options, the graph, a bad name) never do.  A backend whose
 * functions are shareable is asked through the compile cache.
 *
 * A backend that does not take every node of the graph compiles the
 * groups of nodes it takes, and the other groups compile on the rest of
 * the chain (reg-partition.c cuts the graph): each group is a compile of
 * its own, through a nested chain that neither partitions nor consults
 * the cache, so that the whole is one compile and one cache entry.
 */

#include <string.h>

#include "reg-compiled-fn-private.h"
#include "reg-compiler-private.h"
#include "reg-message-private.h"
#include "reg-partition-private.h"
#include "reg-registry-private.h"
#include "reg-task-private.h"

/* What the message of a chain that failed holds at most: the reasons of
 * this many fallbacks (the others are counted), each cut to about
 * REASON_MAX bytes. */
#define MAX_REASONS 8
#define REASON_MAX  512

/* The backends a compile tries: the one asked for (NULL: the default),
 * then the fallbacks that were not tried yet; and what each failure said. */
typedef struct
{
  char       *asked;         /* nullable: the default, until its name is known */
  GVariant   *options;       /* nullable: for the backend asked for only */
  GPtrArray  *fallbacks;     /* the registry's, shared and never changed */
  guint       position;      /* 0: the backend asked for; else fallbacks[position - 1] */
  const char *name;          /* the name of the backend at position, once known: asked
                              * or a fallback */
  GHashTable *tried;         /* nullable: the names tried (borrowed), once it falls back */
  GError     *first_error;   /* why the backend asked for failed */
  GString    *reasons;       /* why the first MAX_REASONS fallbacks failed */
  guint       n_failed;      /* the fallbacks that failed */
  gboolean    strict;        /* no partition, no fallback */
  gboolean    nested;        /* a group of a partitioned compile: no partition, no
                              * cache, every failure falls back */
  RegCompiler *only;         /* nullable: the one backend, named asked, already resolved */
  gboolean    shareable;     /* whether the backend that compiled shares its functions */
} Chain;

static void
chain_init (Chain       *chain,
            RegRegistry *self,
            const char  *backend,
            GVariant    *options)
{
  memset (chain, 0, sizeof *chain);
  chain->asked = g_strdup (backend);
  chain->options = options != NULL ? g_variant_ref_sink (options) : NULL;
  chain->fallbacks = _reg_settings_ref_fallbacks (self);
  chain->strict = reg_registry_get_strict (self);
}

/* The options of the backend at the chain's position: fallbacks compile
 * with their defaults. */
static GVariant *
chain_get_options (const Chain *chain)
{
  return chain->position == 0 ? chain->options : NULL;
}

/* Whether a compile at @chain's position has backends left for the nodes
 * its backend does not take (see chain_init_group()). */
static gboolean
chain_has_rest (const Chain *chain)
{
  return !chain->strict && !chain->nested &&
         (chain->fallbacks->len == 0 || chain->position < chain->fallbacks->len);
}

/* The chain of a group of a partitioned compile at @outer's position:
 * that backend alone (@compiler named @name, with @outer's options) for
 * a group of nodes it takes; for one of other nodes (@compiler NULL), the fallbacks after it,
 * or the default backend when there are no fallbacks at all. */
static void
chain_init_group (Chain       *chain,
                  const Chain *outer,
                  RegCompiler *compiler,
                  const char  *name)
{
  memset (chain, 0, sizeof *chain);
  chain->nested = TRUE;
  chain->fallbacks = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  if (compiler != NULL)
    {
      chain->only = g_object_ref (compiler);
      chain->asked = g_strdup (name);
      chain->options = chain_get_options (outer);
      if (chain->options != NULL)
        g_variant_ref (chain->options);
    }
  else if (outer->fallbacks->len > 0)
    {
      g_assert (chain_has_rest (outer));
      chain->asked = g_strdup (g_ptr_array_index (outer->fallbacks, outer->position));
      for (guint i = outer->position + 1; i < outer->fallbacks->len; i++)
        g_ptr_array_add (chain->fallbacks, g_strdup (g_ptr_array_index (outer->fallbacks, i)));
    }
}

static void
chain_clear (Chain *chain)
{
  g_clear_object (&chain->only);
  g_clear_pointer (&chain->asked, g_free);
  g_clear_pointer (&chain->options, g_variant_unref);
  g_clear_pointer (&chain->fallbacks, g_ptr_array_unref);
  g_clear_pointer (&chain->tried, g_hash_table_unref);
  g_clear_error (&chain->first_error);
  if (chain->reasons != NULL)
    g_string_free (g_steal_pointer (&chain->reasons), TRUE);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Chain, chain_clear)

/* Looks up the backend at the chain's position: the compiler, and its name
 * in chain->name. */
static RegCompiler *
chain_resolve (Chain        *chain,
               RegRegistry  *self,
               GError      **error)
{
  RegCompiler *compiler;

  if (chain->only != NULL)
    {
      chain->name = chain->asked;
      compiler = g_object_ref (chain->only);
    }
  else if (chain->position == 0 && chain->asked == NULL)
    {
      compiler = _reg_settings_resolve_default (self, &chain->asked, error);
      chain->name = chain->asked;
    }
  else
    {
      chain->name = chain->position == 0
        ? chain->asked
        : g_ptr_array_index (chain->fallbacks, chain->position - 1);
      compiler = reg_registry_lookup_backend (self, chain->name, error);
    }

  return compiler;
}

/* Whether the backend asked for failed because it could not do it, rather
 * than because the caller asked wrong: only then does a compile fall
 * back. */
static gboolean
falls_back (const GError *error)
{
  return g_error_matches (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP) ||
         g_error_matches (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED) ||
         g_error_matches (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BACKEND_UNAVAILABLE) ||
         g_error_matches (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
}

/* Whether the registry may cache and hand out again the functions
 * @compiler makes. */
static gboolean
is_shareable (RegCompiler *compiler)
{
  return (_reg_compiler_get_effective_flags (compiler) & REG_COMPILER_FLAGS_SHAREABLE) != 0;
}

/* Records why the backend at the chain's position failed (@error, taken
 * over) and moves to the next backend to try, announcing the fallback in
 * the calling thread.  Returns FALSE when there is none, or when @error
 * must not fall back.  Each name is tried once: the set of those tried
 * keeps a chain of n names O(n). */
static gboolean
chain_next (Chain       *chain,
            RegRegistry *self,
            GError      *error)
{
  g_autoptr(GError) fallback_error = NULL;
  g_autofree char *failed = g_strdup (chain->name != NULL ? chain->name : "the default backend");
  g_autofree char *failed_shown = NULL;
  g_autofree char *next_shown = NULL;
  g_autofree char *why = NULL;
  const char *next;

  failed_shown = _reg_text_for_message (failed, -1, 255);
  if (chain->position == 0)
    {
      chain->first_error = error;
      if (chain->strict || (!chain->nested && !falls_back (error)))
        return FALSE;
      chain->tried = g_hash_table_new (g_str_hash, g_str_equal);
      if (chain->name != NULL)
        g_hash_table_add (chain->tried, (gpointer) chain->name);
    }
  else
    {
      fallback_error = error;
      if (chain->n_failed++ < MAX_REASONS)
        {
          g_autofree char *cut = _reg_text_for_message (error->message, -1, REASON_MAX);
          g_autofree char *reason = _reg_message_embed (cut);

          if (chain->reasons == NULL)
            chain->reasons = g_string_new (NULL);
          g_string_append_printf (chain->reasons, "; '%s': %s", failed_shown, reason);
        }
    }

  do
    {
      if (chain->position >= chain->fallbacks->len)
        return FALSE;
      next = g_ptr_array_index (chain->fallbacks, chain->position);
      chain->position++;
    }
  while (!g_hash_table_add (chain->tried, (gpointer) next));

  next_shown = _reg_text_for_message (next, -1, 255);
  why = _reg_message_embed (error->message);
  g_message ("backend '%s' cannot compile the graph (%s); falling back to '%s'",
             failed_shown, why, next_shown);
  g_signal_emit (self, _reg_registry_signals[REG_REGISTRY_FALLBACK], 0, failed, next, error);

  return TRUE;
}

/* The error of a chain that failed: the backend asked for's, with the
 * fallbacks' reasons added to its message (MAX_REASONS of them, and how
 * many more failed). */
static void
chain_fail (Chain   *chain,
            GError **error)
{
  GError *first = g_steal_pointer (&chain->first_error);

  if (chain->reasons != NULL)
    {
      g_autofree char *why = _reg_message_embed (first->message);
      g_autofree char *more = chain->n_failed > MAX_REASONS
        ? g_strdup_printf ("; and %u more", chain->n_failed - MAX_REASONS)
        : NULL;
      char *message = g_strconcat (why, " (and every fallback failed",
                                   chain->reasons->str, more != NULL ? more : "", ")", NULL);

      g_free (first->message);
      first->message = message;
    }

  g_propagate_error (error, first);
}

/* One attempt of a compile: the backend resolved, the graph checked for
 * it, and, for a backend whose functions are shareable, the cache
 * consulted; when it is partitioned, what its groups gave so far. */
typedef struct
{
  RegRegistry         *registry;
  RegCompiler         *compiler;
  char                *name;
  RegShape            *shapes;
  RegCompileCacheMiss *miss;   /* nullable: the cache's miss, to settle */
  gsize                cost;
  RegCompiledFn       *hit;    /* nullable: the function, from the cache or compiled */
  GError              *refusal;    /* nullable: the operators the backend does not take */
  RegPartition        *partition;  /* nullable: the groups to compile, when it takes some */
  GPtrArray           *fns;        /* RegCompiledFn, one per group compiled */
  GPtrArray           *backends;   /* the name of the backend that compiled each */
  GPtrArray           *others;     /* those of the groups not taken, each once (borrowed) */
  gboolean             shared;     /* whether every one of them shares its functions */
} Attempt;

/* Ends an attempt with what its compile gave (@fn, nullable): settles its
 * miss in the cache, which must happen whatever the outcome. */
static void
attempt_end (Attempt       *attempt,
             RegCompiledFn *fn)
{
  if (attempt->miss == NULL)
    return;

  _reg_compile_cache_settle (attempt->registry->cache, g_steal_pointer (&attempt->miss),
                             fn, attempt->cost);
}

/* An attempt dropped (a compile that failed, or was cancelled while a
 * worker still ran it) gives up its claim on the cache. */
static void
attempt_free (Attempt *attempt)
{
  attempt_end (attempt, NULL);

  g_clear_object (&attempt->registry);
  g_clear_object (&attempt->compiler);
  g_free (attempt->name);
  g_free (attempt->shapes);
  g_clear_object (&attempt->hit);
  g_clear_error (&attempt->refusal);
  g_clear_pointer (&attempt->partition, _reg_partition_free);
  g_clear_pointer (&attempt->fns, g_ptr_array_unref);
  g_clear_pointer (&attempt->backends, g_ptr_array_unref);
  g_clear_pointer (&attempt->others, g_ptr_array_unref);
  g_free (attempt);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Attempt, attempt_free)

/* Whether a compile may look in the cache before the graph is checked for
 * its inputs: only when the options are a dictionary and the graph is
 * complete.  An equal key then means an equal graph and equal shapes,
 * which passed the full check when the entry was made. */
static gboolean
may_look_up_first (RegGraph  *graph,
                   GPtrArray *example_inputs,
                   GVariant  *options)
{
  guint n_inputs;

  reg_graph_get_inputs (graph, &n_inputs);

  return (options == NULL || g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT)) &&
         n_inputs == example_inputs->len &&
         reg_graph_validate (graph, NULL);
}

/* Asks the attempt's backend which nodes of @graph it takes, in a thread
 * its code may run in (see _reg_binding_is_thread_bound()).  When it does
 * not take them all, attempt->refusal names the operators it does not
 * take and attempt->partition cuts the graph, if the graph may be
 * partitioned: not in a strict registry, not for a group of a partitioned
 * compile, not when the backend takes no node at all or no backend is
 * left for the others; if not, the refusal is the error. */
static gboolean
attempt_select (Attempt      *attempt,
                const Chain  *chain,
                RegGraph     *graph,
                GPtrArray    *example_inputs,
                GError      **error)
{
  guint n_nodes = reg_graph_get_n_nodes (graph);
  g_autofree guint8 *taken = g_new (guint8, MAX (n_nodes, 1));
  g_autoptr(GPtrArray) refused = g_ptr_array_new_null_terminated (1, NULL, TRUE);
  g_autofree char *names = NULL;
  g_autofree char *who = NULL;
  guint n_taken = 0;

  /* A group of nodes its backend took: it was asked of the whole graph
   * (a node it then refuses fails the compile). */
  if (chain->only != NULL)
    return TRUE;
  if (!_reg_compiler_select_nodes (attempt->compiler, attempt->name, graph, example_inputs,
                                   taken, error))
    return FALSE;

  /* Operator names are interned (reg_op_get_name()). */
  for (guint i = 0; i < n_nodes; i++)
    {
      const char *op = reg_graph_get_node_op (graph, i);

      if (taken[i])
        n_taken++;
      else if (op != NULL && !g_ptr_array_find (refused, op, NULL))
        g_ptr_array_add (refused, (gpointer) op);
    }
  if (refused->len == 0)
    return TRUE;

  names = g_strjoinv (", ", (char **) refused->pdata);
  who = _reg_text_for_message (attempt->name, -1, 255);
  attempt->refusal = g_error_new (REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP,
                                  "backend '%s' does not take %s%s", who, names,
                                  chain->strict ? " (the registry is strict: nothing else "
                                                  "runs them)" : "");
  if (n_taken == 0 || !chain_has_rest (chain))
    {
      g_propagate_error (error, g_steal_pointer (&attempt->refusal));
      return FALSE;
    }

  attempt->partition = _reg_partition_new (graph, example_inputs, attempt->shapes, taken, error);
  if (attempt->partition == NULL)
    return FALSE;
  attempt->fns = g_ptr_array_new_with_free_func (g_object_unref);
  attempt->backends = g_ptr_array_new_null_terminated (1, g_free, TRUE);
  attempt->others = g_ptr_array_new_null_terminated (1, NULL, TRUE);
  attempt->shared = TRUE;

  return TRUE;
}

/* Resolves the chain's current backend, looks in the cache when its
 * functions are shareable (a hit is attempt->hit), and otherwise checks
 * the graph for it and asks the backend which nodes it takes (see
 * attempt_select()), but for a thread-bound backend when not
 * @synchronous: it is asked in the caller's context (attempt_begun()).
 * @synchronous: the caller compiles in this thread if this misses (see
 * _reg_compile_cache_begin()).  May block: a lookup may load a module, and
 * the cache waits for another compile of the same key. */
static Attempt *
attempt_begin (Chain         *chain,
               RegRegistry   *self,
               RegGraph      *graph,
               GPtrArray     *example_inputs,
               gboolean       synchronous,
               GCancellable  *cancellable,
               GError       **error)
{
  g_autoptr(Attempt) attempt = g_new0 (Attempt, 1);
  gboolean by_default = chain->position == 0 && chain->asked == NULL;
  GVariant *options = chain_get_options (chain);
  gsize key_size = 0;

  attempt->registry = g_object_ref (self);
  attempt->compiler = chain_resolve (chain, self, error);
  if (attempt->compiler == NULL)
    return NULL;
  attempt->name = g_strdup (chain->name);

  /* The groups of a partitioned compile are not kept: the whole is. */
  if (!chain->nested && is_shareable (attempt->compiler) &&
      may_look_up_first (graph, example_inputs, options))
    {
      gboolean compiles_here = synchronous || _reg_compiler_compiles_in_worker (attempt->compiler);
      const guint8 *key = _reg_compile_cache_key (graph, example_inputs, options, &key_size);

      if (key != NULL)
        {
          attempt->hit = _reg_compile_cache_begin (self->cache, attempt->compiler, key, key_size,
                                                   by_default, compiles_here, cancellable,
                                                   &attempt->miss);
          if (attempt->hit != NULL)
            return g_steal_pointer (&attempt);
        }
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  attempt->shapes = _reg_compiler_prepare (attempt->compiler, attempt->name, graph,
                                           example_inputs, options, error);
  if (attempt->shapes == NULL)
    return NULL;
  if (attempt->miss != NULL)
    attempt->cost = _reg_compile_cache_cost (graph, attempt->shapes, key_size);
  if ((synchronous || !_reg_binding_is_thread_bound (G_OBJECT_TYPE (attempt->compiler))) &&
      !attempt_select (attempt, chain, graph, example_inputs, error))
    return NULL;

  return g_steal_pointer (&attempt);
}

/* A group of a partitioned attempt compiled on @group_chain: @fn (taken
 * over), or NULL with @error set.  For a group of the nodes the backend
 * does not take, the error then says first what they are. */
static gboolean
attempt_add_group (Attempt       *attempt,
                   const Chain   *group_chain,
                   RegCompiledFn *fn,
                   GError       **error)
{
  char *backend;

  if (fn == NULL)
    {
      if (group_chain->only == NULL)
        g_prefix_error (error, "%s, and no other backend compiles them: ",
                        attempt->refusal->message);
      return FALSE;
    }

  backend = g_strdup (group_chain->name);
  g_ptr_array_add (attempt->fns, fn);
  g_ptr_array_add (attempt->backends, backend);
  if (group_chain->only == NULL &&
      !g_ptr_array_find_with_equal_func (attempt->others, backend, g_str_equal, NULL))
    g_ptr_array_add (attempt->others, backend);
  attempt->shared = attempt->shared && group_chain->shareable;

  return TRUE;
}

/* The next group to compile of a partitioned attempt at @chain's
 * position: its graph, tensors shaped like its inputs in @inputs, and its
 * nested chain (see chain_init_group()) in @group_chain; NULL when every
 * group is compiled. */
static RegGraph *
attempt_next_group (Attempt      *attempt,
                    const Chain  *chain,
                    Chain        *group_chain,
                    GPtrArray   **inputs)
{
  gboolean taken;
  RegGraph *group = _reg_partition_get_group (attempt->partition, attempt->fns->len, inputs,
                                              &taken);

  if (group != NULL)
    chain_init_group (group_chain, chain, taken ? attempt->compiler : NULL, attempt->name);

  return group;
}

/* The function of a partitioned attempt, its groups compiled: bound to
 * the whole graph's signature under the attempt's name, announced once as
 * a fallback from the backend to those that took its other nodes, and
 * given to the cache when every group's backend shares its functions. */
static RegCompiledFn *
partition_end (Attempt    *attempt,
               RegGraph   *graph,
               GPtrArray  *example_inputs,
               GError    **error)
{
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autofree char *next = NULL;

  next = g_strjoinv (", ", (char **) attempt->others->pdata);

  fn = _reg_partition_finish (g_steal_pointer (&attempt->partition), graph,
                              (RegCompiledFn **) g_ptr_array_steal (attempt->fns, NULL),
                              (char **) g_ptr_array_steal (attempt->backends, NULL));
  if (!_reg_compiled_fn_bind (fn, attempt->name, graph, example_inputs, attempt->shapes, error))
    return NULL;
  _reg_compiled_fn_set_placement_func (fn, _reg_partition_dup_placement);

  if (!attempt->shared)
    attempt_end (attempt, NULL);
  g_signal_emit (attempt->registry, _reg_registry_signals[REG_REGISTRY_FALLBACK], 0,
                 attempt->name, next, attempt->refusal);

  return g_steal_pointer (&fn);
}

/* Compiles the attempt with its backend's synchronous compile in this
 * thread, @cancellable (nullable) the current one for the backend's code
 * to check, and settles it.  Returns the function, or NULL with @error. */
static RegCompiledFn *
attempt_compile (Attempt       *attempt,
                 const Chain   *chain,
                 RegGraph      *graph,
                 GPtrArray     *example_inputs,
                 GCancellable  *cancellable,
                 GError       **error)
{
  RegCompiledFn *fn;

  if (cancellable != NULL)
    g_cancellable_push_current (cancellable);
  fn = _reg_compiler_compile_prepared (attempt->compiler, attempt->name, graph, example_inputs,
                                       chain_get_options (chain), attempt->shapes, error);
  if (cancellable != NULL)
    g_cancellable_pop_current (cancellable);

  /* A compile cancelled meanwhile keeps nothing, not even in the cache. */
  if (fn != NULL && g_cancellable_set_error_if_cancelled (cancellable, error))
    g_clear_object (&fn);
  attempt_end (attempt, fn);

  return fn;
}

/* Compiles on the backends of @chain in turn until one can; a partitioned
 * attempt compiles each group in order on its nested chain. */
static RegCompiledFn *
compile_on_chain (Chain        *chain,
                  RegRegistry  *self,
                  RegGraph     *graph,
                  GPtrArray    *example_inputs,
                  GError      **error)
{
  for (;;)
    {
      g_autoptr(Attempt) attempt = NULL;
      GError *local_error = NULL;
      RegCompiledFn *fn = NULL;

      attempt = attempt_begin (chain, self, graph, example_inputs, TRUE, NULL, &local_error);
      if (attempt != NULL && attempt->hit != NULL)
        return g_steal_pointer (&attempt->hit);

      if (attempt != NULL && attempt->partition == NULL)
        fn = attempt_compile (attempt, chain, graph, example_inputs, NULL, &local_error);
      while (attempt != NULL && attempt->partition != NULL)
        {
          g_auto(Chain) group_chain = { NULL };
          GPtrArray *group_inputs;
          RegGraph *group = attempt_next_group (attempt, chain, &group_chain, &group_inputs);

          RegCompiledFn *group_fn;

          if (group == NULL)
            {
              fn = partition_end (attempt, graph, example_inputs, &local_error);
              break;
            }
          group_fn = compile_on_chain (&group_chain, self, group, group_inputs, &local_error);
          if (!attempt_add_group (attempt, &group_chain, group_fn, &local_error))
            break;
        }
      if (attempt != NULL)
        attempt_end (attempt, fn);
      if (fn != NULL)
        {
          chain->shareable = is_shareable (attempt->compiler);
          return fn;
        }

      if (!chain_next (chain, self, local_error))
        break;
    }

  chain_fail (chain, error);
  return NULL;
}

/**
 * reg_registry_compile:
 * @self: a [class@Reg.Registry]
 * @backend: (nullable): a backend name, or %NULL for the default
 * @graph: the graph to compile
 * @example_inputs: (element-type Reg.Tensor): tensors shaped like the
 *   inputs of the calls to come
 * @options: (nullable): backend settings, an `a{sv}` dictionary, for
 *   @backend (fallback backends compile with their defaults)
 * @error: return location for a #GError
 *
 * Looks the backend up (see [method@Reg.Registry.lookup_backend] and
 * [method@Reg.Registry.dup_default_compiler]) and compiles @graph with it
 * (see [method@Reg.Compiler.compile]), falling back to
 * [property@Reg.Registry:fallback-backends] when it cannot, running the
 * nodes the backend does not take on them when it takes only some (see
 * [Partial backends](partial-backends.html)), and returning
 * a cached function for an equal compile of a backend that shares its
 * functions (see the class description).  This function is thread-safe.
 *
 * Returns: (transfer full): the compiled function, or %NULL with @error set
 */
RegCompiledFn *
reg_registry_compile (RegRegistry  *self,
                      const char   *backend,
                      RegGraph     *graph,
                      GPtrArray    *example_inputs,
                      GVariant     *options,
                      GError      **error)
{
  g_auto(Chain) chain = { NULL };

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (REG_IS_GRAPH (graph), NULL);
  g_return_val_if_fail (example_inputs != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  for (guint i = 0; i < example_inputs->len; i++)
    g_return_val_if_fail (REG_IS_TENSOR (g_ptr_array_index (example_inputs, i)), NULL);

  chain_init (&chain, self, backend, options);

  return compile_on_chain (&chain, self, graph, example_inputs, error);
}

/* Compiling without blocking */

/* An asynchronous compile: the chain, and what it compiles.  Each attempt
 * begins in a worker thread (lookups may load modules, the cache may wait)
 * and compiles through the backend's compile_async; every decision (a
 * fallback, the result) is taken in the caller's main context. */
typedef struct
{
  Chain      chain;
  RegGraph  *graph;
  GPtrArray *example_inputs;
  Attempt   *attempt;      /* between its beginning and its compile */
} AsyncCompile;

static void
async_compile_free (gpointer data)
{
  AsyncCompile *ac = data;

  chain_clear (&ac->chain);
  g_object_unref (ac->graph);
  g_ptr_array_unref (ac->example_inputs);
  g_clear_pointer (&ac->attempt, attempt_free);
  g_free (ac);
}

static void async_compile_attempt (GTask *task);

/* Starts compiling on @chain (taken over) as reg_registry_compile_async()
 * does. */
static void
compile_on_chain_async (RegRegistry         *self,
                        Chain               *chain,
                        RegGraph            *graph,
                        GPtrArray           *example_inputs,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  AsyncCompile *ac = g_new0 (AsyncCompile, 1);

  g_task_set_source_tag (task, reg_registry_compile_async);
  ac->chain = *chain;
  memset (chain, 0, sizeof *chain);
  /* The worker reads it after this returns, when the caller may change
   * its own (see _reg_graph_dup_frozen()). */
  ac->graph = _reg_graph_dup_frozen (graph);
  ac->example_inputs = g_ptr_array_new_full (example_inputs->len, g_object_unref);
  for (guint i = 0; i < example_inputs->len; i++)
    g_ptr_array_add (ac->example_inputs, g_object_ref (g_ptr_array_index (example_inputs, i)));
  g_task_set_task_data (task, ac, async_compile_free);

  async_compile_attempt (task);
}

/* The attempt is over (or could not begin: ac->attempt NULL), with @fn or
 * @error (taken over): it settles, and the compile returns @fn, recording
 * whether its backend shares its functions (for the partitioned compile
 * this may be a group of), or falls back or fails. */
static void
async_attempt_end (GTask         *task,
                   RegCompiledFn *fn,
                   GError        *error)
{
  AsyncCompile *ac = g_task_get_task_data (task);
  GError *final = NULL;

  if (fn != NULL)
    ac->chain.shareable = is_shareable (ac->attempt->compiler);
  if (ac->attempt != NULL)
    attempt_end (ac->attempt, fn);
  g_clear_pointer (&ac->attempt, attempt_free);

  if (fn != NULL)
    {
      g_task_return_pointer (task, fn, g_object_unref);
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, error);
    }
  else if (chain_next (&ac->chain, g_task_get_source_object (task), error))
    {
      async_compile_attempt (task);
    }
  else
    {
      chain_fail (&ac->chain, &final);
      g_task_return_error (task, final);
    }
}

static void
attempt_compiled (GObject      *source_object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  RegCompiledFn *fn;

  fn = _reg_compiler_compile_prepared_finish (REG_COMPILER (source_object), result, &error);
  async_attempt_end (task, fn, error);
}

static void async_partition_next (GTask *task);

static void
group_compiled (GObject      *source_object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AsyncCompile *ac = g_task_get_task_data (task);
  AsyncCompile *group = g_task_get_task_data (G_TASK (result));
  GError *error = NULL;
  RegCompiledFn *fn;

  fn = g_task_propagate_pointer (G_TASK (result), &error);
  if (attempt_add_group (ac->attempt, &group->chain, fn, &error))
    async_partition_next (task);
  else
    async_attempt_end (task, NULL, error);
}

/* Compiles the next group of a partitioned attempt on its nested chain,
 * or, when every group is compiled, returns their function. */
static void
async_partition_next (GTask *task)
{
  AsyncCompile *ac = g_task_get_task_data (task);
  g_auto(Chain) group_chain = { NULL };
  GPtrArray *group_inputs;
  RegGraph *group = attempt_next_group (ac->attempt, &ac->chain, &group_chain, &group_inputs);
  GError *error = NULL;
  RegCompiledFn *fn;

  if (group != NULL)
    {
      compile_on_chain_async (g_task_get_source_object (task), &group_chain, group, group_inputs,
                              g_task_get_cancellable (task), group_compiled, g_object_ref (task));
      return;
    }

  fn = partition_end (ac->attempt, ac->graph, ac->example_inputs, &error);
  async_attempt_end (task, fn, error);
}

static void
attempt_begun (GObject      *source_object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AsyncCompile *ac = g_task_get_task_data (task);
  GError *error = NULL;
  Attempt *attempt;

  attempt = g_task_propagate_pointer (G_TASK (result), &error);
  /* Not asked yet only when its code runs in one thread (attempt_begin()). */
  if (attempt != NULL && attempt->hit == NULL &&
      _reg_binding_is_thread_bound (G_OBJECT_TYPE (attempt->compiler)) &&
      !attempt_select (attempt, &ac->chain, ac->graph, ac->example_inputs, &error))
    g_clear_pointer (&attempt, attempt_free);
  if (attempt == NULL)
    {
      async_attempt_end (task, NULL, error);
      return;
    }

  ac->attempt = attempt;
  if (attempt->hit != NULL)
    {
      async_attempt_end (task, g_steal_pointer (&attempt->hit), NULL);
      return;
    }

  if (attempt->partition != NULL)
    {
      async_partition_next (task);
      return;
    }

  /* The backend's compile, in its own way (the default: a worker thread);
   * the attempt's shapes go with it. */
  _reg_compiler_compile_prepared_async (attempt->compiler, attempt->name, ac->graph,
                                        ac->example_inputs, chain_get_options (&ac->chain),
                                        g_steal_pointer (&attempt->shapes),
                                        g_task_get_cancellable (task),
                                        attempt_compiled, g_object_ref (task));
}

static void
attempt_begin_in_worker (GTask        *step,
                         gpointer      source_object,
                         gpointer      task_data,
                         GCancellable *cancellable)
{
  AsyncCompile *ac = g_task_get_task_data (G_TASK (task_data));
  g_autoptr(Attempt) attempt = NULL;
  GError *error = NULL;

  /* Nothing runs for a compile cancelled before it starts. */
  if (g_task_return_error_if_cancelled (step))
    return;

  attempt = attempt_begin (&ac->chain, source_object, ac->graph, ac->example_inputs, FALSE,
                           cancellable, &error);
  /* The groups compile in the caller's context, which may block waiting
   * for this key: nobody waits for them. */
  if (attempt != NULL && attempt->partition != NULL && attempt->miss != NULL)
    _reg_compile_cache_disown (attempt->registry->cache, attempt->miss);
  if (attempt != NULL && attempt->hit == NULL && attempt->partition == NULL &&
      _reg_compiler_compiles_in_worker (attempt->compiler))
    {
      /* One trip between threads instead of two: the backend would only
       * have run its synchronous compile in a worker of its own. */
      attempt->hit = attempt_compile (attempt, &ac->chain, ac->graph, ac->example_inputs,
                                      cancellable, &error);
      if (attempt->hit == NULL)
        g_clear_pointer (&attempt, attempt_free);
    }

  if (attempt == NULL)
    g_task_return_error (step, error);
  else
    g_task_return_pointer (step, g_steal_pointer (&attempt), (GDestroyNotify) attempt_free);
}

static void
async_compile_attempt (GTask *task)
{
  g_autoptr(GTask) step = g_task_new (g_task_get_source_object (task),
                                      g_task_get_cancellable (task),
                                      attempt_begun, g_object_ref (task));

  g_task_set_source_tag (step, attempt_begin_in_worker);
  /* The worker uses the compile's data until it returns, even after a
   * cancellation has made the step return early (return-on-cancel): it
   * holds the compile, and what it returns late is freed by
   * attempt_free(), which gives up its claim on the cache. */
  g_task_set_task_data (step, g_object_ref (task), g_object_unref);
  g_task_set_return_on_cancel (step, TRUE);
  g_task_run_in_thread (step, attempt_begin_in_worker);
}

/**
 * reg_registry_compile_async:
 * @self: a [class@Reg.Registry]
 * @backend: (nullable): a backend name, or %NULL for the default
 * @graph: the graph to compile
 * @example_inputs: (element-type Reg.Tensor): tensors shaped like the
 *   inputs of the calls to come
 * @options: (nullable): backend settings, an `a{sv}` dictionary, for
 *   @backend (fallback backends compile with their defaults)
 * @cancellable: (nullable): a [class@Gio.Cancellable]
 * @callback: called when the compile is done
 * @user_data: data for @callback
 *
 * Compiles @graph without blocking: the asynchronous form of
 * [method@Reg.Registry.compile], with the same fallbacks, cache and
 * errors.  The lookup (which may load a module), the checks of the graph
 * and the backend's compile all run off the calling thread, on a copy of
 * @graph (the caller may change @graph as soon as this function returns);
 * the backend's compile runs as its [vfunc@Reg.Compiler.compile_async]
 * arranges (by default in a worker thread).
 *
 * @callback runs in the thread-default main context of the calling
 * thread, as do [signal@Reg.Registry::fallback] handlers.  Cancelling
 * @cancellable makes the compile finish promptly with
 * %G_IO_ERROR_CANCELLED and keep nothing it made; if it is cancelled before
 * the work starts, no backend runs.  Call
 * [method@Reg.Registry.compile_finish] from @callback.  This function is
 * thread-safe.
 */
void
reg_registry_compile_async (RegRegistry         *self,
                            const char          *backend,
                            RegGraph            *graph,
                            GPtrArray           *example_inputs,
                            GVariant            *options,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  Chain chain;

  g_return_if_fail (REG_IS_REGISTRY (self));
  g_return_if_fail (REG_IS_GRAPH (graph));
  g_return_if_fail (example_inputs != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  for (guint i = 0; i < example_inputs->len; i++)
    g_return_if_fail (REG_IS_TENSOR (g_ptr_array_index (example_inputs, i)));

  chain_init (&chain, self, backend, options);
  compile_on_chain_async (self, &chain, graph, example_inputs, cancellable, callback,
                          user_data);
}

/**
 * reg_registry_compile_finish:
 * @self: a [class@Reg.Registry]
 * @result: the result given to the callback of
 *   [method@Reg.Registry.compile_async]
 * @error: return location for a #GError
 *
 * Finishes [method@Reg.Registry.compile_async].
 *
 * Returns: (transfer full): the compiled function, or %NULL with @error set
 */
RegCompiledFn *
reg_registry_compile_finish (RegRegistry   *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
