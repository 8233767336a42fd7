/* reg-verdict-store.c: verdicts recorded against module files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A store is a text file: the line STORE_HEADER, then one GVariant in
 * text form (g_variant_print()) of type STORE_TYPE, an array with one
 * record per verdict:
 *
 *   ( t t           device and inode of the module file
 *     x x x         its size, mtime and ctime (nanoseconds)
 *     x             when the check ran (microseconds since the epoch;
 *                   seconds in a store of version 1, which is read too)
 *     s             the backend's name
 *     s             the verdict's nick ("crashed")
 *     s             the reason ("" for ok)
 *     as            the operators it refused
 *     ay )          the module file's path (a bytestring: file names need
 *                   not be UTF-8)
 *
 * Text, so that `cat` shows what quarantines a module.  Readers trust
 * nothing in it: the file is read (never mapped: writers replace it, and
 * another user's process may be one) up to REG_VERDICT_STORE_MAX_SIZE,
 * parsed against the one type, and every record is checked (names by the
 * naming rules, the nick, the path, the sizes); anything wrong and the
 * whole store is ignored with a g_debug().  An ignored store quarantines
 * nothing, which is safe: the module is then loaded as if never checked.
 *
 * Writers and readers share that one bound.  A writer never writes a
 * larger store: when a verdict would take it past the bound, it drops the
 * oldest verdicts that quarantine nothing, never one that quarantines a
 * module that is still there; when those alone fill the store, the new
 * verdict is not recorded, and the writer says so.
 *
 * Writers lock the store's directory (flock()), read the store, merge
 * their verdict, and write a new file that they rename over the old one
 * (g_file_set_contents_full()), so concurrent `regctl verify` runs each
 * keep the others' verdicts, and a reader sees the old store or the new
 * one, never a mix.  Readers take no lock on the file.
 *
 * A process keeps what it read of each store with the stamp of the file
 * it read (reg-file-private.h), and reads the store again only when the
 * file's stamp changed: `regctl list`, which asks for a verdict per
 * backend, reads each store once.  A writer's new file is another inode,
 * so a store written since has another stamp.  The kept stores are under
 * cache_lock, which is taken last: nothing else is called under it.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "reg-environment-private.h"
#include "reg-file-private.h"
#include "reg-message-private.h"
#include "reg-name-private.h"
#include "reg-verdict-private.h"
#include "reg-verdict-store-private.h"

#define STORE_HEADER "libreg verdict store 2\n"
#define STORE_HEADER_1 "libreg verdict store 1\n"   /* times in seconds */
#define RECORD_TYPE "(ttxxxxsssasay)"
#define STORE_TYPE "a" RECORD_TYPE
#define USER_STORE_DIR "libreg"
#define USER_STORE_NAME "verdicts"

/* Bounds of a record's parts, well above what libreg writes. */
#define REASON_MAX 4096
#define OPS_MAX 64

typedef struct
{
  RegFileStamp   id;
  RegVerdict *verdict;
} Record;

static void
record_clear (gpointer data)
{
  Record *record = data;

  g_clear_object (&record->verdict);
}

static GArray *
records_new (void)
{
  GArray *records = g_array_new (FALSE, TRUE, sizeof (Record));

  g_array_set_clear_func (records, record_clear);
  return records;
}

char *
_reg_verdict_store_user_path (void)
{
  /* A setuid program's cache directory is named by its caller's
   * environment. */
  if (!_reg_environment_is_trusted ())
    return NULL;

  return g_build_filename (g_get_user_cache_dir (), USER_STORE_DIR, USER_STORE_NAME, NULL);
}

char *
_reg_verdict_store_path_beside (const char *module_path)
{
  g_autofree char *dir = g_path_get_dirname (module_path);

  return g_build_filename (dir, REG_VERDICT_STORE_NAME, NULL);
}

/* Reading */

