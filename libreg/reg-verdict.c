/* reg-verdict.c: the outcome of checking a backend out of process
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-enums.h"
#include "reg-verdict-private.h"

/**
 * RegVerdict:
 *
 * What checking a module backend in a process of its own found: whether
 * it loads, compiles the conformance set and agrees with eager on it (see
 * [method@Reg.Registry.verify_backend] and the "Verifying backends" page).
 *
 * A verdict is about one backend of one module file as it was when it was
 * checked (its device, inode, size, modification and change times).  A
 * verdict of kind %REG_VERDICT_KIND_CRASHED or %REG_VERDICT_KIND_TIMEOUT
 * quarantines the module file: registries do not open it until the file
 * changes or a newer check of the backend gives another verdict.
 *
 * It is immutable, so it may be read from any thread.
 */

enum {
  PROP_0,
  PROP_BACKEND_NAME,
  PROP_MODULE_PATH,
  PROP_KIND,
  PROP_REASON,
  PROP_UNSUPPORTED_OPS,
  PROP_TIME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (RegVerdict, reg_verdict, G_TYPE_OBJECT)

static void
reg_verdict_finalize (GObject *object)
{
  RegVerdict *self = REG_VERDICT (object);

  g_free (self->backend_name);
  g_free (self->module_path);
  g_free (self->reason);
  g_strfreev (self->unsupported_ops);
  g_clear_error (&self->store_error);

  G_OBJECT_CLASS (reg_verdict_parent_class)->finalize (object);
}

static void
reg_verdict_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  RegVerdict *self = REG_VERDICT (object);

