/* reg-option-list.c: schemas, the options a backend takes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * RegOptionList is the immutable list model schemas are handed out as, so
 * that a schema given to a caller (transfer none) cannot be changed under
 * the checks that rely on it.  The checks of a compile's options and the
 * reading of KEY=VALUE texts go by it.
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
  self->options = g_ptr_array_new_with_free_func (g_object_unref);
}

GListModel *
_reg_option_list_new (RegOption * const *options,
                      guint              n_options)
{
  RegOptionList *self = g_object_new (REG_TYPE_OPTION_LIST, NULL);

  for (guint i = 0; i < n_options; i++)
    g_ptr_array_add (self->options, g_object_ref (options[i]));

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
  if (x->len != y->len)
    return FALSE;
  for (guint i = 0; i < x->len; i++)
    if (!_reg_option_equal (g_ptr_array_index (x, i), g_ptr_array_index (y, i)))
      return FALSE;

  return TRUE;
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
                               const char  *backend,
                               GError     **error)
{
  g_autoptr(GPtrArray) options = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char *shown = backend != NULL ? _reg_text_for_message (backend, -1, 255) : NULL;
  g_autofree char *who = shown != NULL ? g_strdup_printf ("backend '%s' ", shown) : g_strdup ("");
  guint n = g_list_model_get_n_items (model);

  if (n > REG_OPTION_MAX_OPTIONS)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                   "%sdeclares %u options, at most %d are allowed",
                   who, n, REG_OPTION_MAX_OPTIONS);
      return NULL;
    }

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);
      const char *name = item != NULL && REG_IS_OPTION (item)
                         ? reg_option_get_name (REG_OPTION (item)) : NULL;

      if (item == NULL || !REG_IS_OPTION (item))
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                       "%sdeclares options with item %u %s%s, not a RegOption",
                       who, i, item == NULL ? "missing" : "a ",
                       item == NULL ? "" : G_OBJECT_TYPE_NAME (item));
          return NULL;
        }
      /* An option made by g_object_new() (as a binding may) has no name. */
      if (name == NULL)
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                       "%sdeclares options with item %u made without a constructor of "
                       "RegOption (it has no name)", who, i);
          return NULL;
        }
      for (guint j = 0; j < options->len; j++)
        if (g_str_equal (name, reg_option_get_name (g_ptr_array_index (options, j))))
          {
            g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                         "%sdeclares option '%s' twice", who, name);
            return NULL;
          }
      g_ptr_array_add (options, g_steal_pointer (&item));
    }

  return _reg_option_list_new ((RegOption * const *) options->pdata, options->len);
}

static void
set_unknown_key_error (GListModel  *schema,
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

  for (guint i = 0; i < options->len; i++)
    names[i] = reg_option_get_name (g_ptr_array_index (options, i));

  if (options->len == 0)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "unknown option '%s'%s, which takes no option", shown, where);
      return;
    }

  matches = reg_close_matches (key, names, 3, 0.6);
  if (matches[0] != NULL)
    {
      listed = _reg_option_join_quoted ((const char * const *) matches);
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "unknown option '%s'%s, did you mean %s?", shown, where, listed);
    }
  else
    {
      listed = g_strjoinv (", ", (char **) names);
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "unknown option '%s'%s; it takes %s", shown, where, listed);
    }
}

static void
set_repeated_key_error (const char  *backend,
                        const char  *key,
                        GError     **error)
{
  g_autofree char *what = _reg_option_describe (key, backend);

  g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
               "%s is given twice", what);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* A key the `a{sv}` @options gives twice (borrowed from it), or NULL. */
static const char *
find_repeated_key (GVariant *options)
{
  gsize n = g_variant_n_children (options);
  g_autofree const char **keys = NULL;

  if (n < 2)
    return NULL;

  keys = g_new (const char *, n);
  for (gsize i = 0; i < n; i++)
    g_variant_get_child (options, i, "{&sv}", &keys[i], NULL);
  qsort (keys, n, sizeof *keys, compare_strings);
  for (gsize i = 1; i < n; i++)
    if (strcmp (keys[i - 1], keys[i]) == 0)
      return keys[i];

  return NULL;
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

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "options%s must be an a{sv} dictionary, not a value of type '%s'",
                   where, g_variant_get_type_string (options));
      return FALSE;
    }

  /* A backend reads a key's first value (g_variant_lookup()), a
   * GVariantDict its last: a key given twice means two things. */
  key = find_repeated_key (options);
  if (key != NULL)
    {
      set_repeated_key_error (backend, key, error);
      return FALSE;
    }

  if (schema == NULL)
    return TRUE;

  g_variant_iter_init (&iter, options);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &value))
    {
      g_autoptr(GVariant) owned = value;
      RegOption *option = _reg_option_list_lookup (schema, key);

      if (option == NULL)
        {
          set_unknown_key_error (schema, backend, key, error);
          return FALSE;
        }
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
  GVariant *value;
  RegOption *option;

  if (schema != NULL)
    {
      option = _reg_option_list_lookup (schema, key);
      if (option != NULL)
        return reg_option_parse_value (option, text, error);
      set_unknown_key_error (schema, backend, key, error);
      return NULL;
    }

  value = g_variant_parse (NULL, text, NULL, NULL, &local_error);
  if (value != NULL)
    return value;

  what = _reg_option_describe (key, backend);
  shown = _reg_text_for_message (text, -1, 80);
  cut = _reg_text_for_message (local_error->message, -1, 80);
  why = _reg_message_embed (cut);
  g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
               "%s: '%s' is not GVariant text (%s), and the backend declares no options "
               "to read it by; write booleans as true or false, unsigned numbers as "
               "uint32 2, strings quoted as 'text'", what, shown, why);
  return NULL;
}

GVariant *
_reg_option_list_parse (GListModel          *schema,
                        const char          *backend,
                        const char * const  *assignments,
                        GError             **error)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autoptr(GHashTable) keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; assignments[i] != NULL; i++)
    {
      const char *equal = strchr (assignments[i], '=');
      g_autofree char *shown = _reg_text_for_message (assignments[i], -1, 80);
      g_autofree char *key = NULL;
      GVariant *value;

      if (!g_utf8_validate (assignments[i], -1, NULL))
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                       "option assignment '%s' is not UTF-8 text", shown);
          return NULL;
        }
      if (equal == NULL || equal == assignments[i])
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                       "option assignment '%s' is not KEY=VALUE", shown);
          return NULL;
        }

      key = g_strndup (assignments[i], equal - assignments[i]);
      if (g_hash_table_contains (keys, key))
        {
          set_repeated_key_error (backend, key, error);
          return NULL;
        }

      value = parse_assigned (schema, backend, key, equal + 1, error);
      if (value == NULL)
        return NULL;
      g_variant_builder_add (&builder, "{sv}", key, value);
      g_variant_unref (value);
      g_hash_table_add (keys, g_steal_pointer (&key));
    }

  return g_variant_ref_sink (g_variant_builder_end (&builder));
}
