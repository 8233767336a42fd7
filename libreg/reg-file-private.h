/* reg-file-private.h: reading files that others may write
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Reads the whole file @path into a new NUL-terminated buffer, refusing
 * what cannot be a file of its kind before reading it: a special file (a
 * FIFO would block forever, a device would never end) or more than
 * @max_size bytes.  @what names the kind in the message ("a manifest").
 * The file is read into memory, never mapped: a file that another process
 * rewrites in place meanwhile reads as some mix of old and new bytes, which
 * the caller's checks refuse, instead of changing under the caller.  Fails
 * with a G_FILE_ERROR whose message says what was wrong, without the path
 * (the caller names the file). */
gboolean _reg_file_read_bounded (const char  *path,
                                 gsize        max_size,
                                 const char  *what,
                                 char       **contents,
                                 gsize       *length,
                                 GError     **error);

G_END_DECLS
