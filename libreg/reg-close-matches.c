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
 * indexed once, and each possibility is its first sequence "a", both of
 * code points.  A code point is replaced by its "slot", its index among the
 * distinct code points of the word (NO_SLOT, equal to no slot of "b", for
 * one that is not in the word), so that b2j and the counts of quick_ratio()
 * are arrays indexed by slot. */

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

/* A distinct code point of the word. */
typedef struct
{
  gunichar c;
  gsize    count;  /* its occurrences in the word: difflib's fullbcount */
  gsize    start;  /* its positions in the word, ascending, are pos[x].b2j */
  gsize    len;    /* for start <= x < start + len; 0 for a popular code
                    * point, which difflib deletes from b2j (not fullbcount) */
  gsize    used;   /* quick_ratio()'s count, 0 between comparisons */
} Slot;

/* A position j of the word, and one more for the j2len rows. */
typedef struct
{
  gsize b;             /* the slot at j */
  gsize b2j;           /* the positions of the word, ordered by slot */

  /* difflib's j2len[j - 1] (the length of a match ending at b[j - 1]) as
   * the last row of each parity set it: an entry holds only for the row
   * whose number it was set in, so rows never need clearing. */
  gsize j2len[2];
  gsize j2len_row[2];
} Position;

typedef struct
{
  gsize     lb;
  Position *pos;
  Slot     *slots;
  gsize     n_slots;

  /* For one comparison, reused across possibilities: the possibility as
   * slots, the number of the last j2len row, get_matching_blocks()'s queue. */
  gsize    *a;
  gsize     la;
  gsize     a_size;
  gsize     row;
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
  return cp1->j < cp2->j ? -1 : cp1->j > cp2->j;
}

/* Python's `2.0 * matches / length`: the same operations in double, so the
 * same correctly rounded result. */
static double
calculate_ratio (gsize matches,
                 gsize length)
{
  return length > 0 ? 2.0 * (double) matches / (double) length : 1.0;
}

/* difflib's set_seq2() and __chain_b() with isjunk=None and autojunk=True.
 * @word is valid UTF-8 of @lb code points. */
static void
matcher_init (Matcher    *m,
              const char *word,
              gsize       lb)
{
  g_autofree CharPos *sorted = g_new (CharPos, lb + 1);
  gsize popular_limit = lb >= AUTOJUNK_MIN_LENGTH ? lb / 100 + 1 : G_MAXSIZE;
  const char *p;
  gsize j, s;

  memset (m, 0, sizeof *m);
  m->lb = lb;
  m->pos = g_new0 (Position, lb + 1);
  m->slots = g_new0 (Slot, lb + 1);
  m->queue = g_array_new (FALSE, FALSE, sizeof (Region));

  for (p = word, j = 0; j < lb; p = g_utf8_next_char (p), j++)
    sorted[j] = (CharPos) { g_utf8_get_char (p), j };

  /* Sorting (code point, position) pairs groups the positions of each code
   * point in ascending order: exactly the lists of b2j, laid end to end. */
  qsort (sorted, lb, sizeof (CharPos), compare_char_pos);

  for (j = 0; j < lb; j++)
    {
      if (j == 0 || sorted[j].c != sorted[j - 1].c)
        m->slots[m->n_slots++] = (Slot) { .c = sorted[j].c, .start = j };

      s = m->n_slots - 1;
      m->slots[s].count++;
      m->pos[j].b2j = sorted[j].j;
      m->pos[sorted[j].j].b = s;
    }

  /* An element occurring more than len(b) // 100 + 1 times in a word of
   * at least 200 is "popular": no match starts at it, although matches
   * are still extended over it. */
  for (s = 0; s < m->n_slots; s++)
    m->slots[s].len = m->slots[s].count > popular_limit ? 0 : m->slots[s].count;
}

static void
matcher_clear (Matcher *m)
{
  g_free (m->pos);
  g_free (m->slots);
  g_free (m->a);
  g_array_unref (m->queue);
}

static gsize
matcher_find_slot (const Matcher *m,
                   gunichar       c)
{
  gsize lo = 0, hi = m->n_slots;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (m->slots[mid].c == c)
        return mid;
      if (m->slots[mid].c < c)
        lo = mid + 1;
      else
        hi = mid;
    }

  return NO_SLOT;
}

