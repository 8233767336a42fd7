/* reg-verify.c: checking backends in a process of their own
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The parent's side of a check: it starts the checker (reg-verify-helper,
 * see tools/reg-verify-helper.c) with GSubprocess, with a memory limit and
 * in a process group of its own, reads what it writes (its lines on the
 * standard output, bounded; the end of the standard error), kills the
 * group when the check ends or the timeout passes, and judges.
 *
 * The checker's first line is a handshake, written before it opens the
 * module.  Without it, nothing that happened is about the module (no
 * checker there, another program, one that cannot start under the memory
 * limit): the result is an error of the checker, never a verdict.  After
 * it:
 *
 *   killed by the timeout          timeout
 *   died of a signal               crashed, with the signal's name
 *   exited with any other status   crashed
 *   exited 0 with a verdict line   that verdict
 *   exited 0 without one           crashed
 *
 * A crash or timeout names the stage the checker had reached (loading,
 * compiling or calling, and the graph), and the memory limit only when
 * the failure can come from it.  The timeout counts from the handshake;
 * the checker has as long to reach it.
 *
 * Every line is parsed against its one type and every part of it checked
 * and escaped: the checker runs the module's code, so nothing it writes is
 * trusted beyond that.  The last line of its standard error goes into the
 * reason of a crash or timeout (GLib's "failed to allocate" when the
 * memory limit was hit, for one).
 */

#include "reg-config.h"

#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "reg-environment-private.h"
#include "reg-error.h"
#include "reg-message-private.h"
#include "reg-name-private.h"
#include "reg-verdict-private.h"
#include "reg-verdict-store-private.h"
#include "reg-verify-private.h"

/* Sanitizer runtimes reserve terabytes of address space at start: under
 * them a limit on it would kill the helper before it runs. */
#if defined (__SANITIZE_ADDRESS__) || defined (__SANITIZE_THREAD__)
# define SANITIZED 1
#elif defined (__has_feature)
# if __has_feature (address_sanitizer) || __has_feature (thread_sanitizer) || \
     __has_feature (memory_sanitizer)
#  define SANITIZED 1
# endif
#endif
#ifndef SANITIZED
# define SANITIZED 0
#endif

/* The checker's lines (tools/reg-verify-helper.c) */
#define LINE_VERSION 2
#define LINE_TYPE "(ussas)"
#define OUTPUT_MAX (64 * 1024)
#define STDERR_TAIL 4096
#define READ_CHUNK 4096
#define REASON_MAX 1000
#define OPS_MAX 64

/* After the checker exits, how long its pipes may stay open (a process
 * that left its group holding them) before the reads are given up. */
#define PIPE_GRACE_MS 500

/* Options */

gboolean
_reg_verify_options_parse (GVariant          *options,
                           RegVerifyOptions  *parsed,
                           GError           **error)
{
  GVariantIter iter;
  const char *key;
  GVariant *next;

  parsed->timeout = REG_VERIFY_DEFAULT_TIMEOUT;
  parsed->memory_limit = REG_VERIFY_DEFAULT_MEMORY_LIMIT;
  parsed->store = REG_VERIFY_STORE_USER;

  if (options == NULL)
    return TRUE;

  g_variant_iter_init (&iter, options);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &next))
    {
      g_autoptr(GVariant) value = next;

      if (g_str_equal (key, "timeout") && g_variant_is_of_type (value, G_VARIANT_TYPE_DOUBLE) &&
          g_variant_get_double (value) > 0 && g_variant_get_double (value) <= 24 * 3600)
        parsed->timeout = g_variant_get_double (value);
      else if (g_str_equal (key, "memory-limit") && g_variant_is_of_type (value, G_VARIANT_TYPE_UINT64))
        parsed->memory_limit = g_variant_get_uint64 (value);
      else if (g_str_equal (key, "store") && g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) &&
               g_str_equal (g_variant_get_string (value, NULL), "user"))
        parsed->store = REG_VERIFY_STORE_USER;
      else if (g_str_equal (key, "store") && g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) &&
               g_str_equal (g_variant_get_string (value, NULL), "system"))
        parsed->store = REG_VERIFY_STORE_SYSTEM;
      else if (g_str_equal (key, "store") && g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) &&
               g_str_equal (g_variant_get_string (value, NULL), "none"))
        parsed->store = REG_VERIFY_STORE_NONE;
      else
        {
          g_autofree char *shown = _reg_quote_for_message (key, -1);
          g_autofree char *given = g_variant_print (value, TRUE);
          g_autofree char *shown_value = _reg_text_for_message (given, -1, 80);

          if (g_str_equal (key, "timeout") || g_str_equal (key, "memory-limit") || g_str_equal (key, "store"))
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                         "verify option %s: %s is not valid; expected timeout: a double in (0, 86400], "
                         "memory-limit: a uint64, store: 'user', 'system' or 'none'",
                         shown, shown_value);
          else
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                         "unknown verify option %s; the options are timeout, memory-limit and store",
                         shown);
          return FALSE;
        }
    }

  return TRUE;
}

