/* reg-registry.c: the registry of compiler backends: its table and the
 * public API on it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What else a registry does is in the files of its concepts; see
 * reg-registry-private.h.
 */

#include "reg-config.h"

#include <string.h>

#include "reg-backend-info-private.h"
#include "reg-close-matches.h"
#include "reg-enums.h"
#include "reg-hazard-private.h"
#include "reg-message-private.h"
#include "reg-module.h"
#include "reg-name-private.h"
#include "reg-registry-private.h"
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
 * backend's, with the reasons of the others (of the first eight, and how
 * many more failed) added to its message.
 *
 * Compiled functions of backends that may share them are kept in a
 * compile cache: those whose compiler says %REG_COMPILER_FLAGS_SHAREABLE
 * ([method@Reg.Compiler.get_flags]) or whose module's manifest says
 * `Shareable=true` ([method@Reg.BackendInfo.get_compiler_flags] tells
 * both), as inductor's and eager's do.  Compiling an equal graph (the
 * same graph as the backend receives it: the same nodes in the same order,
 * names and constants' bits included, and the same outputs, as graphs
 * parsed from one text or built by the same calls are), for example
 * inputs of the same shapes, with equal options, on the same backend
 * object returns the same function instead of compiling again, whether
 * the graph is the same object or not.
 * Concurrent compiles of one key compile once, unless waiting for the
 * first could block what it needs (see "Threads and signals").  The
 * cache keeps [property@Reg.Registry:compile-cache-size] functions (0
 * disables it; `REG_COMPILE_CACHE_SIZE` sets it from the environment) and
 * at most 256 MiB of estimated memory (the bytes of every node's value in
 * the compiled graphs), evicting the least recently used; a compile whose
 * estimate alone would pass that is not cached, and evicts nothing.  It
 * drops a backend's functions when the backend is unregistered,
 * everything on a rescan, and the default backend's compiles when the
 * default changes.
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

GParamSpec *_reg_registry_properties[REG_REGISTRY_N_PROPS];
guint _reg_registry_signals[REG_REGISTRY_N_SIGNALS];

G_DEFINE_FINAL_TYPE (RegRegistry, reg_registry, G_TYPE_OBJECT)

/* The table's entries */

RegEntry *
_reg_entry_new_declared (RegManifest *manifest,
                         guint        index)
{
  RegEntry *entry = g_new0 (RegEntry, 1);

  entry->declaration = &manifest->backends[index];
  entry->name = entry->declaration->name;
  entry->tags = entry->declaration->tags;
  entry->manifest = _reg_manifest_ref (manifest);
  entry->origin = REG_BACKEND_ORIGIN_MODULE;

  return entry;
}

void
_reg_entry_free (RegEntry *entry)
{
  g_clear_object (&entry->compiler);
  g_clear_pointer (&entry->manifest, _reg_manifest_unref);
  g_clear_pointer (&entry->hidden, g_ptr_array_unref);
  g_free (entry->load_error);
  g_free (entry->owned_name);
  g_strfreev (entry->owned_tags);
  g_free (entry);
}

/* Whether @a and @b are the same manifest file, read once or twice. */
static gboolean
same_manifest_file (const RegManifest *a,
                    const RegManifest *b)
{
  /* Directories are interned strings. */
  return a == b || (a->dir == b->dir && strcmp (a->file, b->file) == 0);
}

void
_reg_entry_hide (RegEntry    *entry,
                 RegManifest *manifest)
{
  /* A loaded backend's own manifest, read again by a rescan, hides
   * nothing. */
  if (entry->manifest != NULL && same_manifest_file (entry->manifest, manifest))
    return;
  if (entry->hidden == NULL)
    entry->hidden = g_ptr_array_new_with_free_func ((GDestroyNotify) _reg_manifest_unref);
  if (!g_ptr_array_find_with_equal_func (entry->hidden, manifest, (GEqualFunc) same_manifest_file, NULL))
    g_ptr_array_add (entry->hidden, _reg_manifest_ref (manifest));
}

