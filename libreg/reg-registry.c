/* reg-registry.c: the registry of compiler backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-config.h"

#include <string.h>
#include <sys/stat.h>

#include "reg-backend-info-private.h"
#include "reg-binding-private.h"
#include "reg-close-matches.h"
#include "reg-compile-cache-private.h"
#include "reg-compiler-private.h"
#include "reg-enums.h"
#include "reg-environment-private.h"
#include "reg-file-private.h"
#include "reg-hazard-private.h"
#include "reg-manifest-private.h"
#include "reg-message-private.h"
#include "reg-module-private.h"
#include "reg-name-private.h"
#include "reg-registry-private.h"
#include "reg-snapshot-private.h"
#include "reg-verify-private.h"

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
 * path order wins.  [Discovery and the search path](discovery.html) gives
 * the rules, [Backend names and tags](names.html) those of names, and
 * [Environment variables](environment.html) the variables read when a
 * registry is made.
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
 *
 * ## Compiling
 *
 * [method@Reg.Registry.compile] and [method@Reg.Registry.compile_async]
 * compile on the backend asked for, or on the default backend
 * ([property@Reg.Registry:default-backend], which `REG_DEFAULT_BACKEND`
 * sets for every registry made while it is in the environment; the
 * application's own setting wins).
 *
 * When that backend cannot compile the graph (its module fails to load, it
 * fails with %REG_COMPILER_ERROR_UNSUPPORTED_OP or
 * %REG_COMPILER_ERROR_FAILED), the registry tries the backends of
 * [property@Reg.Registry:fallback-backends] in order (empty unless the
 * application or `REG_FALLBACK_BACKENDS=a:b` sets it), with their default
 * options.  Errors that are the caller's (bad inputs or options, a graph
 * error, an unknown or invalid backend name) never fall back.  Every
 * fallback is emitted as [signal@Reg.Registry::fallback] and logged with
 * g_message(); [method@Reg.CompiledFn.get_backend] tells which backend
 * compiled a function.  When the whole chain fails, the error is the first
 * backend's, with the reasons of the others added to its message.
 *
 * Compiled functions of backends that may share them are kept in a
 * compile cache: those whose compiler says %REG_COMPILER_FLAGS_SHAREABLE
 * ([method@Reg.Compiler.get_flags]) or whose module's manifest says
 * `Shareable=true` ([method@Reg.BackendInfo.get_compiler_flags] tells
 * both), as inductor's and eager's do.  Compiling an equal graph (the same
 * canonical text form), for example inputs of the same shapes, with equal
 * options, on the same backend object returns the same function instead
 * of compiling again, whether the graph is the same object or not.
 * Concurrent compiles of one key compile once.  The cache keeps
 * [property@Reg.Registry:compile-cache-size] functions (0 disables it;
 * `REG_COMPILE_CACHE_SIZE` sets it from the environment) and at most
 * 256 MiB of estimated memory (the bytes of every node's value in the
 * compiled graphs), evicting the least recently used; a compile whose
 * graph and options alone would pass that is not cached.  It drops a
 * backend's functions when the backend is unregistered, everything on a
 * rescan, and the default backend's compiles when the default changes.
 * [method@Reg.Registry.get_compile_cache_counters] counts its hits, misses
 * and evictions.
 *
 * The environment variables are ignored in setuid and setgid programs, as
 * `REG_BACKEND_PATH` is.
 *
 * ## Checking modules
 *
 * Before it opens a module file, the registry looks for verdicts recorded
 * against it by `regctl verify` or [method@Reg.Registry.verify_backend]:
 * a module whose check crashed or timed out is quarantined, never opened,
 * until the file changes ([property@Reg.Registry:module-checks]).  With
 * %REG_MODULE_CHECKS_VERIFY (or `REG_VERIFY_MODULES=1` in the environment,
 * outside setuid and setgid programs), it first checks the module's
 * backends out of process, so that a module that crashes fails its lookup
 * instead of killing the application.  See the "Verifying backends" page.
 */

/* One allocation (backend_new()): the struct, then its tags array, then
 * the strings.  10,000 declared backends are 10,000 blocks, not 50,000. */
typedef struct
{
  char             *name;
  char            **tags;
  char             *description;  /* manifests only; nullable */
  const char       *module_path;  /* NULL for runtime backends; in `paths` */
  const char       *manifest_path; /* the manifest that declared it; in `paths` */
  const char       *dir;          /* the search directory that declared it; in `paths` */
  RegCompiler      *compiler;     /* NULL while only declared */
  RegBackendOrigin  origin;
  RegBackendDetails *details;     /* manifests only; nullable (most declare none) */
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
  GHashTable  *shadows;         /* name -> GPtrArray of the manifests
                                 * (in `paths`) declaring it that the
                                 * backend of that name hides */
  GHashTable  *loaded_modules;  /* the RegModules this registry took
                                 * backends from: one per module file,
                                 * whatever the paths to it */
  GHashTable  *rejected;        /* name -> why a module's offer of it was refused */
  GHashTable  *skipped;         /* manifest path -> RegManifestSkip, of the
                                 * manifests discovery could not use */
  GHashTable  *scanned_dirs;    /* search directories discovery has read */
  GPtrArray   *added_dirs;      /* reg_registry_add_search_path(), newest first */
  char       **env_dirs;        /* REG_BACKEND_PATH, then the system directory */
  char        *default_name;    /* NULL while default_compiler is set */
  RegCompiler *default_compiler;
  RegSettingSource default_source;
  char       **fallbacks;       /* fallback-backends, never NULL */
  GPtrArray   *sorted;          /* every Backend in byte order of names, or
                                 * NULL until list_backends() needs it again */
  GPtrArray   *retired;         /* snapshots unpublished but maybe still read */

  /* The loaded backends, read by lookups without any lock (hazard
   * pointers, see reg-hazard-private.h).  Written under `lock`: cleared
   * when the backends change, made again by the next lookup that misses
   * it.  Atomic. */
  RegSnapshot *snapshot;

  /* Its own lock (a leaf): see reg-compile-cache.c. */
  RegCompileCache *cache;

  /* Serialises discovery and module loading, so that a module is loaded
   * once however many threads look its backends up.  Taken after the
   * module lock when loading (see the lock order in reg-module.c), before
   * `lock`, never while holding it.  The checks before a first load (the
   * quarantine, a check in a child process) run under it too. */
  GRecMutex    load_lock;

  /* RegModuleChecks; atomic, read by loads without any lock. */
  gint         module_checks;
};

enum {
  PROP_0,
  PROP_DEFAULT_BACKEND,
  PROP_MODULE_CHECKS,
  PROP_FALLBACK_BACKENDS,
  PROP_COMPILE_CACHE_SIZE,
  N_PROPS
};

