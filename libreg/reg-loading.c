/* reg-loading.c: making the compilers of declared backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A declared backend becomes a compiler on its first lookup: the registry
 * checks its module against the recorded verdicts (reg-verify.c), then
 * its manifest's loader (reg-loader-private.h) loads the code and makes
 * the compilers of the manifest's backends that the registry still has
 * from that manifest.
 *
 * Lock order.  This file owns the outermost of libreg's locks.  A thread
 * takes them in this order and never the other way round:
 *
 *   1. loading_lock (here): the process's loading lock, recursive.  Every
 *      load through any registry takes it first, and the C loader's code
 *      (opening a module, its reg_module_load(), making its compilers)
 *      runs under it, so that a module may look backends up in any
 *      registry, the default one included, while it loads: such a lookup
 *      takes it again, then the other registry's load lock.  It also
 *      guards the C loader's own tables (reg-module.c) and serialises
 *      loading across the process, so no two modules load at once.
 *   2. RegRegistry.load_lock, one per registry, recursive: serialises
 *      discovery and loading in that registry.  A thread holds the load
 *      locks of two registries at once only in module code, so under
 *      loading_lock, which orders any two such threads.  Discovery takes
 *      a load lock without loading_lock, and takes nothing under it but
 *      its registry's contents lock.
 *   3. RegRegistry.lock: the registry's contents.  Held only around the
 *      registry's own code: no signal, notification, loader or compiler
 *      code runs under it, and no lock but those of 4 is taken under it.
 *   4. Leaves, under which nothing is taken: the compile cache's lock
 *      (reg-compile-cache.c), the storage cache lock of reg-storage.c,
 *      and the locks of GLib and GObject themselves.
 *
 * test-stress's /stress/lock-order loads modules through several
 * registries at once, ThreadSanitizer watching (tools/check's tsan
 * configuration).
 *
 * Interpreters.  The loaders of Python and JavaScript (RegLoader.unlocked)
 * run their code with none of these locks held: an interpreter has locks
 * of its own (Python's interpreter lock and its per-module import locks,
 * GJS's one thread), which its code holds while it calls libreg, so a
 * thread must never wait for one of them under a lock of libreg.  Their
 * loaders' tables are guarded by those locks; two threads that load one
 * source at once are serialised by the interpreter (Python imports a
 * module once), each may make a compiler, and the registry keeps the first
 * one registered.  A thread that loads a source again while it is loading
 * it (its module looks one of its own backends up) fails, see
 * enter_source().
 */

#include <pthread.h>
#include <string.h>

#include "reg-compiler-private.h"
#include "reg-environment-private.h"
#include "reg-file-private.h"
#include "reg-language-loader-private.h"
#include "reg-message-private.h"
#include "reg-module-private.h"
#include "reg-registry-private.h"
#include "reg-verify-private.h"

/* A pthread mutex with a static initialiser rather than a static
 * GRecMutex: that one allocates its mutex on first use, which threads may
 * race to do (GLib orders them with atomics ThreadSanitizer cannot see),
 * and this lock is the first any load takes, with no other lock held. */
static pthread_mutex_t loading_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static void
lock_loading (RegRegistry *self)
{
  if (pthread_mutex_lock (&loading_lock) != 0)
    g_assert_not_reached ();
  g_rec_mutex_lock (&self->load_lock);
}

static void
unlock_loading (RegRegistry *self)
{
  g_rec_mutex_unlock (&self->load_lock);
  if (pthread_mutex_unlock (&loading_lock) != 0)
    g_assert_not_reached ();
}

/* Whether the name @offered, which @manifest's code offers but does not
 * declare, is declared by another manifest of the same source file (a
 * search directory holding a symbolic or hard link to the module, a bind
 * mount): it is then that manifest's to make, on its own lookup.  Looking
 * at the files is I/O: outside the lock. */
