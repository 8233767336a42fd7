/* reg-message.c: untrusted text in error and warning messages
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "reg-message-private.h"

/* Characters that would make a message more than one visible line, or
 * rewrite the terminal or the text's direction. */
#define UNSAFE_TYPES ((1u << G_UNICODE_CONTROL) | (1u << G_UNICODE_FORMAT) | \
                      (1u << G_UNICODE_LINE_SEPARATOR) | (1u << G_UNICODE_PARAGRAPH_SEPARATOR))

char *
_reg_text_for_message (const char *text,
                       gssize      len,
                       gsize       max_len)
{
  gsize length = len < 0 ? strlen (text) : (gsize) len;
  const char *end = text + length;
  const char *p = text;
  GString *out = g_string_sized_new (MIN (length, max_len) + 8);

  while (p < end && out->len < max_len)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);
      gboolean valid = c != (gunichar) -1 && c != (gunichar) -2;
      const char *next = valid ? g_utf8_next_char (p) : p + 1;

      if (!valid)
        g_string_append_printf (out, "\\x%02X", (guchar) *p);
      else if ((1u << g_unichar_type (c)) & UNSAFE_TYPES)
        g_string_append_printf (out, "<U+%04X>", c);
      else
        g_string_append_len (out, p, next - p);
      p = next;
    }

  if (p < end)
    g_string_append (out, "...");

  return g_string_free (out, FALSE);
}

char *
_reg_escape (const char *text)
{
  if (text == NULL)
    return g_strdup ("(null)");

  return _reg_text_for_message (text, -1, REG_MESSAGE_TEXT_MAX);
}

char *
_reg_quote_for_message (const char *text,
                        gssize      len)
{
  g_autofree char *safe = _reg_text_for_message (text, len, 40);

  return g_strdup_printf ("'%s'", safe);
}

char *
_reg_message_embed (const char *message)
{
  gsize length = strlen (message);

  while (length > 0 && g_ascii_isspace (message[length - 1]))
    length--;
  if (length > 0 && message[length - 1] == '.' && (length < 2 || message[length - 2] != '.'))
    length--;

  return g_strndup (message, length);
}

char *
_reg_find_invisible (const char *text)
{
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        return g_strdup_printf ("invalid UTF-8 at byte %" G_GSIZE_FORMAT, (gsize) (p - text));
      if ((1u << g_unichar_type (c)) & UNSAFE_TYPES)
        return g_strdup_printf ("U+%04X at byte %" G_GSIZE_FORMAT, c, (gsize) (p - text));
    }

  return NULL;
}
