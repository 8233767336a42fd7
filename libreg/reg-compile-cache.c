/* reg-compile-cache.c: the functions a registry compiled, kept
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An entry is a (compiler object, key) pair: the key is what makes two
 * compiles equal (_reg_compile_cache_key()), the compiler object is held so
 * that an entry can never be taken for another compiler made at the same
 * address.  An entry of `entries` is either claimed (one thread is
 * compiling it, the others of the same key wait on `settled`) or ready (it
 * holds the function, and sits in the least-recently-used queue).  A
 * compile that nobody may wait for (see _reg_compile_cache_begin()) has an
 * entry of its own in `unclaimed` until it settles.
 *
 * No wait depends on the waiter: only a compile that runs to its end in
 * the thread that claimed it is waited for (never one that a main context
 * must finish), and a thread waits for no compile whose thread waits,
 * directly or through others, for it (`waiting`).
 *
 * Lock order: `mutex` is a leaf.  No compiler, module or signal handler
 * runs while it is held, and nothing else is locked under it.
 */

#include <string.h>

#include "reg-compile-cache-private.h"

#define WAIT_SLICE_US (20 * G_TIME_SPAN_MILLISECOND)

typedef struct
{
  RegCompiler   *compiler;    /* a reference */
  guint8        *key;         /* owned, except in a probe */
  gsize          key_size;
  guint          hash;
  RegCompiledFn *fn;          /* NULL while in flight */
  GThread       *owner;       /* the thread compiling a claimed entry, else NULL */
  gboolean       by_default;
  gboolean       doomed;      /* in flight, dropped: not kept when settled */
  gsize          cost;
  GList          link;        /* in `lru` while ready; data is the entry */
} Entry;

struct _RegCompileCache
{
  GMutex      mutex;
  GCond       settled;
  GHashTable *entries;        /* Entry -> Entry: claimed and ready */
  GHashTable *unclaimed;      /* set of Entry: compiles in flight nobody waits for */
  GHashTable *waiting;        /* GThread -> GThread: who waits for whose compile */
  GQueue      lru;            /* ready entries, most recently used first */
  guint       max_entries;
  gsize       bytes;          /* the cost of the ready entries */
  guint64     hits;
  guint64     misses;
  guint64     evictions;
};

static inline guint64
mix (guint64 x)
{
  x *= 0xff51afd7ed558ccdull;
  return x ^ (x >> 32);
}

/* A hash of the key 32 bytes at a time, in four independent lanes, one
 * variable each (g_bytes_hash() goes byte by byte, and a cache hit is
 * mostly hashing; as an array, GCC turns the lanes into vector code that
 * emulates the 64-bit multiplications, three times slower). */
static guint
key_hash (const guint8 *p,
          gsize         size)
{
  guint64 a = 0x9e3779b97f4a7c15ull ^ size, b = 0xbf58476d1ce4e5b9ull;
  guint64 c = 0x94d049bb133111ebull, d = 0x2545f4914f6cdd1dull;
  guint64 tail[4] = { 0, 0, 0, 0 };
  guint64 h;

  for (; size >= sizeof tail; p += sizeof tail, size -= sizeof tail)
    {
      guint64 w0, w1, w2, w3;

      memcpy (&w0, p, sizeof w0);
      memcpy (&w1, p + 8, sizeof w1);
      memcpy (&w2, p + 16, sizeof w2);
      memcpy (&w3, p + 24, sizeof w3);
      a = mix (a ^ w0);
      b = mix (b ^ w1);
      c = mix (c ^ w2);
      d = mix (d ^ w3);
    }
  memcpy (tail, p, size);
  h = mix (a ^ tail[0]);
  h = mix (h ^ b ^ tail[1]);
  h = mix (h ^ c ^ tail[2]);
  h = mix (h ^ d ^ tail[3]);

  return (guint) h;
}

static guint
entry_hash (gconstpointer data)
{
  return ((const Entry *) data)->hash;
}

static gboolean
entry_equal (gconstpointer a,
             gconstpointer b)
{
  const Entry *x = a, *y = b;

  return x->compiler == y->compiler && x->hash == y->hash && x->key_size == y->key_size &&
         memcmp (x->key, y->key, x->key_size) == 0;
}

static void
entry_free (gpointer data)
{
  Entry *entry = data;

  g_object_unref (entry->compiler);
  g_free (entry->key);
  g_clear_object (&entry->fn);
  g_free (entry);
}