/* Checks one record and adds it to @records; FALSE with @why otherwise. */
static gboolean
record_parse (GVariant  *value,
              guint      version,
              GArray    *records,
              char     **why)
{
  g_autoptr(GVariant) path_value = g_variant_get_child_value (value, 10);
  g_autofree const char **ops = NULL;
  const char *backend, *nick, *reason;
  const guint8 *path;
  RegVerdictKind kind;
  Record record = { { 0, }, NULL };
  gint64 time;
  gsize path_len;

  g_variant_get (value, "(ttxxxx&s&s&s^a&s@ay)",
                 &record.id.dev, &record.id.ino, &record.id.size,
                 &record.id.mtime_ns, &record.id.ctime_ns, &time,
                 &backend, &nick, &reason, &ops, NULL);

  path = g_variant_get_fixed_array (path_value, &path_len, 1);

  if (!_reg_name_validate (backend, "backend name", NULL))
    *why = g_strdup ("a backend name breaks the naming rules");
  else if (!_reg_verdict_kind_from_nick (nick, &kind))
    *why = g_strdup ("an unknown verdict");
  else if ((kind == REG_VERDICT_KIND_OK) != (reason[0] == '\0'))
    *why = g_strdup ("a reason where there should be none, or none where there should be one");
  else if (strlen (reason) > REASON_MAX)
    *why = g_strdup ("a reason too long");
  else if (g_strv_length ((char **) ops) > OPS_MAX)
    *why = g_strdup ("too many operators");
  else if (path_len < 2 || path[0] != '/' || path[path_len - 1] != '\0' ||
           memchr (path, '\0', path_len - 1) != NULL)
    *why = g_strdup ("a module path that is not an absolute file name");
  else if (record.id.size < 0 || time < 0)
    *why = g_strdup ("a negative size or time");
  else if (version == 1 && time > G_MAXINT64 / G_USEC_PER_SEC)
    *why = g_strdup ("a time out of range");

  for (guint i = 0; *why == NULL && ops[i] != NULL; i++)
    if (!_reg_name_validate (ops[i], "operator", NULL))
      *why = g_strdup ("an operator name breaks the naming rules");

  if (*why != NULL)
    return FALSE;

  {
    /* Escaped again: a reason is shown on terminals, and the file may
     * have been written by anything. */
    g_autofree char *safe = kind == REG_VERDICT_KIND_OK ? NULL
                                                         : _reg_text_for_message (reason, -1, REASON_MAX);

    record.verdict = _reg_verdict_new (backend, (const char *) path, kind, safe, ops,
                                       version == 1 ? time * G_USEC_PER_SEC : time);
  }
  g_array_append_val (records, record);
  return TRUE;
}

/* Parses the store @contents (the file @path) into @records; on any
 * problem leaves @records empty, says why with g_debug() and returns
 * FALSE. */
static gboolean
store_parse (const char *path,
             GBytes     *contents,
             GArray     *records)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) store = NULL;
  g_autofree char *why = NULL;
  const char *data, *body, *end, *parsed_end = NULL;
  gsize length, header_length = strlen (STORE_HEADER);
  guint version = 2;

  /* NUL-terminated (reg-file-private.h), which the parser needs. */
  data = g_bytes_get_data (contents, &length);
  if (length >= strlen (STORE_HEADER_1) && memcmp (data, STORE_HEADER_1, strlen (STORE_HEADER_1)) == 0)
    {
      version = 1;
      header_length = strlen (STORE_HEADER_1);
    }

  if (version == 2 && (length < header_length || memcmp (data, STORE_HEADER, header_length) != 0))
    why = g_strdup ("no \"" "libreg verdict store 2" "\" header");
  else if (memchr (data, '\0', length) != NULL)
    why = g_strdup ("a NUL byte");
  else
    {
      body = data + header_length;
      end = data + length;
      store = g_variant_parse (G_VARIANT_TYPE (STORE_TYPE), body, end, &parsed_end, &error);
      if (store == NULL)
        why = _reg_text_for_message (error->message, -1, 200);
      else
        {
          gsize n = g_variant_n_children (store);

          while (parsed_end < end && g_ascii_isspace (*parsed_end))
            parsed_end++;
          if (parsed_end != end)
            why = g_strdup ("text after the records");
          else
            for (gsize i = 0; why == NULL && i < n; i++)
              {
                g_autoptr(GVariant) child = g_variant_get_child_value (store, i);
                g_autofree char *problem = NULL;

                if (!record_parse (child, version, records, &problem))
                  why = g_strdup_printf ("record %" G_GSIZE_FORMAT ": %s", i + 1, problem);
              }
        }
    }

  if (why != NULL)
    {
      g_autofree char *shown = _reg_text_for_message (path, -1, 4096);

      g_debug ("verdict store %s ignored: %s", shown, why);
      g_array_set_size (records, 0);
      return FALSE;
    }

  return TRUE;
}

