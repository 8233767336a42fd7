/* reg-option-list.c: schemas, the options a backend takes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * RegOptionList is the immutable list model schemas are handed out as, so
 * that a schema given to a caller (transfer none) cannot be changed under
 * the checks that rely on it.
 */

#include <string.h>

#include "reg-close-matches.h"
#include "reg-error.h"
#include "reg-message-private.h"
#include "reg-option-private.h"

#define REG_TYPE_OPTION_LIST (reg_option_list_get_type ())
G_DECLARE_FINAL_TYPE (RegOptionList, reg_option_list, REG, OPTION_LIST, GObject)

struct _RegOptionList
{
  GObject     parent_instance;

  GPtrArray  *options;  /* RegOption */
};

static GType
reg_option_list_get_item_type (GListModel *model)
{
  return REG_TYPE_OPTION;
}

static guint
reg_option_list_get_n_items (GListModel *model)
{
  return REG_OPTION_LIST (model)->options->len;
}

static gpointer
reg_option_list_get_item (GListModel *model,
                          guint       position)
{
  GPtrArray *options = REG_OPTION_LIST (model)->options;

  return position < options->len ? g_object_ref (g_ptr_array_index (options, position)) : NULL;
}

static void
reg_option_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = reg_option_list_get_item_type;
  iface->get_n_items = reg_option_list_get_n_items;
  iface->get_item = reg_option_list_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (RegOptionList, reg_option_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      reg_option_list_model_init))

static void
reg_option_list_finalize (GObject *object)
{
  g_ptr_array_unref (REG_OPTION_LIST (object)->options);

  G_OBJECT_CLASS (reg_option_list_parent_class)->finalize (object);
}

static void
reg_option_list_class_init (RegOptionListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = reg_option_list_finalize;
}

static void
reg_option_list_init (RegOptionList *self)
{
}

GListModel *
_reg_option_list_new (GPtrArray *options)
{
  RegOptionList *self = g_object_new (REG_TYPE_OPTION_LIST, NULL);

  self->options = options;
  return G_LIST_MODEL (self);
}

gboolean
_reg_option_list_equal (GListModel *a,
                        GListModel *b)
{
  GPtrArray *x, *y;

  if (a == NULL || b == NULL)
    return a == b;

  x = REG_OPTION_LIST (a)->options;
  y = REG_OPTION_LIST (b)->options;
  for (guint i = 0; i < x->len && x->len == y->len; i++)
    if (!_reg_option_equal (g_ptr_array_index (x, i), g_ptr_array_index (y, i)))
      return FALSE;

  return x->len == y->len;
}

RegOption *
_reg_option_list_lookup (GListModel *schema,
                         const char *name)
{
  GPtrArray *options = REG_OPTION_LIST (schema)->options;

  for (guint i = 0; i < options->len; i++)
    if (g_str_equal (reg_option_get_name (g_ptr_array_index (options, i)), name))
      return g_ptr_array_index (options, i);

  return NULL;
}

GListModel *
_reg_option_list_copy_checked (GListModel  *model,
                               GError     **error)
{
  g_autoptr(GPtrArray) options = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree const char **names = NULL;
  guint n = g_list_model_get_n_items (model);
  const char *repeated;

  if (n > REG_OPTION_MAX_OPTIONS)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                   "declares %u options, at most %d are allowed", n, REG_OPTION_MAX_OPTIONS);
      return NULL;
    }

  names = g_new0 (const char *, n + 1);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);

      if (item == NULL || !REG_IS_OPTION (item))
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                       "declares options with item %u %s%s, not a RegOption", i,
                       item == NULL ? "missing" : "a ", item == NULL ? "" : G_OBJECT_TYPE_NAME (item));
          return NULL;
        }
      names[i] = reg_option_get_name (REG_OPTION (item));
      if (names[i] == NULL)
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                       "declares options with item %u made without a constructor of "
                       "RegOption (it has no name)", i);
          return NULL;
        }
      g_ptr_array_add (options, g_steal_pointer (&item));
    }

  repeated = _reg_option_find_repeated (names, n);
  if (repeated != NULL)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                   "declares option '%s' twice", repeated);
      return NULL;
    }

  return _reg_option_list_new (g_steal_pointer (&options));
}

