/* reg-keyfile.c: reading key files fast
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "reg-keyfile-private.h"
#include "reg-message-private.h"

/* A key and its raw value, in the copy of the text. */
typedef struct
{
  const char *key;
  const char *value;
} Pair;

/* The pairs under one group line.  A group that comes several times is
 * one group (as GKeyFile merges them): its runs are chained by `next`. */
typedef struct
{
  const char *name;
  guint       first_pair;
  guint       n_pairs;
  int         next;
} Run;

/* Beyond this many runs, the first run of each name is found by a hash
 * table rather than by comparing with every run. */
#define MAX_RUNS_SCANNED 8

/* One block: the struct, then room for a pair, a run and a group per line
 * of the text, then a copy of the text. */
struct _RegKeyFile
{
  GKeyFile   *keyfile;     /* the text, when it is not plain or has a
                            * backslash: unescapes the values with escapes */
  GHashTable *first_runs;  /* name -> first run + 1, beyond MAX_RUNS_SCANNED runs */
  Pair       *pairs;
  Run        *runs;
  const char **groups;     /* each group once, then NULL */
  guint       n_pairs;
  guint       n_runs;
  guint       n_groups;
  gboolean    plain;
  char       *text;        /* the text, with the ends of keys and values cut */
};

void
_reg_key_file_free (RegKeyFile *self)
{
  g_clear_pointer (&self->keyfile, g_key_file_unref);
  g_clear_pointer (&self->first_runs, g_hash_table_unref);
  g_free (self);
}

static int
find_first_run (RegKeyFile *self,
                const char *name)
{
  if (self->first_runs != NULL)
    return GPOINTER_TO_INT (g_hash_table_lookup (self->first_runs, name)) - 1;

  for (guint i = 0; i < self->n_runs; i++)
    if (strcmp (self->runs[i].name, name) == 0)
      return (int) i;

  return -1;
}

/* Starts the run of the group line @name, chained to the earlier runs of
 * the same name. */
static void
add_run (RegKeyFile *self,
         const char *name)
{
  int first = find_first_run (self, name);

  if (first < 0)
    self->groups[self->n_groups++] = name;
  else
    {
      Run *last = &self->runs[first];

      while (last->next >= 0)
        last = &self->runs[last->next];
      last->next = (int) self->n_runs;
    }
  self->runs[self->n_runs++] = (Run) { name, self->n_pairs, 0, -1 };

  if (self->first_runs == NULL && self->n_runs > MAX_RUNS_SCANNED)
    {
      self->first_runs = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = self->n_runs; i > 0; i--)
        g_hash_table_insert (self->first_runs, (gpointer) self->runs[i - 1].name, GINT_TO_POINTER (i));
    }
  else if (self->first_runs != NULL && first < 0)
    g_hash_table_insert (self->first_runs, (gpointer) name, GINT_TO_POINTER (self->n_runs));
}

/* Whether the line from @p to @stop is plain: printable ASCII or tabs,
 * and empty, a comment, "[NAME]" alone or, under a group, KEY=VALUE with
 * a key of letters, digits, '-', '_' and '.'.  GKeyFile accepts every
 * text of plain lines (fuzz-manifest checks that it does); the others,
 * which manifests seldom are, it reads itself.  Its loading is most of
 * the cost of reading a manifest. */
static gboolean
is_plain_line (const char *p,
               const char *stop,
               gboolean    in_group)
{
  const char *start;

  while (p < stop && (*p == ' ' || *p == '\t'))
    p++;
  start = p;

  if (p < stop && *p == '[')
    {
      while (++p < stop && *p >= 0x20 && *p < 0x7f && *p != '[' && *p != ']')
        ;
      return p > start + 1 && p == stop - 1 && *p == ']';
    }

  if (p < stop && *p != '#')
    {
      while (p < stop && (g_ascii_isalnum (*p) || *p == '-' || *p == '_' || *p == '.'))
        p++;
      /* GKeyFile reads the encoding of the text from an Encoding key. */
      if (p == start || !in_group || (p - start == 8 && memcmp (start, "Encoding", 8) == 0))
        return FALSE;
      while (p < stop && (*p == ' ' || *p == '\t'))
        p++;
      if (p == stop || *p != '=')
        return FALSE;
    }

  /* The rest of the line: a comment's or a value's. */
  while (p < stop && ((*p >= 0x20 && *p < 0x7f) || *p == '\t'))
    p++;

  return p == stop;
}

