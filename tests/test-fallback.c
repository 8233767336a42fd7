/* test-fallback.c: the default backend from the environment, and fallback
 * chains
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include <reg.h>

#include "test-backend.h"
#include "test-files.h"
#include "test-objects.h"

static const char *neg_text =
  "graph(x):\n"
  "  a = neg(x)\n"
  "  return (a,)\n";

/* What the fallback signal said. */
typedef struct
{
  GPtrArray *events;   /* "FAILED->NEXT: MESSAGE" */
} Heard;

static void
on_fallback (RegRegistry  *registry,
             const char   *failed,
             const char   *next,
             const GError *error,
             gpointer      user_data)
{
  Heard *heard = user_data;

  g_ptr_array_add (heard->events, g_strdup_printf ("%s->%s: %s", failed, next, error->message));
}

typedef struct
{
  RegRegistry *registry;
  TestBackend *first;     /* "first", "second", "third" */
  TestBackend *second;
  TestBackend *third;
  GPtrArray   *inputs;
  RegGraph    *graph;
  Heard        heard;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  TestBackend **backends[] = { &f->first, &f->second, &f->third };
  const char *names[] = { "first", "second", "third" };

  f->registry = reg_registry_new ();
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GError) error = NULL;

      *backends[i] = test_backend_new (names[i], REG_COMPILER_FLAGS_NONE);
      g_assert_true (reg_registry_register_backend (f->registry, NULL,
                                                    REG_COMPILER (*backends[i]), NULL, &error));
    }
  f->inputs = tensor_array_new ();
  g_ptr_array_add (f->inputs, reg_tensor_new ((const gint64[]) { 2 }, 1));
  f->graph = graph_new_from_string (neg_text);
  f->heard.events = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (f->registry, "fallback", G_CALLBACK (on_fallback), &f->heard);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_ptr_array_unref (f->heard.events);
  g_object_unref (f->graph);
  g_ptr_array_unref (f->inputs);
  g_object_unref (f->first);
  g_object_unref (f->second);
  g_object_unref (f->third);
  g_object_unref (f->registry);
}

static void
set_chain (Fixture    *f,
           const char *first_name,
           ...)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  const char *name = first_name;
  va_list args;

  va_start (args, first_name);
  while (name != NULL)
    {
      g_ptr_array_add (names, (gpointer) name);
      name = va_arg (args, const char *);
    }
  va_end (args);
  g_ptr_array_add (names, NULL);

  reg_registry_set_fallback_backends (f->registry, (const char * const *) names->pdata);
}