static gboolean
declared_through_another_path (RegRegistry *self,
                               RegManifest *manifest,
                               const char  *offered)
{
  g_autoptr(GPtrArray) others = g_ptr_array_new_with_free_func ((GDestroyNotify) _reg_manifest_unref);
  g_autofree char *source = _reg_manifest_dup_source_path (manifest);
  g_autofree char *identity = _reg_file_identity (source);
  const RegEntry *entry;

  g_rw_lock_reader_lock (&self->lock);
  entry = g_hash_table_lookup (self->backends, offered);
  if (entry != NULL && entry->manifest != NULL)
    g_ptr_array_add (others, _reg_manifest_ref (entry->manifest));
  for (guint i = 0; entry != NULL && entry->hidden != NULL && i < entry->hidden->len; i++)
    g_ptr_array_add (others, _reg_manifest_ref (g_ptr_array_index (entry->hidden, i)));
  g_rw_lock_reader_unlock (&self->lock);

  for (guint i = 0; i < others->len && identity != NULL; i++)
    {
      RegManifest *other = g_ptr_array_index (others, i);
      g_autofree char *other_source = NULL;
      g_autofree char *other_identity = NULL;

      if (other->loader != manifest->loader || _reg_manifest_find_backend (other, offered) < 0)
        continue;
      other_source = _reg_manifest_dup_source_path (other);
      other_identity = _reg_file_identity (other_source);
      if (g_strcmp0 (identity, other_identity) == 0)
        return TRUE;
    }

  return FALSE;
}

/* The offers of @loaded that @manifest does not declare and no manifest
 * of the same file declares: warned about, and recorded in @rejected (a
 * message per name) for the lookups of those names to explain. */
static void
find_undeclared (RegRegistry *self,
                 RegManifest *manifest,
                 GObject     *loaded,
                 GHashTable  *rejected)
{
  g_auto(GStrv) offers = manifest->loader->offers (loaded);
  g_autofree char *source = _reg_manifest_dup_source_path (manifest);
  g_autofree char *shown_source = _reg_escape (source);

  for (guint i = 0; offers != NULL && offers[i] != NULL; i++)
    {
      g_autofree char *shown_name = NULL;

      if (_reg_manifest_find_backend (manifest, offers[i]) >= 0 ||
          declared_through_another_path (self, manifest, offers[i]))
        continue;

      shown_name = _reg_escape (offers[i]);
      g_warning ("module %s offers backend '%s', which no manifest of it declares; ignored",
                 shown_source, shown_name);
      g_hash_table_replace (rejected, g_strdup (offers[i]),
                            g_strdup_printf ("backend '%s': module %s offers it, but no manifest "
                                             "of it declares it. Declare it in the module's "
                                             "manifest ([Backend %s]).",
                                             shown_name, shown_source, shown_name));
    }
}

/* Makes the compiler of @manifest's backend @index, with what the
 * manifest declares of it. */
