/* fuzz-close-matches.c: libFuzzer target for reg_close_matches()
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input: one byte for n (1 to 8), one byte for the cutoff (0 to 1 in
 * 255 steps), then lines: the word, then the possibilities.  The scores
 * are difflib's and not computed here (tests/test-close-matches.c checks
 * them against Python); this checks what holds whatever the scores:
 *
 * - at most n results, each one of the possibilities (as often as it is
 *   given at most), in valid UTF-8; none for a word that is not UTF-8;
 * - the order of the possibilities does not matter;
 * - results are sorted by score, then by name (both descending): so the
 *   results for n are a prefix of those for a larger n, and those for a
 *   higher cutoff a prefix of those for a lower one;
 * - a short word among the possibilities is its own best match (ratio 1).
 */

#include "fuzz-common.h"

#include "reg-close-matches.h"

#define MAX_POSSIBILITIES 64
#define MAX_N 8

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gboolean
is_prefix (char **shorter,
           char **longer)
{
  guint i;

  for (i = 0; shorter[i] != NULL; i++)
    if (longer[i] == NULL || !g_str_equal (shorter[i], longer[i]))
      return FALSE;

  return TRUE;
}

static guint
count (const char * const *strv,
       const char         *s)
{
  guint n = 0;

  for (guint i = 0; strv[i] != NULL; i++)
    n += g_str_equal (strv[i], s);

  return n;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) reversed = g_ptr_array_new ();
  g_auto(GStrv) result = NULL;
  g_auto(GStrv) result_reversed = NULL;
  g_auto(GStrv) result_max_n = NULL;
  g_auto(GStrv) result_low_cutoff = NULL;
  const char * const *possibilities;
  const char *word;
  guint n, length;
  double cutoff;
  gsize start;

  if (size < 2)
    return 0;

  n = 1 + data[0] % MAX_N;
  cutoff = data[1] / 255.0;

  start = 2;
  for (gsize i = 2; i <= size && lines->len <= MAX_POSSIBILITIES; i++)
    if (i == size || data[i] == '\n')
      {
        /* Up to a NUL byte, as a C string goes */
        g_ptr_array_add (lines, g_strndup ((const char *) data + start, i - start));
        start = i + 1;
      }
  word = g_ptr_array_index (lines, 0);
  g_ptr_array_add (lines, NULL);
  possibilities = (const char * const *) lines->pdata + 1;

  result = reg_close_matches (word, possibilities, n, cutoff);
  FUZZ_ASSERT (result != NULL, "NULL result");
  length = g_strv_length (result);
  FUZZ_ASSERT (length <= n, "%u results for n = %u", length, n);

  if (!g_utf8_validate (word, -1, NULL))
    FUZZ_ASSERT (length == 0, "results for a word that is not UTF-8");

  for (guint i = 0; i < length; i++)
    {
      FUZZ_ASSERT (g_utf8_validate (result[i], -1, NULL), "result %u is not UTF-8", i);
      FUZZ_ASSERT (count ((const char * const *) result, result[i]) <= count (possibilities, result[i]),
                   "'%s' returned more often than given", result[i]);
    }

  /* The order of the possibilities does not matter. */
  for (guint i = lines->len - 1; i > 1; i--)
    g_ptr_array_add (reversed, g_ptr_array_index (lines, i - 1));
  g_ptr_array_add (reversed, NULL);
  result_reversed = reg_close_matches (word, (const char * const *) reversed->pdata, n, cutoff);
  FUZZ_ASSERT (g_strv_equal ((const char * const *) result, (const char * const *) result_reversed),
               "the result depends on the order of the possibilities");

  /* Sorted: prefixes of the results for more, and for a lower cutoff */
  result_max_n = reg_close_matches (word, possibilities, MAX_N, cutoff);
  FUZZ_ASSERT (is_prefix (result, result_max_n), "results for n = %u are not a prefix of those for n = %u",
               n, MAX_N);
  result_low_cutoff = reg_close_matches (word, possibilities, n, cutoff / 2);
  FUZZ_ASSERT (is_prefix (result, result_low_cutoff) || is_prefix (result_low_cutoff, result),
               "results for cutoff %g and %g are not prefixes of each other", cutoff, cutoff / 2);
  FUZZ_ASSERT (g_strv_length (result_low_cutoff) >= length,
               "a lower cutoff gives fewer results");

  /* A word identical to a possibility scores 1, the best there is, unless
   * difflib's "popular elements" heuristic (200 code points or more)
   * lowers it. */
  if (*word != '\0' && g_utf8_validate (word, -1, NULL) && g_utf8_strlen (word, -1) < 200 &&
      count (possibilities, word) > 0)
    FUZZ_ASSERT (length > 0 && g_str_equal (result[0], word),
                 "'%s' is among the possibilities but not the best match", word);

  return 0;
}