/* Empty by default: the error of the backend asked for, and no signal. */
static void
test_no_chain (Fixture       *f,
               gconstpointer  data)
{
  g_auto(GStrv) chain = reg_registry_dup_fallback_backends (f->registry);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpuint (g_strv_length (chain), ==, 0);
  test_backend_fail_with (f->first, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  fn = reg_registry_compile (f->registry, "first", f->graph, f->inputs, NULL, &error);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  g_assert_cmpstr (error->message, ==, "first fails as told");
  g_assert_cmpuint (f->heard.events->len, ==, 0);
}

/* The errors that mean the backend cannot do it fall back, each visibly:
 * the signal, one message, and the function says who compiled it. */
static void
test_falls_back (Fixture       *f,
                 gconstpointer  data)
{
  static const struct {
    gint        code;
    const char *message;
  } cases[] = {
    { REG_COMPILER_ERROR_UNSUPPORTED_OP, NULL },
    { REG_COMPILER_ERROR_FAILED, NULL },
    { REG_COMPILER_ERROR_BACKEND_UNAVAILABLE, NULL },
  };

  set_chain (f, "second", "third", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(RegCompiledFn) fn = NULL;
      g_autoptr(GError) error = NULL;

      test_backend_fail_with (f->first, REG_COMPILER_ERROR, cases[i].code);
      g_test_expect_message ("Reg", G_LOG_LEVEL_MESSAGE,
                             "backend 'first' cannot compile the graph (first fails as told); "
                             "falling back to 'second'");
      fn = reg_registry_compile (f->registry, "first", f->graph, f->inputs, NULL, &error);
      g_test_assert_expected_messages ();
      g_assert_no_error (error);
      g_assert_cmpstr (reg_compiled_fn_get_backend (fn), ==, "second");
      g_assert_cmpuint (f->heard.events->len, ==, i + 1);
      g_assert_cmpstr (g_ptr_array_index (f->heard.events, i), ==,
                       "first->second: first fails as told");
    }
  g_assert_cmpint (test_backend_get_compiles (f->third), ==, 0);
}

/* A module that cannot be loaded falls back too. */
static void
test_load_failed_falls_back (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;

  write_file (dir, "broken.backend",
                   "[Reg Module]\nModule=libnot-there.so\nAbiVersion=2\n\n[Backend broken]\n", -1);
  reg_registry_add_search_path (f->registry, dir);
  set_chain (f, "second", NULL);

  g_test_expect_message ("Reg", G_LOG_LEVEL_MESSAGE,
                         "backend 'broken' cannot compile the graph (*); falling back to 'second'");
  fn = reg_registry_compile (f->registry, "broken", f->graph, f->inputs, NULL, &error);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_cmpstr (reg_compiled_fn_get_backend (fn), ==, "second");
  g_assert_true (g_str_has_prefix (g_ptr_array_index (f->heard.events, 0), "broken->second: "));
  remove_tmp_dir (dir);
}

/* Errors that are the caller's never fall back. */
static void
test_never_falls_back (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GPtrArray) wrong_inputs = tensor_array_new ();
  g_autoptr(RegGraph) bad_graph = reg_graph_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;

  set_chain (f, "second", NULL);

  /* the backend's own verdicts on the options and the inputs */
  test_backend_fail_with (f->first, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
  fn = reg_registry_compile (f->registry, "first", f->graph, f->inputs, NULL, &error);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
  g_clear_error (&error);
  test_backend_fail_with (f->first, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_INPUTS);
  fn = reg_registry_compile (f->registry, "first", f->graph, f->inputs, NULL, &error);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_INPUTS);
  g_clear_error (&error);
  /* a compile the caller cancelled (through the current cancellable) */
  test_backend_fail_with (f->first, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  fn = reg_registry_compile (f->registry, "first", f->graph, f->inputs, NULL, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  test_backend_fail_with (f->first, 0, 0);

  /* options that are no dictionary */
  fn = reg_registry_compile (f->registry, "first", f->graph, f->inputs,
                             g_variant_new_int32 (1), &error);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
  g_clear_error (&error);

  /* a graph its inputs do not fit, and a graph that is no graph */
  g_ptr_array_add (wrong_inputs, reg_tensor_new ((const gint64[]) { 2 }, 1));
  g_ptr_array_add (wrong_inputs, reg_tensor_new ((const gint64[]) { 2 }, 1));
  fn = reg_registry_compile (f->registry, "first", f->graph, wrong_inputs, NULL, &error);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE);
  g_clear_error (&error);
  fn = reg_registry_compile (f->registry, "first", bad_graph, f->inputs, NULL, &error);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_PARSE);
  g_clear_error (&error);

  /* a backend that does not exist, or a name that cannot be one */
  fn = reg_registry_compile (f->registry, "frist", f->graph, f->inputs, NULL, &error);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
  g_clear_error (&error);
  fn = reg_registry_compile (f->registry, "no such", f->graph, f->inputs, NULL, &error);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);

  g_assert_cmpint (test_backend_get_compiles (f->second), ==, 0);
  g_assert_cmpuint (f->heard.events->len, ==, 0);
}

/* Options are the asked backend's: fallbacks compile with their defaults. */
static void
test_options_not_passed_on (Fixture       *f,
                            gconstpointer  data)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;

  g_variant_builder_add (&builder, "{sv}", "speed", g_variant_new_uint32 (3));
  set_chain (f, "second", NULL);
  test_backend_fail_with (f->first, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
  g_test_expect_message ("Reg", G_LOG_LEVEL_MESSAGE, "*falling back to 'second'");
  fn = reg_registry_compile (f->registry, "first", f->graph, f->inputs,
                             g_variant_builder_end (&builder), &error);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_nonnull (f->first->last_options);
  g_assert_null (f->second->last_options);
}

/* When the whole chain fails: the first error, with the others' reasons;
 * a name that is no backend, or the one asked for again, is passed over. */
