/* reg-verify.c: checking backends in a process of their own
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The parent's side of a check (docs/verifying-backends.md; the checker's
 * lines are described in tools/reg-verify-helper.c).  Its first line is a
 * handshake, written before it opens the module: without it nothing that
 * happened is about the module, and the result is an error of the
 * checker, never a verdict.  The checker runs the module's code, so every
 * line is parsed against its one type and every part checked and escaped.
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
#include "reg-verify-private.h"

/* Sanitizer runtimes reserve terabytes of address space at start: under
 * them a limit on it would kill the checker before it runs. */
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

#define LINE_VERSION 2
#define LINE_TYPE "(ussas)"
#define OUTPUT_MAX (64 * 1024)
#define STDERR_TAIL 4096
#define REASON_MAX 1000
#define OPS_MAX 64

/* After the checker exits, how long its pipes may stay open (a process
 * that left its group holding them) before the reads are given up. */
#define PIPE_GRACE_MS 500

gboolean
_reg_verify_options_parse (GVariant          *options,
                           RegVerifyOptions  *parsed,
                           GError           **error)
{
  static const char * const keys[] = { "timeout", "memory-limit", "store", NULL };
  static const char * const stores[] = { "user", "system", "none", NULL };  /* RegVerifyStore */
  GVariantIter iter;
  const char *key;
  GVariant *next;

  /* The defaults, those of docs/verifying-backends.md */
  *parsed = (RegVerifyOptions) { 20.0, G_GUINT64_CONSTANT (4) << 30, REG_VERIFY_STORE_USER };
  if (options == NULL)
    return TRUE;

  g_variant_iter_init (&iter, options);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &next))
    {
      g_autoptr(GVariant) value = next;
      g_autofree char *shown = _reg_quote_for_message (key, -1);
      g_autofree char *given = g_variant_print (value, TRUE);
      g_autofree char *shown_value = _reg_text_for_message (given, -1, 80);
      gboolean valid = FALSE;

      if (g_str_equal (key, "timeout") && g_variant_is_of_type (value, G_VARIANT_TYPE_DOUBLE))
        {
          parsed->timeout = g_variant_get_double (value);
          valid = parsed->timeout > 0 && parsed->timeout <= 24 * 3600;
        }
      else if (g_str_equal (key, "memory-limit") && g_variant_is_of_type (value, G_VARIANT_TYPE_UINT64))
        {
          parsed->memory_limit = g_variant_get_uint64 (value);
          valid = TRUE;
        }
      else if (g_str_equal (key, "store") && g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
        for (guint i = 0; stores[i] != NULL && !valid; i++)
          if ((valid = g_str_equal (g_variant_get_string (value, NULL), stores[i])))
            parsed->store = i;

      if (!g_strv_contains (keys, key))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                     "unknown verify option %s; the options are timeout, memory-limit and store", shown);
      else if (!valid)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                     "verify option %s: %s is not valid; expected timeout: a double in (0, 86400], "
                     "memory-limit: a uint64, store: 'user', 'system' or 'none'", shown, shown_value);
      if (!valid)
        return FALSE;
    }

  return TRUE;
}

/* What the checker said */

typedef struct
{
  gboolean        reached;      /* the handshake came */
  gboolean        done;         /* the verdict came */
  char           *where;        /* " while compiling graph 'op/add'", once reached */
  gboolean        near_limit;   /* its address space neared the limit on SIGSEGV */
  gboolean        unreachable;  /* no verdict: it builds on a backend not reached */
  RegVerdictKind  kind;
  char           *reason;
  char          **ops;
  char           *why;          /* what was wrong with its output, if anything */
} Said;

static void
said_clear (Said *said)
{
  g_clear_pointer (&said->where, g_free);
  g_clear_pointer (&said->reason, g_free);
  g_clear_pointer (&said->ops, g_strfreev);
  g_clear_pointer (&said->why, g_free);
}

