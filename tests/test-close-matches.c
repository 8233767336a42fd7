/* test-close-matches.c: reg_close_matches() against Python's difflib
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>

#include <reg.h>

/* The table made by data/gen-close-matches.py holds at least this many. */
#define MIN_TABLE_CASES 300

static void
assert_matches (const char         *word,
                const char * const *possibilities,
                guint               n,
                double              cutoff,
                const char * const *expected)
{
  g_auto(GStrv) result = reg_close_matches (word, possibilities, n, cutoff);

  g_assert_nonnull (result);
  if (!g_strv_equal ((const char * const *) result, expected))
    {
      g_autofree char *got = g_strjoinv ("', '", result);
      g_autofree char *want = g_strjoinv ("', '", (char **) expected);

      g_error ("reg_close_matches ('%s', ..., %u, %g): got ['%s'], expected ['%s']",
               word, n, cutoff, got, want);
    }
}

/* Decodes one percent-encoded string of the table. */
static char *
decode_string (const char *field,
               guint       line_no)
{
  char *s = g_uri_unescape_string (field, NULL);

  if (s == NULL)
    g_error ("close-matches.txt:%u: bad escape in '%s'", line_no, field);
  return s;
}

/* Decodes a list of the table: strings each followed by ','. */
static GStrv
decode_list (const char *field,
             guint       line_no)
{
  g_auto(GStrv) parts = g_strsplit (field, ",", -1);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  guint n_parts = g_strv_length (parts);
  guint i;

  /* "a,b," splits into "a", "b", "": the last part must be empty. */
  if (n_parts > 0 && parts[n_parts - 1][0] != '\0')
    g_error ("close-matches.txt:%u: list does not end with ','", line_no);

  for (i = 0; i + 1 < n_parts; i++)
    {
      g_autofree char *s = decode_string (parts[i], line_no);

      g_strv_builder_add (builder, s);
    }

  return g_strv_builder_end (builder);
}

static void
test_table (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "close-matches.txt", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  guint n_cases = 0;
  guint n_failed = 0;
  guint i;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);

  lines = g_strsplit (contents, "\n", -1);
  for (i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      g_auto(GStrv) possibilities = NULL;
      g_auto(GStrv) expected = NULL;
      g_auto(GStrv) result = NULL;
      g_autofree char *word = NULL;
      guint line_no = i + 1;
      guint64 n;
      double cutoff;
      char *end;

      if (lines[i][0] == '\0' || lines[i][0] == '#')
        continue;

      fields = g_strsplit (lines[i], "\t", -1);
      if (g_strv_length (fields) != 5)
        g_error ("close-matches.txt:%u: expected 5 fields", line_no);

      n = g_ascii_strtoull (fields[0], &end, 10);
      g_assert_true (*end == '\0' && n > 0 && n <= G_MAXUINT);
      cutoff = g_ascii_strtod (fields[1], &end);
      g_assert_true (*end == '\0');
      word = decode_string (fields[2], line_no);
      possibilities = decode_list (fields[3], line_no);
      expected = decode_list (fields[4], line_no);

      result = reg_close_matches (word, (const char * const *) possibilities,
                                  (guint) n, cutoff);
      g_assert_nonnull (result);
      n_cases++;

      if (!g_strv_equal ((const char * const *) result, (const char * const *) expected))
        {
          g_autofree char *got = g_strjoinv ("', '", result);
          g_autofree char *want = g_strjoinv ("', '", expected);

          g_test_message ("close-matches.txt:%u: got ['%s'], expected ['%s']",
                          line_no, got, want);
          n_failed++;
        }
    }

  g_test_message ("%u cases, %u failed", n_cases, n_failed);
  g_assert_cmpuint (n_cases, >=, MIN_TABLE_CASES);
  g_assert_cmpuint (n_failed, ==, 0);
}

/* The examples of get_close_matches()'s docstring. */
static void
test_docstring (void)
{
  /* keyword.kwlist of Python 3.11. */
  const char * const kwlist[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await",
    "break", "class", "continue", "def", "del", "elif", "else", "except",
    "finally", "for", "from", "global", "if", "import", "in", "is",
    "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
    "while", "with", "yield", NULL
  };
  const char * const fruit[] = { "ape", "apple", "peach", "puppy", NULL };

  assert_matches ("appel", fruit, 3, 0.6, (const char *[]) { "apple", "ape", NULL });
  assert_matches ("wheel", kwlist, 3, 0.6, (const char *[]) { "while", NULL });
  assert_matches ("Apple", kwlist, 3, 0.6, (const char *[]) { NULL });
  assert_matches ("accept", kwlist, 3, 0.6, (const char *[]) { "except", NULL });
}

static void
test_backends (void)
{
  const char * const names[] = {
    "aot_eager", "cudagraphs", "eager", "inductor", "onnxrt", "tvm",
    "relu_compile_error_TESTING_ONLY", "relu_runtime_error_TESTING_ONLY", NULL
  };

  assert_matches ("inductr", names, 3, 0.6, (const char *[]) { "inductor", NULL });
  assert_matches ("eagre", names, 3, 0.6, (const char *[]) { "eager", NULL });
  assert_matches ("relu_compile_error", names, 3, 0.6,
                  (const char *[]) { "relu_compile_error_TESTING_ONLY", NULL });
  assert_matches ("xyzzy", names, 3, 0.6, (const char *[]) { NULL });
}

