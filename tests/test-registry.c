/* test-registry.c: RegRegistry with runtime backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include <reg.h>

#include "test-objects.h"

static RegCompiler *
make_compiler (const char *name)
{
  return reg_func_compiler_new (name, refuse_compile, NULL, NULL);
}

static void
register_ok (RegRegistry        *reg,
             const char         *name,
             const char * const *tags)
{
  g_autoptr(RegCompiler) compiler = make_compiler (name);
  g_autoptr(GError) error = NULL;

  g_assert_true (reg_registry_register_backend (reg, name, compiler, tags, &error));
  g_assert_no_error (error);
}

static void
assert_strv_equal (char       **got,
                   const char  *expected_joined)
{
  g_autofree char *joined = g_strjoinv (",", got);

  g_assert_cmpstr (joined, ==, expected_joined);
}

static void
test_default_singleton (void)
{
  RegRegistry *a = reg_registry_get_default ();
  RegRegistry *b = reg_registry_get_default ();

  g_assert_true (REG_IS_REGISTRY (a));
  g_assert_true (a == b);
}

static gpointer
get_default_thread (gpointer data)
{
  return reg_registry_get_default ();
}

static void
test_default_singleton_threads (void)
{
  if (g_test_subprocess ())
    {
      GThread *threads[8];
      gpointer first;

      for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
        threads[i] = g_thread_new ("get-default", get_default_thread, NULL);
      first = g_thread_join (threads[0]);
      for (guint i = 1; i < G_N_ELEMENTS (threads); i++)
        g_assert_true (g_thread_join (threads[i]) == first);
      g_assert_true (first == reg_registry_get_default ());
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static void
test_new_is_empty (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_auto(GStrv) names = reg_registry_list_backends (reg, (const char *[]) { NULL });

  g_assert_true (reg != reg_registry_get_default ());
  g_assert_cmpuint (g_strv_length (names), ==, 0);
}

static void
test_register_lookup (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(RegCompiler) compiler = make_compiler ("mine");
  g_autoptr(RegCompiler) found = NULL;
  g_autoptr(GError) error = NULL;
  gpointer weak = NULL;
  guint before;

  g_assert_true (reg_registry_register_backend (reg, "mine", compiler, NULL, &error));
  g_assert_no_error (error);

  found = reg_registry_lookup_backend (reg, "mine", &error);
  g_assert_no_error (error);
  g_assert_true (found == compiler);
  g_clear_object (&found);

  /* transfer full: each lookup gives the caller one reference of its own
   * (the first one may also have made the registry's lookup snapshot) */
  before = G_OBJECT (compiler)->ref_count;
  found = reg_registry_lookup_backend (reg, "mine", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (G_OBJECT (compiler)->ref_count, ==, before + 1);
  g_clear_object (&found);
  g_assert_cmpuint (G_OBJECT (compiler)->ref_count, ==, before);
  g_assert_true (reg_registry_is_registered (reg, compiler));

  /* the registry's references go with it */
  g_object_add_weak_pointer (G_OBJECT (compiler), (gpointer *) &weak);
  g_clear_object (&reg);
  g_clear_object (&compiler);
  g_assert_null (weak);
}

static void
test_register_null_name (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(RegCompiler) compiler = make_compiler ("own_name");
  g_autoptr(RegCompiler) found = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (reg_registry_register_backend (reg, NULL, compiler, NULL, &error));
  g_assert_no_error (error);
  found = reg_registry_lookup_backend (reg, "own_name", &error);
  g_assert_no_error (error);
  g_assert_true (found == compiler);
}

static void
test_register_duplicate (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(RegCompiler) first = make_compiler ("first");
  g_autoptr(RegCompiler) second = make_compiler ("second");
  g_autoptr(RegCompiler) found = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) tags = NULL;
  const char * const debug[] = { REG_TAG_DEBUG, NULL };

  g_assert_true (reg_registry_register_backend (reg, "dup", first, NULL, &error));
  g_assert_false (reg_registry_register_backend (reg, "dup", second, debug, &error));
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_DUPLICATE_NAME);
  g_assert_cmpstr (error->message, ==, "duplicate name: dup");
  g_clear_error (&error);

  /* nothing changed: same object, same (empty) tags */
  found = reg_registry_lookup_backend (reg, "dup", &error);
  g_assert_true (found == first);
  tags = reg_registry_get_backend_tags (reg, "dup", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (tags), ==, 0);
  g_assert_false (reg_registry_is_registered (reg, second));
}

