/* reg-option.c: the declaration of one backend option
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Values are GVariants throughout: text is read with g_variant_parse()
 * (plus the plain forms of strings and string lists), ranges are checked
 * with g_variant_compare(), values are shown with g_variant_print().
 */

#include <math.h>
#include <string.h>

#include "reg-error.h"
#include "reg-message-private.h"
#include "reg-name-private.h"
#include "reg-option-private.h"

/**
 * RegOption:
 *
 * The declaration of one option a backend takes: its name (the key of the
 * `a{sv}` options of [method@Reg.Compiler.compile]), the GVariant type of
 * its value, a default, a one-line description and, for numbers, a range
 * or, for strings, the choices allowed.
 *
 * A backend's options together are its schema: module backends declare it
 * in their manifest (see `docs/writing-a-module.md`), so that it is known
 * without loading the module; backends registered at run time return it
 * from [vfunc@Reg.Compiler.dup_options].  [method@Reg.Compiler.compile]
 * checks the options of every compile against the schema before the
 * backend sees them, and [method@Reg.BackendInfo.get_options] shows it to
 * whoever chooses a backend.
 *
 * The value types are the basic ones a setting needs:
 *
 * | type string | name          | range | choices |
 * |-------------|---------------|-------|---------|
 * | `b`         | `boolean`     |       |         |
 * | `y`         | `byte`        | yes   |         |
 * | `n` `q`     | `int16` `uint16` | yes |        |
 * | `i` `u`     | `int32` `uint32` | yes |        |
 * | `x` `t`     | `int64` `uint64` | yes |        |
 * | `d`         | `double` (finite) | yes |       |
 * | `s`         | `string`      |       | yes     |
 * | `as`        | `string list` |       | yes (each element) |
 *
 * A compile takes a value of the declared type only: an `int32` is not a
 * `uint32`, even when it would fit, because the backend reads the value
 * by its declared type.  Text is read by the type instead
 * ([method@Reg.Option.parse_value], [method@Reg.BackendInfo.parse_options]).
 *
 * The constructors fail with %REG_COMPILER_ERROR_BAD_OPTION saying what is
 * wrong: a name that breaks the naming rules of backends, a type not in
 * the table, a default or bound of another type, a range on a type that
 * is not a number (or with a bound that is not finite, or its minimum
 * above its maximum), choices on a type that is not a string's (or none,
 * or one that is not a valid name or is given twice), a default out of
 * the range or choices, a description that is not one line of visible
 * UTF-8 text of at most 1024 bytes.  They sink floating variants, on
 * failure too.
 *
 * Options are immutable once made, so they may be shared between threads.
 */

struct _RegOption
{
  GObject    parent_instance;

  char      *name;           /* NULL: made by g_object_new(), no schema takes it */
  char      *type_string;
  GVariant  *default_value;  /* this and the rest nullable */
  char      *description;
  GVariant  *minimum;
  GVariant  *maximum;
  char     **choices;
};

enum {
  PROP_0,
  PROP_NAME,
  PROP_TYPE_STRING,
  PROP_DEFAULT_VALUE,
  PROP_DESCRIPTION,
  PROP_MINIMUM,
  PROP_MAXIMUM,
  PROP_CHOICES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (RegOption, reg_option, G_TYPE_OBJECT)

/* The value types: what each is called, what text of it must be ("'%s' is
 * not <expected>"; any text is a string) and what limits its values. */
typedef struct
{
  const char *type_string;
  const char *name;
  const char *expected;
  char        limit;  /* 'r' a range, 'c' choices, 0 neither */
} OptionType;

static const OptionType option_types[] = {
  { "b",  "boolean", "a boolean (true or false)", 0 },
  { "y",  "byte",    "a byte (an integer from 0 to 255)", 'r' },
  { "n",  "int16",   "an int16 (an integer from -32768 to 32767)", 'r' },
  { "q",  "uint16",  "a uint16 (an integer from 0 to 65535)", 'r' },
  { "i",  "int32",   "an int32 (an integer from -2147483648 to 2147483647)", 'r' },
  { "u",  "uint32",  "a uint32 (an integer from 0 to 4294967295)", 'r' },
  { "x",  "int64",   "an int64 (an integer from -9223372036854775808 to 9223372036854775807)", 'r' },
  { "t",  "uint64",  "a uint64 (an integer from 0 to 18446744073709551615)", 'r' },
  { "d",  "double",  "a number", 'r' },
  { "s",  "string",  NULL, 'c' },
  { "as", "string list",
    "a string list (items separated by commas, or GVariant text like ['a', 'b'])", 'c' },
};

static const OptionType *
find_type (const char *type_string)
{
  for (gsize i = 0; i < G_N_ELEMENTS (option_types); i++)
    if (g_str_equal (option_types[i].type_string, type_string))
      return &option_types[i];

  return NULL;
}

gboolean
_reg_option_fail (GError     **error,
                  const char  *format,
                  ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (REG_COMPILER_ERROR,
                                                REG_COMPILER_ERROR_BAD_OPTION, format, args));
  va_end (args);
  return FALSE;
}