/* The stores this process read: path -> Kept */
typedef struct
{
  RegFileStamp  stamp;    /* of the file read */
  GArray       *records;  /* of Record; never changed once kept */
} Kept;

static void
kept_free (gpointer data)
{
  Kept *kept = data;

  g_array_unref (kept->records);
  g_free (kept);
}

static GRWLock cache_lock;
static GHashTable *cache;

/* The records of the store @path (a new reference, never changed): those
 * kept from the last read when the file is the same, else read now.  A
 * missing store has none; a store that cannot be read or is wrong in any
 * way has none either, and a g_debug() says why, once for each state of
 * the file. */
static GArray *
store_load (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) contents = NULL;
  g_autofree char *shown = NULL;
  RegFileStamp now, read;
  GArray *records = NULL;
  Kept *kept;

  if (!_reg_file_stamp_get (path, &now, &error))
    {
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        {
          shown = _reg_text_for_message (path, -1, 4096);
          g_debug ("verdict store %s ignored: %s", shown, error->message);
        }
      return records_new ();
    }

  g_rw_lock_reader_lock (&cache_lock);
  kept = cache != NULL ? g_hash_table_lookup (cache, path) : NULL;
  if (kept != NULL && _reg_file_stamp_equal (&kept->stamp, &now))
    records = g_array_ref (kept->records);
  g_rw_lock_reader_unlock (&cache_lock);
  if (records != NULL)
    return records;

  records = records_new ();
  shown = _reg_text_for_message (path, -1, 4096);
  read = now;
  contents = _reg_file_read (path, REG_VERDICT_STORE_MAX_SIZE, "a verdict store", &read, &error);
  if (contents == NULL)
    {
      if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return records;  /* gone meanwhile */
      g_debug ("verdict store %s ignored: %s", shown, error->message);
    }
  else if (store_parse (path, contents, records))
    g_debug ("verdict store %s read: %u records", shown, records->len);

  kept = g_new (Kept, 1);
  kept->stamp = read;
  kept->records = g_array_ref (records);
  g_rw_lock_writer_lock (&cache_lock);
  if (cache == NULL)
    cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, kept_free);
  g_hash_table_replace (cache, g_strdup (path), kept);
  g_rw_lock_writer_unlock (&cache_lock);

  return records;
}

static int
compare_newest_first (gconstpointer a,
                      gconstpointer b)
{
  gint64 ta = _reg_verdict_get_time_us (*(RegVerdict * const *) a);
  gint64 tb = _reg_verdict_get_time_us (*(RegVerdict * const *) b);

  return ta < tb ? 1 : ta > tb ? -1 : 0;
}