/* Reads one line into @said; else says why it is not one of those the
 * checker writes, in their order. */
static char *
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
    return g_strdup ("a NUL byte in its output");
  value = g_variant_parse (G_VARIANT_TYPE (LINE_TYPE), line, end, NULL, &error);
  if (value == NULL)
    return _reg_text_for_message (error->message, -1, 200);
  g_variant_get (value, "(u&s&s^a&s)", &version, &word, &text, &ops);
  if (version != LINE_VERSION)
    return g_strdup_printf ("a line of version %u, this libreg's is %u", version, LINE_VERSION);

  if (!said->reached)
    {
      if (!g_str_equal (word, "loading") || !g_str_equal (text, name))
        return g_strdup ("no handshake");
      said->reached = TRUE;
      said->where = g_strdup (" while loading the module");
      return NULL;
    }
  if (g_str_equal (word, "compiling") || g_str_equal (word, "calling"))
    {
      g_autofree char *graph = _reg_text_for_message (text, -1, 200);

      g_free (said->where);
      said->where = g_strdup_printf (" while %s graph '%s'", word, graph);
      return NULL;
    }
  if (g_str_equal (word, "near-memory-limit"))
    {
      said->near_limit = TRUE;
      return NULL;
    }

  if (g_str_equal (word, "unreachable"))
    said->unreachable = TRUE;
  else if (!_reg_verdict_kind_from_nick (word, &said->kind) ||
           said->kind == REG_VERDICT_KIND_CRASHED || said->kind == REG_VERDICT_KIND_TIMEOUT)
    return g_strdup ("an unknown word in its output");
  if (g_strv_length ((char **) ops) > OPS_MAX)
    return g_strdup ("a verdict with too many operators");
  for (guint i = 0; ops[i] != NULL; i++)
    if (!_reg_name_validate (ops[i], "operator", NULL))
      return g_strdup ("a verdict with a bad operator name");

  said->done = TRUE;
  g_free (said->where);
  said->where = g_strdup (" after its verdict");
  if (said->unreachable || said->kind != REG_VERDICT_KIND_OK)
    said->reason = _reg_text_for_message (text[0] != '\0' ? text : "(no reason given)", -1, REASON_MAX);
  said->ops = g_strdupv ((char **) ops);
  return NULL;
}

/* Reads @data up to the verdict (later lines are not the checker's) or the
 * first line that is wrong; an unfinished last line is not read. */
static void
parse_output (const GByteArray *data,
              gboolean          overflow,
              const char       *name,
              Said             *said)
{
  const char *line = (const char *) data->data, *end = line + data->len, *newline;

  while (!said->done && said->why == NULL && line < end &&
         (newline = memchr (line, '\n', end - line)) != NULL)
    {
      said->why = parse_line (line, newline, name, said);
      line = newline + 1;
    }

  if (said->done || said->why != NULL)
    return;
  said->why = g_strdup (overflow ? "its output was longer than a check's"
                        : said->reached ? "no verdict"
                        : data->len == 0 ? "no handshake: no output" : "no handshake");
}

/* Running */

/* In the child, between fork() and exec(): async-signal-safe calls only.
 * A group of its own, so that killing it kills what the module started
 * too; and no core file for every crash a check provokes. */
static void
child_setup (gpointer data)
{
  const guint64 *memory_limit = data;
  struct rlimit no_core = { 0, 0 }, limit = { *memory_limit, *memory_limit };

  setpgid (0, 0);
  setrlimit (RLIMIT_CORE, &no_core);
  if (!SANITIZED && *memory_limit > 0)
    setrlimit (RLIMIT_AS, &limit);
}

typedef struct _Run Run;

typedef struct
{
  Run          *run;
  GInputStream *stream;
  GByteArray   *data;
  gboolean      keep_tail;  /* keep the last bytes (stderr), not the first */
  gboolean      overflow;
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
  GSource                *cancel;
};

