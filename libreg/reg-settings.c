/* reg-settings.c: a registry's settings: the default backend and where
 * it came from, the fallback backends, the compile cache's size and what
 * is checked before a module is opened, and the environment variables that
 * set them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-environment-private.h"
#include "reg-message-private.h"
#include "reg-name-private.h"
#include "reg-registry-private.h"

/* The non-empty strings of @names (NULL: none) that follow the naming
 * rules, a new NULL-terminated array of copies.  Those that break them
 * are left out and counted in *@n_invalid, the first one's error in
 * @error. */
static GPtrArray *
fallbacks_new (const char * const  *names,
               guint               *n_invalid,
               GError             **error)
{
  /* Reserved, so that pdata is a NULL-terminated array even when empty. */
  GPtrArray *fallbacks = g_ptr_array_new_null_terminated (1, g_free, TRUE);

  *n_invalid = 0;
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      if (names[i][0] == '\0')
        continue;
      if (_reg_name_validate (names[i], "backend name", *n_invalid == 0 ? error : NULL))
        g_ptr_array_add (fallbacks, g_strdup (names[i]));
      else
        (*n_invalid)++;
    }

  return fallbacks;
}

/* REG_DEFAULT_BACKEND, REG_FALLBACK_BACKENDS, REG_COMPILE_CACHE_SIZE,
 * REG_VERIFY_MODULES and REG_STRICT, or the built-in settings; see the
 * class description. */
