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
 * Options are immutable once made, so they may be shared between threads.
 *
 * ```python
 * threads = Reg.Option.new_with_range("threads", "u", GLib.Variant("u", 1),
 *                                GLib.Variant("u", 1), GLib.Variant("u", 64),
 *                                "Threads a call runs on")
 * ```
 */

struct _RegOption
{
  GObject    parent_instance;

  char      *name;
  char      *type_string;
  GVariant  *default_value;  /* nullable */
  char      *description;    /* nullable */
  GVariant  *minimum;        /* nullable */
  GVariant  *maximum;        /* nullable */
  char     **choices;        /* nullable */
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

/* The value types: what each is called, and what text of it must be. */
typedef struct
{
  const char *type_string;
  const char *name;
  const char *expected;  /* "'%s' is not <expected>"; NULL for a string */
} OptionType;

static const OptionType option_types[] = {
  { "b",  "boolean", "a boolean (true or false)" },
  { "y",  "byte",    "a byte (an integer from 0 to 255)" },
  { "n",  "int16",   "an int16 (an integer from -32768 to 32767)" },
  { "q",  "uint16",  "a uint16 (an integer from 0 to 65535)" },
  { "i",  "int32",   "an int32 (an integer from -2147483648 to 2147483647)" },
  { "u",  "uint32",  "a uint32 (an integer from 0 to 4294967295)" },
  { "x",  "int64",   "an int64 (an integer from -9223372036854775808 to 9223372036854775807)" },
  { "t",  "uint64",  "a uint64 (an integer from 0 to 18446744073709551615)" },
  { "d",  "double",  "a number" },
  { "s",  "string",  NULL },
  { "as", "string list",
    "a string list (items separated by commas, or GVariant text like ['a', 'b'])" },
};

static const OptionType *
find_type (const char *type_string)
{
  for (gsize i = 0; i < G_N_ELEMENTS (option_types); i++)
    if (g_str_equal (option_types[i].type_string, type_string))
      return &option_types[i];

  return NULL;
}

static gboolean
is_number (const char *type_string)
{
  return type_string[1] == '\0' && strchr ("ynqiuxtd", type_string[0]) != NULL;
}

static gboolean
is_string (const char *type_string)
{
  return g_str_equal (type_string, "s") || g_str_equal (type_string, "as");
}

/* A RegOption made without a constructor (g_object_new() from a binding)
 * has no name: schemas refuse it. */
static gboolean
option_is_made (RegOption *self)
{
  return self->name != NULL && self->type_string != NULL;
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

/* A value as text: bytes in decimal, as they are read, other values as
 * GVariant text without types (escaped: strings may come from outside). */
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

/* Checks @value, of the option's type, against what every value of its
 * type must be (a double finite) and @minimum, @maximum and @choices
 * (each nullable).  @what names the value for the message. */
static gboolean
check_allowed (const char          *type_string,
               GVariant            *minimum,
               GVariant            *maximum,
               const char * const  *choices,
               GVariant            *value,
               const char          *what,
               GError             **error)
{
  gboolean below, above;

  if (g_str_equal (type_string, "d") && !isfinite (g_variant_get_double (value)))
    {
      g_autofree char *shown = value_for_message (value);

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s must be a finite number, not %s", what, shown);
      return FALSE;
    }

  below = minimum != NULL && g_variant_compare (value, minimum) < 0;
  above = maximum != NULL && g_variant_compare (value, maximum) > 0;
  if (below || above)
    {
      g_autofree char *shown = value_for_message (value);
      g_autofree char *low = minimum != NULL ? value_for_message (minimum) : NULL;
      g_autofree char *high = maximum != NULL ? value_for_message (maximum) : NULL;

      if (low != NULL && high != NULL)
        g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                     "%s must be between %s and %s, not %s", what, low, high, shown);
      else
        g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                     "%s must be at %s %s, not %s", what, below ? "least" : "most",
                     below ? low : high, shown);
      return FALSE;
    }

