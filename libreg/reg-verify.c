/* reg-verify.c: checking backends in a process of their own
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The parent's side of a check: it starts the helper (reg-verify-helper,
 * see tools/reg-verify-helper.c) with GSubprocess, with a memory limit and
 * in a process group of its own, reads what it writes (the report on the
 * standard output, bounded; the end of the standard error), kills the
 * group when the timeout passes, and judges:
 *
 *   killed by the timeout          timeout
 *   died of a signal               crashed, with the signal's name
 *   exited with any other status   crashed
 *   exited 0 with a report         the report's verdict
 *   exited 0 without one           crashed
 *
 * The report is parsed against its one type and every part of it checked
 * and escaped: the helper runs the module's code, so nothing it writes is
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

#define REPORT_VERSION 1
#define REPORT_TYPE "(ussas)"
#define REPORT_MAX (64 * 1024)
#define STDERR_TAIL 4096
#define READ_CHUNK 4096
#define REASON_MAX 1000
#define OPS_MAX 64

/* After the helper exits, how long its pipes may stay open (a process it
 * started holding them) before the reads are given up. */
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
  GSubprocess  *process;
  GMainContext *context;
  GCancellable *reads;
  Pipe          out;
  Pipe          err;
  guint         pending;   /* the two reads and the wait */
  gboolean      timed_out;
  gboolean      cancelled;
  GSource      *grace;
};

static void
kill_group (Run *run)
{
  const char *identifier = g_subprocess_get_identifier (run->process);

  /* Not reaped yet (the identifier says so), so the group still exists
   * and its number is no other process's. */
  if (identifier != NULL)
    kill (-(pid_t) g_ascii_strtoll (identifier, NULL, 10), SIGKILL);
  g_subprocess_force_exit (run->process);
}

static void read_next (Pipe *pipe);

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  Pipe *pipe = data;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, NULL);
  gsize size;

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      pipe->run->pending--;
      return;
    }

  size = g_bytes_get_size (bytes);
  if (pipe->keep_tail)
    {
      g_byte_array_append (pipe->data, g_bytes_get_data (bytes, NULL), size);
      if (pipe->data->len > 2 * STDERR_TAIL)
        g_byte_array_remove_range (pipe->data, 0, pipe->data->len - STDERR_TAIL);
    }
  else if (pipe->data->len + size <= REPORT_MAX)
    g_byte_array_append (pipe->data, g_bytes_get_data (bytes, NULL), size);
  else
    pipe->overflow = TRUE;

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

/* Runs the helper to its end; FALSE with an error when it cannot start. */
static gboolean
run_helper (Run                    *run,
            const char * const     *argv,
            const RegVerifyOptions *options,
            GCancellable           *cancellable,
            GError                **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSource) timeout = NULL;
  g_autoptr(GSource) cancel = NULL;
  ChildSetup setup = { options->memory_limit };

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_stdin_file_path (launcher, "/dev/null");
  /* The helper reads only the directory it is given, and checks nothing
   * before loading: it is the check. */
  g_subprocess_launcher_unsetenv (launcher, "REG_BACKEND_PATH");
  g_subprocess_launcher_setenv (launcher, "REG_BACKEND_SYSTEM_DIR", "", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "REG_VERIFY_MODULES");
  g_subprocess_launcher_set_child_setup (launcher, child_setup, &setup, NULL);

  run->process = g_subprocess_launcher_spawnv (launcher, argv, error);
  if (run->process == NULL)
    return FALSE;

  run->out.run = run->err.run = run;
  run->err.keep_tail = TRUE;
  run->pending = 3;
  read_next (&run->out);
  read_next (&run->err);
  g_subprocess_wait_async (run->process, NULL, on_helper_exit, run);

  timeout = g_timeout_source_new ((guint) MIN (options->timeout * 1000, (double) G_MAXUINT));
  g_source_set_callback (timeout, on_timeout, run, NULL);
  g_source_attach (timeout, run->context);

  if (cancellable != NULL)
    {
      cancel = g_cancellable_source_new (cancellable);
      g_source_set_callback (cancel, (GSourceFunc) (void (*) (void)) on_cancelled, run, NULL);
      g_source_attach (cancel, run->context);
    }

  while (run->pending > 0)
    g_main_context_iteration (run->context, TRUE);

  g_source_destroy (timeout);
  if (cancel != NULL)
    g_source_destroy (cancel);
  if (run->grace != NULL)
    g_source_destroy (run->grace);

  return TRUE;
}

/* Judging */

