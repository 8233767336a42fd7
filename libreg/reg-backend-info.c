/* reg-backend-info.c: a snapshot of what the registry knows of a backend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-backend-info-private.h"
#include "reg-compiler-private.h"
#include "reg-enums.h"
#include "reg-option-private.h"

/**
 * RegBackendInfo:
 *
 * What a [class@Reg.Registry] knew of one backend when
 * [method@Reg.Registry.get_backend_info] was called: its name, tags and
 * description, where it comes from, whether its compiler exists yet and
 * whether it is the default, the options it takes, whether its compiled
 * functions may be shared, the operators it compiles and, from its
 * manifest, its version, authors, website and license: what a user
 * choosing a backend is shown.  [class@Reg.BackendList] keeps a list of
 * them up to date.
 *
 * It is immutable, so it may be read from any thread; it does not follow
 * later changes of the registry.
 */

struct _RegBackendInfo
{
  GObject           parent_instance;

  char             *name;
  char            **tags;
  char             *description;
  char             *module_path;
  RegBackendOrigin  origin;
  gboolean          is_default;
  GListModel       *options;  /* an option list, or NULL */
  RegBackendDetails *details; /* the manifest's (shared, immutable), or NULL */
  RegCompilerFlags  compiler_flags;
  char             *manifest_path;
  char            **shadowed_manifests;
  RegBackendState   state;
  RegVerdict       *verdict;
  char             *reason;
  char             *loader;
  char             *entry_point;
};

