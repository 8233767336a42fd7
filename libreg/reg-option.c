/* reg-option.c: the declaration of one backend option
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <string.h>

#include "reg-close-matches.h"
#include "reg-compiler.h"
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

/* The value types, one table: what each is called, how its values read,
 * compare and print. */
typedef enum {
  KIND_BOOLEAN,
  KIND_SIGNED,
  KIND_UNSIGNED,
  KIND_DOUBLE,
  KIND_STRING,
  KIND_STRINGS,
} Kind;

typedef struct
{
  const char *type_string;
  const char *name;
  Kind        kind;
  gint64      min;  /* integers: the bounds of the type */
  guint64     max;
} OptionType;

static const OptionType option_types[] = {
  { "b",  "boolean",     KIND_BOOLEAN,  0,          0 },
  { "y",  "byte",        KIND_UNSIGNED, 0,          G_MAXUINT8 },
  { "n",  "int16",       KIND_SIGNED,   G_MININT16, G_MAXINT16 },
  { "q",  "uint16",      KIND_UNSIGNED, 0,          G_MAXUINT16 },
  { "i",  "int32",       KIND_SIGNED,   G_MININT32, G_MAXINT32 },
  { "u",  "uint32",      KIND_UNSIGNED, 0,          G_MAXUINT32 },
  { "x",  "int64",       KIND_SIGNED,   G_MININT64, G_MAXINT64 },
  { "t",  "uint64",      KIND_UNSIGNED, 0,          G_MAXUINT64 },
  { "d",  "double",      KIND_DOUBLE,   0,          0 },
  { "s",  "string",      KIND_STRING,   0,          0 },
  { "as", "string list", KIND_STRINGS,  0,          0 },
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
kind_is_number (Kind kind)
{
  return kind == KIND_SIGNED || kind == KIND_UNSIGNED || kind == KIND_DOUBLE;
}

/* "uint32 ('u')", or "'a{sv}'" for a type that is not an option's. */
static char *
describe_type (const char *type_string)
{
  const OptionType *type = find_type (type_string);
  g_autofree char *shown = _reg_text_for_message (type_string, -1, 64);

  if (type != NULL)
    return g_strdup_printf ("%s ('%s')", type->name, type->type_string);

  return g_strdup_printf ("'%s'", shown);
}

static gint64
get_signed (GVariant *value)
{
  switch (g_variant_get_type_string (value)[0])
    {
    case 'n':
      return g_variant_get_int16 (value);
    case 'i':
      return g_variant_get_int32 (value);
    case 'x':
      return g_variant_get_int64 (value);
    default:
      g_assert_not_reached ();
    }
}

static guint64
get_unsigned (GVariant *value)
{
  switch (g_variant_get_type_string (value)[0])
    {
    case 'y':
      return g_variant_get_byte (value);
    case 'q':
      return g_variant_get_uint16 (value);
    case 'u':
      return g_variant_get_uint32 (value);
    case 't':
      return g_variant_get_uint64 (value);
    default:
      g_assert_not_reached ();
    }
}

/* -1, 0 or 1 as @a is below, equal to or above @b, two numbers of one
 * type of @kind (doubles are finite: options hold no NaN). */
static int
compare_numbers (Kind      kind,
                 GVariant *a,
                 GVariant *b)
{
  switch (kind)
    {
    case KIND_SIGNED:
      {
        gint64 x = get_signed (a), y = get_signed (b);

        return x < y ? -1 : x > y;
      }
    case KIND_UNSIGNED:
      {
        guint64 x = get_unsigned (a), y = get_unsigned (b);

        return x < y ? -1 : x > y;
      }
    case KIND_DOUBLE:
      {
        double x = g_variant_get_double (a), y = g_variant_get_double (b);

        return x < y ? -1 : x > y;
      }
    case KIND_BOOLEAN:
    case KIND_STRING:
    case KIND_STRINGS:
    default:
      g_assert_not_reached ();
    }
}

/* Text for a message: a value as GVariant text, escaped and cut. */
static char *
value_for_message (GVariant *value)
{
  g_autofree char *text = g_variant_print (value, FALSE);

  return _reg_text_for_message (text, -1, 80);
}

/* "'fold', 'simplify', 'cse'" */
static char *
join_quoted (const char * const *strings)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; strings[i] != NULL; i++)
    g_string_append_printf (out, "%s'%s'", i > 0 ? ", " : "", strings[i]);

  return g_string_free (out, FALSE);
}

