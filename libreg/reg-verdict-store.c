/* reg-verdict-store.c: verdicts recorded against module files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The format and the guarantees are those of docs/verifying-backends.md.
 * Text, so that `cat` shows what quarantines a module.  Readers trust
 * nothing in it: it is read (never mapped: writers replace it, and another
 * user's process may be one), parsed against the one type and every record
 * checked; anything wrong and the store is ignored whole, which
 * quarantines nothing.  Writers lock the store's directory, merge, and
 * rename a new file over it; readers take no lock.  cache_lock is taken
 * last: nothing else is called under it.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "reg-enums.h"
#include "reg-environment-private.h"
#include "reg-message-private.h"
#include "reg-name-private.h"
#include "reg-verdict-private.h"

#define STORE_HEADER   "libreg verdict store 2\n"
#define STORE_HEADER_1 "libreg verdict store 1\n"  /* as long; times in seconds */
#define STORE_TYPE     "a(ttxxxxsssasay)"
#define STORE_MAX_SIZE (1024 * 1024)               /* for readers and writers */

/* Bounds of a record's parts, well above what libreg writes. */
#define REASON_MAX 4096
#define OPS_MAX 64

/* Reading */

/* Checks one record and adds its verdict to @verdicts; else says why. */
static char *
record_parse (GVariant  *value,
              guint      version,
              GPtrArray *verdicts)
{
  g_autoptr(GVariant) path_value = g_variant_get_child_value (value, 10);
  g_autofree const char **ops = NULL;
  g_autofree char *safe = NULL;
  const char *backend, *nick, *reason;
  RegFileStamp stamp;
  RegVerdictKind kind;
  gsize path_len;
  const char *path = g_variant_get_fixed_array (path_value, &path_len, 1);
  gint64 time;

  g_variant_get (value, "(ttxxxx&s&s&s^a&s@ay)", &stamp.dev, &stamp.ino, &stamp.size,
                 &stamp.mtime_ns, &stamp.ctime_ns, &time, &backend, &nick, &reason, &ops, NULL);

  if (!_reg_name_validate (backend, "backend name", NULL))
    return g_strdup ("a backend name breaks the naming rules");
  if (!_reg_verdict_kind_from_nick (nick, &kind))
    return g_strdup ("an unknown verdict");
  if ((kind == REG_VERDICT_KIND_OK) != (reason[0] == '\0'))
    return g_strdup ("a reason where there should be none, or none where there should be one");
  if (strlen (reason) > REASON_MAX)
    return g_strdup ("a reason too long");
  if (g_strv_length ((char **) ops) > OPS_MAX)
    return g_strdup ("too many operators");
  if (path_len < 2 || path[0] != '/' || path[path_len - 1] != '\0' || strlen (path) != path_len - 1)
    return g_strdup ("a module path that is not an absolute file name");
  if (stamp.size < 0 || time < 0)
    return g_strdup ("a negative size or time");
  if (version == 1 && time > G_MAXINT64 / G_USEC_PER_SEC)
    return g_strdup ("a time out of range");
  for (guint i = 0; ops[i] != NULL; i++)
    if (!_reg_name_validate (ops[i], "operator", NULL))
      return g_strdup ("an operator name breaks the naming rules");

  /* Escaped again: a reason is shown on terminals, and anything may have
   * written the file. */
  if (kind != REG_VERDICT_KIND_OK)
    safe = _reg_text_for_message (reason, -1, REASON_MAX);
  g_ptr_array_add (verdicts, _reg_verdict_new (backend, path, kind, safe, ops,
                                               version == 1 ? time * G_USEC_PER_SEC : time, &stamp));
  return NULL;
}

/* Parses a store into @verdicts; else says why. */
static char *
store_parse (GBytes    *contents,
             GPtrArray *verdicts)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) store = NULL;
  gsize length;
  const char *data = g_bytes_get_data (contents, &length);  /* NUL-terminated */
  const char *end = data + length, *parsed_end;
  guint version = g_str_has_prefix (data, STORE_HEADER_1) ? 1 : 2;

  if (version == 2 && !g_str_has_prefix (data, STORE_HEADER))
    return g_strdup ("no \"libreg verdict store 2\" header");
  if (memchr (data, '\0', length) != NULL)
    return g_strdup ("a NUL byte");

  store = g_variant_parse (G_VARIANT_TYPE (STORE_TYPE), data + strlen (STORE_HEADER), end,
                           &parsed_end, &error);
  if (store == NULL)
    return _reg_text_for_message (error->message, -1, 200);
  while (parsed_end < end && g_ascii_isspace (*parsed_end))
    parsed_end++;
  if (parsed_end != end)
    return g_strdup ("text after the records");

  for (gsize i = 0; i < g_variant_n_children (store); i++)
    {
      g_autoptr(GVariant) record = g_variant_get_child_value (store, i);
      g_autofree char *why = record_parse (record, version, verdicts);

      if (why != NULL)
        return g_strdup_printf ("record %" G_GSIZE_FORMAT ": %s", i + 1, why);
    }

  return NULL;
}