enum {
  BACKEND_REGISTERED,
  BACKEND_DECLARED,
  BACKEND_UNREGISTERED,
  MODULE_LOADED,
  FALLBACK,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (RegRegistry, reg_registry, G_TYPE_OBJECT)

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
  g_clear_pointer (&backend->details, _reg_backend_details_unref);
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

/* Removes the empty strings of @strv, in place. */
static void
drop_empty_strings (char **strv)
{
  guint j = 0;

  for (guint i = 0; strv[i] != NULL; i++)
    {
      if (strv[i][0] == '\0')
        g_free (strv[i]);
      else
        strv[j++] = strv[i];
    }
  strv[j] = NULL;
}

static char **
search_dirs_from_environment (void)
{
  GPtrArray *dirs = g_ptr_array_new ();
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

  g_ptr_array_add (dirs, NULL);
  return (char **) g_ptr_array_free (dirs, FALSE);
}

/* REG_DEFAULT_BACKEND, REG_FALLBACK_BACKENDS, REG_COMPILE_CACHE_SIZE and
 * REG_VERIFY_MODULES, or the built-in settings; see the class
 * description. */
static void
settings_from_environment (RegRegistry *self)
{
  const char *default_name = NULL;
  const char *fallbacks = NULL;
  const char *cache_size = NULL;
  const char *verify = NULL;
  guint64 size = REG_COMPILE_CACHE_DEFAULT_SIZE;

  if (_reg_environment_is_trusted ())
    {
      default_name = g_getenv ("REG_DEFAULT_BACKEND");
      fallbacks = g_getenv ("REG_FALLBACK_BACKENDS");
      cache_size = g_getenv ("REG_COMPILE_CACHE_SIZE");
      verify = g_getenv ("REG_VERIFY_MODULES");
    }

  self->module_checks = REG_MODULE_CHECKS_QUARANTINE;
  if (g_strcmp0 (verify, "1") == 0)
    self->module_checks |= REG_MODULE_CHECKS_VERIFY;

  if (default_name != NULL && default_name[0] != '\0')
    {
      self->default_name = g_strdup (default_name);
      self->default_source = REG_SETTING_SOURCE_ENVIRONMENT;
    }
  else
    {
      self->default_name = g_strdup (REG_DEFAULT_BACKEND);
      self->default_source = REG_SETTING_SOURCE_BUILT_IN;
    }

  self->fallbacks = fallbacks != NULL
    ? g_strsplit (fallbacks, G_SEARCHPATH_SEPARATOR_S, -1)
    : g_new0 (char *, 1);
  drop_empty_strings (self->fallbacks);

  if (cache_size != NULL &&
      !g_ascii_string_to_unsigned (cache_size, 10, 0, G_MAXUINT, &size, NULL))
    {
      g_autofree char *shown = _reg_text_for_message (cache_size, -1, 40);

      g_warning ("REG_COMPILE_CACHE_SIZE=%s is not a number of entries; using %u",
                 shown, REG_COMPILE_CACHE_DEFAULT_SIZE);
      size = REG_COMPILE_CACHE_DEFAULT_SIZE;
    }
  self->cache = _reg_compile_cache_new ((guint) size);
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

/* Records that the backend @name hides the declaration of @manifest_path
 * (interned), for its info to tell. */
static void
add_shadow_locked (RegRegistry *self,
                   const char  *name,
                   const char  *manifest_path)
{
  GPtrArray *manifests = g_hash_table_lookup (self->shadows, name);

  if (manifests == NULL)
    {
      manifests = g_ptr_array_new ();
      g_hash_table_insert (self->shadows, g_strdup (name), manifests);
    }
  if (!g_ptr_array_find (manifests, manifest_path, NULL))
    g_ptr_array_add (manifests, (gpointer) manifest_path);
}

/* A backend taking over the name of @replaced hides what it hid, after
 * @replaced's own declaration. */
static void
take_over_shadows_locked (RegRegistry   *self,
                          const Backend *replaced)
{
  g_autoptr(GPtrArray) before = NULL;
  g_autofree char *key = NULL;

  g_hash_table_steal_extended (self->shadows, replaced->name, (gpointer *) &key, (gpointer *) &before);
  if (replaced->manifest_path != NULL)
    add_shadow_locked (self, replaced->name, replaced->manifest_path);
  for (guint i = 0; before != NULL && i < before->len; i++)
    add_shadow_locked (self, replaced->name, g_ptr_array_index (before, i));
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
  const char *manifest_path = intern_path_locked (self, manifest->path);

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

          /* A loaded backend's own manifest, read again by a rescan,
           * hides nothing. */
          if (existing->manifest_path != manifest_path)
            add_shadow_locked (self, mb->name, manifest_path);
          g_debug ("backend '%s' of %s ignored: declared already", mb->name, shown);
          continue;
        }

      if (existing != NULL && existing->module_path != module_path)
        shadow_locked (self, existing->module_path, existing->name);
      if (existing != NULL)
        take_over_shadows_locked (self, existing);

      backend = backend_new (mb->name, (const char * const *) mb->tags, mb->description);
      backend->module_path = module_path;
      backend->manifest_path = manifest_path;
      backend->dir = dir;
      backend->origin = REG_BACKEND_ORIGIN_MODULE;
      if (mb->details != NULL)
        backend->details = _reg_backend_details_ref (mb->details);
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
  GPtrArray *skipped;     /* RegManifestSkip of every read directory */
} Scan;

static void
scan_clear (Scan *scan)
{
  g_clear_pointer (&scan->search_dirs, g_ptr_array_unref);
  g_clear_pointer (&scan->read_dirs, g_ptr_array_unref);
  g_clear_pointer (&scan->repeats, g_ptr_array_unref);
  g_clear_pointer (&scan->manifests, g_ptr_array_unref);
  g_clear_pointer (&scan->skipped, g_ptr_array_unref);
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
    g_ptr_array_add (scan->manifests, _reg_manifest_scan_dir (g_ptr_array_index (scan->read_dirs, i),
                                                              scan->skipped));
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

  /* Taken over: the scan is done with them. */
  for (guint i = 0; i < scan->skipped->len; i++)
    {
      RegManifestSkip *skip = g_ptr_array_index (scan->skipped, i);

      g_hash_table_replace (self->skipped, skip->path, skip);
    }
  g_ptr_array_set_free_func (scan->skipped, NULL);
  g_ptr_array_set_size (scan->skipped, 0);

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

/* The skipped manifest that seems to declare @name, if any: the first in
 * search order. */
static const RegManifestSkip *
find_skipped_locked (RegRegistry *self,
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

static void
set_invalid_backend_error_locked (RegRegistry  *self,
                                  const char   *name,
                                  GError      **error)
{
  g_auto(GStrv) suggestions = NULL;
  g_autoptr(GString) quoted = g_string_new (NULL);
  g_autofree char *shown = NULL;
  const RegManifestSkip *skip = find_skipped_locked (self, name);

  /* A name only a skipped manifest declares: saying why is more use than
   * suggestions. */
  if (skip != NULL)
    {
      g_autofree char *path = _reg_text_for_message (skip->path, -1, 4096);

      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND,
                   "Invalid backend: '%s'. The manifest %s declares it but was skipped: %s. %s",
                   name, path, skip->reason, skip->hint);
      return;
    }

  suggestions = suggest_locked (self, name);

  /* A name that could be a backend's is shown as it is (docs/names.md); any
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
 * name a loaded module offered without declaring it (docs/discovery.md), the
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
 * unknown-backend message and its suggestions, which are not looked for
 * when @error is NULL. */
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
      else if (attempt == 1 && error != NULL)
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

/* An info snapshot taken under the lock, waiting for what the compiler of
 * a loaded backend says of itself: its flags, and a runtime backend's
 * options.  Asking runs the compiler's code, so after the lock is released
 * (see info_request_finish()). */
typedef struct
{
  RegBackendInfo *info;
  RegCompiler    *compiler;  /* loaded backends only */
} InfoRequest;

static gboolean
is_default_locked (RegRegistry   *self,
                   const Backend *backend)
{
  return self->default_name != NULL && strcmp (self->default_name, backend->name) == 0;
}

static void
info_request_start_locked (RegRegistry   *self,
                           const Backend *backend,
                           InfoRequest   *request)
{
  RegBackendDetails *details = backend->details;

  request->info = _reg_backend_info_new (backend->name,
                                         (const char * const *) backend->tags,
                                         backend->description,
                                         backend->module_path,
                                         backend->compiler != NULL,
                                         backend->origin,
                                         is_default_locked (self, backend),
                                         details != NULL ? details->options : NULL,
                                         details);
  request->compiler = NULL;
  if (backend->compiler != NULL)
    request->compiler = g_object_ref (backend->compiler);

  /* Where it was declared, and the declarations of its name it hides. */
  {
    GPtrArray *shadows = g_hash_table_lookup (self->shadows, backend->name);
    g_autoptr(GPtrArray) shown = g_ptr_array_new ();

    for (guint i = 0; shadows != NULL && i < shadows->len; i++)
      g_ptr_array_add (shown, g_ptr_array_index (shadows, i));
    g_ptr_array_add (shown, NULL);
    _reg_backend_info_set_declaration (request->info, backend->manifest_path,
                                       (const char * const *) shown->pdata);
  }
}

/* Call without the lock.  Returns the info (transfer full). */
static RegBackendInfo *
info_request_finish (InfoRequest *request)
{
  if (request->compiler != NULL)
    {
      /* A module backend's schema is its manifest's, in the info already. */
      if (reg_backend_info_get_origin (request->info) == REG_BACKEND_ORIGIN_RUNTIME)
        _reg_backend_info_set_options (request->info, reg_compiler_get_options (request->compiler));
      _reg_backend_info_add_compiler_flags (request->info,
                                            _reg_compiler_get_effective_flags (request->compiler));
      g_clear_object (&request->compiler);
    }

  return g_steal_pointer (&request->info);
}

static gpointer
backend_dup_info (const Backend *backend,
                  gpointer       user_data)
{
  InfoRequest *request = g_new0 (InfoRequest, 1);

  info_request_start_locked (user_data, backend, request);
  return request;
}

typedef struct
{
  char              *name;
  char              *module_path;  /* the path through which a manifest declares it */
  RegCompiler       *compiler;
  RegBackendDetails *details;      /* what that manifest declares, nullable */
  gboolean           wanted;       /* still declared there and not loaded */
} Offer;

static void
offer_clear (gpointer data)
{
  Offer *offer = data;

  g_free (offer->name);
  g_free (offer->module_path);
  g_clear_object (&offer->compiler);
  g_clear_pointer (&offer->details, _reg_backend_details_unref);
}

/* Loads the module that declares @name, registers every backend it
 * provides that this registry still has declared from it, and returns the
 * compiler of @name.  Module code runs here, under the module lock and
 * load_lock only (in that order: see the lock order in reg-module.c). */
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
  g_autofree char *manifest_path = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *module_identity = NULL;
  g_autofree char *shown_path = NULL;
  g_autofree char *shown_manifest = NULL;
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
      manifest_path = g_strdup (backend->manifest_path);
      dir = g_strdup (backend->dir);
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

  /* The module file is opened only if no verdict quarantines it (and,
   * when asked, after its backends were checked in a child process). */
  if (!_reg_verify_before_load (self, name, module_path, manifest_path, dir, wanted, error))
    goto out;

  /* One RegModule per file, whichever path leads to it. */
  shown_manifest = _reg_escape (manifest_path);
  module = _reg_module_ensure (module_path, &local_error);
  if (module == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  "backend '%s' (declared by %s): ", name, shown_manifest);
      goto out;
    }

  shown_path = _reg_escape (module_path);
  g_rw_lock_reader_lock (&self->lock);
  module_offers = _reg_module_get_offers (module, &n_module_offers);
  for (guint i = 0; i < n_module_offers; i++)
    {
      const char *offered = module_offers[i].name;
      Offer offer = { NULL, };

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
          Offer offer = { g_strdup (offered), g_strdup (same_file), NULL, };

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
   * another path and not loaded yet), each with what its manifest
   * declares. */
  g_rw_lock_reader_lock (&self->lock);
  for (guint i = 0; i < offers->len; i++)
    {
      Offer *offer = &g_array_index (offers, Offer, i);
      const Backend *target = g_hash_table_lookup (self->backends, offer->name);

      offer->wanted = target != NULL && target->compiler == NULL &&
                      target->origin == REG_BACKEND_ORIGIN_MODULE &&
                      g_strcmp0 (target->module_path, offer->module_path) == 0;
      if (offer->wanted && target->details != NULL)
        offer->details = _reg_backend_details_ref (target->details);
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

      /* Its manifest's flags (Shareable=) add to the compiler's own:
       * the module's author speaks for its compiler there. */
      if (offer->compiler != NULL && offer->details != NULL)
        _reg_compiler_set_declared_flags (offer->compiler, offer->details->compiler_flags);

      /* Its manifest's schema, none included, is the compiler's: the
       * options a chooser was shown are those compiles are checked
       * against. */
      if (offer->compiler != NULL &&
          !_reg_compiler_set_options (offer->compiler,
                                      offer->details != NULL ? offer->details->options : NULL))
        {
          g_autofree char *shown_name = _reg_escape (offer->name);

          g_warning ("backend '%s' of module %s: its compiler had a schema before the "
                     "manifest's could be given to it; the manifest's is not checked",
                     shown_name, shown_path);
        }
    }

  g_rw_lock_writer_lock (&self->lock);
  for (guint i = 0; i < rejected->len; i++)
    {
      g_autofree char *shown_name = _reg_escape (g_ptr_array_index (rejected, i));

      g_hash_table_replace (self->rejected, g_strdup (g_ptr_array_index (rejected, i)),
                            g_strdup_printf ("backend '%s': module %s offers it, but no manifest of it declares it. "
                                             "Declare it in the module's manifest ([Backend %s]).",
                                             shown_name, shown_path, shown_name));
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
       * offer for it is dropped silently (docs/discovery.md). */
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
                 "backend '%s' (declared by %s): module %s does not provide it. "
                 "Make the module's reg_module_load() add it, or remove [Backend %s] from the manifest.",
                 name, shown_manifest, shown_path, name);
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
  g_hash_table_unref (self->shadows);
  g_hash_table_unref (self->paths);
  g_hash_table_unref (self->loaded_modules);
  g_hash_table_unref (self->rejected);
  g_hash_table_unref (self->skipped);
  g_hash_table_unref (self->scanned_dirs);
  g_ptr_array_unref (self->added_dirs);
  g_strfreev (self->env_dirs);
  g_free (self->default_name);
  g_clear_object (&self->default_compiler);
  g_strfreev (self->fallbacks);
  _reg_compile_cache_free (self->cache);
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
    case PROP_MODULE_CHECKS:
      g_value_set_flags (value, reg_registry_get_module_checks (self));
      break;
    case PROP_FALLBACK_BACKENDS:
      g_value_take_boxed (value, reg_registry_dup_fallback_backends (self));
      break;
    case PROP_COMPILE_CACHE_SIZE:
      g_value_set_uint (value, reg_registry_get_compile_cache_size (self));
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
    case PROP_MODULE_CHECKS:
      reg_registry_set_module_checks (self, g_value_get_flags (value));
      break;
    case PROP_FALLBACK_BACKENDS:
      reg_registry_set_fallback_backends (self, g_value_get_boxed (value));
      break;
    case PROP_COMPILE_CACHE_SIZE:
      reg_registry_set_compile_cache_size (self, g_value_get_uint (value));
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

  /**
   * RegRegistry:module-checks:
   *
   * What the registry checks before it opens a module file: by default
   * %REG_MODULE_CHECKS_QUARANTINE, with %REG_MODULE_CHECKS_VERIFY too when
   * the environment has `REG_VERIFY_MODULES=1` (ignored in setuid and
   * setgid programs).  Applies to modules opened after it is set.
   * Notified when it changes, in the thread that changed it.
   */
  properties[PROP_MODULE_CHECKS] =
    g_param_spec_flags ("module-checks", NULL, NULL,
                        REG_TYPE_MODULE_CHECKS, REG_MODULE_CHECKS_QUARANTINE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * RegRegistry:fallback-backends:
   *
   * The backends to try, in order, when the one asked for cannot compile a
   * graph (see the class description).  Empty by default, which keeps the
   * error of the backend asked for; `REG_FALLBACK_BACKENDS=a:b` sets it for
   * every registry made while it is in the environment.  Names need not be
   * known yet: they are resolved when a compile falls back.
   */
  properties[PROP_FALLBACK_BACKENDS] =
    g_param_spec_boxed ("fallback-backends", NULL, NULL,
                        G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * RegRegistry:compile-cache-size:
   *
   * How many compiled functions the compile cache keeps (see the class
   * description); 0 disables it and drops what it holds.  The default is
   * %REG_COMPILE_CACHE_DEFAULT_SIZE, or `REG_COMPILE_CACHE_SIZE` when the
   * registry was made with it in the environment.
   */
  properties[PROP_COMPILE_CACHE_SIZE] =
    g_param_spec_uint ("compile-cache-size", NULL, NULL,
                       0, G_MAXUINT, REG_COMPILE_CACHE_DEFAULT_SIZE,
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
   * [method@Reg.Registry.rescan] emits it again for a name whose manifest
   * now says something else of it.  Detailed with the name.
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

  /**
   * RegRegistry::fallback:
   * @self: the registry
   * @failed: the backend that could not compile the graph
   * @next: the backend tried next
   * @error: why @failed could not
   *
   * A compile falls back from @failed to @next (see the class
   * description).  Emitted in the thread that compiles, or, for
   * [method@Reg.Registry.compile_async], in the caller's main context.
   */
  signals[FALLBACK] =
    g_signal_new ("fallback",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_ERROR);
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
  self->shadows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) g_ptr_array_unref);
  self->loaded_modules = g_hash_table_new (NULL, NULL);
  self->rejected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->skipped = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) _reg_manifest_skip_free);
  self->scanned_dirs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->added_dirs = g_ptr_array_new_with_free_func (g_free);
  self->env_dirs = search_dirs_from_environment ();
  self->retired = garbage_new ();
  settings_from_environment (self);
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
 * The compiler's options ([method@Reg.Compiler.get_options]) are asked
 * for here, in the calling thread, so that a backend written in a language
 * whose code runs in one thread is not asked from another later.
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

