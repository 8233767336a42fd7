/* reg-backend-info.c: a snapshot of what the registry knows of a backend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-backend-info-private.h"
#include "reg-enums.h"

/**
 * RegBackendInfo:
 *
 * What a [class@Reg.Registry] knew of one backend when
 * [method@Reg.Registry.get_backend_info] was called: its name, tags and
 * description, where it comes from, and whether its compiler exists yet.
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
  gboolean          loaded;
  RegBackendOrigin  origin;
  char             *manifest_path;
  char            **shadowed_manifests;
};

enum {
  PROP_0,
  PROP_NAME,
  PROP_TAGS,
  PROP_DESCRIPTION,
  PROP_MODULE_PATH,
  PROP_LOADED,
  PROP_ORIGIN,
  PROP_MANIFEST_PATH,
  PROP_SHADOWED_MANIFESTS,
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
  g_free (self->manifest_path);
  g_strfreev (self->shadowed_manifests);

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
      g_value_set_boolean (value, self->loaded);
      break;
    case PROP_ORIGIN:
      g_value_set_enum (value, self->origin);
      break;
    case PROP_MANIFEST_PATH:
      g_value_set_string (value, self->manifest_path);
      break;
    case PROP_SHADOWED_MANIFESTS:
      g_value_set_boxed (value, self->shadowed_manifests);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reg_backend_info_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  RegBackendInfo *self = REG_BACKEND_INFO (object);

  switch (prop_id)
    {
    case PROP_NAME:
      self->name = g_value_dup_string (value);
      break;
    case PROP_TAGS:
      self->tags = g_value_dup_boxed (value);
      break;
    case PROP_DESCRIPTION:
      self->description = g_value_dup_string (value);
      break;
    case PROP_MODULE_PATH:
      self->module_path = g_value_dup_string (value);
      break;
    case PROP_LOADED:
      self->loaded = g_value_get_boolean (value);
      break;
    case PROP_ORIGIN:
      self->origin = g_value_get_enum (value);
      break;
    case PROP_MANIFEST_PATH:
      self->manifest_path = g_value_dup_string (value);
      break;
    case PROP_SHADOWED_MANIFESTS:
      self->shadowed_manifests = g_value_dup_boxed (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reg_backend_info_class_init (RegBackendInfoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = reg_backend_info_finalize;
  object_class->get_property = reg_backend_info_get_property;
  object_class->set_property = reg_backend_info_set_property;

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
   * backend, also before it is loaded; %NULL for runtime backends.
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

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
reg_backend_info_init (RegBackendInfo *self)
{
}

void
_reg_backend_info_set_declaration (RegBackendInfo     *self,
                                   const char         *manifest_path,
                                   const char * const *shadowed_manifests)
{
  static const char * const none[] = { NULL };

  g_assert (self->manifest_path == NULL && self->shadowed_manifests == NULL);

  self->manifest_path = g_strdup (manifest_path);
  self->shadowed_manifests = g_strdupv ((char **) (shadowed_manifests != NULL ? shadowed_manifests : none));
}

RegBackendInfo *
_reg_backend_info_new (const char         *name,
                       const char * const *tags,
                       const char         *description,
                       const char         *module_path,
                       gboolean            loaded,
                       RegBackendOrigin    origin)
{
  return g_object_new (REG_TYPE_BACKEND_INFO,
                       "name", name,
                       "tags", tags,
                       "description", description,
                       "module-path", module_path,
                       "loaded", loaded,
                       "origin", origin,
                       NULL);
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
 * Gets the full path of the module file that declares the backend.
 *
 * Returns: (transfer none) (nullable) (type filename): the path, or %NULL
 *   for a runtime backend
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

  return self->loaded;
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
