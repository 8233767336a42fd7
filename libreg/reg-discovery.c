/* reg-discovery.c: the search path, and reading its manifests into the
 * registry's table
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The rules are in docs/discovery.md: the search path is the directories
 * added by the application (newest first), then REG_BACKEND_PATH, then the
 * installed directory; the first declaration of a name in that order
 * wins, and a backend registered or loaded keeps its name.  The
 * declarations that lose are kept beside the winner (RegEntry.hidden),
 * for its info to tell.
 */

#include "reg-config.h"

#include <string.h>

#include "reg-environment-private.h"
#include "reg-file-private.h"
#include "reg-message-private.h"
#include "reg-registry-private.h"

static char **
search_dirs_from_environment (void)
{
  GPtrArray *dirs = g_ptr_array_new_null_terminated (0, NULL, TRUE);
  const char *system_dir = REG_BACKEND_DIR;

  if (_reg_environment_is_trusted ())
    {
      const char *path = g_getenv ("REG_BACKEND_PATH");

      if (path != NULL)
        {
          g_auto(GStrv) parts = g_strsplit (path, G_SEARCHPATH_SEPARATOR_S, -1);

          for (guint i = 0; parts[i] != NULL; i++)
            if (parts[i][0] != '\0')
              g_ptr_array_add (dirs, g_canonicalize_filename (parts[i], NULL));
        }

      if (g_getenv ("REG_BACKEND_SYSTEM_DIR") != NULL)
        system_dir = g_getenv ("REG_BACKEND_SYSTEM_DIR");
    }

  if (system_dir[0] != '\0')
    g_ptr_array_add (dirs, g_canonicalize_filename (system_dir, NULL));

  return (char **) g_ptr_array_free (dirs, FALSE);
}

void
_reg_discovery_init (RegRegistry *self)
{
  self->skipped = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) _reg_manifest_skip_free);
  self->scanned_dirs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->added_dirs = g_ptr_array_new_with_free_func (g_free);
  self->env_dirs = search_dirs_from_environment ();
}

void
_reg_discovery_clear (RegRegistry *self)
{
  g_hash_table_unref (self->skipped);
  g_hash_table_unref (self->scanned_dirs);
  g_ptr_array_unref (self->added_dirs);
  g_strfreev (self->env_dirs);
}

static GPtrArray *
dup_search_dirs_locked (RegRegistry *self)
{
  GPtrArray *dirs = g_ptr_array_new_null_terminated (0, g_free, TRUE);

  for (guint i = 0; i < self->added_dirs->len; i++)
    g_ptr_array_add (dirs, g_strdup (g_ptr_array_index (self->added_dirs, i)));
  for (guint i = 0; self->env_dirs[i] != NULL; i++)
    g_ptr_array_add (dirs, g_strdup (self->env_dirs[i]));

  return dirs;
}

static guint
dir_rank (GPtrArray  *dirs,
          const char *dir)
{
  guint index;

  if (g_ptr_array_find_with_equal_func (dirs, dir, g_str_equal, &index))
    return index;

  return G_MAXUINT;
}

/* Adds the declarations of @manifest.  A name already declared from a
 * directory later in the search path is taken over, as a full scan in
 * search path order would have given it to this one; a name registered or
 * loaded keeps its backend.  The names added go to @declared, borrowed
 * from @manifest. */
static void
merge_manifest_locked (RegRegistry *self,
                       RegManifest *manifest,
                       GPtrArray   *search_dirs,
                       GPtrArray   *declared)
{
  guint rank = dir_rank (search_dirs, manifest->dir);

  for (guint i = 0; i < manifest->n_backends; i++)
    {
      const char *name = manifest->backends[i].name;
      RegEntry *existing = g_hash_table_lookup (self->backends, name);
      RegEntry *entry;

      if (existing != NULL &&
          (existing->compiler != NULL || existing->origin == REG_BACKEND_ORIGIN_RUNTIME ||
           dir_rank (search_dirs, existing->manifest->dir) <= rank))
        {
          g_autofree char *shown = _reg_escape (manifest->file);

          _reg_entry_hide (existing, manifest);
          g_debug ("backend '%s' of %s ignored: declared already", name, shown);
          continue;
        }

      entry = _reg_entry_new_declared (manifest, i);
      if (existing != NULL)
        _reg_entry_take_over (entry, existing);
      g_hash_table_replace (self->backends, (gpointer) entry->name, entry);
      g_ptr_array_add (declared, (gpointer) entry->name);
    }
}

