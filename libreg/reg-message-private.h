/* reg-message-private.h: untrusted text in error and warning messages
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Text from files or callers (a graph's name, a manifest line, a lookup's
 * name) may be anything: megabytes long, invalid UTF-8, with line breaks
 * or terminal escapes.  These make it safe to put in a message: bytes that
 * are not UTF-8 as \xNN, control, format and line-separator characters as
 * <U+XXXX>, everything else as written, cut after about @max_len bytes
 * with "..." marking the cut.  @len may be -1 (NUL-terminated). */
char *_reg_text_for_message  (const char *text,
                              gssize      len,
                              gsize       max_len);

/* What every message and log line of libreg (and every line of regctl's
 * text output) puts a string from outside through: a file name, a
 * manifest value, a backend name, a description, a module's message.  The
 * escaping above, cut after REG_MESSAGE_TEXT_MAX bytes.  NULL gives
 * "(null)". */
#define REG_MESSAGE_TEXT_MAX 512

char *_reg_escape            (const char *text);

/* The same, in single quotes, cut to 40 bytes: for a name or a token. */
char *_reg_quote_for_message (const char *text,
                              gssize      len);

/* @message (another error's message, a reason) to go inside a sentence
 * of a message that goes on after it: without the white space and the
 * period that end it, so that the whole reads as one sentence
 * ("REG_DEFAULT_BACKEND is ignored: %s; the default backend is ...").  The
 * dots of a cut ("...") stay.  Every message that embeds another takes it
 * through this. */
char *_reg_message_embed     (const char *message);

/* NULL when @text is one line of visible text (UTF-8 without the
 * characters escaped above), else where it is not, for a message:
 * "U+000A at byte 3", "invalid UTF-8 at byte 0". */
char *_reg_find_invisible    (const char *text);

G_END_DECLS