enum {
  PROP_0,
  PROP_NAME,
  PROP_TAGS,
  PROP_DESCRIPTION,
  PROP_MODULE_PATH,
  PROP_LOADED,
  PROP_ORIGIN,
  PROP_IS_DEFAULT,
  PROP_OPTIONS,
  PROP_VERSION,
  PROP_AUTHORS,
  PROP_WEBSITE,
  PROP_LICENSE,
  PROP_COMPILER_FLAGS,
  PROP_OPERATORS,
  PROP_MANIFEST_PATH,
  PROP_SHADOWED_MANIFESTS,
  PROP_STATE,
  PROP_VERDICT,
  PROP_REASON,
  PROP_LOADER,
  PROP_ENTRY_POINT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (RegBackendInfo, reg_backend_info, G_TYPE_OBJECT)

static void
reg_backend_info_finalize (GObject *object)
{
  RegBackendInfo *self = REG_BACKEND_INFO (object);

  g_free (self->name);
  g_strfreev (self->tags);
  g_free (self->description);
  g_free (self->module_path);
  g_clear_object (&self->options);
  g_clear_pointer (&self->details, _reg_backend_details_unref);
  g_free (self->manifest_path);
  g_strfreev (self->shadowed_manifests);
  g_clear_object (&self->verdict);
  g_free (self->reason);
  g_free (self->loader);
  g_free (self->entry_point);

  G_OBJECT_CLASS (reg_backend_info_parent_class)->finalize (object);
}

static void
reg_backend_info_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  RegBackendInfo *self = REG_BACKEND_INFO (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_TAGS:
      g_value_set_boxed (value, self->tags);
      break;
    case PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;
    case PROP_MODULE_PATH:
      g_value_set_string (value, self->module_path);
      break;
    case PROP_LOADED:
      g_value_set_boolean (value, self->state == REG_BACKEND_STATE_LOADED);
      break;
    case PROP_ORIGIN:
      g_value_set_enum (value, self->origin);
      break;
    case PROP_IS_DEFAULT:
      g_value_set_boolean (value, self->is_default);
      break;
    case PROP_OPTIONS:
      g_value_set_object (value, self->options);
      break;
    case PROP_VERSION:
      g_value_set_string (value, reg_backend_info_get_version (self));
      break;
    case PROP_AUTHORS:
      g_value_set_boxed (value, reg_backend_info_get_authors (self));
      break;
    case PROP_WEBSITE:
      g_value_set_string (value, reg_backend_info_get_website (self));
      break;
    case PROP_LICENSE:
      g_value_set_string (value, reg_backend_info_get_license (self));
      break;
    case PROP_COMPILER_FLAGS:
      g_value_set_flags (value, self->compiler_flags);
      break;
    case PROP_OPERATORS:
      g_value_set_boxed (value, reg_backend_info_get_operators (self));
      break;
    case PROP_MANIFEST_PATH:
      g_value_set_string (value, self->manifest_path);
      break;
    case PROP_SHADOWED_MANIFESTS:
      g_value_set_boxed (value, self->shadowed_manifests);
      break;
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_VERDICT:
      g_value_set_object (value, self->verdict);
      break;
    case PROP_REASON:
      g_value_set_string (value, self->reason);
      break;
    case PROP_LOADER:
      g_value_set_string (value, self->loader);
      break;
    case PROP_ENTRY_POINT:
      g_value_set_string (value, self->entry_point);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reg_backend_info_class_init (RegBackendInfoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = reg_backend_info_finalize;
  object_class->get_property = reg_backend_info_get_property;

  /**
   * RegBackendInfo:name:
   *
   * The backend's name.
   */
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL, flags);

  /**
   * RegBackendInfo:tags:
   *
   * The backend's tags, in the order they were given (declared tags for a
   * backend whose module is not loaded).
   */
  properties[PROP_TAGS] =
    g_param_spec_boxed ("tags", NULL, NULL, G_TYPE_STRV, flags);

  /**
   * RegBackendInfo:description:
   *
   * The description its manifest gives, or %NULL (runtime backends have
   * none).
   */
  properties[PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL, flags);

  /**
   * RegBackendInfo:module-path:
   *
   * The full path of the module file that declares or provided the
   * backend, also before it is loaded: the shared object of a module
   * written in C, the ES module file of a backend written in JavaScript.
   * %NULL for runtime backends, and for backends written in Python, whose
   * module Python finds when it imports it (see
   * [property@Reg.BackendInfo:entry-point]).
   */
  properties[PROP_MODULE_PATH] =
    g_param_spec_string ("module-path", NULL, NULL, NULL, flags);

  /**
   * RegBackendInfo:loaded:
   *
   * Whether a compiler object exists for the backend: always for runtime
   * backends, once its module is loaded for module backends.
   */
  properties[PROP_LOADED] =
    g_param_spec_boolean ("loaded", NULL, NULL, FALSE, flags);

  /**
   * RegBackendInfo:origin:
   *
   * Where the backend comes from.
   */
  properties[PROP_ORIGIN] =
    g_param_spec_enum ("origin", NULL, NULL, REG_TYPE_BACKEND_ORIGIN,
                       REG_BACKEND_ORIGIN_RUNTIME, flags);

  /**
   * RegBackendInfo:is-default:
   *
   * Whether the backend's name was the registry's default backend (see
   * [property@Reg.Registry:default-backend]); %FALSE for every backend
   * while a compiler object is the default.
   */
  properties[PROP_IS_DEFAULT] =
    g_param_spec_boolean ("is-default", NULL, NULL, FALSE, flags);

  /**
   * RegBackendInfo:options:
   *
   * The options the backend takes, a list model of [class@Reg.Option], or
   * %NULL when it has no schema (its options go unchecked).  For a module
   * backend, its manifest's declarations, known without loading it; for a
   * backend registered at run time, [method@Reg.Compiler.get_options].
   */
  properties[PROP_OPTIONS] =
    g_param_spec_object ("options", NULL, NULL, G_TYPE_LIST_MODEL, flags);

  /**
   * RegBackendInfo:version:
   *
   * The version its manifest gives (`Version=`), or %NULL.
   */
  properties[PROP_VERSION] =
    g_param_spec_string ("version", NULL, NULL, NULL, flags);

  /**
   * RegBackendInfo:authors:
   *
   * The authors its manifest names (`Authors=`), or %NULL.
   */
  properties[PROP_AUTHORS] =
    g_param_spec_boxed ("authors", NULL, NULL, G_TYPE_STRV, flags);

  /**
   * RegBackendInfo:website:
   *
   * The http or https address its manifest gives (`Website=`), or %NULL.
   */
  properties[PROP_WEBSITE] =
    g_param_spec_string ("website", NULL, NULL, NULL, flags);

  /**
   * RegBackendInfo:license:
   *
   * The SPDX license expression its manifest gives (`License=`), or %NULL.
   */
  properties[PROP_LICENSE] =
    g_param_spec_string ("license", NULL, NULL, NULL, flags);

  /**
   * RegBackendInfo:compiler-flags:
   *
   * What the backend's compiler promises: the flags its manifest declares
   * (`Shareable=true` is %REG_COMPILER_FLAGS_SHAREABLE), ORed with those
   * of [method@Reg.Compiler.get_flags] once the compiler exists (a loaded
   * module backend, or one registered at run time).  These are the flags
   * the registry goes by: with %REG_COMPILER_FLAGS_SHAREABLE, it keeps the
   * backend's compiled functions in its compile cache.
   */
  properties[PROP_COMPILER_FLAGS] =
    g_param_spec_flags ("compiler-flags", NULL, NULL, REG_TYPE_COMPILER_FLAGS,
                        REG_COMPILER_FLAGS_NONE, flags);

  /**
   * RegBackendInfo:operators:
   *
   * The names of the operators its manifest says the backend compiles
   * (`Operators=`), in its order, or %NULL for every
   * operator (no `Operators=`, or a backend registered at run time).  A
   * compile of a graph that uses others runs them on other backends (see
   * [Partial backends](partial-backends.html)).
   */
  properties[PROP_OPERATORS] =
    g_param_spec_boxed ("operators", NULL, NULL, G_TYPE_STRV, flags);

  /**
   * RegBackendInfo:manifest-path:
   *
   * The full path of the `.backend` manifest that declared the backend,
   * or %NULL for a runtime backend.
   */
  properties[PROP_MANIFEST_PATH] =
    g_param_spec_string ("manifest-path", NULL, NULL, NULL, flags);

  /**
   * RegBackendInfo:shadowed-manifests:
   *
   * The manifests that declare the same name too, in the order discovery
   * read them, and that this backend hides: later in the search path, or
   * declarations of a name registered at run time.  Empty when none does.
   */
  properties[PROP_SHADOWED_MANIFESTS] =
    g_param_spec_boxed ("shadowed-manifests", NULL, NULL, G_TYPE_STRV, flags);

  /**
   * RegBackendInfo:state:
   *
   * Whether the backend can be used: declared, loaded, failed to load at
   * its last lookup, or quarantined.  A [class@Reg.BackendList] replaces
   * the info of a backend whose state changed, in its context.
   */
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL, REG_TYPE_BACKEND_STATE,
                       REG_BACKEND_STATE_DECLARED, flags);