/* The stores this process read: path -> Kept */
typedef struct
{
  RegFileStamp  stamp;
  GPtrArray    *verdicts;  /* never changed once kept */
} Kept;

static void
kept_free (gpointer data)
{
  Kept *kept = data;

  g_ptr_array_unref (kept->verdicts);
  g_free (kept);
}

static GRWLock cache_lock;
static GHashTable *cache;

/* The verdicts of the store @path (a new reference to an array that is
 * never changed): none when it is missing or ignored, which a g_debug()
 * says once for each state of the file. */
static GPtrArray *
store_load (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) contents = NULL;
  g_autofree char *shown = _reg_text_for_message (path, -1, 4096);
  g_autofree char *why = NULL;
  GPtrArray *verdicts = NULL;
  RegFileStamp stamp;
  gboolean stamped = _reg_file_stamp_get (path, &stamp);
  Kept *kept;

  g_rw_lock_reader_lock (&cache_lock);
  kept = stamped && cache != NULL ? g_hash_table_lookup (cache, path) : NULL;
  if (kept != NULL && _reg_file_stamp_equal (&kept->stamp, &stamp))
    verdicts = g_ptr_array_ref (kept->verdicts);
  g_rw_lock_reader_unlock (&cache_lock);
  if (verdicts != NULL)
    return verdicts;

  verdicts = g_ptr_array_new_with_free_func (g_object_unref);
  contents = _reg_file_read (path, STORE_MAX_SIZE, "a verdict store", &stamp, &error);
  if (contents == NULL && g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    return verdicts;

  why = contents == NULL ? g_strdup (error->message) : store_parse (contents, verdicts);
  if (why != NULL)
    {
      g_debug ("verdict store %s ignored: %s", shown, why);
      g_ptr_array_set_size (verdicts, 0);
    }
  else
    g_debug ("verdict store %s read: %u records", shown, verdicts->len);

  if (contents != NULL || stamped)
    {
      kept = g_new (Kept, 1);
      *kept = (Kept) { stamp, g_ptr_array_ref (verdicts) };
      g_rw_lock_writer_lock (&cache_lock);
      if (cache == NULL)
        cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, kept_free);
      g_hash_table_replace (cache, g_strdup (path), kept);
      g_rw_lock_writer_unlock (&cache_lock);
    }

  return verdicts;
}

/* The user's store, or NULL in a setuid or setgid program: its cache
 * directory is its caller's to choose. */
static char *
store_path (const char *module_path,
            gboolean    beside)
{
  g_autofree char *dir = g_path_get_dirname (module_path);

  if (beside)
    return g_build_filename (dir, "backends.verdicts", NULL);
  return _reg_environment_is_trusted () ? g_build_filename (g_get_user_cache_dir (), "libreg", "verdicts", NULL)
                                        : NULL;
}

static int
compare_newest_first (gconstpointer a,
                      gconstpointer b)
{
  gint64 ta = (*(RegVerdict * const *) a)->time_us, tb = (*(RegVerdict * const *) b)->time_us;

  return ta < tb ? 1 : ta > tb ? -1 : 0;
}

GPtrArray *
_reg_verdict_store_find (const char *module_path)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func (g_object_unref);
  GPtrArray *current;
  RegFileStamp id;

  if (!_reg_file_stamp_get (module_path, &id))
    return NULL;

  for (guint s = 0; s < 2; s++)
    {
      g_autofree char *path = store_path (module_path, s == 0);
      g_autoptr(GPtrArray) verdicts = path != NULL ? store_load (path) : NULL;

      for (guint i = 0; verdicts != NULL && i < verdicts->len; i++)
        if (_reg_file_stamp_equal (&((RegVerdict *) verdicts->pdata[i])->stamp, &id))
          g_ptr_array_add (all, g_object_ref (verdicts->pdata[i]));
    }

  /* Stable: of equal times, the store beside the module's first.  Then
   * each backend's newest, whichever store holds it. */
  g_ptr_array_sort (all, compare_newest_first);
  current = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < all->len; i++)
    if (_reg_verdict_store_pick (current, ((RegVerdict *) all->pdata[i])->backend_name) == NULL)
      g_ptr_array_add (current, g_object_ref (all->pdata[i]));

  return current;
}

RegVerdict *
_reg_verdict_store_pick (GPtrArray  *verdicts,
                         const char *name)
{
  for (guint i = 0; i < verdicts->len; i++)
    {
      RegVerdict *verdict = verdicts->pdata[i];

      if (name == NULL ? reg_verdict_get_quarantines (verdict) : g_str_equal (verdict->backend_name, name))
        return verdict;
    }

  return NULL;
}

