/* reg-registry.c: the registry of compiler backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-config.h"

#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include "reg-backend-info-private.h"
#include "reg-close-matches.h"
#include "reg-enums.h"
#include "reg-file-private.h"
#include "reg-hazard-private.h"
#include "reg-manifest-private.h"
#include "reg-message-private.h"
#include "reg-module-private.h"
#include "reg-name-private.h"
#include "reg-registry.h"
#include "reg-snapshot-private.h"

/**
 * RegRegistry:
 *
 * The registry of compiler backends: names mapped to [iface@Reg.Compiler]
 * objects, registered by the application at run time or declared by module
 * manifests and loaded on first lookup.
 *
 * Most programs use the process-wide registry of
 * [func@Reg.Registry.get_default]; tests and embedders may make private
 * ones with [ctor@Reg.Registry.new], which follow the same rules.
 *
 * ## Discovery
 *
 * Module backends are *declared* by `.backend` manifests in the search path
 * (see [method@Reg.Registry.get_search_paths]).  Discovery reads manifests
 * and never opens a module; it runs on the first call that needs the full
 * set of names ([method@Reg.Registry.list_backends],
 * [method@Reg.Registry.suggest], or a lookup of an unknown name), again for
 * directories added to the search path later, and on
 * [method@Reg.Registry.rescan].  The first declaration of a name in search
 * path order wins.
 *
 * ## Threads and signals
 *
 * Every method may be called from any thread.  Signals are emitted in the
 * thread that made the change, after the registry has released its locks,
 * so handlers may call back into the registry.  Module code (a module's
 * `reg_module_load` and the construction of its compilers) runs under the
 * locks that serialise loading (the process's, then the registry's, always
 * in that order), never under the lock that guards the registry's
 * contents: a module may look backends up in any registry while it loads.
 */

/* One allocation (backend_new()): the struct, then its tags array, then
 * the strings.  10,000 declared backends are 10,000 blocks, not 50,000. */
typedef struct
{
  char             *name;
  char            **tags;
  char             *description;  /* manifests only; nullable */
  const char       *module_path;  /* NULL for runtime backends; in `paths` */
  const char       *dir;          /* the search directory that declared it; in `paths` */
  RegCompiler      *compiler;     /* NULL while only declared */
  RegBackendOrigin  origin;
} Backend;

struct _RegRegistry
{
  GObject      parent_instance;

  /* Guards every field below.  Never held while emitting, notifying or
   * running a compiler's or a module's code. */
  GRWLock      lock;
  GHashTable  *backends;        /* name -> Backend */
  GHashTable  *paths;           /* the directories and module paths of
                                 * backends, each once (they are shared by
                                 * every backend of a manifest) */
  GHashTable  *shadowed;        /* "MODULE_PATH/NAME" of names a module's
                                 * manifest declares but another backend
                                 * has (NAME holds no '/') */
  GHashTable  *loaded_modules;  /* the RegModules this registry took
                                 * backends from: one per module file,
                                 * whatever the paths to it */
  GHashTable  *rejected;        /* name -> why a module's offer of it was refused */
  GHashTable  *scanned_dirs;    /* search directories discovery has read */
  GPtrArray   *added_dirs;      /* reg_registry_add_search_path(), newest first */
  char       **env_dirs;        /* REG_BACKEND_PATH, then the system directory */
  char        *default_name;    /* NULL while default_compiler is set */
  RegCompiler *default_compiler;
  GPtrArray   *sorted;          /* every Backend in byte order of names, or
                                 * NULL until list_backends() needs it again */
  GPtrArray   *retired;         /* snapshots unpublished but maybe still read */

  /* The loaded backends, read by lookups without any lock (hazard
   * pointers, see reg-hazard-private.h).  Written under `lock`: cleared
   * when the backends change, made again by the next lookup that misses
   * it.  Atomic. */
  RegSnapshot *snapshot;

  /* Serialises discovery and module loading, so that a module is loaded
   * once however many threads look its backends up.  Taken after the
   * module lock when loading (see the lock order in reg-module.c), before
   * `lock`, never while holding it. */
  GRecMutex    load_lock;
};

enum {
  PROP_0,
  PROP_DEFAULT_BACKEND,
  N_PROPS
};

enum {
  BACKEND_REGISTERED,
  BACKEND_DECLARED,
  BACKEND_UNREGISTERED,
  MODULE_LOADED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (RegRegistry, reg_registry, G_TYPE_OBJECT)

/**
 * reg_registry_error_quark:
 *
 * The error domain of the registry; see %REG_REGISTRY_ERROR.
 *
 * Returns: the quark
 */
G_DEFINE_QUARK (reg-registry-error-quark, reg_registry_error)

/* A backend named @name with copies of @tags (already normalized) and
 * @description, in one block; the rest of its fields are zero. */
static Backend *
backend_new (const char         *name,
             const char * const *tags,
             const char         *description)
{
  gsize n_tags = g_strv_length ((char **) tags);
  gsize name_size = strlen (name) + 1;
  gsize description_size = description != NULL ? strlen (description) + 1 : 0;
  gsize size = sizeof (Backend) + (n_tags + 1) * sizeof (char *) + name_size + description_size;
  Backend *backend;
  char *next;

  for (gsize i = 0; i < n_tags; i++)
    size += strlen (tags[i]) + 1;

  backend = g_malloc0 (size);
  backend->tags = (char **) (backend + 1);
  next = (char *) (backend->tags + n_tags + 1);

  backend->name = memcpy (next, name, name_size);
  next += name_size;
  for (gsize i = 0; i < n_tags; i++)
    {
      gsize tag_size = strlen (tags[i]) + 1;

      backend->tags[i] = memcpy (next, tags[i], tag_size);
      next += tag_size;
    }
  backend->tags[n_tags] = NULL;
  if (description != NULL)
    backend->description = memcpy (next, description, description_size);

  return backend;
}

static void
backend_free (Backend *backend)
{
  g_clear_object (&backend->compiler);
  g_free (backend);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Backend, backend_free)

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static gboolean
backend_has_any_tag (const Backend      *backend,
                     const char * const *tags)
{
  for (guint i = 0; tags[i] != NULL; i++)
    if (g_strv_contains ((const char * const *) backend->tags, tags[i]))
      return TRUE;

  return FALSE;
}

/* Call with the writer lock held whenever backends are added, removed or
 * loaded: drops the derived views of the table.  Snapshots no reader
 * protects any more go to @garbage, to be freed once the lock is released
 * (they hold compiler references, and a compiler's finalizer is someone
 * else's code). */
static void
invalidate_locked (RegRegistry *self,
                   GPtrArray   *garbage)
{
  RegSnapshot *old = g_atomic_pointer_exchange (&self->snapshot, NULL);

  if (old != NULL)
    g_ptr_array_add (self->retired, old);
  g_clear_pointer (&self->sorted, g_ptr_array_unref);

  for (guint i = self->retired->len; i > 0; i--)
    if (!_reg_hazard_is_protected (g_ptr_array_index (self->retired, i - 1)))
      g_ptr_array_add (garbage, g_ptr_array_steal_index_fast (self->retired, i - 1));
}

static GPtrArray *
garbage_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) _reg_snapshot_free);
}