void
_reg_entry_take_over (RegEntry *taker,
                      RegEntry *replaced)
{
  if (replaced->manifest != NULL)
    _reg_entry_hide (taker, replaced->manifest);
  for (guint i = 0; replaced->hidden != NULL && i < replaced->hidden->len; i++)
    _reg_entry_hide (taker, g_ptr_array_index (replaced->hidden, i));
}

static gboolean
entry_has_any_tag (const RegEntry     *entry,
                   const char * const *tags)
{
  for (guint i = 0; tags[i] != NULL; i++)
    if (g_strv_contains (entry->tags, tags[i]))
      return TRUE;

  return FALSE;
}

/* The table's views */

GPtrArray *
_reg_registry_garbage_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
}

void
_reg_registry_invalidate_locked (RegRegistry *self,
                                 GPtrArray   *garbage)
{
  GHashTable *old = g_atomic_pointer_exchange (&self->snapshot, NULL);

  if (old != NULL)
    g_ptr_array_add (self->retired, old);
  g_clear_pointer (&self->sorted, g_ptr_array_unref);

  /* Snapshots no reader protects any more can go. */
  for (guint i = self->retired->len; i > 0; i--)
    if (!_reg_hazard_is_protected (g_ptr_array_index (self->retired, i - 1)))
      g_ptr_array_add (garbage, g_ptr_array_steal_index_fast (self->retired, i - 1));
}

/* Publishes a snapshot of the loaded backends if none is published: a
 * GHashTable of names and compilers of its own, which no one changes once
 * it is published, so that readers need no lock (GHashTable lookups write
 * nothing). */
static void
publish_snapshot (RegRegistry *self)
{
  GHashTable *snapshot;
  GHashTableIter iter;
  gpointer value;

  g_rw_lock_writer_lock (&self->lock);
  if (g_atomic_pointer_get (&self->snapshot) == NULL)
    {
      snapshot = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
      g_hash_table_iter_init (&iter, self->backends);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          const RegEntry *entry = value;

          if (entry->compiler != NULL)
            g_hash_table_insert (snapshot, g_strdup (entry->name), g_object_ref (entry->compiler));
        }
      g_atomic_pointer_set (&self->snapshot, snapshot);
    }
  g_rw_lock_writer_unlock (&self->lock);
}

static int
compare_entries (gconstpointer a,
                 gconstpointer b)
{
  return strcmp ((*(const RegEntry * const *) a)->name, (*(const RegEntry * const *) b)->name);
}

/* The sort is done once per change of the set of names.  Call with the
 * writer lock held. */
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
  g_ptr_array_sort (self->sorted, compare_entries);
}

/* Emits a detailed name signal.  The detail is only looked up, never
 * interned: nobody can have connected to a detail whose quark does not
 * exist, and interning every name ever registered would grow the quark
 * table without bound. */
static void
emit_name (RegRegistry *self,
           guint        signal_id,
           const char  *name)
{
  g_signal_emit (self, signal_id, g_quark_try_string (name), name);
}

void
_reg_registry_emit_names (RegRegistry *self,
                          guint        signal_id,
                          GPtrArray   *names)
{
  for (guint i = 0; i < names->len; i++)
    emit_name (self, signal_id, g_ptr_array_index (names, i));
}

static char **
suggest_locked (RegRegistry *self,
                const char  *name)
{
  g_autofree const char **names = (const char **) g_hash_table_get_keys_as_array (self->backends, NULL);

  return reg_close_matches (name, names, 3, 0.6);
}