/* difflib's set_seq1(): @x is valid UTF-8 of @la code points. */
static void
matcher_set_a (Matcher    *m,
               const char *x,
               gsize       la)
{
  const char *p;
  gsize i;

  if (la > m->a_size)
    {
      m->a_size = MAX (la, 2 * m->a_size);
      m->a = g_renew (gsize, m->a, m->a_size);
    }

  m->la = la;
  for (p = x, i = 0; i < la; p = g_utf8_next_char (p), i++)
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
      Slot *slot = m->a[i] != NO_SLOT ? &m->slots[m->a[i]] : NULL;

      if (slot != NULL && slot->used < slot->count)
        {
          slot->used++;
          matches++;
        }
    }

  for (i = 0; i < m->la; i++)
    if (m->a[i] != NO_SLOT)
      m->slots[m->a[i]].used = 0;

  return calculate_ratio (matches, m->la + m->lb);
}

/* difflib's find_longest_match (alo, ahi, blo, bhi): the longest block of
 * a[alo:ahi] equal to a block of b[blo:bhi], the earliest in a among the
 * longest, then the earliest in b.  Returns its size, its start in a and b
 * in @out_i and @out_j. */
static gsize
matcher_find_longest_match (Matcher      *m,
                            const Region *r,
                            gsize        *out_i,
                            gsize        *out_j)
{
  gsize besti = r->alo, bestj = r->blo, bestsize = 0;

  /* The row before the first gets a number of its own: it is empty. */
  m->row++;

  for (gsize i = r->alo; i < r->ahi; i++)
    {
      gsize row = ++m->row, cur = row & 1, prev = cur ^ 1;
      const Slot *slot;

      if (m->a[i] == NO_SLOT)
        continue;

      slot = &m->slots[m->a[i]];
      for (gsize x = slot->start; x < slot->start + slot->len; x++)
        {
          gsize j = m->pos[x].b2j;
          const Position *before = &m->pos[j];
          Position *at = &m->pos[j + 1];
          gsize k;

          if (j < r->blo)
            continue;
          if (j >= r->bhi)
            break;

          k = (before->j2len_row[prev] == row - 1 ? before->j2len[prev] : 0) + 1;
          at->j2len[cur] = k;
          at->j2len_row[cur] = row;
          if (k > bestsize)
            {
              besti = i + 1 - k;
              bestj = j + 1 - k;
              bestsize = k;
            }
        }
    }

  /* Popular elements are not in b2j, so the best block so far holds none:
   * extend it over equal elements on both sides.  (difflib's two further
   * loops extend over junk elements; with isjunk=None there are none.) */
  while (besti > r->alo && bestj > r->blo && m->a[besti - 1] == m->pos[bestj - 1].b)
    {
      besti--;
      bestj--;
      bestsize++;
    }
  while (besti + bestsize < r->ahi && bestj + bestsize < r->bhi &&
         m->a[besti + bestsize] == m->pos[bestj + bestsize].b)
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
  gsize matches = 0;

  g_array_set_size (m->queue, 0);
  g_array_append_vals (m->queue, &(Region) { 0, m->la, 0, m->lb }, 1);

  while (m->queue->len > 0)
    {
      Region r = g_array_index (m->queue, Region, m->queue->len - 1);
      gsize i, j, k;

      g_array_set_size (m->queue, m->queue->len - 1);
      k = matcher_find_longest_match (m, &r, &i, &j);
      if (k == 0)
        continue;

      matches += k;
      if (r.alo < i && r.blo < j)
        g_array_append_vals (m->queue, &(Region) { r.alo, i, r.blo, j }, 1);
      if (i + k < r.ahi && j + k < r.bhi)
        g_array_append_vals (m->queue, &(Region) { i + k, r.ahi, j + k, r.bhi }, 1);
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
  g_array_sort (candidates, compare_candidates);

  result = g_new (char *, MIN (candidates->len, n) + 1);
  for (i = 0; i < candidates->len && i < n; i++)
    result[i] = g_strdup (g_array_index (candidates, Candidate, i).x);
  result[i] = NULL;

  return result;
}