RegCompileCache *
_reg_compile_cache_new (guint max_entries)
{
  RegCompileCache *cache = g_new0 (RegCompileCache, 1);

  g_mutex_init (&cache->mutex);
  g_cond_init (&cache->settled);
  cache->entries = g_hash_table_new_full (entry_hash, entry_equal, NULL, entry_free);
  cache->unclaimed = g_hash_table_new (NULL, NULL);
  cache->waiting = g_hash_table_new (NULL, NULL);
  g_queue_init (&cache->lru);
  cache->max_entries = max_entries;

  return cache;
}

void
_reg_compile_cache_free (RegCompileCache *cache)
{
  /* Every compile in flight holds the registry, hence the cache. */
  g_assert (g_hash_table_size (cache->unclaimed) == 0);
  g_hash_table_unref (cache->unclaimed);
  g_hash_table_unref (cache->waiting);
  g_hash_table_unref (cache->entries);
  g_cond_clear (&cache->settled);
  g_mutex_clear (&cache->mutex);
  g_free (cache);
}

/* Removes a ready entry; its function is released by the caller's
 * @garbage, outside the lock (finalizing it runs backend code). */
static void
remove_ready_locked (RegCompileCache *cache,
                     Entry           *entry,
                     GPtrArray       *garbage)
{
  g_assert (entry->fn != NULL);

  g_queue_unlink (&cache->lru, &entry->link);
  cache->bytes -= entry->cost;
  g_ptr_array_add (garbage, g_steal_pointer (&entry->fn));
  g_ptr_array_add (garbage, g_object_ref (entry->compiler));
  g_hash_table_remove (cache->entries, entry);
}

static void
evict_locked (RegCompileCache *cache,
              GPtrArray       *garbage)
{
  while (cache->lru.length > 0 &&
         (cache->lru.length > cache->max_entries || cache->bytes > REG_COMPILE_CACHE_MAX_BYTES))
    {
      remove_ready_locked (cache, cache->lru.tail->data, garbage);
      cache->evictions++;
    }
}

void
_reg_compile_cache_set_max_entries (RegCompileCache *cache,
                                    guint            max_entries)
{
  g_autoptr(GPtrArray) garbage = g_ptr_array_new_with_free_func (g_object_unref);

  g_mutex_lock (&cache->mutex);
  cache->max_entries = max_entries;
  evict_locked (cache, garbage);
  g_mutex_unlock (&cache->mutex);
}

guint
_reg_compile_cache_get_max_entries (RegCompileCache *cache)
{
  guint max_entries;

  g_mutex_lock (&cache->mutex);
  max_entries = cache->max_entries;
  g_mutex_unlock (&cache->mutex);

  return max_entries;
}

void
_reg_compile_cache_get_counters (RegCompileCache *cache,
                                 guint64         *hits,
                                 guint64         *misses,
                                 guint64         *evictions)
{
  g_mutex_lock (&cache->mutex);
  if (hits != NULL)
    *hits = cache->hits;
  if (misses != NULL)
    *misses = cache->misses;
  if (evictions != NULL)
    *evictions = cache->evictions;
  g_mutex_unlock (&cache->mutex);
}

typedef struct
{
  const char *key;    /* borrowed from the options */
  GVariant   *value;  /* a reference */
} OptionEntry;

static int
compare_option_entries (gconstpointer a,
                        gconstpointer b)
{
  return strcmp (((const OptionEntry *) a)->key, ((const OptionEntry *) b)->key);
}

/* Each thread writes its keys into a buffer of its own, kept while its
 * keys are small: a cache hit then allocates nothing, and a large key's
 * buffer is let go at the thread's next key. */
static GPrivate key_buffer = G_PRIVATE_INIT ((GDestroyNotify) g_byte_array_unref);

#define KEPT_KEY_BUFFER (1024 * 1024)

/* A key longer than an entry may cost is not made: its compile would
 * never be kept. */
#define MAX_KEY_SIZE REG_COMPILE_CACHE_MAX_BYTES

G_STATIC_ASSERT (MAX_KEY_SIZE <= G_MAXUINT);

/* Writes a key into a GByteArray grown ahead by key_reserve(), a whole
 * node at a time: the key of a large graph is written a few bytes at a
 * time, and a call or a bounds check per field would be most of its time. */
typedef struct
{
  GByteArray *out;
  gsize       used;
} KeyWriter;

/* The least the array grows by: the key of a small graph then grows it
 * once. */
#define KEY_MIN_GROWTH 4096

/* Room for @n more bytes, which the caller writes before it advances
 * w->used; NULL when the key would pass MAX_KEY_SIZE. */