/* The last line of the helper's standard error with something on it,
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

/* Parses the helper's report; FALSE and @why when it is not one. */
static gboolean
parse_report (const Pipe      *out,
              RegVerdictKind  *kind,
              char           **reason,
              char          ***ops,
              char           **why)
{
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree const char **given_ops = NULL;
  const char *text = (const char *) out->data->data;
  const char *newline, *nick, *given_reason;
  guint32 version;

  if (out->overflow)
    return (*why = g_strdup ("its output was longer than a report")), FALSE;

  newline = memchr (text, '\n', out->data->len);
  if (newline == NULL)
    return (*why = g_strdup (out->data->len == 0 ? "no report" : "an unfinished report")), FALSE;
  if (memchr (text, '\0', newline - text) != NULL)
    return (*why = g_strdup ("a NUL byte in the report")), FALSE;

  value = g_variant_parse (G_VARIANT_TYPE (REPORT_TYPE), text, newline, NULL, &error);
  if (value == NULL)
    return (*why = _reg_text_for_message (error->message, -1, 200)), FALSE;

  g_variant_get (value, "(u&s&s^a&s)", &version, &nick, &given_reason, &given_ops);

  if (version != REPORT_VERSION)
    return (*why = g_strdup_printf ("a report of version %u", version)), FALSE;
  if (!_reg_verdict_kind_from_nick (nick, kind) ||
      *kind == REG_VERDICT_KIND_CRASHED || *kind == REG_VERDICT_KIND_TIMEOUT)
    return (*why = g_strdup ("a report with an unknown verdict")), FALSE;
  if (g_strv_length ((char **) given_ops) > OPS_MAX)
    return (*why = g_strdup ("a report with too many operators")), FALSE;
  for (guint i = 0; given_ops[i] != NULL; i++)
    if (!_reg_name_validate (given_ops[i], "operator", NULL))
      return (*why = g_strdup ("a report with a bad operator name")), FALSE;

  *reason = *kind == REG_VERDICT_KIND_OK ? NULL
          : _reg_text_for_message (given_reason[0] != '\0' ? given_reason : "(no reason given)",
                                   -1, REASON_MAX);
  *ops = g_strdupv ((char **) given_ops);
  return TRUE;
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

static RegVerdict *
judge (Run                    *run,
       const char             *name,
       const char             *module_path,
       const RegVerifyOptions *options,
       gint64                  time)
{
  g_autofree char *message = last_message (run->err.data);
  g_autofree char *said = message != NULL ? g_strdup_printf ("; its last message: '%s'", message)
                                          : g_strdup ("");
  g_autofree char *limit = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *why = NULL;
  g_auto(GStrv) ops = NULL;
  RegVerdictKind kind;

  if (!SANITIZED && options->memory_limit > 0)
    limit = g_strdup_printf (" (memory limit %" G_GUINT64_FORMAT " MiB)", options->memory_limit >> 20);
  else
    limit = g_strdup (" (no memory limit)");

  if (run->timed_out)
    {
      kind = REG_VERDICT_KIND_TIMEOUT;
      reason = g_strdup_printf ("no result after %g s, killed%s", options->timeout, said);
    }
  else if (g_subprocess_get_if_signaled (run->process))
    {
      g_autofree char *signal = signal_name (g_subprocess_get_term_sig (run->process));

      kind = REG_VERDICT_KIND_CRASHED;
      reason = g_strdup_printf ("killed by signal %s%s%s", signal, limit, said);
    }
  else if (g_subprocess_get_exit_status (run->process) != 0)
    {
      kind = REG_VERDICT_KIND_CRASHED;
      reason = g_strdup_printf ("exited with status %d without a result%s%s",
                                g_subprocess_get_exit_status (run->process), limit, said);
    }
  else if (!parse_report (&run->out, &kind, &reason, &ops, &why))
    {
      kind = REG_VERDICT_KIND_CRASHED;
      reason = g_strdup_printf ("exited without a result: %s%s", why, said);
    }

  return _reg_verdict_new (name, module_path, kind, reason, (const char * const *) ops, time);
}

/* Runs the check; NULL with an error when it could not be made. */
static RegVerdict *
check (const char              *name,
       const char              *module_path,
       const char              *dir,
       const RegVerifyOptions  *options,
       GCancellable            *cancellable,
       GError                 **error)
{
  g_autofree char *helper = helper_path ();
  const char * const argv[] = { helper, "--dir", dir, "--module", module_path, "--", name, NULL };
  g_autoptr(GError) local_error = NULL;
  RegVerdict *verdict = NULL;
  gint64 time = g_get_real_time () / G_USEC_PER_SEC;
  Run run = { NULL, };

  run.context = g_main_context_new ();
  run.reads = g_cancellable_new ();
  run.out.data = g_byte_array_new ();
  run.err.data = g_byte_array_new ();

  g_main_context_push_thread_default (run.context);
  if (!run_helper (&run, argv, options, cancellable, &local_error))
    {
      g_autofree char *why = _reg_message_embed (local_error->message);

      g_set_error (error, local_error->domain, local_error->code,
                   "The checker %s cannot be started: %s. Install it, or name another one with "
                   "REG_VERIFY_HELPER.",
                   helper, why);
    }
  else if (run.cancelled)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "The check of backend '%s' was cancelled", name);
  else
    verdict = judge (&run, name, module_path, options, time);
  g_main_context_pop_thread_default (run.context);

  g_clear_object (&run.process);
  g_clear_object (&run.reads);
  g_byte_array_unref (run.out.data);
  g_byte_array_unref (run.err.data);
  g_clear_pointer (&run.grace, g_source_unref);
  /* Drops what the finished operations left queued on the context. */
  while (g_main_context_iteration (run.context, FALSE))
    ;
  g_main_context_unref (run.context);

  return verdict;
}