  /**
   * RegBackendInfo:verdict:
   *
   * The recorded verdict that governs a module backend as its module file
   * is now (as [method@Reg.Registry.dup_verdict] finds it), or %NULL.
   */
  properties[PROP_VERDICT] =
    g_param_spec_object ("verdict", NULL, NULL, REG_TYPE_VERDICT, flags);

  /**
   * RegBackendInfo:reason:
   *
   * Why the backend cannot be used: for %REG_BACKEND_STATE_FAILED, the
   * message of its last lookup's error; for %REG_BACKEND_STATE_QUARANTINED,
   * the verdict's reason; otherwise %NULL.
   */
  properties[PROP_REASON] =
    g_param_spec_string ("reason", NULL, NULL, NULL, flags);

  /**
   * RegBackendInfo:loader:
   *
   * What loads the backend's code, its manifest's `Loader=`: `"c"` for a
   * module written in C, `"python"` or `"gjs"` for a backend written in
   * Python or JavaScript ([Writing a backend in Python or
   * JavaScript](writing-a-backend-in-python-or-javascript.html)); %NULL
   * for a runtime backend.
   */
  properties[PROP_LOADER] =
    g_param_spec_string ("loader", NULL, NULL, NULL, flags);

  /**
   * RegBackendInfo:entry-point:
   *
   * For a backend written in Python or JavaScript, what its manifest
   * makes it of, as `IMPORT:OBJECT`: `acme_reg.compiler:AcmeCompiler`
   * (the module Python imports and the object in it), `acme.js:acme` (the
   * ES module file beside the manifest and its export).  %NULL for the
   * others, whose [property@Reg.BackendInfo:module-path] says it.
   */
  properties[PROP_ENTRY_POINT] =
    g_param_spec_string ("entry-point", NULL, NULL, NULL, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
reg_backend_info_init (RegBackendInfo *self)
{
}

RegBackendInfo *
_reg_backend_info_new (const char               *name,
                       const char * const       *tags,
                       RegBackendOrigin          origin,
                       gboolean                  is_default,
                       const RegManifest        *manifest,
                       const RegManifestBackend *declaration,
                       GPtrArray                *hidden)
{
  RegBackendInfo *self = g_object_new (REG_TYPE_BACKEND_INFO, NULL);
  guint n_hidden = hidden != NULL ? hidden->len : 0;

  g_assert ((manifest == NULL) == (declaration == NULL));

  self->name = g_strdup (name);
  self->tags = g_strdupv ((char **) tags);
  self->origin = origin;
  self->is_default = is_default;
  self->shadowed_manifests = g_new0 (char *, n_hidden + 1);
  for (guint i = 0; i < n_hidden; i++)
    self->shadowed_manifests[i] = _reg_manifest_dup_path (g_ptr_array_index (hidden, i));

  if (manifest == NULL)
    return self;

  /* A loader without a file of its own (Python) has no module path. */
  if (manifest->loader->locate != NULL)
    self->module_path = _reg_manifest_dup_source_path (manifest);
  self->manifest_path = _reg_manifest_dup_path (manifest);
  self->loader = g_strdup (manifest->loader->name);
  if (declaration->entry != NULL)
    self->entry_point = g_strconcat (manifest->source, ":", declaration->entry, NULL);
  self->description = g_strdup (declaration->description);
  if (declaration->details != NULL)
    {
      self->details = _reg_backend_details_ref (declaration->details);
      g_set_object (&self->options, self->details->options);
      self->compiler_flags = self->details->compiler_flags;
    }

  return self;
}

void
_reg_backend_info_complete (RegBackendInfo *self,
                            RegCompiler    *compiler,
                            RegVerdict     *verdict,
                            const char     *load_error)
{
  g_assert (self->verdict == NULL && self->reason == NULL);

  g_set_object (&self->verdict, verdict);
  if (compiler != NULL)
    {
      self->state = REG_BACKEND_STATE_LOADED;
      /* A module backend's schema is its manifest's, in the info already. */
      if (self->origin == REG_BACKEND_ORIGIN_RUNTIME)
        g_set_object (&self->options, reg_compiler_get_options (compiler));
      self->compiler_flags |= _reg_compiler_get_effective_flags (compiler);
    }
  else if (verdict != NULL && reg_verdict_get_quarantines (verdict))
    {
      self->state = REG_BACKEND_STATE_QUARANTINED;
      self->reason = g_strdup (reg_verdict_get_reason (verdict));
    }
  else if (load_error != NULL)
    {
      self->state = REG_BACKEND_STATE_FAILED;
      self->reason = g_strdup (load_error);
    }
  else
    self->state = REG_BACKEND_STATE_DECLARED;
}

gboolean
_reg_backend_info_equal (RegBackendInfo *a,
                         RegBackendInfo *b)
{
  return g_strcmp0 (a->name, b->name) == 0 &&
         g_strv_equal ((const char * const *) a->tags, (const char * const *) b->tags) &&
         g_strcmp0 (a->description, b->description) == 0 &&
         g_strcmp0 (a->module_path, b->module_path) == 0 &&
         a->origin == b->origin &&
         a->is_default == b->is_default &&
         (a->options == b->options || _reg_option_list_equal (a->options, b->options)) &&
         _reg_backend_details_equal (a->details, b->details) &&
         a->compiler_flags == b->compiler_flags &&
         g_strcmp0 (a->manifest_path, b->manifest_path) == 0 &&
         g_strv_equal ((const char * const *) a->shadowed_manifests,
                       (const char * const *) b->shadowed_manifests) &&
         a->state == b->state &&
         g_strcmp0 (a->reason, b->reason) == 0 &&
         (a->verdict == NULL) == (b->verdict == NULL) &&
         (a->verdict == NULL || reg_verdict_get_time (a->verdict) == reg_verdict_get_time (b->verdict)) &&
         g_strcmp0 (a->loader, b->loader) == 0 &&
         g_strcmp0 (a->entry_point, b->entry_point) == 0;
}

/**
 * reg_backend_info_get_name:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets the backend's name.
 *
 * Returns: (transfer none): the name
 */
const char *
reg_backend_info_get_name (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->name;
}

/**
 * reg_backend_info_get_tags:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets the backend's tags.
 *
 * Returns: (transfer none) (array zero-terminated=1): the tags, possibly
 *   empty
 */
const char * const *
reg_backend_info_get_tags (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return (const char * const *) self->tags;
}

/**
 * reg_backend_info_get_description:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets the description a manifest gives the backend.
 *
 * Returns: (transfer none) (nullable): the description
 */
const char *
reg_backend_info_get_description (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->description;
}

/**
 * reg_backend_info_get_module_path:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets the full path of the module file that declares the backend (see
 * [property@Reg.BackendInfo:module-path]).
 *
 * Returns: (transfer none) (nullable) (type filename): the path, or %NULL
 *   for a runtime backend or one written in Python
 */
const char *
reg_backend_info_get_module_path (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->module_path;
}

/**
 * reg_backend_info_get_loaded:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets whether the backend's compiler object existed.
 *
 * Returns: %TRUE when it was loaded (or registered at run time)
 */
gboolean
reg_backend_info_get_loaded (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), FALSE);