/* Finds the groups, keys and values of the text where GKeyFile's parser
 * does, and says whether the text is plain: lines end at '\n' (and a '\r'
 * before it is dropped); white space (g_ascii_isspace()) starts a line; a
 * line is empty, a comment ('#'), a group ("[NAME]", to the last ']') or
 * KEY=VALUE, the key's trailing and the value's leading white space
 * dropped.  Keys with a locale ("Name[de]") are left out: nothing asks for
 * them.  What it finds in a text GKeyFile refuses is thrown away. */
static gboolean
find_values (RegKeyFile *self,
             gsize       length)
{
  char *line = self->text;
  char *end = self->text + length;
  gboolean plain = TRUE;

  while (line < end)
    {
      char *eol = memchr (line, '\n', end - line);
      char *stop = eol != NULL ? eol : end;
      char *next = eol != NULL ? eol + 1 : end;
      char *p = line;

      if (eol != NULL && stop > line && stop[-1] == '\r')
        stop--;
      plain = plain && is_plain_line (line, stop, self->n_runs > 0);
      *stop = '\0';

      while (g_ascii_isspace (*p))
        p++;

      if (*p == '[' && strrchr (p, ']') != NULL)
        {
          *strrchr (p, ']') = '\0';
          add_run (self, p + 1);
        }
      else if (*p != '\0' && *p != '#' && strchr (p, '=') != NULL && self->n_runs > 0)
        {
          char *equals = strchr (p, '=');
          char *key_end = equals;
          char *value = equals + 1;

          while (key_end > p && g_ascii_isspace (key_end[-1]))
            key_end--;
          *key_end = '\0';
          while (g_ascii_isspace (*value))
            value++;

          if (strchr (p, '[') == NULL)
            {
              self->pairs[self->n_pairs++] = (Pair) { p, value };
              self->runs[self->n_runs - 1].n_pairs++;
            }
        }

      line = next;
    }

  return plain;
}

RegKeyFile *
_reg_key_file_new (const char  *data,
                   gsize        length,
                   GError     **error)
{
  RegKeyFile *self;
  gsize n_lines = 1, slot, size;

  /* An empty text may come without a buffer. */
  if (length == 0)
    data = "";

  /* A NUL byte ends GKeyFile's reading of a line, not of the text: the
   * string functions below stop at it the same way. */
  for (const char *p = data; (p = memchr (p, '\n', length - (p - data))) != NULL; p++)
    n_lines++;

  /* A line is at most a pair, a run or a group: bounded by the text's
   * length, which the caller bounds. */
  slot = sizeof (Pair) + sizeof (Run) + sizeof (char *);
  if (!g_size_checked_mul (&size, n_lines + 1, slot) ||
      !g_size_checked_add (&size, size, sizeof (RegKeyFile)) ||
      !g_size_checked_add (&size, size, length + 1))
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
                   "a key file of %" G_GSIZE_FORMAT " bytes is too large", length);
      return NULL;
    }

  self = g_malloc0 (size);
  self->pairs = (Pair *) (gpointer) (self + 1);
  self->runs = (Run *) (gpointer) (self->pairs + n_lines);
  self->groups = (const char **) (gpointer) (self->runs + n_lines);
  self->text = memcpy ((char *) (self->groups + n_lines + 1), data, length);
  self->text[length] = '\0';

  /* GKeyFile decides whether a text that is not plain is a key file, and
   * says why not. */
  self->plain = find_values (self, length);
  if (!self->plain || memchr (data, '\\', length) != NULL)
    {
      self->keyfile = g_key_file_new ();
      if (!g_key_file_load_from_data (self->keyfile, data, length, G_KEY_FILE_NONE, error))
        {
          _reg_key_file_free (self);
          return NULL;
        }
    }

  return self;
}

const char * const *
_reg_key_file_get_groups (RegKeyFile *self)
{
  return self->groups;
}

gboolean
_reg_key_file_is_plain (RegKeyFile *self)
{
  return self->plain;
}

gboolean
_reg_key_file_has_group (RegKeyFile *self,
                         const char *group)
{
  return find_first_run (self, group) >= 0;
}

void
_reg_key_group_init (RegKeyGroup *group,
                     RegKeyFile  *keyfile,
                     const char  *name)
{
  group->keyfile = keyfile;
  group->name = name;
  group->first_run = find_first_run (keyfile, name);
}

const char *
_reg_key_group_get_value (RegKeyGroup *group,
                          const char  *key)
{
  const char *found = NULL;

  for (int r = group->first_run; r >= 0; r = group->keyfile->runs[r].next)
    {
      const Run *run = &group->keyfile->runs[r];

      for (guint i = run->first_pair; i < run->first_pair + run->n_pairs; i++)
        if (strcmp (group->keyfile->pairs[i].key, key) == 0)
          found = group->keyfile->pairs[i].value;
    }

  return found;
}