static inline guint8 *
key_reserve (KeyWriter *w,
             gsize      n)
{
  if (n > MAX_KEY_SIZE - w->used)
    return NULL;
  if (w->used + n > w->out->len)
    {
      gsize length = MAX (MAX ((gsize) w->out->len * 2, w->used + n), KEY_MIN_GROWTH);

      g_byte_array_set_size (w->out, MIN (length, MAX_KEY_SIZE));
    }

  return w->out->data + w->used;
}

static inline guint8 *
put_u32 (guint8  *p,
         guint32  value)
{
  memcpy (p, &value, sizeof value);
  return p + sizeof value;
}

/* Length-prefixed. */
static inline guint8 *
put_bytes (guint8     *p,
           const void *data,
           gsize       length)
{
  p = put_u32 (p, (guint32) length);
  if (length > 0)  /* data may be NULL then, as for an empty GVariant */
    memcpy (p, data, length);
  return p + length;
}

static gboolean
write_u32 (KeyWriter *w,
           guint32    value)
{
  guint8 *p = key_reserve (w, sizeof value);

  if (p == NULL)
    return FALSE;
  w->used = put_u32 (p, value) - w->out->data;
  return TRUE;
}

static gboolean
write_sized (KeyWriter  *w,
             const void *data,
             gsize       length)
{
  guint8 *p = length <= G_MAXUINT32 ? key_reserve (w, sizeof (guint32) + length) : NULL;

  if (p == NULL)
    return FALSE;
  w->used = put_bytes (p, data, length) - w->out->data;
  return TRUE;
}

/* The most a node takes but for its name: its kind, operator and arity,
 * its arguments, a constant's value and the name's length. */
#define KEY_NODE_MAX (sizeof (guint32) * (2 + REG_GRAPH_MAX_ARITY) + sizeof (double))

/* The graph as the backend receives it: every node in order (its kind,
 * operator, arguments, name, and a constant's bits, with which the
 * backend computes: the text form prints every NaN as `nan`, but signs
 * and payloads reach the results), then the outputs.  The inputs are the
 * input nodes in order. */
static gboolean
write_graph (KeyWriter *w,
             RegGraph  *graph)
{
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      const RegNode *node = _reg_graph_get_node (graph, i);
      const char *name = node->name != NULL ? node->name : "";
      gsize name_length = strlen (name);
      guint8 *p = key_reserve (w, KEY_NODE_MAX + name_length);

      if (p == NULL)
        return FALSE;
      p = put_u32 (p, (guint32) node->kind | (guint32) node->op << 8 | node->n_args << 24);
      for (guint j = 0; j < node->n_args; j++)
        p = put_u32 (p, node->args[j]);
      if (node->kind == REG_NODE_CONSTANT)
        {
          memcpy (p, &node->value, sizeof node->value);
          p += sizeof node->value;
        }
      w->used = put_bytes (p, name, name_length) - w->out->data;
    }

  return write_sized (w, graph->outputs->data, sizeof (guint) * graph->outputs->len);
}

const guint8 *
_reg_compile_cache_key (RegGraph  *graph,
                        GPtrArray *example_inputs,
                        GVariant  *options,
                        gsize     *size)
{
  GByteArray *out = g_private_get (&key_buffer);
  KeyWriter w = { NULL, 0 };

  if (out == NULL || out->len > KEPT_KEY_BUFFER)
    {
      out = g_byte_array_new ();
      g_private_replace (&key_buffer, out);
    }
  w.out = out;

  if (!write_graph (&w, graph) || !write_u32 (&w, example_inputs->len))
    return NULL;
  for (guint i = 0; i < example_inputs->len; i++)
    {
      guint n_dims;
      const gint64 *dims = reg_tensor_get_shape (g_ptr_array_index (example_inputs, i), &n_dims);

      if (!write_sized (&w, dims, sizeof (gint64) * n_dims))
        return NULL;
    }

  /* NULL and an empty dictionary are different options for a backend.
   * A dictionary is every entry as the backend gets it, in key order: the
   * order is not what a backend reads, the values are.  A key given twice
   * is no exception to make: such options are refused before any compile
   * (_reg_option_list_check_options()), so no entry is ever made of them,
   * and no other dictionary has their key. */
  if (options == NULL)
    {
      if (!write_u32 (&w, G_MAXUINT32))
        return NULL;
    }
  else
    {
      gsize n = g_variant_n_children (options);
      g_autofree OptionEntry *entries = g_new (OptionEntry, MAX (n, 1));
      gboolean fits = n <= G_MAXUINT32 && write_u32 (&w, n);

      for (gsize i = 0; i < n; i++)
        g_variant_get_child (options, i, "{&sv}", &entries[i].key, &entries[i].value);
      qsort (entries, n, sizeof *entries, compare_option_entries);
      for (gsize i = 0; i < n; i++)
        {
          g_autoptr(GVariant) value = entries[i].value;
          g_autoptr(GVariant) normal = fits ? g_variant_get_normal_form (value) : NULL;
          const char *type = g_variant_get_type_string (value);

          fits = fits &&
                 write_sized (&w, entries[i].key, strlen (entries[i].key)) &&
                 write_sized (&w, type, strlen (type)) &&
                 write_sized (&w, g_variant_get_data (normal), g_variant_get_size (normal));
        }
      if (!fits)
        return NULL;
    }

  *size = w.used;
  return out->data;
}

