/* reg-file-private.h: reading files that others may change
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every file libreg and regctl read (manifests, verdict stores, graph
 * files) is read through here: copied into memory by read(), never mapped
 * (a mapped file that another process truncates kills the reader with
 * SIGBUS), bounded in size, refused unread when it is not a regular file
 * (a FIFO would block, a device such as /dev/zero would never end), and
 * read again when it changed while it was read.  This file is compiled
 * into regctl too; it uses GLib only.
 */

#pragma once

#include <sys/stat.h>

#include <glib.h>

G_BEGIN_DECLS

/* What identifies a file (device and inode, not the path it was reached
 * through) and dates its contents: two stamps that are equal say the same
 * file with, as far as the file system can tell, the same contents. */
typedef struct
{
  guint64 dev;
  guint64 ino;
  gint64  size;
  gint64  mtime_ns;
  gint64  ctime_ns;
} RegFileStamp;

/* The stamp of the file @path leads to (symbolic links followed, as
 * dlopen() does); FALSE when it cannot be stat'ed. */
gboolean  _reg_file_stamp_get     (const char         *path,
                                   RegFileStamp       *stamp);
gboolean  _reg_file_stamp_equal   (const RegFileStamp *a,
                                   const RegFileStamp *b);

/* "DEV:INO" of the file @path leads to, or NULL when it cannot be
 * stat'ed: two paths of one file give the same string. */
char     *_reg_file_identity      (const char         *path);

/* Reads the whole of the regular file @path, at most @max_size bytes.
 * Fails with a G_FILE_ERROR whose message says what was wrong but not the
 * file (the caller names it): it cannot be opened, it is not a regular
 * file, it is larger than @max_size ("N bytes, larger than the M bytes
 * @what may have", @what being "a manifest", say), or it kept changing
 * while it was read.  The contents are followed by a NUL byte that is not
 * part of the GBytes.  @stamp (optional) gets the stamp of what was read.
 * Thread-safe. */
GBytes   *_reg_file_read          (const char         *path,
                                   gsize               max_size,
                                   const char         *what,
                                   RegFileStamp       *stamp,
                                   GError            **error);

/* The same for an open file descriptor, which may be a pipe or a terminal
 * (standard input): read to its end, within @max_size.  A regular file is
 * read from its start. */
GBytes   *_reg_file_read_fd       (int                 fd,
                                   gsize               max_size,
                                   const char         *what,
                                   RegFileStamp       *stamp,
                                   GError            **error);

/* For tests, which need a file to change in the middle of a read: with a
 * @hook, the readers above read at most @chunk_size bytes at a time and
 * call @hook after each read with the descriptor and the number of bytes
 * read so far.  %NULL removes it.  Not thread-safe. */
typedef void (*RegFileReadHook) (int      fd,
                                 gsize    offset,
                                 gpointer user_data);

void      _reg_file_set_read_hook (RegFileReadHook     hook,
                                   gsize               chunk_size,
                                   gpointer            user_data);

G_END_DECLS
