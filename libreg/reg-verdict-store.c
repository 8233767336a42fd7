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
 *     x             when the check ran (seconds since the epoch)
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
 * Writers lock the store's directory (flock()), read the store, merge
 * their verdict, and write a new file that they rename over the old one
 * (g_file_set_contents_full()), so concurrent `regctl verify` runs each
 * keep the others' verdicts, and a reader sees the old store or the new
 * one, never a mix.  Readers take no lock.
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

#define STORE_HEADER "libreg verdict store 1\n"
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

    record.verdict = _reg_verdict_new (backend, (const char *) path, kind, safe, ops, time);
  }
  g_array_append_val (records, record);
  return TRUE;
}

/* Reads the store @path into @records.  A missing store is empty; any
 * other problem leaves @records empty, says why with g_debug() and returns
 * FALSE. */
static gboolean
store_read (const char *path,
            GArray     *records)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) store = NULL;
  g_autoptr(GBytes) contents = NULL;
  g_autofree char *why = NULL;
  const char *data, *body, *end, *parsed_end = NULL;
  gsize length, n;

  /* NUL-terminated (reg-file-private.h), which the parser needs. */
  contents = _reg_file_read (path, REG_VERDICT_STORE_MAX_SIZE, "a verdict store", NULL, &error);
  if (contents == NULL)
    {
      g_autofree char *shown = NULL;

      if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;

      shown = _reg_text_for_message (path, -1, 4096);
      g_debug ("verdict store %s ignored: %s", shown, error->message);
      return FALSE;
    }
  data = g_bytes_get_data (contents, &length);

  if (length < strlen (STORE_HEADER) || memcmp (data, STORE_HEADER, strlen (STORE_HEADER)) != 0)
    why = g_strdup ("no \"" "libreg verdict store 1" "\" header");
  else if (memchr (data, '\0', length) != NULL)
    why = g_strdup ("a NUL byte");
  else
    {
      body = data + strlen (STORE_HEADER);
      end = data + length;
      store = g_variant_parse (G_VARIANT_TYPE (STORE_TYPE), body, end, &parsed_end, &error);
      if (store == NULL)
        why = _reg_text_for_message (error->message, -1, 200);
      else
        {
          while (parsed_end < end && g_ascii_isspace (*parsed_end))
            parsed_end++;
          if (parsed_end != end)
            why = g_strdup ("text after the records");
          else if ((n = g_variant_n_children (store)) > REG_VERDICT_STORE_MAX_RECORDS)
            why = g_strdup_printf ("%" G_GSIZE_FORMAT " records, more than the %d a store may have",
                                   n, REG_VERDICT_STORE_MAX_RECORDS);
          else
            for (gsize i = 0; why == NULL && i < n; i++)
              {
                g_autoptr(GVariant) child = g_variant_get_child_value (store, i);
                g_autofree char *problem = NULL;

                if (!record_parse (child, records, &problem))
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

static int
compare_newest_first (gconstpointer a,
                      gconstpointer b)
{
  gint64 ta = reg_verdict_get_time (*(RegVerdict * const *) a);
  gint64 tb = reg_verdict_get_time (*(RegVerdict * const *) b);

  return ta < tb ? 1 : ta > tb ? -1 : 0;
}

GPtrArray *
_reg_verdict_store_find (const char      *module_path,
                         const RegFileStamp *id)
{
  GPtrArray *verdicts = g_ptr_array_new_with_free_func (g_object_unref);
  char *stores[] = { _reg_verdict_store_path_beside (module_path),
                     _reg_verdict_store_user_path () };

  for (guint s = 0; s < G_N_ELEMENTS (stores); s++)
    {
      g_autoptr(GArray) records = records_new ();

      if (stores[s] == NULL)
        continue;

      store_read (stores[s], records);
      for (guint i = 0; i < records->len; i++)
        {
          Record *record = &g_array_index (records, Record, i);

          if (_reg_file_stamp_equal (&record->id, id))
            g_ptr_array_add (verdicts, g_steal_pointer (&record->verdict));
        }
      g_free (stores[s]);
    }

  /* Stable: between stores of equal times, the one beside the module
   * first. */
  g_ptr_array_sort (verdicts, compare_newest_first);

  return verdicts;
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

  return g_variant_new ("(ttxxxxsss@as^ay)",
                        record->id.dev, record->id.ino, record->id.size,
                        record->id.mtime_ns, record->id.ctime_ns,
                        reg_verdict_get_time (verdict),
                        reg_verdict_get_backend_name (verdict),
                        _reg_verdict_kind_to_nick (reg_verdict_get_kind (verdict)),
                        reason != NULL ? reason : "",
                        g_variant_new_strv (reg_verdict_get_unsupported_ops (verdict), -1),
                        reg_verdict_get_module_path (verdict));
}

static gboolean
store_write (const char  *path,
             GArray      *records,
             GError     **error)
{
  g_autoptr(GString) text = g_string_new (STORE_HEADER);

  /* The array's text, one record per line. */
  g_string_append_c (text, '[');
  for (guint i = 0; i < records->len; i++)
    {
      g_autoptr(GVariant) record = g_variant_ref_sink (record_to_variant (&g_array_index (records, Record, i)));

      g_string_append (text, i > 0 ? ",\n " : "\n ");
      g_variant_print_string (record, text, FALSE);
    }
  g_string_append (text, "\n]\n");

  return g_file_set_contents_full (path, text->str, text->len,
                                   G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
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

gboolean
_reg_verdict_store_record (const char       *store_path,
                           RegVerdict       *verdict,
                           const RegFileStamp  *id,
                           GError          **error)
{
  g_autoptr(GArray) records = records_new ();
  g_autoptr(GArray) kept = records_new ();
  g_autoptr(GError) local_error = NULL;
  g_autofree char *dir = g_path_get_dirname (store_path);
  const char *backend = reg_verdict_get_backend_name (verdict);
  Record added = { *id, g_object_ref (verdict) };
  gboolean ok;
  int lock_fd;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;
      g_autofree char *shown = _reg_text_for_message (dir, -1, 4096);

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "The directory %s of the verdict store cannot be made: %s",
                   shown, g_strerror (saved_errno));
      record_clear (&added);
      return FALSE;
    }

  lock_fd = lock_dir (dir);

  /* A store that cannot be read is replaced: what it held was not
   * trusted anyway. */
  store_read (store_path, records);

  /* The records of module files that changed or are gone no longer hold
   * anything: dropped, so that the store does not grow without end. */
  for (guint i = 0; i < records->len; i++)
    {
      Record *record = &g_array_index (records, Record, i);
      RegFileStamp now;

      if (_reg_file_stamp_equal (&record->id, id) &&
          g_str_equal (reg_verdict_get_backend_name (record->verdict), backend))
        continue;
      if (!_reg_file_stamp_get (reg_verdict_get_module_path (record->verdict), &now, NULL) ||
          !_reg_file_stamp_equal (&now, &record->id))
        continue;

      g_array_append_val (kept, *record);
      record->verdict = NULL;
    }

  g_array_append_val (kept, added);
  g_array_sort (kept, compare_records_newest_first);
  if (kept->len > REG_VERDICT_STORE_MAX_RECORDS)
    g_array_set_size (kept, REG_VERDICT_STORE_MAX_RECORDS);

  ok = store_write (store_path, kept, &local_error);

  if (lock_fd >= 0)
    close (lock_fd);

  if (!ok)
    {
      g_autofree char *shown = _reg_text_for_message (store_path, -1, 4096);

      g_set_error (error, local_error->domain, local_error->code,
                   "The verdict store %s cannot be written: %s", shown, local_error->message);
      return FALSE;
    }

  return TRUE;
}
