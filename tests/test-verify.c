/* test-verify.c: checking backends out of process, verdicts, quarantine
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fixture modules tests/modules/verify-* give one verdict each; every
 * case copies the ones it needs into a directory of its own (a copy is a
 * module file of its own: its own identity in the verdict store, its own
 * mapping if it is loaded).  The checks run reg-verify-helper, found
 * through REG_VERIFY_HELPER (tests/meson.build); the user's verdict store
 * is in the test's own XDG_CACHE_HOME (G_TEST_OPTION_ISOLATE_DIRS).
 *
 * verify_crash kills whatever process loads it, so it is only ever loaded
 * by the checker, or by a test's subprocess that is expected to die.
 */

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include <glib/gstdio.h>
#include <reg.h>

#include "test-files.h"
#include "test-objects.h"

/* The shipped backends, eager among them */
#define MODULES_BUILDDIR TEST_BUILDDIR G_DIR_SEPARATOR_S ".." G_DIR_SEPARATOR_S "modules"
#define LOG_DOMAIN "Reg"

/* Under a sanitizer the checker runs without a memory limit (its runtime
 * reserves terabytes of address space), and a raised SIGSEGV ends it the
 * runtime's way: an exit status, or SIGABRT with abort_on_error. */
#if defined (__SANITIZE_ADDRESS__) || defined (__SANITIZE_THREAD__)
# define SANITIZED 1
#elif defined (__has_feature)
# if __has_feature (address_sanitizer) || __has_feature (thread_sanitizer)
#  define SANITIZED 1
# endif
#endif
#ifndef SANITIZED
# define SANITIZED 0
#endif

/* Debug messages of the "Reg" domain, captured: the store says there why
 * it ignores a file.  Several threads may log at once (the concurrent
 * store test), hence the lock. */
static GPtrArray *debug_messages;
G_LOCK_DEFINE_STATIC (debug_messages);

static void
capture_debug (const char     *log_domain,
               GLogLevelFlags  log_level,
               const char     *message,
               gpointer        user_data)
{
  G_LOCK (debug_messages);
  g_ptr_array_add (debug_messages, g_strdup (message));
  G_UNLOCK (debug_messages);
}

static void
forget_debug (void)
{
  G_LOCK (debug_messages);
  g_ptr_array_set_size (debug_messages, 0);
  G_UNLOCK (debug_messages);
}

static guint
debug_count (const char *pattern)
{
  guint n = 0;

  G_LOCK (debug_messages);
  for (guint i = 0; i < debug_messages->len; i++)
    n += g_pattern_match_simple (pattern, g_ptr_array_index (debug_messages, i));
  G_UNLOCK (debug_messages);

  return n;
}

static gboolean
debug_logged (const char *pattern)
{
  gboolean found = FALSE;

  G_LOCK (debug_messages);
  for (guint i = 0; i < debug_messages->len && !found; i++)
    found = g_pattern_match_simple (pattern, g_ptr_array_index (debug_messages, i));
  G_UNLOCK (debug_messages);

  return found;
}

/* Fixtures */

typedef struct
{
  char        *dir;
  RegRegistry *registry;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->dir = make_tmp_dir ();
  f->registry = reg_registry_new ();
  reg_registry_add_search_path (f->registry, f->dir);
  forget_debug ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_object (&f->registry);
  remove_tmp_dir (f->dir);
  g_free (f->dir);
}

static char *
read_file (const char *path,
           gsize      *length)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, length, &error);
  g_assert_no_error (error);
  return contents;
}

/* Copies the fixture module and manifest FIXTURE (a directory name of
 * tests/modules) into @dir; returns the module's path there. */
/* Whether the file @path is mapped into this process. */
static gboolean
file_is_mapped (const char *path)
{
  g_autofree char *maps = read_file ("/proc/self/maps", NULL);

  return strstr (maps, path) != NULL;
}

static GVariant *
options_new (double      timeout,
             const char *store)
{
  g_autoptr(GVariantDict) dict = g_variant_dict_new (NULL);

  g_variant_dict_insert (dict, "timeout", "d", timeout);
  g_variant_dict_insert (dict, "store", "s", store);
  return g_variant_ref_sink (g_variant_dict_end (dict));
}

