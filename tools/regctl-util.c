/* regctl-util.c: JSON strings, aligned tables and small formatting helpers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "reg-message-private.h"
#include "regctl.h"

/* Characters that JSON may carry raw but that a terminal would act on
 * or that would rearrange what is shown: C0 and C1 controls, DEL, format
 * characters (direction overrides, zero-width ones) and the line and
 * paragraph separators. */
static gboolean
is_invisible (gunichar c)
{
  switch (g_unichar_type (c))
    {
    case G_UNICODE_CONTROL:
    case G_UNICODE_FORMAT:
    case G_UNICODE_LINE_SEPARATOR:
    case G_UNICODE_PARAGRAPH_SEPARATOR:
      return TRUE;
    default:
      return FALSE;
    }
}

/**
 * regctl_json_append_string:
 * @out: where to append
 * @text: (nullable): UTF-8 text
 *
 * Appends @text as a JSON string (RFC 8259), or `null` for %NULL.  Quotes
 * and backslashes are escaped, and so are the characters a terminal would
 * act on (C0 and C1 controls, DEL, format characters such as direction
 * overrides, line and paragraph separators), as `\uXXXX`: the string
 * parses to exactly @text, and printing the JSON to a terminal is safe.
 * Other characters are written as UTF-8.  Text that is not valid UTF-8 has
 * its bad bytes replaced by U+FFFD, so the output is always valid JSON.
 */
void
regctl_json_append_string (GString    *out,
                           const char *text)
{
  g_autofree char *valid = NULL;

  if (text == NULL)
    {
      g_string_append (out, "null");
      return;
    }

  if (!g_utf8_validate (text, -1, NULL))
    text = valid = g_utf8_make_valid (text, -1);

  g_string_append_c (out, '"');
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      switch (c)
        {
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\b':
          g_string_append (out, "\\b");
          break;
        case '\f':
          g_string_append (out, "\\f");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        default:
          if (c > 0xffff && is_invisible (c))
            {
              /* Outside the BMP: a surrogate pair. */
              gunichar v = c - 0x10000;

              g_string_append_printf (out, "\\u%04x\\u%04x", 0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
            }
          else if (is_invisible (c))
            g_string_append_printf (out, "\\u%04x", c);
          else
            g_string_append_len (out, p, g_utf8_next_char (p) - p);
        }
    }
  g_string_append_c (out, '"');
}

/**
 * regctl_json_append_strv:
 * @out: where to append
 * @strv: (nullable): strings
 *
 * Appends @strv as a JSON array of strings on one line (`[]` for %NULL).
 */
void
regctl_json_append_strv (GString            *out,
                         const char * const *strv)
{
  g_string_append_c (out, '[');
  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      regctl_json_append_string (out, strv[i]);
    }
  g_string_append_c (out, ']');
}

/**
 * regctl_json_append_variant:
 * @out: where to append
 * @value: (nullable): an option value: a boolean, a number, a string or a
 *   string list
 *
 * Appends @value as the JSON value of its kind (`null` for %NULL): `true`,
 * `512`, `0.25`, `"fast"`, `["fold", "cse"]`.
 */
void
regctl_json_append_variant (GString  *out,
                            GVariant *value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (value == NULL)
    {
      g_string_append (out, "null");
      return;
    }

  switch (g_variant_classify (value))
    {
    case G_VARIANT_CLASS_BOOLEAN:
      g_string_append (out, g_variant_get_boolean (value) ? "true" : "false");
      break;
    case G_VARIANT_CLASS_BYTE:
      g_string_append_printf (out, "%u", g_variant_get_byte (value));
      break;
    case G_VARIANT_CLASS_INT16:
      g_string_append_printf (out, "%d", g_variant_get_int16 (value));
      break;
    case G_VARIANT_CLASS_UINT16:
      g_string_append_printf (out, "%u", g_variant_get_uint16 (value));
      break;
    case G_VARIANT_CLASS_INT32:
      g_string_append_printf (out, "%" G_GINT32_FORMAT, g_variant_get_int32 (value));
      break;
    case G_VARIANT_CLASS_UINT32:
      g_string_append_printf (out, "%" G_GUINT32_FORMAT, g_variant_get_uint32 (value));
      break;
    case G_VARIANT_CLASS_INT64:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, g_variant_get_int64 (value));
      break;
    case G_VARIANT_CLASS_UINT64:
      g_string_append_printf (out, "%" G_GUINT64_FORMAT, g_variant_get_uint64 (value));
      break;
    case G_VARIANT_CLASS_DOUBLE:
      /* Option values are finite: JSON has no NaN. */
      g_string_append (out, g_ascii_dtostr (buffer, sizeof buffer, g_variant_get_double (value)));
      break;
    case G_VARIANT_CLASS_STRING:
      regctl_json_append_string (out, g_variant_get_string (value, NULL));
      break;
    case G_VARIANT_CLASS_ARRAY:
      if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY))
        {
          g_autofree const char **strings = g_variant_get_strv (value, NULL);

          regctl_json_append_strv (out, strings);
          break;
        }
      G_GNUC_FALLTHROUGH;
    default:
      {
        g_autofree char *text = g_variant_print (value, TRUE);

        regctl_json_append_string (out, text);
      }
    }
}

