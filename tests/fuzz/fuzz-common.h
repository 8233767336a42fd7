/* fuzz-common.h: what every libreg fuzz target checks
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

/* An invariant the target checks: a failure prints what and aborts, which
 * libFuzzer reports as a crash and saves the input. */
#define FUZZ_ASSERT(cond, ...)                                               \
  G_STMT_START {                                                             \
    if (G_UNLIKELY (!(cond)))                                                \
      {                                                                      \
        fprintf (stderr, "%s:%d: invariant '%s' broken: ", __FILE__,          \
                 __LINE__, #cond);                                           \
        fprintf (stderr, __VA_ARGS__);                                       \
        fputc ('\n', stderr);                                                \
        abort ();                                                            \
      }                                                                      \
  } G_STMT_END

/* The longest error message that is still a clear one (as in
 * tests/test-bad-input.c). */
#define FUZZ_MAX_MESSAGE 1024

/* An error message is one line of bounded, valid, visible text: input
 * must not be able to forge log lines, drive a terminal or flood a log
 * through it. */
static inline void
fuzz_check_message (const char *message)
{
  FUZZ_ASSERT (message != NULL, "no message");
  FUZZ_ASSERT (g_utf8_validate (message, -1, NULL), "message not UTF-8");

  FUZZ_ASSERT (strlen (message) <= FUZZ_MAX_MESSAGE, "message of %zu bytes: %.200s...",
               strlen (message), message);
  for (const char *p = message; *p != '\0'; p = g_utf8_next_char (p))
    {
      GUnicodeType type = g_unichar_type (g_utf8_get_char (p));

      FUZZ_ASSERT (type != G_UNICODE_CONTROL && type != G_UNICODE_FORMAT &&
                   type != G_UNICODE_LINE_SEPARATOR && type != G_UNICODE_PARAGRAPH_SEPARATOR,
                   "invisible character U+%04X at byte %d of message: %s",
                   g_utf8_get_char (p), (int) (p - message), message);
    }
}

/* GLib 2.74's g_key_file_parse_value_as_string() sets its GError twice for
 * a value with an invalid escape followed by a backslash at the end of the
 * line (`Description=\q\`), and warns about it ("GError set over the
 * top of a previous GError").  That is GLib's bug, not libreg's: ignored
 * here, reported in docs/reliability.md. */
static inline gboolean
fuzz_is_known_glib_bug (const char *domain,
                        const char *message)
{
  return g_strcmp0 (domain, "GLib") == 0 && message != NULL &&
         strstr (message, "GError set over the top of a previous GError") != NULL &&
         strstr (message, "escape character at end of line") != NULL;
}

static inline GLogWriterOutput
fuzz_log_writer (GLogLevelFlags   level,
                 const GLogField *fields,
                 gsize            n_fields,
                 gpointer         user_data)
{
  const char *domain = NULL;
  const char *message = NULL;

  if (level & (G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_INFO))
    return G_LOG_WRITER_HANDLED;

  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_str_equal (fields[i].key, "GLIB_DOMAIN"))
        domain = fields[i].value;
      else if (g_str_equal (fields[i].key, "MESSAGE"))
        message = fields[i].value;
    }

  if (fuzz_is_known_glib_bug (domain, message))
    return G_LOG_WRITER_HANDLED;

  /* A warning or critical is a bug here (a function called with what the
   * target believes are valid arguments, or libreg complaining about its
   * own state): abort, so that libFuzzer reports it and keeps the input
   * (GLib's own fatal path raises SIGTRAP, which libFuzzer does not
   * catch). */
  fprintf (stderr, "%s: %s\n", domain != NULL ? domain : "(no domain)",
           message != NULL ? message : "(no message)");
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    abort ();

  return G_LOG_WRITER_HANDLED;
}

/* libFuzzer calls this once before the first input: every target routes
 * GLib's log through fuzz_log_writer().  Defined here, in the one header
 * that each target (a program of one source file) includes. */
int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  g_log_set_writer_func (fuzz_log_writer, NULL, NULL);
  return 0;
}
