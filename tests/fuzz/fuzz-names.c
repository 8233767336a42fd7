/* fuzz-names.c: libFuzzer target for the naming rules of backends and tags
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input is a list of strings separated by NUL bytes.  The first is
 * checked as a backend name, all of them as a tag list.  The verdicts are
 * compared with the rules of docs/names.md written out again here, and the
 * messages of refusals must be clear.
 */

#include "fuzz-common.h"

#include "reg-name-private.h"

#define MAX_TAGS 64

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* docs/names.md: 1 to 255 bytes of valid UTF-8, no white space (Unicode's
 * White_Space property), no control (Cc) or format (Cf) characters, none
 * of / \ [ ] ; , = # ' " */
static gboolean
reference_valid (const char *name)
{
  gsize len = strlen (name);

  if (len == 0 || len > 255 || !g_utf8_validate (name, len, NULL))
    return FALSE;

  for (const char *p = name; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      GUnicodeType type = g_unichar_type (c);

      if (type == G_UNICODE_SPACE_SEPARATOR || type == G_UNICODE_LINE_SEPARATOR ||
          type == G_UNICODE_PARAGRAPH_SEPARATOR || type == G_UNICODE_CONTROL ||
          type == G_UNICODE_FORMAT)
        return FALSE;
      if ((c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 ||
          c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
          c == 0x202F || c == 0x205F || c == 0x3000)
        return FALSE;
      if (c < 0x80 && strchr ("/\\[];,=#'\"", (int) c) != NULL)
        return FALSE;
    }

  return TRUE;
}

static void
check_name (const char *name,
            const char *what)
{
  g_autoptr(GError) error = NULL;
  gboolean valid = _reg_name_validate (name, what, &error);

  FUZZ_ASSERT (valid == reference_valid (name), "%s '%s': libreg says %s, the rules say %s",
               what, g_strescape (name, NULL), valid ? "valid" : "invalid", valid ? "invalid" : "valid");
  FUZZ_ASSERT (valid == (error == NULL), "verdict and error disagree");
  if (error != NULL)
    {
      g_autofree char *prefix = g_strdup_printf ("invalid %s", what);

      FUZZ_ASSERT (g_str_has_prefix (error->message, prefix), "message '%s'", error->message);
      fuzz_check_message (error->message);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) normalized = NULL;
  gboolean all_valid = TRUE;
  gsize start = 0;

  /* Split at NUL bytes: each piece is a C string. */
  for (gsize i = 0; i <= size && strings->len < MAX_TAGS; i++)
    if (i == size || data[i] == '\0')
      {
        g_ptr_array_add (strings, g_strndup ((const char *) data + start, i - start));
        start = i + 1;
      }

  check_name (g_ptr_array_index (strings, 0), "backend name");
  for (guint i = 0; i < strings->len; i++)
    {
      check_name (g_ptr_array_index (strings, i), "tag");
      all_valid = all_valid && reference_valid (g_ptr_array_index (strings, i));
    }

  g_ptr_array_add (strings, NULL);
  normalized = _reg_tags_normalize ((const char * const *) strings->pdata, &error);
  FUZZ_ASSERT ((normalized != NULL) == all_valid, "normalizing %s tags %s",
               all_valid ? "valid" : "invalid", normalized != NULL ? "succeeded" : "failed");
  if (normalized == NULL)
    {
      fuzz_check_message (error->message);
      return 0;
    }

  /* The order given, each tag once, at its first place */
  {
    guint k = 0;

    for (guint i = 0; strings->pdata[i] != NULL; i++)
      {
        gboolean seen = FALSE;

        for (guint j = 0; j < i && !seen; j++)
          seen = g_str_equal (strings->pdata[i], strings->pdata[j]);
        if (seen)
          continue;
        FUZZ_ASSERT (normalized[k] != NULL && g_str_equal (normalized[k], strings->pdata[i]),
                     "tag %u of the normalized list is not '%s'", k, (char *) strings->pdata[i]);
        k++;
      }
    FUZZ_ASSERT (normalized[k] == NULL, "normalized list too long");
  }

  return 0;
}