/**
 * regctl_join_tags:
 * @tags: (nullable): tags
 *
 * Returns: (transfer full): the tags joined by commas, or "-" for none
 */
char *
regctl_join_tags (const char * const *tags)
{
  if (tags == NULL || tags[0] == NULL)
    return g_strdup ("-");

  return g_strjoinv (",", (char **) tags);
}

/**
 * regctl_escape:
 * @text: (nullable): text from outside regctl: a file name, a manifest
 *   value, a backend name, a description, a module's message
 *
 * Escapes @text for regctl's text output as libreg escapes it for its
 * messages (the very same function): bytes that are not UTF-8 as `\xNN`,
 * control characters (newlines and tabs included), format characters
 * (direction overrides) and line separators as `<U+XXXX>`, so that it
 * keeps to its line and cannot drive the terminal.  Nothing is cut.
 *
 * Returns: (transfer full): the escaped text; "-" for %NULL
 */
char *
regctl_escape (const char *text)
{
  if (text == NULL)
    return g_strdup ("-");

  return _reg_text_for_message (text, -1, G_MAXSIZE);
}

/**
 * regctl_split_list:
 * @text: a comma-separated list
 *
 * Splits @text at commas, strips blanks around items and drops empty ones,
 * so "a, b," is {"a", "b"} and "" is the empty list.
 *
 * Returns: (transfer full): the items
 */
char **
regctl_split_list (const char *text)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_strstrip (parts[i]);
      if (parts[i][0] != '\0')
        g_strv_builder_add (builder, parts[i]);
    }

  return g_strv_builder_end (builder);
}

/**
 * regctl_format_double:
 * @value: a number
 * @format: a printf() format for one double (`%.6g`)
 *
 * Formats @value with a '.' whatever the locale.
 *
 * Returns: (transfer full): the text
 */
char *
regctl_format_double (double      value,
                      const char *format)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buffer, sizeof buffer, format, value));
}

/* The errno of the first failed write to stdout, reported at exit by
 * regctl_check_stdout(). */
static int stdout_errno;

static void
note_stdout_error (void)
{
  if (stdout_errno == 0)
    stdout_errno = errno != 0 ? errno : EIO;
}

/**
 * regctl_write_stdout:
 * @text: bytes
 * @len: their length
 *
 * Writes @text to stdout as it is: JSON must stay UTF-8 whatever the
 * locale, which g_print() would convert to.
 */
void
regctl_write_stdout (const char *text,
                     gsize       len)
{
  errno = 0;
  if (fwrite (text, 1, len, stdout) != len)
    note_stdout_error ();
}

/**
 * regctl_print_handler:
 * @text: what g_print() prints
 *
 * The g_print() handler of regctl (GOption prints --help with it): writes
 * @text as it is, as regctl_print() does, and flushes as g_print() does,
 * noting a failure for regctl_check_stdout().
 */
void
regctl_print_handler (const char *text)
{
  regctl_write_stdout (text, strlen (text));
  errno = 0;
  if (fflush (stdout) != 0)
    note_stdout_error ();
}

/**
 * regctl_check_stdout:
 *
 * Flushes and closes stdout, and checks that everything regctl printed
 * was written: on failure (a full disk, `> /dev/full`, an I/O error)
 * prints why on stderr and ends the process with status 1, whatever the
 * command's own status.  main() registers it with atexit(), so that it
 * runs however the process exits (GOption's --help calls exit()).  A
 * closed pipe never gets here: regctl keeps SIGPIPE's default action,
 * which ends it quietly.
 */
void
regctl_check_stdout (void)
{
  errno = 0;
  if (fflush (stdout) != 0 || ferror (stdout))
    note_stdout_error ();
  errno = 0;
  if (fclose (stdout) != 0)
    note_stdout_error ();

  if (stdout_errno != 0)
    {
      fprintf (stderr, "regctl: cannot write to standard output: %s\n", g_strerror (stdout_errno));
      _exit (REGCTL_EXIT_FAILURE);
    }
}

