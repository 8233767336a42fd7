/* reg-compile-cache.c: the functions a registry compiled, kept
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An entry is a (compiler object, key) pair: the key is what makes two
 * compiles equal (reg_compile_cache_key()), the compiler object is held so
 * that an entry can never be taken for another compiler made at the same
 * address.  An entry is either in flight (one caller is compiling it, the
 * others of the same key wait on `settled`) or ready (it holds the
 * function, and sits in the least-recently-used queue).
 *
 * Lock order: `mutex` is a leaf.  No compiler, module or signal handler
 * runs while it is held, and nothing else is locked under it.
 */

#include <string.h>

#include "reg-compile-cache-private.h"
#include "reg-tensor.h"

#define WAIT_SLICE_US (20 * G_TIME_SPAN_MILLISECOND)

typedef struct
{
  RegCompiler   *compiler;    /* a reference */
  GBytes        *key;
  guint          hash;
  RegCompiledFn *fn;          /* NULL while in flight */
  gboolean       by_default;
  gboolean       doomed;      /* in flight, dropped: not kept when settled */
  gsize          cost;
  GList          link;        /* in `lru` while ready; data is the entry */
} Entry;

struct _RegCompileCache
{
  GMutex      mutex;
  GCond       settled;
  GHashTable *entries;        /* Entry -> Entry */
  GQueue      lru;            /* ready entries, most recently used first */
  guint       max_entries;
  gsize       bytes;          /* the cost of the ready entries */
  guint64     hits;
  guint64     misses;
  guint64     evictions;
};

/* A hash of the key 32 bytes at a time, in four independent lanes:
 * g_bytes_hash() goes byte by byte, and a cache hit is mostly hashing. */
static guint
key_hash (GBytes *key)
{
  gsize size;
  const guint8 *p = g_bytes_get_data (key, &size);
  guint64 lane[4] = { 0x9e3779b97f4a7c15ull ^ size, 0xbf58476d1ce4e5b9ull,
                      0x94d049bb133111ebull, 0x2545f4914f6cdd1dull };
  guint64 tail[4] = { 0, 0, 0, 0 };
  guint64 h;

  for (; size >= sizeof lane; p += sizeof lane, size -= sizeof lane)
    {
      guint64 words[4];

      memcpy (words, p, sizeof words);
      for (guint i = 0; i < 4; i++)
        {
          lane[i] = (lane[i] ^ words[i]) * 0xff51afd7ed558ccdull;
          lane[i] ^= lane[i] >> 32;
        }
    }
  memcpy (tail, p, size);
  h = lane[0];
  for (guint i = 0; i < 4; i++)
    {
      h = (h ^ lane[i] ^ tail[i]) * 0xc4ceb9fe1a85ec53ull;
      h ^= h >> 29;
    }

  return (guint) h;
}

/* An entry's own copy of a key: the caller's is freed by the caller's
 * thread, the entry's under the lock only, so no reference count is
 * shared between threads (ThreadSanitizer cannot see GLib's). */
static GBytes *
bytes_copy (GBytes *bytes)
{
  gsize size;
  gconstpointer data = g_bytes_get_data (bytes, &size);

  return g_bytes_new (data, size);
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

  return x->compiler == y->compiler && x->hash == y->hash && g_bytes_equal (x->key, y->key);
}

static void
entry_free (gpointer data)
{
  Entry *entry = data;

  g_object_unref (entry->compiler);
  g_bytes_unref (entry->key);
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
  g_queue_init (&cache->lru);
  cache->max_entries = max_entries;

  return cache;
}