static void
test_register_same_object_twice (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(RegCompiler) compiler = make_compiler ("c");
  g_autoptr(GError) error = NULL;

  g_assert_true (reg_registry_register_backend (reg, "one", compiler, NULL, &error));
  g_assert_true (reg_registry_register_backend (reg, "two", compiler, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (reg_registry_unregister_backend (reg, "one", &error));
  g_assert_true (reg_registry_is_registered (reg, compiler));
  g_assert_true (reg_registry_unregister_backend (reg, "two", &error));
  g_assert_false (reg_registry_is_registered (reg, compiler));
  g_assert_no_error (error);
}

static void
test_register_debug_experimental (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(RegCompiler) d = make_compiler ("d");
  g_autoptr(RegCompiler) e = make_compiler ("e");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) d_tags = NULL;
  g_auto(GStrv) e_tags = NULL;

  g_assert_true (reg_registry_register_debug_backend (reg, NULL, d, &error));
  g_assert_true (reg_registry_register_experimental_backend (reg, "exp", e, &error));
  g_assert_no_error (error);

  d_tags = reg_registry_get_backend_tags (reg, "d", &error);
  e_tags = reg_registry_get_backend_tags (reg, "exp", &error);
  g_assert_no_error (error);
  assert_strv_equal (d_tags, "debug");
  assert_strv_equal (e_tags, "experimental");
}

static void
test_register_tags_order (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) tags = NULL;

  register_ok (reg, "t", (const char *[]) { "zeta", "alpha", "zeta", "gpu", "alpha", NULL });
  tags = reg_registry_get_backend_tags (reg, "t", &error);
  g_assert_no_error (error);
  assert_strv_equal (tags, "zeta,alpha,gpu");
}

static void
test_register_invalid (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(RegCompiler) compiler = make_compiler ("c");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = NULL;
  const char *bad_names[] = { "", "a b", "a/b", "x\ty", "quote'", "semi;colon", "é\xff" };

  for (guint i = 0; i < G_N_ELEMENTS (bad_names); i++)
    {
      g_assert_false (reg_registry_register_backend (reg, bad_names[i], compiler, NULL, &error));
      g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_NAME);
      g_clear_error (&error);
    }

  g_assert_false (reg_registry_register_backend (reg, "fine", compiler,
                                                 (const char *[]) { "ok", "not ok", NULL },
                                                 &error));
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_NAME);
  g_assert_nonnull (strstr (error->message, "U+0020"));

  /* nothing was added */
  names = reg_registry_list_backends (reg, (const char *[]) { NULL });
  g_assert_cmpuint (g_strv_length (names), ==, 0);
  g_assert_false (reg_registry_is_registered (reg, compiler));
}

static void
test_unregister (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(RegCompiler) compiler = make_compiler ("gone");
  g_autoptr(RegCompiler) kept = NULL;
  g_autoptr(RegCompiler) found = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (reg_registry_register_backend (reg, "gone", compiler, NULL, &error));
  kept = reg_registry_lookup_backend (reg, "gone", &error);
  g_assert_true (reg_registry_unregister_backend (reg, "gone", &error));
  g_assert_no_error (error);

  /* a compiler handed out before stays valid */
  g_assert_true (REG_IS_COMPILER (kept));
  g_assert_cmpstr (reg_compiler_get_name (kept), ==, "gone");

  found = reg_registry_lookup_backend (reg, "gone", &error);
  g_assert_null (found);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
  g_clear_error (&error);

  g_assert_false (reg_registry_unregister_backend (reg, "gone", &error));
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
  g_clear_error (&error);

  /* the name is free again */
  register_ok (reg, "gone", NULL);
}

static void
test_lookup_unknown (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(RegCompiler) found = NULL;
  g_autoptr(GError) error = NULL;

  register_ok (reg, "inductor", NULL);
  found = reg_registry_lookup_backend (reg, "zzz", &error);
  g_assert_null (found);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
  g_assert_cmpstr (error->message, ==,
                   "Invalid backend: 'zzz'. See `regctl list` for available backends.");
}