  /* Its schema is asked for now, in the registering thread, and kept: a
   * binding's dup_options may only run in the binding's own thread, while
   * infos of the backend may be taken in any. */
  reg_compiler_get_options (compiler);

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
      take_over_shadows_locked (self, replaced);
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
        g_hash_table_remove (self->shadows, name);
      if (removed != NULL)
        invalidate_locked (self, garbage);
      else if (attempt == 1 && error != NULL)
        set_invalid_backend_error_locked (self, name, error);
      g_rw_lock_writer_unlock (&self->lock);
    }

  if (removed == NULL)
    return FALSE;

  if (removed->compiler != NULL)
    _reg_compile_cache_drop_compiler (self->cache, removed->compiler);

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

/* Call with the writer lock held. */
static void
ensure_sorted_locked (RegRegistry *self)
{
  GHashTableIter iter;
  gpointer value;

  if (self->sorted != NULL)
    return;

  self->sorted = g_ptr_array_sized_new (g_hash_table_size (self->backends));
  g_hash_table_iter_init (&iter, self->backends);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (self->sorted, value);
  g_ptr_array_sort (self->sorted, compare_backend_names);
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
  ensure_sorted_locked (self);
  names = dup_sorted_names_locked (self, exclude_tags);
  g_rw_lock_writer_unlock (&self->lock);

  return names;
}