static RegVerdict *
verify (RegRegistry *registry,
        const char  *name,
        GVariant    *options)
{
  g_autoptr(GError) error = NULL;
  RegVerdict *verdict = reg_registry_verify_backend (registry, name, options, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (verdict);
  g_assert_cmpstr (reg_verdict_get_backend_name (verdict), ==, name);

  return verdict;
}

static void
assert_reason_contains (RegVerdict *verdict,
                        const char *fragment)
{
  const char *reason = reg_verdict_get_reason (verdict);

  g_assert_nonnull (reason);
  if (strstr (reason, fragment) == NULL)
    g_error ("reason \"%s\" should contain \"%s\"", reason, fragment);
}

static void
assert_reason_lacks (RegVerdict *verdict,
                     const char *fragment)
{
  const char *reason = reg_verdict_get_reason (verdict);

  if (reason != NULL && strstr (reason, fragment) != NULL)
    g_error ("reason \"%s\" should not contain \"%s\"", reason, fragment);
}

static void
assert_kind (RegVerdict     *verdict,
             RegVerdictKind  kind)
{
  if (reg_verdict_get_kind (verdict) != kind)
    g_error ("verdict %d (%s), expected %d", reg_verdict_get_kind (verdict),
             reg_verdict_get_reason (verdict), kind);
}

/* Verdicts */

static void
test_verdict_ok (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-ok");
  gint64 before = g_get_real_time () / G_USEC_PER_SEC;
  g_autoptr(RegVerdict) verdict = verify (f->registry, "verify_ok", NULL);
  g_autoptr(RegVerdict) recorded = NULL;
  RegVerdictKind kind;
  g_autofree char *reason = NULL;

  assert_kind (verdict, REG_VERDICT_KIND_OK);
  g_assert_null (reg_verdict_get_reason (verdict));
  g_assert_cmpuint (g_strv_length ((char **) reg_verdict_get_unsupported_ops (verdict)), ==, 0);
  g_assert_false (reg_verdict_get_quarantines (verdict));
  g_assert_cmpstr (reg_verdict_get_module_path (verdict), ==, module);
  g_assert_cmpint (reg_verdict_get_time (verdict), >=, before);
  g_assert_cmpint (reg_verdict_get_time (verdict), <=, g_get_real_time () / G_USEC_PER_SEC);

  g_object_get (verdict, "kind", &kind, "reason", &reason, NULL);
  g_assert_cmpint (kind, ==, REG_VERDICT_KIND_OK);
  g_assert_null (reason);

  /* Recorded, and never loaded here. */
  recorded = reg_registry_dup_verdict (f->registry, "verify_ok");
  g_assert_nonnull (recorded);
  assert_kind (recorded, REG_VERDICT_KIND_OK);
  g_assert_cmpint (reg_verdict_get_time (recorded), ==, reg_verdict_get_time (verdict));
  g_assert_false (file_is_mapped (module));
}

static void
test_verdict_unsupported (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-unsupported");
  g_autoptr(RegVerdict) verdict = verify (f->registry, "verify_unsupported", NULL);
  const char * const *ops = reg_verdict_get_unsupported_ops (verdict);

  assert_kind (verdict, REG_VERDICT_KIND_UNSUPPORTED);
  assert_reason_contains (verdict, "UNSUPPORTED_OP");
  assert_reason_contains (verdict, "matmul");
  g_assert_cmpstrv (ops, ((const char * const[]) { "matmul", NULL }));
  g_assert_false (reg_verdict_get_quarantines (verdict));
}

static void
test_verdict_wrong_results (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-wrong");
  g_autoptr(RegVerdict) verdict = verify (f->registry, "verify_wrong", NULL);

  assert_kind (verdict, REG_VERDICT_KIND_WRONG_RESULTS);
  /* which graph, which output, the largest error */
  assert_reason_contains (verdict, "graph 'op/sigmoid': output 0: largest error ");
  assert_reason_contains (verdict, "(backend ");
  g_assert_false (reg_verdict_get_quarantines (verdict));
}

/* A backend that declares the operators it takes (Operators=) is held to
 * them: the graphs of those only must compile on it and agree with eager,
 * those that mix them with others agree once partitioned (partial
 * refuses every other operator), and refusing one it declares is wrong,
 * as is computing one wrong, the verdict naming the operator. */
static void
test_verdict_declared_operators (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *partial_module = install_fixture (f->dir, "partial");
  g_autofree char *wrong_module = install_fixture (f->dir, "verify-wrong");
  g_autoptr(RegVerdict) ok = verify (f->registry, "partial", NULL);
  g_autoptr(RegVerdict) refuses = verify (f->registry, "partial_refuses_add", NULL);
  g_autoptr(RegVerdict) wrong = verify (f->registry, "verify_wrong_declared", NULL);

  assert_kind (ok, REG_VERDICT_KIND_OK);
  assert_kind (refuses, REG_VERDICT_KIND_WRONG_RESULTS);
  assert_reason_contains (refuses, "graph 'op/add': refused add, which it declares: "
                                   "partial_refuses_add: no add (node 2)");
  assert_kind (wrong, REG_VERDICT_KIND_WRONG_RESULTS);
  assert_reason_contains (wrong, "graph 'op/sigmoid', sigmoid on it: output 0: largest error ");
}

static void
test_verdict_crashed (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-crash");
  g_autoptr(RegVerdict) verdict = verify (f->registry, "verify_crash", NULL);

  assert_kind (verdict, REG_VERDICT_KIND_CRASHED);
  if (SANITIZED)
    g_assert_true (g_str_has_prefix (reg_verdict_get_reason (verdict), "exited with status") ||
                   g_str_has_prefix (reg_verdict_get_reason (verdict), "killed by signal"));
  else
    assert_reason_contains (verdict, "killed by signal SIGSEGV (Segmentation fault)");
  /* where it crashed, and no memory limit it was far from */
  assert_reason_contains (verdict, " while loading the module");
  assert_reason_lacks (verdict, "memory limit");
  g_assert_true (reg_verdict_get_quarantines (verdict));
  g_assert_false (file_is_mapped (module));
}

/* A crash names the stage and the graph, and not the memory limit when
 * nothing came near it. */
static void
test_verdict_crashed_stage (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-null");
  g_autoptr(RegVerdict) verdict = verify (f->registry, "verify_null", NULL);

  assert_kind (verdict, REG_VERDICT_KIND_CRASHED);
  if (!SANITIZED)
    assert_reason_contains (verdict, "killed by signal SIGSEGV (Segmentation fault) while compiling "
                                     "graph 'op/matmul'");
  else
    assert_reason_contains (verdict, " while compiling graph 'op/matmul'");
  assert_reason_lacks (verdict, "memory limit");
}

static void
test_verdict_timeout (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-hang");
  g_autoptr(GVariant) options = options_new (0.5, "user");
  g_autoptr(RegVerdict) verdict = verify (f->registry, "verify_hang", options);

  assert_kind (verdict, REG_VERDICT_KIND_TIMEOUT);
  assert_reason_contains (verdict, "no result after 0.5 s while compiling graph 'op/add', killed");
  g_assert_true (reg_verdict_get_quarantines (verdict));
}

static void
test_verdict_load_failed (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *module = NULL;
  g_autoptr(RegVerdict) verdict = NULL;
  g_autofree char *source = g_build_filename (FIXTURE_BUILDDIR, "libfixture-abi-mismatch.so", NULL);
  g_autofree char *manifest = g_build_filename (FIXTURE_BUILDDIR, "abi-mismatch.backend", NULL);
  g_autofree char *text = read_file (manifest, NULL);
  g_autofree char *bytes = NULL;
  gsize length;

  bytes = read_file (source, &length);
  write_file (f->dir, "abi-mismatch.backend", text, -1);
  write_file_mode (f->dir, "libfixture-abi-mismatch.so", bytes, length, 0755);

  verdict = verify (f->registry, "abi_mismatch", NULL);
  assert_kind (verdict, REG_VERDICT_KIND_LOAD_FAILED);
  assert_reason_contains (verdict, "ABI version");
  g_assert_false (reg_verdict_get_quarantines (verdict));
}

/* A backend that compiles on another one is checked with the backends
 * the registry that asks reaches (eager, here): it is ok. */
static void
test_verdict_builds_on_another (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-wrap-eager");
  g_autoptr(RegVerdict) verdict = NULL;

  reg_registry_add_search_path (f->registry, MODULES_BUILDDIR);
  verdict = verify (f->registry, "verify_wrap_eager", NULL);
  assert_kind (verdict, REG_VERDICT_KIND_OK);
}

/* A backend is not blamed for one it builds on that cannot be reached:
 * no verdict, nothing recorded, and a lookup that checks first loads
 * it. */
static void
test_unreachable_not_blamed (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-wrap-missing");
  g_autoptr(RegVerdict) verdict = NULL;
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(GError) error = NULL;

  reg_registry_add_search_path (f->registry, MODULES_BUILDDIR);
  verdict = reg_registry_verify_backend (f->registry, "verify_wrap_missing", NULL, NULL, &error);
  g_assert_null (verdict);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "backend 'verify_wrap_missing' cannot be checked"));
  g_assert_nonnull (strstr (error->message, "graph 'op/add': compile failed: backend "
                                            "'verify_wrap_missing': Invalid backend: 'verify_nowhere'"));
  g_assert_nonnull (strstr (error->message, "(and 38 more of the 39 graphs)"));
  g_clear_error (&error);
  g_assert_null (reg_registry_dup_verdict (f->registry, "verify_wrap_missing"));

  reg_registry_set_module_checks (f->registry, REG_MODULE_CHECKS_QUARANTINE | REG_MODULE_CHECKS_VERIFY);
  compiler = reg_registry_lookup_backend (f->registry, "verify_wrap_missing", &error);
  g_assert_no_error (error);
  g_assert_nonnull (compiler);
  g_assert_true (file_is_mapped (module));
  g_assert_null (reg_registry_dup_verdict (f->registry, "verify_wrap_missing"));
}

/* A backend that allocates without bound dies at the memory limit, well
 * before it takes the machine's memory, and the reason says so. */
static void
test_memory_limit (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *module = NULL;
  g_autoptr(GVariantDict) dict = g_variant_dict_new (NULL);
  g_autoptr(GVariant) options = NULL;
  g_autoptr(RegVerdict) verdict = NULL;

  if (SANITIZED)
    {
      g_test_skip ("no memory limit under a sanitizer");
      return;
    }

  module = install_fixture (f->dir, "verify-hog");
  g_variant_dict_insert (dict, "memory-limit", "t", (guint64) 256 << 20);
  options = g_variant_ref_sink (g_variant_dict_end (dict));
  verdict = verify (f->registry, "verify_hog", options);

  assert_kind (verdict, REG_VERDICT_KIND_CRASHED);
  assert_reason_contains (verdict, "while compiling graph 'op/add' (memory limit 256 MiB)");
  assert_reason_contains (verdict, "failed to allocate");

  /* A SIGSEGV once the address space neared the limit names it too. */
  g_clear_object (&verdict);
  g_free (module);
  module = install_fixture (f->dir, "verify-hog-unchecked");
  reg_registry_rescan (f->registry);
  verdict = verify (f->registry, "verify_hog_unchecked", options);
  assert_kind (verdict, REG_VERDICT_KIND_CRASHED);
  assert_reason_contains (verdict, "killed by signal SIGSEGV (Segmentation fault) while compiling "
                                   "graph 'op/add' (memory limit 256 MiB)");
}