static RegRegistry *
make_torch_like_registry (void)
{
  RegRegistry *reg = reg_registry_new ();
  const char * const debug[] = { REG_TAG_DEBUG, NULL };
  const char * const experimental[] = { REG_TAG_EXPERIMENTAL, NULL };

  register_ok (reg, "inductor", NULL);
  register_ok (reg, "eager", debug);
  register_ok (reg, "aot_eager", debug);
  register_ok (reg, "aot_eager_decomp_partition", debug);
  register_ok (reg, "cudagraphs", NULL);
  register_ok (reg, "onnxrt", NULL);
  register_ok (reg, "tvm", experimental);
  register_ok (reg, "debug_backend", debug);

  return reg;
}

/* The expected suggestions are what Python's difflib.get_close_matches
 * (word, names, 3, 0.6) returns for these names. */
static void
test_lookup_unknown_suggests (void)
{
  g_autoptr(RegRegistry) reg = make_torch_like_registry ();
  g_autoptr(RegCompiler) found = NULL;
  g_autoptr(GError) error = NULL;

  found = reg_registry_lookup_backend (reg, "eagr", &error);
  g_assert_null (found);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
  g_assert_cmpstr (error->message, ==,
                   "Invalid backend: 'eagr', did you mean: 'eager', 'aot_eager'? "
                   "See `regctl list` for available backends.");
  g_clear_error (&error);

  found = reg_registry_lookup_backend (reg, "inductr", &error);
  g_assert_cmpstr (error->message, ==,
                   "Invalid backend: 'inductr', did you mean: 'inductor'? "
                   "See `regctl list` for available backends.");
  g_clear_error (&error);

  /* debug and experimental names are suggested too */
  found = reg_registry_lookup_backend (reg, "tv", &error);
  g_assert_cmpstr (error->message, ==,
                   "Invalid backend: 'tv', did you mean: 'tvm'? "
                   "See `regctl list` for available backends.");
}

static void
test_suggest (void)
{
  g_autoptr(RegRegistry) reg = make_torch_like_registry ();
  g_auto(GStrv) eagr = reg_registry_suggest (reg, "eagr");
  g_auto(GStrv) aot = reg_registry_suggest (reg, "aot");
  g_auto(GStrv) exact = reg_registry_suggest (reg, "cudagraphs");

  assert_strv_equal (eagr, "eager,aot_eager");
  g_assert_cmpuint (g_strv_length (aot), ==, 0);
  assert_strv_equal (exact, "cudagraphs");
}

static void
test_list (void)
{
  g_autoptr(RegRegistry) reg = make_torch_like_registry ();
  g_auto(GStrv) visible = reg_registry_list_backends (reg, NULL);
  g_auto(GStrv) all = reg_registry_list_backends (reg, (const char *[]) { NULL });
  g_auto(GStrv) no_debug = reg_registry_list_backends (reg, (const char *[]) { "debug", NULL });
  g_auto(GStrv) unknown_tag = reg_registry_list_backends (reg, (const char *[]) { "gpu", NULL });

  assert_strv_equal (visible, "cudagraphs,inductor,onnxrt");
  assert_strv_equal (all, "aot_eager,aot_eager_decomp_partition,cudagraphs,debug_backend,"
                          "eager,inductor,onnxrt,tvm");
  assert_strv_equal (no_debug, "cudagraphs,inductor,onnxrt,tvm");
  g_assert_cmpuint (g_strv_length (unknown_tag), ==, 8);
}

static void
test_list_byte_order (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_auto(GStrv) names = NULL;

  register_ok (reg, "b", NULL);
  register_ok (reg, "\xc3\xa9t\xc3\xa9", NULL);  /* été */
  register_ok (reg, "B", NULL);
  register_ok (reg, "a_1", NULL);
  register_ok (reg, "a-1", NULL);
  register_ok (reg, "_x", NULL);

  names = reg_registry_list_backends (reg, NULL);
  assert_strv_equal (names, "B,_x,a-1,a_1,b,\xc3\xa9t\xc3\xa9");
}

