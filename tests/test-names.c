/* test-names.c: the naming rules of backends and tags
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The rules are internal functions, hidden in the shared library: this test
 * links the internal static library (libreg_internal_dep), which also
 * defines REG_COMPILATION so the headers can be included one by one.
 */

#include "reg-name-private.h"
#include "reg-registry.h"

/* Messages are one line of visible text: no control, format or separator
 * character except a plain space. */
static void
assert_message_visible (const char *message)
{
  const char *p;

  g_assert_true (g_utf8_validate (message, -1, NULL));
  for (p = message; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      GUnicodeType type = g_unichar_type (c);

      if (c == ' ')
        continue;
      g_assert_false (type == G_UNICODE_CONTROL || type == G_UNICODE_FORMAT ||
                      type == G_UNICODE_SPACE_SEPARATOR ||
                      type == G_UNICODE_LINE_SEPARATOR ||
                      type == G_UNICODE_PARAGRAPH_SEPARATOR);
    }
}

static void
assert_valid (const char *name)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (_reg_name_validate (name, "backend name", &error));
  g_assert_no_error (error);
}

static void
assert_invalid (const char *name,
                const char *what,
                const char *message)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (_reg_name_validate (name, what, &error));
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_NAME);
  assert_message_visible (error->message);
  g_assert_cmpstr (error->message, ==, message);

  /* Without a GError, the answer is the same. */
  g_assert_false (_reg_name_validate (name, what, NULL));
}

static void
test_valid (void)
{
  const char * const names[] = {
    "inductor", "eager", "aot_eager", "relu_compile_error_TESTING_ONLY",
    "a", "A1", "inductor-cpu", "eager.debug", "tvm:meta", "a+b", "mlx@gpu",
    "-_.:+@", "~!$%^&*()<>?|`{}", "café", "straße", "漢字", "한국어",
    "Ωmega", "😀", "e\xcc\x81",  /* e + U+0301, a combining mark (Mn) */
    "\xee\x80\x80",              /* U+E000, private use */
    NULL
  };
  g_autofree char *ascii_255 = g_strnfill (255, 'x');
  g_autoptr(GString) cjk_255 = g_string_new (NULL);
  guint i;

  for (i = 0; names[i] != NULL; i++)
    assert_valid (names[i]);

  assert_valid (ascii_255);

  /* 85 three-byte characters: 255 bytes, not 85. */
  for (i = 0; i < 85; i++)
    g_string_append (cjk_255, "漢");
  g_assert_cmpuint (cjk_255->len, ==, 255);
  assert_valid (cjk_255->str);
}

static void
test_empty (void)
{
  assert_invalid ("", "backend name", "invalid backend name '': empty");
  assert_invalid ("", "tag", "invalid tag '': empty");
}

static void
test_too_long (void)
{
  g_autofree char *ascii_256 = g_strnfill (256, 'x');
  g_autofree char *ascii_300 = g_strnfill (300, 'x');
  g_autoptr(GString) cjk_258 = g_string_new (NULL);
  guint i;

  assert_invalid (ascii_256, "backend name",
                  "invalid backend name: 256 bytes, at most 255 are allowed");
  assert_invalid (ascii_300, "backend name",
                  "invalid backend name: 300 bytes, at most 255 are allowed");
  assert_invalid (ascii_300, "tag", "invalid tag: 300 bytes, at most 255 are allowed");

  /* 86 characters only, but 258 bytes: the limit is in bytes. */
  for (i = 0; i < 86; i++)
    g_string_append (cjk_258, "漢");
  assert_invalid (cjk_258->str, "backend name",
                  "invalid backend name: 258 bytes, at most 255 are allowed");
}