/* Whether process @pid runs: neither gone nor a zombie. */
static gboolean
process_runs (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *stat = NULL;
  const char *end;

  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return FALSE;

  end = strrchr (stat, ')');
  return end != NULL && end[1] == ' ' && end[2] != 'Z' && end[2] != 'X';
}

/* A process the module started in the checker is killed when the check
 * ends, as when it times out. */
static void
test_group_killed (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-fork");
  g_autofree char *pid_file = g_build_filename (f->dir, "child.pid", NULL);
  g_autoptr(RegVerdict) verdict = NULL;
  g_autofree char *text = NULL;
  gboolean survived;
  int pid;

  g_setenv ("FIXTURE_FORK_PID_FILE", pid_file, TRUE);
  verdict = verify (f->registry, "verify_fork", NULL);
  g_unsetenv ("FIXTURE_FORK_PID_FILE");
  assert_kind (verdict, REG_VERDICT_KIND_OK);

  text = read_file (pid_file, NULL);
  pid = atoi (text);
  g_assert_cmpint (pid, >, 1);

  /* Killed by the time the check returns; it dies when next scheduled. */
  for (guint i = 0; i < 1000 && process_runs (pid); i++)
    g_usleep (10 * 1000);
  survived = process_runs (pid);
  if (survived)
    kill (pid, SIGKILL);
  g_assert_false (survived);
}

/* A checker that never reaches the module gives an error of the checker,
 * never a verdict: a program that is no checker, one that fails, a
 * memory limit too small for the dynamic linker.  Nothing is recorded,
 * and a lookup that checks first fails without quarantining the module. */
static void
test_checker_not_reached (Fixture       *f,
                          gconstpointer  data)
{
  static const char * const not_checkers[] = { "/bin/true", "/bin/false" };
  g_autofree char *module = install_fixture (f->dir, "verify-ok");
  g_autofree char *helper = g_strdup (g_getenv ("REG_VERIFY_HELPER"));
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (helper);
  reg_registry_set_module_checks (f->registry, REG_MODULE_CHECKS_QUARANTINE | REG_MODULE_CHECKS_VERIFY);

  for (guint i = 0; i < G_N_ELEMENTS (not_checkers) + 1; i++)
    {
      g_autoptr(GVariantDict) dict = g_variant_dict_new (NULL);
      g_autoptr(GVariant) options = NULL;
      g_autoptr(RegVerdict) verdict = NULL;
      gboolean small_limit = i == G_N_ELEMENTS (not_checkers);

      if (small_limit && SANITIZED)
        continue;
      if (small_limit)
        g_variant_dict_insert (dict, "memory-limit", "t", (guint64) 4 << 20);
      else
        g_setenv ("REG_VERIFY_HELPER", not_checkers[i], TRUE);
      options = g_variant_ref_sink (g_variant_dict_end (dict));

      verdict = reg_registry_verify_backend (f->registry, "verify_ok", options, NULL, &error);
      g_assert_null (verdict);
      g_assert_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, "before it reached the module"));
      g_assert_nonnull (strstr (error->message, small_limit ? helper : not_checkers[i]));
      if (small_limit)
        g_assert_nonnull (strstr (error->message, "(memory limit 4 MiB)"));
      else
        g_assert_null (strstr (error->message, "memory limit"));
      g_clear_error (&error);
      g_assert_null (reg_registry_dup_verdict (f->registry, "verify_ok"));

      /* Checking before the first load cannot be done: the lookup fails,
       * and says why. */
      if (!small_limit)
        {
          compiler = reg_registry_lookup_backend (f->registry, "verify_ok", &error);
          g_assert_null (compiler);
          g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
          g_assert_nonnull (strstr (error->message, "the check could not run"));
          g_assert_nonnull (strstr (error->message, not_checkers[i]));
          g_clear_error (&error);
          g_assert_null (reg_registry_dup_verdict (f->registry, "verify_ok"));
        }
      g_setenv ("REG_VERIFY_HELPER", helper, TRUE);
    }

  /* Nothing was quarantined. */
  reg_registry_set_module_checks (f->registry, REG_MODULE_CHECKS_QUARANTINE);
  compiler = reg_registry_lookup_backend (f->registry, "verify_ok", &error);
  g_assert_no_error (error);
  g_assert_nonnull (compiler);
  g_assert_true (file_is_mapped (module));
}

/* Quarantine */

/* Looks @name up, which must fail on a quarantine of the module. */
static void
assert_lookup_quarantined (RegRegistry *registry,
                           const char  *name,
                           const char  *dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) compiler = reg_registry_lookup_backend (registry, name, &error);
  g_autofree char *manifest = g_strdup_printf ("(declared by %s/", dir);
  g_autofree char *command = g_strdup_printf ("run `regctl verify %s` to check it again", name);

  g_assert_null (compiler);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
  g_assert_nonnull (strstr (error->message, manifest));
  g_assert_nonnull (strstr (error->message, "is quarantined"));
  g_assert_nonnull (strstr (error->message, command));
}

/* The same, after checking that a recorded verdict quarantines the
 * module: a quarantine lost fails here rather than loading a module that
 * kills the test. */
static void
assert_quarantined (RegRegistry *registry,
                    const char  *name,
                    const char  *dir)
{
  g_autoptr(RegVerdict) verdict = reg_registry_dup_verdict (registry, name);

  g_assert_nonnull (verdict);
  g_assert_true (reg_verdict_get_quarantines (verdict));
  assert_lookup_quarantined (registry, name, dir);
}

static void
test_quarantine_lookup (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-crash");
  g_autoptr(RegVerdict) verdict = verify (f->registry, "verify_crash", NULL);
  g_autoptr(RegRegistry) other = reg_registry_new ();
  g_autoptr(RegVerdict) recorded = NULL;

  /* Never opened: the process lives, the file is not mapped, and the
   * failure is retried (and refused) every time. */
  assert_quarantined (f->registry, "verify_crash", f->dir);
  assert_quarantined (f->registry, "verify_crash", f->dir);
  g_assert_false (file_is_mapped (module));

  reg_registry_add_search_path (other, f->dir);
  assert_quarantined (other, "verify_crash", f->dir);

  recorded = reg_registry_dup_verdict (other, "verify_crash");
  g_assert_nonnull (recorded);
  assert_kind (recorded, REG_VERDICT_KIND_CRASHED);
  g_assert_true (reg_verdict_get_quarantines (recorded));
}

/* Run by the tests below in a process of its own: looks verify_crash of
 * the directory TEST_VERIFY_DIR up, and says how it went, unless the
 * module is opened, which kills the process.  The verdicts are beside the
 * module (each process has a cache directory of its own). */
static void
test_lookup_subprocess (void)
{
  g_autoptr(RegRegistry) registry = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) compiler = NULL;

  if (!g_test_subprocess ())
    {
      g_test_skip ("run by the quarantine tests");
      return;
    }

  registry = reg_registry_new ();
  if (g_getenv ("TEST_VERIFY_NO_CHECKS") != NULL)
    reg_registry_set_module_checks (registry, REG_MODULE_CHECKS_NONE);
  reg_registry_add_search_path (registry, g_getenv ("TEST_VERIFY_DIR"));
  compiler = reg_registry_lookup_backend (registry, "verify_crash", &error);
  g_print ("looked up: %s\n", error != NULL ? error->message : "loaded");
}