/* "option 'threads' for backend 'inductor'", or "option 'threads'" */
static char *
describe_option (const char *name,
                 const char *backend)
{
  g_autofree char *shown_name = _reg_text_for_message (name, -1, 255);
  g_autofree char *shown_backend = NULL;

  if (backend == NULL)
    return g_strdup_printf ("option '%s'", shown_name);

  shown_backend = _reg_text_for_message (backend, -1, 255);
  return g_strdup_printf ("option '%s' for backend '%s'", shown_name, shown_backend);
}

/* Checks @value (of the option's type) against the rules of every value
 * of its type, and the range or choices of @self.  @what describes the
 * option or the declaration for the message. */
static gboolean
check_allowed (const OptionType   *type,
               GVariant           *minimum,
               GVariant           *maximum,
               const char * const *choices,
               GVariant           *value,
               const char         *what,
               GError            **error)
{
  if (type->kind == KIND_DOUBLE && !isfinite (g_variant_get_double (value)))
    {
      g_autofree char *shown = value_for_message (value);

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s must be a finite number, not %s", what, shown);
      return FALSE;
    }

  if (kind_is_number (type->kind) &&
      ((minimum != NULL && compare_numbers (type->kind, value, minimum) < 0) ||
       (maximum != NULL && compare_numbers (type->kind, value, maximum) > 0)))
    {
      g_autofree char *shown = value_for_message (value);
      g_autofree char *low = minimum != NULL ? g_variant_print (minimum, FALSE) : NULL;
      g_autofree char *high = maximum != NULL ? g_variant_print (maximum, FALSE) : NULL;

      if (low != NULL && high != NULL)
        g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                     "%s must be between %s and %s, not %s", what, low, high, shown);
      else if (low != NULL)
        g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                     "%s must be at least %s, not %s", what, low, shown);
      else
        g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                     "%s must be at most %s, not %s", what, high, shown);
      return FALSE;
    }

  if (choices != NULL && type->kind == KIND_STRING &&
      !g_strv_contains (choices, g_variant_get_string (value, NULL)))
    {
      g_autofree char *shown = _reg_text_for_message (g_variant_get_string (value, NULL), -1, 80);
      g_autofree char *allowed = join_quoted (choices);

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s must be one of %s, not '%s'", what, allowed, shown);
      return FALSE;
    }

  if (choices != NULL && type->kind == KIND_STRINGS)
    {
      GVariantIter iter;
      const char *element;

      g_variant_iter_init (&iter, value);
      while (g_variant_iter_next (&iter, "&s", &element))
        if (!g_strv_contains (choices, element))
          {
            g_autofree char *shown = _reg_text_for_message (element, -1, 80);
            g_autofree char *allowed = join_quoted (choices);

            g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                         "%s holds '%s', which is not one of %s", what, shown, allowed);
            return FALSE;
          }
    }

  return TRUE;
}

static gboolean
check_value (RegOption   *self,
             const char  *backend,
             GVariant    *value,
             GError     **error)
{
  const OptionType *type = find_type (self->type_string);
  g_autofree char *what = describe_option (self->name, backend);

  if (!g_variant_is_of_type (value, G_VARIANT_TYPE (self->type_string)))
    {
      g_autofree char *expected = describe_type (self->type_string);
      g_autofree char *given = describe_type (g_variant_get_type_string (value));

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s must be of type %s, not %s", what, expected, given);
      return FALSE;
    }

  return check_allowed (type, self->minimum, self->maximum,
                        (const char * const *) self->choices, value, what, error);
}

/* Text */

static gboolean
is_variant_text_of (const char *type_string,
                    const char *text,
                    GVariant  **value)
{
  /* A new, non-floating reference, or NULL. */
  *value = g_variant_parse (G_VARIANT_TYPE (type_string), text, NULL, NULL, NULL);
  return *value != NULL;
}

/* Splits "a, b,c" at commas, blanks around items stripped, empty items
 * dropped. */