/* Publishes a snapshot of the loaded backends if none is published. */
static void
publish_snapshot (RegRegistry *self)
{
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GPtrArray) compilers = NULL;
  GHashTableIter iter;
  gpointer value;

  g_rw_lock_writer_lock (&self->lock);
  if (g_atomic_pointer_get (&self->snapshot) == NULL)
    {
      names = g_ptr_array_new ();
      compilers = g_ptr_array_new ();
      g_hash_table_iter_init (&iter, self->backends);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          const Backend *backend = value;

          if (backend->compiler != NULL)
            {
              g_ptr_array_add (names, backend->name);
              g_ptr_array_add (compilers, backend->compiler);
            }
        }
      g_atomic_pointer_set (&self->snapshot,
                            _reg_snapshot_new ((const char * const *) names->pdata,
                                               (RegCompiler * const *) compilers->pdata,
                                               names->len));
    }
  g_rw_lock_writer_unlock (&self->lock);
}

/* Emits a detailed name signal.  The detail is only looked up, never
 * interned: nobody can have connected to a detail whose quark does not
 * exist, and interning every name ever registered would grow the quark
 * table without bound. */
static void
emit_name_signal (RegRegistry *self,
                  guint        signal_id,
                  const char  *name)
{
  g_signal_emit (self, signal_id, g_quark_try_string (name), name);
}

static void
emit_name_signals (RegRegistry *self,
                   guint        signal_id,
                   GPtrArray   *names)
{
  for (guint i = 0; i < names->len; i++)
    emit_name_signal (self, signal_id, g_ptr_array_index (names, i));
}

/* REG_BACKEND_PATH and REG_BACKEND_SYSTEM_DIR name directories of code to
 * run: a setuid or setgid program must not take them from its caller (as
 * GIO ignores GIO_EXTRA_MODULES). */
static gboolean
environment_is_trusted (void)
{
  return getauxval (AT_SECURE) == 0;
}

static char **
search_dirs_from_environment (void)
{
  GPtrArray *dirs = g_ptr_array_new ();
  const char *system_dir = REG_BACKEND_DIR;

  if (environment_is_trusted ())
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

  g_ptr_array_add (dirs, NULL);
  return (char **) g_ptr_array_free (dirs, FALSE);
}

static GPtrArray *
dup_search_dirs_locked (RegRegistry *self)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);

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

/* The pooled copy of @path (a directory or a module path), shared by
 * every backend that names it. */
static const char *
intern_path_locked (RegRegistry *self,
                    const char  *path)
{
  char *pooled = g_hash_table_lookup (self->paths, path);

  if (pooled == NULL)
    {
      pooled = g_strdup (path);
      g_hash_table_add (self->paths, pooled);
    }

  return pooled;
}

/* Remembers that a manifest of @module_path declares @name although the
 * name went to another backend (a runtime registration, an earlier search
 * directory) or was unregistered: when the module is loaded, its offer of
 * @name is then dropped silently, not warned about as undeclared. */
static void
shadow_locked (RegRegistry *self,
               const char  *module_path,
               const char  *name)
{
  g_hash_table_add (self->shadowed, g_strconcat (module_path, "/", name, NULL));
}

/* Whether a manifest of @module_path declares @name. */
static gboolean
declares_locked (RegRegistry *self,
                 const char  *module_path,
                 const char  *name)
{
  const Backend *backend = g_hash_table_lookup (self->backends, name);
  g_autofree char *key = NULL;

  if (backend != NULL && g_strcmp0 (backend->module_path, module_path) == 0)
    return TRUE;

  key = g_strconcat (module_path, "/", name, NULL);
  return g_hash_table_contains (self->shadowed, key);
}

/* The other paths through which a manifest declares @name, for a module
 * that offers @name without a manifest of @module_path declaring it: the
 * module file of the backend @name and those of the manifests whose
 * declaration of @name is shadowed.  One of them may be another path to
 * the same file (a symbolic or hard link, a bind mount), which the caller
 * finds out by looking at the files, outside the lock. */
static GPtrArray *
other_declaring_paths_locked (RegRegistry *self,
                              const char  *module_path,
                              const char  *name)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  const Backend *backend = g_hash_table_lookup (self->backends, name);
  gsize name_len = strlen (name);
  GHashTableIter iter;
  gpointer key;

  if (backend != NULL && backend->module_path != NULL &&
      !g_str_equal (backend->module_path, module_path))
    g_ptr_array_add (paths, g_strdup (backend->module_path));

  g_hash_table_iter_init (&iter, self->shadowed);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const char *entry = key;
      gsize len = strlen (entry);

      /* "PATH/NAME": names hold no '/'. */
      if (len > name_len + 1 && entry[len - name_len - 1] == '/' &&
          strcmp (entry + len - name_len, name) == 0)
        g_ptr_array_add (paths, g_strndup (entry, len - name_len - 1));
    }

  return paths;
}

/* Adds the declarations of one manifest.  A name already declared from a
 * directory later in the search path is taken over, as a full scan in
 * search path order would have given it to this one; a name registered or
 * loaded is left alone.  The names added go to @declared, borrowed from
 * @manifest. */
static void
merge_manifest_locked (RegRegistry       *self,
                       const RegManifest *manifest,
                       const char        *dir,
                       GPtrArray         *search_dirs,
                       GPtrArray         *declared)
{
  const char *module_path = intern_path_locked (self, manifest->module_path);

  dir = intern_path_locked (self, dir);

  for (guint i = 0; i < manifest->n_backends; i++)
    {
      const RegManifestBackend *mb = &manifest->backends[i];
      Backend *existing = g_hash_table_lookup (self->backends, mb->name);
      Backend *backend;

      if (existing != NULL &&
          (existing->compiler != NULL || existing->origin == REG_BACKEND_ORIGIN_RUNTIME ||
           dir_rank (search_dirs, existing->dir) <= dir_rank (search_dirs, dir)))
        {
          if (existing->module_path != module_path)
            shadow_locked (self, module_path, mb->name);
          g_autofree char *shown = _reg_escape (manifest->path);

          g_debug ("backend '%s' of %s ignored: declared already", mb->name, shown);
          continue;
        }

      if (existing != NULL && existing->module_path != module_path)
        shadow_locked (self, existing->module_path, existing->name);

      backend = backend_new (mb->name, (const char * const *) mb->tags, mb->description);
      backend->module_path = module_path;
      backend->dir = dir;
      backend->origin = REG_BACKEND_ORIGIN_MODULE;
      g_hash_table_replace (self->backends, backend->name, backend);

      g_ptr_array_add (declared, mb->name);
    }
}