/* The helper */

static char *
helper_path (void)
{
  const char *path = NULL;

  /* Which program checks modules is not a setuid program's caller's to
   * choose. */
  if (_reg_environment_is_trusted ())
    path = g_getenv ("REG_VERIFY_HELPER");

  return g_strdup (path != NULL && path[0] != '\0' ? path : REG_VERIFY_HELPER);
}

typedef struct
{
  guint64 memory_limit;
} ChildSetup;

/* In the child, between fork() and exec(): async-signal-safe calls only. */
static void
child_setup (gpointer data)
{
  const ChildSetup *setup = data;
  struct rlimit no_core = { 0, 0 };

  /* A group of its own, so that a timeout kills what the module started
   * too; and no core file for every crash a check provokes. */
  setpgid (0, 0);
  setrlimit (RLIMIT_CORE, &no_core);

  if (!SANITIZED && setup->memory_limit > 0)
    {
      struct rlimit limit = { setup->memory_limit, setup->memory_limit };

      setrlimit (RLIMIT_AS, &limit);
    }
}

/* Running */

typedef struct _Run Run;

typedef struct
{
  Run        *run;
  GByteArray *data;
  gboolean    keep_tail;  /* keep the last bytes, not the first */
  gboolean    overflow;
} Pipe;

struct _Run
{
  const char             *name;
  const RegVerifyOptions *options;
  GSubprocess            *process;
  pid_t                   pid;       /* the checker's, and its group's; 0: unknown */
  GMainContext           *context;
  GCancellable           *reads;
  Pipe                    out;
  Pipe                    err;
  guint                   pending;   /* the two reads and the wait */
  gboolean                reached;   /* the handshake came */
  gboolean                timed_out;
  gboolean                cancelled;
  GSource                *timeout;
  GSource                *grace;
};

/* Kills the checker's process group: the checker, while it runs, and
 * whatever the module started in it.  The group's number is the
 * checker's process id; after the checker is reaped it stays the group's
 * while the group has a member (the kernel hands out no process id that
 * is still a group's), and when it has none the kill finds nothing (ids
 * are handed out in turn, not reused at once). */
static void
kill_group (Run *run)
{
  if (run->pid > 0)
    kill (-run->pid, SIGKILL);
  /* The checker itself, should it have no group of its own. */
  g_subprocess_force_exit (run->process);
}

static gboolean on_timeout (gpointer data);

static void
start_timeout (Run *run)
{
  if (run->timeout != NULL)
    {
      g_source_destroy (run->timeout);
      g_source_unref (run->timeout);
    }

  run->timeout = g_timeout_source_new ((guint) MIN (run->options->timeout * 1000, (double) G_MAXUINT));
  g_source_set_callback (run->timeout, on_timeout, run, NULL);
  g_source_attach (run->timeout, run->context);
}

static gboolean parse_handshake (const GByteArray *data,
                                 const char       *name);

