/* reg-file.c: reading files that others may change
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "reg-file-private.h"

/* A file that changes every time it is read is given up on after this. */
#define READ_ATTEMPTS 3

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

#define NS_PER_SECOND G_GINT64_CONSTANT (1000000000)

void
_reg_file_stamp_from_stat (const struct stat *st,
                           RegFileStamp      *stamp)
{
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
}

gboolean
_reg_file_stamp_get (const char    *path,
                     RegFileStamp  *stamp,
                     GError       **error)
{
  struct stat st;

  if (stat (path, &st) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "%s", g_strerror (saved_errno));
      return FALSE;
    }

  _reg_file_stamp_from_stat (&st, stamp);
  return TRUE;
}

gboolean
_reg_file_stamp_equal (const RegFileStamp *a,
                       const RegFileStamp *b)
{
  return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
         a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

gboolean
_reg_file_stamp_same_file (const RegFileStamp *a,
                           const RegFileStamp *b)
{
  return a->dev == b->dev && a->ino == b->ino;
}

char *
_reg_file_stamp_identity (const RegFileStamp *stamp)
{
  return g_strdup_printf ("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT, stamp->dev, stamp->ino);
}

char *
_reg_file_identity (const char *path)
{
  RegFileStamp stamp;
  struct stat st;

  if (stat (path, &st) != 0)
    return NULL;

  _reg_file_stamp_from_stat (&st, &stamp);
  return _reg_file_stamp_identity (&stamp);
}

static gboolean
set_errno_error (GError     **error,
                 int          saved_errno,
                 const char  *doing)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               "cannot be %s: %s", doing, g_strerror (saved_errno));
  return FALSE;
}

static gboolean
set_too_large_error (GError     **error,
                     guint64      size,
                     gboolean     exact,
                     gsize        max_size,
                     const char  *what)
{
  if (exact)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                 "%" G_GUINT64_FORMAT " bytes, larger than the %" G_GSIZE_FORMAT
                 " bytes %s may have", size, max_size, what);
  else
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                 "larger than the %" G_GSIZE_FORMAT " bytes %s may have",
                 max_size, what);
  return FALSE;
}

/* Reads @fd from where it stands: @expected bytes when that is not 0 (a
 * regular file of that size, whose stamp the caller compares afterwards:
 * a file that grew or shrank meanwhile has another size), else to its end
 * or to @max_size + 1 bytes, whichever comes first (a pipe, a file of
 * /proc that says it is empty).  A short read, the file having shrunk, is
 * what was there. */
static gboolean
read_contents (int       fd,
               gsize     max_size,
               gsize     expected,
               char    **contents,
               gsize    *length,
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

      want = allocated - got;
      if (read_hook != NULL)
        want = MIN (want, read_hook_chunk);

      n = read (fd, data + got, want);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return set_errno_error (error, errno, "read");
      if (n == 0)
        break;
      got += n;

      if (read_hook != NULL)
        read_hook (fd, got, read_hook_data);
    }

  data[got] = '\0';
  *contents = g_steal_pointer (&data);
  *length = got;
  return TRUE;
}

static gboolean
stamp_fd (int           fd,
          RegFileStamp *stamp,
          struct stat  *st,
          GError      **error)
{
  if (fstat (fd, st) != 0)
    return set_errno_error (error, errno, "examined");

  _reg_file_stamp_from_stat (st, stamp);
  return TRUE;
}

/* _reg_file_read_fd(), for a descriptor that is at the start of the file
 * when @at_start, whose stat data @st holds when not NULL. */
static GBytes *
read_fd (int                fd,
         gboolean           at_start,
         const struct stat *opened_st,
         gsize              max_size,
         const char        *what,
         RegFileStamp      *stamp,
         GError           **error)
{
  RegFileStamp before, after;
  struct stat st;

  if (opened_st != NULL)
    {
      st = *opened_st;
      _reg_file_stamp_from_stat (&st, &before);
    }
  else if (!stamp_fd (fd, &before, &st, error))
    return NULL;

  /* A pipe or a terminal: read what comes, within bounds. */
  if (!S_ISREG (st.st_mode))
    {
      char *contents;
      gsize length;

      if (!read_contents (fd, max_size, 0, &contents, &length, error))
        return NULL;
      if (length > max_size)
        {
          g_free (contents);
          set_too_large_error (error, 0, FALSE, max_size, what);
          return NULL;
        }
      if (stamp != NULL)
        *stamp = before;
      return g_bytes_new_take (contents, length);
    }

  /* A regular file: refused unread when it says it is too large (a sparse
   * file of gigabytes costs nothing to make), and read again when its
   * stamp changed while it was read (rewritten in place by another
   * process: what was read may be half old, half new). */
  for (guint attempt = 0; attempt < READ_ATTEMPTS; attempt++)
    {
      g_autofree char *contents = NULL;
      gsize length;

      if (before.size < 0 || (guint64) before.size > max_size)
        {
          set_too_large_error (error, before.size, TRUE, max_size, what);
          return NULL;
        }

      /* From the start: a descriptor opened by path is there already. */
      if ((attempt > 0 || !at_start) && lseek (fd, 0, SEEK_SET) != 0)
        {
          set_errno_error (error, errno, "read");
          return NULL;
        }

      /* As many bytes as the file says it has: whether it grew or shrank
       * meanwhile, its stamp tells (the size is part of it), which saves
       * the read() that would find the end. */
      if (!read_contents (fd, max_size, before.size, &contents, &length, error) ||
          !stamp_fd (fd, &after, &st, error))
        return NULL;

      if (!_reg_file_stamp_equal (&before, &after))
        {
          before = after;
          continue;
        }

      /* A file that says it is empty may still have contents (files of
       * /proc do): read to its end, within bounds. */
      if (before.size == 0 && length > max_size)
        {
          set_too_large_error (error, 0, FALSE, max_size, what);
          return NULL;
        }

      if (stamp != NULL)
        *stamp = after;
      return g_bytes_new_take (g_steal_pointer (&contents), length);
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
  g_return_val_if_fail (fd >= 0, NULL);
  g_return_val_if_fail (max_size < G_MAXSIZE - 1, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return read_fd (fd, FALSE, NULL, max_size, what, stamp, error);
}

GBytes *
_reg_file_read (const char    *path,
                gsize          max_size,
                const char    *what,
                RegFileStamp  *stamp,
                GError       **error)
{
  struct stat st;
  GBytes *contents;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (max_size < G_MAXSIZE - 1, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* Without blocking: a FIFO in the file's place would otherwise hang in
   * open() until a writer comes. */
  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);
  if (fd < 0)
    {
      set_errno_error (error, errno, "opened");
      return NULL;
    }

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "not a regular file");
      g_close (fd, NULL);
      return NULL;
    }

  contents = read_fd (fd, TRUE, &st, max_size, what, stamp, error);
  g_close (fd, NULL);

  return contents;
}