static GVariant *
parse_string_list (const char *text)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE_STRING_ARRAY);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_strstrip (parts[i]);
      if (parts[i][0] != '\0')
        g_variant_builder_add (&builder, "s", parts[i]);
    }

  return g_variant_ref_sink (g_variant_builder_end (&builder));
}

GVariant *
_reg_option_parse_text (const char  *type_string,
                        const char  *text,
                        GError     **error)
{
  const OptionType *type = find_type (type_string);
  g_autofree char *shown = NULL;
  GVariant *value = NULL;
  char *end = NULL;

  g_assert (type != NULL);

  if (!g_utf8_validate (text, -1, NULL))
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "a %s value must be UTF-8 text", type->name);
      return NULL;
    }

  switch (type->kind)
    {
    case KIND_BOOLEAN:
      if (g_str_equal (text, "true") || g_str_equal (text, "false"))
        return g_variant_ref_sink (g_variant_new_boolean (text[0] == 't'));
      break;

    case KIND_SIGNED:
      {
        gint64 number;

        if (g_ascii_string_to_signed (text, 10, type->min, (gint64) type->max, &number, NULL))
          {
            switch (type->type_string[0])
              {
              case 'n':
                value = g_variant_new_int16 ((gint16) number);
                break;
              case 'i':
                value = g_variant_new_int32 ((gint32) number);
                break;
              default:
                value = g_variant_new_int64 (number);
              }
            return g_variant_ref_sink (value);
          }
      }
      break;

    case KIND_UNSIGNED:
      {
        guint64 number;

        if (g_ascii_string_to_unsigned (text, 10, 0, type->max, &number, NULL))
          {
            switch (type->type_string[0])
              {
              case 'y':
                value = g_variant_new_byte ((guint8) number);
                break;
              case 'q':
                value = g_variant_new_uint16 ((guint16) number);
                break;
              case 'u':
                value = g_variant_new_uint32 ((guint32) number);
                break;
              default:
                value = g_variant_new_uint64 (number);
              }
            return g_variant_ref_sink (value);
          }
      }
      break;

    case KIND_DOUBLE:
      {
        double number = g_ascii_strtod (text, &end);

        if (text[0] != '\0' && !g_ascii_isspace (text[0]) && *end == '\0')
          return g_variant_ref_sink (g_variant_new_double (number));
      }
      break;

    case KIND_STRING:
      /* A GVariant string literal is read as one, so that a value may
       * still be written as GVariant text ('fast'); anything else is the
       * string itself. */
      if ((text[0] == '\'' || text[0] == '"') && is_variant_text_of ("s", text, &value))
        return value;
      return g_variant_ref_sink (g_variant_new_string (text));

    case KIND_STRINGS:
      if (text[0] == '[' || text[0] == '@')
        {
          if (is_variant_text_of ("as", text, &value))
            return value;
          break;
        }
      return parse_string_list (text);

    default:
      g_assert_not_reached ();
    }

  /* GVariant text of the type: "uint32 2", "0x10", "@b true". */
  if (is_variant_text_of (type->type_string, text, &value))
    return value;

  shown = _reg_text_for_message (text, -1, 80);
  switch (type->kind)
    {
    case KIND_BOOLEAN:
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "'%s' is not a boolean (true or false)", shown);
      break;
    case KIND_SIGNED:
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "'%s' is not an %s (an integer from %" G_GINT64_FORMAT " to %" G_GUINT64_FORMAT ")",
                   shown, type->name, type->min, type->max);
      break;
    case KIND_UNSIGNED:
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "'%s' is not a %s (an integer from 0 to %" G_GUINT64_FORMAT ")",
                   shown, type->name, type->max);
      break;
    case KIND_DOUBLE:
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "'%s' is not a number", shown);
      break;
    case KIND_STRINGS:
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "'%s' is not a string list (items separated by commas, or GVariant text "
                   "like ['a', 'b'])", shown);
      break;
    case KIND_STRING:
    default:
      g_assert_not_reached ();
    }

  return NULL;
}