GPtrArray *
_reg_verdict_store_find (const char         *module_path,
                         const RegFileStamp *id)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func (g_object_unref);
  GPtrArray *current = g_ptr_array_new_with_free_func (g_object_unref);
  char *stores[] = { _reg_verdict_store_path_beside (module_path),
                     _reg_verdict_store_user_path () };

  for (guint s = 0; s < G_N_ELEMENTS (stores); s++)
    {
      g_autoptr(GArray) records = NULL;

      if (stores[s] == NULL)
        continue;

      records = store_load (stores[s]);
      for (guint i = 0; i < records->len; i++)
        {
          const Record *record = &g_array_index (records, Record, i);

          if (_reg_file_stamp_equal (&record->id, id))
            g_ptr_array_add (all, g_object_ref (record->verdict));
        }
      g_free (stores[s]);
    }

  /* Stable: between stores of equal times, the one beside the module
   * first. */
  g_ptr_array_sort (all, compare_newest_first);

  /* Each backend's newest verdict, whichever store holds it: a newer
   * check of the backend replaces what an older one found. */
  for (guint i = 0; i < all->len; i++)
    {
      RegVerdict *verdict = g_ptr_array_index (all, i);

      if (_reg_verdict_store_pick (current, reg_verdict_get_backend_name (verdict), FALSE) == NULL)
        g_ptr_array_add (current, g_object_ref (verdict));
    }

  return current;
}

RegVerdict *
_reg_verdict_store_pick (GPtrArray  *verdicts,
                         const char *name,
                         gboolean    quarantining)
{
  for (guint i = 0; i < verdicts->len; i++)
    {
      RegVerdict *verdict = g_ptr_array_index (verdicts, i);

      if (quarantining ? reg_verdict_get_quarantines (verdict)
                       : g_str_equal (reg_verdict_get_backend_name (verdict), name))
        return verdict;
    }

  return NULL;
}

/* Writing */

static GVariant *
record_to_variant (const Record *record)
{
  RegVerdict *verdict = record->verdict;
  const char *reason = reg_verdict_get_reason (verdict);

  return g_variant_ref_sink (g_variant_new ("(ttxxxxsss@as^ay)",
                                            record->id.dev, record->id.ino, record->id.size,
                                            record->id.mtime_ns, record->id.ctime_ns,
                                            _reg_verdict_get_time_us (verdict),
                                            reg_verdict_get_backend_name (verdict),
                                            _reg_verdict_kind_to_nick (reg_verdict_get_kind (verdict)),
                                            reason != NULL ? reason : "",
                                            g_variant_new_strv (reg_verdict_get_unsupported_ops (verdict), -1),
                                            reg_verdict_get_module_path (verdict)));
}

/* The store's text: the header, then the array, one record per line.
 * Its length is STORE_FRAME plus, for each record, its text and
 * RECORD_FRAME. */
#define STORE_FRAME (strlen (STORE_HEADER) + strlen ("[\n]\n"))
#define RECORD_FRAME strlen (",\n ")

static GString *
store_text (GPtrArray *texts)
{
  GString *text = g_string_new (STORE_HEADER);

  g_string_append_c (text, '[');
  for (guint i = 0; i < texts->len; i++)
    {
      g_string_append (text, i > 0 ? ",\n " : "\n ");
      g_string_append (text, g_ptr_array_index (texts, i));
    }
  g_string_append (text, "\n]\n");

  return text;
}

/* Locks the directory @dir for writing its store; returns the descriptor
 * to close to unlock, or -1 when the lock cannot be had (the store is then
 * written without it: a file system without locks should not stop
 * verdicts from being kept). */
static int
lock_dir (const char *dir)
{
  int fd = g_open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

  if (fd < 0)
    return -1;

  while (flock (fd, LOCK_EX) != 0)
    {
      if (errno != EINTR)
        {
          g_debug ("verdict store in %s written without a lock: %s", dir, g_strerror (errno));
          close (fd);
          return -1;
        }
    }

  return fd;
}

static int
compare_records_newest_first (gconstpointer a,
                              gconstpointer b)
{
  const Record *ra = a, *rb = b;

  return compare_newest_first (&ra->verdict, &rb->verdict);
}

