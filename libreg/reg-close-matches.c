/* reg-close-matches.c: difflib-compatible fuzzy matching of names
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdlib.h>
#include <string.h>

#include "reg-close-matches.h"

/* This is CPython's difflib.get_close_matches() (Lib/difflib.py), with the
 * SequenceMatcher it uses, rewritten for one job: the scores, and so the
 * suggestions, must be exactly those of Python, so that a message printed by
 * libreg can be checked against the Python tooling it replaces.  Every
 * choice below that looks arbitrary (tie-breaking, the "popular" heuristic,
 * the order of the filters) is difflib's.
 *
 * As in get_close_matches(), the word is the matcher's second sequence "b",
 * indexed once, and each possibility is its first sequence "a".  Sequences
 * are of Unicode code points, as Python strings are.
 *
 * Code points are replaced by "slots": the index of the code point among the
 * distinct code points of the word.  Equal slots mean equal code points, and
 * a code point of "a" that is not in the word gets NO_SLOT, which equals no
 * slot of "b"; so slots can stand for code points in every comparison, and
 * b2j and the counts of quick_ratio() become arrays indexed by slot. */

#define NO_SLOT G_MAXSIZE

/* difflib applies its "popular elements" heuristic (autojunk) to sequences
 * at least this long. */
#define AUTOJUNK_MIN_LENGTH 200

typedef struct
{
  gsize alo, ahi, blo, bhi;
} Region;

typedef struct
{
  gunichar c;
  gsize    j;
} CharPos;

typedef struct
{
  double      score;
  const char *x;
} Candidate;

typedef struct
{
  /* The word, as slots. */
  gsize    *b;
  gsize     lb;

  /* The distinct code points of the word, sorted, so a slot is found by
   * binary search; ASCII (the common case in names) by direct lookup. */
  gunichar *chars;
  gsize     n_chars;
  gsize     ascii_slot[128];

  /* Occurrences of each slot in the word: difflib's fullbcount. */
  gsize    *full_count;

  /* difflib's b2j: the positions of slot s in the word, ascending, are
   * b2j_index[b2j_start[s]] to b2j_index[b2j_start[s] + b2j_len[s] - 1].
   * b2j_len[s] is 0 for popular code points, which difflib deletes from
   * b2j (but not from fullbcount). */
  gsize    *b2j_start;
  gsize    *b2j_len;
  gsize    *b2j_index;

  /* Scratch space for one comparison, reused across possibilities: the
   * possibility as slots, the counts quick_ratio() uses, the two rows of
   * find_longest_match()'s j2len, and the queue of get_matching_blocks(). */
  gsize    *a;
  gsize     la;
  gsize     a_size;
  gsize    *used;
  gsize    *j2len_prev;
  gsize    *j2len_cur;
  GArray   *queue;
} Matcher;

static int
compare_char_pos (const void *p1,
                  const void *p2)
{
  const CharPos *cp1 = p1;
  const CharPos *cp2 = p2;

  if (cp1->c != cp2->c)
    return cp1->c < cp2->c ? -1 : 1;
  if (cp1->j != cp2->j)
    return cp1->j < cp2->j ? -1 : 1;
  return 0;
}

/* Python's `2.0 * matches / length`: the same operations in double, so the
 * same correctly rounded result. */
static double
calculate_ratio (gsize matches,
                 gsize length)
{
  if (length > 0)
    return 2.0 * (double) matches / (double) length;
  return 1.0;
}

/* difflib's set_seq2() and __chain_b() with isjunk=None and autojunk=True.
 * @word is valid UTF-8 of @n_chars code points. */