/* What discovery read: the search path at the time, each directory once,
 * the directories read and, for each of them, its manifests. */
typedef struct
{
  GPtrArray *search_dirs;
  GPtrArray *read_dirs;   /* borrowed from search_dirs */
  GPtrArray *repeats;     /* directories of the search path that are an
                           * earlier one under another name (or the same):
                           * never read */
  GPtrArray *manifests;   /* a GPtrArray of RegManifest per read directory */
} Scan;

static void
scan_clear (Scan *scan)
{
  g_clear_pointer (&scan->search_dirs, g_ptr_array_unref);
  g_clear_pointer (&scan->read_dirs, g_ptr_array_unref);
  g_clear_pointer (&scan->repeats, g_ptr_array_unref);
  g_clear_pointer (&scan->manifests, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Scan, scan_clear)

/* What identifies a directory: its device and inode, whatever path leads
 * to it (a symbolic link, a bind mount, "a/../b"); the path itself when it
 * cannot be stat'ed (it has nothing to read anyway). */
static char *
dir_identity (const char *dir)
{
  char *identity = _reg_file_identity (dir);

  return identity != NULL ? identity : g_strconcat ("path:", dir, NULL);
}

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
  scan->read_dirs = g_ptr_array_new ();
  scan->repeats = g_ptr_array_new_with_free_func (g_free);
  scan->manifests = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);

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

      if (!g_hash_table_add (seen, dir_identity (dir)))
        {
          g_autofree char *shown = _reg_escape (dir);

          g_debug ("backend directory %s not scanned: it comes earlier in the search path", shown);
          g_ptr_array_add (scan->repeats, dir);
          continue;
        }

      g_ptr_array_add (scan->search_dirs, dir);
      if (g_hash_table_contains (unread, dir))
        g_ptr_array_add (scan->read_dirs, dir);
    }

  for (guint i = 0; i < scan->read_dirs->len; i++)
    g_ptr_array_add (scan->manifests, _reg_manifest_scan_dir (g_ptr_array_index (scan->read_dirs, i)));
}

/* Adds what @scan read; the names newly declared go to @declared (borrowed
 * from @scan's manifests), for the caller to announce once every lock is
 * released. */
static void
scan_merge_locked (RegRegistry *self,
                   const Scan  *scan,
                   GPtrArray   *declared)
{
  for (guint i = 0; i < scan->read_dirs->len; i++)
    {
      const char *dir = g_ptr_array_index (scan->read_dirs, i);
      GPtrArray *dir_manifests = g_ptr_array_index (scan->manifests, i);

      for (guint j = 0; j < dir_manifests->len; j++)
        merge_manifest_locked (self, g_ptr_array_index (dir_manifests, j),
                               dir, scan->search_dirs, declared);
      g_hash_table_add (self->scanned_dirs, g_strdup (dir));
    }

  /* Repeats count as read: they hold nothing the first place did not. */
  for (guint i = 0; i < scan->repeats->len; i++)
    g_hash_table_add (self->scanned_dirs, g_strdup (g_ptr_array_index (scan->repeats, i)));
}

static void
ensure_discovered (RegRegistry *self)
{
  g_autoptr(GPtrArray) declared = g_ptr_array_new ();
  g_autoptr(GPtrArray) garbage = garbage_new ();
  g_auto(Scan) scan = { NULL, };

  g_rec_mutex_lock (&self->load_lock);
  scan_read (self, FALSE, &scan);
  if (scan.read_dirs->len > 0 || scan.repeats->len > 0)
    {
      g_rw_lock_writer_lock (&self->lock);
      scan_merge_locked (self, &scan, declared);
      invalidate_locked (self, garbage);
      g_rw_lock_writer_unlock (&self->lock);
    }
  g_rec_mutex_unlock (&self->load_lock);

  emit_name_signals (self, signals[BACKEND_DECLARED], declared);
}

static GPtrArray *
dup_all_names_locked (RegRegistry *self)
{
  GPtrArray *names = g_ptr_array_new_full (g_hash_table_size (self->backends), g_free);
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, self->backends);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (names, g_strdup (key));

  return names;
}

static char **
suggest_locked (RegRegistry *self,
                const char  *name)
{
  g_autoptr(GPtrArray) names = dup_all_names_locked (self);

  g_ptr_array_add (names, NULL);
  return reg_close_matches (name, (const char * const *) names->pdata, 3, 0.6);
}

static void
set_invalid_backend_error_locked (RegRegistry  *self,
                                  const char   *name,
                                  GError      **error)
{
  g_auto(GStrv) suggestions = suggest_locked (self, name);
  g_autoptr(GString) quoted = g_string_new (NULL);
  g_autofree char *shown = NULL;

  /* A name that could be a backend's is shown as it is (API.md §4); any
   * other (a line break, a megabyte) is escaped and cut, so that the
   * message stays one readable line. */
  if (_reg_name_validate (name, "backend name", NULL))
    shown = g_strdup (name);
  else
    shown = _reg_text_for_message (name, -1, 255);
  name = shown;

  if (suggestions[0] == NULL)
    {
      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND,
                   "Invalid backend: '%s'. See `regctl list` for available backends.",
                   name);
      return;
    }

  for (guint i = 0; suggestions[i] != NULL; i++)
    g_string_append_printf (quoted, "%s'%s'", i > 0 ? ", " : "", suggestions[i]);

  g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND,
               "Invalid backend: '%s', did you mean: %s? See `regctl list` for available backends.",
               name, quoted->str);
}

/* The error of looking up a name that is not a backend: LOAD_FAILED for a
 * name a loaded module offered without declaring it (API.md §5), the
 * unknown-backend message otherwise. */
static void
set_unknown_error_locked (RegRegistry  *self,
                          const char   *name,
                          GError      **error)
{
  const char *rejected = g_hash_table_lookup (self->rejected, name);

  if (rejected != NULL)
    g_set_error_literal (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED, rejected);
  else
    set_invalid_backend_error_locked (self, name, error);
}

/* Finds @name under the reader lock, discovering first when it is unknown,
 * and calls @func on it with the lock held.  Unknown names fail with the
 * API.md §4 message. */
typedef gpointer (*BackendFunc) (const Backend *backend, gpointer user_data);

static gpointer
with_backend (RegRegistry  *self,
              const char   *name,
              BackendFunc   func,
              gpointer      user_data,
              GError      **error)
{
  gpointer result = NULL;
  Backend *backend;

  for (guint attempt = 0; attempt < 2; attempt++)
    {
      g_rw_lock_reader_lock (&self->lock);
      backend = g_hash_table_lookup (self->backends, name);
      if (backend != NULL)
        result = func (backend, user_data);
      else if (attempt == 1)
        set_invalid_backend_error_locked (self, name, error);
      g_rw_lock_reader_unlock (&self->lock);

      if (backend != NULL || attempt == 1)
        break;

      ensure_discovered (self);
    }

  return result;
}