void
_reg_registry_set_unknown_error_locked (RegRegistry  *self,
                                        const char   *name,
                                        GError      **error)
{
  g_auto(GStrv) suggestions = NULL;
  g_autoptr(GString) quoted = g_string_new (NULL);
  g_autofree char *shown = NULL;
  const RegManifestSkip *skip;
  const char *rejected;

  if (error == NULL)
    return;

  rejected = g_hash_table_lookup (self->rejected, name);
  if (rejected != NULL)
    {
      g_set_error_literal (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED, rejected);
      return;
    }

  /* A name only a skipped manifest declares: saying why is more use than
   * suggestions. */
  skip = _reg_discovery_find_skipped_locked (self, name);
  if (skip != NULL)
    {
      g_autofree char *path = _reg_text_for_message (skip->path, -1, 4096);
      g_autofree char *why = _reg_message_embed (skip->reason);

      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND,
                   "Invalid backend: '%s'. The manifest %s declares it but was skipped: %s. %s",
                   name, path, why, skip->hint);
      return;
    }

  /* A name that could be a backend's is shown as it is (docs/names.md); any
   * other (a line break, a megabyte) is escaped and cut, so that the
   * message stays one readable line. */
  if (_reg_name_validate (name, "backend name", NULL))
    shown = g_strdup (name);
  else
    shown = _reg_text_for_message (name, -1, 255);

  suggestions = suggest_locked (self, name);
  for (guint i = 0; suggestions[i] != NULL; i++)
    g_string_append_printf (quoted, "%s'%s'", i > 0 ? ", " : ", did you mean: ", suggestions[i]);

  g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND,
               "Invalid backend: '%s'%s%s See `regctl list` for available backends.",
               shown, quoted->str, quoted->len > 0 ? "?" : ".");
}

/* The object */