/* What discovery read: the search path at the time, each directory once,
 * the directories to mark as read and the manifests of those it read. */
typedef struct
{
  GPtrArray *search_dirs;
  GPtrArray *scanned;     /* the directories read, and those of the search
                           * path that are an earlier one under another name
                           * (or the same): never read, they count as read
                           * as they hold nothing the first place did not */
  GPtrArray *manifests;   /* RegManifest, of every read directory in order */
  GPtrArray *skipped;     /* RegManifestSkip of every read directory */
} Scan;

static void
scan_clear (Scan *scan)
{
  g_clear_pointer (&scan->search_dirs, g_ptr_array_unref);
  g_clear_pointer (&scan->scanned, g_ptr_array_unref);
  g_clear_pointer (&scan->manifests, g_ptr_array_unref);
  g_clear_pointer (&scan->skipped, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Scan, scan_clear)

/* Reads the manifests of the search directories not read yet, or of all of
 * them.  A directory that comes several times in the search path, under
 * one name or several, is read once, where it first comes: its later
 * places are dropped from the search path of this scan (they could only
 * declare what it declares).  File I/O without the registry lock: lookups
 * go on meanwhile.  Caller holds load_lock, so the set of read directories
 * cannot change under it. */
static void
scan_read (RegRegistry *self,
           gboolean     all,
           Scan        *scan)
{
  g_autoptr(GPtrArray) all_dirs = NULL;
  g_autoptr(GHashTable) unread = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char **dirs = NULL;
  gsize n_dirs;

  scan->search_dirs = g_ptr_array_new_with_free_func (g_free);
  scan->scanned = g_ptr_array_new_with_free_func (g_free);
  scan->manifests = g_ptr_array_new_with_free_func ((GDestroyNotify) _reg_manifest_unref);
  scan->skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) _reg_manifest_skip_free);

  g_rw_lock_reader_lock (&self->lock);
  all_dirs = dup_search_dirs_locked (self);
  for (guint i = 0; i < all_dirs->len; i++)
    {
      const char *dir = g_ptr_array_index (all_dirs, i);

      if (all || !g_hash_table_contains (self->scanned_dirs, dir))
        g_hash_table_add (unread, (gpointer) dir);
    }
  g_rw_lock_reader_unlock (&self->lock);

  /* Nothing new: no need to look at the directories at all. */
  if (g_hash_table_size (unread) == 0)
    {
      g_ptr_array_extend_and_steal (scan->search_dirs, g_steal_pointer (&all_dirs));
      return;
    }

  dirs = (char **) g_ptr_array_steal (all_dirs, &n_dirs);
  for (gsize i = 0; i < n_dirs; i++)
    {
      char *dir = dirs[i];
      char *identity = _reg_file_identity (dir);

      /* A directory is its device and inode, whatever path leads to it (a
       * symbolic link, a bind mount, "a/../b"); the path itself when it
       * cannot be stat'ed (it has nothing to read anyway). */
      if (identity == NULL)
        identity = g_strconcat ("path:", dir, NULL);
      if (!g_hash_table_add (seen, identity))
        {
          g_autofree char *shown = _reg_escape (dir);

          g_debug ("backend directory %s not scanned: it comes earlier in the search path", shown);
          g_ptr_array_add (scan->scanned, dir);
          continue;
        }

      g_ptr_array_add (scan->search_dirs, dir);
      if (g_hash_table_contains (unread, dir))
        {
          g_ptr_array_add (scan->scanned, g_strdup (dir));
          _reg_manifest_scan_dir (dir, scan->manifests, scan->skipped);
        }
    }
}

/* Adds what @scan read; the names newly declared go to @declared (borrowed
 * from @scan's manifests), for the caller to announce once every lock is
 * released. */
static void
scan_merge_locked (RegRegistry *self,
                   const Scan  *scan,
                   GPtrArray   *declared)
{
  for (guint i = 0; i < scan->manifests->len; i++)
    merge_manifest_locked (self, g_ptr_array_index (scan->manifests, i), scan->search_dirs, declared);
  for (guint i = 0; i < scan->scanned->len; i++)
    g_hash_table_add (self->scanned_dirs, g_strdup (g_ptr_array_index (scan->scanned, i)));

  /* Taken over: the scan is done with them. */
  for (guint i = 0; i < scan->skipped->len; i++)
    {
      RegManifestSkip *skip = g_ptr_array_index (scan->skipped, i);

      g_hash_table_replace (self->skipped, skip->path, skip);
    }
  g_ptr_array_set_free_func (scan->skipped, NULL);
  g_ptr_array_set_size (scan->skipped, 0);
}