static void read_next (Pipe *pipe);

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  Pipe *pipe = data;
  Run *run = pipe->run;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, NULL);
  gsize size;

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      run->pending--;
      return;
    }

  size = g_bytes_get_size (bytes);
  if (pipe->keep_tail)
    {
      g_byte_array_append (pipe->data, g_bytes_get_data (bytes, NULL), size);
      if (pipe->data->len > 2 * STDERR_TAIL)
        g_byte_array_remove_range (pipe->data, 0, pipe->data->len - STDERR_TAIL);
    }
  else if (pipe->data->len + size <= OUTPUT_MAX)
    g_byte_array_append (pipe->data, g_bytes_get_data (bytes, NULL), size);
  else
    pipe->overflow = TRUE;

  /* The backend's time starts when the checker reaches it. */
  if (!pipe->keep_tail && !run->reached && !run->timed_out && parse_handshake (pipe->data, run->name))
    {
      run->reached = TRUE;
      start_timeout (run);
    }

  read_next (pipe);
}

static void
read_next (Pipe *pipe)
{
  GInputStream *stream = pipe->keep_tail ? g_subprocess_get_stderr_pipe (pipe->run->process)
                                         : g_subprocess_get_stdout_pipe (pipe->run->process);

  g_input_stream_read_bytes_async (stream, READ_CHUNK, G_PRIORITY_DEFAULT,
                                   pipe->run->reads, on_read, pipe);
}

static gboolean
on_grace_over (gpointer data)
{
  Run *run = data;

  g_cancellable_cancel (run->reads);
  return G_SOURCE_REMOVE;
}

static void
on_helper_exit (GObject      *source,
                GAsyncResult *result,
                gpointer      data)
{
  Run *run = data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  run->pending--;

  /* At the end of every check, not only on a timeout: a process the
   * module forked must not outlive the check (a setsid() one escapes,
   * see docs/verifying-backends.md). */
  kill_group (run);

  run->grace = g_timeout_source_new (PIPE_GRACE_MS);
  g_source_set_callback (run->grace, on_grace_over, run, NULL);
  g_source_attach (run->grace, run->context);
}

static gboolean
on_timeout (gpointer data)
{
  Run *run = data;

  run->timed_out = TRUE;
  kill_group (run);
  return G_SOURCE_REMOVE;
}

static gboolean
on_cancelled (GCancellable *cancellable,
              gpointer      data)
{
  Run *run = data;

  run->cancelled = TRUE;
  kill_group (run);
  return G_SOURCE_REMOVE;
}

/* Runs the checker to its end; FALSE with an error when it cannot start. */
static gboolean
run_helper (Run                    *run,
            const char * const     *argv,
            GCancellable           *cancellable,
            GError                **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSource) cancel = NULL;
  ChildSetup setup = { run->options->memory_limit };
  const char *identifier;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_stdin_file_path (launcher, "/dev/null");
  /* The checker reads only the directories it is given, and checks
   * nothing before loading: it is the check. */
  g_subprocess_launcher_unsetenv (launcher, "REG_BACKEND_PATH");
  g_subprocess_launcher_setenv (launcher, "REG_BACKEND_SYSTEM_DIR", "", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "REG_VERIFY_MODULES");
  g_subprocess_launcher_set_child_setup (launcher, child_setup, &setup, NULL);

  run->process = g_subprocess_launcher_spawnv (launcher, argv, error);
  if (run->process == NULL)
    return FALSE;
  /* None when it exited and was reaped already: then it had no time to
   * reach a module (which it does after computing the references), and
   * there is no group to kill. */
  identifier = g_subprocess_get_identifier (run->process);
  run->pid = identifier != NULL ? (pid_t) g_ascii_strtoll (identifier, NULL, 10) : 0;

  run->out.run = run->err.run = run;
  run->err.keep_tail = TRUE;
  run->pending = 3;
  read_next (&run->out);
  read_next (&run->err);
  g_subprocess_wait_async (run->process, NULL, on_helper_exit, run);

  start_timeout (run);

  if (cancellable != NULL)
    {
      cancel = g_cancellable_source_new (cancellable);
      g_source_set_callback (cancel, (GSourceFunc) (void (*) (void)) on_cancelled, run, NULL);
      g_source_attach (cancel, run->context);
    }

  while (run->pending > 0)
    g_main_context_iteration (run->context, TRUE);

  g_source_destroy (run->timeout);
  if (cancel != NULL)
    g_source_destroy (cancel);
  if (run->grace != NULL)
    g_source_destroy (run->grace);

  return TRUE;
}

/* What the checker said */