GPtrArray *
_reg_registry_dup_infos (RegRegistry        *self,
                         const char * const *exclude_tags)
{
  g_autoptr(GArray) requests = NULL;
  GPtrArray *infos;

  ensure_discovered (self);

  g_rw_lock_writer_lock (&self->lock);
  ensure_sorted_locked (self);
  requests = g_array_sized_new (FALSE, TRUE, sizeof (InfoRequest), self->sorted->len);
  for (guint i = 0; i < self->sorted->len; i++)
    {
      const Backend *backend = g_ptr_array_index (self->sorted, i);
      InfoRequest request;

      if (backend_has_any_tag (backend, exclude_tags))
        continue;
      info_request_start_locked (self, backend, &request);
      g_array_append_val (requests, request);
    }
  g_rw_lock_writer_unlock (&self->lock);

  infos = g_ptr_array_new_full (requests->len, g_object_unref);
  for (guint i = 0; i < requests->len; i++)
    g_ptr_array_add (infos, info_request_finish (&g_array_index (requests, InfoRequest, i)));

  return infos;
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
 * without loading anything (a backend registered at run time is asked for
 * its options, see [method@Reg.Compiler.get_options]).  This function is
 * thread-safe.
 *
 * Returns: (transfer full) (nullable): the information, or %NULL for an
 *   unknown name
 */
RegBackendInfo *
reg_registry_get_backend_info (RegRegistry *self,
                               const char  *name)
{
  g_autofree InfoRequest *request = NULL;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  request = with_backend (self, name, backend_dup_info, self, NULL);
  if (request == NULL)
    return NULL;

  return info_request_finish (request);
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
 * NULL resets to REG_DEFAULT_BACKEND, built in.  @source says who set it.
 * Notifies when what reg_registry_dup_default_backend() returns changes,
 * and drops the default's compiles from the cache when the default
 * changes. */
static void
set_default (RegRegistry      *self,
             const char       *name,
             RegCompiler      *compiler,
             RegSettingSource  source)
{
  g_autoptr(RegCompiler) old_compiler = NULL;
  g_autofree char *old_name = NULL;
  gboolean changed;

  if (name == NULL && compiler == NULL)
    {
      name = REG_DEFAULT_BACKEND;
      source = REG_SETTING_SOURCE_BUILT_IN;
    }

  g_rw_lock_writer_lock (&self->lock);
  old_name = g_steal_pointer (&self->default_name);
  old_compiler = g_steal_pointer (&self->default_compiler);
  self->default_name = g_strdup (name);
  self->default_compiler = name == NULL ? g_object_ref (compiler) : NULL;
  self->default_source = source;
  changed = g_strcmp0 (old_name, self->default_name) != 0;
  g_rw_lock_writer_unlock (&self->lock);

  if (changed || old_compiler != compiler)
    _reg_compile_cache_drop_default (self->cache);
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

  set_default (self, name, NULL, REG_SETTING_SOURCE_APPLICATION);
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

  set_default (self, NULL, compiler, REG_SETTING_SOURCE_APPLICATION);
}

/* Resolves the default to a compiler and the name to bind its functions
 * to (the default backend's name, or a default object's own name).  A
 * default that REG_DEFAULT_BACKEND set to a name that is no backend is
 * reported once, with suggestions, and replaced by the built-in default. */
static RegCompiler *
resolve_default (RegRegistry  *self,
                 char        **name_out,
                 GError      **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *name = NULL;
  RegCompiler *compiler = NULL;
  RegSettingSource source;

  g_rw_lock_reader_lock (&self->lock);
  if (self->default_compiler != NULL)
    compiler = g_object_ref (self->default_compiler);
  else
    name = g_strdup (self->default_name);
  source = self->default_source;
  g_rw_lock_reader_unlock (&self->lock);

  if (compiler != NULL)
    {
      *name_out = g_strdup (reg_compiler_get_name (compiler));
      return compiler;
    }

  compiler = reg_registry_lookup_backend (self, name, &local_error);
  if (compiler == NULL && source == REG_SETTING_SOURCE_ENVIRONMENT &&
      g_error_matches (local_error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND))
    {
      gboolean replaced;

      /* Only the thread that replaces it reports it. */
      g_rw_lock_writer_lock (&self->lock);
      replaced = self->default_source == REG_SETTING_SOURCE_ENVIRONMENT &&
                 g_strcmp0 (self->default_name, name) == 0;
      g_rw_lock_writer_unlock (&self->lock);
      if (replaced)
        {
          g_warning ("REG_DEFAULT_BACKEND is ignored: %s; the default backend is '%s'",
                     local_error->message, REG_DEFAULT_BACKEND);
          set_default (self, NULL, NULL, REG_SETTING_SOURCE_BUILT_IN);
        }
      g_clear_error (&local_error);
      g_clear_pointer (&name, g_free);
      return resolve_default (self, name_out, error);
    }

  if (compiler == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  *name_out = g_steal_pointer (&name);
  return compiler;
}

/**
 * reg_registry_dup_default_compiler:
 * @self: a [class@Reg.Registry]
 * @error: return location for a #GError
 *
 * Resolves the default to a compiler: the default compiler object, or the
 * lookup of the default backend's name (which may load its module, or fail
 * as [method@Reg.Registry.lookup_backend] does).  A default backend that
 * `REG_DEFAULT_BACKEND` names but no backend has is reported once with a
 * warning and replaced by %REG_DEFAULT_BACKEND.  This function is
 * thread-safe.
 *
 * Returns: (transfer full): the compiler, or %NULL with @error set
 */
RegCompiler *
reg_registry_dup_default_compiler (RegRegistry  *self,
                                   GError      **error)
{
  g_autofree char *name = NULL;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return resolve_default (self, &name, error);
}

/**
 * reg_registry_get_default_backend_source:
 * @self: a [class@Reg.Registry]
 *
 * Tells where the default backend came from: libreg's own
 * (%REG_DEFAULT_BACKEND), the environment (`REG_DEFAULT_BACKEND`), or the
 * application ([method@Reg.Registry.set_default_backend] or
 * [method@Reg.Registry.set_default_compiler]).  This function is
 * thread-safe.
 *
 * Returns: the source
 */
RegSettingSource
reg_registry_get_default_backend_source (RegRegistry *self)
{
  RegSettingSource source;

  g_return_val_if_fail (REG_IS_REGISTRY (self), REG_SETTING_SOURCE_BUILT_IN);

  g_rw_lock_reader_lock (&self->lock);
  source = self->default_source;
  g_rw_lock_reader_unlock (&self->lock);

  return source;
}

/**
 * reg_registry_set_fallback_backends:
 * @self: a [class@Reg.Registry]
 * @names: (array zero-terminated=1) (nullable): backend names, in the
 *   order to try them, or %NULL for none
 *
 * Sets [property@Reg.Registry:fallback-backends]: the backends a compile
 * tries, in order, when the backend asked for cannot compile the graph.
 * Empty strings are ignored.  This function is thread-safe.
 */
void
reg_registry_set_fallback_backends (RegRegistry        *self,
                                    const char * const *names)
{
  char **fallbacks;
  gboolean changed;

  g_return_if_fail (REG_IS_REGISTRY (self));

  fallbacks = names != NULL ? g_strdupv ((char **) names) : g_new0 (char *, 1);
  drop_empty_strings (fallbacks);

  g_rw_lock_writer_lock (&self->lock);
  changed = !g_strv_equal ((const char * const *) self->fallbacks,
                           (const char * const *) fallbacks);
  g_strfreev (self->fallbacks);
  self->fallbacks = fallbacks;
  g_rw_lock_writer_unlock (&self->lock);

  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FALLBACK_BACKENDS]);
}

/**
 * reg_registry_dup_fallback_backends:
 * @self: a [class@Reg.Registry]
 *
 * Gets [property@Reg.Registry:fallback-backends].  This function is
 * thread-safe.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names, possibly
 *   none
 */
char **
reg_registry_dup_fallback_backends (RegRegistry *self)
{
  char **names;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);

  g_rw_lock_reader_lock (&self->lock);
  names = g_strdupv (self->fallbacks);
  g_rw_lock_reader_unlock (&self->lock);

  return names;
}