static void
test_tags_unknown (void)
{
  g_autoptr(RegRegistry) reg = make_torch_like_registry ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) tags = reg_registry_get_backend_tags (reg, "eagr", &error);

  g_assert_null (tags);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
  g_assert_nonnull (strstr (error->message, "'eager'"));
}

static void
test_info_runtime (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(RegBackendInfo) info = NULL;
  g_autoptr(RegBackendInfo) missing = NULL;
  g_auto(GStrv) tags_prop = NULL;
  g_autofree char *name_prop = NULL;
  g_autofree char *path_prop = NULL;
  RegBackendOrigin origin_prop;
  gboolean loaded_prop;

  register_ok (reg, "rt", (const char *[]) { "debug", "fast", NULL });
  info = reg_registry_get_backend_info (reg, "rt");
  g_assert_nonnull (info);
  g_assert_cmpstr (reg_backend_info_get_name (info), ==, "rt");
  assert_strv_equal ((char **) reg_backend_info_get_tags (info), "debug,fast");
  g_assert_null (reg_backend_info_get_description (info));
  g_assert_null (reg_backend_info_get_module_path (info));
  g_assert_true (reg_backend_info_get_loaded (info));
  g_assert_cmpint (reg_backend_info_get_origin (info), ==, REG_BACKEND_ORIGIN_RUNTIME);

  g_object_get (info,
                "name", &name_prop,
                "tags", &tags_prop,
                "module-path", &path_prop,
                "loaded", &loaded_prop,
                "origin", &origin_prop,
                NULL);
  g_assert_cmpstr (name_prop, ==, "rt");
  assert_strv_equal (tags_prop, "debug,fast");
  g_assert_null (path_prop);
  g_assert_true (loaded_prop);
  g_assert_cmpint (origin_prop, ==, REG_BACKEND_ORIGIN_RUNTIME);

  /* a snapshot: later changes do not show */
  g_assert_true (reg_registry_unregister_backend (reg, "rt", NULL));
  g_assert_cmpstr (reg_backend_info_get_name (info), ==, "rt");

  missing = reg_registry_get_backend_info (reg, "rt");
  g_assert_null (missing);
}

static void
count_notify (GObject    *object,
              GParamSpec *pspec,
              gpointer    user_data)
{
  (*(guint *) user_data)++;
}

static void
test_default_backend (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(RegCompiler) object = make_compiler ("object");
  g_autoptr(RegCompiler) other = make_compiler ("other");
  g_autofree char *name = NULL;
  g_autofree char *prop = NULL;
  guint notified = 0;

  g_signal_connect (reg, "notify::default-backend", G_CALLBACK (count_notify), &notified);

  name = reg_registry_dup_default_backend (reg);
  g_assert_cmpstr (name, ==, REG_DEFAULT_BACKEND);
  g_assert_cmpstr (name, ==, "inductor");
  g_clear_pointer (&name, g_free);

  reg_registry_set_default_backend (reg, "eager");
  g_assert_cmpuint (notified, ==, 1);
  reg_registry_set_default_backend (reg, "eager");
  g_assert_cmpuint (notified, ==, 1);
  g_object_get (reg, "default-backend", &prop, NULL);
  g_assert_cmpstr (prop, ==, "eager");
  g_clear_pointer (&prop, g_free);

  reg_registry_set_default_backend (reg, NULL);
  g_assert_cmpuint (notified, ==, 2);
  name = reg_registry_dup_default_backend (reg);
  g_assert_cmpstr (name, ==, "inductor");
  g_clear_pointer (&name, g_free);

  /* an object as the default: the name reads NULL */
  reg_registry_set_default_compiler (reg, object);
  g_assert_cmpuint (notified, ==, 3);
  g_assert_null (reg_registry_dup_default_backend (reg));
  g_object_get (reg, "default-backend", &prop, NULL);
  g_assert_null (prop);

  /* another object: the name still reads NULL, so no notification */
  reg_registry_set_default_compiler (reg, other);
  g_assert_cmpuint (notified, ==, 3);

  /* a name clears the object */
  g_object_set (reg, "default-backend", "cudagraphs", NULL);
  g_assert_cmpuint (notified, ==, 4);
  name = reg_registry_dup_default_backend (reg);
  g_assert_cmpstr (name, ==, "cudagraphs");
  g_clear_pointer (&name, g_free);

  reg_registry_set_default_compiler (reg, other);
  g_assert_cmpuint (notified, ==, 5);
  reg_registry_set_default_compiler (reg, NULL);
  g_assert_cmpuint (notified, ==, 6);
  name = reg_registry_dup_default_backend (reg);
  g_assert_cmpstr (name, ==, "inductor");
}