typedef enum {
  STAGE_LOADING,
  STAGE_COMPILING,
  STAGE_CALLING,
  STAGE_DONE,      /* after its verdict */
} Stage;

typedef struct
{
  gboolean        reached;      /* the handshake came */
  Stage           stage;
  char           *graph;        /* escaped; of STAGE_COMPILING and STAGE_CALLING */
  gboolean        near_limit;   /* its address space neared the limit on SIGSEGV */
  gboolean        unreachable;  /* no verdict: it builds on a backend not reached */
  RegVerdictKind  kind;         /* of STAGE_DONE */
  char           *reason;
  char          **ops;
  char           *why;          /* what was wrong with its output, if anything */
} Said;

static void
said_clear (Said *said)
{
  g_clear_pointer (&said->graph, g_free);
  g_clear_pointer (&said->reason, g_free);
  g_clear_pointer (&said->ops, g_strfreev);
  g_clear_pointer (&said->why, g_free);
}

/* Reads one line into @said; FALSE and @said->why when it is not one of
 * those the checker writes, in their order. */
static gboolean
parse_line (const char *line,
            const char *end,
            const char *name,
            Said       *said)
{
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree const char **ops = NULL;
  const char *word, *text;
  guint32 version;

  if (memchr (line, '\0', end - line) != NULL)
    return (said->why = g_strdup ("a NUL byte in its output")), FALSE;

  value = g_variant_parse (G_VARIANT_TYPE (LINE_TYPE), line, end, NULL, &error);
  if (value == NULL)
    return (said->why = _reg_text_for_message (error->message, -1, 200)), FALSE;

  g_variant_get (value, "(u&s&s^a&s)", &version, &word, &text, &ops);
  if (version != LINE_VERSION)
    return (said->why = g_strdup_printf ("a line of version %u, this libreg's is %u", version,
                                         LINE_VERSION)), FALSE;

  if (!said->reached)
    {
      if (!g_str_equal (word, "loading") || !g_str_equal (text, name))
        return (said->why = g_strdup ("no handshake")), FALSE;
      said->reached = TRUE;
      said->stage = STAGE_LOADING;
      return TRUE;
    }

  if (g_str_equal (word, "compiling") || g_str_equal (word, "calling"))
    {
      said->stage = g_str_equal (word, "compiling") ? STAGE_COMPILING : STAGE_CALLING;
      g_free (said->graph);
      said->graph = _reg_text_for_message (text, -1, 200);
      return TRUE;
    }
  if (g_str_equal (word, "near-memory-limit"))
    {
      said->near_limit = TRUE;
      return TRUE;
    }

  if (g_str_equal (word, "unreachable"))
    said->unreachable = TRUE;
  else if (!_reg_verdict_kind_from_nick (word, &said->kind) ||
           said->kind == REG_VERDICT_KIND_CRASHED || said->kind == REG_VERDICT_KIND_TIMEOUT)
    return (said->why = g_strdup ("an unknown word in its output")), FALSE;

  if (g_strv_length ((char **) ops) > OPS_MAX)
    return (said->why = g_strdup ("a verdict with too many operators")), FALSE;
  for (guint i = 0; ops[i] != NULL; i++)
    if (!_reg_name_validate (ops[i], "operator", NULL))
      return (said->why = g_strdup ("a verdict with a bad operator name")), FALSE;

  said->stage = STAGE_DONE;
  said->reason = !said->unreachable && said->kind == REG_VERDICT_KIND_OK ? NULL
               : _reg_text_for_message (text[0] != '\0' ? text : "(no reason given)", -1, REASON_MAX);
  said->ops = g_strdupv ((char **) ops);
  return TRUE;
}

/* Reads the checker's output up to its verdict (later lines are not its
 * own) or the first line that is wrong; an unfinished last line is not
 * read. */
static void
parse_output (const GByteArray *data,
              gboolean          overflow,
              const char       *name,
              Said             *said)
{
  const char *text = (const char *) data->data;
  const char *end = text + data->len;
  const char *line = text;

  while (said->stage != STAGE_DONE && line < end)
    {
      const char *newline = memchr (line, '\n', end - line);

      if (newline == NULL)
        break;
      if (!parse_line (line, newline, name, said))
        return;
      line = newline + 1;
    }

  if (said->stage == STAGE_DONE)
    return;
  if (overflow)
    said->why = g_strdup ("its output was longer than a check's");
  else if (said->reached)
    said->why = g_strdup ("no verdict");
  else
    said->why = g_strdup (data->len == 0 ? "no handshake: no output" : "no handshake");
}