const char *
_reg_option_find_repeated (const char * const *strings,
                           gsize               n)
{
  g_autoptr(GHashTable) seen = NULL;

  if (n < 2)
    return NULL;

  seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (gsize i = 0; i < n; i++)
    if (!g_hash_table_add (seen, (gpointer) strings[i]))
      return strings[i];

  return NULL;
}

/* "uint32 ('u')", or "'a{sv}'" for a type that is not an option's. */
static char *
describe_type (const char *type_string)
{
  const OptionType *type = find_type (type_string);
  g_autofree char *shown = _reg_text_for_message (type_string, -1, 64);

  return type != NULL ? g_strdup_printf ("%s ('%s')", type->name, shown)
                      : g_strdup_printf ("'%s'", shown);
}

/* Bytes in decimal, as they are read; other values as GVariant text. */
static char *
value_for_message (GVariant *value)
{
  g_autofree char *text = NULL;

  if (g_variant_is_of_type (value, G_VARIANT_TYPE_BYTE))
    return g_strdup_printf ("%u", g_variant_get_byte (value));

  text = g_variant_print (value, FALSE);
  return _reg_text_for_message (text, -1, 80);
}

char *
_reg_option_join_quoted (const char * const *strings)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; strings[i] != NULL; i++)
    g_string_append_printf (out, "%s'%s'", i > 0 ? ", " : "", strings[i]);

  return g_string_free (out, FALSE);
}

char *
_reg_option_for_backend (const char *backend)
{
  g_autofree char *shown = backend != NULL ? _reg_text_for_message (backend, -1, 255) : NULL;

  return shown != NULL ? g_strdup_printf (" for backend '%s'", shown) : g_strdup ("");
}

char *
_reg_option_describe (const char *name,
                      const char *backend)
{
  g_autofree char *shown = _reg_text_for_message (name, -1, 255);
  g_autofree char *where = _reg_option_for_backend (backend);

  return g_strdup_printf ("option '%s'%s", shown, where);
}

/* Checks @value, of @self's type, against what every value of the type
 * must be (a double finite), the range and the choices.  @what names the
 * value in the message. */
static gboolean
check_allowed (RegOption   *self,
               GVariant    *value,
               const char  *what,
               GError     **error)
{
  gboolean below = self->minimum != NULL && g_variant_compare (value, self->minimum) < 0;
  gboolean above = self->maximum != NULL && g_variant_compare (value, self->maximum) > 0;

  if (g_str_equal (self->type_string, "d") && !isfinite (g_variant_get_double (value)))
    {
      g_autofree char *shown = value_for_message (value);

      return _reg_option_fail (error, "%s must be a finite number, not %s", what, shown);
    }

  if (below || above)
    {
      g_autofree char *shown = value_for_message (value);
      g_autofree char *low = self->minimum != NULL ? value_for_message (self->minimum) : NULL;
      g_autofree char *high = self->maximum != NULL ? value_for_message (self->maximum) : NULL;

      if (low != NULL && high != NULL)
        return _reg_option_fail (error, "%s must be between %s and %s, not %s",
                                 what, low, high, shown);
      return _reg_option_fail (error, "%s must be at %s %s, not %s", what,
                               below ? "least" : "most", below ? low : high, shown);
    }

  if (self->choices != NULL)
    {
      gboolean list = g_str_equal (self->type_string, "as");
      g_autofree const char **elements = list ? g_variant_get_strv (value, NULL)
                                              : g_new0 (const char *, 2);

      if (!list)
        elements[0] = g_variant_get_string (value, NULL);
      for (guint i = 0; elements[i] != NULL; i++)
        if (!g_strv_contains ((const char * const *) self->choices, elements[i]))
          {
            g_autofree char *shown = _reg_text_for_message (elements[i], -1, 80);
            g_autofree char *allowed = _reg_option_join_quoted ((const char * const *) self->choices);

            if (list)
              return _reg_option_fail (error, "%s holds '%s', which is not one of %s",
                                       what, shown, allowed);
            return _reg_option_fail (error, "%s must be one of %s, not '%s'", what, allowed, shown);
          }
    }

  return TRUE;
}