static void
trap_lookup (Fixture  *f,
             gboolean  no_checks)
{
  g_setenv ("TEST_VERIFY_DIR", f->dir, TRUE);
  if (no_checks)
    g_setenv ("TEST_VERIFY_NO_CHECKS", "1", TRUE);
  else
    g_unsetenv ("TEST_VERIFY_NO_CHECKS");
  g_test_trap_subprocess ("/verify/subprocess/lookup", 0, G_TEST_SUBPROCESS_DEFAULT);
}

/* The verdict recorded by this process keeps another one, started
 * afterwards, from opening the module: its lookup fails, and it lives. */
static void
test_quarantine_other_process (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-crash");
  g_autoptr(GVariant) system = options_new (20, "system");
  g_autoptr(RegVerdict) verdict = verify (f->registry, "verify_crash", system);
  g_autofree char *expected = g_strdup_printf ("*looked up: backend 'verify_crash' (declared by %s/*"
                                               "is quarantined*run `regctl verify verify_crash`*",
                                               f->dir);

  trap_lookup (f, FALSE);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout (expected);
}

/* A changed module file is another module: the quarantine is lifted (the
 * lookup opens it, and dies), until it is checked again. */
static void
test_quarantine_lifted_on_change (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-crash");
  g_autoptr(GVariant) system = options_new (20, "system");
  g_autoptr(RegVerdict) verdict = verify (f->registry, "verify_crash", system);
  g_autoptr(RegVerdict) gone = NULL;
  g_autoptr(RegVerdict) again = NULL;
  g_autoptr(RegVerdict) recorded = NULL;
  GStatBuf st;

  trap_lookup (f, FALSE);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("*is quarantined*");

  /* Rebuilt: a new modification time (and change time). */
  g_assert_no_errno (g_stat (module, &st));
  g_assert_no_errno (g_utime (module, &(struct utimbuf) { st.st_atime, st.st_mtime + 10 }));

  gone = reg_registry_dup_verdict (f->registry, "verify_crash");
  g_assert_null (gone);
  trap_lookup (f, FALSE);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stdout_unmatched ("*looked up*");

  /* Checked again, quarantined again; the store holds one verdict. */
  again = verify (f->registry, "verify_crash", system);
  assert_kind (again, REG_VERDICT_KIND_CRASHED);
  recorded = reg_registry_dup_verdict (f->registry, "verify_crash");
  g_assert_nonnull (recorded);
  g_assert_cmpint (reg_verdict_get_time (recorded), ==, reg_verdict_get_time (again));
  assert_quarantined (f->registry, "verify_crash", f->dir);
}

/* REG_MODULE_CHECKS_NONE opens even a quarantined module. */
static void
test_quarantine_checks_off (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-crash");
  g_autoptr(GVariant) system = options_new (20, "system");
  g_autoptr(RegVerdict) verdict = verify (f->registry, "verify_crash", system);

  trap_lookup (f, FALSE);
  g_test_trap_assert_passed ();
  trap_lookup (f, TRUE);
  g_test_trap_assert_failed ();
}

/* The verdict store */

static char *
user_store (void)
{
  return g_build_filename (g_get_user_cache_dir (), "libreg", "verdicts", NULL);
}

/* Stores written by hand, from the records libreg wrote: its format is
 * that of docs/verifying-backends.md, a header line and an array of
 * records of this type. */
#define STORE_RECORD_TYPE "(ttxxxxsssasay)"
#define STORE_MAX_SIZE (1024 * 1024)

/* The records of the store @path, and its header line in @header. */
static GPtrArray *
store_records (const char  *path,
               char       **header)
{
  g_autofree char *text = read_file (path, NULL);
  const char *body = strchr (text, '\n') + 1;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) store = g_variant_parse (G_VARIANT_TYPE ("a" STORE_RECORD_TYPE), body, NULL, NULL, &error);
  GPtrArray *records = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);

  g_assert_no_error (error);
  for (gsize i = 0; i < g_variant_n_children (store); i++)
    g_ptr_array_add (records, g_variant_get_child_value (store, i));
  *header = g_strndup (text, body - text);

  return records;
}

static GString *
store_text (const char *header,
            GPtrArray  *records)
{
  GString *text = g_string_new (header);

  g_string_append_c (text, '[');
  for (guint i = 0; i < records->len; i++)
    {
      g_string_append (text, i > 0 ? ",\n " : "\n ");
      g_variant_print_string (g_ptr_array_index (records, i), text, FALSE);
    }
  g_string_append (text, "\n]\n");

  return text;
}

static void
store_write (const char *path,
             const char *header,
             GPtrArray  *records)
{
  g_autoptr(GString) text = store_text (header, records);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *name = g_path_get_basename (path);

  write_file (dir, name, text->str, text->len);
}

static gint64
record_time (GVariant *record)
{
  gint64 time;

  g_variant_get_child (record, 5, "x", &time);
  return time;
}

static const char *
record_backend (GVariant *record)
{
  const char *backend;

  g_variant_get_child (record, 6, "&s", &backend);
  return backend;
}

/* @record (of a module file) with another backend, verdict, reason and
 * time (in the store's unit). */
static GVariant *
record_with (GVariant   *record,
             const char *backend,
             const char *nick,
             const char *reason,
             gint64      time)
{
  g_autoptr(GVariant) ops = NULL;
  g_autoptr(GVariant) path = NULL;
  guint64 dev, ino;
  gint64 size, mtime, ctime, old_time;

  g_variant_get (record, "(ttxxxx&s&s&s@as@ay)", &dev, &ino, &size, &mtime, &ctime, &old_time,
                 NULL, NULL, NULL, &ops, &path);

  return g_variant_ref_sink (g_variant_new ("(ttxxxxsss@as@ay)", dev, ino, size, mtime, ctime, time,
                                            backend, nick, reason, ops, path));
}

static GVariant *
find_record (GPtrArray  *records,
             const char *backend)
{
  for (guint i = 0; i < records->len; i++)
    if (g_str_equal (record_backend (g_ptr_array_index (records, i)), backend))
      return g_ptr_array_index (records, i);

  g_error ("no record of %s in the store", backend);
}

static gsize
file_size (const char *path)
{
  GStatBuf st;

  g_assert_no_errno (g_stat (path, &st));
  return st.st_size;
}

/* Writers and readers share one bound, the store's size: a store near it
 * takes a new verdict by dropping the oldest verdicts that quarantine
 * nothing, never one that quarantines a module that is still there. */