static gboolean
parse_handshake (const GByteArray *data,
                 const char       *name)
{
  Said said = { FALSE, };
  const char *text = (const char *) data->data;
  const char *newline = memchr (text, '\n', data->len);

  if (newline != NULL)
    parse_line (text, newline, name, &said);
  said_clear (&said);

  return said.reached;
}

/* Judging */

/* The last line of the checker's standard error with something on it,
 * escaped, or NULL. */
static char *
last_message (GByteArray *err)
{
  const char *text = (const char *) err->data;
  gsize end = err->len;

  while (end > 0 && g_ascii_isspace (text[end - 1]))
    end--;
  if (end == 0)
    return NULL;

  for (gsize start = end; start > 0; start--)
    if (text[start - 1] == '\n')
      return _reg_text_for_message (text + start, end - start, 200);

  return _reg_text_for_message (text, end, 200);
}

/* The name of a signal that ends a checker, "SIGSEGV (Segmentation
 * fault)": from the C library where it has sigabbrev_np(), else from the
 * signals POSIX names, else the number. */
static char *
signal_name (int signum)
{
  static const struct { int number; const char *name; } posix[] = {
    { SIGABRT, "ABRT" }, { SIGALRM, "ALRM" }, { SIGBUS, "BUS" }, { SIGFPE, "FPE" },
    { SIGHUP, "HUP" }, { SIGILL, "ILL" }, { SIGINT, "INT" }, { SIGKILL, "KILL" },
    { SIGPIPE, "PIPE" }, { SIGQUIT, "QUIT" }, { SIGSEGV, "SEGV" }, { SIGSYS, "SYS" },
    { SIGTERM, "TERM" }, { SIGTRAP, "TRAP" }, { SIGXCPU, "XCPU" }, { SIGXFSZ, "XFSZ" },
  };
  const char *abbrev = NULL;

#if HAVE_SIGABBREV_NP
  abbrev = sigabbrev_np (signum);
#endif
  for (gsize i = 0; abbrev == NULL && i < G_N_ELEMENTS (posix); i++)
    if (posix[i].number == signum)
      abbrev = posix[i].name;

  if (abbrev != NULL)
    return g_strdup_printf ("SIG%s (%s)", abbrev, g_strsignal (signum));

  return g_strdup_printf ("%d (%s)", signum, g_strsignal (signum));
}

/* How the checker ended, "killed by signal SIGSEGV (Segmentation
 * fault)", when it was not by the timeout. */
static char *
how_it_ended (Run *run)
{
  if (g_subprocess_get_if_signaled (run->process))
    {
      g_autofree char *signal = signal_name (g_subprocess_get_term_sig (run->process));

      return g_strdup_printf ("killed by signal %s", signal);
    }

  return g_strdup_printf ("exited with status %d", g_subprocess_get_exit_status (run->process));
}

/* " while compiling graph 'op/add'" */
static char *
stage_text (const Said *said)
{
  switch (said->stage)
    {
    case STAGE_LOADING:
      return g_strdup (" while loading the module");
    case STAGE_COMPILING:
      return g_strdup_printf (" while compiling graph '%s'", said->graph);
    case STAGE_CALLING:
      return g_strdup_printf (" while calling graph '%s'", said->graph);
    case STAGE_DONE:
      return g_strdup (" after its verdict");
    default:
      g_assert_not_reached ();
    }
}

/* Whether the memory limit applied and may be why the checker died: an
 * allocation or a mapping failed (the words of GLib, C++, the C library
 * and the dynamic linker in its last message), it was killed with
 * SIGKILL (not by the timeout), or it died of SIGSEGV with its address
 * space near the limit. */