/* The text of each of @kept (sorted newest first), in @texts, dropping
 * what the store's bound cannot hold: the oldest verdicts that quarantine
 * nothing first, never one that quarantines (the module of each is there:
 * the others were pruned), nor @added.  FALSE when those alone do not
 * fit. */
static gboolean
fit_within_bound (GArray     *kept,
                  RegVerdict *added,
                  GPtrArray  *texts)
{
  gsize size = STORE_FRAME;
  guint i;

  for (i = 0; i < kept->len; i++)
    {
      g_autoptr(GVariant) value = record_to_variant (&g_array_index (kept, Record, i));
      char *text = g_variant_print (value, FALSE);

      g_ptr_array_add (texts, text);
      size += strlen (text) + RECORD_FRAME;
    }

  for (i = kept->len; size > REG_VERDICT_STORE_MAX_SIZE && i > 0; i--)
    {
      Record *record = &g_array_index (kept, Record, i - 1);

      if (reg_verdict_get_quarantines (record->verdict) || record->verdict == added)
        continue;
      size -= strlen (g_ptr_array_index (texts, i - 1)) + RECORD_FRAME;
      g_ptr_array_remove_index (texts, i - 1);
      g_array_remove_index (kept, i - 1);
    }

  return size <= REG_VERDICT_STORE_MAX_SIZE;
}

gboolean
_reg_verdict_store_record (const char          *store_path,
                           RegVerdict          *verdict,
                           const RegFileStamp  *id,
                           GError             **error)
{
  g_autoptr(GArray) records = NULL;
  g_autoptr(GArray) kept = records_new ();
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) text = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *dir = g_path_get_dirname (store_path);
  g_autofree char *shown = _reg_text_for_message (store_path, -1, 4096);
  const char *backend = reg_verdict_get_backend_name (verdict);
  Record added = { *id, g_object_ref (verdict) };
  gboolean ok = FALSE;
  int lock_fd;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;
      g_autofree char *shown_dir = _reg_text_for_message (dir, -1, 4096);

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "The directory %s of the verdict store cannot be made: %s",
                   shown_dir, g_strerror (saved_errno));
      record_clear (&added);
      return FALSE;
    }

  lock_fd = lock_dir (dir);

  /* A store that cannot be read is replaced: what it held was not
   * trusted anyway. */
  records = store_load (store_path);

  /* The records of module files that changed or are gone no longer hold
   * anything: dropped, so that the store does not grow without end. */
  for (guint i = 0; i < records->len; i++)
    {
      const Record *record = &g_array_index (records, Record, i);
      Record copy = { record->id, NULL };
      RegFileStamp now;

      if (_reg_file_stamp_equal (&record->id, id) &&
          g_str_equal (reg_verdict_get_backend_name (record->verdict), backend))
        continue;
      if (!_reg_file_stamp_get (reg_verdict_get_module_path (record->verdict), &now, NULL) ||
          !_reg_file_stamp_equal (&now, &record->id))
        continue;

      copy.verdict = g_object_ref (record->verdict);
      g_array_append_val (kept, copy);
    }

  g_array_append_val (kept, added);
  g_array_sort (kept, compare_records_newest_first);

  if (!fit_within_bound (kept, verdict, texts))
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC,
                 "The verdict store %s is full: with the verdicts that quarantine modules, the "
                 "verdict of backend '%s' would take it past its %d bytes, so it is not recorded. "
                 "Check those modules again, or remove them.", shown, backend,
                 REG_VERDICT_STORE_MAX_SIZE);
  else
    {
      text = store_text (texts);
      ok = g_file_set_contents_full (store_path, text->str, text->len,
                                     G_FILE_SET_CONTENTS_CONSISTENT, 0644, &local_error);
      if (!ok)
        g_set_error (error, local_error->domain, local_error->code,
                     "The verdict store %s cannot be written: %s", shown, local_error->message);
    }

  if (lock_fd >= 0)
    close (lock_fd);

  return ok;
}