  /* Choices: a string is one of them, each element of a list is. */
  if (choices != NULL)
    {
      gboolean list = g_str_equal (type_string, "as");
      g_autofree const char **elements = list ? g_variant_get_strv (value, NULL)
                                              : g_new0 (const char *, 2);

      if (!list)
        elements[0] = g_variant_get_string (value, NULL);
      for (guint i = 0; elements[i] != NULL; i++)
        if (!g_strv_contains (choices, elements[i]))
          {
            g_autofree char *shown = _reg_text_for_message (elements[i], -1, 80);
            g_autofree char *allowed = _reg_option_join_quoted (choices);

            if (list)
              g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                           "%s holds '%s', which is not one of %s", what, shown, allowed);
            else
              g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                           "%s must be one of %s, not '%s'", what, allowed, shown);
            return FALSE;
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

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s must be of type %s, not %s", what, expected, given);
      return FALSE;
    }

  return check_allowed (self->type_string, self->minimum, self->maximum,
                        (const char * const *) self->choices, value, what, error);
}

/* Text */

/* "fold, cse," as ['fold', 'cse']: blanks around items stripped, empty
 * items dropped. */
static GVariant *
parse_string_list (const char *text)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE_STRING_ARRAY);
  for (guint i = 0; parts[i] != NULL; i++)
    if (g_strstrip (parts[i])[0] != '\0')
      g_variant_builder_add (&builder, "s", parts[i]);

  return g_variant_ref_sink (g_variant_builder_end (&builder));
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
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "a %s value must be UTF-8 text", type->name);
      return NULL;
    }

  /* GVariant text of the type: "2", "uint32 2", "0x10", "true", "'fast'",
   * "['a', 'b']".  A new, non-floating reference. */
  value = g_variant_parse (G_VARIANT_TYPE (type_string), text, NULL, NULL, NULL);
  if (value != NULL)
    return value;

  /* The plain forms: a string is the text itself, a string list items
   * separated by commas (unless it is bracketed as GVariant text). */
  if (g_str_equal (type_string, "s"))
    return g_variant_ref_sink (g_variant_new_string (text));
  if (g_str_equal (type_string, "as") && text[0] != '[' && text[0] != '@')
    return parse_string_list (text);

  shown = _reg_text_for_message (text, -1, 80);
  g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
               "'%s' is not %s", shown, type->expected);
  return NULL;
}

/* Reads @text as a value of @self, checked; named without a backend. */
static GVariant *
parse_value (RegOption   *self,
             const char  *text,
             GError     **error)
{
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GError) local_error = NULL;

  value = _reg_option_parse_text (self->type_string, text, &local_error);
  if (value == NULL)
    {
      g_autofree char *what = _reg_option_describe (self->name, NULL);

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: %s", what, local_error->message);
      return NULL;
    }

  if (!_reg_option_check_value (self, NULL, value, error))
    return NULL;

  return g_steal_pointer (&value);
}

/* Construction */

/* A description is one line of text a chooser shows. */
static gboolean
check_description (const char  *description,
                   const char  *what,
                   GError     **error)
{
  gsize length = strlen (description);

  if (length > REG_OPTION_MAX_DESCRIPTION)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: description of %" G_GSIZE_FORMAT " bytes, at most %d are allowed",
                   what, length, REG_OPTION_MAX_DESCRIPTION);
      return FALSE;
    }
  if (!g_utf8_validate (description, length, NULL))
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: description is not UTF-8", what);
      return FALSE;
    }
  for (const char *p = description; *p != '\0'; p = g_utf8_next_char (p))
    {
      GUnicodeType unicode_type = g_unichar_type (g_utf8_get_char (p));

      if (unicode_type == G_UNICODE_CONTROL || unicode_type == G_UNICODE_FORMAT ||
          unicode_type == G_UNICODE_LINE_SEPARATOR ||
          unicode_type == G_UNICODE_PARAGRAPH_SEPARATOR)
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                       "%s: description holds U+%04" G_GINT32_MODIFIER "X at byte %" G_GSIZE_FORMAT
                       "; it must be one line of visible text",
                       what, g_utf8_get_char (p), (gsize) (p - description));
          return FALSE;
        }
    }

  return TRUE;
}