/**
 * reg_registry_set_compile_cache_size:
 * @self: a [class@Reg.Registry]
 * @size: the number of compiled functions to keep; 0 disables the cache
 *
 * Sets [property@Reg.Registry:compile-cache-size], evicting the least
 * recently used functions beyond it.  This function is thread-safe.
 */
void
reg_registry_set_compile_cache_size (RegRegistry *self,
                                     guint        size)
{
  g_return_if_fail (REG_IS_REGISTRY (self));

  if (_reg_compile_cache_get_max_entries (self->cache) == size)
    return;

  _reg_compile_cache_set_max_entries (self->cache, size);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPILE_CACHE_SIZE]);
}

/**
 * reg_registry_get_compile_cache_size:
 * @self: a [class@Reg.Registry]
 *
 * Gets [property@Reg.Registry:compile-cache-size].  This function is
 * thread-safe.
 *
 * Returns: the number of compiled functions the cache keeps at most
 */
guint
reg_registry_get_compile_cache_size (RegRegistry *self)
{
  g_return_val_if_fail (REG_IS_REGISTRY (self), 0);

  return _reg_compile_cache_get_max_entries (self->cache);
}

/**
 * reg_registry_get_compile_cache_counters:
 * @self: a [class@Reg.Registry]
 * @hits: (out) (optional): compiles answered from the cache
 * @misses: (out) (optional): compiles of shareable backends that had to
 *   compile
 * @evictions: (out) (optional): functions dropped to keep the cache within
 *   its size
 *
 * Gets the compile cache's counters since the registry was made.  Compiles
 * on backends whose functions are not shareable, and compiles while the
 * cache is disabled, count as neither hits nor misses.  This function is
 * thread-safe.
 */
void
reg_registry_get_compile_cache_counters (RegRegistry *self,
                                         guint64     *hits,
                                         guint64     *misses,
                                         guint64     *evictions)
{
  g_return_if_fail (REG_IS_REGISTRY (self));

  _reg_compile_cache_get_counters (self->cache, hits, misses, evictions);
}

/* ---- Compiling: the backend asked for, then the fallbacks -------------- */

/* The backends a compile tries: the one asked for (NULL: the default),
 * then the fallbacks that were not tried yet; and what each failure said. */
typedef struct
{
  char       *asked;         /* nullable: the default */
  char      **fallbacks;
  guint       position;      /* 0: the backend asked for; else fallbacks[position - 1] */
  char       *default_name;  /* the default's name, once known, when asked is NULL */
  const char *name;          /* the name of the backend at position, once known: asked,
                              * default_name or a fallback */
  const char *first_name;    /* the name of the backend asked for, once known */
  GError     *first_error;   /* why the backend asked for failed */
  GString    *reasons;       /* why each fallback failed, for the final message */
} Chain;