static RegCompiler *
make_compiler (RegManifest  *manifest,
               GObject      *loaded,
               guint         index,
               GError      **error)
{
  const RegManifestBackend *declaration = &manifest->backends[index];
  RegBackendDetails *details = declaration->details;
  g_autoptr(GError) local_error = NULL;
  RegCompiler *compiler;

  compiler = manifest->loader->make (loaded, declaration->name, declaration->entry, &local_error);
  if (compiler == NULL)
    {
      if (local_error == NULL)
        g_set_error (&local_error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                     "the %s loader made no compiler of it and gave no reason",
                     manifest->loader->name);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  /* Its manifest's flags (Shareable=) add to the compiler's own, and its
   * operators (Operators=) bound what it takes: the module's author
   * speaks for its compiler there.  Its manifest's schema, none included,
   * is the compiler's: the options a chooser was shown are those compiles
   * are checked against. */
  if (details != NULL)
    _reg_compiler_set_declared (compiler, details->compiler_flags, details->operators);
  if (!_reg_compiler_set_options (compiler, details != NULL ? details->options : NULL))
    {
      g_autofree char *source = _reg_manifest_dup_source_path (manifest);
      g_autofree char *shown = _reg_escape (source);

      g_warning ("backend '%s' of module %s: its compiler had a schema before the "
                 "manifest's could be given to it; the manifest's is not checked",
                 declaration->name, shown);
    }

  return compiler;
}

/* The sources an unlocked loader is loading in this thread, innermost
 * first: strings "LOADER:SOURCE". */
static void
free_sources (gpointer data)
{
  g_slist_free_full (data, g_free);
}

static GPrivate loading_sources = G_PRIVATE_INIT (free_sources);

static char *
source_key (RegManifest *manifest)
{
  /* A source that is no file (a Python module) is its name: one module
   * of that name per interpreter, whichever manifest leads to it. */
  g_autofree char *path = manifest->loader->locate != NULL
                          ? manifest->loader->locate (manifest->dir, manifest->source)
                          : g_strdup (manifest->source);

  return g_strconcat (manifest->loader->name, ":", path, NULL);
}

/* Records that this thread loads @manifest's source, or fails when it is
 * loading it already: the source's own code looked up @name while it was
 * imported.  Its interpreter would hand back the half-imported module (or
 * wait for itself); the backend cannot exist before its code has run. */
static gboolean
enter_source (RegManifest  *manifest,
              const char   *name,
              const char   *shown_manifest,
              GError      **error)
{
  GSList *sources = g_private_get (&loading_sources);
  g_autofree char *key = source_key (manifest);

  if (g_slist_find_custom (sources, key, (GCompareFunc) strcmp) != NULL)
    {
      g_autofree char *shown = _reg_escape (manifest->source);

      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                   "backend '%s' (declared by %s): it was looked up while its code (%s, "
                   "Loader=%s) was being imported in this thread, by that import: a backend "
                   "exists only once its code is imported. Look it up after the import.",
                   name, shown_manifest, shown, manifest->loader->name);
      return FALSE;
    }

  g_private_set (&loading_sources, g_slist_prepend (sources, g_steal_pointer (&key)));
  return TRUE;
}

static void
leave_source (void)
{
  GSList *sources = g_private_get (&loading_sources);

  g_free (sources->data);
  g_private_set (&loading_sources, g_slist_delete_link (sources, sources));
}

/* Loads @manifest's source and makes the compilers of its backends
 * named in @wanted into @made (the one of @name setting @name_error when
 * it fails); returns what was loaded, or NULL with @error set. */
static GObject *
load_and_make (RegRegistry  *self,
               RegManifest  *manifest,
               const char   *name,
               GPtrArray    *wanted,
               GArray       *made,
               GHashTable   *rejected,
               GError      **name_error,
               GError      **error)
{
  GObject *loaded = manifest->loader->load (manifest->dir, manifest->source, error);

  if (loaded == NULL)
    {
      if (*error == NULL)
        g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                     "the %s loader failed without giving a reason", manifest->loader->name);
      return NULL;
    }

  if (manifest->loader->offers != NULL)
    find_undeclared (self, manifest, loaded, rejected);

  /* Making a compiler runs its code: outside the contents lock. */
  g_array_set_size (made, wanted->len);
  for (guint i = 0; i < wanted->len; i++)
    {
      const char *wanted_name = g_ptr_array_index (wanted, i);
      int index = _reg_manifest_find_backend (manifest, wanted_name);
      gboolean is_name = strcmp (wanted_name, name) == 0;

      g_array_index (made, RegCompiler *, i) =
        make_compiler (manifest, loaded, index, is_name ? name_error : NULL);
    }

  return loaded;
}

/* Records why loading @name from @manifest failed, for its infos to
 * tell; TRUE when that is news. */
static gboolean
record_failure (RegRegistry  *self,
                RegManifest  *manifest,
                const char   *name,
                const GError *failure)
{
  gboolean changed = FALSE;
  RegEntry *entry;

  g_rw_lock_writer_lock (&self->lock);
  entry = g_hash_table_lookup (self->backends, name);
  if (entry != NULL && entry->manifest == manifest && entry->compiler == NULL &&
      g_strcmp0 (entry->load_error, failure->message) != 0)
    {
      g_free (entry->load_error);
      entry->load_error = g_strdup (failure->message);
      changed = TRUE;
    }
  g_rw_lock_writer_unlock (&self->lock);

  return changed;
}