static RegVerdict *
run_and_record (const char              *name,
                const char              *module_path,
                const char              *dir,
                const RegVerifyOptions  *options,
                GCancellable            *cancellable,
                GError                 **record_error,
                GError                 **error)
{
  g_autofree char *store = NULL;
  RegFileStamp before, after;
  gboolean have_before = _reg_file_stamp_get (module_path, &before, NULL);
  RegVerdict *verdict = check (name, module_path, dir, options, cancellable, error);

  if (verdict == NULL || options->store == REG_VERIFY_STORE_NONE || !have_before)
    return verdict;

  if (!_reg_file_stamp_get (module_path, &after, NULL) || !_reg_file_stamp_equal (&before, &after))
    {
      g_autofree char *shown = _reg_text_for_message (module_path, -1, 4096);

      g_warning ("module %s changed while backend '%s' was checked: the verdict is not recorded",
                 shown, name);
      return verdict;
    }

  store = options->store == REG_VERIFY_STORE_SYSTEM ? _reg_verdict_store_path_beside (module_path)
                                                    : _reg_verdict_store_user_path ();
  if (store == NULL)
    g_debug ("no per-user verdict store in a setuid program: the verdict of '%s' is not recorded", name);
  else
    _reg_verdict_store_record (store, verdict, &before, record_error);

  return verdict;
}

RegVerdict *
_reg_verify_run (const char              *name,
                 const char              *module_path,
                 const char              *dir,
                 const RegVerifyOptions  *options,
                 GCancellable            *cancellable,
                 GError                 **error)
{
  g_autoptr(GError) record_error = NULL;
  g_autoptr(RegVerdict) verdict = run_and_record (name, module_path, dir, options, cancellable,
                                                  &record_error, error);

  if (record_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&record_error));
      return NULL;
    }

  return g_steal_pointer (&verdict);
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
               why, name);
}

gboolean
_reg_verify_before_load (RegModuleChecks   checks,
                         const char       *name,
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

  if ((checks & (REG_MODULE_CHECKS_QUARANTINE | REG_MODULE_CHECKS_VERIFY)) == 0)
    return TRUE;

  /* A file that cannot be stat'ed cannot be opened either: the load
   * reports that. */
  if (!_reg_file_stamp_get (module_path, &id, NULL))
    return TRUE;

  verdicts = _reg_verdict_store_find (module_path, &id);
  blocking = _reg_verdict_store_pick (verdicts, NULL, TRUE);

  for (guint i = 0; blocking == NULL && (checks & REG_MODULE_CHECKS_VERIFY) && i < names->len; i++)
    {
      const char *wanted = g_ptr_array_index (names, i);
      g_autoptr(GError) record_error = NULL;
      g_autoptr(GError) local_error = NULL;
      RegVerifyOptions options;

      if (_reg_verdict_store_pick (verdicts, wanted, FALSE) != NULL)
        continue;

      _reg_verify_options_parse (NULL, &options, NULL);
      fresh = run_and_record (wanted, module_path, dir, &options, NULL, &record_error, &local_error);
      if (record_error != NULL)
        g_debug ("backend '%s' checked before loading, but not recorded: %s", wanted, record_error->message);
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