/* Kills the checker's process group.  Its number, the checker's pid, stays
 * the group's after the checker is reaped while the group has a member;
 * with none the kill finds nothing (ids are not reused at once). */
static void
kill_group (Run *run)
{
  if (run->pid > 0)
    kill (-run->pid, SIGKILL);
  /* The checker itself, should it have no group of its own. */
  g_subprocess_force_exit (run->process);
}

static void
source_clear (GSource **source)
{
  if (*source != NULL)
    g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}

static GSource *
source_attach (GSource     *source,
               GSourceFunc  func,
               Run         *run)
{
  g_source_set_callback (source, func, run, NULL);
  g_source_attach (source, run->context);
  return source;
}

/* The timeout or the cancellable kills the checker; the grace after its
 * exit ends the reads. */
static gboolean
on_source (gpointer data)
{
  Run *run = data;
  GSource *source = g_main_current_source ();

  run->timed_out |= source == run->timeout;
  run->cancelled |= source == run->cancel;
  if (source == run->grace)
    g_cancellable_cancel (run->reads);
  else
    kill_group (run);
  return G_SOURCE_REMOVE;
}

static gboolean
on_cancelled (GCancellable *cancellable,
              gpointer      data)
{
  return on_source (data);
}

static void
start_timeout (Run *run)
{
  source_clear (&run->timeout);
  run->timeout = source_attach (g_timeout_source_new ((guint) MIN (run->options->timeout * 1000, G_MAXUINT)),
                                on_source, run);
}

static void read_next (Pipe *pipe);

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  Pipe *pipe = data;
  Run *run = pipe->run;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, NULL);
  gsize size = bytes != NULL ? g_bytes_get_size (bytes) : 0;

  if (size == 0)
    {
      run->pending--;
      return;
    }

  if (pipe->keep_tail || pipe->data->len + size <= OUTPUT_MAX)
    g_byte_array_append (pipe->data, g_bytes_get_data (bytes, NULL), size);
  else
    pipe->overflow = TRUE;
  if (pipe->keep_tail && pipe->data->len > 2 * STDERR_TAIL)
    g_byte_array_remove_range (pipe->data, 0, pipe->data->len - STDERR_TAIL);

  /* The backend's time starts when the checker reaches it. */
  if (!pipe->keep_tail && !run->reached && !run->timed_out)
    {
      Said said = { FALSE, };

      parse_output (pipe->data, FALSE, run->name, &said);
      if ((run->reached = said.reached))
        start_timeout (run);
      said_clear (&said);
    }

  read_next (pipe);
}

static void
read_next (Pipe *pipe)
{
  g_input_stream_read_bytes_async (pipe->stream, 4096, G_PRIORITY_DEFAULT, pipe->run->reads, on_read, pipe);
}

static void
on_checker_exit (GObject      *source,
                 GAsyncResult *result,
                 gpointer      data)
{
  Run *run = data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  run->pending--;

  /* At the end of every check, not only on a timeout: a process the
   * module forked must not outlive the check. */
  kill_group (run);
  run->grace = source_attach (g_timeout_source_new (PIPE_GRACE_MS), on_source, run);
}

/* Judging */

/* The last line of @err with something on it, escaped, or NULL. */
static char *
last_message (GByteArray *err)
{
  const char *text = (const char *) err->data;
  gsize end = err->len, start;

  while (end > 0 && g_ascii_isspace (text[end - 1]))
    end--;
  for (start = end; start > 0 && text[start - 1] != '\n'; start--)
    ;

  return end > 0 ? _reg_text_for_message (text + start, end - start, 200) : NULL;
}

/* "killed by signal SIGSEGV (Segmentation fault)", with the name of the C
 * library's sigabbrev_np() where there is one, else of POSIX. */
static char *
killed_by (int signum)
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
    return g_strdup_printf ("killed by signal SIG%s (%s)", abbrev, g_strsignal (signum));
  return g_strdup_printf ("killed by signal %d (%s)", signum, g_strsignal (signum));
}