static void
test_default_compiler (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(RegCompiler) object = make_compiler ("object");
  g_autoptr(RegCompiler) named = make_compiler ("named");
  g_autoptr(RegCompiler) got = NULL;
  g_autoptr(GError) error = NULL;

  /* "inductor" is not registered in this empty registry */
  got = reg_registry_dup_default_compiler (reg, &error);
  g_assert_null (got);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
  g_assert_cmpstr (error->message, ==,
                   "Invalid backend: 'inductor'. See `regctl list` for available backends.");
  g_clear_error (&error);

  g_assert_true (reg_registry_register_backend (reg, "named", named, NULL, &error));
  reg_registry_set_default_backend (reg, "named");
  got = reg_registry_dup_default_compiler (reg, &error);
  g_assert_no_error (error);
  g_assert_true (got == named);
  g_clear_object (&got);

  /* a default object need not be registered */
  reg_registry_set_default_compiler (reg, object);
  got = reg_registry_dup_default_compiler (reg, &error);
  g_assert_no_error (error);
  g_assert_true (got == object);
  g_assert_false (reg_registry_is_registered (reg, object));
}

typedef struct
{
  RegRegistry *reg;
  GPtrArray   *seen;
} SignalLog;

static void
log_name (RegRegistry *reg,
          const char  *name,
          gpointer     user_data)
{
  SignalLog *log = user_data;

  g_ptr_array_add (log->seen, g_strdup (name));
}

static void
test_signals_detailed (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) only_b = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) removed = g_ptr_array_new_with_free_func (g_free);
  SignalLog log_all = { reg, all };
  SignalLog log_b = { reg, only_b };
  SignalLog log_removed = { reg, removed };

  g_signal_connect (reg, "backend-registered", G_CALLBACK (log_name), &log_all);
  g_signal_connect (reg, "backend-registered::b", G_CALLBACK (log_name), &log_b);
  g_signal_connect (reg, "backend-unregistered::a", G_CALLBACK (log_name), &log_removed);

  register_ok (reg, "a", NULL);
  register_ok (reg, "b", NULL);
  register_ok (reg, "c", NULL);
  g_assert_true (reg_registry_unregister_backend (reg, "a", NULL));
  g_assert_true (reg_registry_unregister_backend (reg, "b", NULL));

  g_assert_cmpuint (all->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (all, 2), ==, "c");
  g_assert_cmpuint (only_b->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (only_b, 0), ==, "b");
  g_assert_cmpuint (removed->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (removed, 0), ==, "a");
}

/* A handler that calls back into the registry from inside the emission:
 * it would deadlock if the registry emitted with its lock held. */
static void
reenter_on_registered (RegRegistry *reg,
                       const char  *name,
                       gpointer     user_data)
{
  guint *calls = user_data;
  g_autoptr(RegCompiler) found = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = NULL;

  (*calls)++;
  found = reg_registry_lookup_backend (reg, name, &error);
  g_assert_no_error (error);
  g_assert_nonnull (found);
  names = reg_registry_list_backends (reg, (const char *[]) { NULL });
  g_assert_true (g_strv_contains ((const char * const *) names, name));

  if (g_str_equal (name, "first"))
    {
      register_ok (reg, "second", NULL);
      reg_registry_set_default_backend (reg, "second");
      g_assert_true (reg_registry_unregister_backend (reg, "first", &error));
      g_assert_no_error (error);
    }
}