static gboolean
limit_may_be_why (Run        *run,
                  const Said *said,
                  const char *message)
{
  static const char * const allocation_failed[] = {
    "failed to allocate", "bad_alloc", "Cannot allocate memory", "failed to map",
  };
  int signum = g_subprocess_get_if_signaled (run->process) ? g_subprocess_get_term_sig (run->process) : 0;

  if (SANITIZED || run->options->memory_limit == 0 || run->timed_out)
    return FALSE;

  for (gsize i = 0; message != NULL && i < G_N_ELEMENTS (allocation_failed); i++)
    if (strstr (message, allocation_failed[i]) != NULL)
      return TRUE;

  return signum == SIGKILL || (signum == SIGSEGV && said->near_limit);
}

/* " (memory limit 4096 MiB)" */
static char *
memory_limit_text (const RegVerifyOptions *options)
{
  return g_strdup_printf (" (memory limit %" G_GUINT64_FORMAT " MiB)", options->memory_limit >> 20);
}

/* The verdict, or NULL with an error when there is none: the checker did
 * not reach the module, the check was cancelled, or the backend builds on
 * one that could not be reached. */
static RegVerdict *
judge (Run         *run,
       const char  *helper,
       const char  *module_path,
       gint64       time_us,
       GError     **error)
{
  const RegVerifyOptions *options = run->options;
  g_autofree char *message = last_message (run->err.data);
  g_autofree char *said_last = message != NULL ? g_strdup_printf ("; its last message: '%s'", message)
                                               : g_strdup ("");
  gboolean ended_badly = run->timed_out || g_subprocess_get_if_signaled (run->process) ||
                         g_subprocess_get_exit_status (run->process) != 0;
  RegVerdict *verdict = NULL;
  Said said = { FALSE, };

  parse_output (run->out.data, run->out.overflow, run->name, &said);

  if (run->cancelled)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "The check of backend '%s' was cancelled",
                 run->name);
  else if (!said.reached)
    {
      g_autofree char *ended = run->timed_out ? g_strdup_printf ("no answer after %g s", options->timeout)
                                              : how_it_ended (run);
      gboolean limit = limit_may_be_why (run, &said, message);
      g_autofree char *limit_text = limit ? memory_limit_text (options) : g_strdup ("");

      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                   "The checker %s ended before it reached the module of backend '%s': %s%s (%s)%s. "
                   "%s libreg's reg-verify-helper with REG_VERIFY_HELPER.",
                   helper, run->name, ended, limit_text, said.why, said_last,
                   limit ? "Raise the memory limit, or name" : "Name");
    }
  else if (!ended_badly && said.stage == STAGE_DONE && said.unreachable)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 "backend '%s' cannot be checked: it builds on a backend that the checker could not "
                 "reach through the search path: %s. Nothing is recorded; make that backend reachable "
                 "and check again.", run->name, said.reason);
  else
    {
      g_autofree char *stage = stage_text (&said);
      g_autofree char *limit = limit_may_be_why (run, &said, message) ? memory_limit_text (options)
                                                                      : g_strdup ("");
      g_autofree char *reason = NULL;
      RegVerdictKind kind = REG_VERDICT_KIND_CRASHED;

      if (run->timed_out)
        {
          kind = REG_VERDICT_KIND_TIMEOUT;
          reason = g_strdup_printf ("no result after %g s%s, killed%s", options->timeout, stage, said_last);
        }
      else if (ended_badly)
        {
          g_autofree char *ended = how_it_ended (run);

          reason = g_strdup_printf ("%s%s%s%s", ended, stage, limit, said_last);
        }
      else if (said.stage != STAGE_DONE)
        reason = g_strdup_printf ("exited without a verdict%s: %s%s%s", stage, said.why, limit, said_last);
      else
        {
          kind = said.kind;
          reason = g_steal_pointer (&said.reason);
        }

      verdict = _reg_verdict_new (run->name, module_path, kind, reason, (const char * const *) said.ops,
                                  time_us);
    }

  said_clear (&said);
  return verdict;
}