/**
 * regctl_print:
 * @format: printf() format
 *
 * Prints to stdout as it is.  regctl writes UTF-8 whatever the locale:
 * g_print() would turn every non-ASCII character of a backend name into
 * '?' under LANG=C, as in many containers, while terminals and pipes
 * there take UTF-8 fine.
 */
void
regctl_print (const char *format,
              ...)
{
  va_list args;

  errno = 0;
  va_start (args, format);
  if (vfprintf (stdout, format, args) < 0)
    note_stdout_error ();
  va_end (args);
}

/**
 * regctl_printerr:
 * @format: printf() format
 *
 * Prints to stderr as it is, as regctl_print() does to stdout.
 */
void
regctl_printerr (const char *format,
                 ...)
{
  va_list args;

  fflush (stdout);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
}

/**
 * regctl_args_to_utf8:
 * @args: (nullable): command-line arguments, changed in place
 * @error: return location for a %REGCTL_ERROR_USAGE error
 *
 * Makes arguments that name backends, tags and inputs UTF-8, as the
 * registry's names are.  They are parsed as G_OPTION_ARG_FILENAME, which
 * keeps the bytes given: UTF-8 bytes stay as they are even under LANG=C
 * (where G_OPTION_ARG_STRING would reject them), other bytes are converted
 * from the locale's character set.
 *
 * Returns: %TRUE on success
 */
gboolean
regctl_args_to_utf8 (char   **args,
                     GError **error)
{
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    {
      g_autoptr(GError) local_error = NULL;
      char *converted;

      if (g_utf8_validate (args[i], -1, NULL))
        continue;

      converted = g_locale_to_utf8 (args[i], -1, NULL, NULL, &local_error);
      if (converted == NULL)
        {
          g_autofree char *shown = g_utf8_make_valid (args[i], -1);

          g_set_error (error, REGCTL_ERROR, REGCTL_ERROR_USAGE,
                       "argument '%s' is not text: %s", shown, local_error->message);
          return FALSE;
        }
      g_free (args[i]);
      args[i] = converted;
    }

  return TRUE;
}

/**
 * regctl_arg_to_utf8:
 * @arg: (inout) (nullable): one argument, replaced when converted
 * @error: return location for a %REGCTL_ERROR_USAGE error
 *
 * regctl_args_to_utf8() for one argument.
 *
 * Returns: %TRUE on success
 */
gboolean
regctl_arg_to_utf8 (char   **arg,
                    GError **error)
{
  char *args[2] = { *arg, NULL };

  if (*arg == NULL)
    return TRUE;
  if (!regctl_args_to_utf8 (args, error))
    return FALSE;

  *arg = args[0];
  return TRUE;
}

/**
 * regctl_stdout_width:
 *
 * Returns: the width in columns that table output keeps within: at most
 *   %REGCTL_TERMINAL_WIDTH, less on a narrower terminal; 0 (no limit) when
 *   stdout is not a terminal, so that piped output is whole
 */