/* Verdict keys
 *
 * A C backend's verdicts are recorded against its module file.  A Python
 * or JavaScript backend has none of its own: its verdicts are recorded
 * against a key file in the user's cache, named after what decides a
 * check's result, which it holds as text: the manifest and the source (an
 * ES module file) with their stamps, and for Python the interpreter's
 * environment.  Below that text, a Python backend's key file lists the
 * files of its module, which only the interpreter can find, with their
 * stamps when it was last checked.  A verdict holds while the key file is
 * the one it was recorded against and those files are as listed: an
 * edited module is checked anew. */

/* Key files are small: the lines above, and a line per file of a module. */
#define VERDICT_KEY_MAX_SIZE (4 << 20)

static void
append_stamp (GString    *text,
              const char *path)
{
  RegFileStamp stamp;

  if (_reg_file_stamp_get (path, &stamp))
    g_string_append_printf (text, "%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT ":%" G_GINT64_FORMAT
                            ":%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT,
                            stamp.dev, stamp.ino, stamp.size, stamp.mtime_ns, stamp.ctime_ns);
  else
    g_string_append (text, "missing");
}

/* Whether the key file @path exists, and each file it lists is as it
 * was when listed. */
static gboolean
key_file_holds (const char *path)
{
  g_autoptr(GBytes) contents = _reg_file_read (path, VERDICT_KEY_MAX_SIZE, "verdict key", NULL, NULL);
  g_auto(GStrv) lines = NULL;

  if (contents == NULL)
    return FALSE;

  /* _reg_file_read() ends the contents with a NUL byte. */
  lines = g_strsplit (g_bytes_get_data (contents, NULL), "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *space = strchr (lines[i], ' ');
      g_autoptr(GString) now = g_string_new ("file=");
      g_autofree char *file = NULL;

      if (!g_str_has_prefix (lines[i], "file="))
        continue;
      if (space == NULL)
        return FALSE;
      file = g_strcompress (space + 1);
      append_stamp (now, file);
      if ((gsize) (space - lines[i]) != now->len || strncmp (lines[i], now->str, now->len) != 0)
        return FALSE;
    }

  return TRUE;
}

char *
_reg_loading_dup_verdict_path (const RegManifest *manifest,
                               gboolean           create)
{
  g_autoptr(GString) key = NULL;
  g_autoptr(GBytes) written = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *manifest_path = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *digest = NULL;
  g_autofree char *path = NULL;
  g_auto(GStrv) files = NULL;
  gboolean python = manifest->loader == &_reg_python_loader;

  if ((!python && manifest->loader != &_reg_gjs_loader) || !_reg_environment_is_trusted ())
    return _reg_manifest_dup_source_path (manifest);

  manifest_path = _reg_manifest_dup_path (manifest);
  key = g_string_new ("libreg verdict key 2\n");
  g_string_append_printf (key, "loader=%s\nmanifest=%s ", manifest->loader->name, manifest_path);
  append_stamp (key, manifest_path);
  if (python)
    {
      /* A Python module is no file of the manifest's: its name stands. */
      g_autofree char *environment = _reg_language_loader_dup_python_environment ();

      g_string_append_printf (key, "\nsource=%s\nenvironment=%s", manifest->source, environment);
    }
  else
    {
      g_autofree char *source = _reg_manifest_dup_source_path (manifest);

      g_string_append_printf (key, "\nsource=%s ", source);
      append_stamp (key, source);
    }
  g_string_append_c (key, '\n');

  /* Named after that text, which a file never changes: the file's own
   * identity stays that of the state it names. */
  digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, key->str, key->len);
  dir = g_build_filename (g_get_user_cache_dir (), "libreg", "verdict-keys", NULL);
  path = g_strconcat (dir, G_DIR_SEPARATOR_S, digest, ".key", NULL);

  /* No key file, or a module changed since: no verdict recorded holds. */
  if (!create)
    return key_file_holds (path) ? g_steal_pointer (&path) : NULL;

  /* Without its files, a verdict holds until the text above changes. */
  if (python && (files = _reg_language_loader_dup_python_files (manifest->source, &error)) == NULL)
    g_debug ("the verdicts of %s do not follow its files: %s", manifest_path, error->message);
  for (guint i = 0; files != NULL && files[i] != NULL; i++)
    {
      g_autofree char *escaped = g_strescape (files[i], NULL);

      /* "file=STAMP PATH", the path escaped: key_file_holds() reads it. */
      g_string_append (key, "file=");
      append_stamp (key, files[i]);
      g_string_append_printf (key, " %s\n", escaped);
    }

  /* Rewritten only when it changed: its identity is what verdicts hold. */
  written = _reg_file_read (path, VERDICT_KEY_MAX_SIZE, "verdict key", NULL, NULL);
  if (written != NULL && g_bytes_get_size (written) == key->len &&
      memcmp (g_bytes_get_data (written, NULL), key->str, key->len) == 0)
    return g_steal_pointer (&path);
  if (g_mkdir_with_parents (dir, 0700) != 0 ||
      !g_file_set_contents_full (path, key->str, key->len, G_FILE_SET_CONTENTS_CONSISTENT, 0600, NULL))
    {
      g_debug ("the verdict key %s cannot be written: verdicts are recorded against the source",
               path);
      return _reg_manifest_dup_source_path (manifest);
    }

  return g_steal_pointer (&path);
}