static void
matcher_init (Matcher    *m,
              const char *word,
              gsize       n_chars)
{
  g_autofree CharPos *sorted = NULL;
  const char *p;
  gsize popular_limit;
  gsize j, s;

  memset (m, 0, sizeof *m);
  m->lb = n_chars;
  m->b = g_new (gsize, m->lb);
  m->chars = g_new (gunichar, m->lb);
  m->full_count = g_new (gsize, m->lb);
  m->b2j_start = g_new (gsize, m->lb);
  m->b2j_len = g_new (gsize, m->lb);
  m->b2j_index = g_new (gsize, m->lb);
  m->used = g_new0 (gsize, m->lb);
  m->j2len_prev = g_new0 (gsize, m->lb + 1);
  m->j2len_cur = g_new0 (gsize, m->lb + 1);
  m->queue = g_array_new (FALSE, FALSE, sizeof (Region));

  sorted = g_new (CharPos, m->lb);
  for (p = word, j = 0; *p != '\0'; p = g_utf8_next_char (p), j++)
    {
      sorted[j].c = g_utf8_get_char (p);
      sorted[j].j = j;
    }

  /* Sorting (code point, position) pairs groups the positions of each code
   * point in ascending order: exactly the lists of b2j, laid end to end. */
  if (m->lb > 0)
    qsort (sorted, m->lb, sizeof (CharPos), compare_char_pos);

  for (j = 0; j < m->lb; j++)
    {
      if (j == 0 || sorted[j].c != sorted[j - 1].c)
        {
          s = m->n_chars++;
          m->chars[s] = sorted[j].c;
          m->b2j_start[s] = j;
          m->full_count[s] = 0;
        }
      else
        s = m->n_chars - 1;

      m->full_count[s]++;
      m->b2j_index[j] = sorted[j].j;
      m->b[sorted[j].j] = s;
    }

  /* An element occurring more than len(b) // 100 + 1 times in a word of
   * at least 200 is "popular": no match starts at it, although matches
   * are still extended over it. */
  popular_limit = m->lb >= AUTOJUNK_MIN_LENGTH ? m->lb / 100 + 1 : G_MAXSIZE;
  for (s = 0; s < m->n_chars; s++)
    m->b2j_len[s] = m->full_count[s] > popular_limit ? 0 : m->full_count[s];

  for (s = 0; s < G_N_ELEMENTS (m->ascii_slot); s++)
    m->ascii_slot[s] = NO_SLOT;
  for (s = 0; s < m->n_chars && m->chars[s] < G_N_ELEMENTS (m->ascii_slot); s++)
    m->ascii_slot[m->chars[s]] = s;
}

static void
matcher_clear (Matcher *m)
{
  g_free (m->b);
  g_free (m->chars);
  g_free (m->full_count);
  g_free (m->b2j_start);
  g_free (m->b2j_len);
  g_free (m->b2j_index);
  g_free (m->a);
  g_free (m->used);
  g_free (m->j2len_prev);
  g_free (m->j2len_cur);
  g_array_unref (m->queue);
}

static gsize
matcher_find_slot (const Matcher *m,
                   gunichar       c)
{
  gsize lo = 0, hi = m->n_chars;

  if (c < G_N_ELEMENTS (m->ascii_slot))
    return m->ascii_slot[c];

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (m->chars[mid] == c)
        return mid;
      if (m->chars[mid] < c)
        lo = mid + 1;
      else
        hi = mid;
    }

  return NO_SLOT;
}

/* difflib's set_seq1(): @x is valid UTF-8 of @n_chars code points. */
static void
matcher_set_a (Matcher    *m,
               const char *x,
               gsize       n_chars)
{
  const char *p;
  gsize i;

  if (n_chars > m->a_size)
    {
      m->a_size = MAX (n_chars, 2 * m->a_size);
      m->a = g_renew (gsize, m->a, m->a_size);
    }

  m->la = n_chars;
  for (p = x, i = 0; i < n_chars; p = g_utf8_next_char (p), i++)
    m->a[i] = matcher_find_slot (m, g_utf8_get_char (p));
}

/* difflib's quick_ratio(): the size of the intersection of a and b as
 * multisets, an upper bound of the number of matches. */
static double
matcher_quick_ratio (Matcher *m)
{
  gsize matches = 0;
  gsize i;

  for (i = 0; i < m->la; i++)
    {
      gsize s = m->a[i];

      if (s != NO_SLOT && m->used[s] < m->full_count[s])
        {
          m->used[s]++;
          matches++;
        }
    }

  for (i = 0; i < m->la; i++)
    if (m->a[i] != NO_SLOT)
      m->used[m->a[i]] = 0;

  return calculate_ratio (matches, m->la + m->lb);
}