static void
test_whole_chain_fails (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;

  set_chain (f, "first", "nothing", "second", NULL);
  test_backend_fail_with (f->first, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  test_backend_fail_with (f->second, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
  g_test_expect_message ("Reg", G_LOG_LEVEL_MESSAGE, "*'first'*falling back to 'nothing'");
  g_test_expect_message ("Reg", G_LOG_LEVEL_MESSAGE, "*'nothing'*falling back to 'second'");
  fn = reg_registry_compile (f->registry, "first", f->graph, f->inputs, NULL, &error);
  g_test_assert_expected_messages ();
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  g_assert_cmpstr (error->message, ==,
                   "first fails as told (and every fallback failed; 'nothing': Invalid backend: "
                   "'nothing'. See `regctl list` for available backends; 'second': second "
                   "fails as told)");
  g_assert_cmpint (test_backend_get_compiles (f->first), ==, 1);
  g_assert_cmpuint (f->heard.events->len, ==, 2);
}

static void
count_message (const char     *log_domain,
               GLogLevelFlags  log_level,
               const char     *message,
               gpointer        user_data)
{
  guint *n = user_data;

  if (strstr (message, "falling back to") != NULL)
    (*n)++;
}

/* A chain of 30,000 names that are no backends, some given twice: each
 * name is tried once, and the error holds the reasons of the first few
 * fallbacks and says how many more failed (it held every one, megabytes
 * on one line). */
static void
test_long_chain (Fixture       *f,
                 gconstpointer  data)
{
  const guint n = 30000;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *more = NULL;
  guint logged = 0;
  guint handler;

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (names, g_strdup_printf ("none%u", i));
  g_ptr_array_add (names, g_strdup ("first"));
  g_ptr_array_add (names, g_strdup ("none0"));
  g_ptr_array_add (names, NULL);
  reg_registry_set_fallback_backends (f->registry, (const char * const *) names->pdata);

  test_backend_fail_with (f->first, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  handler = g_log_set_handler ("Reg", G_LOG_LEVEL_MESSAGE, count_message, &logged);
  fn = reg_registry_compile (f->registry, "first", f->graph, f->inputs, NULL, &error);
  g_log_remove_handler ("Reg", handler);

  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  g_assert_cmpuint (f->heard.events->len, ==, n);
  g_assert_cmpuint (logged, ==, n);
  g_assert_cmpint (test_backend_get_compiles (f->first), ==, 1);

  g_assert_cmpuint (strlen (error->message), <, 8192);
  g_assert_true (g_str_has_prefix (error->message,
                                   "first fails as told (and every fallback failed; 'none0': "
                                   "Invalid backend: 'none0'"));
  more = g_strdup_printf ("; and %u more)", n - 8);
  g_assert_true (g_str_has_suffix (error->message, more));
}

/* Whether @message reads as one sentence where it embeds others: no
 * period that ends an embedded message runs into the text after it. */
static void
assert_reads_on (const char *message)
{
  const char *stops[] = { ".;", ".)", ". (", "..", ".," };

  for (guint i = 0; i < G_N_ELEMENTS (stops); i++)
    if (strstr (message, stops[i]) != NULL)
      g_error ("'%s' in \"%s\"", stops[i], message);
}

static void
collect_message (const char     *log_domain,
                 GLogLevelFlags  log_level,
                 const char     *message,
                 gpointer        user_data)
{
  g_ptr_array_add (user_data, g_strdup (message));
}

/* Messages made of other messages (a load failure, an unknown name, a
 * backend's failure, each ending with a period or not) read as one
 * sentence: the fallback messages, and the error of a chain that fails. */
static void
test_messages_read_on (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autoptr(GPtrArray) logged = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *pattern = NULL;
  guint handler;

  write_file (dir, "broken.backend",
              "[Reg Module]\nModule=libnot-there.so\nAbiVersion=2\n\n[Backend broken]\n", -1);
  reg_registry_add_search_path (f->registry, dir);
  set_chain (f, "nothing", "second", NULL);
  test_backend_fail_with (f->second, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);

  handler = g_log_set_handler ("Reg", G_LOG_LEVEL_MESSAGE, collect_message, logged);
  fn = reg_registry_compile (f->registry, "broken", f->graph, f->inputs, NULL, &error);
  g_log_remove_handler ("Reg", handler);

  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
  pattern = g_strdup_printf ("backend 'broken' (declared by %s/broken.backend): module "
                             "%s/libnot-there.so cannot be opened: *. Install the module file, "
                             "or fix Module= in the manifest (and every fallback failed; "
                             "'nothing': Invalid backend: 'nothing'. See `regctl list` for "
                             "available backends; 'second': second fails as told)", dir, dir);
  if (!g_pattern_match_simple (pattern, error->message))
    g_error ("\"%s\" does not match \"%s\"", error->message, pattern);
  assert_reads_on (error->message);

  g_assert_cmpuint (logged->len, ==, 2);
  g_assert_true (g_pattern_match_simple ("backend 'broken' cannot compile the graph (backend "
                                         "'broken' (declared by *): *, or fix Module= in the "
                                         "manifest); falling back to 'nothing'",
                                         g_ptr_array_index (logged, 0)));
  g_assert_cmpstr (g_ptr_array_index (logged, 1), ==,
                   "backend 'nothing' cannot compile the graph (Invalid backend: 'nothing'. See "
                   "`regctl list` for available backends); falling back to 'second'");
  for (guint i = 0; i < logged->len; i++)
    assert_reads_on (g_ptr_array_index (logged, i));

  remove_tmp_dir (dir);
}

/* A load failure that embeds another failure that ends with a hint: the
 * check before loading could not run, because the checker could not be
 * started. */
static void
test_checker_missing_reads_on (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(GError) error = NULL;

  g_setenv ("REG_VERIFY_HELPER", "/nonexistent/reg-verify-helper", TRUE);
  reg_registry_add_search_path (f->registry, TEST_BUILDDIR G_DIR_SEPARATOR_S "modules");
  reg_registry_set_module_checks (f->registry, REG_MODULE_CHECKS_VERIFY);
  compiler = reg_registry_lookup_backend (f->registry, "verify_ok", &error);
  g_unsetenv ("REG_VERIFY_HELPER");

  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
  if (!g_pattern_match_simple ("*the check could not run: The checker /nonexistent/"
                               "reg-verify-helper cannot be started: *. Install it, or name "
                               "another one with REG_VERIFY_HELPER. Install libreg's checker, *",
                               error->message))
    g_error ("unexpected: %s", error->message);
  assert_reads_on (error->message);
}

/* A handler may call back into the registry, even compile again. */
static void
on_fallback_compile_again (RegRegistry  *registry,
                           const char   *failed,
                           const char   *next,
                           const GError *error,
                           gpointer      user_data)
{
  Fixture *f = user_data;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  g_auto(GStrv) names = reg_registry_list_backends (registry, NULL);

  g_assert_nonnull (names);
  fn = reg_registry_compile (registry, "third", f->graph, f->inputs, NULL, &local_error);
  g_assert_no_error (local_error);
}

static void
test_reentrant_handler (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;

  g_signal_connect (f->registry, "fallback", G_CALLBACK (on_fallback_compile_again), f);
  set_chain (f, "second", NULL);
  test_backend_fail_with (f->first, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
  g_test_expect_message ("Reg", G_LOG_LEVEL_MESSAGE, "*falling back to 'second'");
  fn = reg_registry_compile (f->registry, "first", f->graph, f->inputs, NULL, &error);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_cmpint (test_backend_get_compiles (f->third), ==, 1);
}

/* The default backend falls back as a named one does. */
static void
test_default_falls_back (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;

  reg_registry_set_default_backend (f->registry, "first");
  set_chain (f, "third", NULL);
  test_backend_fail_with (f->first, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
  g_test_expect_message ("Reg", G_LOG_LEVEL_MESSAGE, "*'first'*falling back to 'third'");
  fn = reg_registry_compile (f->registry, NULL, f->graph, f->inputs, NULL, &error);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_cmpstr (reg_compiled_fn_get_backend (fn), ==, "third");
}

static void
test_chain_property (Fixture       *f,
                     gconstpointer  data)
{
  g_auto(GStrv) chain = NULL;
  guint notified = 0;

  g_signal_connect_swapped (f->registry, "notify::fallback-backends",
                            G_CALLBACK (g_atomic_int_inc), &notified);
  set_chain (f, "a", "", "b", NULL);
  set_chain (f, "a", "b", NULL);
  g_object_get (f->registry, "fallback-backends", &chain, NULL);
  g_assert_cmpstrv (chain, ((const char *[]) { "a", "b", NULL }));
  g_assert_cmpuint (notified, ==, 1);
  reg_registry_set_fallback_backends (f->registry, NULL);
  g_clear_pointer (&chain, g_strfreev);
  chain = reg_registry_dup_fallback_backends (f->registry);
  g_assert_cmpuint (g_strv_length (chain), ==, 0);
  g_assert_cmpuint (notified, ==, 2);
}

/* A name that breaks the naming rules is refused where it is set: with a
 * critical warning naming it, the chain unchanged and not notified.  A
 * name that follows them need not be a backend yet. */
static void
test_invalid_names_refused (Fixture       *f,
                            gconstpointer  data)
{
  g_auto(GStrv) chain = NULL;
  guint notified = 0;

  set_chain (f, "second", "eagr", NULL);
  g_signal_connect_swapped (f->registry, "notify::fallback-backends",
                            G_CALLBACK (g_atomic_int_inc), &notified);

  g_test_expect_message ("Reg", G_LOG_LEVEL_CRITICAL,
                         "reg_registry_set_fallback_backends: invalid backend name 'in ductor': "
                         "white space U+0020 at byte 2 is not allowed; the fallback backends are "
                         "unchanged");
  set_chain (f, "third", "in ductor", NULL);
  g_test_assert_expected_messages ();

  g_test_expect_message ("Reg", G_LOG_LEVEL_CRITICAL,
                         "reg_registry_set_fallback_backends: 2 names break the naming rules, "
                         "the first: invalid backend name 'a/b': character '/' at byte 1 is not "
                         "allowed; the fallback backends are unchanged");
  g_object_set (f->registry, "fallback-backends",
                (const char * const[]) { "a/b", "third", "c;d", NULL }, NULL);
  g_test_assert_expected_messages ();

  chain = reg_registry_dup_fallback_backends (f->registry);
  g_assert_cmpstrv (chain, ((const char *[]) { "second", "eagr", NULL }));
  g_assert_cmpuint (notified, ==, 0);
}

/* REG_FALLBACK_BACKENDS and REG_DEFAULT_BACKEND, read when a registry is
 * made; the application's settings win. */
static void
test_environment (void)
{
  g_autoptr(RegRegistry) registry = NULL;
  g_auto(GStrv) chain = NULL;
  g_autofree char *name = NULL;

  g_setenv ("REG_FALLBACK_BACKENDS", "eager::inductor:", TRUE);
  g_setenv ("REG_DEFAULT_BACKEND", "eager", TRUE);
  registry = reg_registry_new ();
  g_unsetenv ("REG_FALLBACK_BACKENDS");
  g_unsetenv ("REG_DEFAULT_BACKEND");

  chain = reg_registry_dup_fallback_backends (registry);
  g_assert_cmpstrv (chain, ((const char *[]) { "eager", "inductor", NULL }));
  name = reg_registry_dup_default_backend (registry);
  g_assert_cmpstr (name, ==, "eager");
  g_assert_cmpint (reg_registry_get_default_backend_source (registry), ==,
                   REG_SETTING_SOURCE_ENVIRONMENT);

  reg_registry_set_default_backend (registry, "inductor");
  g_assert_cmpint (reg_registry_get_default_backend_source (registry), ==,
                   REG_SETTING_SOURCE_APPLICATION);
  reg_registry_set_default_backend (registry, NULL);
  g_assert_cmpint (reg_registry_get_default_backend_source (registry), ==,
                   REG_SETTING_SOURCE_BUILT_IN);
}

/* Names of REG_FALLBACK_BACKENDS that break the naming rules are left
 * out, with one warning; the others are kept in order. */
static void
test_environment_invalid_names (void)
{
  g_autoptr(RegRegistry) one = NULL;
  g_autoptr(RegRegistry) two = NULL;
  g_auto(GStrv) chain = NULL;

  g_setenv ("REG_FALLBACK_BACKENDS", "eager:in ductor:inductor", TRUE);
  g_test_expect_message ("Reg", G_LOG_LEVEL_WARNING,
                         "REG_FALLBACK_BACKENDS: invalid backend name 'in ductor': white space "
                         "U+0020 at byte 2 is not allowed; the name is left out");
  one = reg_registry_new ();
  g_test_assert_expected_messages ();
  chain = reg_registry_dup_fallback_backends (one);
  g_assert_cmpstrv (chain, ((const char *[]) { "eager", "inductor", NULL }));
  g_clear_pointer (&chain, g_strfreev);

  g_setenv ("REG_FALLBACK_BACKENDS", "a/b:eagr:x=y:[z]", TRUE);
  g_test_expect_message ("Reg", G_LOG_LEVEL_WARNING,
                         "REG_FALLBACK_BACKENDS: 3 names break the naming rules and are left "
                         "out, the first: invalid backend name 'a/b': character '/' at byte 1 is "
                         "not allowed");
  two = reg_registry_new ();
  g_test_assert_expected_messages ();
  g_unsetenv ("REG_FALLBACK_BACKENDS");
  chain = reg_registry_dup_fallback_backends (two);
  g_assert_cmpstrv (chain, ((const char *[]) { "eagr", NULL }));
}

/* An unknown REG_DEFAULT_BACKEND is reported once, at first use, with
 * suggestions, and the built-in default takes its place. */
static void
test_environment_unknown_default (void)
{
  g_autoptr(RegRegistry) registry = NULL;
  g_autoptr(TestBackend) inductor = test_backend_new ("inductor", REG_COMPILER_FLAGS_NONE);
  g_autoptr(RegCompiler) first = NULL;
  g_autoptr(RegCompiler) second = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  guint notified = 0;

  g_setenv ("REG_DEFAULT_BACKEND", "indcutor", TRUE);
  registry = reg_registry_new ();
  g_unsetenv ("REG_DEFAULT_BACKEND");
  g_assert_true (reg_registry_register_backend (registry, NULL, REG_COMPILER (inductor), NULL, &error));
  g_signal_connect_swapped (registry, "notify::default-backend",
                            G_CALLBACK (g_atomic_int_inc), &notified);

  g_test_expect_message ("Reg", G_LOG_LEVEL_WARNING,
                         "REG_DEFAULT_BACKEND is ignored: Invalid backend: 'indcutor', did you "
                         "mean: 'inductor'? See `regctl list` for available backends; the "
                         "default backend is 'inductor'");
  first = reg_registry_dup_default_compiler (registry, &error);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_true (first == REG_COMPILER (inductor));

  /* once */
  second = reg_registry_dup_default_compiler (registry, &error);
  g_assert_no_error (error);
  g_assert_true (second == first);
  name = reg_registry_dup_default_backend (registry);
  g_assert_cmpstr (name, ==, "inductor");
  g_assert_cmpint (reg_registry_get_default_backend_source (registry), ==,
                   REG_SETTING_SOURCE_BUILT_IN);
  g_assert_cmpuint (notified, ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_unsetenv ("REG_BACKEND_PATH");
  g_setenv ("REG_BACKEND_SYSTEM_DIR", "", TRUE);
  g_unsetenv ("REG_DEFAULT_BACKEND");
  g_unsetenv ("REG_FALLBACK_BACKENDS");

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/fallback/no-chain", test_no_chain);
  ADD ("/fallback/falls-back", test_falls_back);
  ADD ("/fallback/load-failed", test_load_failed_falls_back);
  ADD ("/fallback/never", test_never_falls_back);
  ADD ("/fallback/options-not-passed-on", test_options_not_passed_on);
  ADD ("/fallback/whole-chain-fails", test_whole_chain_fails);
  ADD ("/fallback/long-chain", test_long_chain);
  ADD ("/fallback/messages-read-on", test_messages_read_on);
  ADD ("/fallback/checker-missing-reads-on", test_checker_missing_reads_on);
  ADD ("/fallback/reentrant-handler", test_reentrant_handler);
  ADD ("/fallback/default", test_default_falls_back);
  ADD ("/fallback/property", test_chain_property);
  ADD ("/fallback/invalid-names-refused", test_invalid_names_refused);
#undef ADD
  g_test_add_func ("/fallback/environment", test_environment);
  g_test_add_func ("/fallback/environment/unknown-default", test_environment_unknown_default);
  g_test_add_func ("/fallback/environment/invalid-names", test_environment_invalid_names);

  return g_test_run ();
}
