/* reg-file.c: reading files that others may change
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "reg-file-private.h"

/* A file that changes every time it is read is given up on after this. */
#define READ_ATTEMPTS 3

#define NS_PER_SECOND G_GINT64_CONSTANT (1000000000)

static RegFileReadHook read_hook;
static gsize read_hook_chunk;
static gpointer read_hook_data;

void
_reg_file_set_read_hook (RegFileReadHook hook,
                         gsize           chunk_size,
                         gpointer        user_data)
{
  read_hook = hook;
  read_hook_chunk = MAX (chunk_size, 1);
  read_hook_data = user_data;
}

static gboolean
set_errno_error (GError     **error,
                 const char  *prefix)
{
  int saved_errno = errno;

  /* g_strerror() converts the message to UTF-8 through iconv, which a
   * missing file (a verdict store that was never written) need not pay. */
  if (error == NULL)
    return FALSE;
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               "%s%s", prefix, g_strerror (saved_errno));
  return FALSE;
}

/* @size is what the file says it has, 0 when that is not known. */
static gpointer
set_too_large_error (GError     **error,
                     guint64      size,
                     gsize        max_size,
                     const char  *what)
{
  g_autofree char *stated = size > 0 ? g_strdup_printf ("%" G_GUINT64_FORMAT " bytes, ", size)
                                     : g_strdup ("");

  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
               "%slarger than the %" G_GSIZE_FORMAT " bytes %s may have", stated, max_size, what);
  return NULL;
}

/* Fills @stamp from @st, which stat() or fstat() returned @status for. */
static gboolean
take_stamp (int                status,
            const struct stat *st,
            RegFileStamp      *stamp,
            GError           **error)
{
  if (status != 0)
    return set_errno_error (error, "cannot be examined: ");

  stamp->dev = st->st_dev;
  stamp->ino = st->st_ino;
  stamp->size = st->st_size;
#if HAVE_STAT_MTIM
  stamp->mtime_ns = (gint64) st->st_mtim.tv_sec * NS_PER_SECOND + st->st_mtim.tv_nsec;
  stamp->ctime_ns = (gint64) st->st_ctim.tv_sec * NS_PER_SECOND + st->st_ctim.tv_nsec;
#else
  /* Whole seconds: a coarse clock. */
  stamp->mtime_ns = (gint64) st->st_mtime * NS_PER_SECOND;
  stamp->ctime_ns = (gint64) st->st_ctime * NS_PER_SECOND;
#endif
  return TRUE;
}

gboolean
_reg_file_stamp_get (const char   *path,
                     RegFileStamp *stamp)
{
  struct stat st;

  return take_stamp (stat (path, &st), &st, stamp, NULL);
}

gboolean
_reg_file_stamp_equal (const RegFileStamp *a,
                       const RegFileStamp *b)
{
  return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
         a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

char *
_reg_file_identity (const char *path)
{
  RegFileStamp stamp;

  if (!_reg_file_stamp_get (path, &stamp))
    return NULL;

  return g_strdup_printf ("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT, stamp.dev, stamp.ino);
}

/* Reads @expected bytes of @fd when that is not 0, else to its end or to
 * @max_size + 1 bytes, whichever comes first.  A @regular file is read
 * from its start (pread()); a short read, the file having shrunk, is what
 * was there. */
static GBytes *
read_contents (int       fd,
               gboolean  regular,
               gsize     max_size,
               gsize     expected,
               GError  **error)
{
  gsize limit = expected > 0 ? expected : max_size + 1;  /* one byte more says "too large" */
  gsize allocated = expected > 0 ? expected : MIN (4096, limit);
  g_autofree char *data = g_malloc (allocated + 1);
  gsize got = 0;

  while (got < limit)
    {
      gsize want;
      gssize n;

      if (got == allocated)
        {
          allocated = allocated <= limit / 2 ? allocated * 2 : limit;
          data = g_realloc (data, allocated + 1);
        }

      want = read_hook != NULL ? MIN (allocated - got, read_hook_chunk) : allocated - got;
      n = regular ? pread (fd, data + got, want, (off_t) got) : read (fd, data + got, want);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          set_errno_error (error, "cannot be read: ");
          return NULL;
        }
      if (n == 0)
        break;
      got += n;

      if (read_hook != NULL)
        read_hook (fd, got, read_hook_data);
    }

  data[got] = '\0';
  return g_bytes_new_take (g_steal_pointer (&data), got);
}

static GBytes *
read_fd (int            fd,
         gboolean       regular_only,
         gsize          max_size,
         const char    *what,
         RegFileStamp  *stamp,
         GError       **error)
{
  RegFileStamp before;
  RegFileStamp after = { 0 };  /* read only for a regular file, which sets it */
  struct stat st;
  gboolean regular;

  g_assert (max_size < G_MAXSIZE - 1);

  if (!take_stamp (fstat (fd, &st), &st, &before, error))
    return NULL;
  regular = S_ISREG (st.st_mode);
  if (regular_only && !regular)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "not a regular file");
      return NULL;
    }

  /* A regular file is refused unread when it says it is too large (a
   * sparse file of gigabytes costs nothing to make), read up to the size
   * it says (whether it grew or shrank meanwhile, its stamp tells, which
   * saves the read() that would find the end), and read again when its
   * stamp changed while it was read (rewritten in place by another
   * process: what was read may be half old, half new).  One that says it
   * is empty (files of /proc do), a pipe or a terminal is read to its end,
   * within bounds. */
  for (guint attempt = 0; attempt < READ_ATTEMPTS; attempt++)
    {
      g_autoptr(GBytes) contents = NULL;

      if (regular && (guint64) before.size > max_size)
        return set_too_large_error (error, before.size, max_size, what);

      contents = read_contents (fd, regular, max_size, regular ? before.size : 0, error);
      if (contents == NULL ||
          (regular && !take_stamp (fstat (fd, &st), &st, &after, error)))
        return NULL;

      if (regular && !_reg_file_stamp_equal (&before, &after))
        {
          before = after;
          continue;
        }

      if (g_bytes_get_size (contents) > max_size)
        return set_too_large_error (error, 0, max_size, what);

      if (stamp != NULL)
        *stamp = before;
      return g_steal_pointer (&contents);
    }

  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_AGAIN,
               "changed each of the %d times it was read", READ_ATTEMPTS);
  return NULL;
}

GBytes *
_reg_file_read_fd (int            fd,
                   gsize          max_size,
                   const char    *what,
                   RegFileStamp  *stamp,
                   GError       **error)
{
  return read_fd (fd, FALSE, max_size, what, stamp, error);
}

GBytes *
_reg_file_read (const char    *path,
                gsize          max_size,
                const char    *what,
                RegFileStamp  *stamp,
                GError       **error)
{
  GBytes *contents;
  int fd;

  /* Without blocking: a FIFO in the file's place would otherwise hang in
   * open() until a writer comes. */
  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);
  if (fd < 0)
    {
      set_errno_error (error, "cannot be opened: ");
      return NULL;
    }

  contents = read_fd (fd, TRUE, max_size, what, stamp, error);
  g_close (fd, NULL);
  return contents;
}