void
_reg_discovery_ensure (RegRegistry *self)
{
  g_autoptr(GPtrArray) declared = g_ptr_array_new ();
  g_autoptr(GPtrArray) garbage = _reg_registry_garbage_new ();
  g_auto(Scan) scan = { NULL, };

  g_rec_mutex_lock (&self->load_lock);
  scan_read (self, FALSE, &scan);
  if (scan.scanned->len > 0)
    {
      g_rw_lock_writer_lock (&self->lock);
      scan_merge_locked (self, &scan, declared);
      _reg_registry_invalidate_locked (self, garbage);
      g_rw_lock_writer_unlock (&self->lock);
    }
  g_rec_mutex_unlock (&self->load_lock);

  _reg_registry_emit_names (self, _reg_registry_signals[REG_REGISTRY_BACKEND_DECLARED], declared);
}

void
_reg_discovery_ensure_name (RegRegistry *self,
                            const char  *name)
{
  gboolean known;

  g_rw_lock_reader_lock (&self->lock);
  known = g_hash_table_contains (self->backends, name);
  g_rw_lock_reader_unlock (&self->lock);

  if (!known)
    _reg_discovery_ensure (self);
}

/* The skipped manifest that seems to declare @name, if any: the first in
 * search order. */
const RegManifestSkip *
_reg_discovery_find_skipped_locked (RegRegistry *self,
                                    const char  *name)
{
  const RegManifestSkip *found = NULL;
  g_autoptr(GPtrArray) dirs = NULL;
  guint found_rank = G_MAXUINT;
  GHashTableIter iter;
  gpointer value;

  if (g_hash_table_size (self->skipped) == 0)
    return NULL;

  dirs = dup_search_dirs_locked (self);
  g_hash_table_iter_init (&iter, self->skipped);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const RegManifestSkip *skip = value;
      g_autofree char *dir = NULL;
      guint rank;

      if (!g_strv_contains ((const char * const *) skip->names, name))
        continue;

      dir = g_path_get_dirname (skip->path);
      rank = dir_rank (dirs, dir);
      if (found == NULL || rank < found_rank ||
          (rank == found_rank && strcmp (skip->path, found->path) < 0))
        {
          found = skip;
          found_rank = rank;
        }
    }

  return found;
}

/**
 * reg_registry_add_search_path:
 * @self: a [class@Reg.Registry]
 * @dir: (type filename): a directory of `.backend` manifests
 *
 * Puts @dir first in the search path (a directory added again moves to
 * the front).  A relative @dir is taken from the current directory now.
 * If discovery has run, the next call that discovers reads @dir.  This
 * function is thread-safe.
 */
void
reg_registry_add_search_path (RegRegistry *self,
                              const char  *dir)
{
  g_autofree char *canonical = NULL;
  guint index;

  g_return_if_fail (REG_IS_REGISTRY (self));
  g_return_if_fail (dir != NULL);

  canonical = g_canonicalize_filename (dir, NULL);

  g_rw_lock_writer_lock (&self->lock);
  if (g_ptr_array_find_with_equal_func (self->added_dirs, canonical, g_str_equal, &index))
    g_ptr_array_remove_index (self->added_dirs, index);
  g_ptr_array_insert (self->added_dirs, 0, g_steal_pointer (&canonical));
  g_rw_lock_writer_unlock (&self->lock);
}

/**
 * reg_registry_get_search_paths:
 * @self: a [class@Reg.Registry]
 *
 * Gets the directories discovery reads, in order: those added with
 * [method@Reg.Registry.add_search_path] (newest first), those of
 * `REG_BACKEND_PATH` (colon-separated), then the installed backend
 * directory, or `REG_BACKEND_SYSTEM_DIR` instead when it is set (empty:
 * none).  The environment is read when the registry is made, and ignored
 * in setuid and setgid programs.  This function is thread-safe.
 *
 * Returns: (transfer full) (array zero-terminated=1) (element-type filename):
 *   the directories
 */
char **
reg_registry_get_search_paths (RegRegistry *self)
{
  GPtrArray *dirs;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);

  g_rw_lock_reader_lock (&self->lock);
  dirs = dup_search_dirs_locked (self);
  g_rw_lock_reader_unlock (&self->lock);

  return (char **) g_ptr_array_free (dirs, FALSE);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static gboolean