guint
regctl_stdout_width (void)
{
  struct winsize size;

  if (!isatty (STDOUT_FILENO))
    return 0;

  if (ioctl (STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return MIN (size.ws_col, REGCTL_TERMINAL_WIDTH);

  return REGCTL_TERMINAL_WIDTH;
}

/* ---- Tables ------------------------------------------------------------- */

struct _RegctlTable
{
  guint      n_columns;
  GPtrArray *cells;          /* row-major, the header row first */
  gboolean  *right_aligned;  /* per column */
};

/**
 * regctl_table_new:
 * @n_columns: the number of columns
 * @...: the @n_columns column titles
 *
 * Makes a table whose columns are as wide as their widest cell, separated
 * by two spaces, left-aligned unless regctl_table_set_right_aligned().
 *
 * Returns: (transfer full): the table
 */
RegctlTable *
regctl_table_new (guint n_columns,
                  ...)
{
  RegctlTable *table = g_new0 (RegctlTable, 1);
  va_list args;

  g_assert (n_columns > 0);

  table->n_columns = n_columns;
  table->cells = g_ptr_array_new_with_free_func (g_free);
  table->right_aligned = g_new0 (gboolean, n_columns);

  va_start (args, n_columns);
  for (guint i = 0; i < n_columns; i++)
    g_ptr_array_add (table->cells, regctl_escape (va_arg (args, const char *)));
  va_end (args);

  return table;
}

void
regctl_table_set_right_aligned (RegctlTable *table,
                                guint        column)
{
  g_assert (column < table->n_columns);

  table->right_aligned[column] = TRUE;
}

/**
 * regctl_table_add_row:
 * @table: a table
 * @...: one string per column (copied, escaped by regctl_escape())
 */
void
regctl_table_add_row (RegctlTable *table,
                      ...)
{
  va_list args;

  va_start (args, table);
  for (guint i = 0; i < table->n_columns; i++)
    g_ptr_array_add (table->cells, regctl_escape (va_arg (args, const char *)));
  va_end (args);
}

/* Width in terminal columns, roughly: one per character (cells are
 * escaped, so valid UTF-8). */
static gsize
text_width (const char *text)
{
  return g_utf8_strlen (text, -1);
}

/* The first characters of @cell that fit in @width columns, with an
 * ellipsis when it is cut. */
static char *
cut_cell (const char *cell,
          gsize       width)
{
  g_autofree char *start = NULL;

  if (text_width (cell) <= width)
    return g_strdup (cell);
  if (width == 0)
    return g_strdup ("");
  if (!g_utf8_validate (cell, -1, NULL))
    return g_strndup (cell, width);

  start = g_utf8_substring (cell, 0, width - 1);
  g_strchomp (start);
  return g_strconcat (start, "\u2026", NULL);
}

/**
 * regctl_table_fit:
 * @table: a table
 * @column: the column to cut
 * @max_width: the widest a line may be, 0 for no limit
 *
 * Cuts the cells of @column (not its title), with an ellipsis, so that
 * the table's lines fit in @max_width columns, as far as cutting that
 * column can.
 */
void
regctl_table_fit (RegctlTable *table,
                  guint        column,
                  guint        max_width)
{
  g_autofree gsize *widths = g_new0 (gsize, table->n_columns);
  gsize others = 0, available;

  g_assert (column < table->n_columns);

  if (max_width == 0)
    return;

  for (guint i = 0; i < table->cells->len; i++)
    widths[i % table->n_columns] = MAX (widths[i % table->n_columns],
                                        text_width (g_ptr_array_index (table->cells, i)));
  for (guint col = 0; col < table->n_columns; col++)
    if (col != column)
      others += widths[col] + 2;

  if (others + widths[column] <= max_width)
    return;

  available = others < max_width ? max_width - others : 0;
  available = MAX (available, text_width (g_ptr_array_index (table->cells, column)));
  for (guint i = table->n_columns + column; i < table->cells->len; i += table->n_columns)
    {
      char *cell = g_ptr_array_index (table->cells, i);

      table->cells->pdata[i] = cut_cell (cell, available);
      g_free (cell);
    }
}

/**
 * regctl_table_to_string:
 * @table: a table
 *
 * Returns: (transfer full): the table, one line per row, without trailing
 *   blanks
 */
char *
regctl_table_to_string (RegctlTable *table)
{
  g_autofree gsize *widths = g_new0 (gsize, table->n_columns);
  GString *out = g_string_new (NULL);
  guint n_rows = table->cells->len / table->n_columns;

  for (guint i = 0; i < table->cells->len; i++)
    widths[i % table->n_columns] = MAX (widths[i % table->n_columns],
                                        text_width (g_ptr_array_index (table->cells, i)));

  for (guint row = 0; row < n_rows; row++)
    {
      for (guint col = 0; col < table->n_columns; col++)
        {
          const char *cell = g_ptr_array_index (table->cells, row * table->n_columns + col);
          gsize padding = widths[col] - text_width (cell);
          gboolean last = col + 1 == table->n_columns;

          if (col > 0)
            g_string_append (out, "  ");
          if (table->right_aligned[col])
            {
              for (gsize i = 0; i < padding; i++)
                g_string_append_c (out, ' ');
              g_string_append (out, cell);
            }
          else
            {
              g_string_append (out, cell);
              if (!last)
                for (gsize i = 0; i < padding; i++)
                  g_string_append_c (out, ' ');
            }
        }

      /* A last column that is empty would leave blanks behind. */
      while (out->len > 0 && out->str[out->len - 1] == ' ')
        g_string_truncate (out, out->len - 1);
      g_string_append_c (out, '\n');
    }

  return g_string_free (out, FALSE);
}

void
regctl_table_free (RegctlTable *table)
{
  if (table == NULL)
    return;

  g_ptr_array_unref (table->cells);
  g_free (table->right_aligned);
  g_free (table);
}