/* Whether @text reads back as the string list it was made of. */
static gboolean
is_plain_list_item (const char *item,
                    gboolean    first)
{
  gsize length = strlen (item);

  return length > 0 && strchr (item, ',') == NULL &&
         !g_ascii_isspace (item[0]) && !g_ascii_isspace (item[length - 1]) &&
         !(first && (item[0] == '[' || item[0] == '@'));
}

static char *
value_to_text (const OptionType *type,
               GVariant         *value)
{
  switch (type->kind)
    {
    case KIND_BOOLEAN:
      return g_strdup (g_variant_get_boolean (value) ? "true" : "false");

    case KIND_SIGNED:
      return g_strdup_printf ("%" G_GINT64_FORMAT, get_signed (value));

    case KIND_UNSIGNED:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, get_unsigned (value));

    case KIND_DOUBLE:
      {
        char buffer[G_ASCII_DTOSTR_BUF_SIZE];

        return g_strdup (g_ascii_dtostr (buffer, sizeof buffer, g_variant_get_double (value)));
      }

    case KIND_STRING:
      {
        const char *string = g_variant_get_string (value, NULL);

        if (string[0] == '\'' || string[0] == '"')
          return g_variant_print (value, FALSE);
        return g_strdup (string);
      }

    case KIND_STRINGS:
      {
        g_autofree const char **strings = g_variant_get_strv (value, NULL);

        for (guint i = 0; strings[i] != NULL; i++)
          if (!is_plain_list_item (strings[i], i == 0))
            return g_variant_print (value, FALSE);
        return g_strjoinv (",", (char **) strings);
      }

    default:
      g_assert_not_reached ();
    }
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

/* @value, one of the declaration's (default, minimum, maximum), must be of
 * @type. */
static gboolean
check_declared_type (const OptionType  *type,
                     GVariant          *value,
                     const char        *role,
                     const char        *what,
                     GError           **error)
{
  g_autofree char *expected = NULL;
  g_autofree char *given = NULL;

  if (value == NULL || g_variant_is_of_type (value, G_VARIANT_TYPE (type->type_string)))
    return TRUE;

  expected = describe_type (type->type_string);
  given = describe_type (g_variant_get_type_string (value));
  g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
               "%s: %s of type %s, not of the option's type %s", what, role, given, expected);
  return FALSE;
}

static gboolean
check_choices (const OptionType    *type,
               const char * const  *choices,
               const char          *what,
               GError             **error)
{
  guint n = g_strv_length ((char **) choices);

  if (type->kind != KIND_STRING && type->kind != KIND_STRINGS)
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
  g_autoptr(GVariant) default_ref = default_value != NULL ? g_variant_ref_sink (default_value) : NULL;
  g_autoptr(GVariant) minimum_ref = minimum != NULL ? g_variant_ref_sink (minimum) : NULL;
  g_autoptr(GVariant) maximum_ref = maximum != NULL ? g_variant_ref_sink (maximum) : NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *what = NULL;
  const OptionType *type;
  RegOption *self;

  if (!_reg_name_validate (name, "option name", &local_error))
    {
      g_set_error_literal (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                           local_error->message);
      return NULL;
    }
  what = g_strdup_printf ("option '%s'", name);

  type = find_type (type_string);
  if (type == NULL)
    {
      g_autofree char *shown = _reg_text_for_message (type_string, -1, 64);

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: type '%s' is not one an option may have (b, y, n, q, i, u, x, t, "
                   "d, s or as)", what, shown);
      return NULL;
    }

  if (!check_declared_type (type, default_value, "default", what, error) ||
      !check_declared_type (type, minimum, "minimum", what, error) ||
      !check_declared_type (type, maximum, "maximum", what, error))
    return NULL;

  if ((minimum != NULL || maximum != NULL) && !kind_is_number (type->kind))
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: only numbers have a range, not %s options", what, type->name);
      return NULL;
    }
  if (type->kind == KIND_DOUBLE &&
      ((minimum != NULL && !isfinite (g_variant_get_double (minimum))) ||
       (maximum != NULL && !isfinite (g_variant_get_double (maximum)))))
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: the bounds of a range must be finite numbers", what);
      return NULL;
    }
  if (minimum != NULL && maximum != NULL && compare_numbers (type->kind, minimum, maximum) > 0)
    {
      g_autofree char *low = g_variant_print (minimum, FALSE);
      g_autofree char *high = g_variant_print (maximum, FALSE);

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "%s: minimum %s is above maximum %s", what, low, high);
      return NULL;
    }

  if (choices != NULL && !check_choices (type, choices, what, error))
    return NULL;

  if (description != NULL && !check_description (description, what, error))
    return NULL;

  if (default_value != NULL)
    {
      g_autofree char *role = g_strdup_printf ("%s: default", what);

      if (!check_allowed (type, minimum, maximum, choices, default_value, role, error))
        return NULL;
    }

  self = g_object_new (REG_TYPE_OPTION, NULL);
  self->name = g_strdup (name);
  self->type_string = g_strdup (type->type_string);
  self->default_value = g_steal_pointer (&default_ref);
  self->description = g_strdup (description);
  self->minimum = g_steal_pointer (&minimum_ref);
  self->maximum = g_steal_pointer (&maximum_ref);
  self->choices = g_strdupv ((char **) choices);

  return self;
}