/* Whether the memory limit applied and may be why the checker died (the
 * rule of docs/verifying-backends.md).  The words are those of GLib, C++,
 * the C library and the dynamic linker. */
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

/* The verdict, or NULL with an error when there is none. */
static RegVerdict *
judge (Run                *run,
       const char         *helper,
       const char         *module_path,
       const RegFileStamp *stamp,
       gint64              time_us,
       GError            **error)
{
  const RegVerifyOptions *options = run->options;
  g_autofree char *message = last_message (run->err.data);
  g_autofree char *said_last = message != NULL ? g_strdup_printf ("; its last message: '%s'", message)
                                               : g_strdup ("");
  g_autofree char *ended = NULL;
  g_autofree char *limit = NULL;
  g_autofree char *reason = NULL;
  gboolean signaled = g_subprocess_get_if_signaled (run->process);
  gboolean ended_badly = run->timed_out || signaled || g_subprocess_get_exit_status (run->process) != 0;
  RegVerdictKind kind = run->timed_out ? REG_VERDICT_KIND_TIMEOUT : REG_VERDICT_KIND_CRASHED;
  RegVerdict *verdict = NULL;
  Said said = { FALSE, };

  parse_output (run->out.data, run->out.overflow, run->name, &said);

  if (run->timed_out)
    ended = g_strdup_printf ("no %s after %g s", said.reached ? "result" : "answer", options->timeout);
  else if (signaled)
    ended = killed_by (g_subprocess_get_term_sig (run->process));
  else
    ended = g_strdup_printf ("exited with status %d", g_subprocess_get_exit_status (run->process));
  limit = limit_may_be_why (run, &said, message)
    ? g_strdup_printf (" (memory limit %" G_GUINT64_FORMAT " MiB)", options->memory_limit >> 20)
    : g_strdup ("");

  if (run->cancelled)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "The check of backend '%s' was cancelled",
                 run->name);
  else if (!said.reached)
    g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                 "The checker %s ended before it reached the module of backend '%s': %s%s (%s)%s. "
                 "%s libreg's reg-verify-helper with REG_VERIFY_HELPER.",
                 helper, run->name, ended, limit, said.why, said_last,
                 limit[0] != '\0' ? "Raise the memory limit, or name" : "Name");
  else if (!ended_badly && said.done && said.unreachable)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 "backend '%s' cannot be checked: it builds on a backend that the checker could not "
                 "reach through the search path: %s. Nothing is recorded; make that backend reachable "
                 "and check again.", run->name, said.reason);
  else
    {
      if (!ended_badly && said.done)
        {
          kind = said.kind;
          reason = g_steal_pointer (&said.reason);
        }
      else if (!ended_badly)
        reason = g_strdup_printf ("exited without a verdict%s: %s%s%s", said.where, said.why, limit,
                                  said_last);
      else
        reason = g_strdup_printf ("%s%s%s%s%s", ended, said.where, run->timed_out ? ", killed" : "", limit,
                                  said_last);
      verdict = _reg_verdict_new (run->name, module_path, kind, reason, (const char * const *) said.ops,
                                  time_us, stamp);
    }

  said_clear (&said);
  return verdict;
}