static gpointer
backend_dup_tags (const Backend *backend,
                  gpointer       user_data)
{
  return g_strdupv (backend->tags);
}

static gpointer
backend_dup_info (const Backend *backend,
                  gpointer       user_data)
{
  return _reg_backend_info_new (backend->name,
                                (const char * const *) backend->tags,
                                backend->description,
                                backend->module_path,
                                backend->compiler != NULL,
                                backend->origin);
}

typedef struct
{
  char        *name;
  char        *module_path;  /* the path through which a manifest declares it */
  RegCompiler *compiler;
  gboolean     wanted;       /* still declared there and not loaded */
} Offer;

static void
offer_clear (gpointer data)
{
  Offer *offer = data;

  g_free (offer->name);
  g_free (offer->module_path);
  g_clear_object (&offer->compiler);
}

/* Loads the module that declares @name, registers every backend it
 * provides that this registry still has declared from it, and returns the
 * compiler of @name.  Module code runs here, under load_lock only. */
static RegCompiler *
load_backend (RegRegistry  *self,
              const char   *name,
              GError      **error)
{
  g_autoptr(GArray) offers = g_array_new (FALSE, TRUE, sizeof (Offer));
  g_autoptr(GPtrArray) registered = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) wanted = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) garbage = garbage_new ();
  g_autoptr(GPtrArray) rejected = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) undeclared = g_ptr_array_new ();
  g_autoptr(GPtrArray) other_paths = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GError) local_error = NULL;
  g_autofree char *module_path = NULL;
  g_autofree char *module_identity = NULL;
  g_autofree char *shown_path = NULL;
  const RegModuleOffer *module_offers;
  RegCompiler *result = NULL;
  RegModule *module;
  gboolean first_load = FALSE;
  guint n_module_offers;
  Backend *backend;

  g_array_set_clear_func (offers, offer_clear);

  /* The module lock first, then ours: the lock order of reg-module.c. */
  _reg_module_lock ();
  g_rec_mutex_lock (&self->load_lock);

  /* Another thread may have loaded it, or unregistered it, meanwhile. */
  g_rw_lock_reader_lock (&self->lock);
  backend = g_hash_table_lookup (self->backends, name);
  if (backend == NULL)
    set_unknown_error_locked (self, name, error);
  else if (backend->compiler != NULL)
    result = g_object_ref (backend->compiler);
  else
    {
      GHashTableIter iter;
      gpointer value;

      module_path = g_strdup (backend->module_path);
      g_hash_table_iter_init (&iter, self->backends);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          const Backend *other = value;

          if (other->compiler == NULL && g_strcmp0 (other->module_path, module_path) == 0)
            g_ptr_array_add (wanted, g_strdup (other->name));
        }
    }
  g_rw_lock_reader_unlock (&self->lock);

  if (module_path == NULL)
    goto out;

  /* One RegModule per file, whichever path leads to it. */
  module = _reg_module_ensure (module_path, &local_error);
  if (module == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  "backend '%s': ", name);
      goto out;
    }

  shown_path = _reg_escape (module_path);
  g_rw_lock_reader_lock (&self->lock);
  module_offers = _reg_module_get_offers (module, &n_module_offers);
  for (guint i = 0; i < n_module_offers; i++)
    {
      const char *offered = module_offers[i].name;
      Offer offer = { NULL, NULL, NULL };

      if (!declares_locked (self, module_path, offered))
        {
          /* Maybe declared through another path to this file. */
          g_ptr_array_add (undeclared, (gpointer) offered);
          g_ptr_array_add (other_paths, other_declaring_paths_locked (self, module_path, offered));
          continue;
        }
      if (!g_ptr_array_find_with_equal_func (wanted, offered, g_str_equal, NULL))
        continue;

      offer.name = g_strdup (offered);
      offer.module_path = g_strdup (module_path);
      g_array_append_val (offers, offer);
    }
  g_rw_lock_reader_unlock (&self->lock);

  /* An offer no manifest of this path declares is the module's own,
   * declared through another path to the same file (a manifest in another
   * search directory with a symbolic or hard link to it, a bind mount), or
   * it is undeclared.  Looking at the files is I/O: outside the lock. */
  if (undeclared->len > 0)
    module_identity = _reg_file_identity (module_path);
  for (guint i = 0; i < undeclared->len; i++)
    {
      const char *offered = g_ptr_array_index (undeclared, i);
      GPtrArray *paths = g_ptr_array_index (other_paths, i);
      const char *same_file = NULL;

      for (guint j = 0; j < paths->len && same_file == NULL && module_identity != NULL; j++)
        {
          g_autofree char *identity = _reg_file_identity (g_ptr_array_index (paths, j));

          if (g_strcmp0 (identity, module_identity) == 0)
            same_file = g_ptr_array_index (paths, j);
        }

      if (same_file != NULL)
        {
          Offer offer = { g_strdup (offered), g_strdup (same_file), NULL };

          /* Registered below if still declared there and not loaded. */
          g_array_append_val (offers, offer);
        }
      else
        {
          g_autofree char *shown_name = _reg_escape (offered);

          g_warning ("module %s offers backend '%s', which no manifest of it declares; ignored",
                     shown_path, shown_name);
          g_ptr_array_add (rejected, g_strdup (offered));
        }
    }

  /* Construction runs module code: outside the registry lock.  Only for
   * the offers that may be registered (wanted, or declared through
   * another path and not loaded yet). */
  g_rw_lock_reader_lock (&self->lock);
  for (guint i = 0; i < offers->len; i++)
    {
      Offer *offer = &g_array_index (offers, Offer, i);
      const Backend *target = g_hash_table_lookup (self->backends, offer->name);

      offer->wanted = target != NULL && target->compiler == NULL &&
                      target->origin == REG_BACKEND_ORIGIN_MODULE &&
                      g_strcmp0 (target->module_path, offer->module_path) == 0;
    }
  g_rw_lock_reader_unlock (&self->lock);

  for (guint i = 0; i < offers->len; i++)
    {
      Offer *offer = &g_array_index (offers, Offer, i);

      if (!offer->wanted)
        continue;
      for (guint j = 0; j < n_module_offers; j++)
        if (g_str_equal (module_offers[j].name, offer->name))
          offer->compiler = g_object_new (module_offers[j].type, NULL);
    }

  g_rw_lock_writer_lock (&self->lock);
  for (guint i = 0; i < rejected->len; i++)
    {
      g_autofree char *shown_name = _reg_escape (g_ptr_array_index (rejected, i));

      g_hash_table_replace (self->rejected, g_strdup (g_ptr_array_index (rejected, i)),
                            g_strdup_printf ("backend '%s': module %s offers it, but no manifest of it declares it",
                                             shown_name, shown_path));
    }
  if (!g_hash_table_contains (self->loaded_modules, module))
    {
      g_hash_table_add (self->loaded_modules, module);
      first_load = TRUE;
    }
  for (guint i = 0; i < offers->len; i++)
    {
      Offer *offer = &g_array_index (offers, Offer, i);
      Backend *target = g_hash_table_lookup (self->backends, offer->name);

      /* A runtime registration over the declared name wins: the module's
       * offer for it is dropped silently (API.md §9). */
      if (offer->compiler != NULL && target != NULL && target->compiler == NULL &&
          target->origin == REG_BACKEND_ORIGIN_MODULE &&
          g_strcmp0 (target->module_path, offer->module_path) == 0)
        {
          target->compiler = g_steal_pointer (&offer->compiler);
          g_ptr_array_add (registered, g_strdup (offer->name));
        }
    }

  backend = g_hash_table_lookup (self->backends, name);
  if (backend == NULL)
    set_unknown_error_locked (self, name, error);
  else if (backend->compiler != NULL)
    result = g_object_ref (backend->compiler);
  else
    g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                 "backend '%s': module %s does not provide it, though its manifest declares it",
                 name, shown_path);
  invalidate_locked (self, garbage);
  g_rw_lock_writer_unlock (&self->lock);

  g_rec_mutex_unlock (&self->load_lock);
  _reg_module_unlock ();

  if (first_load)
    g_signal_emit (self, signals[MODULE_LOADED], 0, module);
  emit_name_signals (self, signals[BACKEND_REGISTERED], registered);

  return result;