static void
test_store_full (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *ok_module = install_fixture (f->dir, "verify-ok");
  g_autofree char *crash_module = install_fixture (f->dir, "verify-crash");
  g_autofree char *unsupported_module = install_fixture (f->dir, "verify-unsupported");
  g_autoptr(RegVerdict) ok = verify (f->registry, "verify_ok", NULL);
  g_autoptr(RegVerdict) crash = verify (f->registry, "verify_crash", NULL);
  g_autoptr(RegVerdict) unsupported = NULL;
  g_autoptr(RegVerdict) recorded = NULL;
  g_autofree char *store = user_store ();
  g_autofree char *header = NULL;
  g_autoptr(GPtrArray) records = store_records (store, &header);
  g_autoptr(GPtrArray) after = NULL;
  g_autofree char *reason = g_strnfill (4000, 'x');
  GVariant *base = find_record (records, "verify_ok");
  gint64 newer = MAX (record_time (base), record_time (find_record (records, "verify_crash"))) + 1;
  g_autofree char *after_header = NULL;
  gsize size, room;
  guint n_fillers;

  /* Newer verdicts of other backends of a module that is there, up to a
   * hundred bytes under the bound (store_text() puts ",\n " before each
   * record but the first). */
  {
    g_autoptr(GString) text = store_text (header, records);

    size = text->len;
  }
  for (guint i = 0; size + 100 + 5000 <= STORE_MAX_SIZE; i++)
    {
      g_autofree char *name = g_strdup_printf ("filler_%04u", i);
      GVariant *filler = record_with (base, name, "wrong-results", reason, newer + i);
      g_autofree char *text = g_variant_print (filler, FALSE);

      g_ptr_array_add (records, filler);
      size += strlen (",\n ") + strlen (text);
    }
  room = STORE_MAX_SIZE - 100 - size;
  /* The last one's reason fills the room left, to the byte. */
  for (guint attempt = 0; attempt < 2; attempt++)
    {
      g_autofree char *pad = g_strnfill (room, 'y');
      g_autoptr(GString) text = NULL;

      if (attempt > 0)
        g_ptr_array_remove_index (records, records->len - 1);
      g_ptr_array_add (records, record_with (base, "filler_last", "wrong-results", pad, newer + records->len));
      text = store_text (header, records);
      room -= text->len - (STORE_MAX_SIZE - 100);
    }
  n_fillers = records->len - 2;
  store_write (store, header, records);
  g_assert_cmpuint (file_size (store), ==, STORE_MAX_SIZE - 100);
  assert_quarantined (f->registry, "verify_crash", f->dir);

  /* One more verdict: the store stays within its bound and readable, and
   * keeps the quarantine and as many of the others as fit. */
  unsupported = verify (f->registry, "verify_unsupported", NULL);
  size = file_size (store);
  g_assert_cmpuint (size, <=, STORE_MAX_SIZE);
  g_assert_cmpuint (size, >, STORE_MAX_SIZE - 10000);
  assert_quarantined (f->registry, "verify_crash", f->dir);
  recorded = reg_registry_dup_verdict (f->registry, "verify_unsupported");
  g_assert_nonnull (recorded);
  assert_kind (recorded, REG_VERDICT_KIND_UNSUPPORTED);

  after = store_records (store, &after_header);
  g_assert_cmpuint (after->len, >=, n_fillers);
}

/* However many newer verdicts of other modules a store has, a crash stays
 * recorded while its module is there. */
static void
test_store_many (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *crash_module = install_fixture (f->dir, "verify-crash");
  g_autofree char *ok_module = install_fixture (f->dir, "verify-ok");
  g_autofree char *unsupported_module = install_fixture (f->dir, "verify-unsupported");
  g_autoptr(RegVerdict) crash = verify (f->registry, "verify_crash", NULL);
  g_autoptr(RegVerdict) ok = verify (f->registry, "verify_ok", NULL);
  g_autoptr(RegVerdict) unsupported = NULL;
  g_autofree char *store = user_store ();
  g_autofree char *header = NULL;
  g_autoptr(GPtrArray) records = store_records (store, &header);
  GVariant *base = find_record (records, "verify_ok");
  gint64 newer = record_time (base) + 1;

  for (guint i = 0; i < 1100; i++)
    {
      g_autofree char *name = g_strdup_printf ("other_%04u", i);

      g_ptr_array_add (records, record_with (base, name, "ok", "", newer + i));
    }
  store_write (store, header, records);
  assert_quarantined (f->registry, "verify_crash", f->dir);

  unsupported = verify (f->registry, "verify_unsupported", NULL);
  assert_quarantined (f->registry, "verify_crash", f->dir);
}

/* The newest verdict of a backend wins, whichever store holds it: a
 * timeout recorded for every user is lifted by a newer verdict in the
 * user's store, and a newer timeout quarantines the module again. */
static void
test_store_newest_wins (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-unsupported");
  g_autoptr(GVariant) system = options_new (20, "system");
  g_autoptr(RegVerdict) first = verify (f->registry, "verify_unsupported", system);
  g_autoptr(RegVerdict) again = NULL;
  g_autoptr(RegVerdict) recorded = NULL;
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(RegRegistry) other = reg_registry_new ();
  g_autoptr(GPtrArray) beside_records = NULL;
  g_autoptr(GPtrArray) user_records = NULL;
  g_autoptr(GPtrArray) replaced = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  g_autoptr(GError) error = NULL;
  g_autofree char *beside = g_build_filename (f->dir, "backends.verdicts", NULL);
  g_autofree char *store = user_store ();
  g_autofree char *header = NULL;
  g_autofree char *user_header = NULL;

  /* As if that check had timed out. */
  beside_records = store_records (beside, &header);
  g_ptr_array_add (replaced, record_with (g_ptr_array_index (beside_records, 0), "verify_unsupported",
                                          "timeout", "no result after 20 s, killed",
                                          record_time (g_ptr_array_index (beside_records, 0))));
  store_write (beside, header, replaced);
  assert_quarantined (f->registry, "verify_unsupported", f->dir);

  /* Checked again, recorded in the user's store: the newer verdict. */
  again = verify (f->registry, "verify_unsupported", NULL);
  recorded = reg_registry_dup_verdict (f->registry, "verify_unsupported");
  g_assert_nonnull (recorded);
  assert_kind (recorded, REG_VERDICT_KIND_UNSUPPORTED);
  compiler = reg_registry_lookup_backend (f->registry, "verify_unsupported", &error);
  g_assert_no_error (error);
  g_assert_nonnull (compiler);

  /* A timeout newer than that one. */
  user_records = store_records (store, &user_header);
  g_ptr_array_set_size (replaced, 0);
  g_ptr_array_add (replaced, record_with (g_ptr_array_index (beside_records, 0), "verify_unsupported",
                                          "timeout", "no result after 20 s, killed",
                                          record_time (g_ptr_array_index (user_records, 0)) + 1));
  store_write (beside, header, replaced);
  reg_registry_add_search_path (other, f->dir);
  assert_quarantined (other, "verify_unsupported", f->dir);
}

/* The quarantine says which backend's verdict it comes from, and the
 * command that checks that one again, which lifts it. */
static void
test_quarantine_names_checked_backend (Fixture       *f,
                                       gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "good");
  g_autoptr(RegVerdict) a = verify (f->registry, "fixture_a", NULL);
  g_autoptr(RegVerdict) b = NULL;
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *store = user_store ();
  g_autofree char *header = NULL;
  g_autoptr(GPtrArray) records = store_records (store, &header);

  g_ptr_array_add (records, record_with (g_ptr_array_index (records, 0), "fixture_b", "crashed",
                                         "killed by signal SIGSEGV (Segmentation fault) while loading "
                                         "the module",
                                         record_time (g_ptr_array_index (records, 0)) + 1));
  store_write (store, header, records);

  compiler = reg_registry_lookup_backend (f->registry, "fixture_a", &error);
  g_assert_null (compiler);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
  g_assert_nonnull (strstr (error->message, "when backend 'fixture_b' was checked"));
  g_assert_nonnull (strstr (error->message, "run `regctl verify fixture_b` to check it again"));
  g_clear_error (&error);

  b = verify (f->registry, "fixture_b", NULL);
  assert_kind (b, REG_VERDICT_KIND_UNSUPPORTED);
  compiler = reg_registry_lookup_backend (f->registry, "fixture_a", &error);
  g_assert_no_error (error);
  g_assert_nonnull (compiler);
}

/* However many verdicts are asked for, each store is read once, until it
 * changes. */