RegVerdict *
_reg_verify_run (const char * const      *search_path,
                 const char              *name,
                 const char              *module_path,
                 const char              *verdict_path,
                 const char              *dir,
                 const RegVerifyOptions  *options,
                 GCancellable            *cancellable,
                 GError                 **error)
{
  /* Which program checks modules is not a setuid program's caller's to
   * choose. */
  const char *chosen = _reg_environment_is_trusted () ? g_getenv ("REG_VERIFY_HELPER") : NULL;
  g_autofree char *helper = g_strdup (chosen != NULL && chosen[0] != '\0' ? chosen : REG_VERIFY_HELPER);
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) argv = NULL;
  g_autoptr(GError) local_error = NULL;
  RegVerdict *verdict = NULL;
  gint64 time = g_get_real_time ();
  const char *identifier;
  RegFileStamp before = { 0, }, after;
  gboolean have_before = _reg_file_stamp_get (verdict_path, &before);
  Run run = { name, options, NULL, };

  g_strv_builder_add_many (builder, helper, "--dir", dir, "--module", module_path, NULL);
  for (guint i = 0; search_path[i] != NULL; i++)
    g_strv_builder_add_many (builder, "--path", search_path[i], NULL);
  g_strv_builder_add_many (builder, "--", name, NULL);
  argv = g_strv_builder_end (builder);

  g_subprocess_launcher_set_stdin_file_path (launcher, "/dev/null");
  /* The checker reads only the directories it is given, and checks
   * nothing before loading: it is the check. */
  g_subprocess_launcher_unsetenv (launcher, "REG_BACKEND_PATH");
  g_subprocess_launcher_setenv (launcher, "REG_BACKEND_SYSTEM_DIR", "", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "REG_VERIFY_MODULES");
  g_subprocess_launcher_set_child_setup (launcher, child_setup, (gpointer) &options->memory_limit, NULL);

  run.context = g_main_context_new ();
  run.reads = g_cancellable_new ();
  g_main_context_push_thread_default (run.context);
  run.process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv, &local_error);
  if (run.process == NULL)
    {
      g_autofree char *why = _reg_message_embed (local_error->message);

      g_set_error (error, local_error->domain, local_error->code,
                   "The checker %s cannot be started: %s. Install it, or name another one with "
                   "REG_VERIFY_HELPER.", helper, why);
    }
  else
    {
      /* None when it exited and was reaped already: then it had no time
       * to reach a module (which it does after computing the references),
       * and there is no group to kill. */
      identifier = g_subprocess_get_identifier (run.process);
      run.pid = identifier != NULL ? (pid_t) g_ascii_strtoll (identifier, NULL, 10) : 0;
      run.out = (Pipe) { &run, g_subprocess_get_stdout_pipe (run.process), g_byte_array_new (), FALSE, };
      run.err = (Pipe) { &run, g_subprocess_get_stderr_pipe (run.process), g_byte_array_new (), TRUE, };
      run.pending = 3;
      read_next (&run.out);
      read_next (&run.err);
      g_subprocess_wait_async (run.process, NULL, on_checker_exit, &run);
      start_timeout (&run);
      if (cancellable != NULL)
        run.cancel = source_attach (g_cancellable_source_new (cancellable),
                                    (GSourceFunc) (void (*) (void)) on_cancelled, &run);

      while (run.pending > 0)
        g_main_context_iteration (run.context, TRUE);
      source_clear (&run.timeout);
      source_clear (&run.grace);
      source_clear (&run.cancel);

      verdict = judge (&run, helper, verdict_path, &before, time, error);
      g_byte_array_unref (run.out.data);
      g_byte_array_unref (run.err.data);
    }
  g_main_context_pop_thread_default (run.context);

  g_clear_object (&run.process);
  g_clear_object (&run.reads);
  /* Drops what the finished operations left queued on the context. */
  while (g_main_context_iteration (run.context, FALSE))
    ;
  g_main_context_unref (run.context);

  if (verdict == NULL || options->store == REG_VERIFY_STORE_NONE || !have_before)
    return verdict;

  if (!_reg_file_stamp_get (verdict_path, &after) || !_reg_file_stamp_equal (&before, &after))
    {
      g_autofree char *shown = _reg_text_for_message (module_path, -1, 4096);

      g_set_error (&verdict->store_error, G_FILE_ERROR, G_FILE_ERROR_AGAIN,
                   "The module %s changed while backend '%s' was checked: the verdict is about a "
                   "file that is gone, and is not recorded. Check it again.", shown, name);
    }
  else
    _reg_verdict_store_record (verdict, options->store == REG_VERIFY_STORE_SYSTEM, &verdict->store_error);

  return verdict;
}