  return self->state == REG_BACKEND_STATE_LOADED;
}

/**
 * reg_backend_info_get_origin:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets where the backend comes from.
 *
 * Returns: the origin
 */
RegBackendOrigin
reg_backend_info_get_origin (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), REG_BACKEND_ORIGIN_RUNTIME);

  return self->origin;
}

/**
 * reg_backend_info_get_is_default:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets whether the backend was the registry's default backend.
 *
 * Returns: %TRUE when its name was the default backend's
 */
gboolean
reg_backend_info_get_is_default (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), FALSE);

  return self->is_default;
}

/**
 * reg_backend_info_get_options:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets the options the backend takes: a module backend's are those its
 * manifest declares (its module need not be loaded), others' those of
 * [method@Reg.Compiler.get_options].  The list does not change.
 *
 * Returns: (transfer none) (nullable): a list model of [class@Reg.Option],
 *   or %NULL when the backend has no schema
 */
GListModel *
reg_backend_info_get_options (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->options;
}

/**
 * reg_backend_info_parse_options:
 * @self: a [class@Reg.BackendInfo]
 * @assignments: (array zero-terminated=1): options written as `KEY=VALUE`
 *   texts, such as `threads=2`, `fuse=false`, `passes=fold,cse`
 * @error: return location for a #GError
 *
 * Reads options written as text into the `a{sv}` dictionary
 * [method@Reg.Registry.compile] takes, by the backend's schema
 * ([method@Reg.BackendInfo.get_options], so a module backend's module
 * need not be loaded): each VALUE is read by the type the backend
 * declares for KEY, as [method@Reg.Option.parse_value] reads it, and
 * checked.  This is how `regctl run -o KEY=VALUE` reads its options, and
 * the way to give options from Python or JavaScript, where
 * `GLib.Variant("i", 2)` would be refused by a `uint32` option.  For a
 * backend without a schema, VALUE is GVariant text (`uint32 2`, `'fast'`),
 * which the backend checks itself.
 *
 * Fails with %REG_COMPILER_ERROR_BAD_OPTION: a KEY the backend does not
 * declare, as [method@Reg.Compiler.compile] refuses it (naming the
 * backend, suggesting close keys); a VALUE that is not of the type or not
 * allowed, as [method@Reg.Option.parse_value] refuses it (naming the key
 * and what was expected); a text that is not UTF-8 or not `KEY=VALUE`, or
 * a KEY given twice.
 *
 * The dictionary holds the keys in the order given.  This function is
 * thread-safe.
 *
 * Returns: (transfer full): the options, an `a{sv}` (not floating), or
 *   %NULL with @error set
 */