  switch (prop_id)
    {
    case PROP_BACKEND_NAME:
      g_value_set_string (value, self->backend_name);
      break;
    case PROP_MODULE_PATH:
      g_value_set_string (value, self->module_path);
      break;
    case PROP_KIND:
      g_value_set_enum (value, self->kind);
      break;
    case PROP_REASON:
      g_value_set_string (value, self->reason);
      break;
    case PROP_UNSUPPORTED_OPS:
      g_value_set_boxed (value, self->unsupported_ops);
      break;
    case PROP_TIME:
      g_value_set_int64 (value, self->time_us / G_USEC_PER_SEC);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reg_verdict_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  RegVerdict *self = REG_VERDICT (object);

  switch (prop_id)
    {
    case PROP_BACKEND_NAME:
      self->backend_name = g_value_dup_string (value);
      break;
    case PROP_MODULE_PATH:
      self->module_path = g_value_dup_string (value);
      break;
    case PROP_KIND:
      self->kind = g_value_get_enum (value);
      break;
    case PROP_REASON:
      self->reason = g_value_dup_string (value);
      break;
    case PROP_UNSUPPORTED_OPS:
      /* Set at construction, to an empty list when none is given. */
      self->unsupported_ops = g_value_get_boxed (value) != NULL ? g_value_dup_boxed (value)
                                                                : g_new0 (char *, 1);
      break;
    case PROP_TIME:
      self->time_us = g_value_get_int64 (value) * G_USEC_PER_SEC;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reg_verdict_class_init (RegVerdictClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = reg_verdict_finalize;
  object_class->get_property = reg_verdict_get_property;
  object_class->set_property = reg_verdict_set_property;

  /**
   * RegVerdict:backend-name:
   *
   * The name of the backend that was checked.
   */
  properties[PROP_BACKEND_NAME] = g_param_spec_string ("backend-name", NULL, NULL, NULL, flags);

  /**
   * RegVerdict:module-path:
   *
   * The full path of the module file that provides the backend.
   */
  properties[PROP_MODULE_PATH] = g_param_spec_string ("module-path", NULL, NULL, NULL, flags);

  /**
   * RegVerdict:kind:
   *
   * The verdict.
   */
  properties[PROP_KIND] =
    g_param_spec_enum ("kind", NULL, NULL, REG_TYPE_VERDICT_KIND, REG_VERDICT_KIND_OK, flags);

  /**
   * RegVerdict:reason:
   *
   * What the check found, for every kind but %REG_VERDICT_KIND_OK (for
   * which it is %NULL): which graph and output differed and by how much,
   * the signal that killed the check, the load error...  Text that came
   * from the module is escaped, so the reason is one printable line.
   */
  properties[PROP_REASON] = g_param_spec_string ("reason", NULL, NULL, NULL, flags);

  /**
   * RegVerdict:unsupported-ops:
   *
   * The operators whose graphs of the conformance set the backend refused
   * with %REG_COMPILER_ERROR_UNSUPPORTED_OP, in the order of the set;
   * empty when it refused none.
   */
  properties[PROP_UNSUPPORTED_OPS] = g_param_spec_boxed ("unsupported-ops", NULL, NULL, G_TYPE_STRV, flags);

  /**
   * RegVerdict:time:
   *
   * When the check ran, in seconds since 1970-01-01 00:00 UTC.
   */
  properties[PROP_TIME] = g_param_spec_int64 ("time", NULL, NULL, 0, G_MAXINT64 / G_USEC_PER_SEC, 0, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
reg_verdict_init (RegVerdict *self)
{
}

RegVerdict *
_reg_verdict_new (const char         *backend_name,
                  const char         *module_path,
                  RegVerdictKind      kind,
                  const char         *reason,
                  const char * const *unsupported_ops,
                  gint64              time_us,
                  const RegFileStamp *stamp)
{
  RegVerdict *self = g_object_new (REG_TYPE_VERDICT,
                                   "backend-name", backend_name,
                                   "module-path", module_path,
                                   "kind", kind,
                                   "reason", reason,
                                   "unsupported-ops", unsupported_ops,
                                   NULL);

  /* Not yet shared: set here, to the microsecond the property lacks. */
  self->time_us = MAX (time_us, 0);
  self->stamp = *stamp;
  return self;
}

gboolean
_reg_verdict_kind_from_nick (const char     *nick,
                             RegVerdictKind *kind)
{
  g_autoptr(GEnumClass) klass = g_type_class_ref (REG_TYPE_VERDICT_KIND);
  GEnumValue *value = g_enum_get_value_by_nick (klass, nick);

  if (value != NULL)
    *kind = value->value;
  return value != NULL;
}

/**
 * reg_verdict_get_backend_name:
 * @self: a [class@Reg.Verdict]
 *
 * Returns: (transfer none): the name of the backend that was checked
 */
const char *
reg_verdict_get_backend_name (RegVerdict *self)
{
  g_return_val_if_fail (REG_IS_VERDICT (self), NULL);

  return self->backend_name;
}

/**
 * reg_verdict_get_module_path:
 * @self: a [class@Reg.Verdict]
 *
 * Returns: (transfer none) (type filename): the full path of the module file
 *   that was checked
 */
const char *
reg_verdict_get_module_path (RegVerdict *self)
{
  g_return_val_if_fail (REG_IS_VERDICT (self), NULL);

  return self->module_path;
}

/**
 * reg_verdict_get_kind:
 * @self: a [class@Reg.Verdict]
 *
 * Returns: the kind of verdict
 */
RegVerdictKind
reg_verdict_get_kind (RegVerdict *self)
{
  g_return_val_if_fail (REG_IS_VERDICT (self), REG_VERDICT_KIND_OK);

  return self->kind;
}

/**
 * reg_verdict_get_reason:
 * @self: a [class@Reg.Verdict]
 *
 * Returns: (transfer none) (nullable): what the check found (see
 *   [property@Reg.Verdict:reason]), %NULL for %REG_VERDICT_KIND_OK
 */
const char *
reg_verdict_get_reason (RegVerdict *self)
{
  g_return_val_if_fail (REG_IS_VERDICT (self), NULL);

  return self->reason;
}

/**
 * reg_verdict_get_unsupported_ops:
 * @self: a [class@Reg.Verdict]
 *
 * Returns: (transfer none) (array zero-terminated=1): the names of the
 *   operators the backend refused (see
 *   [property@Reg.Verdict:unsupported-ops]), possibly none
 */
const char * const *
reg_verdict_get_unsupported_ops (RegVerdict *self)
{
  g_return_val_if_fail (REG_IS_VERDICT (self), NULL);

  return (const char * const *) self->unsupported_ops;
}

/**
 * reg_verdict_get_time:
 * @self: a [class@Reg.Verdict]
 *
 * Returns: when the check ran, in seconds since 1970-01-01 00:00 UTC
 */
gint64
reg_verdict_get_time (RegVerdict *self)
{
  g_return_val_if_fail (REG_IS_VERDICT (self), 0);

  return self->time_us / G_USEC_PER_SEC;
}

/**
 * reg_verdict_get_quarantines:
 * @self: a [class@Reg.Verdict]
 *
 * Returns: %TRUE when the verdict quarantines the module (keeps its file
 *   from being opened): for %REG_VERDICT_KIND_CRASHED and
 *   %REG_VERDICT_KIND_TIMEOUT
 */
gboolean
reg_verdict_get_quarantines (RegVerdict *self)
{
  g_return_val_if_fail (REG_IS_VERDICT (self), FALSE);

  return self->kind == REG_VERDICT_KIND_CRASHED || self->kind == REG_VERDICT_KIND_TIMEOUT;
}

/**
 * reg_verdict_get_store_error:
 * @self: a [class@Reg.Verdict]
 *
 * Gets why [method@Reg.Registry.verify_backend] could not record the
 * verdict: the store cannot be written or is full of verdicts that
 * quarantine modules, the module file changed during the check, or a
 * setuid or setgid program asked for the per-user store.  The verdict
 * holds all the same; it is only not kept for later lookups.
 *
 * Returns: (transfer none) (nullable): the error, %NULL when the verdict
 *   was recorded, when no store was asked for, and for verdicts read from
 *   a store
 */
const GError *
reg_verdict_get_store_error (RegVerdict *self)
{
  g_return_val_if_fail (REG_IS_VERDICT (self), NULL);

  return self->store_error;
}