static void
test_store_read_once (Fixture       *f,
                      gconstpointer  data)
{
  static const char * const fixtures[] = { "verify-ok", "verify-unsupported", "verify-wrong" };
  static const char * const names[] = { "verify_ok", "verify_unsupported", "verify_wrong" };
  g_autoptr(RegVerdict) again = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *module = install_fixture (f->dir, fixtures[i]);
      g_autoptr(RegVerdict) verdict = NULL;

      reg_registry_rescan (f->registry);
      verdict = verify (f->registry, names[i], NULL);
    }

  forget_debug ();
  for (guint n = 0; n < 100; n++)
    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      {
        g_autoptr(RegVerdict) recorded = reg_registry_dup_verdict (f->registry, names[i]);

        g_assert_nonnull (recorded);
      }
  g_assert_cmpuint (debug_count ("verdict store */verdicts read: 3 records"), ==, 1);

  /* Written again: read again, once. */
  again = verify (f->registry, "verify_ok", NULL);
  forget_debug ();
  for (guint n = 0; n < 100; n++)
    {
      g_autoptr(RegVerdict) recorded = reg_registry_dup_verdict (f->registry, "verify_ok");

      g_assert_nonnull (recorded);
      g_assert_cmpint (reg_verdict_get_time (recorded), ==, reg_verdict_get_time (again));
    }
  g_assert_cmpuint (debug_count ("verdict store */verdicts read: *"), ==, 1);
}

/* Anything wrong with the store and it is ignored whole, with a debug
 * message: the quarantine it held no longer applies, and the next verdict
 * replaces it. */
static void
test_store_corrupt (Fixture       *f,
                    gconstpointer  data)
{
  static const struct {
    const char *contents;
    const char *why;
  } corrupt[] = {
    { "", "*no \"libreg verdict store 2\" header*" },
    { "libreg verdict store 3\n[]\n", "*header*" },
    { "libreg verdict store 2\n[(1, 2, 3", "*" },
    { "libreg verdict store 2\n{'a': 1}\n", "*" },
    { "libreg verdict store 2\n[]\n[]\n", "*text after the records*" },
    { "libreg verdict store 2\n[(1, 2, 3, 4, 5, 6, 'verify_crash', 'exploded', 'r', [], b'/x')]\n",
      "*record 1: an unknown verdict*" },
    { "libreg verdict store 2\n[(1, 2, 3, 4, 5, 6, 'a/b', 'crashed', 'r', [], b'/x')]\n",
      "*record 1: a backend name breaks the naming rules*" },
    { "libreg verdict store 2\n[(1, 2, 3, 4, 5, 6, 'a', 'crashed', 'r', [], b'relative')]\n",
      "*record 1: a module path that is not an absolute file name*" },
    { "libreg verdict store 2\n[(1, 2, 3, 4, 5, 6, 'a', 'crashed', '', [], b'/x')]\n",
      "*record 1: a reason where there should be none, or none where there should be one*" },
    { "libreg verdict store 2\n[(1, 2, -3, 4, 5, 6, 'a', 'crashed', 'r', [], b'/x')]\n",
      "*record 1: a negative size or time*" },
    { "libreg verdict store 1\n[(1, 2, 3, 4, 5, 9223372036854775807, 'a', 'crashed', 'r', [], b'/x')]\n",
      "*record 1: a time out of range*" },
  };
  g_autofree char *module = install_fixture (f->dir, "verify-crash");
  g_autoptr(RegVerdict) verdict = verify (f->registry, "verify_crash", NULL);
  g_autofree char *store = user_store ();
  g_autofree char *dir = g_path_get_dirname (store);
  g_autofree char *good = read_file (store, NULL);
  g_autoptr(RegVerdict) recorded = NULL;

  g_assert_true (g_str_has_prefix (good, "libreg verdict store 2\n"));

  for (guint i = 0; i < G_N_ELEMENTS (corrupt) + 3; i++)
    {
      g_autoptr(RegVerdict) found = NULL;

      g_test_message ("corruption %u", i);
      forget_debug ();
      if (i < G_N_ELEMENTS (corrupt))
        write_file (dir, "verdicts", corrupt[i].contents, -1);
      else if (i == G_N_ELEMENTS (corrupt))
        {
          /* a good store cut short */
          write_file (dir, "verdicts", good, strlen (good) / 2);
        }
      else if (i == G_N_ELEMENTS (corrupt) + 1)
        {
          /* a NUL byte in a good store */
          g_autofree char *copy = g_strdup (good);

          copy[strlen ("libreg verdict store 2\n") + 3] = '\0';
          write_file (dir, "verdicts", copy, strlen (good));
        }
      else
        {
          /* too large to be one */
          g_autoptr(GString) huge = g_string_new (good);

          while (huge->len <= 1024 * 1024)
            g_string_append (huge, "                                                                ");
          write_file (dir, "verdicts", huge->str, huge->len);
        }

      found = reg_registry_dup_verdict (f->registry, "verify_crash");
      g_assert_null (found);
      g_assert_true (debug_logged ("verdict store */verdicts ignored: *"));
      if (i < G_N_ELEMENTS (corrupt) && !debug_logged (corrupt[i].why))
        g_error ("no debug message like \"%s\"", corrupt[i].why);
    }

  /* The next verdict writes a store that is read again. */
  g_clear_object (&verdict);
  verdict = verify (f->registry, "verify_crash", NULL);
  recorded = reg_registry_dup_verdict (f->registry, "verify_crash");
  g_assert_nonnull (recorded);
  assert_quarantined (f->registry, "verify_crash", f->dir);
}

/* A store of the first version, whose times are seconds, is read. */
static void
test_store_version_1 (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-crash");
  g_autoptr(RegVerdict) verdict = verify (f->registry, "verify_crash", NULL);
  g_autoptr(RegVerdict) recorded = NULL;
  g_autofree char *store = user_store ();
  g_autofree char *header = NULL;
  g_autoptr(GPtrArray) records = store_records (store, &header);
  g_autoptr(GPtrArray) old = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  GVariant *record = g_ptr_array_index (records, 0);

  g_assert_cmpstr (header, ==, "libreg verdict store 2\n");
  g_ptr_array_add (old, record_with (record, "verify_crash", "crashed", reg_verdict_get_reason (verdict),
                                     record_time (record) / G_USEC_PER_SEC));
  store_write (store, "libreg verdict store 1\n", old);

  assert_quarantined (f->registry, "verify_crash", f->dir);
  recorded = reg_registry_dup_verdict (f->registry, "verify_crash");
  g_assert_cmpint (reg_verdict_get_time (recorded), ==, reg_verdict_get_time (verdict));
}

/* --system (store "system") writes beside the module, for every user;
 * "none" nowhere. */