static void
test_signals_reentrant (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autofree char *default_name = NULL;
  g_auto(GStrv) names = NULL;
  guint calls = 0;

  g_signal_connect (reg, "backend-registered", G_CALLBACK (reenter_on_registered), &calls);
  register_ok (reg, "first", NULL);

  g_assert_cmpuint (calls, ==, 2);
  names = reg_registry_list_backends (reg, NULL);
  assert_strv_equal (names, "second");
  default_name = reg_registry_dup_default_backend (reg);
  g_assert_cmpstr (default_name, ==, "second");
}

static void
test_search_path (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_auto(GStrv) before = reg_registry_get_search_paths (reg);
  g_auto(GStrv) after = NULL;
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *relative = g_build_filename (cwd, "rel", NULL);

  /* main () cleared REG_BACKEND_PATH and REG_BACKEND_SYSTEM_DIR is "" */
  g_assert_cmpuint (g_strv_length (before), ==, 0);

  reg_registry_add_search_path (reg, "/first");
  reg_registry_add_search_path (reg, "/second/");
  reg_registry_add_search_path (reg, "rel");
  reg_registry_add_search_path (reg, "/first");
  after = reg_registry_get_search_paths (reg);
  g_assert_cmpuint (g_strv_length (after), ==, 3);
  g_assert_cmpstr (after[0], ==, "/first");
  g_assert_cmpstr (after[1], ==, relative);
  g_assert_cmpstr (after[2], ==, "/second");
}

static void
test_search_path_environment (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(RegRegistry) reg = NULL;
      g_auto(GStrv) paths = NULL;

      g_setenv ("REG_BACKEND_PATH", "/env/one::/env/two", TRUE);
      g_setenv ("REG_BACKEND_SYSTEM_DIR", "/sys/dir", TRUE);
      reg = reg_registry_new ();
      reg_registry_add_search_path (reg, "/added");
      paths = reg_registry_get_search_paths (reg);
      assert_strv_equal (paths, "/added,/env/one,/env/two,/sys/dir");
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static void
test_null_guards (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(RegRegistry) reg = reg_registry_new ();

      g_assert_null (reg_registry_lookup_backend (reg, NULL, NULL));
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*CRITICAL*name != NULL*");
}

int
main (int   argc,
      char *argv[])
{
  /* These tests use runtime backends only: no module directory. */
  g_unsetenv ("REG_BACKEND_PATH");
  g_setenv ("REG_BACKEND_SYSTEM_DIR", "", TRUE);

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/registry/default/singleton", test_default_singleton);
  g_test_add_func ("/registry/default/singleton-threads", test_default_singleton_threads);
  g_test_add_func ("/registry/new/empty", test_new_is_empty);
  g_test_add_func ("/registry/register/lookup", test_register_lookup);
  g_test_add_func ("/registry/register/null-name", test_register_null_name);
  g_test_add_func ("/registry/register/duplicate", test_register_duplicate);
  g_test_add_func ("/registry/register/same-object-twice", test_register_same_object_twice);
  g_test_add_func ("/registry/register/debug-experimental", test_register_debug_experimental);
  g_test_add_func ("/registry/register/tags-order", test_register_tags_order);
  g_test_add_func ("/registry/register/invalid", test_register_invalid);
  g_test_add_func ("/registry/unregister", test_unregister);
  g_test_add_func ("/registry/lookup/unknown", test_lookup_unknown);
  g_test_add_func ("/registry/lookup/unknown-suggests", test_lookup_unknown_suggests);
  g_test_add_func ("/registry/suggest", test_suggest);
  g_test_add_func ("/registry/list/exclude-tags", test_list);
  g_test_add_func ("/registry/list/byte-order", test_list_byte_order);
  g_test_add_func ("/registry/tags/unknown", test_tags_unknown);
  g_test_add_func ("/registry/info/runtime", test_info_runtime);
  g_test_add_func ("/registry/default/backend", test_default_backend);
  g_test_add_func ("/registry/default/compiler", test_default_compiler);
  g_test_add_func ("/registry/signals/detailed", test_signals_detailed);
  g_test_add_func ("/registry/signals/reentrant", test_signals_reentrant);
  g_test_add_func ("/registry/search-path/order", test_search_path);
  g_test_add_func ("/registry/search-path/environment", test_search_path_environment);
  g_test_add_func ("/registry/guards/null-name", test_null_guards);

  return g_test_run ();
}