/* The code is loaded only if no verdict quarantines it (and, when
 * asked, after its backends were checked in a child process, seeing the
 * backends this registry sees). */
static gboolean
check_before_load (RegRegistry  *self,
                   RegManifest  *manifest,
                   const char   *name,
                   const char   *manifest_path,
                   GPtrArray    *wanted,
                   GError      **error)
{
  RegModuleChecks checks = g_atomic_int_get (&self->module_checks);
  g_auto(GStrv) search_path = NULL;
  g_autofree char *verdict_path = NULL;
  g_autofree char *source = NULL;
  gboolean check_first = (checks & REG_MODULE_CHECKS_VERIFY) != 0;

  if (checks == REG_MODULE_CHECKS_NONE)
    return TRUE;

  /* No key file: no verdict was recorded against it. */
  verdict_path = _reg_loading_dup_verdict_path (manifest, check_first);
  if (verdict_path == NULL)
    return TRUE;

  source = _reg_manifest_dup_source_path (manifest);
  search_path = reg_registry_get_search_paths (self);
  return _reg_verify_before_load (check_first, (const char * const *) search_path, name, source,
                                  verdict_path, manifest_path, manifest->dir, wanted, error);
}

RegCompiler *
_reg_loading_load (RegRegistry  *self,
                   const char   *name,
                   GError      **error_out)
{
  GError *failure = NULL;
  GError **error = &failure;
  g_autoptr(RegManifest) manifest = NULL;
  g_autoptr(GArray) made = g_array_new (FALSE, TRUE, sizeof (RegCompiler *));
  g_autoptr(GPtrArray) wanted = g_ptr_array_new ();  /* names */
  g_autoptr(GPtrArray) registered = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) garbage = _reg_registry_garbage_new ();
  g_autoptr(GHashTable) rejected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GError) name_error = NULL;
  g_autofree char *manifest_path = NULL;
  g_autofree char *shown_manifest = NULL;
  RegCompiler *result = NULL;
  GObject *loaded = NULL;
  gboolean first_load = FALSE;
  GHashTableIter iter;
  gpointer key, value;
  RegEntry *entry;

  g_array_set_clear_func (made, (GDestroyNotify) g_clear_object);

  lock_loading (self);

  /* Another thread may have loaded it, or unregistered it, meanwhile.
   * What it takes from the manifest: the backends the registry still has
   * from it, not loaded. */
  g_rw_lock_reader_lock (&self->lock);
  entry = g_hash_table_lookup (self->backends, name);
  if (entry == NULL)
    _reg_registry_set_unknown_error_locked (self, name, error);
  else if (entry->compiler != NULL)
    result = g_object_ref (entry->compiler);
  else
    {
      manifest = _reg_manifest_ref (entry->manifest);
      for (guint i = 0; i < manifest->n_backends; i++)
        {
          const RegEntry *other = g_hash_table_lookup (self->backends, manifest->backends[i].name);

          if (other != NULL && other->manifest == manifest && other->compiler == NULL)
            g_ptr_array_add (wanted, (gpointer) manifest->backends[i].name);
        }
    }
  g_rw_lock_reader_unlock (&self->lock);

  if (manifest == NULL)
    goto out;

  manifest_path = _reg_manifest_dup_path (manifest);
  shown_manifest = _reg_escape (manifest_path);

  /* An interpreter's code, and what identifies its verdicts (which may
   * ask the interpreter): no lock of libreg held (see the top). */
  if (manifest->loader->unlocked)
    {
      if (!enter_source (manifest, name, shown_manifest, error))
        goto out;
      unlock_loading (self);
    }
  if (check_before_load (self, manifest, name, manifest_path, wanted, error))
    loaded = load_and_make (self, manifest, name, wanted, made, rejected, &name_error,
                            &local_error);
  if (manifest->loader->unlocked)
    {
      lock_loading (self);
      leave_source ();
    }

  /* Refused by the checks (error set), or failed to load. */
  if (loaded == NULL)
    {
      if (local_error != NULL)
        g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                    "backend '%s' (declared by %s): ", name, shown_manifest);
      goto out;
    }

  g_rw_lock_writer_lock (&self->lock);
  g_hash_table_iter_init (&iter, rejected);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_hash_table_iter_steal (&iter);
      g_hash_table_replace (self->rejected, key, value);
    }
  first_load = g_hash_table_add (self->loaded, loaded);
  for (guint i = 0; i < wanted->len; i++)
    {
      RegCompiler **compiler = &g_array_index (made, RegCompiler *, i);
      RegEntry *target = g_hash_table_lookup (self->backends, g_ptr_array_index (wanted, i));

      /* Unless another thread took the name meanwhile (a runtime
       * registration wins, docs/discovery.md), or a rescan gave it to
       * another manifest. */
      if (*compiler != NULL && target != NULL && target->manifest == manifest &&
          target->compiler == NULL)
        {
          target->compiler = g_steal_pointer (compiler);
          g_clear_pointer (&target->load_error, g_free);
          g_ptr_array_add (registered, g_strdup (target->name));
        }
    }

  entry = g_hash_table_lookup (self->backends, name);
  if (entry == NULL)
    _reg_registry_set_unknown_error_locked (self, name, error);
  else if (entry->compiler != NULL)
    result = g_object_ref (entry->compiler);
  else if (name_error != NULL)
    g_propagate_prefixed_error (error, g_steal_pointer (&name_error),
                                "backend '%s' (declared by %s): ", name, shown_manifest);
  else
    g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                 "backend '%s' (declared by %s): it was declared again while its module loaded; "
                 "look it up again", name, shown_manifest);
  _reg_registry_invalidate_locked (self, garbage);
  g_rw_lock_writer_unlock (&self->lock);