/* Equal scores are ordered by string, descending, in code point order:
 * U+FF21 comes before U+1F600 although UTF-16 orders them the other way. */
static void
test_ties (void)
{
  const char * const ties[] = { "x\xef\xbc\xa1", "x\xf0\x9f\x98\x80", "xa", "xb", NULL };
  const char * const dups[] = { "eager", "eagre", "eager", NULL };

  assert_matches ("x", ties, 5, 0.0,
                  (const char *[]) { "x\xf0\x9f\x98\x80", "x\xef\xbc\xa1", "xb", "xa", NULL });
  assert_matches ("x", ties, 1, 0.0, (const char *[]) { "x\xf0\x9f\x98\x80", NULL });
  assert_matches ("eager", dups, 3, 0.6, (const char *[]) { "eager", "eager", "eagre", NULL });
}

/* A result is always an array, empty when nothing matches. */
static void
test_empty (void)
{
  const char * const none[] = { NULL };
  const char * const empty_string[] = { "", NULL };

  assert_matches ("inductor", NULL, 3, 0.6, none);
  assert_matches ("inductor", none, 3, 0.6, none);
  assert_matches ("", empty_string, 3, 1.0, empty_string);
  assert_matches ("", (const char *[]) { "a", NULL }, 3, 0.0, (const char *[]) { "a", NULL });
}

static void
test_invalid_utf8 (void)
{
  const char * const possibilities[] = {
    "inducto\xff", "inductor", "induct\xc3", "\xed\xa0\x80nductor", NULL
  };

  assert_matches ("inductor", possibilities, 5, 0.0, (const char *[]) { "inductor", NULL });
  assert_matches ("induct\xc3", possibilities, 5, 0.0, (const char *[]) { NULL });
}

/* The registry asks over up to 10,000 names: make sure that is quick. */
static void
test_many (void)
{
  const char * const syllables[] = {
    "ind", "uc", "tor", "ea", "ger", "aot", "cu", "da", "graph", "onnx", "rt", "_",
  };
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  g_auto(GStrv) names = NULL;
  g_auto(GStrv) result = NULL;
  double elapsed;
  guint i, j;

  for (i = 0; i < 10000; i++)
    {
      g_autoptr(GString) name = g_string_new (NULL);
      guint n_syllables = g_rand_int_range (rand, 1, 6);

      for (j = 0; j < n_syllables; j++)
        g_string_append (name, syllables[g_rand_int_range (rand, 0, G_N_ELEMENTS (syllables))]);
      g_string_append_printf (name, "%u", i);
      g_strv_builder_add (builder, name->str);
    }
  g_strv_builder_add (builder, "inductor");
  names = g_strv_builder_end (builder);

  g_test_timer_start ();
  result = reg_close_matches ("inductr", (const char * const *) names, 3, 0.6);
  elapsed = g_test_timer_elapsed ();
  g_test_message ("10,001 names in %.3f s", elapsed);

  g_assert_cmpuint (g_strv_length (result), ==, 3);
  g_assert_cmpstr (result[0], ==, "inductor");
  for (i = 0; result[i] != NULL; i++)
    g_assert_true (g_strv_contains ((const char * const *) names, result[i]));
}

static void
test_guards (void)
{
  const char * const names[] = { "eager", NULL };

  g_test_expect_message ("Reg", G_LOG_LEVEL_CRITICAL, "*word != NULL*");
  g_assert_null (reg_close_matches (NULL, names, 3, 0.6));
  g_test_expect_message ("Reg", G_LOG_LEVEL_CRITICAL, "*n > 0*");
  g_assert_null (reg_close_matches ("eager", names, 0, 0.6));
  g_test_expect_message ("Reg", G_LOG_LEVEL_CRITICAL, "*cutoff*");
  g_assert_null (reg_close_matches ("eager", names, 3, -0.1));
  g_test_expect_message ("Reg", G_LOG_LEVEL_CRITICAL, "*cutoff*");
  g_assert_null (reg_close_matches ("eager", names, 3, 1.5));
  g_test_expect_message ("Reg", G_LOG_LEVEL_CRITICAL, "*cutoff*");
  g_assert_null (reg_close_matches ("eager", names, 3, NAN));
  g_test_assert_expected_messages ();
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/close-matches/table", test_table);
  g_test_add_func ("/close-matches/docstring", test_docstring);
  g_test_add_func ("/close-matches/backends", test_backends);
  g_test_add_func ("/close-matches/ties", test_ties);
  g_test_add_func ("/close-matches/empty", test_empty);
  g_test_add_func ("/close-matches/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/close-matches/many", test_many);
  g_test_add_func ("/close-matches/guards", test_guards);

  return g_test_run ();
}