gboolean
_reg_option_check_value (RegOption   *self,
                         const char  *backend,
                         GVariant    *value,
                         GError     **error)
{
  g_autofree char *what = _reg_option_describe (self->name, backend);

  if (!g_variant_is_of_type (value, G_VARIANT_TYPE (self->type_string)))
    {
      g_autofree char *expected = describe_type (self->type_string);
      g_autofree char *given = describe_type (g_variant_get_type_string (value));

      return _reg_option_fail (error, "%s must be of type %s, not %s", what, expected, given);
    }

  return check_allowed (self, value, what, error);
}

GVariant *
_reg_option_parse_text (const char  *type_string,
                        const char  *text,
                        GError     **error)
{
  const OptionType *type = find_type (type_string);
  g_autofree char *shown = NULL;
  GVariant *value;

  g_assert (type != NULL);

  if (!g_utf8_validate (text, -1, NULL))
    {
      _reg_option_fail (error, "a %s value must be UTF-8 text", type->name);
      return NULL;
    }

  /* GVariant text of the type: "2", "uint32 2", "0x10", "true", "'fast'",
   * "['a', 'b']". */
  value = g_variant_parse (G_VARIANT_TYPE (type_string), text, NULL, NULL, NULL);
  if (value != NULL)
    return value;

  /* The plain forms: a string is the text itself, a string list items
   * separated by commas (unless it is bracketed as GVariant text), blanks
   * around items stripped and empty items dropped. */
  if (g_str_equal (type_string, "s"))
    return g_variant_ref_sink (g_variant_new_string (text));
  if (g_str_equal (type_string, "as") && text[0] != '[' && text[0] != '@')
    {
      g_auto(GStrv) parts = g_strsplit (text, ",", -1);
      GVariantBuilder builder;

      g_variant_builder_init (&builder, G_VARIANT_TYPE_STRING_ARRAY);
      for (guint i = 0; parts[i] != NULL; i++)
        if (g_strstrip (parts[i])[0] != '\0')
          g_variant_builder_add (&builder, "s", parts[i]);
      return g_variant_ref_sink (g_variant_builder_end (&builder));
    }

  shown = _reg_text_for_message (text, -1, 80);
  _reg_option_fail (error, "'%s' is not %s", shown, type->expected);
  return NULL;
}

/* Checks the declaration in @self's fields, which the constructor set
 * unchecked. */