static void
chain_init (Chain       *chain,
            RegRegistry *self,
            const char  *backend)
{
  memset (chain, 0, sizeof *chain);
  chain->asked = g_strdup (backend);
  g_rw_lock_reader_lock (&self->lock);
  chain->fallbacks = g_strdupv (self->fallbacks);
  g_rw_lock_reader_unlock (&self->lock);
}

static void
chain_clear (Chain *chain)
{
  g_clear_pointer (&chain->asked, g_free);
  g_clear_pointer (&chain->fallbacks, g_strfreev);
  g_clear_pointer (&chain->default_name, g_free);
  chain->name = NULL;
  chain->first_name = NULL;
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

  if (chain->position == 0 && chain->asked == NULL)
    {
      g_clear_pointer (&chain->default_name, g_free);
      compiler = resolve_default (self, &chain->default_name, error);
      chain->name = chain->default_name;
    }
  else
    {
      chain->name = chain->position == 0 ? chain->asked : chain->fallbacks[chain->position - 1];
      compiler = reg_registry_lookup_backend (self, chain->name, error);
    }

  if (chain->position == 0)
    chain->first_name = chain->name;

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

static gboolean
chain_tried (const Chain *chain,
             const char  *name)
{
  if (g_strcmp0 (name, chain->first_name) == 0)
    return TRUE;

  for (guint i = 0; i + 1 < chain->position; i++)
    if (g_str_equal (name, chain->fallbacks[i]))
      return TRUE;

  return FALSE;
}

/* Records why the backend at the chain's position failed (@error, taken
 * over) and moves to the next backend to try, announcing the fallback in
 * the calling thread.  Returns FALSE when there is none, or when @error
 * must not fall back. */
static gboolean
chain_next (Chain       *chain,
            RegRegistry *self,
            GError      *error)
{
  g_autoptr(GError) fallback_error = NULL;
  g_autofree char *failed = g_strdup (chain->name != NULL ? chain->name : "the default backend");
  g_autofree char *failed_shown = NULL;
  g_autofree char *next_shown = NULL;
  const char *next;

  failed_shown = _reg_text_for_message (failed, -1, 255);
  if (chain->position == 0)
    {
      chain->first_error = error;
      if (!falls_back (error))
        return FALSE;
    }
  else
    {
      fallback_error = error;
      if (chain->reasons == NULL)
        chain->reasons = g_string_new (NULL);
      g_string_append_printf (chain->reasons, "; '%s': %s", failed_shown, error->message);
    }

  do
    {
      next = chain->fallbacks[chain->position];
      if (next == NULL)
        return FALSE;
      chain->position++;
    }
  while (chain_tried (chain, next));

  next_shown = _reg_text_for_message (next, -1, 255);
  g_message ("backend '%s' cannot compile the graph (%s); falling back to '%s'",
             failed_shown, error->message, next_shown);
  g_signal_emit (self, signals[FALLBACK], 0, failed, next, error);

  return TRUE;
}

/* The error of a chain that failed: the backend asked for's, with the
 * fallbacks' reasons added to its message. */
static void
chain_fail (Chain   *chain,
            GError **error)
{
  GError *first = g_steal_pointer (&chain->first_error);

  if (chain->reasons != NULL)
    {
      char *message = g_strconcat (first->message, " (and every fallback failed",
                                   chain->reasons->str, ")", NULL);

      g_free (first->message);
      first->message = message;
    }

  g_propagate_error (error, first);
}

/* One attempt of a compile: the backend resolved, the graph checked for
 * it, and, for a backend whose functions are shareable, the cache
 * consulted. */
typedef struct
{
  RegRegistry   *registry;
  RegCompiler   *compiler;
  char          *name;
  RegShape      *shapes;
  GBytes        *key;          /* nullable: not cached */
  gsize          cost;
  gboolean       must_settle;
  RegCompiledFn *hit;          /* nullable: the function, from the cache or compiled */
} Attempt;

/* Ends an attempt with what its compile gave (@fn, nullable): settles its
 * claim on the cache, which must happen whatever the outcome. */
static void
attempt_end (Attempt       *attempt,
             RegCompiledFn *fn)
{
  if (!attempt->must_settle)
    return;

  _reg_compile_cache_settle (attempt->registry->cache, attempt->compiler,
                             g_bytes_get_data (attempt->key, NULL), g_bytes_get_size (attempt->key),
                             fn, attempt->cost);
  attempt->must_settle = FALSE;
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
  g_clear_pointer (&attempt->key, g_bytes_unref);
  g_clear_object (&attempt->hit);
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

/* Resolves the chain's current backend, looks in the cache when its
 * functions are shareable (a hit is attempt->hit), and otherwise checks
 * the graph for it.  May block: a lookup may load a module, and the cache
 * waits for another compile of the same key. */
static Attempt *
attempt_begin (Chain         *chain,
               RegRegistry   *self,
               RegGraph      *graph,
               GPtrArray     *example_inputs,
               GVariant      *options,
               GCancellable  *cancellable,
               GError       **error)
{
  g_autoptr(Attempt) attempt = g_new0 (Attempt, 1);
  gboolean by_default = chain->position == 0 && chain->asked == NULL;

  attempt->registry = g_object_ref (self);
  attempt->compiler = chain_resolve (chain, self, error);
  if (attempt->compiler == NULL)
    return NULL;
  attempt->name = g_strdup (chain->name);

  if ((_reg_compiler_get_effective_flags (attempt->compiler) & REG_COMPILER_FLAGS_SHAREABLE) &&
      may_look_up_first (graph, example_inputs, options))
    {
      gboolean wait = !_reg_binding_is_thread_bound (G_OBJECT_TYPE (attempt->compiler));
      gsize key_size;
      const guint8 *key = _reg_compile_cache_key (graph, example_inputs, options, &key_size);

      if (key != NULL)
        {
          attempt->hit = _reg_compile_cache_begin (self->cache, attempt->compiler, key, key_size,
                                                   by_default, wait, cancellable,
                                                   &attempt->must_settle);
          if (attempt->hit != NULL)
            return g_steal_pointer (&attempt);
          /* The key outlives this thread's next one: the compile may run
           * in another thread. */
          attempt->key = g_bytes_new (key, key_size);
        }
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      attempt_end (attempt, NULL);
      return NULL;
    }

  attempt->shapes = _reg_compiler_prepare (attempt->compiler, graph, example_inputs,
                                           options, error);
  if (attempt->shapes == NULL)
    {
      attempt_end (attempt, NULL);
      return NULL;
    }
  if (attempt->key != NULL)
    attempt->cost = _reg_compile_cache_cost (graph, attempt->shapes,
                                             g_bytes_get_size (attempt->key));

  return g_steal_pointer (&attempt);
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
 * [property@Reg.Registry:fallback-backends] when it cannot, and returning
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
  g_auto(Chain) chain;
  g_autoptr(GVariant) options_ref = NULL;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (REG_IS_GRAPH (graph), NULL);
  g_return_val_if_fail (example_inputs != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  for (guint i = 0; i < example_inputs->len; i++)
    g_return_val_if_fail (REG_IS_TENSOR (g_ptr_array_index (example_inputs, i)), NULL);

  if (options != NULL)
    options_ref = g_variant_ref_sink (options);

  chain_init (&chain, self, backend);

  for (;;)
    {
      GVariant *attempt_options = chain.position == 0 ? options : NULL;
      g_autoptr(Attempt) attempt = NULL;
      GError *local_error = NULL;
      RegCompiledFn *fn = NULL;

      attempt = attempt_begin (&chain, self, graph, example_inputs, attempt_options,
                               NULL, &local_error);
      if (attempt != NULL && attempt->hit != NULL)
        return g_steal_pointer (&attempt->hit);

      if (attempt != NULL)
        {
          RegCompilerInterface *iface = REG_COMPILER_GET_IFACE (attempt->compiler);
          GError *compile_error = NULL;

          fn = iface->compile (attempt->compiler, graph, example_inputs, attempt_options,
                               &compile_error);
          fn = _reg_compiler_conclude (attempt->compiler, attempt->name, fn, compile_error,
                                       graph, example_inputs, attempt->shapes, &local_error);
          attempt_end (attempt, fn);
          if (fn != NULL)
            return fn;
        }

      if (!chain_next (&chain, self, local_error))
        break;
    }

  chain_fail (&chain, error);
  return NULL;
}

/* ---- Compiling without blocking ----------------------------------------- */

/* An asynchronous compile: the chain, and what it compiles.  Each attempt
 * begins in a worker thread (lookups may load modules, the cache may wait)
 * and compiles through the backend's compile_async; every decision (a
 * fallback, the result) is taken in the caller's main context. */
typedef struct
{
  Chain      chain;
  RegGraph  *graph;
  GPtrArray *example_inputs;
  GVariant  *options;
  Attempt   *attempt;      /* between its beginning and its compile */
} AsyncCompile;

static void
async_compile_free (gpointer data)
{
  AsyncCompile *ac = data;

  chain_clear (&ac->chain);
  g_object_unref (ac->graph);
  g_ptr_array_unref (ac->example_inputs);
  g_clear_pointer (&ac->options, g_variant_unref);
  g_clear_pointer (&ac->attempt, attempt_free);
  g_free (ac);
}

static void async_compile_attempt (GTask *task);

/* The compile is over for this attempt's backend with @error (taken over):
 * falls back or fails. */
static void
async_compile_failed (GTask  *task,
                      GError *error)
{
  RegRegistry *self = g_task_get_source_object (task);
  AsyncCompile *ac = g_task_get_task_data (task);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, error);
    }
  else if (chain_next (&ac->chain, self, error))
    {
      async_compile_attempt (task);
    }
  else
    {
      GError *final = NULL;

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
  AsyncCompile *ac = g_task_get_task_data (task);
  GError *error = NULL;
  RegCompiledFn *fn;

  fn = _reg_compiler_compile_prepared_finish (REG_COMPILER (source_object), result, &error);
  attempt_end (ac->attempt, fn);
  g_clear_pointer (&ac->attempt, attempt_free);

  if (fn != NULL)
    g_task_return_pointer (task, fn, g_object_unref);
  else
    async_compile_failed (task, error);
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
  if (attempt == NULL)
    {
      async_compile_failed (task, error);
      return;
    }

  if (attempt->hit != NULL)
    {
      g_task_return_pointer (task, g_steal_pointer (&attempt->hit), g_object_unref);
      attempt_free (attempt);
      return;
    }

  /* The backend's compile, in its own way (the default: a worker thread);
   * the attempt's shapes go with it. */
  ac->attempt = attempt;
  _reg_compiler_compile_prepared_async (attempt->compiler, attempt->name, ac->graph,
                                        ac->example_inputs,
                                        ac->chain.position == 0 ? ac->options : NULL,
                                        g_steal_pointer (&attempt->shapes),
                                        g_task_get_cancellable (task),
                                        attempt_compiled, g_object_ref (task));
}

/* Compiles in the worker, for a backend that would only have run its
 * synchronous compile in a worker of its own (one trip between threads
 * instead of two).  Returns the function, or NULL with @error. */
static RegCompiledFn *
compile_in_this_worker (Attempt       *attempt,
                        AsyncCompile  *ac,
                        GCancellable  *cancellable,
                        GError       **error)
{
  GVariant *options = ac->chain.position == 0 ? ac->options : NULL;
  GError *compile_error = NULL;
  RegCompiledFn *fn;

  if (cancellable != NULL)
    g_cancellable_push_current (cancellable);
  fn = REG_COMPILER_GET_IFACE (attempt->compiler)->compile (attempt->compiler, ac->graph,
                                                            ac->example_inputs, options,
                                                            &compile_error);
  if (cancellable != NULL)
    g_cancellable_pop_current (cancellable);

  fn = _reg_compiler_conclude (attempt->compiler, attempt->name, fn, compile_error, ac->graph,
                               ac->example_inputs, attempt->shapes, error);

  /* A compile cancelled meanwhile keeps nothing, not even in the cache. */
  if (fn != NULL && g_cancellable_set_error_if_cancelled (cancellable, error))
    g_clear_object (&fn);
  attempt_end (attempt, fn);

  return fn;
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

  attempt = attempt_begin (&ac->chain, source_object, ac->graph, ac->example_inputs,
                           ac->chain.position == 0 ? ac->options : NULL,
                           cancellable, &error);
  if (attempt != NULL && attempt->hit == NULL && _reg_compiler_compiles_in_worker (attempt->compiler))
    {
      attempt->hit = compile_in_this_worker (attempt, ac, cancellable, &error);
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
 * and the backend's compile all run off the calling thread; the backend's
 * compile runs as its [vfunc@Reg.Compiler.compile_async] arranges (by
 * default in a worker thread).
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
  g_autoptr(GTask) task = NULL;
  AsyncCompile *ac;

  g_return_if_fail (REG_IS_REGISTRY (self));
  g_return_if_fail (REG_IS_GRAPH (graph));
  g_return_if_fail (example_inputs != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  for (guint i = 0; i < example_inputs->len; i++)
    g_return_if_fail (REG_IS_TENSOR (g_ptr_array_index (example_inputs, i)));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, reg_registry_compile_async);

  ac = g_new0 (AsyncCompile, 1);
  chain_init (&ac->chain, self, backend);
  ac->graph = g_object_ref (graph);
  ac->example_inputs = g_ptr_array_new_full (example_inputs->len, g_object_unref);
  for (guint i = 0; i < example_inputs->len; i++)
    g_ptr_array_add (ac->example_inputs, g_object_ref (g_ptr_array_index (example_inputs, i)));
  ac->options = options != NULL ? g_variant_ref_sink (options) : NULL;
  g_task_set_task_data (task, ac, async_compile_free);

  async_compile_attempt (task);
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

static gboolean
strv_equal (char **a,
            char **b)
{
  return g_strv_equal ((const char * const *) a, (const char * const *) b);
}

static gboolean
declaration_changed (const Backend *old,
                     const Backend *new)
{
  return !strv_equal (old->tags, new->tags) ||
         g_strcmp0 (old->description, new->description) != 0 ||
         g_strcmp0 (old->module_path, new->module_path) != 0 ||
         !_reg_backend_details_equal (old->details, new->details);
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

  ensure_discovered (self);

  g_rw_lock_reader_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->skipped);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const RegManifestSkip *skip = value;

      g_hash_table_insert (skipped, g_strdup (skip->path),
                           g_strdup_printf ("%s. %s", skip->reason, skip->hint));
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
  g_autoptr(GHashTable) before = g_hash_table_new (g_str_hash, g_str_equal);  /* name -> Backend */
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
          g_hash_table_insert (before, backend->name, backend);
          g_ptr_array_add (dropped, backend);
        }
    }
  g_hash_table_remove_all (self->scanned_dirs);
  g_hash_table_remove_all (self->shadowed);
  g_hash_table_remove_all (self->shadows);
  g_hash_table_remove_all (self->skipped);
  scan_merge_locked (self, &scan, declared);

  /* A name declared again is announced again when what its manifest says
   * changed, so that a list of the backends can show it. */
  for (guint i = 0; i < declared->len; i++)
    {
      const char *name = g_ptr_array_index (declared, i);
      const Backend *old = g_hash_table_lookup (before, name);

      if (old == NULL)
        g_ptr_array_add (new_names, (gpointer) name);
      else
        {
          if (declaration_changed (old, g_hash_table_lookup (self->backends, name)))
            g_ptr_array_add (new_names, (gpointer) name);
          g_hash_table_remove (before, name);
        }
    }
  g_hash_table_iter_init (&iter, before);
  while (g_hash_table_iter_next (&iter, &value, NULL))
    if (!g_hash_table_contains (self->backends, value))
      g_ptr_array_add (gone, g_strdup (value));
  invalidate_locked (self, garbage);
  g_rw_lock_writer_unlock (&self->lock);

  g_rec_mutex_unlock (&self->load_lock);

  _reg_compile_cache_clear (self->cache);

  g_ptr_array_sort (gone, compare_strings);
  emit_name_signals (self, signals[BACKEND_UNREGISTERED], gone);
  emit_name_signals (self, signals[BACKEND_DECLARED], new_names);
}

/**
 * reg_registry_set_module_checks:
 * @self: a [class@Reg.Registry]
 * @checks: what to check before opening a module file
 *
 * Sets [property@Reg.Registry:module-checks].  %REG_MODULE_CHECKS_VERIFY
 * makes the first lookup of a module's backend slower, by the time a check
 * takes (a process started, the module loaded there and the conformance
 * set run), once per module file: later processes find the recorded
 * verdict.  This function is thread-safe.
 */
void
reg_registry_set_module_checks (RegRegistry     *self,
                                RegModuleChecks  checks)
{
  g_return_if_fail (REG_IS_REGISTRY (self));
  g_return_if_fail ((checks & ~(REG_MODULE_CHECKS_QUARANTINE | REG_MODULE_CHECKS_VERIFY)) == 0);

  if ((RegModuleChecks) g_atomic_int_exchange (&self->module_checks, checks) != checks)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODULE_CHECKS]);
}