GVariant *
reg_backend_info_parse_options (RegBackendInfo      *self,
                                const char * const  *assignments,
                                GError             **error)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);
  g_return_val_if_fail (assignments != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return _reg_option_list_parse (self->options, self->name, assignments, error);
}

/**
 * reg_backend_info_get_version:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets the version the backend's manifest gives.
 *
 * Returns: (transfer none) (nullable): the version
 */
const char *
reg_backend_info_get_version (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->details != NULL ? self->details->version : NULL;
}

/**
 * reg_backend_info_get_authors:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets the authors the backend's manifest names.
 *
 * Returns: (transfer none) (nullable) (array zero-terminated=1): the
 *   authors
 */
const char * const *
reg_backend_info_get_authors (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->details != NULL ? (const char * const *) self->details->authors : NULL;
}

/**
 * reg_backend_info_get_operators:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets the names of the operators the backend's manifest says it compiles
 * ([property@Reg.BackendInfo:operators]).
 *
 * Returns: (transfer none) (nullable) (array zero-terminated=1): the
 *   operators, or %NULL for every operator
 */
const char * const *
reg_backend_info_get_operators (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->details != NULL ? (const char * const *) self->details->operators : NULL;
}

/**
 * reg_backend_info_get_website:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets the website the backend's manifest gives, an http or https URI.
 *
 * Returns: (transfer none) (nullable): the address
 */