static gboolean
check_declaration (RegOption  *self,
                   GError    **error)
{
  const OptionType *type = find_type (self->type_string);
  GVariant *values[] = { self->default_value, self->minimum, self->maximum };
  const char * const roles[] = { "default", "minimum", "maximum" };
  guint n_choices = self->choices != NULL ? g_strv_length (self->choices) : 0;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *what = NULL;
  g_autofree char *role = NULL;
  const char *repeated;

  if (!_reg_name_validate (self->name, "option name", &local_error))
    return _reg_option_fail (error, "%s", local_error->message);
  what = g_strdup_printf ("option '%s'", self->name);

  if (type == NULL)
    {
      g_autofree char *shown = _reg_text_for_message (self->type_string, -1, 64);

      return _reg_option_fail (error, "%s: type '%s' is not one an option may have (b, y, n, q, "
                               "i, u, x, t, d, s or as)", what, shown);
    }

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    if (values[i] != NULL && !g_variant_is_of_type (values[i], G_VARIANT_TYPE (type->type_string)))
      {
        g_autofree char *expected = describe_type (type->type_string);
        g_autofree char *given = describe_type (g_variant_get_type_string (values[i]));

        return _reg_option_fail (error, "%s: %s of type %s, not of the option's type %s",
                                 what, roles[i], given, expected);
      }

  if ((self->minimum != NULL || self->maximum != NULL) && type->limit != 'r')
    return _reg_option_fail (error, "%s: only numbers have a range, not %s options",
                             what, type->name);
  if (g_str_equal (type->type_string, "d") &&
      ((self->minimum != NULL && !isfinite (g_variant_get_double (self->minimum))) ||
       (self->maximum != NULL && !isfinite (g_variant_get_double (self->maximum)))))
    return _reg_option_fail (error, "%s: the bounds of a range must be finite numbers", what);
  if (self->minimum != NULL && self->maximum != NULL &&
      g_variant_compare (self->minimum, self->maximum) > 0)
    {
      g_autofree char *low = value_for_message (self->minimum);
      g_autofree char *high = value_for_message (self->maximum);

      return _reg_option_fail (error, "%s: minimum %s is above maximum %s", what, low, high);
    }

  if (self->choices != NULL && type->limit != 'c')
    return _reg_option_fail (error, "%s: only string and string list options have choices, "
                             "not %s ones", what, type->name);
  if (self->choices != NULL && (n_choices == 0 || n_choices > REG_OPTION_MAX_CHOICES))
    return _reg_option_fail (error, "%s: %u choices, from 1 to %d are allowed",
                             what, n_choices, REG_OPTION_MAX_CHOICES);
  /* Choices are names: no separator of the text forms (a comma splits a
   * list), no white space, no quote. */
  for (guint i = 0; i < n_choices; i++)
    if (!_reg_name_validate (self->choices[i], "choice", &local_error))
      return _reg_option_fail (error, "%s: %s", what, local_error->message);
  repeated = _reg_option_find_repeated ((const char * const *) self->choices, n_choices);
  if (repeated != NULL)
    return _reg_option_fail (error, "%s: choice '%s' given twice", what, repeated);

  if (self->description != NULL)
    {
      gsize length = strlen (self->description);
      g_autofree char *invisible = NULL;

      if (length > REG_OPTION_MAX_DESCRIPTION)
        return _reg_option_fail (error, "%s: description of %" G_GSIZE_FORMAT " bytes, at most "
                                 "%d are allowed", what, length, REG_OPTION_MAX_DESCRIPTION);
      invisible = _reg_find_invisible (self->description);
      if (invisible != NULL)
        return _reg_option_fail (error, "%s: description holds %s; it must be one line of "
                                 "visible text", what, invisible);
    }

  role = g_strdup_printf ("%s: default", what);
  return self->default_value == NULL || check_allowed (self, self->default_value, role, error);
}

RegOption *
_reg_option_new_full (const char          *name,
                      const char          *type_string,
                      GVariant            *default_value,
                      const char          *description,
                      GVariant            *minimum,
                      GVariant            *maximum,
                      const char * const  *choices,
                      GError             **error)
{
  g_autoptr(RegOption) self = g_object_new (REG_TYPE_OPTION, NULL);

  self->name = g_strdup (name);
  self->type_string = g_strdup (type_string);
  self->default_value = default_value != NULL ? g_variant_ref_sink (default_value) : NULL;
  self->description = g_strdup (description);
  self->minimum = minimum != NULL ? g_variant_ref_sink (minimum) : NULL;
  self->maximum = maximum != NULL ? g_variant_ref_sink (maximum) : NULL;
  self->choices = g_strdupv ((char **) choices);

  return check_declaration (self, error) ? g_steal_pointer (&self) : NULL;
}

static gboolean
variants_equal (GVariant *a,
                GVariant *b)
{
  return a == NULL || b == NULL ? a == b : g_variant_equal (a, b);
}

gboolean
_reg_option_equal (RegOption *a,
                   RegOption *b)
{
  return a == b ||
         (g_strcmp0 (a->name, b->name) == 0 &&
          g_strcmp0 (a->type_string, b->type_string) == 0 &&
          variants_equal (a->default_value, b->default_value) &&
          g_strcmp0 (a->description, b->description) == 0 &&
          variants_equal (a->minimum, b->minimum) &&
          variants_equal (a->maximum, b->maximum) &&
          (a->choices == NULL || b->choices == NULL
           ? a->choices == b->choices
           : g_strv_equal ((const char * const *) a->choices, (const char * const *) b->choices)));
}