static gboolean
unknown_key (GListModel  *schema,
             const char  *backend,
             const char  *key,
             GError     **error)
{
  GPtrArray *options = REG_OPTION_LIST (schema)->options;
  g_autofree char *where = _reg_option_for_backend (backend);
  g_autofree char *shown = _reg_text_for_message (key, -1, 80);
  g_autofree const char **names = g_new0 (const char *, options->len + 1);
  g_auto(GStrv) matches = NULL;
  g_autofree char *listed = NULL;

  if (options->len == 0)
    return _reg_option_fail (error, "unknown option '%s'%s, which takes no option", shown, where);

  for (guint i = 0; i < options->len; i++)
    names[i] = reg_option_get_name (g_ptr_array_index (options, i));
  matches = reg_close_matches (key, names, 3, 0.6);
  if (matches[0] == NULL)
    {
      listed = g_strjoinv (", ", (char **) names);
      return _reg_option_fail (error, "unknown option '%s'%s; it takes %s", shown, where, listed);
    }

  listed = _reg_option_join_quoted ((const char * const *) matches);
  return _reg_option_fail (error, "unknown option '%s'%s, did you mean %s?", shown, where, listed);
}

/* A backend reads a key's first value (g_variant_lookup()), a
 * GVariantDict its last: a key given twice means two things. */
static gboolean
check_repeated (const char  *backend,
                GVariant    *options,
                GError     **error)
{
  gsize n = g_variant_n_children (options);
  g_autofree const char **keys = NULL;
  const char *repeated;

  if (n < 2)
    return TRUE;  /* without allocating, on every compile */
  keys = g_new (const char *, n);
  for (gsize i = 0; i < n; i++)
    g_variant_get_child (options, i, "{&sv}", &keys[i], NULL);
  repeated = _reg_option_find_repeated (keys, n);
  if (repeated != NULL)
    {
      g_autofree char *what = _reg_option_describe (repeated, backend);

      return _reg_option_fail (error, "%s is given twice", what);
    }

  return TRUE;
}

gboolean
_reg_option_list_check_options (GListModel  *schema,
                                const char  *backend,
                                GVariant    *options,
                                GError     **error)
{
  GVariantIter iter;
  const char *key;
  GVariant *value;

  if (!g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT))
    {
      g_autofree char *where = _reg_option_for_backend (backend);

      return _reg_option_fail (error, "options%s must be an a{sv} dictionary, not a value of "
                               "type '%s'", where, g_variant_get_type_string (options));
    }
  if (!check_repeated (backend, options, error))
    return FALSE;
  if (schema == NULL)
    return TRUE;

  g_variant_iter_init (&iter, options);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &value))
    {
      g_autoptr(GVariant) owned = value;
      RegOption *option = _reg_option_list_lookup (schema, key);

      if (option == NULL)
        return unknown_key (schema, backend, key, error);
      if (!_reg_option_check_value (option, backend, value, error))
        return FALSE;
    }

  return TRUE;
}

/* The value of @key in an assignment: read by its option's type, or, with
 * no schema, as GVariant text.  A new, non-floating reference. */
static GVariant *
parse_assigned (GListModel  *schema,
                const char  *backend,
                const char  *key,
                const char  *text,
                GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *what = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *cut = NULL;
  g_autofree char *why = NULL;
  RegOption *option;
  GVariant *value;

  if (schema != NULL)
    {
      option = _reg_option_list_lookup (schema, key);
      if (option == NULL)
        unknown_key (schema, backend, key, error);
      return option != NULL ? reg_option_parse_value (option, text, error) : NULL;
    }

  value = g_variant_parse (NULL, text, NULL, NULL, &local_error);
  if (value != NULL)
    return value;

  what = _reg_option_describe (key, backend);
  shown = _reg_text_for_message (text, -1, 80);
  cut = _reg_text_for_message (local_error->message, -1, 80);
  why = _reg_message_embed (cut);
  _reg_option_fail (error, "%s: '%s' is not GVariant text (%s), and the backend declares no "
                    "options to read it by; write booleans as true or false, unsigned numbers "
                    "as uint32 2, strings quoted as 'text'", what, shown, why);
  return NULL;
}

GVariant *
_reg_option_list_parse (GListModel          *schema,
                        const char          *backend,
                        const char * const  *assignments,
                        GError             **error)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autoptr(GVariant) options = NULL;

  for (guint i = 0; assignments[i] != NULL; i++)
    {
      const char *equal = strchr (assignments[i], '=');
      g_autofree char *key = NULL;
      GVariant *value;

      if (!g_utf8_validate (assignments[i], -1, NULL) || equal == NULL || equal == assignments[i])
        {
          g_autofree char *shown = _reg_text_for_message (assignments[i], -1, 80);

          _reg_option_fail (error, "option assignment '%s' is not %s", shown,
                            g_utf8_validate (assignments[i], -1, NULL) ? "KEY=VALUE" : "UTF-8 text");
          return NULL;
        }

      key = g_strndup (assignments[i], equal - assignments[i]);
      value = parse_assigned (schema, backend, key, equal + 1, error);
      if (value == NULL)
        return NULL;
      g_variant_builder_add (&builder, "{sv}", key, value);
      g_variant_unref (value);
    }

  options = g_variant_ref_sink (g_variant_builder_end (&builder));
  return check_repeated (backend, options, error) ? g_steal_pointer (&options) : NULL;
}