/* Runs the check; NULL with an error when there is no verdict. */
static RegVerdict *
check (const char * const      *search_path,
       const char              *name,
       const char              *module_path,
       const char              *dir,
       const RegVerifyOptions  *options,
       GCancellable            *cancellable,
       GError                 **error)
{
  g_autofree char *helper = helper_path ();
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) local_error = NULL;
  RegVerdict *verdict = NULL;
  gint64 time = g_get_real_time ();
  Run run = { name, options, NULL, };

  g_ptr_array_add (argv, helper);
  g_ptr_array_add (argv, (char *) "--dir");
  g_ptr_array_add (argv, (char *) dir);
  g_ptr_array_add (argv, (char *) "--module");
  g_ptr_array_add (argv, (char *) module_path);
  for (guint i = 0; search_path[i] != NULL; i++)
    {
      g_ptr_array_add (argv, (char *) "--path");
      g_ptr_array_add (argv, (char *) search_path[i]);
    }
  g_ptr_array_add (argv, (char *) "--");
  g_ptr_array_add (argv, (char *) name);
  g_ptr_array_add (argv, NULL);

  run.context = g_main_context_new ();
  run.reads = g_cancellable_new ();
  run.out.data = g_byte_array_new ();
  run.err.data = g_byte_array_new ();

  g_main_context_push_thread_default (run.context);
  if (!run_helper (&run, (const char * const *) argv->pdata, cancellable, &local_error))
    {
      g_autofree char *why = _reg_message_embed (local_error->message);

      g_set_error (error, local_error->domain, local_error->code,
                   "The checker %s cannot be started: %s. Install it, or name another one with "
                   "REG_VERIFY_HELPER.",
                   helper, why);
    }
  else
    verdict = judge (&run, helper, module_path, time, error);
  g_main_context_pop_thread_default (run.context);

  g_clear_object (&run.process);
  g_clear_object (&run.reads);
  g_byte_array_unref (run.out.data);
  g_byte_array_unref (run.err.data);
  g_clear_pointer (&run.timeout, g_source_unref);
  g_clear_pointer (&run.grace, g_source_unref);
  /* Drops what the finished operations left queued on the context. */
  while (g_main_context_iteration (run.context, FALSE))
    ;
  g_main_context_unref (run.context);

  return verdict;
}

/* Checks, then records the verdict in the store @options ask for; when
 * it cannot be recorded the verdict says why
 * (reg_verdict_get_store_error()). */
RegVerdict *
_reg_verify_run (const char * const      *search_path,
                 const char              *name,
                 const char              *module_path,
                 const char              *dir,
                 const RegVerifyOptions  *options,
                 GCancellable            *cancellable,
                 GError                 **error)
{
  g_autofree char *store = NULL;
  g_autoptr(GError) store_error = NULL;
  RegFileStamp before, after;
  gboolean have_before = _reg_file_stamp_get (module_path, &before, NULL);
  RegVerdict *verdict = check (search_path, name, module_path, dir, options, cancellable, error);

  if (verdict == NULL || options->store == REG_VERIFY_STORE_NONE || !have_before)
    return verdict;

  store = options->store == REG_VERIFY_STORE_SYSTEM ? _reg_verdict_store_path_beside (module_path)
                                                    : _reg_verdict_store_user_path ();
  if (!_reg_file_stamp_get (module_path, &after, NULL) || !_reg_file_stamp_equal (&before, &after))
    {
      g_autofree char *shown = _reg_text_for_message (module_path, -1, 4096);

      g_set_error (&store_error, G_FILE_ERROR, G_FILE_ERROR_AGAIN,
                   "The module %s changed while backend '%s' was checked: the verdict is about a "
                   "file that is gone, and is not recorded. Check it again.", shown, name);
    }
  else if (store == NULL)
    g_set_error (&store_error, G_FILE_ERROR, G_FILE_ERROR_PERM,
                 "A setuid or setgid program has no per-user verdict store: the verdict of backend "
                 "'%s' is not recorded. Record it beside the module (store \"system\").", name);
  else
    _reg_verdict_store_record (store, verdict, &before, &store_error);

  if (store_error != NULL)
    _reg_verdict_take_store_error (verdict, g_steal_pointer (&store_error));

  return verdict;
}