static void
test_invalid_utf8 (void)
{
  const struct {
    const char *name;
    const char *message;
  } cases[] = {
    /* a sequence cut short at the end, and in the middle */
    { "ab\xc3", "invalid backend name: not valid UTF-8 at byte 2" },
    { "ab\xe6\xbcx", "invalid backend name: not valid UTF-8 at byte 2" },
    /* overlong encodings of '/' and of NUL */
    { "\xc0\xaf", "invalid backend name: not valid UTF-8 at byte 0" },
    { "a\xe0\x80\xaf", "invalid backend name: not valid UTF-8 at byte 1" },
    { "abc\xc0\x80", "invalid backend name: not valid UTF-8 at byte 3" },
    /* a continuation byte with no lead byte */
    { "ab\x80" "c", "invalid backend name: not valid UTF-8 at byte 2" },
    /* a UTF-16 surrogate, U+D800, encoded (CESU-8) */
    { "x\xed\xa0\x80", "invalid backend name: not valid UTF-8 at byte 1" },
    /* beyond U+10FFFF */
    { "\xf4\x90\x80\x80", "invalid backend name: not valid UTF-8 at byte 0" },
    /* bytes that never appear in UTF-8 */
    { "inductor\xff", "invalid backend name: not valid UTF-8 at byte 8" },
    { "\xfe\xfe", "invalid backend name: not valid UTF-8 at byte 0" },
    /* a Latin-1 name */
    { "caf\xe9", "invalid backend name: not valid UTF-8 at byte 3" },
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    assert_invalid (cases[i].name, "backend name", cases[i].message);

  assert_invalid ("caf\xe9", "tag", "invalid tag: not valid UTF-8 at byte 3");
}

static void
test_forbidden_characters (void)
{
  const char forbidden[] = "/\\[];,=#'\"";
  guint i;

  for (i = 0; forbidden[i] != '\0'; i++)
    {
      char c = forbidden[i];
      g_autofree char *name = g_strdup_printf ("a%cb", c);
      g_autofree char *message = NULL;

      /* A quote is shown between quotes of the other kind. */
      if (c == '\'')
        message = g_strdup ("invalid backend name 'a'b': character \"'\" at byte 1 is not allowed");
      else
        message = g_strdup_printf ("invalid backend name 'a%cb': character '%c' at byte 1 is not allowed",
                                   c, c);
      assert_invalid (name, "backend name", message);
    }

  assert_invalid ("a/b", "backend name",
                  "invalid backend name 'a/b': character '/' at byte 1 is not allowed");
  assert_invalid ("/", "tag", "invalid tag '/': character '/' at byte 0 is not allowed");
  /* The offset is in bytes, and the first offending character is named. */
  assert_invalid ("漢字,x;y", "tag",
                  "invalid tag '漢字,x;y': character ',' at byte 6 is not allowed");
}

static void
test_white_space (void)
{
  const struct {
    const char *utf8;
    const char *code;
  } spaces[] = {
    { "\t", "U+0009" }, { "\n", "U+000A" }, { "\v", "U+000B" },
    { "\f", "U+000C" }, { "\r", "U+000D" },
    { "\xc2\x85", "U+0085" },      /* NEXT LINE, a control */
    { "\xc2\xa0", "U+00A0" },      /* NO-BREAK SPACE */
    { "\xe1\x9a\x80", "U+1680" },  /* OGHAM SPACE MARK */
    { "\xe2\x80\x80", "U+2000" },  /* EN QUAD */
    { "\xe2\x80\x8a", "U+200A" },  /* HAIR SPACE */
    { "\xe2\x80\xa8", "U+2028" },  /* LINE SEPARATOR */
    { "\xe2\x80\xa9", "U+2029" },  /* PARAGRAPH SEPARATOR */
    { "\xe2\x80\xaf", "U+202F" },  /* NARROW NO-BREAK SPACE */
    { "\xe2\x81\x9f", "U+205F" },  /* MEDIUM MATHEMATICAL SPACE */
    { "\xe3\x80\x80", "U+3000" },  /* IDEOGRAPHIC SPACE */
  };
  guint i;

  /* A plain space can be shown: the name is quoted. */
  assert_invalid ("foo bar", "backend name",
                  "invalid backend name 'foo bar': white space U+0020 at byte 3 is not allowed");
  assert_invalid (" ", "tag", "invalid tag ' ': white space U+0020 at byte 0 is not allowed");
  assert_invalid ("é漢 x", "backend name",
                  "invalid backend name 'é漢 x': white space U+0020 at byte 5 is not allowed");

  /* Other white space is invisible or breaks the line: the name is left
   * out and the character named by code point. */
  for (i = 0; i < G_N_ELEMENTS (spaces); i++)
    {
      g_autofree char *name = g_strconcat ("foo", spaces[i].utf8, "bar", NULL);
      g_autofree char *message =
        g_strdup_printf ("invalid backend name: white space %s at byte 3 is not allowed",
                         spaces[i].code);

      assert_invalid (name, "backend name", message);
    }

  /* Even when a plain space comes first. */
  assert_invalid ("a b\tc", "tag", "invalid tag: white space U+0020 at byte 1 is not allowed");
}

static void
test_control (void)
{
  const struct {
    const char *utf8;
    const char *code;
  } controls[] = {
    { "\x01", "U+0001" }, { "\x1b", "U+001B" }, { "\x1f", "U+001F" },
    { "\x7f", "U+007F" }, { "\xc2\x80", "U+0080" }, { "\xc2\x9f", "U+009F" },
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (controls); i++)
    {
      g_autofree char *name = g_strconcat ("ab", controls[i].utf8, NULL);
      g_autofree char *message =
        g_strdup_printf ("invalid backend name: control character %s at byte 2 is not allowed",
                         controls[i].code);

      assert_invalid (name, "backend name", message);
    }

  /* A terminal escape sequence never reaches the message. */
  assert_invalid ("\x1b[31mred", "tag",
                  "invalid tag: control character U+001B at byte 0 is not allowed");
}

static void
test_format (void)
{
  const struct {
    const char *utf8;
    const char *code;
  } formats[] = {
    { "\xc2\xad", "U+00AD" },          /* SOFT HYPHEN */
    { "\xd8\x80", "U+0600" },          /* ARABIC NUMBER SIGN */
    { "\xe1\xa0\x8e", "U+180E" },      /* MONGOLIAN VOWEL SEPARATOR */
    { "\xe2\x80\x8b", "U+200B" },      /* ZERO WIDTH SPACE */
    { "\xe2\x80\x8d", "U+200D" },      /* ZERO WIDTH JOINER */
    { "\xe2\x80\xae", "U+202E" },      /* RIGHT-TO-LEFT OVERRIDE */
    { "\xe2\x81\xa0", "U+2060" },      /* WORD JOINER */
    { "\xef\xbb\xbf", "U+FEFF" },      /* BYTE ORDER MARK */
    { "\xf3\xa0\x80\x81", "U+E0001" }, /* LANGUAGE TAG */
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autofree char *name = g_strconcat ("x", formats[i].utf8, "y", NULL);
      g_autofree char *message =
        g_strdup_printf ("invalid backend name: format character %s at byte 1 is not allowed",
                         formats[i].code);

      assert_invalid (name, "backend name", message);
    }

  /* A name that would print reversed ("inductor" spoofed). */
  assert_invalid ("\xe2\x80\xaerotcudni", "backend name",
                  "invalid backend name: format character U+202E at byte 0 is not allowed");
}

static void
test_tags_normalize (void)
{
  const char * const tags[] = { "debug", "b", "debug", "experimental", "b", "debug", NULL };
  const char * const expected[] = { "debug", "b", "experimental", NULL };
  const char * const empty[] = { NULL };
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) normalized = NULL;
  g_auto(GStrv) from_null = NULL;
  g_auto(GStrv) from_empty = NULL;

  normalized = _reg_tags_normalize (tags, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (normalized, expected);

  from_null = _reg_tags_normalize (NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (from_null);
  g_assert_cmpstrv (from_null, empty);

  from_empty = _reg_tags_normalize (empty, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (from_empty, empty);
}

/* Many tags (repeats then found with a set): the same rule, first place
 * kept, and an invalid tag after many still fails. */
static void
test_tags_normalize_many (void)
{
  g_autoptr(GPtrArray) tags = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) expected = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) normalized = NULL;

  for (guint i = 0; i < 40; i++)
    {
      g_ptr_array_add (tags, g_strdup_printf ("t%u", (i * 7) % 13));
      if (i < 13)
        g_ptr_array_add (expected, g_strdup_printf ("t%u", (i * 7) % 13));
    }
  g_ptr_array_add (tags, NULL);
  g_ptr_array_add (expected, NULL);

  normalized = _reg_tags_normalize ((const char * const *) tags->pdata, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (normalized, (const char * const *) expected->pdata);

  g_ptr_array_remove_index (tags, tags->len - 1);
  g_ptr_array_add (tags, g_strdup ("bad tag"));
  g_ptr_array_add (tags, NULL);
  g_clear_pointer (&normalized, g_strfreev);
  normalized = _reg_tags_normalize ((const char * const *) tags->pdata, &error);
  g_assert_null (normalized);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_NAME);
}

static void
test_tags_invalid (void)
{
  const char * const cases[][4] = {
    { "debug", "a b", "c", NULL },
    { "debug", "", NULL },
    { "debug", "debug", "x/y", NULL },
  };
  const char * const messages[] = {
    "invalid tag 'a b': white space U+0020 at byte 1 is not allowed",
    "invalid tag '': empty",
    "invalid tag 'x/y': character '/' at byte 1 is not allowed",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) normalized = _reg_tags_normalize (cases[i], &error);

      g_assert_null (normalized);
      g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_NAME);
      g_assert_cmpstr (error->message, ==, messages[i]);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/names/valid", test_valid);
  g_test_add_func ("/names/empty", test_empty);
  g_test_add_func ("/names/too-long", test_too_long);
  g_test_add_func ("/names/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/names/forbidden-characters", test_forbidden_characters);
  g_test_add_func ("/names/white-space", test_white_space);
  g_test_add_func ("/names/control", test_control);
  g_test_add_func ("/names/format", test_format);
  g_test_add_func ("/names/tags/normalize", test_tags_normalize);
  g_test_add_func ("/names/tags/normalize-many", test_tags_normalize_many);
  g_test_add_func ("/names/tags/invalid", test_tags_invalid);

  return g_test_run ();
}