static gboolean
variants_equal (GVariant *a,
                GVariant *b)
{
  if (a == NULL || b == NULL)
    return a == b;

  return g_variant_equal (a, b);
}

gboolean
_reg_option_equal (RegOption *a,
                   RegOption *b)
{
  if (a == b)
    return TRUE;

  return g_strcmp0 (a->name, b->name) == 0 &&
         g_strcmp0 (a->type_string, b->type_string) == 0 &&
         variants_equal (a->default_value, b->default_value) &&
         g_strcmp0 (a->description, b->description) == 0 &&
         variants_equal (a->minimum, b->minimum) &&
         variants_equal (a->maximum, b->maximum) &&
         ((a->choices == NULL && b->choices == NULL) ||
          (a->choices != NULL && b->choices != NULL &&
           g_strv_equal ((const char * const *) a->choices, (const char * const *) b->choices)));
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

/* A RegOption made without a constructor (g_object_new() from a binding)
 * has no name: schemas refuse it. */
static gboolean
option_is_made (RegOption *self)
{
  return self->name != NULL && self->type_string != NULL;
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
  const OptionType *type;

  g_return_val_if_fail (REG_IS_OPTION (self), NULL);
  g_return_val_if_fail (option_is_made (self), NULL);

  type = find_type (self->type_string);
  return type->name;
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
  return check_value (self, NULL, value, error);
}

/**
 * reg_option_parse_value:
 * @self: a [class@Reg.Option]
 * @text: a value written as text
 * @error: return location for a #GError
 *
 * Reads a value of the option from @text, by the option's type: `true` or
 * `false` for a boolean, a decimal integer (`2`, `-7`) for integer types,
 * a decimal number (`0.5`, `1e-3`) for doubles, the text itself for a
 * string (`fast`), items separated by commas for a string list
 * (`fold,cse`; the empty text is the empty list).  GVariant text of the
 * type is read too (`uint32 2`, `'fast'`, `['fold', 'cse']`).  `regctl run
 * -o KEY=VALUE` and a manifest's `Default=` read values this way.
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
  g_return_val_if_fail (option_is_made (self), NULL);
  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  value = _reg_option_parse_text (self->type_string, text, &local_error);
  if (value == NULL)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "option '%s': %s", self->name, local_error->message);
      return NULL;
    }

  if (!check_value (self, NULL, value, error))
    return NULL;

  return g_steal_pointer (&value);
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

  g_return_val_if_fail (REG_IS_OPTION (self), NULL);
  g_return_val_if_fail (option_is_made (self), NULL);
  g_return_val_if_fail (value != NULL, NULL);
  g_return_val_if_fail (g_variant_is_of_type (value, G_VARIANT_TYPE (self->type_string)), NULL);

  value_ref = g_variant_ref_sink (value);
  return value_to_text (find_type (self->type_string), value);
}

/* Option lists ------------------------------------------------------------ */

/* RegOptionList: the immutable list model schemas are handed out as, so
 * that a schema given to a caller (transfer none) cannot be changed under
 * the checks that rely on it. */
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
  RegOptionList *self = REG_OPTION_LIST (model);

  if (position >= self->options->len)
    return NULL;

  return g_object_ref (g_ptr_array_index (self->options, position));
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
  RegOptionList *list_a, *list_b;

  if (a == NULL || b == NULL)
    return a == b;

  list_a = REG_OPTION_LIST (a);
  list_b = REG_OPTION_LIST (b);
  if (list_a->options->len != list_b->options->len)
    return FALSE;

  for (guint i = 0; i < list_a->options->len; i++)
    if (!_reg_option_equal (g_ptr_array_index (list_a->options, i),
                            g_ptr_array_index (list_b->options, i)))
      return FALSE;

  return TRUE;
}