/* Writing */

static char *
verdict_print (RegVerdict *verdict)
{
  g_autoptr(GEnumClass) kinds = g_type_class_ref (REG_TYPE_VERDICT_KIND);
  const RegFileStamp *id = &verdict->stamp;
  g_autoptr(GVariant) value =
    g_variant_ref_sink (g_variant_new ("(ttxxxxsss^as^ay)", id->dev, id->ino, id->size, id->mtime_ns,
                                       id->ctime_ns, verdict->time_us, verdict->backend_name,
                                       g_enum_get_value (kinds, verdict->kind)->value_nick,
                                       verdict->reason != NULL ? verdict->reason : "",
                                       verdict->unsupported_ops, verdict->module_path));

  return g_variant_print (value, FALSE);
}

gboolean
_reg_verdict_store_record (RegVerdict  *verdict,
                           gboolean     beside,
                           GError     **error)
{
  g_autofree char *path = store_path (verdict->module_path, beside);
  g_autofree char *dir = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *body = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GPtrArray) old = NULL;
  g_autoptr(GPtrArray) kept = g_ptr_array_new ();
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  gsize size = strlen (STORE_HEADER "[\n]\n");
  gboolean ok = FALSE;
  int lock_fd;
  int lock_errno;

  if (path == NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_PERM,
                   "A setuid or setgid program has no per-user verdict store: the verdict of backend "
                   "'%s' is not recorded. Record it beside the module (store \"system\").",
                   verdict->backend_name);
      return FALSE;
    }

  dir = g_path_get_dirname (path);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;
      g_autofree char *shown_dir = _reg_text_for_message (dir, -1, 4096);

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "The directory %s of the verdict store cannot be made: %s",
                   shown_dir, g_strerror (saved_errno));
      return FALSE;
    }

  /* Without the lock when it cannot be had: a file system without locks
   * should not keep verdicts from being recorded. */
  lock_fd = g_open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  lock_errno = errno;
  while (lock_fd >= 0 && flock (lock_fd, LOCK_EX) != 0)
    if (errno != EINTR)
      {
        lock_errno = errno;
        close (lock_fd);
        lock_fd = -1;
      }
  if (lock_fd < 0)
    {
      g_autofree char *shown_dir = _reg_text_for_message (dir, -1, 4096);

      g_debug ("verdict store in %s written without a lock: %s", shown_dir, g_strerror (lock_errno));
    }

  /* The verdicts of module files that changed or are gone no longer hold:
   * dropped, so that the store does not grow without end.  A store that
   * cannot be read is replaced: what it held was not trusted anyway. */
  old = store_load (path);
  for (guint i = 0; i < old->len; i++)
    {
      RegVerdict *other = old->pdata[i];
      gboolean replaced = _reg_file_stamp_equal (&other->stamp, &verdict->stamp) &&
                          g_str_equal (other->backend_name, verdict->backend_name);
      RegFileStamp now;

      if (!replaced && _reg_file_stamp_get (other->module_path, &now) &&
          _reg_file_stamp_equal (&now, &other->stamp))
        g_ptr_array_add (kept, other);
    }
  g_ptr_array_add (kept, verdict);
  g_ptr_array_sort (kept, compare_newest_first);

  for (guint i = 0; i < kept->len; i++)
    {
      g_ptr_array_add (texts, verdict_print (kept->pdata[i]));
      size += strlen (texts->pdata[i]) + strlen (",\n ");
    }

  /* Within the bound: the oldest verdicts that quarantine nothing go
   * first; never @verdict, nor one that quarantines (its module is
   * there). */
  for (guint i = kept->len; i-- > 0 && size > STORE_MAX_SIZE;)
    if (kept->pdata[i] != verdict && !reg_verdict_get_quarantines (kept->pdata[i]))
      {
        size -= strlen (texts->pdata[i]) + strlen (",\n ");
        g_ptr_array_remove_index (texts, i);
      }

  shown = _reg_text_for_message (path, -1, 4096);
  if (size > STORE_MAX_SIZE)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC,
                 "The verdict store %s is full: with the verdicts that quarantine modules, the "
                 "verdict of backend '%s' would take it past its %d bytes, so it is not recorded. "
                 "Check those modules again, or remove them.", shown, verdict->backend_name, STORE_MAX_SIZE);
  else
    {
      g_ptr_array_add (texts, NULL);
      body = g_strjoinv (",\n ", (char **) texts->pdata);
      text = g_strconcat (STORE_HEADER "[\n ", body, "\n]\n", NULL);
      ok = g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
      if (!ok)
        g_prefix_error (error, "The verdict store %s cannot be written: ", shown);
    }

  if (lock_fd >= 0)
    close (lock_fd);

  return ok;
}