static void
reg_option_finalize (GObject *object)
{
  RegOption *self = REG_OPTION (object);

  g_free (self->name);
  g_free (self->type_string);
  g_clear_pointer (&self->default_value, g_variant_unref);
  g_free (self->description);
  g_clear_pointer (&self->minimum, g_variant_unref);
  g_clear_pointer (&self->maximum, g_variant_unref);
  g_strfreev (self->choices);

  G_OBJECT_CLASS (reg_option_parent_class)->finalize (object);
}

static void
reg_option_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  RegOption *self = REG_OPTION (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_TYPE_STRING:
      g_value_set_string (value, self->type_string);
      break;
    case PROP_DEFAULT_VALUE:
      g_value_set_variant (value, self->default_value);
      break;
    case PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;
    case PROP_MINIMUM:
      g_value_set_variant (value, self->minimum);
      break;
    case PROP_MAXIMUM:
      g_value_set_variant (value, self->maximum);
      break;
    case PROP_CHOICES:
      g_value_set_boxed (value, self->choices);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reg_option_class_init (RegOptionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = reg_option_finalize;
  object_class->get_property = reg_option_get_property;

  /**
   * RegOption:name:
   *
   * The option's name: its key in the options of a compile.
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);

  /**
   * RegOption:type-string:
   *
   * The GVariant type string of the option's values.
   */
  properties[PROP_TYPE_STRING] = g_param_spec_string ("type-string", NULL, NULL, NULL, flags);

  /**
   * RegOption:default-value:
   *
   * The value the backend uses when the option is not given, or %NULL.
   */
  properties[PROP_DEFAULT_VALUE] =
    g_param_spec_variant ("default-value", NULL, NULL, G_VARIANT_TYPE_ANY, NULL, flags);

  /**
   * RegOption:description:
   *
   * One line saying what the option does, or %NULL.
   */
  properties[PROP_DESCRIPTION] = g_param_spec_string ("description", NULL, NULL, NULL, flags);

  /**
   * RegOption:minimum:
   *
   * The smallest value allowed, for numbers, or %NULL for the type's.
   */
  properties[PROP_MINIMUM] =
    g_param_spec_variant ("minimum", NULL, NULL, G_VARIANT_TYPE_ANY, NULL, flags);

  /**
   * RegOption:maximum:
   *
   * The largest value allowed, for numbers, or %NULL for the type's.
   */
  properties[PROP_MAXIMUM] =
    g_param_spec_variant ("maximum", NULL, NULL, G_VARIANT_TYPE_ANY, NULL, flags);

  /**
   * RegOption:choices:
   *
   * The values allowed, for strings (the elements allowed, for string
   * lists), or %NULL for any.
   */
  properties[PROP_CHOICES] = g_param_spec_boxed ("choices", NULL, NULL, G_TYPE_STRV, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
reg_option_init (RegOption *self)
{
}

/**
 * reg_option_new:
 * @name: the option's name, following the naming rules of backends
 * @type_string: the GVariant type string of its values (see
 *   [class@Reg.Option] for those allowed)
 * @default_value: (nullable): the value the backend uses when the option is
 *   not given, of type @type_string, or %NULL to say none
 * @description: (nullable): one line of text saying what the option does
 * @error: return location for a #GError
 *
 * Declares an option with neither a range nor choices.  Fails as
 * [class@Reg.Option] says.
 *
 * Returns: (transfer full): the option, or %NULL with @error set
 */
RegOption *
reg_option_new (const char  *name,
                const char  *type_string,
                GVariant    *default_value,
                const char  *description,
                GError     **error)
{
  return reg_option_new_with_range (name, type_string, default_value, NULL, NULL,
                                    description, error);
}

/**
 * reg_option_new_with_range:
 * @name: the option's name, following the naming rules of backends
 * @type_string: the GVariant type string of its values, a number type
 * @default_value: (nullable): the default, within the range, or %NULL
 * @minimum: (nullable): the smallest value allowed, or %NULL for none
 * @maximum: (nullable): the largest value allowed, or %NULL for none
 * @description: (nullable): one line of text saying what the option does
 * @error: return location for a #GError
 *
 * Declares a number option whose values must lie between @minimum and
 * @maximum, both included.  Fails as [class@Reg.Option] says.
 *
 * Returns: (transfer full): the option, or %NULL with @error set
 */
RegOption *
reg_option_new_with_range (const char  *name,
                           const char  *type_string,
                           GVariant    *default_value,
                           GVariant    *minimum,
                           GVariant    *maximum,
                           const char  *description,
                           GError     **error)
{
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (type_string != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return _reg_option_new_full (name, type_string, default_value, description,
                               minimum, maximum, NULL, error);
}

/**
 * reg_option_new_with_choices:
 * @name: the option's name, following the naming rules of backends
 * @type_string: `s` (a string, one of @choices) or `as` (a list of strings,
 *   each one of @choices)
 * @default_value: (nullable): the default, or %NULL
 * @choices: (array zero-terminated=1): the values allowed, at least one;
 *   each follows the naming rules of backends
 * @description: (nullable): one line of text saying what the option does
 * @error: return location for a #GError
 *
 * Declares a string option that takes one of @choices, or a string list
 * option whose elements are among @choices.  Fails as [class@Reg.Option]
 * says.
 *
 * Returns: (transfer full): the option, or %NULL with @error set
 */
RegOption *
reg_option_new_with_choices (const char          *name,
                             const char          *type_string,
                             GVariant            *default_value,
                             const char * const  *choices,
                             const char          *description,
                             GError             **error)
{
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (type_string != NULL, NULL);
  g_return_val_if_fail (choices != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return _reg_option_new_full (name, type_string, default_value, description,
                               NULL, NULL, choices, error);
}

/**
 * reg_option_get_name:
 * @self: a [class@Reg.Option]
 *
 * Returns: (transfer none): the name, the option's key in a compile's options
 */
const char *
reg_option_get_name (RegOption *self)
{
  g_return_val_if_fail (REG_IS_OPTION (self), NULL);
  return self->name;
}

/**
 * reg_option_get_type_string:
 * @self: a [class@Reg.Option]
 *
 * Returns: (transfer none): the GVariant type string of the values, like `u`
 */
const char *
reg_option_get_type_string (RegOption *self)
{
  g_return_val_if_fail (REG_IS_OPTION (self), NULL);
  return self->type_string;
}

/**
 * reg_option_get_type_name:
 * @self: a [class@Reg.Option]
 *
 * Returns: (transfer none): the type's name in the table of [class@Reg.Option]
 */
const char *
reg_option_get_type_name (RegOption *self)
{
  g_return_val_if_fail (REG_IS_OPTION (self), NULL);
  g_return_val_if_fail (self->name != NULL, NULL);
  return find_type (self->type_string)->name;
}

/**
 * reg_option_get_default_value:
 * @self: a [class@Reg.Option]
 *
 * Returns: (transfer none) (nullable): the value the backend uses when the
 *   option is not given, or %NULL when the declaration gives none
 */
GVariant *
reg_option_get_default_value (RegOption *self)
{
  g_return_val_if_fail (REG_IS_OPTION (self), NULL);
  return self->default_value;
}

/**
 * reg_option_get_description:
 * @self: a [class@Reg.Option]
 *
 * Returns: (transfer none) (nullable): the line saying what the option does
 */
const char *
reg_option_get_description (RegOption *self)
{
  g_return_val_if_fail (REG_IS_OPTION (self), NULL);
  return self->description;
}

/**
 * reg_option_get_minimum:
 * @self: a [class@Reg.Option]
 *
 * Returns: (transfer none) (nullable): the smallest value allowed, or %NULL
 */
GVariant *
reg_option_get_minimum (RegOption *self)
{
  g_return_val_if_fail (REG_IS_OPTION (self), NULL);
  return self->minimum;
}

/**
 * reg_option_get_maximum:
 * @self: a [class@Reg.Option]
 *
 * Returns: (transfer none) (nullable): the largest value allowed, or %NULL
 */
GVariant *
reg_option_get_maximum (RegOption *self)
{
  g_return_val_if_fail (REG_IS_OPTION (self), NULL);
  return self->maximum;
}

/**
 * reg_option_get_choices:
 * @self: a [class@Reg.Option]
 *
 * Returns: (transfer none) (nullable) (array zero-terminated=1): the values
 *   (of a string list, the elements) allowed, or %NULL for any
 */
const char * const *
reg_option_get_choices (RegOption *self)
{
  g_return_val_if_fail (REG_IS_OPTION (self), NULL);
  return (const char * const *) self->choices;
}

/**
 * reg_option_check_value:
 * @self: a [class@Reg.Option]
 * @value: a value for the option
 * @error: return location for a #GError
 *
 * Checks @value as [method@Reg.Compiler.compile] checks it: of the
 * option's type exactly (an `int32` is not a `uint32`), a finite number
 * for doubles, within the range, among the choices.  Fails with
 * %REG_COMPILER_ERROR_BAD_OPTION saying what is wrong and what is
 * expected.  A floating @value is sunk.
 *
 * Returns: %TRUE when @value is allowed
 */
gboolean
reg_option_check_value (RegOption  *self,
                        GVariant   *value,
                        GError    **error)
{
  g_autoptr(GVariant) value_ref = NULL;

  g_return_val_if_fail (REG_IS_OPTION (self), FALSE);
  g_return_val_if_fail (self->name != NULL, FALSE);
  g_return_val_if_fail (value != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  value_ref = g_variant_ref_sink (value);
  return _reg_option_check_value (self, NULL, value, error);
}

/**
 * reg_option_parse_value:
 * @self: a [class@Reg.Option]
 * @text: a value written as text
 * @error: return location for a #GError
 *
 * Reads a value of the option from @text, by the option's type: GVariant
 * text of the type (`true`, `2`, `-7`, `0x10`, `0.5`, `1e-3`, `uint32 2`,
 * `'fast'`, `['fold', 'cse']`; as in C, an integer with a leading 0 is
 * octal), and for a string the text itself (`fast`), for a string list
 * items separated by commas (`fold,cse`; the empty text is the empty
 * list).  `regctl run -o KEY=VALUE`, [method@Reg.BackendInfo.parse_options]
 * and a manifest's `Default=` read values this way.
 *
 * The value is then checked as [method@Reg.Option.check_value] checks
 * it.  Fails with %REG_COMPILER_ERROR_BAD_OPTION saying what was expected.
 *
 * Returns: (transfer full): the value, or %NULL with @error set
 */
GVariant *
reg_option_parse_value (RegOption   *self,
                        const char  *text,
                        GError     **error)
{
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (REG_IS_OPTION (self), NULL);
  g_return_val_if_fail (self->name != NULL, NULL);
  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  value = _reg_option_parse_text (self->type_string, text, &local_error);
  if (value == NULL)
    {
      g_autofree char *what = _reg_option_describe (self->name, NULL);

      _reg_option_fail (error, "%s: %s", what, local_error->message);
      return NULL;
    }

  return _reg_option_check_value (self, NULL, value, error) ? g_steal_pointer (&value) : NULL;
}

/**
 * reg_option_value_to_string:
 * @self: a [class@Reg.Option]
 * @value: a value of the option's type
 *
 * Writes @value as the text [method@Reg.Option.parse_value] reads back:
 * `true`, `512`, `0.25`, `fast`, `fold,cse` (GVariant text where the plain
 * form would not read back the same, such as a string that starts with a
 * quote).
 *
 * Returns: (transfer full): the text
 */
char *
reg_option_value_to_string (RegOption *self,
                            GVariant  *value)
{
  g_autoptr(GVariant) value_ref = NULL;
  g_autoptr(GVariant) again = NULL;
  char *text;

  g_return_val_if_fail (REG_IS_OPTION (self), NULL);
  g_return_val_if_fail (self->name != NULL, NULL);
  g_return_val_if_fail (value != NULL, NULL);
  g_return_val_if_fail (g_variant_is_of_type (value, G_VARIANT_TYPE (self->type_string)), NULL);

  value_ref = g_variant_ref_sink (value);
  if (g_str_equal (self->type_string, "s"))
    text = g_variant_dup_string (value, NULL);
  else if (g_str_equal (self->type_string, "as"))
    {
      g_autofree const char **strings = g_variant_get_strv (value, NULL);

      text = g_strjoinv (",", (char **) strings);
    }
  else
    text = value_for_message (value);

  again = _reg_option_parse_text (self->type_string, text, NULL);
  if (again != NULL && g_variant_equal (again, value))
    return text;

  g_free (text);
  return g_variant_print (value, FALSE);
}