/* The default, minimum and maximum must each be of the option's type. */
static gboolean
check_declared_types (const char  *type_string,
                      GVariant    *values[3],
                      const char  *what,
                      GError     **error)
{
  const char * const roles[] = { "default", "minimum", "maximum" };

  for (guint i = 0; i < 3; i++)
    if (values[i] != NULL && !g_variant_is_of_type (values[i], G_VARIANT_TYPE (type_string)))
      {
        g_autofree char *expected = describe_type (type_string);
        g_autofree char *given = describe_type (g_variant_get_type_string (values[i]));

        g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                     "%s: %s of type %s, not of the option's type %s",
                     what, roles[i], given, expected);
        return FALSE;
      }

  return TRUE;
}

static gboolean
check_choices (const OptionType    *type,
               const char * const  *choices,
               const char          *what,
               GError             **error)
{
  guint n = g_strv_length ((char **) choices);

  if (!is_string (type->type_string))
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: only string and string list options have choices, not %s ones",
                   what, type->name);
      return FALSE;
    }
  if (n == 0 || n > REG_OPTION_MAX_CHOICES)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: %u choices, from 1 to %d are allowed", what, n, REG_OPTION_MAX_CHOICES);
      return FALSE;
    }

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) local_error = NULL;

      /* Choices are names: no separator of the text forms (a comma splits
       * a list), no white space, no quote. */
      if (!_reg_name_validate (choices[i], "choice", &local_error))
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                       "%s: %s", what, local_error->message);
          return FALSE;
        }
      for (guint j = 0; j < i; j++)
        if (g_str_equal (choices[i], choices[j]))
          {
            g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                         "%s: choice '%s' given twice", what, choices[i]);
            return FALSE;
          }
    }

  return TRUE;
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
  GVariant *values[3] = {
    default_value != NULL ? g_variant_ref_sink (default_value) : NULL,
    minimum != NULL ? g_variant_ref_sink (minimum) : NULL,
    maximum != NULL ? g_variant_ref_sink (maximum) : NULL,
  };
  g_autoptr(GError) local_error = NULL;
  g_autofree char *what = NULL;
  g_autofree char *role = NULL;
  const OptionType *type;
  RegOption *self = NULL;

  if (!_reg_name_validate (name, "option name", &local_error))
    {
      g_set_error_literal (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                           local_error->message);
      goto out;
    }
  what = g_strdup_printf ("option '%s'", name);
  role = g_strdup_printf ("%s: default", what);

  type = find_type (type_string);
  if (type == NULL)
    {
      g_autofree char *shown = _reg_text_for_message (type_string, -1, 64);

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: type '%s' is not one an option may have (b, y, n, q, i, u, x, t, "
                   "d, s or as)", what, shown);
      goto out;
    }

  if (!check_declared_types (type_string, values, what, error))
    goto out;

  if ((minimum != NULL || maximum != NULL) && !is_number (type_string))
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: only numbers have a range, not %s options", what, type->name);
      goto out;
    }
  if (g_str_equal (type_string, "d") &&
      ((minimum != NULL && !isfinite (g_variant_get_double (minimum))) ||
       (maximum != NULL && !isfinite (g_variant_get_double (maximum)))))
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: the bounds of a range must be finite numbers", what);
      goto out;
    }
  if (minimum != NULL && maximum != NULL && g_variant_compare (minimum, maximum) > 0)
    {
      g_autofree char *low = value_for_message (minimum);
      g_autofree char *high = value_for_message (maximum);

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: minimum %s is above maximum %s", what, low, high);
      goto out;
    }

  if ((choices != NULL && !check_choices (type, choices, what, error)) ||
      (description != NULL && !check_description (description, what, error)) ||
      (default_value != NULL &&
       !check_allowed (type_string, minimum, maximum, choices, default_value, role, error)))
    goto out;

  self = g_object_new (REG_TYPE_OPTION, NULL);
  self->name = g_strdup (name);
  self->type_string = g_strdup (type->type_string);
  self->default_value = g_steal_pointer (&values[0]);
  self->description = g_strdup (description);
  self->minimum = g_steal_pointer (&values[1]);
  self->maximum = g_steal_pointer (&values[2]);
  self->choices = g_strdupv ((char **) choices);

out:
  for (guint i = 0; i < 3; i++)
    g_clear_pointer (&values[i], g_variant_unref);

  return self;
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

