/* reg-file.c: reading files that others may write
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "reg-file-private.h"

gboolean
_reg_file_read_bounded (const char  *path,
                        gsize        max_size,
                        const char  *what,
                        char       **contents,
                        gsize       *length,
                        GError     **error)
{
  g_autofree char *data = NULL;
  GStatBuf st;
  gsize size, got = 0;
  gboolean to_end;
  int fd, saved_errno;

  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);
  if (fd < 0)
    {
      saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "cannot be opened: %s", g_strerror (saved_errno));
      return FALSE;
    }

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "not a regular file");
      close (fd);
      return FALSE;
    }

  if ((guint64) st.st_size > max_size)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "%" G_GINT64_FORMAT " bytes, larger than the %" G_GSIZE_FORMAT
                   " bytes %s may have",
                   (gint64) st.st_size, max_size, what);
      close (fd);
      return FALSE;
    }

  /* The file is read up to the size it states (a file rewritten meanwhile
   * reads as a prefix of the new text, as with g_file_get_contents()),
   * which saves the read() that would find the end.  A file that states 0
   * bytes may still have contents (files of /proc do): that one is read to
   * its end, within bounds. */
  size = (gsize) st.st_size;
  to_end = size == 0;
  data = g_malloc (size + 1);
  for (;;)
    {
      gssize n;

      if (got == size)
        {
          if (!to_end || size > max_size)
            break;
          size = MIN (size * 2 + 64, max_size + 1);
          data = g_realloc (data, size + 1);
        }

      n = read (fd, data + got, size - got);
      if (n == 0)
        break;
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          saved_errno = errno;
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                       "cannot be read: %s", g_strerror (saved_errno));
          close (fd);
          return FALSE;
        }
      got += n;
    }
  close (fd);

  if (got > max_size)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "larger than the %" G_GSIZE_FORMAT " bytes %s may have", max_size, what);
      return FALSE;
    }

  data[got] = '\0';
  *contents = g_steal_pointer (&data);
  *length = got;
  return TRUE;
}