/**
 * reg_registry_get_module_checks:
 * @self: a [class@Reg.Registry]
 *
 * Gets [property@Reg.Registry:module-checks].  This function is
 * thread-safe.
 *
 * Returns: what the registry checks before opening a module file
 */
RegModuleChecks
reg_registry_get_module_checks (RegRegistry *self)
{
  g_return_val_if_fail (REG_IS_REGISTRY (self), REG_MODULE_CHECKS_NONE);

  return g_atomic_int_get (&self->module_checks);
}

/* Where a module backend comes from, for a check. */
typedef struct
{
  char             *module_path;
  char             *dir;
  RegBackendOrigin  origin;
} Source;

static gpointer
backend_dup_source (const Backend *backend,
                    gpointer       user_data)
{
  Source *source = g_new0 (Source, 1);

  source->module_path = g_strdup (backend->module_path);
  source->dir = g_strdup (backend->dir);
  source->origin = backend->origin;

  return source;
}

static void
source_free (Source *source)
{
  g_free (source->module_path);
  g_free (source->dir);
  g_free (source);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Source, source_free)

/**
 * reg_registry_verify_backend:
 * @self: a [class@Reg.Registry]
 * @name: the name of a backend that a module declares
 * @options: (nullable): an `a{sv}` of settings: `timeout` (`d`, seconds,
 *   default 20), `memory-limit` (`t`, bytes of address space, default
 *   4 GiB, 0 for none), `store` (`s`: `"user"`, the default, records the
 *   verdict in the user's store; `"system"` in the store beside the module
 *   file; `"none"` nowhere)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Checks the backend @name in a process of its own: loads its module
 * there, makes its compiler, compiles and calls the conformance set and
 * compares every output with eager's, under the timeout and the memory
 * limit.  Through the default registry the module reaches the backends of
 * @self's search path, as it would in the application.  Nothing of the
 * module runs in the calling process.  The verdict
 * is recorded against the module file's identity in the store @options
 * name, when the file did not change during the check, replacing the
 * backend's earlier verdict there.  A crash or a timeout quarantines the
 * module (see [property@Reg.Registry:module-checks]); another verdict of
 * the same backend lifts the quarantine its crash or timeout had put.
 *
 * Fails with %REG_REGISTRY_ERROR_INVALID_BACKEND for an unknown name,
 * %G_IO_ERROR_NOT_SUPPORTED for a backend registered at run time (there is
 * no module to check), %G_IO_ERROR_INVALID_ARGUMENT for bad @options,
 * %G_IO_ERROR_CANCELLED, the error of starting the checker or
 * %G_SPAWN_ERROR_FAILED when it ended before it reached the module (both
 * in the %G_SPAWN_ERROR domain: no verdict about the module),
 * %G_IO_ERROR_NOT_FOUND when the backend builds on one that cannot be
 * reached (it cannot be judged).  A verdict that cannot be recorded is
 * returned all the same, with the error of the store
 * ([method@Reg.Verdict.get_store_error]).  Blocks the calling thread for
 * as long as the check takes.  This function is thread-safe.
 *
 * Returns: (transfer full): the verdict, or %NULL with @error set
 */