static void
test_store_system (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-crash");
  g_autoptr(GVariant) none = options_new (20, "none");
  g_autoptr(GVariant) system = options_new (20, "system");
  g_autoptr(RegVerdict) unrecorded = verify (f->registry, "verify_crash", none);
  g_autoptr(RegVerdict) verdict = NULL;
  g_autoptr(RegVerdict) recorded = NULL;
  g_autofree char *beside = g_build_filename (f->dir, "backends.verdicts", NULL);
  g_autofree char *store = user_store ();
  g_autofree char *text = NULL;

  assert_kind (unrecorded, REG_VERDICT_KIND_CRASHED);
  g_assert_null (reg_registry_dup_verdict (f->registry, "verify_crash"));
  g_assert_false (g_file_test (store, G_FILE_TEST_EXISTS));

  verdict = verify (f->registry, "verify_crash", system);
  g_assert_true (g_file_test (beside, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (store, G_FILE_TEST_EXISTS));
  text = read_file (beside, NULL);
  g_assert_nonnull (strstr (text, "'verify_crash', 'crashed'"));

  recorded = reg_registry_dup_verdict (f->registry, "verify_crash");
  g_assert_nonnull (recorded);
  assert_quarantined (f->registry, "verify_crash", f->dir);
}

/* A store that cannot be written loses nothing but the record: the
 * verdict comes back, with the store's error beside it. */
static void
test_store_unwritable (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-unsupported");
  g_autoptr(RegVerdict) verdict = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *store = user_store ();
  g_autofree char *dir = g_path_get_dirname (store);
  const GError *store_error;

  /* $XDG_CACHE_HOME/libreg is a plain file. */
  g_assert_no_errno (g_mkdir_with_parents (g_get_user_cache_dir (), 0700));
  write_file (g_get_user_cache_dir (), "libreg", "not a directory", -1);

  verdict = reg_registry_verify_backend (f->registry, "verify_unsupported", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (verdict);
  assert_kind (verdict, REG_VERDICT_KIND_UNSUPPORTED);
  store_error = reg_verdict_get_store_error (verdict);
  g_assert_nonnull (store_error);
  g_assert_true (store_error->domain == G_FILE_ERROR);
  g_assert_nonnull (strstr (store_error->message, dir));
  g_assert_null (reg_registry_dup_verdict (f->registry, "verify_unsupported"));

  /* A verdict recorded has none. */
  g_clear_object (&verdict);
  g_assert_no_errno (g_unlink (dir));
  verdict = verify (f->registry, "verify_unsupported", NULL);
  g_assert_null (reg_verdict_get_store_error (verdict));
}

/* Whether a process runs with @needle in its command line. */
static gboolean
process_with_argument (const char *needle)
{
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (proc != NULL && (name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, "cmdline", NULL);
      g_autofree char *cmdline = NULL;
      gsize length;

      if (!g_ascii_isdigit (name[0]) || !g_file_get_contents (path, &cmdline, &length, NULL))
        continue;
      for (gsize i = 0; i < length; i += strlen (cmdline + i) + 1)
        if (g_str_equal (cmdline + i, needle))
          return TRUE;
    }

  return FALSE;
}

static gpointer
verify_in_thread (gpointer data)
{
  Fixture *f = data;
  g_autoptr(GVariant) options = options_new (2, "user");

  return reg_registry_verify_backend (f->registry, "verify_hang", options, NULL, NULL);
}

/* A module that changed during its check is another file: the verdict is
 * not recorded, and says why. */
static void
test_store_module_changed (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "verify-hang");
  g_autoptr(RegVerdict) verdict = NULL;
  GThread *thread = g_thread_new ("verify", verify_in_thread, f);
  const GError *store_error;
  GStatBuf st;

  /* Touched once the checker runs. */
  for (guint i = 0; i < 1000 && !process_with_argument (module); i++)
    g_usleep (10 * 1000);
  g_assert_no_errno (g_stat (module, &st));
  g_assert_no_errno (g_utime (module, &(struct utimbuf) { st.st_atime, st.st_mtime + 10 }));

  verdict = g_thread_join (thread);
  g_assert_nonnull (verdict);
  assert_kind (verdict, REG_VERDICT_KIND_TIMEOUT);
  store_error = reg_verdict_get_store_error (verdict);
  g_assert_nonnull (store_error);
  g_assert_nonnull (strstr (store_error->message, "changed while backend 'verify_hang' was checked"));
  g_assert_null (reg_registry_dup_verdict (f->registry, "verify_hang"));
}

/* Writers running at once keep each other's verdicts. */
typedef struct
{
  RegRegistry *registry;
  RegVerdict  *verdict;
} Writer;

static gpointer
writer_run (gpointer data)
{
  Writer *writer = data;

  writer->verdict = reg_registry_verify_backend (writer->registry, "verify_ok", NULL, NULL, NULL);
  return NULL;
}

static void
test_store_concurrent (Fixture       *f,
                       gconstpointer  data)
{
  enum { N_WRITERS = 4 };
  Writer writers[N_WRITERS];
  GThread *threads[N_WRITERS];
  char *dirs[N_WRITERS];
  g_autofree char *store = user_store ();
  g_autofree char *text = NULL;

  for (guint i = 0; i < N_WRITERS; i++)
    {
      dirs[i] = make_tmp_dir ();
      g_free (install_fixture (dirs[i], "verify-ok"));
      writers[i].registry = reg_registry_new ();
      reg_registry_add_search_path (writers[i].registry, dirs[i]);
    }

  for (guint i = 0; i < N_WRITERS; i++)
    threads[i] = g_thread_new ("writer", writer_run, &writers[i]);
  for (guint i = 0; i < N_WRITERS; i++)
    g_thread_join (threads[i]);

  text = read_file (store, NULL);
  for (guint i = 0; i < N_WRITERS; i++)
    {
      g_autoptr(RegVerdict) recorded = reg_registry_dup_verdict (writers[i].registry, "verify_ok");

      g_assert_nonnull (writers[i].verdict);
      g_assert_nonnull (recorded);
      g_assert_cmpstr (reg_verdict_get_module_path (recorded), ==,
                       reg_verdict_get_module_path (writers[i].verdict));
      g_assert_nonnull (strstr (text, dirs[i]));

      g_object_unref (writers[i].verdict);
      g_object_unref (writers[i].registry);
      remove_tmp_dir (dirs[i]);
      g_free (dirs[i]);
    }
}

/* A verdict of a module file that is gone is dropped when the store is
 * next written. */
static void
test_store_prunes (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *ok_module = install_fixture (f->dir, "verify-ok");
  g_autofree char *crash_module = install_fixture (f->dir, "verify-crash");
  g_autoptr(RegVerdict) first = verify (f->registry, "verify_ok", NULL);
  g_autoptr(RegVerdict) second = NULL;
  g_autofree char *store = user_store ();
  g_autofree char *text = NULL;

  g_assert_no_errno (g_unlink (ok_module));
  second = verify (f->registry, "verify_crash", NULL);
  text = read_file (store, NULL);
  g_assert_null (strstr (text, "verify_ok"));
  g_assert_nonnull (strstr (text, "verify_crash"));
}

/* Checking before the first load */

static void
test_before_load (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *crash_module = install_fixture (f->dir, "verify-crash");
  g_autofree char *ok_module = install_fixture (f->dir, "verify-ok");
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(RegVerdict) crash = NULL;
  g_autoptr(RegVerdict) ok = NULL;
  g_autoptr(GError) error = NULL;

  reg_registry_set_module_checks (f->registry, REG_MODULE_CHECKS_VERIFY);

  /* Checked in a child, which dies: this lookup fails, and the process
   * lives. */
  assert_lookup_quarantined (f->registry, "verify_crash", f->dir);
  g_assert_false (file_is_mapped (crash_module));
  crash = reg_registry_dup_verdict (f->registry, "verify_crash");
  g_assert_nonnull (crash);
  assert_kind (crash, REG_VERDICT_KIND_CRASHED);

  /* Checked, then loaded here. */
  compiler = reg_registry_lookup_backend (f->registry, "verify_ok", &error);
  g_assert_no_error (error);
  g_assert_nonnull (compiler);
  g_assert_true (file_is_mapped (ok_module));
  ok = reg_registry_dup_verdict (f->registry, "verify_ok");
  g_assert_nonnull (ok);
  assert_kind (ok, REG_VERDICT_KIND_OK);
}

/* REG_VERIFY_MODULES=1 turns the check on for registries made after. */
static void
test_before_load_environment (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(RegRegistry) plain = reg_registry_new ();
  g_autoptr(RegRegistry) verifying = NULL;
  g_autoptr(RegRegistry) other_value = NULL;

  g_assert_cmpint (reg_registry_get_module_checks (plain), ==, REG_MODULE_CHECKS_QUARANTINE);

  g_setenv ("REG_VERIFY_MODULES", "1", TRUE);
  verifying = reg_registry_new ();
  g_setenv ("REG_VERIFY_MODULES", "yes", TRUE);
  other_value = reg_registry_new ();
  g_unsetenv ("REG_VERIFY_MODULES");

  g_assert_cmpint (reg_registry_get_module_checks (verifying), ==,
                   REG_MODULE_CHECKS_QUARANTINE | REG_MODULE_CHECKS_VERIFY);
  g_assert_cmpint (reg_registry_get_module_checks (other_value), ==, REG_MODULE_CHECKS_QUARANTINE);
}

static void
count_notify (GObject    *object,
              GParamSpec *pspec,
              gpointer    user_data)
{
  (*(guint *) user_data)++;
}

static void
test_module_checks_property (Fixture       *f,
                             gconstpointer  data)
{
  guint n_notified = 0;
  RegModuleChecks checks;

  g_signal_connect (f->registry, "notify::module-checks", G_CALLBACK (count_notify), &n_notified);

  reg_registry_set_module_checks (f->registry, REG_MODULE_CHECKS_QUARANTINE);
  g_assert_cmpuint (n_notified, ==, 0);
  reg_registry_set_module_checks (f->registry, REG_MODULE_CHECKS_NONE);
  g_assert_cmpuint (n_notified, ==, 1);
  g_object_set (f->registry, "module-checks", REG_MODULE_CHECKS_VERIFY, NULL);
  g_assert_cmpuint (n_notified, ==, 2);
  g_object_get (f->registry, "module-checks", &checks, NULL);
  g_assert_cmpint (checks, ==, REG_MODULE_CHECKS_VERIFY);
}

/* Errors */

static void
test_errors (Fixture       *f,
             gconstpointer  data)
{
  static const char * const bad_options[] = {
    "{'timeout': <'x'>}",
    "{'timeout': <0.0>}",
    "{'timeout': <uint32 3>}",
    "{'memory-limit': <-1>}",
    "{'store': <'elsewhere'>}",
    "{'bogus': <1>}",
  };
  g_autoptr(RegCompiler) runtime = reg_func_compiler_new ("runtime", refuse_compile, NULL, NULL);
  g_autofree char *module = install_fixture (f->dir, "verify-ok");
  g_autoptr(GError) error = NULL;
  g_autoptr(RegVerdict) verdict = NULL;

  verdict = reg_registry_verify_backend (f->registry, "verify_ko", NULL, NULL, &error);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
  g_assert_null (verdict);
  g_assert_nonnull (strstr (error->message, "did you mean: 'verify_ok'"));
  g_clear_error (&error);

  g_assert_true (reg_registry_register_backend (f->registry, "runtime", runtime, NULL, &error));
  verdict = reg_registry_verify_backend (f->registry, "runtime", NULL, NULL, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_null (verdict);
  g_clear_error (&error);

  for (guint i = 0; i < G_N_ELEMENTS (bad_options); i++)
    {
      g_autoptr(GVariant) options = g_variant_parse (G_VARIANT_TYPE_VARDICT, bad_options[i], NULL, NULL, NULL);

      g_assert_nonnull (options);
      verdict = reg_registry_verify_backend (f->registry, "verify_ok", options, NULL, &error);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
      g_assert_null (verdict);
      g_clear_error (&error);
    }

  /* A cancelled check gives no verdict. */
  {
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();

    g_cancellable_cancel (cancellable);
    verdict = reg_registry_verify_backend (f->registry, "verify_ok", NULL, cancellable, &error);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_assert_null (verdict);
    g_clear_error (&error);
    g_assert_null (reg_registry_dup_verdict (f->registry, "verify_ok"));
  }

  /* No checker: an error naming it, and the variable that chose it. */
  {
    g_autofree char *helper = g_strdup (g_getenv ("REG_VERIFY_HELPER"));

    g_setenv ("REG_VERIFY_HELPER", "/nonexistent/reg-verify-helper", TRUE);
    verdict = reg_registry_verify_backend (f->registry, "verify_ok", NULL, NULL, &error);
    if (helper != NULL)
      g_setenv ("REG_VERIFY_HELPER", helper, TRUE);
    else
      g_unsetenv ("REG_VERIFY_HELPER");
    g_assert_nonnull (error);
    g_assert_true (error->domain == G_SPAWN_ERROR);
    g_assert_null (verdict);
    g_assert_nonnull (strstr (error->message, "/nonexistent/reg-verify-helper"));
    g_assert_nonnull (strstr (error->message, "REG_VERIFY_HELPER"));
  }
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  /* Only the directories the tests add. */
  g_setenv ("REG_BACKEND_PATH", "", TRUE);
  g_setenv ("REG_BACKEND_SYSTEM_DIR", "", TRUE);
  g_unsetenv ("REG_VERIFY_MODULES");

  debug_messages = g_ptr_array_new_with_free_func (g_free);
  g_log_set_handler (LOG_DOMAIN, G_LOG_LEVEL_DEBUG, capture_debug, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("/verify/verdict/ok", test_verdict_ok);
  ADD ("/verify/verdict/unsupported", test_verdict_unsupported);
  ADD ("/verify/verdict/wrong-results", test_verdict_wrong_results);
  ADD ("/verify/verdict/declared-operators", test_verdict_declared_operators);
  ADD ("/verify/verdict/crashed", test_verdict_crashed);
  ADD ("/verify/verdict/crashed-stage", test_verdict_crashed_stage);
  ADD ("/verify/verdict/timeout", test_verdict_timeout);
  ADD ("/verify/verdict/load-failed", test_verdict_load_failed);
  ADD ("/verify/verdict/builds-on-another", test_verdict_builds_on_another);
  ADD ("/verify/unreachable-not-blamed", test_unreachable_not_blamed);
  ADD ("/verify/memory-limit", test_memory_limit);
  ADD ("/verify/group-killed", test_group_killed);
  ADD ("/verify/checker-not-reached", test_checker_not_reached);
  ADD ("/verify/quarantine/lookup", test_quarantine_lookup);
  ADD ("/verify/quarantine/other-process", test_quarantine_other_process);
  ADD ("/verify/quarantine/lifted-on-change", test_quarantine_lifted_on_change);
  ADD ("/verify/quarantine/checks-off", test_quarantine_checks_off);
  g_test_add_func ("/verify/subprocess/lookup", test_lookup_subprocess);
  ADD ("/verify/store/corrupt", test_store_corrupt);
  ADD ("/verify/store/system", test_store_system);
  ADD ("/verify/store/concurrent", test_store_concurrent);
  ADD ("/verify/store/prunes", test_store_prunes);
  ADD ("/verify/store/version-1", test_store_version_1);
  ADD ("/verify/store/full", test_store_full);
  ADD ("/verify/store/unwritable", test_store_unwritable);
  ADD ("/verify/store/module-changed", test_store_module_changed);
  ADD ("/verify/store/many", test_store_many);
  ADD ("/verify/store/newest-wins", test_store_newest_wins);
  ADD ("/verify/store/read-once", test_store_read_once);
  ADD ("/verify/quarantine/names-checked-backend", test_quarantine_names_checked_backend);
  ADD ("/verify/before-load", test_before_load);
  ADD ("/verify/before-load/environment", test_before_load_environment);
  ADD ("/verify/module-checks-property", test_module_checks_property);
  ADD ("/verify/errors", test_errors);

  ret = g_test_run ();

  g_ptr_array_unref (debug_messages);

  return ret;
}