void
_reg_compile_cache_free (RegCompileCache *cache)
{
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

static GPtrArray *
garbage_new (void)
{
  return g_ptr_array_new_with_free_func (g_object_unref);
}

void
_reg_compile_cache_set_max_entries (RegCompileCache *cache,
                                    guint            max_entries)
{
  g_autoptr(GPtrArray) garbage = garbage_new ();

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

static int
compare_option_keys (gconstpointer a,
                     gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

GBytes *
_reg_compile_cache_key (RegGraph  *graph,
                        GPtrArray *example_inputs,
                        GVariant  *options)
{
  /* About what a node of a builder's graph takes (see
   * _reg_graph_append_key()), so that the array seldom grows. */
  GByteArray *out = g_byte_array_sized_new (64 + 24 * reg_graph_get_n_nodes (graph));
  guint32 n;

  _reg_graph_append_key (graph, out);

  n = example_inputs->len;
  g_byte_array_append (out, (const guint8 *) &n, sizeof n);
  for (guint i = 0; i < example_inputs->len; i++)
    {
      guint n_dims;
      const gint64 *dims = reg_tensor_get_shape (g_ptr_array_index (example_inputs, i), &n_dims);

      n = n_dims;
      g_byte_array_append (out, (const guint8 *) &n, sizeof n);
      g_byte_array_append (out, (const guint8 *) dims, sizeof (gint64) * n_dims);
    }

  /* NULL and an empty dictionary are different options for a backend; a
   * repeated key counts once, as a GVariantDict reads it. */
  if (options == NULL)
    {
      n = G_MAXUINT32;
      g_byte_array_append (out, (const guint8 *) &n, sizeof n);
    }
  else
    {
      gsize n_children = g_variant_n_children (options);
      g_autofree const char **keys = g_new (const char *, MAX (n_children, 1));
      g_autoptr(GVariantDict) dict = g_variant_dict_new (options);
      gsize n_keys = 0;

      for (gsize i = 0; i < n_children; i++)
        g_variant_get_child (options, i, "{&sv}", &keys[i], NULL);
      qsort (keys, n_children, sizeof *keys, compare_option_keys);
      for (gsize i = 0; i < n_children; i++)
        if (n_keys == 0 || strcmp (keys[i], keys[n_keys - 1]) != 0)
          keys[n_keys++] = keys[i];

      n = n_keys;
      g_byte_array_append (out, (const guint8 *) &n, sizeof n);
      for (gsize i = 0; i < n_keys; i++)
        {
          g_autoptr(GVariant) value = g_variant_dict_lookup_value (dict, keys[i], NULL);
          g_autoptr(GVariant) normal = g_variant_get_normal_form (value);
          const char *type = g_variant_get_type_string (normal);
          guint32 length;

          length = strlen (keys[i]);
          g_byte_array_append (out, (const guint8 *) &length, sizeof length);
          g_byte_array_append (out, (const guint8 *) keys[i], length);
          length = strlen (type);
          g_byte_array_append (out, (const guint8 *) &length, sizeof length);
          g_byte_array_append (out, (const guint8 *) type, length);
          length = g_variant_get_size (normal);
          g_byte_array_append (out, (const guint8 *) &length, sizeof length);
          g_byte_array_append (out, g_variant_get_data (normal), length);
        }
    }

  return g_byte_array_free_to_bytes (out);
}

gsize
_reg_compile_cache_cost (RegGraph       *graph,
                         const RegShape *shapes,
                         GBytes         *key)
{
  gsize cost = g_bytes_get_size (key) + sizeof (Entry);
  guint n_nodes = reg_graph_get_n_nodes (graph);

  for (guint i = 0; i < n_nodes; i++)
    {
      gsize elements = 1;

      for (guint d = 0; d < shapes[i].n_dims; d++)
        if (!g_size_checked_mul (&elements, elements, (gsize) shapes[i].dims[d]))
          return G_MAXSIZE;
      if (!g_size_checked_mul (&elements, elements, sizeof (float)) ||
          !g_size_checked_add (&cost, cost, elements))
        return G_MAXSIZE;
    }

  return cost;
}

RegCompiledFn *
_reg_compile_cache_begin (RegCompileCache *cache,
                          RegCompiler     *compiler,
                          GBytes          *key,
                          gboolean         by_default,
                          gboolean         wait,
                          GCancellable    *cancellable,
                          gboolean        *must_settle)
{
  Entry probe = { .compiler = compiler, .key = key, .hash = key_hash (key) };
  RegCompiledFn *fn = NULL;
  Entry *entry;

  *must_settle = FALSE;

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

      if (entry != NULL && wait)
        {
          /* Woken when an entry settles; a cancellation is noticed within
           * WAIT_SLICE_US without the canceller touching our lock. */
          if (g_cancellable_is_cancelled (cancellable))
            break;
          g_cond_wait_until (&cache->settled, &cache->mutex,
                             g_get_monotonic_time () + WAIT_SLICE_US);
          continue;
        }

      cache->misses++;
      *must_settle = TRUE;
      if (entry == NULL && wait)
        {
          entry = g_new0 (Entry, 1);
          entry->compiler = g_object_ref (compiler);
          entry->key = bytes_copy (key);
          entry->hash = probe.hash;
          entry->by_default = by_default;
          entry->link.data = entry;
          g_hash_table_add (cache->entries, entry);
        }
      break;
    }

  g_mutex_unlock (&cache->mutex);

  return fn;
}

void
_reg_compile_cache_settle (RegCompileCache *cache,
                           RegCompiler     *compiler,
                           GBytes          *key,
                           RegCompiledFn   *fn,
                           gsize            cost)
{
  Entry probe = { .compiler = compiler, .key = key, .hash = key_hash (key) };
  g_autoptr(GPtrArray) garbage = garbage_new ();
  Entry *entry;

  g_mutex_lock (&cache->mutex);

  entry = g_hash_table_lookup (cache->entries, &probe);
  if (entry != NULL && entry->fn == NULL)
    {
      /* Ours, in flight: kept if it compiled and was not dropped
       * meanwhile, forgotten otherwise (a waiter then compiles). */
      if (fn != NULL && !entry->doomed && cache->max_entries > 0)
        {
          entry->fn = g_object_ref (fn);
          entry->cost = cost;
          cache->bytes += cost;
          g_queue_push_head_link (&cache->lru, &entry->link);
        }
      else
        {
          g_ptr_array_add (garbage, g_object_ref (entry->compiler));
          g_hash_table_remove (cache->entries, entry);
        }
      g_cond_broadcast (&cache->settled);
    }
  else if (entry == NULL && fn != NULL && cache->max_entries > 0)
    {
      /* A compile that did not wait (a thread-bound compiler). */
      entry = g_new0 (Entry, 1);
      entry->compiler = g_object_ref (compiler);
      entry->key = bytes_copy (key);
      entry->hash = probe.hash;
      entry->fn = g_object_ref (fn);
      entry->cost = cost;
      entry->link.data = entry;
      g_hash_table_add (cache->entries, entry);
      cache->bytes += cost;
      g_queue_push_head_link (&cache->lru, &entry->link);
    }

  evict_locked (cache, garbage);
  g_mutex_unlock (&cache->mutex);
}

/* Drops the ready entries @drop chooses and dooms the matching ones in
 * flight. */
static void
drop_where (RegCompileCache *cache,
            gboolean       (*drop) (const Entry *entry, gpointer data),
            gpointer         data)
{
  g_autoptr(GPtrArray) garbage = garbage_new ();
  g_autoptr(GPtrArray) ready = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  g_mutex_lock (&cache->mutex);
  g_hash_table_iter_init (&iter, cache->entries);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      Entry *entry = key;

      if (!drop (entry, data))
        continue;
      if (entry->fn != NULL)
        g_ptr_array_add (ready, entry);
      else
        entry->doomed = TRUE;
    }
  for (guint i = 0; i < ready->len; i++)
    remove_ready_locked (cache, g_ptr_array_index (ready, i), garbage);
  g_mutex_unlock (&cache->mutex);
}

static gboolean
entry_is_of (const Entry *entry,
             gpointer     compiler)
{
  return entry->compiler == compiler;
}

static gboolean
entry_is_default (const Entry *entry,
                  gpointer     data)
{
  return entry->by_default;
}

static gboolean
entry_any (const Entry *entry,
           gpointer     data)
{
  return TRUE;
}

void
_reg_compile_cache_drop_compiler (RegCompileCache *cache,
                                  RegCompiler     *compiler)
{
  drop_where (cache, entry_is_of, compiler);
}

void
_reg_compile_cache_drop_default (RegCompileCache *cache)
{
  drop_where (cache, entry_is_default, NULL);
}

void
_reg_compile_cache_clear (RegCompileCache *cache)
{
  drop_where (cache, entry_any, NULL);
}