/* Zeroes the entries of a j2len row that were set for slot @s, so that the
 * row reads as difflib's empty dictionary again. */
static void
clear_j2len_row (const Matcher *m,
                 gsize         *row,
                 gsize          s,
                 gsize          blo,
                 gsize          bhi)
{
  const gsize *js;
  gsize x;

  if (s == NO_SLOT)
    return;

  js = m->b2j_index + m->b2j_start[s];
  for (x = 0; x < m->b2j_len[s]; x++)
    {
      if (js[x] < blo)
        continue;
      if (js[x] >= bhi)
        break;
      row[js[x] + 1] = 0;
    }
}

/* difflib's find_longest_match (alo, ahi, blo, bhi): the longest block of
 * a[alo:ahi] equal to a block of b[blo:bhi], the earliest in a among the
 * longest, then the earliest in b.  Returns its size, its start in a and b
 * in @out_i and @out_j.
 *
 * j2len is difflib's dictionary "length of the match ending at a[i - 1] and
 * b[j]", kept in an array as row[j + 1] (so row[j] is the entry of j - 1),
 * all zero between calls: each row is cleared of the entries it got once
 * it has been read. */
static gsize
matcher_find_longest_match (Matcher *m,
                            gsize    alo,
                            gsize    ahi,
                            gsize    blo,
                            gsize    bhi,
                            gsize   *out_i,
                            gsize   *out_j)
{
  gsize *prev = m->j2len_prev;
  gsize *cur = m->j2len_cur;
  gsize prev_slot = NO_SLOT;
  gsize besti = alo, bestj = blo, bestsize = 0;
  gsize i;

  for (i = alo; i < ahi; i++)
    {
      gsize s = m->a[i];
      gsize *tmp;

      if (s != NO_SLOT)
        {
          const gsize *js = m->b2j_index + m->b2j_start[s];
          gsize x;

          for (x = 0; x < m->b2j_len[s]; x++)
            {
              gsize j = js[x];
              gsize k;

              if (j < blo)
                continue;
              if (j >= bhi)
                break;

              k = cur[j + 1] = prev[j] + 1;
              if (k > bestsize)
                {
                  besti = i + 1 - k;
                  bestj = j + 1 - k;
                  bestsize = k;
                }
            }
        }

      clear_j2len_row (m, prev, prev_slot, blo, bhi);
      tmp = prev;
      prev = cur;
      cur = tmp;
      prev_slot = s;
    }
  clear_j2len_row (m, prev, prev_slot, blo, bhi);

  /* Popular elements are not in b2j, so the best block so far holds none:
   * extend it over equal elements on both sides.  (difflib's two further
   * loops extend over junk elements; with isjunk=None there are none.) */
  while (besti > alo && bestj > blo && m->a[besti - 1] == m->b[bestj - 1])
    {
      besti--;
      bestj--;
      bestsize++;
    }
  while (besti + bestsize < ahi && bestj + bestsize < bhi &&
         m->a[besti + bestsize] == m->b[bestj + bestsize])
    bestsize++;

  *out_i = besti;
  *out_j = bestj;
  return bestsize;
}

/* The number of matched elements of difflib's get_matching_blocks(), with
 * its queue of regions instead of recursion.  difflib then sorts the blocks
 * and merges adjacent ones, which leaves their total size unchanged; the
 * total is all ratio() needs. */
static gsize
matcher_count_matches (Matcher *m)
{
  Region whole = { 0, m->la, 0, m->lb };
  gsize matches = 0;

  g_array_set_size (m->queue, 0);
  g_array_append_val (m->queue, whole);

  while (m->queue->len > 0)
    {
      Region r = g_array_index (m->queue, Region, m->queue->len - 1);
      gsize i, j, k;

      g_array_set_size (m->queue, m->queue->len - 1);
      k = matcher_find_longest_match (m, r.alo, r.ahi, r.blo, r.bhi, &i, &j);
      if (k == 0)
        continue;

      matches += k;
      if (r.alo < i && r.blo < j)
        {
          Region left = { r.alo, i, r.blo, j };

          g_array_append_val (m->queue, left);
        }
      if (i + k < r.ahi && j + k < r.bhi)
        {
          Region right = { i + k, r.ahi, j + k, r.bhi };

          g_array_append_val (m->queue, right);
        }
    }

  return matches;
}