/* The raw value of @key (NULL when missing), after checking its escape
 * sequences; whether it has any in *@escaped. */
static gboolean
get_raw_value (RegKeyGroup  *group,
               const char   *key,
               const char  **raw,
               gboolean     *escaped,
               GError      **error)
{
  *raw = _reg_key_group_get_value (group, key);
  *escaped = FALSE;

  for (const char *p = *raw; p != NULL && (p = strchr (p, '\\')) != NULL; p++)
    {
      /* The escapes GKeyFile knows: \s \n \t \r \\ and, in lists, \; */
      p++;
      if (*p == '\0' || strchr ("sntr\\;", *p) == NULL)
        {
          g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                       "[%s] %s: %s", group->name, key,
                       *p == '\0' ? "a backslash ends the value" : "invalid escape sequence");
          *raw = NULL;
          return FALSE;
        }
      *escaped = TRUE;
    }

  return TRUE;
}

/* The value of @key, a string or, when @list, a list; NULL when the key
 * is missing.  A value with escapes is unescaped by GKeyFile, which has
 * the text then. */
static gboolean
get_string (RegKeyGroup  *group,
            const char   *key,
            gboolean      list,
            gpointer     *value,
            GError      **error)
{
  g_autoptr(GError) local_error = NULL;
  const char *raw;
  gboolean escaped;

  *value = NULL;
  if (!get_raw_value (group, key, &raw, &escaped, error))
    return FALSE;
  if (raw == NULL)
    return TRUE;

  if (escaped && list)
    *value = g_key_file_get_string_list (group->keyfile->keyfile, group->name, key, NULL,
                                         &local_error);
  else if (escaped)
    *value = g_key_file_get_string (group->keyfile->keyfile, group->name, key, &local_error);
  else if (!list)
    *value = g_strdup (raw);
  else
    {
      /* What GKeyFile makes of a list without escapes: the pieces between
       * separators, but an empty last one. */
      char **pieces = g_strsplit (raw, ";", -1);
      guint n = g_strv_length (pieces);

      if (n > 0 && pieces[n - 1][0] == '\0')
        g_clear_pointer (&pieces[n - 1], g_free);
      *value = pieces;
    }

  if (*value == NULL)
    g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "[%s] %s: ",
                                group->name, key);
  return *value != NULL;
}

gboolean
_reg_key_group_get_string (RegKeyGroup  *group,
                           const char   *key,
                           char        **value,
                           GError      **error)
{
  return get_string (group, key, FALSE, (gpointer *) value, error);
}

gboolean
_reg_key_group_get_string_list (RegKeyGroup   *group,
                                const char    *key,
                                char        ***value,
                                GError       **error)
{
  return get_string (group, key, TRUE, (gpointer *) value, error);
}

gboolean
_reg_key_group_get_boolean (RegKeyGroup  *group,
                            const char   *key,
                            gboolean     *value,
                            GError      **error)
{
  g_autofree char *shown = NULL;
  const char *raw;
  gboolean escaped;
  gsize n;

  if (!get_raw_value (group, key, &raw, &escaped, error))
    return FALSE;
  if (raw == NULL)
    return TRUE;

  /* As g_key_file_get_boolean() reads it: white space after the word is
   * allowed. */
  for (n = strlen (raw); n > 0 && g_ascii_isspace (raw[n - 1]); n--)
    ;
  if ((n == 4 && memcmp (raw, "true", 4) == 0) || (n == 1 && raw[0] == '1'))
    {
      *value = TRUE;
      return TRUE;
    }
  if ((n == 5 && memcmp (raw, "false", 5) == 0) || (n == 1 && raw[0] == '0'))
    {
      *value = FALSE;
      return TRUE;
    }

  shown = _reg_quote_for_message (raw, -1);
  g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
               "[%s] %s: %s is not a boolean (true or false is expected)",
               group->name, key, shown);
  return FALSE;
}

gboolean
_reg_key_group_get_int64 (RegKeyGroup  *group,
                          const char   *key,
                          gint64       *value,
                          GError      **error)
{
  g_autofree char *shown = NULL;
  const char *raw = _reg_key_group_get_value (group, key);

  if (raw == NULL || g_ascii_string_to_signed (raw, 10, G_MININT64, G_MAXINT64, value, NULL))
    return TRUE;

  shown = _reg_quote_for_message (raw, -1);
  g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
               "%s: %s is not a 64-bit integer", key, shown);
  return FALSE;
}