const char *
reg_backend_info_get_website (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->details != NULL ? self->details->website : NULL;
}

/**
 * reg_backend_info_get_license:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets the license the backend's manifest gives, an SPDX expression.
 *
 * Returns: (transfer none) (nullable): the license
 */
const char *
reg_backend_info_get_license (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->details != NULL ? self->details->license : NULL;
}

/**
 * reg_backend_info_get_compiler_flags:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets what the backend's compiler promises, the flags the registry goes
 * by (see [property@Reg.BackendInfo:compiler-flags]).
 *
 * Returns: the flags
 */
RegCompilerFlags
reg_backend_info_get_compiler_flags (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), REG_COMPILER_FLAGS_NONE);

  return self->compiler_flags;
}

/**
 * reg_backend_info_get_manifest_path:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets the manifest that declared the backend: the file to look at when
 * its module fails to load.
 *
 * Returns: (transfer none) (nullable) (type filename): the path, or %NULL
 *   for a runtime backend
 */
const char *
reg_backend_info_get_manifest_path (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->manifest_path;
}

/**
 * reg_backend_info_get_loader:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets what loads the backend's code (see
 * [property@Reg.BackendInfo:loader]).
 *
 * Returns: (transfer none) (nullable): `"c"`, `"python"` or `"gjs"`, or
 *   %NULL for a runtime backend
 */
const char *
reg_backend_info_get_loader (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->loader;
}

/**
 * reg_backend_info_get_entry_point:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets what the manifest of a backend written in Python or JavaScript
 * makes it of (see [property@Reg.BackendInfo:entry-point]).
 *
 * Returns: (transfer none) (nullable): `IMPORT:OBJECT`, or %NULL
 */
const char *
reg_backend_info_get_entry_point (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->entry_point;
}

/**
 * reg_backend_info_get_shadowed_manifests:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets the other manifests declaring the backend's name, which this one
 * hides (see [property@Reg.BackendInfo:shadowed-manifests]).
 *
 * Returns: (transfer none) (array zero-terminated=1) (element-type filename):
 *   the paths, possibly none
 */
const char * const *
reg_backend_info_get_shadowed_manifests (RegBackendInfo *self)
{
  static const char * const none[] = { NULL };

  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->shadowed_manifests != NULL ? (const char * const *) self->shadowed_manifests : none;
}

/**
 * reg_backend_info_get_state:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets [property@Reg.BackendInfo:state].
 *
 * Returns: the state
 */
RegBackendState
reg_backend_info_get_state (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), REG_BACKEND_STATE_DECLARED);

  return self->state;
}

/**
 * reg_backend_info_get_verdict:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets [property@Reg.BackendInfo:verdict].
 *
 * Returns: (transfer none) (nullable): the verdict
 */
RegVerdict *
reg_backend_info_get_verdict (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->verdict;
}

/**
 * reg_backend_info_get_reason:
 * @self: a [class@Reg.BackendInfo]
 *
 * Gets [property@Reg.BackendInfo:reason].
 *
 * Returns: (transfer none) (nullable): why the backend cannot be used
 */
const char *
reg_backend_info_get_reason (RegBackendInfo *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_INFO (self), NULL);

  return self->reason;
}