RegOption *
_reg_option_list_lookup (GListModel *schema,
                         const char *name)
{
  RegOptionList *self = REG_OPTION_LIST (schema);

  for (guint i = 0; i < self->options->len; i++)
    {
      RegOption *option = g_ptr_array_index (self->options, i);

      if (g_str_equal (option->name, name))
        return option;
    }

  return NULL;
}

GListModel *
_reg_option_list_copy_checked (GListModel  *model,
                               const char  *backend,
                               GError     **error)
{
  g_autoptr(GPtrArray) options = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char *who = _reg_text_for_message (backend, -1, 255);
  guint n = g_list_model_get_n_items (model);

  if (n > REG_OPTION_MAX_OPTIONS)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                   "backend '%s' declares %u options, at most %d are allowed",
                   who, n, REG_OPTION_MAX_OPTIONS);
      return NULL;
    }

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);
      RegOption *option;

      if (item == NULL || !REG_IS_OPTION (item))
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                       "backend '%s' declares options with item %u %s%s, not a RegOption",
                       who, i, item == NULL ? "missing" : "a ",
                       item == NULL ? "" : G_OBJECT_TYPE_NAME (item));
          return NULL;
        }
      option = REG_OPTION (item);
      if (!option_is_made (option))
        {
          g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                       "backend '%s' declares options with item %u made without a "
                       "constructor of RegOption (it has no name)", who, i);
          return NULL;
        }
      for (guint j = 0; j < options->len; j++)
        if (g_str_equal (option->name, REG_OPTION (g_ptr_array_index (options, j))->name))
          {
            g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
                         "backend '%s' declares option '%s' twice", who, option->name);
            return NULL;
          }
      g_ptr_array_add (options, g_steal_pointer (&item));
    }

  return _reg_option_list_new ((RegOption * const *) options->pdata, options->len);
}

static void
set_unknown_key_error (RegOptionList  *self,
                       const char     *backend,
                       const char     *key,
                       GError        **error)
{
  g_autofree char *who = _reg_text_for_message (backend, -1, 255);
  g_autofree char *shown = _reg_text_for_message (key, -1, 80);
  g_autofree const char **names = g_new0 (const char *, self->options->len + 1);
  g_auto(GStrv) matches = NULL;

  for (guint i = 0; i < self->options->len; i++)
    names[i] = REG_OPTION (g_ptr_array_index (self->options, i))->name;

  if (self->options->len == 0)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "unknown option '%s' for backend '%s', which takes no option", shown, who);
      return;
    }

  matches = reg_close_matches (key, names, 3, 0.6);
  if (matches[0] != NULL)
    {
      g_autofree char *quoted = join_quoted ((const char * const *) matches);

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "unknown option '%s' for backend '%s', did you mean %s?", shown, who, quoted);
    }
  else
    {
      g_autofree char *all = g_strjoinv (", ", (char **) names);

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION,
                   "unknown option '%s' for backend '%s'; it takes %s", shown, who, all);
    }
}

gboolean
_reg_option_list_check_options (GListModel  *schema,
                                const char  *backend,
                                GVariant    *options,
                                GError     **error)
{
  RegOptionList *self = REG_OPTION_LIST (schema);
  GVariantIter iter;
  const char *key;
  GVariant *value;

  g_assert (g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT));

  g_variant_iter_init (&iter, options);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &value))
    {
      g_autoptr(GVariant) owned = value;
      RegOption *option = _reg_option_list_lookup (schema, key);

      if (option == NULL)
        {
          set_unknown_key_error (self, backend, key, error);
          return FALSE;
        }
      if (!check_value (option, backend, value, error))
        return FALSE;
    }

  return TRUE;
}