RegVerdict *
_reg_verify_dup_verdict (const char *name,
                         const char *module_path)
{
  g_autoptr(GPtrArray) verdicts = NULL;
  RegVerdict *verdict;
  RegFileStamp id;

  if (!_reg_file_stamp_get (module_path, &id, NULL))
    return NULL;

  verdicts = _reg_verdict_store_find (module_path, &id);
  verdict = _reg_verdict_store_pick (verdicts, NULL, TRUE);
  if (verdict == NULL)
    verdict = _reg_verdict_store_pick (verdicts, name, FALSE);

  return verdict != NULL ? g_object_ref (verdict) : NULL;
}

/* Before loading */

static void
set_quarantined_error (GError     **error,
                       const char  *name,
                       const char  *module_path,
                       const char  *manifest_path,
                       RegVerdict  *verdict)
{
  g_autoptr(GDateTime) when = g_date_time_new_from_unix_utc (reg_verdict_get_time (verdict));
  g_autofree char *date = when != NULL ? g_date_time_format (when, "%Y-%m-%d %H:%M:%S UTC") : g_strdup ("?");
  g_autofree char *manifest = _reg_text_for_message (manifest_path, -1, 4096);
  g_autofree char *module = _reg_text_for_message (module_path, -1, 4096);
  const char *reason = reg_verdict_get_reason (verdict);
  g_autofree char *why = _reg_message_embed (reason != NULL ? reason : "no reason recorded");

  g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
               "backend '%s' (declared by %s): module %s is quarantined: when backend '%s' was "
               "checked on %s, %s: %s. The module is not opened until the file changes; "
               "run `regctl verify %s` to check it again.",
               name, manifest, module, reg_verdict_get_backend_name (verdict), date,
               reg_verdict_get_kind (verdict) == REG_VERDICT_KIND_TIMEOUT ? "it timed out" : "it crashed",
               why, reg_verdict_get_backend_name (verdict));
}

gboolean
_reg_verify_before_load (gboolean            check_first,
                         const char * const *search_path,
                         const char         *name,
                         const char       *module_path,
                         const char       *manifest_path,
                         const char       *dir,
                         GPtrArray        *names,
                         GError          **error)
{
  g_autoptr(GPtrArray) verdicts = NULL;
  g_autoptr(RegVerdict) fresh = NULL;
  RegVerdict *blocking;
  RegFileStamp id;

  /* A file that cannot be stat'ed cannot be opened either: the load
   * reports that. */
  if (!_reg_file_stamp_get (module_path, &id, NULL))
    return TRUE;

  verdicts = _reg_verdict_store_find (module_path, &id);
  blocking = _reg_verdict_store_pick (verdicts, NULL, TRUE);

  for (guint i = 0; blocking == NULL && check_first && i < names->len; i++)
    {
      const char *wanted = g_ptr_array_index (names, i);
      g_autoptr(GError) local_error = NULL;
      RegVerifyOptions options;

      if (_reg_verdict_store_pick (verdicts, wanted, FALSE) != NULL)
        continue;

      _reg_verify_options_parse (NULL, &options, NULL);
      fresh = _reg_verify_run (search_path, wanted, module_path, dir, &options, NULL, &local_error);
      if (fresh != NULL && reg_verdict_get_store_error (fresh) != NULL)
        g_debug ("backend '%s' checked before loading: %s", wanted,
                 reg_verdict_get_store_error (fresh)->message);
      if (fresh == NULL && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          /* It ran without crashing or hanging; what it builds on is
           * missing here as in the checker, which its compiles say. */
          g_debug ("%s", local_error->message);
          continue;
        }
      if (fresh == NULL)
        {
          g_autofree char *manifest = _reg_text_for_message (manifest_path, -1, 4096);
          g_autofree char *module = _reg_text_for_message (module_path, -1, 4096);
          g_autofree char *why = _reg_message_embed (local_error->message);

          g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                       "backend '%s' (declared by %s): module %s is to be checked before it is "
                       "loaded, and the check could not run: %s. Install libreg's checker, or "
                       "turn the checks off (REG_VERIFY_MODULES, reg_registry_set_module_checks()).",
                       name, manifest, module, why);
          return FALSE;
        }
      if (reg_verdict_get_quarantines (fresh))
        blocking = fresh;
      else
        g_clear_object (&fresh);
    }

  if (blocking == NULL)
    return TRUE;

  set_quarantined_error (error, name, module_path, manifest_path, blocking);
  return FALSE;
}