gsize
_reg_compile_cache_cost (RegGraph       *graph,
                         const RegShape *shapes,
                         gsize           key_size)
{
  gsize cost = key_size + sizeof (Entry);
  guint n_nodes = reg_graph_get_n_nodes (graph);

  /* An element count that passes _reg_shape_count() fits in bytes. */
  for (guint i = 0; i < n_nodes; i++)
    {
      gsize elements;

      if (!_reg_shape_count (shapes[i].dims, shapes[i].n_dims, &elements) ||
          !g_size_checked_add (&cost, cost, elements * sizeof (float)))
        return G_MAXSIZE;
    }

  return cost;
}

/* A new entry for what @probe looks up, with its own copy of the key (the
 * caller's is the caller's thread's, the entry's is touched under the
 * lock only). */
static Entry *
entry_new (const Entry *probe,
           gboolean     by_default)
{
  Entry *entry = g_new0 (Entry, 1);

  entry->compiler = g_object_ref (probe->compiler);
  entry->key = g_memdup2 (probe->key, probe->key_size);
  entry->key_size = probe->key_size;
  entry->hash = probe->hash;
  entry->by_default = by_default;
  entry->link.data = entry;

  return entry;
}

/* Whether the calling thread may wait for the claimed @entry: not when its
 * compile runs in this thread, nor when the thread that runs it waits,
 * directly or through others, for this one.  The waits form no cycle
 * (none is ever added), so the walk ends. */
static gboolean
may_wait_for_locked (RegCompileCache *cache,
                     const Entry     *entry)
{
  GThread *self = g_thread_self ();

  for (GThread *thread = entry->owner; thread != NULL;
       thread = g_hash_table_lookup (cache->waiting, thread))
    if (thread == self)
      return FALSE;

  return TRUE;
}

RegCompiledFn *
_reg_compile_cache_begin (RegCompileCache      *cache,
                          RegCompiler          *compiler,
                          const guint8         *key,
                          gsize                 key_size,
                          gboolean              by_default,
                          gboolean              compiles_here,
                          GCancellable         *cancellable,
                          RegCompileCacheMiss **miss)
{
  /* Borrows the key to look it up with. */
  Entry probe = { .compiler = compiler, .key = (guint8 *) key, .key_size = key_size,
                  .hash = key_hash (key, key_size) };
  RegCompiledFn *fn = NULL;
  Entry *entry;

  *miss = NULL;

  g_mutex_lock (&cache->mutex);

  while (cache->max_entries > 0)
    {
      entry = g_hash_table_lookup (cache->entries, &probe);

      if (entry != NULL && entry->fn != NULL)
        {
          fn = g_object_ref (entry->fn);
          entry->by_default |= by_default;
          g_queue_unlink (&cache->lru, &entry->link);
          g_queue_push_head_link (&cache->lru, &entry->link);
          cache->hits++;
          break;
        }

      if (entry != NULL && may_wait_for_locked (cache, entry))
        {
          /* Woken when an entry settles; a cancellation is noticed within
           * WAIT_SLICE_US without the canceller touching our lock. */
          if (g_cancellable_is_cancelled (cancellable))
            break;
          g_hash_table_insert (cache->waiting, g_thread_self (), entry->owner);
          g_cond_wait_until (&cache->settled, &cache->mutex,
                             g_get_monotonic_time () + WAIT_SLICE_US);
          g_hash_table_remove (cache->waiting, g_thread_self ());
          continue;
        }

      /* A miss: claimed when nobody compiles the key yet and the compile
       * runs here, to be waited for; otherwise a compile of its own. */
      cache->misses++;
      *miss = (RegCompileCacheMiss *) entry_new (&probe, by_default);
      if (entry == NULL && compiles_here)
        {
          ((Entry *) *miss)->owner = g_thread_self ();
          g_hash_table_add (cache->entries, *miss);
        }
      else
        {
          g_hash_table_add (cache->unclaimed, *miss);
        }
      break;
    }

  g_mutex_unlock (&cache->mutex);

  return fn;
}