static void
reg_registry_finalize (GObject *object)
{
  RegRegistry *self = REG_REGISTRY (object);

  g_hash_table_unref (self->backends);
  g_clear_pointer (&self->sorted, g_ptr_array_unref);
  g_ptr_array_unref (self->retired);
  g_clear_pointer (&self->snapshot, g_hash_table_unref);
  g_hash_table_unref (self->loaded);
  g_hash_table_unref (self->rejected);
  _reg_discovery_clear (self);
  _reg_settings_clear (self);
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
    case REG_REGISTRY_PROP_DEFAULT_BACKEND:
      g_value_take_string (value, reg_registry_dup_default_backend (self));
      break;
    case REG_REGISTRY_PROP_MODULE_CHECKS:
      g_value_set_flags (value, reg_registry_get_module_checks (self));
      break;
    case REG_REGISTRY_PROP_FALLBACK_BACKENDS:
      g_value_take_boxed (value, reg_registry_dup_fallback_backends (self));
      break;
    case REG_REGISTRY_PROP_COMPILE_CACHE_SIZE:
      g_value_set_uint (value, reg_registry_get_compile_cache_size (self));
      break;
    case REG_REGISTRY_PROP_STRICT:
      g_value_set_boolean (value, reg_registry_get_strict (self));
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
    case REG_REGISTRY_PROP_DEFAULT_BACKEND:
      reg_registry_set_default_backend (self, g_value_get_string (value));
      break;
    case REG_REGISTRY_PROP_MODULE_CHECKS:
      reg_registry_set_module_checks (self, g_value_get_flags (value));
      break;
    case REG_REGISTRY_PROP_FALLBACK_BACKENDS:
      reg_registry_set_fallback_backends (self, g_value_get_boxed (value));
      break;
    case REG_REGISTRY_PROP_COMPILE_CACHE_SIZE:
      reg_registry_set_compile_cache_size (self, g_value_get_uint (value));
      break;
    case REG_REGISTRY_PROP_STRICT:
      reg_registry_set_strict (self, g_value_get_boolean (value));
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
  _reg_registry_properties[REG_REGISTRY_PROP_DEFAULT_BACKEND] =
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
  _reg_registry_properties[REG_REGISTRY_PROP_MODULE_CHECKS] =
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
   * known yet: they are resolved when a compile falls back.  They must
   * follow the naming rules (see [method@Reg.Registry.set_fallback_backends]).
   */
  _reg_registry_properties[REG_REGISTRY_PROP_FALLBACK_BACKENDS] =
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
  _reg_registry_properties[REG_REGISTRY_PROP_COMPILE_CACHE_SIZE] =
    g_param_spec_uint ("compile-cache-size", NULL, NULL,
                       0, G_MAXUINT, REG_COMPILE_CACHE_DEFAULT_SIZE,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * RegRegistry:strict:
   *
   * Whether a compile runs on the backend asked for alone: no fallback,
   * and no partition of a graph whose nodes the backend does not all take
   * (see [Partial backends](partial-backends.html)); such a graph fails
   * with %REG_COMPILER_ERROR_UNSUPPORTED_OP naming every operator the
   * backend does not take.  %FALSE by default; `REG_STRICT=1` sets it for
   * every registry made while it is in the environment.
   */
  _reg_registry_properties[REG_REGISTRY_PROP_STRICT] =
    g_param_spec_boolean ("strict", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, REG_REGISTRY_N_PROPS, _reg_registry_properties);

  /* The signals about one backend, detailed with its name. */
  static const char * const name_signals[REG_REGISTRY_N_SIGNALS] = {
    /**
     * RegRegistry::backend-registered:
     * @self: the registry
     * @name: the backend's name
     *
     * A compiler was added under @name: registered at run time, or made
     * when its module was loaded.  The detail is the name, so
     * `backend-registered::inductor` reports that backend only.
     */
    [REG_REGISTRY_BACKEND_REGISTERED] = "backend-registered",

    /**
     * RegRegistry::backend-declared:
     * @self: the registry
     * @name: the backend's name
     *
     * Discovery found a manifest declaring @name; nothing was loaded.
     * [method@Reg.Registry.rescan] emits it again for a name whose manifest
     * now says something else of it.  Detailed with the name.
     */
    [REG_REGISTRY_BACKEND_DECLARED] = "backend-declared",

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
    [REG_REGISTRY_BACKEND_UNREGISTERED] = "backend-unregistered",

    /**
     * RegRegistry::backend-changed:
     * @self: the registry
     * @name: the backend's name
     *
     * What [method@Reg.Registry.get_backend_info] says of the backend @name
     * changed while it kept its name: a lookup failed to load it, or
     * [method@Reg.Registry.verify_backend] recorded a verdict about it.
     * (Registering, declaring and loading have signals of their own.)
     * Detailed with the name.
     */
    [REG_REGISTRY_BACKEND_CHANGED] = "backend-changed",
  };

  for (guint i = 0; i < REG_REGISTRY_N_SIGNALS; i++)
    if (name_signals[i] != NULL)
      _reg_registry_signals[i] =
        g_signal_new (name_signals[i],
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
  _reg_registry_signals[REG_REGISTRY_MODULE_LOADED] =
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
   * description), or, once, ran the nodes of a graph that @failed does
   * not take on @next (the backends that did, separated by ", ", when
   * there are several; see [Partial backends](partial-backends.html)).
   * Emitted in the thread that compiles, or, for
   * [method@Reg.Registry.compile_async], in the caller's main context.
   */
  _reg_registry_signals[REG_REGISTRY_FALLBACK] =
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
                                          (GDestroyNotify) _reg_entry_free);
  self->retired = _reg_registry_garbage_new ();
  self->loaded = g_hash_table_new (NULL, NULL);
  self->rejected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  _reg_discovery_init (self);
  _reg_settings_init (self);
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
  g_autoptr(GPtrArray) garbage = _reg_registry_garbage_new ();
  g_autoptr(RegEntry) replaced = NULL;
  g_auto(GStrv) normalized = NULL;
  RegEntry *entry, *existing;

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

  entry = g_new0 (RegEntry, 1);
  entry->name = entry->owned_name = g_strdup (name);
  entry->owned_tags = g_steal_pointer (&normalized);
  entry->tags = (const char * const *) entry->owned_tags;
  entry->compiler = g_object_ref (compiler);
  entry->origin = REG_BACKEND_ORIGIN_RUNTIME;

  g_rw_lock_writer_lock (&self->lock);
  existing = g_hash_table_lookup (self->backends, name);
  if (existing != NULL && existing->compiler != NULL)
    {
      g_rw_lock_writer_unlock (&self->lock);
      _reg_entry_free (entry);
      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_DUPLICATE_NAME,
                   "duplicate name: %s", name);
      return FALSE;
    }
  if (existing != NULL)
    {
      g_hash_table_steal_extended (self->backends, name, NULL, (gpointer *) &replaced);
      _reg_entry_take_over (entry, replaced);
    }
  g_hash_table_insert (self->backends, (gpointer) entry->name, entry);
  _reg_registry_invalidate_locked (self, garbage);
  g_rw_lock_writer_unlock (&self->lock);

  emit_name (self, _reg_registry_signals[REG_REGISTRY_BACKEND_REGISTERED], name);

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
  g_autoptr(GPtrArray) garbage = _reg_registry_garbage_new ();
  g_autoptr(RegEntry) removed = NULL;

  g_return_val_if_fail (REG_IS_REGISTRY (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  _reg_discovery_ensure_name (self, name);

  g_rw_lock_writer_lock (&self->lock);
  if (g_hash_table_steal_extended (self->backends, name, NULL, (gpointer *) &removed))
    _reg_registry_invalidate_locked (self, garbage);
  else
    _reg_registry_set_unknown_error_locked (self, name, error);
  g_rw_lock_writer_unlock (&self->lock);

  if (removed == NULL)
    return FALSE;

  if (removed->compiler != NULL)
    _reg_compile_cache_drop_compiler (self->cache, removed->compiler);

  /* The compiler is unreffed after the signal, outside the lock: its
   * finalizer is someone else's code. */
  emit_name (self, _reg_registry_signals[REG_REGISTRY_BACKEND_UNREGISTERED], name);

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
  GHashTable *snapshot;
  RegEntry *entry;
  gboolean known;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* The hot path: a loaded backend costs a probe of the snapshot and a
   * reference, and writes no memory other threads read. */
  snapshot = _reg_hazard_protect ((gpointer *) &self->snapshot);
  if (snapshot != NULL && (compiler = g_hash_table_lookup (snapshot, name)) != NULL)
    g_object_ref (compiler);
  _reg_hazard_release ();

  if (compiler != NULL)
    return compiler;

  g_rw_lock_reader_lock (&self->lock);
  entry = g_hash_table_lookup (self->backends, name);
  known = entry != NULL;
  if (known && entry->compiler != NULL)
    compiler = g_object_ref (entry->compiler);
  g_rw_lock_reader_unlock (&self->lock);

  if (compiler != NULL)
    {
      /* Loaded but missing from the snapshot: the snapshot is stale. */
      publish_snapshot (self);
      return compiler;
    }

  if (!known)
    _reg_discovery_ensure (self);

  return _reg_loading_load (self, name, error);
}

static char **
dup_sorted_names_locked (RegRegistry        *self,
                         const char * const *exclude_tags)
{
  GPtrArray *names = g_ptr_array_new_null_terminated (self->sorted->len, g_free, TRUE);

  for (guint i = 0; i < self->sorted->len; i++)
    {
      const RegEntry *entry = g_ptr_array_index (self->sorted, i);

      if (!entry_has_any_tag (entry, exclude_tags))
        g_ptr_array_add (names, g_strdup (entry->name));
    }

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

  _reg_discovery_ensure (self);

  /* The writer lock only to sort, once per change of the set of names. */
  g_rw_lock_reader_lock (&self->lock);
  names = self->sorted != NULL ? dup_sorted_names_locked (self, exclude_tags) : NULL;
  g_rw_lock_reader_unlock (&self->lock);
  if (names != NULL)
    return names;

  g_rw_lock_writer_lock (&self->lock);
  ensure_sorted_locked (self);
  names = dup_sorted_names_locked (self, exclude_tags);
  g_rw_lock_writer_unlock (&self->lock);

  return names;
}

/* An info snapshot taken under the lock, waiting for what the compiler of
 * a loaded backend says of itself: its flags, and a runtime backend's
 * options.  Asking runs the compiler's code, so after the lock is released
 * (see info_request_finish()). */
typedef struct
{
  RegBackendInfo *info;
  RegCompiler    *compiler;    /* loaded backends only */
  char           *load_error;  /* why its last load failed, or NULL */
  RegManifest    *manifest;    /* the declaration's, for its verdicts */
} InfoRequest;

static void
info_request_start_locked (RegRegistry    *self,
                           const RegEntry *entry,
                           InfoRequest    *request)
{
  request->info = _reg_backend_info_new (entry->name, entry->tags, entry->origin,
                                         g_strcmp0 (self->default_name, entry->name) == 0,
                                         entry->manifest, entry->declaration, entry->hidden);
  request->compiler = entry->compiler != NULL ? g_object_ref (entry->compiler) : NULL;
  request->load_error = g_strdup (entry->load_error);
  request->manifest = entry->manifest != NULL ? _reg_manifest_ref (entry->manifest) : NULL;
}

/* Call without the lock: reads the verdict stores, and asks the
 * compiler.  Returns the info (transfer full). */
static RegBackendInfo *
info_request_finish (InfoRequest *request)
{
  g_autoptr(RegVerdict) verdict = NULL;

  /* The file its verdicts are recorded against (a key file for Python and
   * JavaScript, whose making is I/O): outside the lock too. */
  if (request->manifest != NULL)
    {
      g_autofree char *verdict_path = _reg_loading_dup_verdict_path (request->manifest, FALSE);

      if (verdict_path != NULL)
        verdict = _reg_verify_dup_verdict (reg_backend_info_get_name (request->info), verdict_path);
      g_clear_pointer (&request->manifest, _reg_manifest_unref);
    }
  _reg_backend_info_complete (request->info, request->compiler, verdict, request->load_error);
  g_clear_pointer (&request->load_error, g_free);
  g_clear_object (&request->compiler);

  return g_steal_pointer (&request->info);
}

GPtrArray *
_reg_registry_dup_infos (RegRegistry        *self,
                         const char * const *exclude_tags)
{
  g_autoptr(GArray) requests = NULL;
  GPtrArray *infos;

  _reg_discovery_ensure (self);

  g_rw_lock_writer_lock (&self->lock);
  ensure_sorted_locked (self);
  requests = g_array_sized_new (FALSE, TRUE, sizeof (InfoRequest), self->sorted->len);
  for (guint i = 0; i < self->sorted->len; i++)
    {
      const RegEntry *entry = g_ptr_array_index (self->sorted, i);
      InfoRequest request;

      if (entry_has_any_tag (entry, exclude_tags))
        continue;
      info_request_start_locked (self, entry, &request);
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
  const RegEntry *entry;
  char **tags = NULL;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  _reg_discovery_ensure_name (self, name);

  g_rw_lock_reader_lock (&self->lock);
  entry = g_hash_table_lookup (self->backends, name);
  if (entry != NULL)
    tags = g_strdupv ((char **) entry->tags);
  else
    _reg_registry_set_unknown_error_locked (self, name, error);
  g_rw_lock_reader_unlock (&self->lock);

  return tags;
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
  const RegEntry *entry;
  InfoRequest request = { NULL, };

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  _reg_discovery_ensure_name (self, name);

  g_rw_lock_reader_lock (&self->lock);
  entry = g_hash_table_lookup (self->backends, name);
  if (entry != NULL)
    info_request_start_locked (self, entry, &request);
  g_rw_lock_reader_unlock (&self->lock);

  return request.info != NULL ? info_request_finish (&request) : NULL;
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
    found = ((const RegEntry *) value)->compiler == compiler;
  g_rw_lock_reader_unlock (&self->lock);

  return found;
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

  _reg_discovery_ensure (self);

  g_rw_lock_reader_lock (&self->lock);
  suggestions = suggest_locked (self, name);
  g_rw_lock_reader_unlock (&self->lock);

  return suggestions;
}