declaration_changed (const RegEntry *old,
                     const RegEntry *new)
{
  g_autofree char *old_source = _reg_manifest_dup_source_path (old->manifest);
  g_autofree char *new_source = _reg_manifest_dup_source_path (new->manifest);

  return !g_strv_equal (old->tags, new->tags) ||
         g_strcmp0 (old->declaration->description, new->declaration->description) != 0 ||
         old->manifest->loader != new->manifest->loader ||
         g_strcmp0 (old_source, new_source) != 0 ||
         !_reg_backend_details_equal (old->declaration->details, new->declaration->details);
}

/**
 * reg_registry_dup_skipped_manifests:
 * @self: a [class@Reg.Registry]
 *
 * Gets the manifests of the search path that discovery could not use
 * (unreadable, not a key file, an unsupported `AbiVersion=`, a bad
 * `Module=`...), each with what was wrong and what to do about it: the
 * same text as the warning discovery gave.  Runs discovery first.  This
 * function is thread-safe.
 *
 * Returns: (transfer full) (element-type filename utf8): the manifest paths
 *   mapped to their reasons, possibly none
 */
GHashTable *
reg_registry_dup_skipped_manifests (RegRegistry *self)
{
  GHashTable *skipped = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  GHashTableIter iter;
  gpointer value;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);

  _reg_discovery_ensure (self);

  g_rw_lock_reader_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->skipped);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const RegManifestSkip *skip = value;
      g_autofree char *why = _reg_message_embed (skip->reason);

      g_hash_table_insert (skipped, g_strdup (skip->path), g_strdup_printf ("%s. %s", why, skip->hint));
    }
  g_rw_lock_reader_unlock (&self->lock);

  return skipped;
}

/**
 * reg_registry_rescan:
 * @self: a [class@Reg.Registry]
 *
 * Forgets which directories were read and what they declared, then
 * discovers again.  Registered backends, loaded module backends included,
 * stay.  Emits [signal@Reg.Registry::backend-unregistered] for declarations
 * that are gone and [signal@Reg.Registry::backend-declared] for new ones
 * and for those whose manifest now says something else of them (tags,
 * description, module, options, version, authors, website or license).
 * This function is thread-safe.
 */
void
reg_registry_rescan (RegRegistry *self)
{
  g_autoptr(GHashTable) before = NULL;  /* name -> RegEntry, the declared ones */
  g_autoptr(GPtrArray) declared = g_ptr_array_new ();
  g_autoptr(GPtrArray) gone = g_ptr_array_new ();
  g_autoptr(GPtrArray) new_names = g_ptr_array_new ();
  g_autoptr(GPtrArray) garbage = _reg_registry_garbage_new ();
  g_auto(Scan) scan = { NULL, };
  GHashTableIter iter;
  gpointer key, value;

  g_return_if_fail (REG_IS_REGISTRY (self));

  before = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) _reg_entry_free);

  g_rec_mutex_lock (&self->load_lock);
  scan_read (self, TRUE, &scan);

  /* The old declarations give way to the new ones in one step, so that no
   * reader sees a name missing that is declared before and after. */
  g_rw_lock_writer_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->backends);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      RegEntry *entry = value;

      if (entry->compiler == NULL)
        {
          g_hash_table_iter_steal (&iter);
          g_hash_table_insert (before, key, entry);
        }
      else
        g_clear_pointer (&entry->hidden, g_ptr_array_unref);
    }
  g_hash_table_remove_all (self->scanned_dirs);
  g_hash_table_remove_all (self->skipped);
  scan_merge_locked (self, &scan, declared);

  /* A name declared again is announced again when what its manifest says
   * of it changed, so that a list of the backends can show it. */
  for (guint i = 0; i < declared->len; i++)
    {
      const char *name = g_ptr_array_index (declared, i);
      const RegEntry *old = g_hash_table_lookup (before, name);

      if (old == NULL || declaration_changed (old, g_hash_table_lookup (self->backends, name)))
        g_ptr_array_add (new_names, (gpointer) name);
    }
  g_hash_table_iter_init (&iter, before);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (self->backends, key))
      g_ptr_array_add (gone, key);
  _reg_registry_invalidate_locked (self, garbage);
  g_rw_lock_writer_unlock (&self->lock);

  g_rec_mutex_unlock (&self->load_lock);

  _reg_compile_cache_clear (self->cache);

  g_ptr_array_sort (gone, compare_strings);
  _reg_registry_emit_names (self, _reg_registry_signals[REG_REGISTRY_BACKEND_UNREGISTERED], gone);
  _reg_registry_emit_names (self, _reg_registry_signals[REG_REGISTRY_BACKEND_DECLARED], new_names);
}