/* GObject */

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
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL, flags);

  /**
   * RegOption:type-string:
   *
   * The GVariant type string of the option's values.
   */
  properties[PROP_TYPE_STRING] =
    g_param_spec_string ("type-string", NULL, NULL, NULL, flags);

  /**
   * RegOption:default-value:
   *
   * The value the backend uses when the option is not given, or %NULL
   * when the declaration says none.
   */
  properties[PROP_DEFAULT_VALUE] =
    g_param_spec_variant ("default-value", NULL, NULL, G_VARIANT_TYPE_ANY, NULL, flags);

  /**
   * RegOption:description:
   *
   * One line saying what the option does, or %NULL.
   */
  properties[PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL, flags);

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
   * The values allowed, for strings (and the elements allowed, for string
   * lists), or %NULL for any.
   */
  properties[PROP_CHOICES] =
    g_param_spec_boxed ("choices", NULL, NULL, G_TYPE_STRV, flags);

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
 * Declares an option with neither a range nor choices.  Fails with
 * %REG_COMPILER_ERROR_BAD_OPTION saying what is wrong: a name that breaks
 * the naming rules, a type an option may not have, a default of another
 * type, a description that is not one line of UTF-8 text (at most 1024
 * bytes).  A floating @default_value is sunk, on failure too.
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
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (type_string != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return _reg_option_new_full (name, type_string, default_value, description,
                               NULL, NULL, NULL, error);
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
 * @maximum, both included.  Fails as [ctor@Reg.Option.new] does, and when
 * the type is not a number's, a bound is of another type, @minimum is
 * above @maximum or the default is out of the range.  Floating variants
 * are sunk, on failure too.
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
 * option whose elements are among @choices.  Fails as
 * [ctor@Reg.Option.new] does, and when the type is not `s` or `as`, a
 * choice is not a valid name or is given twice, or the default is not
 * among the choices.  A floating @default_value is sunk, on failure too.
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
 * Gets the option's name, its key in the options of a compile.
 *
 * Returns: (transfer none): the name
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
 * Gets the GVariant type string of the option's values, such as `u`.
 *
 * Returns: (transfer none): the type string
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
 * Gets the name of the option's type as people read it: `boolean`,
 * `uint32`, `double`, `string`, `string list`...  (the table of
 * [class@Reg.Option]).
 *
 * Returns: (transfer none): the name
 */
const char *
reg_option_get_type_name (RegOption *self)
{
  g_return_val_if_fail (REG_IS_OPTION (self), NULL);
  g_return_val_if_fail (option_is_made (self), NULL);

  return find_type (self->type_string)->name;
}

/**
 * reg_option_get_default_value:
 * @self: a [class@Reg.Option]
 *
 * Gets the value the backend uses when the option is not given.
 *
 * Returns: (transfer none) (nullable): the default, or %NULL when the
 *   declaration gives none
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
 * Gets the line of text saying what the option does.
 *
 * Returns: (transfer none) (nullable): the description
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
 * Gets the smallest value a number option allows.
 *
 * Returns: (transfer none) (nullable): the minimum, or %NULL for none
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
 * Gets the largest value a number option allows.
 *
 * Returns: (transfer none) (nullable): the maximum, or %NULL for none
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
 * Gets the values a string option allows (the elements a string list
 * option allows).
 *
 * Returns: (transfer none) (nullable) (array zero-terminated=1): the
 *   choices, or %NULL for any value
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
  g_return_val_if_fail (option_is_made (self), FALSE);
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
  g_return_val_if_fail (REG_IS_OPTION (self), NULL);
  g_return_val_if_fail (option_is_made (self), NULL);
  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return parse_value (self, text, error);
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
  g_return_val_if_fail (option_is_made (self), NULL);
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
  else if (g_str_equal (self->type_string, "y"))
    text = g_strdup_printf ("%u", g_variant_get_byte (value));
  else
    text = g_variant_print (value, FALSE);

  /* The plain form where it reads back the same, GVariant text where not. */
  again = _reg_option_parse_text (self->type_string, text, NULL);
  if (again != NULL && g_variant_equal (again, value))
    return text;

  g_free (text);
  return g_variant_print (value, FALSE);
}