void
_reg_settings_init (RegRegistry *self)
{
  gboolean trusted = _reg_environment_is_trusted ();
  const char *default_name = trusted ? g_getenv ("REG_DEFAULT_BACKEND") : NULL;
  const char *fallbacks = trusted ? g_getenv ("REG_FALLBACK_BACKENDS") : NULL;
  const char *cache_size = trusted ? g_getenv ("REG_COMPILE_CACHE_SIZE") : NULL;
  const char *verify = trusted ? g_getenv ("REG_VERIFY_MODULES") : NULL;
  const char *strict = trusted ? g_getenv ("REG_STRICT") : NULL;
  guint64 size = REG_COMPILE_CACHE_DEFAULT_SIZE;

  self->strict = g_strcmp0 (strict, "1") == 0;

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

  {
    g_auto(GStrv) names = fallbacks != NULL ? g_strsplit (fallbacks, G_SEARCHPATH_SEPARATOR_S, -1) : NULL;
    g_autoptr(GError) error = NULL;
    guint n_invalid;

    self->fallbacks = fallbacks_new ((const char * const *) names, &n_invalid, &error);
    if (n_invalid > 0)
      {
        g_autofree char *why = _reg_message_embed (error->message);

        if (n_invalid == 1)
          g_warning ("REG_FALLBACK_BACKENDS: %s; the name is left out", why);
        else
          g_warning ("REG_FALLBACK_BACKENDS: %u names break the naming rules and are left "
                     "out, the first: %s", n_invalid, why);
      }
  }

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

void
_reg_settings_clear (RegRegistry *self)
{
  g_free (self->default_name);
  g_clear_object (&self->default_compiler);
  g_ptr_array_unref (self->fallbacks);
  _reg_compile_cache_free (self->cache);
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
    g_object_notify_by_pspec (G_OBJECT (self), _reg_registry_properties[REG_REGISTRY_PROP_DEFAULT_BACKEND]);
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

/* A default that REG_DEFAULT_BACKEND set to a name that is no backend is
 * reported once, with suggestions, and replaced by the built-in default. */
RegCompiler *
_reg_settings_resolve_default (RegRegistry  *self,
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
          g_autofree char *why = _reg_message_embed (local_error->message);

          g_warning ("REG_DEFAULT_BACKEND is ignored: %s; the default backend is '%s'",
                     why, REG_DEFAULT_BACKEND);
          set_default (self, NULL, NULL, REG_SETTING_SOURCE_BUILT_IN);
        }
      g_clear_error (&local_error);
      g_clear_pointer (&name, g_free);
      return _reg_settings_resolve_default (self, name_out, error);
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

  return _reg_settings_resolve_default (self, &name, error);
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
 * Empty strings are ignored.  A name need not be a backend yet (it is
 * looked up when a compile falls back to it), but it must follow the
 * naming rules (see "Backend names and tags"): names that break them are a
 * programmer error, refused with a critical warning that names the first
 * one, and the fallback backends stay as they were.  This function is
 * thread-safe.
 */
void
reg_registry_set_fallback_backends (RegRegistry        *self,
                                    const char * const *names)
{
  g_autoptr(GPtrArray) old = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *fallbacks;
  gboolean changed;
  guint n_invalid;

  g_return_if_fail (REG_IS_REGISTRY (self));

  fallbacks = fallbacks_new (names, &n_invalid, &error);
  if (n_invalid > 0)
    {
      g_autofree char *why = _reg_message_embed (error->message);
      g_autofree char *count = n_invalid > 1
        ? g_strdup_printf ("%u names break the naming rules, the first: ", n_invalid)
        : NULL;

      g_critical ("%s: %s%s; the fallback backends are unchanged", G_STRFUNC,
                  count != NULL ? count : "", why);
      g_ptr_array_unref (fallbacks);
      return;
    }

  g_rw_lock_writer_lock (&self->lock);
  old = g_steal_pointer (&self->fallbacks);
  changed = !g_strv_equal ((const char * const *) old->pdata,
                           (const char * const *) fallbacks->pdata);
  self->fallbacks = fallbacks;
  g_rw_lock_writer_unlock (&self->lock);

  /* A partitioned function in the cache ran part of its graph on the
   * fallbacks of its time. */
  if (changed)
    {
      _reg_compile_cache_clear (self->cache);
      g_object_notify_by_pspec (G_OBJECT (self), _reg_registry_properties[REG_REGISTRY_PROP_FALLBACK_BACKENDS]);
    }
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
  g_autoptr(GPtrArray) fallbacks = NULL;

  g_return_val_if_fail (REG_IS_REGISTRY (self), NULL);

  fallbacks = _reg_settings_ref_fallbacks (self);

  return g_strdupv ((char **) fallbacks->pdata);
}

/* A compile reads the chain without copying it: a chain of n names costs
 * a compile nothing until it falls back. */
GPtrArray *
_reg_settings_ref_fallbacks (RegRegistry *self)
{
  GPtrArray *fallbacks;

  g_rw_lock_reader_lock (&self->lock);
  fallbacks = g_ptr_array_ref (self->fallbacks);
  g_rw_lock_reader_unlock (&self->lock);

  return fallbacks;
}

/**
 * reg_registry_set_strict:
 * @self: a [class@Reg.Registry]
 * @strict: whether compiles run on the backend asked for alone
 *
 * Sets [property@Reg.Registry:strict].  Empties the compile cache when it
 * changes, as it may hold partitioned functions.  This function is
 * thread-safe.
 */
void
reg_registry_set_strict (RegRegistry *self,
                         gboolean     strict)
{
  g_return_if_fail (REG_IS_REGISTRY (self));

  strict = !!strict;
  if (g_atomic_int_exchange (&self->strict, strict) != strict)
    {
      _reg_compile_cache_clear (self->cache);
      g_object_notify_by_pspec (G_OBJECT (self), _reg_registry_properties[REG_REGISTRY_PROP_STRICT]);
    }
}

/**
 * reg_registry_get_strict:
 * @self: a [class@Reg.Registry]
 *
 * Gets [property@Reg.Registry:strict].  This function is thread-safe.
 *
 * Returns: whether compiles run on the backend asked for alone
 */
gboolean
reg_registry_get_strict (RegRegistry *self)
{
  g_return_val_if_fail (REG_IS_REGISTRY (self), FALSE);

  return g_atomic_int_get (&self->strict);
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
  g_object_notify_by_pspec (G_OBJECT (self), _reg_registry_properties[REG_REGISTRY_PROP_COMPILE_CACHE_SIZE]);
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
    g_object_notify_by_pspec (G_OBJECT (self), _reg_registry_properties[REG_REGISTRY_PROP_MODULE_CHECKS]);
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