out:
  g_rec_mutex_unlock (&self->load_lock);
  _reg_module_unlock ();
  return result;
}

static void
reg_registry_finalize (GObject *object)
{
  RegRegistry *self = REG_REGISTRY (object);

  g_hash_table_unref (self->backends);
  g_hash_table_unref (self->shadowed);
  g_hash_table_unref (self->paths);
  g_hash_table_unref (self->loaded_modules);
  g_hash_table_unref (self->rejected);
  g_hash_table_unref (self->scanned_dirs);
  g_ptr_array_unref (self->added_dirs);
  g_strfreev (self->env_dirs);
  g_free (self->default_name);
  g_clear_object (&self->default_compiler);
  g_clear_pointer (&self->sorted, g_ptr_array_unref);
  g_ptr_array_unref (self->retired);
  _reg_snapshot_free (self->snapshot);
  g_rw_lock_clear (&self->lock);
  g_rec_mutex_clear (&self->load_lock);

  G_OBJECT_CLASS (reg_registry_parent_class)->finalize (object);
}

static void
reg_registry_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  RegRegistry *self = REG_REGISTRY (object);

  switch (prop_id)
    {
    case PROP_DEFAULT_BACKEND:
      g_value_take_string (value, reg_registry_dup_default_backend (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reg_registry_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  RegRegistry *self = REG_REGISTRY (object);

  switch (prop_id)
    {
    case PROP_DEFAULT_BACKEND:
      reg_registry_set_default_backend (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reg_registry_class_init (RegRegistryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = reg_registry_finalize;
  object_class->get_property = reg_registry_get_property;
  object_class->set_property = reg_registry_set_property;

  /**
   * RegRegistry:default-backend:
   *
   * The name of the default backend, or %NULL while a compiler object is
   * the default (see [method@Reg.Registry.set_default_compiler]).  Setting
   * %NULL resets it to %REG_DEFAULT_BACKEND.  Notified whenever its value
   * changes, in the thread that changed it.
   */
  properties[PROP_DEFAULT_BACKEND] =
    g_param_spec_string ("default-backend", NULL, NULL,
                         REG_DEFAULT_BACKEND,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * RegRegistry::backend-registered:
   * @self: the registry
   * @name: the backend's name
   *
   * A compiler was added under @name: registered at run time, or made
   * when its module was loaded.  The detail is the name, so
   * `backend-registered::inductor` reports that backend only.
   */
  signals[BACKEND_REGISTERED] =
    g_signal_new ("backend-registered",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * RegRegistry::backend-declared:
   * @self: the registry
   * @name: the backend's name
   *
   * Discovery found a manifest declaring @name; nothing was loaded.
   * Detailed with the name.
   */
  signals[BACKEND_DECLARED] =
    g_signal_new ("backend-declared",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * RegRegistry::backend-unregistered:
   * @self: the registry
   * @name: the backend's name
   *
   * The backend @name was removed (by
   * [method@Reg.Registry.unregister_backend], or because a
   * [method@Reg.Registry.rescan] no longer finds its declaration).
   * Detailed with the name.
   */
  signals[BACKEND_UNREGISTERED] =
    g_signal_new ("backend-unregistered",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * RegRegistry::module-loaded:
   * @self: the registry
   * @module: the module
   *
   * The registry took the backends of @module for the first time: the
   * module file was opened and initialised (or had been, for another
   * registry of the process).  Emitted before the `backend-registered`
   * signals of its backends.
   */
  signals[MODULE_LOADED] =
    g_signal_new ("module-loaded",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, REG_TYPE_MODULE);
}

static void
reg_registry_init (RegRegistry *self)
{
  g_rw_lock_init (&self->lock);
  g_rec_mutex_init (&self->load_lock);
  self->backends = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                          (GDestroyNotify) backend_free);
  self->paths = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->shadowed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->loaded_modules = g_hash_table_new (NULL, NULL);
  self->rejected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->scanned_dirs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->added_dirs = g_ptr_array_new_with_free_func (g_free);
  self->env_dirs = search_dirs_from_environment ();
  self->default_name = g_strdup (REG_DEFAULT_BACKEND);
  self->retired = garbage_new ();
}

/**
 * reg_registry_get_default:
 *
 * Gets the process-wide registry, creating it on the first call.  Its
 * search path is taken from the environment then.  This function is
 * thread-safe.
 *
 * Returns: (transfer none): the default registry
 */
RegRegistry *
reg_registry_get_default (void)
{
  static RegRegistry *default_registry;

  if (g_once_init_enter (&default_registry))
    g_once_init_leave (&default_registry, reg_registry_new ());

  return default_registry;
}

/**
 * reg_registry_new:
 *
 * Makes a private, empty registry, with the same rules as the default one
 * (including the search path taken from the environment now).  For tests
 * and programs that embed several independent sets of backends.
 *
 * Returns: (transfer full): a new registry
 */
RegRegistry *
reg_registry_new (void)
{
  return g_object_new (REG_TYPE_REGISTRY, NULL);
}

/**
 * reg_registry_register_backend:
 * @self: a [class@Reg.Registry]
 * @name: (nullable): the backend's name, or %NULL for
 *   [method@Reg.Compiler.get_name] of @compiler
 * @compiler: the compiler
 * @tags: (array zero-terminated=1) (nullable): tags such as %REG_TAG_DEBUG,
 *   or %NULL for none; order is kept, repeats are dropped
 * @error: return location for a #GError
 *
 * Registers @compiler as the backend @name.
 *
 * A name that is already registered fails with
 * %REG_REGISTRY_ERROR_DUPLICATE_NAME and changes nothing; a name that a
 * module only declares (its module not loaded) is taken over by this
 * registration.  A name or tag that breaks the naming rules fails with
 * %REG_REGISTRY_ERROR_INVALID_NAME.  Emits
 * [signal@Reg.Registry::backend-registered] on success.
 *
 * This function is thread-safe.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 */
gboolean
reg_registry_register_backend (RegRegistry        *self,
                               const char         *name,
                               RegCompiler        *compiler,
                               const char * const *tags,
                               GError            **error)
{
  g_autoptr(GPtrArray) garbage = garbage_new ();
  g_autoptr(Backend) backend = NULL;
  g_autoptr(Backend) replaced = NULL;
  g_auto(GStrv) normalized = NULL;
  Backend *existing;

  g_return_val_if_fail (REG_IS_REGISTRY (self), FALSE);
  g_return_val_if_fail (REG_IS_COMPILER (compiler), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (name == NULL)
    name = reg_compiler_get_name (compiler);

  if (!_reg_name_validate (name, "backend name", error))
    return FALSE;

  normalized = _reg_tags_normalize (tags, error);
  if (normalized == NULL)
    return FALSE;
  backend = backend_new (name, (const char * const *) normalized, NULL);
  backend->compiler = g_object_ref (compiler);
  backend->origin = REG_BACKEND_ORIGIN_RUNTIME;

  g_rw_lock_writer_lock (&self->lock);
  existing = g_hash_table_lookup (self->backends, name);
  if (existing != NULL && (existing->compiler != NULL ||
                           existing->origin == REG_BACKEND_ORIGIN_RUNTIME))
    {
      g_rw_lock_writer_unlock (&self->lock);
      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_DUPLICATE_NAME,
                   "duplicate name: %s", name);
      return FALSE;
    }
  if (existing != NULL)
    {
      g_hash_table_steal_extended (self->backends, name, NULL, (gpointer *) &replaced);
      shadow_locked (self, replaced->module_path, name);
    }
  g_hash_table_insert (self->backends, backend->name, backend);
  backend = NULL;
  invalidate_locked (self, garbage);
  g_rw_lock_writer_unlock (&self->lock);

  emit_name_signal (self, signals[BACKEND_REGISTERED], name);

  return TRUE;
}

/**
 * reg_registry_register_debug_backend:
 * @self: a [class@Reg.Registry]
 * @name: (nullable): the backend's name, or %NULL for the compiler's own
 * @compiler: the compiler
 * @error: return location for a #GError
 *
 * Registers @compiler with the tag %REG_TAG_DEBUG, which
 * [method@Reg.Registry.list_backends] hides by default.  See
 * [method@Reg.Registry.register_backend].
 *
 * Returns: %TRUE on success, %FALSE with @error set
 */
gboolean
reg_registry_register_debug_backend (RegRegistry  *self,
                                     const char   *name,
                                     RegCompiler  *compiler,
                                     GError      **error)
{
  const char * const tags[] = { REG_TAG_DEBUG, NULL };

  return reg_registry_register_backend (self, name, compiler, tags, error);
}

/**
 * reg_registry_register_experimental_backend:
 * @self: a [class@Reg.Registry]
 * @name: (nullable): the backend's name, or %NULL for the compiler's own
 * @compiler: the compiler
 * @error: return location for a #GError
 *
 * Registers @compiler with the tag %REG_TAG_EXPERIMENTAL, which
 * [method@Reg.Registry.list_backends] hides by default.  See
 * [method@Reg.Registry.register_backend].
 *
 * Returns: %TRUE on success, %FALSE with @error set
 */
gboolean
reg_registry_register_experimental_backend (RegRegistry  *self,
                                            const char   *name,
                                            RegCompiler  *compiler,
                                            GError      **error)
{
  const char * const tags[] = { REG_TAG_EXPERIMENTAL, NULL };

  return reg_registry_register_backend (self, name, compiler, tags, error);
}

/**
 * reg_registry_unregister_backend:
 * @self: a [class@Reg.Registry]
 * @name: a backend name
 * @error: return location for a #GError
 *
 * Removes the backend @name, registered or only declared.  An unknown name
 * fails with %REG_REGISTRY_ERROR_INVALID_BACKEND.  Compilers already handed
 * out stay valid.  Emits [signal@Reg.Registry::backend-unregistered].
 *
 * A declared backend comes back on the next [method@Reg.Registry.rescan].
 * This function is thread-safe.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 */
gboolean
reg_registry_unregister_backend (RegRegistry  *self,
                                 const char   *name,
                                 GError      **error)
{
  g_autoptr(GPtrArray) garbage = garbage_new ();
  g_autoptr(Backend) removed = NULL;

  g_return_val_if_fail (REG_IS_REGISTRY (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  for (guint attempt = 0; attempt < 2 && removed == NULL; attempt++)
    {
      if (attempt == 1)
        ensure_discovered (self);

      g_rw_lock_writer_lock (&self->lock);
      g_hash_table_steal_extended (self->backends, name, NULL, (gpointer *) &removed);
      if (removed != NULL && removed->module_path != NULL)
        shadow_locked (self, removed->module_path, name);
      if (removed != NULL)
        invalidate_locked (self, garbage);
      else if (attempt == 1)
        set_invalid_backend_error_locked (self, name, error);
      g_rw_lock_writer_unlock (&self->lock);
    }

  if (removed == NULL)
    return FALSE;

  /* The compiler is unreffed after the signal, outside the lock: its
   * finalizer is someone else's code. */
  emit_name_signal (self, signals[BACKEND_UNREGISTERED], name);

  return TRUE;
}

/**
 * reg_registry_lookup_backend:
 * @self: a [class@Reg.Registry]
 * @name: a backend name
 * @error: return location for a #GError
 *
 * Finds the [iface@Reg.Compiler] registered as @name, loading its module
 * the first time (once, even when several threads ask at the same moment).
 *
 * An unknown name (after discovery, which runs first if it has not yet)
 * fails with %REG_REGISTRY_ERROR_INVALID_BACKEND and a message suggesting
 * close names.  A module that cannot provide the backend gives
 * %REG_REGISTRY_ERROR_LOAD_FAILED; the backend stays declared and a later
 * lookup tries again.
 *
 * This function is thread-safe.
 *
 * Returns: (transfer full): the compiler, or %NULL with @error set
 */
RegCompiler *
reg_registry_lookup_backend (RegRegistry  *self,
                             const char   *name,
                             GError      **error)
{
  RegCompiler *compiler = NULL;
  RegSnapshot *snapshot;
  Backend *backend;
  gboolean known;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* The hot path: a loaded backend costs a probe of the snapshot and a
   * reference, and writes no memory other threads read. */
  snapshot = _reg_hazard_protect ((gpointer *) &self->snapshot);
  if (snapshot != NULL && (compiler = _reg_snapshot_lookup (snapshot, name)) != NULL)
    g_object_ref (compiler);
  _reg_hazard_release ();

  if (compiler != NULL)
    return compiler;

  g_rw_lock_reader_lock (&self->lock);
  backend = g_hash_table_lookup (self->backends, name);
  known = backend != NULL;
  if (known && backend->compiler != NULL)
    compiler = g_object_ref (backend->compiler);
  g_rw_lock_reader_unlock (&self->lock);

  if (compiler != NULL)
    {
      /* Loaded but missing from the snapshot: the snapshot is stale. */
      publish_snapshot (self);
      return compiler;
    }

  if (!known)
    ensure_discovered (self);

  return load_backend (self, name, error);
}

static int
compare_backend_names (gconstpointer a,
                       gconstpointer b)
{
  const Backend *backend_a = *(const Backend * const *) a;
  const Backend *backend_b = *(const Backend * const *) b;

  return strcmp (backend_a->name, backend_b->name);
}

static char **
dup_sorted_names_locked (RegRegistry        *self,
                         const char * const *exclude_tags)
{
  GPtrArray *names = g_ptr_array_new_full (self->sorted->len + 1, g_free);

  for (guint i = 0; i < self->sorted->len; i++)
    {
      const Backend *backend = g_ptr_array_index (self->sorted, i);

      if (!backend_has_any_tag (backend, exclude_tags))
        g_ptr_array_add (names, g_strdup (backend->name));
    }
  g_ptr_array_add (names, NULL);

  return (char **) g_ptr_array_free (names, FALSE);
}

/**
 * reg_registry_list_backends:
 * @self: a [class@Reg.Registry]
 * @exclude_tags: (array zero-terminated=1) (nullable): leave out backends
 *   carrying any of these tags; %NULL means `{ "debug", "experimental" }`,
 *   an empty array leaves out nothing
 *
 * Lists the names of registered and declared backends, sorted in byte
 * order.  Runs discovery first (reading manifests, opening no module).
 * This function is thread-safe.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names
 */
char **
reg_registry_list_backends (RegRegistry        *self,
                            const char * const *exclude_tags)
{
  static const char * const default_exclude[] = { REG_TAG_DEBUG, REG_TAG_EXPERIMENTAL, NULL };
  char **names;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);

  if (exclude_tags == NULL)
    exclude_tags = default_exclude;

  ensure_discovered (self);

  /* The sort is done once per change of the set of names. */
  g_rw_lock_reader_lock (&self->lock);
  if (self->sorted != NULL)
    {
      names = dup_sorted_names_locked (self, exclude_tags);
      g_rw_lock_reader_unlock (&self->lock);
      return names;
    }
  g_rw_lock_reader_unlock (&self->lock);

  g_rw_lock_writer_lock (&self->lock);
  if (self->sorted == NULL)
    {
      GHashTableIter iter;
      gpointer value;

      self->sorted = g_ptr_array_sized_new (g_hash_table_size (self->backends));
      g_hash_table_iter_init (&iter, self->backends);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        g_ptr_array_add (self->sorted, value);
      g_ptr_array_sort (self->sorted, compare_backend_names);
    }
  names = dup_sorted_names_locked (self, exclude_tags);
  g_rw_lock_writer_unlock (&self->lock);

  return names;
}

/**
 * reg_registry_get_backend_tags:
 * @self: a [class@Reg.Registry]
 * @name: a backend name
 * @error: return location for a #GError
 *
 * Gets the tags of a backend; for a backend whose module is not loaded,
 * the tags its manifest declares.  An unknown name fails with
 * %REG_REGISTRY_ERROR_INVALID_BACKEND.  This function is thread-safe.
 *
 * Returns: (transfer full) (array zero-terminated=1): the tags, or %NULL
 *   with @error set
 */
char **
reg_registry_get_backend_tags (RegRegistry  *self,
                               const char   *name,
                               GError      **error)
{
  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return with_backend (self, name, backend_dup_tags, NULL, error);
}

/**
 * reg_registry_get_backend_info:
 * @self: a [class@Reg.Registry]
 * @name: a backend name
 *
 * Takes a snapshot of what the registry knows of the backend @name,
 * without loading anything.  This function is thread-safe.
 *
 * Returns: (transfer full) (nullable): the information, or %NULL for an
 *   unknown name
 */
RegBackendInfo *
reg_registry_get_backend_info (RegRegistry *self,
                               const char  *name)
{
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return with_backend (self, name, backend_dup_info, NULL, &error);
}

/**
 * reg_registry_is_registered:
 * @self: a [class@Reg.Registry]
 * @compiler: a compiler
 *
 * Tells whether this very @compiler object is registered under some name
 * (loaded module backends included).  This function is thread-safe.
 *
 * Returns: %TRUE if it is
 */
gboolean
reg_registry_is_registered (RegRegistry *self,
                            RegCompiler *compiler)
{
  gboolean found = FALSE;
  GHashTableIter iter;
  gpointer value;

  g_return_val_if_fail (REG_IS_REGISTRY (self), FALSE);
  g_return_val_if_fail (REG_IS_COMPILER (compiler), FALSE);

  g_rw_lock_reader_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->backends);
  while (!found && g_hash_table_iter_next (&iter, NULL, &value))
    found = ((const Backend *) value)->compiler == compiler;
  g_rw_lock_reader_unlock (&self->lock);

  return found;
}

/* Sets the default to @name or, when @name is NULL, to @compiler; both
 * NULL resets to REG_DEFAULT_BACKEND.  Notifies when what
 * reg_registry_dup_default_backend() returns changes. */
static void
set_default (RegRegistry *self,
             const char  *name,
             RegCompiler *compiler)
{
  g_autoptr(RegCompiler) old_compiler = NULL;
  g_autofree char *old_name = NULL;
  gboolean changed;

  if (name == NULL && compiler == NULL)
    name = REG_DEFAULT_BACKEND;

  g_rw_lock_writer_lock (&self->lock);
  old_name = g_steal_pointer (&self->default_name);
  old_compiler = g_steal_pointer (&self->default_compiler);
  self->default_name = g_strdup (name);
  self->default_compiler = name == NULL ? g_object_ref (compiler) : NULL;
  changed = g_strcmp0 (old_name, self->default_name) != 0;
  g_rw_lock_writer_unlock (&self->lock);

  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DEFAULT_BACKEND]);
}

/**
 * reg_registry_set_default_backend:
 * @self: a [class@Reg.Registry]
 * @name: (nullable): a backend name, or %NULL for %REG_DEFAULT_BACKEND
 *
 * Makes the backend @name the default, which [method@Reg.Registry.compile]
 * uses when it is given no backend.  The name is resolved when the default
 * is used, so it may name a backend not registered yet.  Replaces a
 * default compiler object.  Notifies [property@Reg.Registry:default-backend]
 * when the name changes.  This function is thread-safe.
 */
void
reg_registry_set_default_backend (RegRegistry *self,
                                  const char  *name)
{
  g_return_if_fail (REG_IS_REGISTRY (self));

  set_default (self, name, NULL);
}

/**
 * reg_registry_dup_default_backend:
 * @self: a [class@Reg.Registry]
 *
 * Gets the name of the default backend.  This function is thread-safe.
 *
 * Returns: (transfer full) (nullable): the name, or %NULL while a compiler
 *   object is the default
 */
char *
reg_registry_dup_default_backend (RegRegistry *self)
{
  char *name;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);

  g_rw_lock_reader_lock (&self->lock);
  name = g_strdup (self->default_name);
  g_rw_lock_reader_unlock (&self->lock);

  return name;
}

/**
 * reg_registry_set_default_compiler:
 * @self: a [class@Reg.Registry]
 * @compiler: (nullable): a compiler, registered or not, or %NULL to reset
 *   the default to %REG_DEFAULT_BACKEND
 *
 * Makes @compiler object itself the default.  While it is,
 * [method@Reg.Registry.dup_default_backend] returns %NULL.  This function
 * is thread-safe.
 */
void
reg_registry_set_default_compiler (RegRegistry *self,
                                   RegCompiler *compiler)
{
  g_return_if_fail (REG_IS_REGISTRY (self));
  g_return_if_fail (compiler == NULL || REG_IS_COMPILER (compiler));

  set_default (self, NULL, compiler);
}

/**
 * reg_registry_dup_default_compiler:
 * @self: a [class@Reg.Registry]
 * @error: return location for a #GError
 *
 * Resolves the default to a compiler: the default compiler object, or the
 * lookup of the default backend's name (which may load its module, or fail
 * as [method@Reg.Registry.lookup_backend] does).  This function is
 * thread-safe.
 *
 * Returns: (transfer full): the compiler, or %NULL with @error set
 */
RegCompiler *
reg_registry_dup_default_compiler (RegRegistry  *self,
                                   GError      **error)
{
  g_autofree char *name = NULL;
  RegCompiler *compiler = NULL;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  g_rw_lock_reader_lock (&self->lock);
  if (self->default_compiler != NULL)
    compiler = g_object_ref (self->default_compiler);
  else
    name = g_strdup (self->default_name);
  g_rw_lock_reader_unlock (&self->lock);

  if (compiler != NULL)
    return compiler;

  return reg_registry_lookup_backend (self, name, error);
}

/**
 * reg_registry_compile:
 * @self: a [class@Reg.Registry]
 * @backend: (nullable): a backend name, or %NULL for the default
 * @graph: the graph to compile
 * @example_inputs: (element-type Reg.Tensor): tensors shaped like the
 *   inputs of the calls to come
 * @options: (nullable): backend settings, an `a{sv}` dictionary
 * @error: return location for a #GError
 *
 * Looks the backend up (see [method@Reg.Registry.lookup_backend] and
 * [method@Reg.Registry.dup_default_compiler]) and compiles @graph with it
 * (see [method@Reg.Compiler.compile]).  This function is thread-safe.
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
  g_autoptr(RegCompiler) compiler = NULL;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (REG_IS_GRAPH (graph), NULL);
  g_return_val_if_fail (example_inputs != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (backend != NULL)
    compiler = reg_registry_lookup_backend (self, backend, error);
  else
    compiler = reg_registry_dup_default_compiler (self, error);

  if (compiler == NULL)
    return NULL;

  return reg_compiler_compile (compiler, graph, example_inputs, options, error);
}

/**
 * reg_registry_suggest:
 * @self: a [class@Reg.Registry]
 * @name: a backend name, typically a mistyped one
 *
 * Finds up to three backend names close to @name, best first, among all
 * names (debug and experimental included), as
 * [func@Reg.close_matches] with cutoff 0.6 finds them.  Runs discovery
 * first.  This function is thread-safe.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names, possibly
 *   none
 */
char **
reg_registry_suggest (RegRegistry *self,
                      const char  *name)
{
  char **suggestions;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  ensure_discovered (self);

  g_rw_lock_reader_lock (&self->lock);
  suggestions = suggest_locked (self, name);
  g_rw_lock_reader_unlock (&self->lock);

  return suggestions;
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

  g_ptr_array_add (dirs, NULL);
  return (char **) g_ptr_array_free (dirs, FALSE);
}

/**
 * reg_registry_rescan:
 * @self: a [class@Reg.Registry]
 *
 * Forgets which directories were read and what they declared, then
 * discovers again.  Registered backends, loaded module backends included,
 * stay.  Emits [signal@Reg.Registry::backend-unregistered] for declarations
 * that are gone and [signal@Reg.Registry::backend-declared] for new ones.
 * This function is thread-safe.
 */
void
reg_registry_rescan (RegRegistry *self)
{
  g_autoptr(GHashTable) before = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) declared = g_ptr_array_new ();
  g_autoptr(GPtrArray) gone = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) new_names = g_ptr_array_new ();
  g_autoptr(GPtrArray) dropped = g_ptr_array_new_with_free_func ((GDestroyNotify) backend_free);
  g_autoptr(GPtrArray) garbage = garbage_new ();
  g_auto(Scan) scan = { NULL, };
  GHashTableIter iter;
  gpointer value;

  g_return_if_fail (REG_IS_REGISTRY (self));

  g_rec_mutex_lock (&self->load_lock);
  scan_read (self, TRUE, &scan);

  /* The old declarations give way to the new ones in one step, so that no
   * reader sees a name missing that is declared before and after. */
  g_rw_lock_writer_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->backends);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Backend *backend = value;

      if (backend->compiler == NULL)
        {
          g_hash_table_iter_steal (&iter);
          g_hash_table_add (before, backend->name);
          g_ptr_array_add (dropped, backend);
        }
    }
  g_hash_table_remove_all (self->scanned_dirs);
  g_hash_table_remove_all (self->shadowed);
  scan_merge_locked (self, &scan, declared);

  for (guint i = 0; i < declared->len; i++)
    if (!g_hash_table_remove (before, g_ptr_array_index (declared, i)))
      g_ptr_array_add (new_names, g_ptr_array_index (declared, i));
  g_hash_table_iter_init (&iter, before);
  while (g_hash_table_iter_next (&iter, &value, NULL))
    if (!g_hash_table_contains (self->backends, value))
      g_ptr_array_add (gone, g_strdup (value));
  invalidate_locked (self, garbage);
  g_rw_lock_writer_unlock (&self->lock);

  g_rec_mutex_unlock (&self->load_lock);

  g_ptr_array_sort (gone, compare_strings);
  emit_name_signals (self, signals[BACKEND_UNREGISTERED], gone);
  emit_name_signals (self, signals[BACKEND_DECLARED], new_names);
}