void
_reg_compile_cache_disown (RegCompileCache     *cache,
                           RegCompileCacheMiss *miss)
{
  Entry *entry = (Entry *) miss;

  g_mutex_lock (&cache->mutex);
  if (entry->owner != NULL)
    {
      entry->owner = NULL;
      g_hash_table_steal (cache->entries, entry);
      g_hash_table_add (cache->unclaimed, entry);
      g_cond_broadcast (&cache->settled);
    }
  g_mutex_unlock (&cache->mutex);
}

void
_reg_compile_cache_settle (RegCompileCache     *cache,
                           RegCompileCacheMiss *miss,
                           RegCompiledFn       *fn,
                           gsize                cost)
{
  g_autoptr(GPtrArray) garbage = g_ptr_array_new_with_free_func (g_object_unref);
  Entry *entry = (Entry *) miss;
  gboolean keep;

  g_mutex_lock (&cache->mutex);

  /* Kept if it compiled, was not dropped meanwhile, and fits the budget
   * alone (an entry that does not would evict every other, then itself). */
  keep = fn != NULL && !entry->doomed && cache->max_entries > 0 &&
         cost <= REG_COMPILE_CACHE_MAX_BYTES;

  if (entry->owner != NULL)
    {
      /* Claimed: ready now, or forgotten (a waiter then compiles). */
      entry->owner = NULL;
      if (!keep)
        g_hash_table_steal (cache->entries, entry);
      g_cond_broadcast (&cache->settled);
    }
  else
    {
      /* Unclaimed: kept unless another compile of its key is there. */
      g_hash_table_remove (cache->unclaimed, entry);
      keep = keep && !g_hash_table_contains (cache->entries, entry);
      if (keep)
        g_hash_table_add (cache->entries, entry);
    }

  if (!keep)
    {
      g_ptr_array_add (garbage, g_object_ref (entry->compiler));
      entry_free (entry);
    }
  else
    {
      entry->fn = g_object_ref (fn);
      entry->cost = cost;
      cache->bytes += cost;
      g_queue_push_head_link (&cache->lru, &entry->link);
      evict_locked (cache, garbage);
    }

  g_mutex_unlock (&cache->mutex);
}

/* Whether drop_where (@compiler, @default_only) drops @entry. */
static gboolean
entry_is_dropped (const Entry *entry,
                  RegCompiler *compiler,
                  gboolean     default_only)
{
  return (compiler == NULL || entry->compiler == compiler) &&
         (!default_only || entry->by_default);
}

/* Drops the ready entries of @compiler (NULL: of every compiler), only
 * those compiled as the default backend when @default_only, and dooms the
 * matching ones in flight, claimed or not. */
static void
drop_where (RegCompileCache *cache,
            RegCompiler     *compiler,
            gboolean         default_only)
{
  g_autoptr(GPtrArray) garbage = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) ready = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  g_mutex_lock (&cache->mutex);
  g_hash_table_iter_init (&iter, cache->entries);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      Entry *entry = key;

      if (!entry_is_dropped (entry, compiler, default_only))
        continue;
      if (entry->fn != NULL)
        g_ptr_array_add (ready, entry);
      else
        entry->doomed = TRUE;
    }
  g_hash_table_iter_init (&iter, cache->unclaimed);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (entry_is_dropped (key, compiler, default_only))
      ((Entry *) key)->doomed = TRUE;
  for (guint i = 0; i < ready->len; i++)
    remove_ready_locked (cache, g_ptr_array_index (ready, i), garbage);
  g_mutex_unlock (&cache->mutex);
}

void
_reg_compile_cache_drop_compiler (RegCompileCache *cache,
                                  RegCompiler     *compiler)
{
  drop_where (cache, compiler, FALSE);
}

void
_reg_compile_cache_drop_default (RegCompileCache *cache)
{
  drop_where (cache, NULL, TRUE);
}

void
_reg_compile_cache_clear (RegCompileCache *cache)
{
  drop_where (cache, NULL, FALSE);
}