RegVerdict *
reg_registry_verify_backend (RegRegistry   *self,
                             const char    *name,
                             GVariant      *options,
                             GCancellable  *cancellable,
                             GError       **error)
{
  g_autoptr(Source) source = NULL;
  RegVerifyOptions parsed;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (options == NULL || g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT), NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!_reg_verify_options_parse (options, &parsed, error))
    return NULL;

  source = with_backend (self, name, backend_dup_source, NULL, error);
  if (source == NULL)
    return NULL;

  if (source->origin == REG_BACKEND_ORIGIN_RUNTIME || source->module_path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "backend '%s' is registered at run time, not declared by a module: "
                   "there is no module to check", name);
      return NULL;
    }

  return _reg_verify_run (self, name, source->module_path, source->dir, &parsed, cancellable, error);
}

/**
 * reg_registry_dup_verdict:
 * @self: a [class@Reg.Registry]
 * @name: a backend name
 *
 * Finds the recorded verdict that governs the backend @name as its module
 * file is now: a verdict quarantining the module (which may be about
 * another backend of the same module: see
 * [method@Reg.Verdict.get_backend_name]), or else the backend's own
 * latest verdict.  Reads the store beside the module and the user's; a
 * verdict about an earlier state of the file does not count.  Loads
 * nothing.  This function is thread-safe.
 *
 * Returns: (transfer full) (nullable): the verdict, or %NULL when there is
 *   none (or @name is unknown, or registered at run time)
 */
RegVerdict *
reg_registry_dup_verdict (RegRegistry *self,
                          const char  *name)
{
  g_autoptr(Source) source = NULL;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  source = with_backend (self, name, backend_dup_source, NULL, NULL);
  if (source == NULL || source->module_path == NULL)
    return NULL;

  return _reg_verify_dup_verdict (name, source->module_path);
}