out:
  unlock_loading (self);

  if (first_load && REG_IS_MODULE (loaded))
    g_signal_emit (self, _reg_registry_signals[REG_REGISTRY_MODULE_LOADED], 0, loaded);
  _reg_registry_emit_names (self, _reg_registry_signals[REG_REGISTRY_BACKEND_REGISTERED], registered);
  if (failure != NULL && manifest != NULL && record_failure (self, manifest, name, failure))
    g_signal_emit (self, _reg_registry_signals[REG_REGISTRY_BACKEND_CHANGED],
                   g_quark_try_string (name), name);

  if (failure != NULL)
    g_propagate_error (error_out, failure);
  return result;
}

/* Checking modules */

/* The manifest whose declaration the backend @name is; an error for an
 * unknown name, or for a backend registered at run time, which has none
 * (and no module to check). */
static RegManifest *
dup_declaring_manifest (RegRegistry  *self,
                        const char   *name,
                        GError      **error)
{
  RegManifest *manifest = NULL;
  const RegEntry *entry;

  _reg_discovery_ensure_name (self, name);

  g_rw_lock_reader_lock (&self->lock);
  entry = g_hash_table_lookup (self->backends, name);
  if (entry == NULL)
    _reg_registry_set_unknown_error_locked (self, name, error);
  else if (entry->manifest == NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                 "backend '%s' is registered at run time, not declared by a module: "
                 "there is no module to check", name);
  else
    manifest = _reg_manifest_ref (entry->manifest);
  g_rw_lock_reader_unlock (&self->lock);

  return manifest;
}

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
 * module runs in the calling process.  The verdict is recorded in the
 * store @options names, against the identity of the module file (for a
 * backend written in Python or JavaScript, of a key file in the user's
 * cache that stands for its manifest and, for JavaScript, the ES module
 * file, for Python the files of the module's package and the
 * interpreter's environment), when that file did not change during the
 * check, replacing the backend's earlier verdict there.  A crash or a
 * timeout quarantines the module (see
 * [property@Reg.Registry:module-checks]); a newer verdict of the same
 * backend, in either store, lifts the quarantine its crash or timeout had
 * put.
 *
 * Fails with %REG_REGISTRY_ERROR_INVALID_BACKEND for an unknown name,
 * %G_IO_ERROR_NOT_SUPPORTED for a backend registered at run time (there is
 * no module to check) and for `"system"` with a backend written in Python
 * or JavaScript (its verdicts follow one user's interpreter and files:
 * they are the user's), %G_IO_ERROR_INVALID_ARGUMENT for bad @options,
 * %G_IO_ERROR_CANCELLED, the error of starting the checker or
 * %G_SPAWN_ERROR_FAILED when it ended before it reached the module (both
 * in the %G_SPAWN_ERROR domain: no verdict about the module), or
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
  g_autoptr(RegManifest) manifest = NULL;
  g_autofree char *source = NULL;
  g_autofree char *verdict_path = NULL;
  g_auto(GStrv) search_path = NULL;
  RegVerdict *verdict;
  RegVerifyOptions parsed;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (options == NULL || g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT), NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!_reg_verify_options_parse (options, &parsed, error))
    return NULL;

  manifest = dup_declaring_manifest (self, name, error);
  if (manifest == NULL)
    return NULL;

  if (parsed.store == REG_VERIFY_STORE_SYSTEM && manifest->loader != &_reg_module_loader)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "backend '%s' is written in %s: its verdicts are each user's, as they follow "
                   "the user's interpreter and files, and none is recorded for the system. "
                   "Check it for yourself, without the system store.",
                   name, manifest->loader == &_reg_python_loader ? "Python" : "JavaScript");
      return NULL;
    }

  source = _reg_manifest_dup_source_path (manifest);
  verdict_path = _reg_loading_dup_verdict_path (manifest, TRUE);
  search_path = reg_registry_get_search_paths (self);
  verdict = _reg_verify_run ((const char * const *) search_path, name, source, verdict_path,
                             manifest->dir, &parsed, cancellable, error);
  if (verdict != NULL)
    g_signal_emit (self, _reg_registry_signals[REG_REGISTRY_BACKEND_CHANGED],
                   g_quark_try_string (name), name);

  return verdict;
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
  g_autoptr(RegManifest) manifest = NULL;
  g_autofree char *verdict_path = NULL;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  manifest = dup_declaring_manifest (self, name, NULL);
  if (manifest == NULL)
    return NULL;

  verdict_path = _reg_loading_dup_verdict_path (manifest, FALSE);
  return verdict_path != NULL ? _reg_verify_dup_verdict (name, verdict_path) : NULL;
}