RegVerdict *
_reg_verify_dup_verdict (const char *name,
                         const char *verdict_path)
{
  g_autoptr(GPtrArray) verdicts = _reg_verdict_store_find (verdict_path);
  RegVerdict *verdict = NULL;

  if (verdicts != NULL && (verdict = _reg_verdict_store_pick (verdicts, NULL)) == NULL)
    verdict = _reg_verdict_store_pick (verdicts, name);

  return verdict != NULL ? g_object_ref (verdict) : NULL;
}

gboolean
_reg_verify_before_load (gboolean            check_first,
                         const char * const *search_path,
                         const char         *name,
                         const char         *module_path,
                         const char         *verdict_path,
                         const char         *manifest_path,
                         const char         *dir,
                         GPtrArray          *names,
                         GError            **error)
{
  g_autoptr(GPtrArray) verdicts = _reg_verdict_store_find (verdict_path);
  g_autoptr(RegVerdict) fresh = NULL;
  g_autofree char *failure = NULL;
  g_autofree char *manifest = NULL;
  g_autofree char *module = NULL;
  RegVerdict *blocking;

  /* A file that cannot be stat'ed cannot be opened either: the load
   * reports that. */
  if (verdicts == NULL)
    return TRUE;

  blocking = _reg_verdict_store_pick (verdicts, NULL);
  for (guint i = 0; blocking == NULL && failure == NULL && check_first && i < names->len; i++)
    {
      const char *wanted = g_ptr_array_index (names, i);
      g_autoptr(GError) local_error = NULL;
      RegVerifyOptions options;

      if (_reg_verdict_store_pick (verdicts, wanted) != NULL)
        continue;

      _reg_verify_options_parse (NULL, &options, NULL);
      fresh = _reg_verify_run (search_path, wanted, module_path, verdict_path, dir, &options, NULL,
                               &local_error);
      /* One that builds on a backend the checker could not reach ran
       * without crashing or hanging: it is loaded. */
      if (fresh == NULL && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_debug ("%s", local_error->message);
      else if (fresh == NULL)
        {
          g_autofree char *why = _reg_message_embed (local_error->message);

          failure = g_strdup_printf ("is to be checked before it is loaded, and the check could not run: "
                                     "%s. Install libreg's checker, or turn the checks off "
                                     "(REG_VERIFY_MODULES, reg_registry_set_module_checks()).", why);
        }
      else if (fresh->store_error != NULL)
        g_debug ("backend '%s' checked before loading: %s", wanted, fresh->store_error->message);
      if (fresh != NULL && reg_verdict_get_quarantines (fresh))
        blocking = fresh;
      else
        g_clear_object (&fresh);
    }

  if (blocking == NULL && failure == NULL)
    return TRUE;

  if (failure == NULL)
    {
      g_autoptr(GDateTime) when = g_date_time_new_from_unix_utc (blocking->time_us / G_USEC_PER_SEC);
      g_autofree char *date = when != NULL ? g_date_time_format (when, "%Y-%m-%d %H:%M:%S UTC")
                                           : g_strdup ("?");
      g_autofree char *why = _reg_message_embed (blocking->reason);

      failure = g_strdup_printf ("is quarantined: when backend '%s' was checked on %s, it %s: %s. The module "
                                 "is not loaded until it changes; run `regctl verify %s` to check "
                                 "it again.", blocking->backend_name, date,
                                 blocking->kind == REG_VERDICT_KIND_TIMEOUT ? "timed out" : "crashed",
                                 why, blocking->backend_name);
    }
  manifest = _reg_text_for_message (manifest_path, -1, 4096);
  module = _reg_text_for_message (module_path, -1, 4096);
  g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
               "backend '%s' (declared by %s): module %s %s", name, manifest, module, failure);
  return FALSE;
}