/* heapq.nlargest() on (score, x) tuples: by score, then by string, both
 * descending.  strcmp() orders valid UTF-8 by code point, as Python orders
 * strings. */
static int
compare_candidates (const void *p1,
                    const void *p2)
{
  const Candidate *c1 = p1;
  const Candidate *c2 = p2;

  if (c1->score != c2->score)
    return c1->score > c2->score ? -1 : 1;
  return -strcmp (c1->x, c2->x);
}

/**
 * reg_close_matches:
 * @word: the string to find close matches of, typically a mistyped name
 * @possibilities: (array zero-terminated=1) (nullable): the strings to
 *   choose from, typically the known names; %NULL means none
 * @n: the maximum number of matches to return, at least 1
 * @cutoff: the minimum similarity score of a match, from 0.0 to 1.0
 *
 * Finds the strings among @possibilities that are most similar to @word.
 *
 * The result is exactly what Python's
 * `difflib.get_close_matches (word, possibilities, n, cutoff)` returns for
 * the same strings: at most @n possibilities whose similarity ratio to
 * @word is at least @cutoff, the most similar first, equally similar ones
 * in descending code point order.  A possibility listed several times may
 * be returned several times.  Strings are compared as sequences of Unicode
 * code points.  Possibilities that are not valid UTF-8 are skipped; a
 * @word that is not valid UTF-8 matches nothing.
 *
 * The registry uses it with @n 3 and @cutoff 0.6 to suggest backend names
 * (see [method@Reg.Registry.suggest]).
 *
 * This function is thread-safe.
 *
 * Returns: (transfer full) (array zero-terminated=1): a newly allocated
 *   array of the matches, empty when there are none
 */
char **
reg_close_matches (const char         *word,
                   const char * const *possibilities,
                   guint               n,
                   double              cutoff)
{
  g_autoptr(GArray) candidates = NULL;
  Matcher m;
  char **result;
  gsize lb;
  gsize i;

  g_return_val_if_fail (word != NULL, NULL);
  g_return_val_if_fail (n > 0, NULL);
  g_return_val_if_fail (cutoff >= 0.0 && cutoff <= 1.0, NULL);

  if (possibilities == NULL || !g_utf8_validate (word, -1, NULL))
    return g_new0 (char *, 1);

  lb = g_utf8_strlen (word, -1);
  matcher_init (&m, word, lb);
  candidates = g_array_new (FALSE, FALSE, sizeof (Candidate));

  for (i = 0; possibilities[i] != NULL; i++)
    {
      const char *x = possibilities[i];
      Candidate candidate;
      gsize la;

      if (!g_utf8_validate (x, -1, NULL))
        continue;

      /* difflib's filters, cheapest first: upper bounds of the ratio, so
       * they only save time. */
      la = g_utf8_strlen (x, -1);
      if (calculate_ratio (MIN (la, lb), la + lb) < cutoff)
        continue;

      matcher_set_a (&m, x, la);
      if (matcher_quick_ratio (&m) < cutoff)
        continue;

      candidate.score = calculate_ratio (matcher_count_matches (&m), la + lb);
      if (candidate.score < cutoff)
        continue;

      candidate.x = x;
      g_array_append_val (candidates, candidate);
    }

  matcher_clear (&m);

  if (candidates->len > 0)
    qsort (candidates->data, candidates->len, sizeof (Candidate),
           compare_candidates);

  result = g_new (char *, MIN (candidates->len, n) + 1);
  for (i = 0; i < candidates->len && i < n; i++)
    result[i] = g_strdup (g_array_index (candidates, Candidate, i).x);
  result[i] = NULL;

  return result;
}
