/* test-module.c: backend modules, manifests and discovery
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fixture modules live in tests/modules/, one per behaviour.  libreg
 * keeps a module file loaded for the rest of the process, so every case
 * copies the manifests and module files it needs into temporary
 * directories of its own: each case loads fresh copies (a copy is a file
 * of its own, so the dynamic linker maps it anew, with its own counters).
 * The temporary directories are made with g_dir_make_tmp(), so TMPDIR must
 * allow mapping executable code.
 */

#include <dlfcn.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <reg.h>

#include "test-files.h"
#include "test-objects.h"

#define GOOD_MODULE "libfixture-good.so"
#define LOG_DOMAIN "Reg"

static const char * const no_tags[] = { NULL };

/* Files and directories */

static void
remove_file (const char *dir,
             const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_no_errno (g_unlink (path));
}

/* Writes a manifest @file in @dir whose module is @module, declaring each
 * backend of @names with @description. */
static void
write_manifest (const char         *dir,
                const char         *file,
                const char         *module,
                const char         *description,
                const char * const *names)
{
  g_autoptr(GString) text = g_string_new (NULL);

  g_string_append_printf (text, "[Reg Module]\nModule=%s\nAbiVersion=%d\n",
                          module, REG_MODULE_ABI_VERSION);
  for (guint i = 0; names[i] != NULL; i++)
    g_string_append_printf (text, "\n[Backend %s]\nDescription=%s\n", names[i], description);

  write_file (dir, file, text->str, text->len);
}

/* Modules in this process */

#define NO_PROC_MAPS "needs /proc mounted, to see which modules are mapped (/proc/self/maps)"

/* Whether the file @path is mapped into this process.  Without /proc (a
 * chroot that does not mount it) this cannot be known: the test is marked
 * skipped, saying why, and the answer is @expected, so that the checks
 * that do not need /proc still run.  (A test subprocess that skips exits
 * with a status its parent takes for a failure: there, the parent says
 * it, see test_threads_stress().) */
static gboolean
file_is_mapped (const char *path,
                gboolean    expected)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *maps = NULL;
  g_auto(GStrv) lines = NULL;
  gsize path_len = strlen (path);

  if (!g_file_get_contents ("/proc/self/maps", &maps, NULL, &error))
    {
      if (!g_test_subprocess ())
        g_test_skip (NO_PROC_MAPS);
      return expected;
    }

  lines = g_strsplit (maps, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *found = strstr (lines[i], path);

      /* The path ends the line, or is followed by " (deleted)". */
      if (found != NULL && found > lines[i] && found[-1] == ' ' &&
          (found[path_len] == '\0' || found[path_len] == ' '))
        return TRUE;
    }

  return FALSE;
}

/* Reads the counters of the copy @path of the good fixture, without loading
 * it: FALSE when it is not loaded. */
static gboolean
good_module_counters (const char *path,
                      gint       *n_loads,
                      gint       *n_constructed)
{
  void *handle = dlopen (path, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  gint *loads;
  gint *constructed;

  if (handle == NULL)
    return FALSE;

  loads = dlsym (handle, "fixture_good_n_loads");
  constructed = dlsym (handle, "fixture_good_n_constructed");
  g_assert_nonnull (loads);
  g_assert_nonnull (constructed);
  *n_loads = g_atomic_int_get (loads);
  *n_constructed = g_atomic_int_get (constructed);

  g_assert_cmpint (dlclose (handle), ==, 0);

  return TRUE;
}

static void
assert_not_loaded (const char *path)
{
  gint n_loads, n_constructed;

  g_assert_false (file_is_mapped (path, FALSE));
  g_assert_false (good_module_counters (path, &n_loads, &n_constructed));
}

static void
assert_good_counters (const char *path,
                      gint        expected_loads,
                      gint        expected_constructed)
{
  gint n_loads, n_constructed;

  g_assert_true (file_is_mapped (path, TRUE));
  g_assert_true (good_module_counters (path, &n_loads, &n_constructed));
  g_assert_cmpint (n_loads, ==, expected_loads);
  g_assert_cmpint (n_constructed, ==, expected_constructed);
}

/* Loaded once, with between @min_constructed and @max_constructed
 * compilers made: whether loading the module for one backend makes the
 * compilers of its other backends at once is not specified. */
static void
assert_good_loaded_once (const char *path,
                         gint        min_constructed,
                         gint        max_constructed)
{
  gint n_loads, n_constructed;

  g_assert_true (file_is_mapped (path, TRUE));
  g_assert_true (good_module_counters (path, &n_loads, &n_constructed));
  g_assert_cmpint (n_loads, ==, 1);
  g_assert_cmpint (n_constructed, >=, min_constructed);
  g_assert_cmpint (n_constructed, <=, max_constructed);
}

/* Signals */

/* Records the signals of a registry, from whatever thread emits them, as
 * "declared:NAME", "registered:NAME", "unregistered:NAME" and
 * "module:PATH" events in emission order. */
typedef struct
{
  GMutex       mutex;
  RegRegistry *registry;
  GPtrArray   *events;
  GPtrArray   *modules;  /* RegModule of each module-loaded */
} Recorder;

static void
recorder_add (Recorder   *recorder,
              const char *kind,
              const char *what)
{
  g_mutex_lock (&recorder->mutex);
  g_ptr_array_add (recorder->events, g_strconcat (kind, ":", what, NULL));
  g_mutex_unlock (&recorder->mutex);
}

static void
on_backend_declared (RegRegistry *registry,
                     const char  *name,
                     Recorder    *recorder)
{
  recorder_add (recorder, "declared", name);
}

static void
on_backend_registered (RegRegistry *registry,
                       const char  *name,
                       Recorder    *recorder)
{
  recorder_add (recorder, "registered", name);
}

static void
on_backend_unregistered (RegRegistry *registry,
                         const char  *name,
                         Recorder    *recorder)
{
  recorder_add (recorder, "unregistered", name);
}

static void
on_module_loaded (RegRegistry *registry,
                  RegModule   *module,
                  Recorder    *recorder)
{
  g_assert_true (REG_IS_MODULE (module));

  g_mutex_lock (&recorder->mutex);
  g_ptr_array_add (recorder->modules, g_object_ref (module));
  g_mutex_unlock (&recorder->mutex);

  recorder_add (recorder, "module", reg_module_get_path (module));
}

static Recorder *
recorder_new (RegRegistry *registry)
{
  Recorder *recorder = g_new0 (Recorder, 1);

  g_mutex_init (&recorder->mutex);
  recorder->registry = g_object_ref (registry);
  recorder->events = g_ptr_array_new_with_free_func (g_free);
  recorder->modules = g_ptr_array_new_with_free_func (g_object_unref);

  g_signal_connect (registry, "backend-declared",
                    G_CALLBACK (on_backend_declared), recorder);
  g_signal_connect (registry, "backend-registered",
                    G_CALLBACK (on_backend_registered), recorder);
  g_signal_connect (registry, "backend-unregistered",
                    G_CALLBACK (on_backend_unregistered), recorder);
  g_signal_connect (registry, "module-loaded",
                    G_CALLBACK (on_module_loaded), recorder);

  return recorder;
}

static void
recorder_free (Recorder *recorder)
{
  g_signal_handlers_disconnect_by_data (recorder->registry, recorder);
  g_object_unref (recorder->registry);
  g_ptr_array_unref (recorder->events);
  g_ptr_array_unref (recorder->modules);
  g_mutex_clear (&recorder->mutex);
  g_free (recorder);
}

static void
recorder_clear (Recorder *recorder)
{
  g_mutex_lock (&recorder->mutex);
  g_ptr_array_set_size (recorder->events, 0);
  g_ptr_array_set_size (recorder->modules, 0);
  g_mutex_unlock (&recorder->mutex);
}

/* How many times @kind:@what was recorded. */
static guint
recorder_count (Recorder   *recorder,
                const char *kind,
                const char *what)
{
  g_autofree char *event = g_strconcat (kind, ":", what, NULL);
  guint count = 0;

  g_mutex_lock (&recorder->mutex);
  for (guint i = 0; i < recorder->events->len; i++)
    if (g_str_equal (g_ptr_array_index (recorder->events, i), event))
      count++;
  g_mutex_unlock (&recorder->mutex);

  return count;
}

/* How many events of @kind were recorded. */
static guint
recorder_count_kind (Recorder   *recorder,
                     const char *kind)
{
  g_autofree char *prefix = g_strconcat (kind, ":", NULL);
  guint count = 0;

  g_mutex_lock (&recorder->mutex);
  for (guint i = 0; i < recorder->events->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (recorder->events, i), prefix))
      count++;
  g_mutex_unlock (&recorder->mutex);

  return count;
}

/* The position of the first @kind:@what event; fails if there is none. */
static guint
recorder_index (Recorder   *recorder,
                const char *kind,
                const char *what)
{
  g_autofree char *event = g_strconcat (kind, ":", what, NULL);
  guint index;
  gboolean found;

  g_mutex_lock (&recorder->mutex);
  found = g_ptr_array_find_with_equal_func (recorder->events, event, g_str_equal, &index);
  g_mutex_unlock (&recorder->mutex);

  g_assert_true (found);

  return index;
}

/* Assertions on a registry */

static void
assert_listed (RegRegistry *registry,
               const char  *name,
               gboolean     listed)
{
  g_auto(GStrv) names = reg_registry_list_backends (registry, no_tags);

  if (listed != g_strv_contains ((const char * const *) names, name))
    {
      g_autofree char *joined = g_strjoinv (", ", names);

      g_error ("'%s' should%s be listed; the list is: %s",
               name, listed ? "" : " not", joined);
    }
}

static void
assert_message_contains (const GError *error,
                         const char   *fragment)
{
  g_assert_nonnull (error);

  if (strstr (error->message, fragment) == NULL)
    g_error ("message \"%s\" should contain \"%s\"", error->message, fragment);
}

static RegCompiler *
lookup_ok (RegRegistry *registry,
           const char  *name)
{
  g_autoptr(GError) error = NULL;
  RegCompiler *compiler;

  compiler = reg_registry_lookup_backend (registry, name, &error);
  g_assert_no_error (error);
  g_assert_true (REG_IS_COMPILER (compiler));

  return compiler;
}

static void
assert_lookup_invalid (RegRegistry *registry,
                       const char  *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) compiler = NULL;

  compiler = reg_registry_lookup_backend (registry, name, &error);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
  g_assert_null (compiler);
}

/* A declared backend whose module is not loaded (or failed to load). */
static void
assert_declared_not_loaded (RegRegistry *registry,
                            const char  *name,
                            const char  *module_path)
{
  g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, name);

  g_assert_nonnull (info);
  g_assert_cmpstr (reg_backend_info_get_name (info), ==, name);
  g_assert_false (reg_backend_info_get_loaded (info));
  g_assert_cmpint (reg_backend_info_get_origin (info), ==, REG_BACKEND_ORIGIN_MODULE);
  g_assert_cmpstr (reg_backend_info_get_module_path (info), ==, module_path);
  assert_listed (registry, name, TRUE);
}

/* Looks @name up twice (a failure is retried, and fails the same way
 * again), expecting LOAD_FAILED with a message naming the manifest that
 * declared it and containing every string of @fragments (the module file
 * and what to do, among others); the backend stays declared. */
static void
assert_load_fails (RegRegistry        *registry,
                   const char         *name,
                   const char         *module_path,
                   const char * const *fragments)
{
  for (guint attempt = 0; attempt < 2; attempt++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegCompiler) compiler = NULL;
      g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, name);
      g_autofree char *declared_by = g_strdup_printf ("(declared by %s)",
                                                      reg_backend_info_get_manifest_path (info));

      compiler = reg_registry_lookup_backend (registry, name, &error);
      g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
      g_assert_null (compiler);
      assert_message_contains (error, declared_by);
      for (guint i = 0; fragments[i] != NULL; i++)
        assert_message_contains (error, fragments[i]);

      assert_declared_not_loaded (registry, name, module_path);
    }
}

/* The test fixture: a private registry whose search path starts with a
 * temporary directory of its own, and a recorder of its signals. */

typedef struct
{
  RegRegistry *registry;
  Recorder    *recorder;
  const char  *dir;   /* owned by dirs */
  GPtrArray   *dirs;  /* every temporary directory, removed at teardown */
} Fixture;

static const char *
fixture_new_dir (Fixture *f)
{
  char *dir = make_tmp_dir ();

  g_ptr_array_add (f->dirs, dir);
  return dir;
}

/* A new temporary directory, first in the registry's search path. */
static const char *
fixture_add_dir (Fixture *f)
{
  const char *dir = fixture_new_dir (f);

  reg_registry_add_search_path (f->registry, dir);
  return dir;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->dirs = g_ptr_array_new_with_free_func (g_free);
  f->registry = reg_registry_new ();
  f->recorder = recorder_new (f->registry);
  f->dir = fixture_add_dir (f);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  recorder_free (f->recorder);
  g_assert_finalize_object (f->registry);

  for (guint i = 0; i < f->dirs->len; i++)
    remove_tmp_dir (g_ptr_array_index (f->dirs, i));
  g_ptr_array_unref (f->dirs);
}

/* The failure cases end with this: another module, in another directory,
 * still loads. */
static void
assert_registry_still_works (Fixture *f)
{
  const char *dir = fixture_add_dir (f);
  g_autofree char *module = install_fixture (dir, "other");
  g_autoptr(RegCompiler) compiler = NULL;

  compiler = lookup_ok (f->registry, "other");
  g_assert_cmpstr (reg_compiler_get_name (compiler), ==, "other");
  g_assert_cmpuint (recorder_count (f->recorder, "module", module), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "registered", "other"), ==, 1);
}

/* Discovery */

static void
test_discovery_opens_nothing (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "good");
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(RegBackendInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) tags = NULL;
  g_auto(GStrv) suggestions = NULL;

  assert_not_loaded (module);

  /* Every call that discovers, or reads what discovery found. */
  assert_lookup_invalid (f->registry, "no_such_backend");
  assert_listed (f->registry, "fixture_a", TRUE);
  assert_listed (f->registry, "fixture_b", TRUE);
  info = reg_registry_get_backend_info (f->registry, "fixture_a");
  g_assert_nonnull (info);
  tags = reg_registry_get_backend_tags (f->registry, "fixture_b", &error);
  g_assert_no_error (error);
  suggestions = reg_registry_suggest (f->registry, "fixture_c");
  g_assert_true (g_strv_contains ((const char * const *) suggestions, "fixture_a"));
  reg_registry_rescan (f->registry);

  assert_not_loaded (module);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "module"), ==, 0);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "registered"), ==, 0);

  compiler = lookup_ok (f->registry, "fixture_a");
  g_assert_cmpstr (reg_compiler_get_name (compiler), ==, "fixture_a");
  assert_good_loaded_once (module, 1, 2);
}

static void
count_signal (RegRegistry *registry,
              const char  *name,
              guint       *count)
{
  g_assert_cmpstr (name, ==, "fixture_b");
  (*count)++;
}

static void
test_discovery_declared_signal (Fixture       *f,
                                gconstpointer  data)
{
  guint n_detailed = 0;

  copy_fixture (f->dir, "good");

  /* A detailed handler hears its own name only. */
  g_signal_connect (f->registry, "backend-declared::fixture_b",
                    G_CALLBACK (count_signal), &n_detailed);

  assert_listed (f->registry, "fixture_a", TRUE);
  g_assert_cmpuint (recorder_count (f->recorder, "declared", "fixture_a"), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "declared", "fixture_b"), ==, 1);
  g_assert_cmpuint (n_detailed, ==, 1);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "registered"), ==, 0);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "module"), ==, 0);

  /* Discovery of a directory happens once. */
  recorder_clear (f->recorder);
  assert_listed (f->registry, "fixture_b", TRUE);
  assert_lookup_invalid (f->registry, "no_such_backend");
  g_assert_cmpuint (recorder_count_kind (f->recorder, "declared"), ==, 0);
  g_assert_cmpuint (n_detailed, ==, 1);

  g_signal_handlers_disconnect_matched (f->registry, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL,
                                        &n_detailed);
}

static void
test_discovery_tags (Fixture       *f,
                     gconstpointer  data)
{
  static const char * const exclude_fast[] = { "fast", NULL };
  static const char * const exclude_fixture[] = { "fixture", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) compiler = NULL;
  g_auto(GStrv) tags = NULL;

  copy_fixture (f->dir, "good");

  for (guint round = 0; round < 2; round++)
    {
      g_auto(GStrv) by_default = reg_registry_list_backends (f->registry, NULL);
      g_auto(GStrv) all = reg_registry_list_backends (f->registry, no_tags);
      g_auto(GStrv) not_fast = reg_registry_list_backends (f->registry, exclude_fast);
      g_auto(GStrv) not_fixture = reg_registry_list_backends (f->registry, exclude_fixture);

      /* fixture_b is declared experimental, hidden by default. */
      g_assert_true (g_strv_contains ((const char * const *) by_default, "fixture_a"));
      g_assert_false (g_strv_contains ((const char * const *) by_default, "fixture_b"));
      g_assert_true (g_strv_contains ((const char * const *) all, "fixture_a"));
      g_assert_true (g_strv_contains ((const char * const *) all, "fixture_b"));
      g_assert_false (g_strv_contains ((const char * const *) not_fast, "fixture_a"));
      g_assert_true (g_strv_contains ((const char * const *) not_fast, "fixture_b"));
      g_assert_false (g_strv_contains ((const char * const *) not_fixture, "fixture_a"));
      g_assert_false (g_strv_contains ((const char * const *) not_fixture, "fixture_b"));

      /* Sorted in byte order, declared names among the others. */
      for (guint i = 0; all[i] != NULL && all[i + 1] != NULL; i++)
        g_assert_cmpint (strcmp (all[i], all[i + 1]), <, 0);

      /* The same once the module is loaded. */
      if (round == 0)
        compiler = lookup_ok (f->registry, "fixture_a");
    }

  tags = reg_registry_get_backend_tags (f->registry, "fixture_b", &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (tags, ((const char * const[]) { "fixture", "experimental", NULL }));
}

/* RegBackendInfo of module backends */

static void
assert_good_info (RegRegistry *registry,
                  const char  *module,
                  gboolean     loaded)
{
  g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, "fixture_a");
  g_auto(GStrv) tags = NULL;
  g_autofree char *name = NULL;
  g_autofree char *description = NULL;
  g_autofree char *module_path = NULL;
  RegBackendOrigin origin;
  gboolean info_loaded;

  g_assert_nonnull (info);
  g_assert_cmpstr (reg_backend_info_get_name (info), ==, "fixture_a");
  g_assert_cmpstrv (reg_backend_info_get_tags (info),
                    ((const char * const[]) { "fixture", "fast", NULL }));
  g_assert_cmpstr (reg_backend_info_get_description (info), ==,
                   "First backend of the good fixture");
  g_assert_cmpstr (reg_backend_info_get_module_path (info), ==, module);
  g_assert_cmpint (reg_backend_info_get_loaded (info), ==, loaded);
  g_assert_cmpint (reg_backend_info_get_origin (info), ==, REG_BACKEND_ORIGIN_MODULE);

  /* The same through properties, as bindings see them. */
  g_object_get (info,
                "name", &name,
                "tags", &tags,
                "description", &description,
                "module-path", &module_path,
                "loaded", &info_loaded,
                "origin", &origin,
                NULL);
  g_assert_cmpstr (name, ==, "fixture_a");
  g_assert_cmpstrv (tags, ((const char * const[]) { "fixture", "fast", NULL }));
  g_assert_cmpstr (description, ==, "First backend of the good fixture");
  g_assert_cmpstr (module_path, ==, module);
  g_assert_cmpint (info_loaded, ==, loaded);
  g_assert_cmpint (origin, ==, REG_BACKEND_ORIGIN_MODULE);
}

static void
test_info_module_backend (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "good");
  g_autoptr(RegCompiler) compiler = NULL;

  g_assert_true (g_path_is_absolute (module));

  /* The module path is known before the module is loaded. */
  assert_good_info (f->registry, module, FALSE);
  assert_not_loaded (module);

  compiler = lookup_ok (f->registry, "fixture_a");
  assert_good_info (f->registry, module, TRUE);
  g_assert_true (reg_registry_is_registered (f->registry, compiler));
}

/* Loading */

static void
test_load_one_open_for_two_backends (Fixture       *f,
                                     gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "good");
  g_autoptr(RegCompiler) a = NULL;
  g_autoptr(RegCompiler) b = NULL;
  g_autoptr(RegCompiler) a_again = NULL;
  RegModule *loaded;

  a = lookup_ok (f->registry, "fixture_a");
  b = lookup_ok (f->registry, "fixture_b");
  a_again = lookup_ok (f->registry, "fixture_a");

  g_assert_true (a == a_again);
  g_assert_true (a != b);
  g_assert_cmpstr (reg_compiler_get_name (a), ==, "fixture_a");
  g_assert_cmpstr (reg_compiler_get_name (b), ==, "fixture_b");
  assert_good_counters (module, 1, 2);

  /* module-loaded once, with the module of that file, before the
   * backends' backend-registered. */
  g_assert_cmpuint (recorder_count_kind (f->recorder, "module"), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "module", module), ==, 1);
  g_assert_cmpuint (f->recorder->modules->len, ==, 1);
  loaded = g_ptr_array_index (f->recorder->modules, 0);
  g_assert_true (G_IS_TYPE_MODULE (loaded));
  g_assert_cmpstr (reg_module_get_path (loaded), ==, module);
  g_assert_cmpuint (recorder_count (f->recorder, "registered", "fixture_a"), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "registered", "fixture_b"), ==, 1);
  g_assert_cmpuint (recorder_index (f->recorder, "module", module), <,
                    recorder_index (f->recorder, "registered", "fixture_a"));
  g_assert_cmpuint (recorder_index (f->recorder, "module", module), <,
                    recorder_index (f->recorder, "registered", "fixture_b"));

  assert_listed (f->registry, "fixture_a", TRUE);
  assert_listed (f->registry, "fixture_b", TRUE);
}

/* Two registries share the process's module: it is opened once, and each
 * registry emits module-loaded once and makes its own compilers. */
static void
test_load_two_registries (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "good");
  g_autoptr(RegRegistry) other_registry = reg_registry_new ();
  Recorder *other_recorder = recorder_new (other_registry);
  g_autoptr(RegCompiler) a = NULL;
  g_autoptr(RegCompiler) other_a = NULL;
  g_autoptr(RegCompiler) other_a_again = NULL;
  gint n_loads, n_constructed;

  reg_registry_add_search_path (other_registry, f->dir);

  a = lookup_ok (f->registry, "fixture_a");
  other_a = lookup_ok (other_registry, "fixture_a");
  other_a_again = lookup_ok (other_registry, "fixture_a");

  g_assert_true (a != other_a);
  g_assert_true (other_a == other_a_again);
  g_assert_true (reg_registry_is_registered (f->registry, a));
  g_assert_false (reg_registry_is_registered (f->registry, other_a));
  g_assert_true (reg_registry_is_registered (other_registry, other_a));

  g_assert_cmpuint (recorder_count (f->recorder, "module", module), ==, 1);
  g_assert_cmpuint (recorder_count (other_recorder, "module", module), ==, 1);
  g_assert_cmpuint (other_recorder->modules->len, ==, 1);
  g_assert_true (g_ptr_array_index (f->recorder->modules, 0) ==
                 g_ptr_array_index (other_recorder->modules, 0));
  g_assert_cmpuint (recorder_count (other_recorder, "registered", "fixture_a"), ==, 1);

  g_assert_true (good_module_counters (module, &n_loads, &n_constructed));
  g_assert_cmpint (n_loads, ==, 1);
  /* One or two compilers per registry, depending on whether loading
   * fixture_a made fixture_b's too, but never more. */
  g_assert_cmpint (n_constructed, >=, 2);
  g_assert_cmpint (n_constructed, <=, 4);

  recorder_free (other_recorder);
  g_clear_object (&other_a);
  g_clear_object (&other_a_again);
  g_assert_finalize_object (g_steal_pointer (&other_registry));
}

/* One module file reached through two search directories (a symbolic
 * link, or a hard link, in the second) is one module: each directory's
 * manifest declares one of its backends, and both come from a single
 * load.  It was loaded once per path: reg_module_load() ran twice, and a
 * module registering its types with G_DEFINE_DYNAMIC_TYPE failed the
 * second time. */
static void
test_load_one_file_two_directories (Fixture       *f,
                                    gconstpointer  data)
{
  gboolean hard_link = GPOINTER_TO_INT (data);
  g_autofree char *module = install_fixture (f->dir, "good");
  const char *second = fixture_add_dir (f);
  g_autofree char *second_module = g_build_filename (second, GOOD_MODULE, NULL);
  g_autoptr(RegCompiler) a = NULL;
  g_autoptr(RegCompiler) b = NULL;
  g_autoptr(RegBackendInfo) b_info = NULL;

  /* The first directory declares fixture_a of the file, the second
   * fixture_b, through its own path to the same file. */
  remove_file (f->dir, "good.backend");
  write_manifest (f->dir, "a.backend", GOOD_MODULE, "through the file",
                  (const char * const[]) { "fixture_a", NULL });
  write_manifest (second, "b.backend", GOOD_MODULE, "through a link",
                  (const char * const[]) { "fixture_b", NULL });
  if (hard_link)
    g_assert_no_errno (link (module, second_module));
  else
    g_assert_no_errno (symlink (module, second_module));

  b_info = reg_registry_get_backend_info (f->registry, "fixture_b");
  g_assert_cmpstr (reg_backend_info_get_module_path (b_info), ==, second_module);

  a = lookup_ok (f->registry, "fixture_a");
  b = lookup_ok (f->registry, "fixture_b");
  g_assert_cmpstr (reg_compiler_get_name (a), ==, "fixture_a");
  g_assert_cmpstr (reg_compiler_get_name (b), ==, "fixture_b");

  assert_good_counters (module, 1, 2);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "module"), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "registered", "fixture_a"), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "registered", "fixture_b"), ==, 1);
}

#define N_THREADS 8
#define N_ROUNDS 5

typedef struct
{
  RegRegistry *registry;
  const char  *name;
  gint        *n_ready;
  RegCompiler *compiler;
  GError      *error;
} LookupThread;

static gpointer
lookup_thread (gpointer data)
{
  LookupThread *t = data;

  /* The start barrier: check in, then spin until every thread has. */
  g_atomic_int_inc (t->n_ready);
  while (g_atomic_int_get (t->n_ready) < N_THREADS)
    g_thread_yield ();

  t->compiler = reg_registry_lookup_backend (t->registry, t->name, &t->error);

  return NULL;
}

/* The first lookups of a module's backends, from many threads at once,
 * before discovery has run: one discovery, one load, one compiler per
 * backend, and every signal once. */
static void
test_load_concurrent (void)
{
  for (guint round = 0; round < N_ROUNDS; round++)
    {
      g_autofree char *dir = make_tmp_dir ();
      g_autofree char *module = install_fixture (dir, "good");
      RegRegistry *registry = reg_registry_new ();
      Recorder *recorder = recorder_new (registry);
      LookupThread threads[N_THREADS];
      GThread *handles[N_THREADS];
      gint n_ready = 0;

      reg_registry_add_search_path (registry, dir);

      for (guint i = 0; i < N_THREADS; i++)
        {
          threads[i] = (LookupThread) {
            .registry = registry,
            .name = i % 2 == 0 ? "fixture_a" : "fixture_b",
            .n_ready = &n_ready,
          };
          handles[i] = g_thread_new ("lookup", lookup_thread, &threads[i]);
        }
      for (guint i = 0; i < N_THREADS; i++)
        g_thread_join (handles[i]);

      for (guint i = 0; i < N_THREADS; i++)
        {
          g_assert_no_error (threads[i].error);
          g_assert_true (REG_IS_COMPILER (threads[i].compiler));
          g_assert_cmpstr (reg_compiler_get_name (threads[i].compiler), ==, threads[i].name);
          /* Everyone got the same object for the same name. */
          g_assert_true (threads[i].compiler == threads[i % 2].compiler);
        }
      g_assert_true (threads[0].compiler != threads[1].compiler);

      assert_good_counters (module, 1, 2);
      g_assert_cmpuint (recorder_count_kind (recorder, "module"), ==, 1);
      g_assert_cmpuint (recorder_count (recorder, "module", module), ==, 1);
      g_assert_cmpuint (recorder_count (recorder, "declared", "fixture_a"), ==, 1);
      g_assert_cmpuint (recorder_count (recorder, "declared", "fixture_b"), ==, 1);
      g_assert_cmpuint (recorder_count (recorder, "registered", "fixture_a"), ==, 1);
      g_assert_cmpuint (recorder_count (recorder, "registered", "fixture_b"), ==, 1);

      for (guint i = 0; i < N_THREADS; i++)
        g_object_unref (threads[i].compiler);
      recorder_free (recorder);
      g_assert_finalize_object (registry);
      remove_tmp_dir (dir);
    }
}

/* Failures */

static void
test_failure_abi_mismatch (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "abi-mismatch");
  g_autofree char *versions =
    g_strdup_printf ("has ABI version %d, this libreg expects %d",
                     REG_MODULE_ABI_VERSION + 1, REG_MODULE_ABI_VERSION);
  const char * const fragments[] = { "'abi_mismatch'", module, versions,
                                     "Rebuild the module against this libreg.", NULL };

  /* The fixture's reg_module_load() aborts if it ever runs. */
  assert_load_fails (f->registry, "abi_mismatch", module, fragments);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "module"), ==, 0);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "registered"), ==, 0);

  assert_registry_still_works (f);
}

static void
test_failure_no_load_symbol (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "no-load-symbol");
  const char * const fragments[] = { "'no_load_symbol'", module, "reg_module_load",
                                     "(G_MODULE_EXPORT)", NULL };

  assert_load_fails (f->registry, "no_load_symbol", module, fragments);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "module"), ==, 0);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "registered"), ==, 0);

  assert_registry_still_works (f);
}

static void
test_failure_no_abi_symbol (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "no-abi-symbol");
  const char * const fragments[] = { "'no_abi_symbol'", module, "reg_module_abi_version",
                                     "Rebuild it against this libreg", NULL };

  /* The fixture's reg_module_load() aborts if it ever runs. */
  assert_load_fails (f->registry, "no_abi_symbol", module, fragments);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "module"), ==, 0);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "registered"), ==, 0);

  assert_registry_still_works (f);
}

static void
test_failure_not_a_shared_object (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "not-a-shared-object");
  const char * const fragments[] = { "'garbage'", module, "is not a shared object", "Loader=python", "Loader=gjs", NULL };

  g_assert_true (g_file_test (module, G_FILE_TEST_IS_REGULAR));

  assert_load_fails (f->registry, "garbage", module, fragments);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "module"), ==, 0);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "registered"), ==, 0);

  assert_registry_still_works (f);
}

/* A loader module that fails without setting an error (a stand-in for
 * the Python loader, tests/modules/silent-loader): the lookups still fail
 * with a reason, and the registry keeps working.  In a process of its
 * own, whose loader directory is the fixtures'. */
static void
test_failure_loader_without_reason (Fixture       *f,
                                    gconstpointer  data)
{
  const struct { const char *name; const char *fragment; } cases[] = {
    { "silent_load", "the python loader failed without giving a reason" },
    { "silent_make", "the python loader made no compiler of it and gave no reason" },
  };

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }

  g_setenv ("REG_LOADER_DIR", FIXTURE_BUILDDIR, TRUE);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *file = g_strconcat (cases[i].name, ".backend", NULL);
      g_autofree char *path = g_build_filename (f->dir, file, NULL);
      g_autofree char *text = g_strdup_printf ("[Reg Module]\nAbiVersion=2\nLoader=python\n"
                                               "Import=%s\n\n[Backend %s]\nObject=Compiler\n",
                                               cases[i].name, cases[i].name);
      g_autoptr(GError) error = NULL;

      g_assert_true (g_file_set_contents (path, text, -1, &error));
      g_assert_no_error (error);
    }

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char * const fragments[] = { cases[i].name, cases[i].fragment, NULL };

      assert_load_fails (f->registry, cases[i].name, NULL, fragments);
    }
  g_assert_cmpuint (recorder_count_kind (f->recorder, "registered"), ==, 0);

  assert_registry_still_works (f);
}

static void
test_failure_missing_module_file (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "missing-module");
  g_autofree char *good = g_build_filename (FIXTURE_BUILDDIR, GOOD_MODULE, NULL);
  g_autofree char *module_name = g_path_get_basename (module);
  const char * const fragments[] = { "'fixture_a'", module, "No such file or directory",
                                     "Install the module file, or fix Module= in the manifest.", NULL };
  g_autoptr(RegCompiler) a = NULL;
  g_autoptr(RegCompiler) b = NULL;

  g_assert_false (g_file_test (module, G_FILE_TEST_EXISTS));

  assert_load_fails (f->registry, "fixture_a", module, fragments);
  assert_declared_not_loaded (f->registry, "fixture_b", module);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "module"), ==, 0);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "registered"), ==, 0);

  assert_registry_still_works (f);

  /* Fixed: the module file is put in place, and the next lookup loads it. */
  copy_file (good, f->dir, module_name);
  a = lookup_ok (f->registry, "fixture_a");
  b = lookup_ok (f->registry, "fixture_b");
  g_assert_cmpstr (reg_compiler_get_name (a), ==, "fixture_a");
  assert_good_counters (module, 1, 2);
  g_assert_cmpuint (recorder_count (f->recorder, "module", module), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "registered", "fixture_a"), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "registered", "fixture_b"), ==, 1);
}

/* The manifest declares x and y, the module provides x: x works, y fails
 * to load (every time), whichever is looked up first. */
static void
test_failure_missing_declared (Fixture       *f,
                               gconstpointer  data)
{
  gboolean y_first = GPOINTER_TO_INT (data);
  g_autofree char *module = install_fixture (f->dir, "missing-declared");
  const char * const fragments[] = { "'y'", module, "provide", "remove [Backend y] from the manifest", NULL };
  g_autoptr(RegCompiler) x = NULL;

  if (y_first)
    assert_load_fails (f->registry, "y", module, fragments);

  x = lookup_ok (f->registry, "x");
  g_assert_cmpstr (reg_compiler_get_name (x), ==, "x");

  if (!y_first)
    assert_load_fails (f->registry, "y", module, fragments);

  g_assert_cmpuint (recorder_count (f->recorder, "module", module), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "registered", "x"), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "registered", "y"), ==, 0);

  assert_registry_still_works (f);
}

static void
test_failure_undeclared (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "undeclared");
  g_autofree char *pattern = g_strdup_printf ("*%s*'undeclared'*", module);
  g_autoptr(RegCompiler) declared = NULL;
  g_autoptr(RegCompiler) undeclared = NULL;
  g_autoptr(GError) error = NULL;

  g_test_expect_message (LOG_DOMAIN, G_LOG_LEVEL_WARNING, pattern);
  declared = lookup_ok (f->registry, "declared");
  g_test_assert_expected_messages ();

  g_assert_cmpstr (reg_compiler_get_name (declared), ==, "declared");

  /* docs/discovery.md: the undeclared name is LOAD_FAILED, naming the module */
  undeclared = reg_registry_lookup_backend (f->registry, "undeclared", &error);
  g_assert_null (undeclared);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
  g_assert_nonnull (strstr (error->message, module));
  g_assert_nonnull (strstr (error->message, "'undeclared'"));

  assert_listed (f->registry, "declared", TRUE);
  assert_listed (f->registry, "undeclared", FALSE);
  g_assert_cmpuint (recorder_count (f->recorder, "registered", "declared"), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "registered", "undeclared"), ==, 0);
}

/* Broken manifests */

typedef enum
{
  BROKEN_TEXT,       /* contents as given */
  BROKEN_TOO_LARGE,  /* a good manifest padded past 1 MiB */
  BROKEN_DIRECTORY,  /* a directory named like a manifest */
  BROKEN_SYMLINK,    /* a symbolic link to nothing */
  BROKEN_FIFO,       /* a named pipe: reading it would block discovery */
} BrokenKind;

typedef struct
{
  const char *test_name;
  BrokenKind  kind;
  const char *contents;
  gssize      length;   /* -1: NUL-terminated */
  const char *reason;   /* a glob of the reason the warning gives */
} BrokenManifest;

#define GOOD_HEADER "[Reg Module]\nModule=libbroken.so\nAbiVersion=2\n\n"
#define BINARY_GARBAGE \
  "\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x01\0\0\0\xff\xfe\n\0\x80\n"

static const BrokenManifest broken_manifests[] = {
  { "not-a-key-file", BROKEN_TEXT,
    "This is not a key file.\n", -1, "*key file*" },
  { "binary-garbage", BROKEN_TEXT,
    BINARY_GARBAGE, sizeof BINARY_GARBAGE - 1, "*key file*" },
  { "empty", BROKEN_TEXT,
    "", -1, "*[Reg Module]*" },
  { "no-module-group", BROKEN_TEXT,
    "[Backend broken]\nDescription=Declared without a module group\n", -1, "*[Reg Module]*" },
  { "module-missing", BROKEN_TEXT,
    "[Reg Module]\nAbiVersion=2\n\n[Backend broken]\n", -1, "*Module*" },
  { "module-empty", BROKEN_TEXT,
    "[Reg Module]\nModule=\nAbiVersion=2\n\n[Backend broken]\n", -1, "*Module*empty*" },
  { "module-with-slash", BROKEN_TEXT,
    "[Reg Module]\nModule=sub/libbroken.so\nAbiVersion=2\n\n[Backend broken]\n", -1,
    "*Module=sub/libbroken.so*" },
  { "module-dot-dot", BROKEN_TEXT,
    "[Reg Module]\nModule=..\nAbiVersion=2\n\n[Backend broken]\n", -1, "*Module=..*" },
  { "module-absolute", BROKEN_TEXT,
    "[Reg Module]\nModule=/usr/lib/libbroken.so\nAbiVersion=2\n\n[Backend broken]\n", -1,
    "*Module=/usr/lib/libbroken.so*" },
  { "backend-name-space", BROKEN_TEXT,
    GOOD_HEADER "[Backend broken]\n\n[Backend a b]\n", -1, "*backend name*a b*" },
  { "backend-name-empty", BROKEN_TEXT,
    GOOD_HEADER "[Backend broken]\n\n[Backend ]\n", -1, "*backend name*" },
  { "backend-name-forbidden", BROKEN_TEXT,
    GOOD_HEADER "[Backend broken]\n\n[Backend a=b]\n", -1, "*backend name*a=b*" },
  { "tag-invalid", BROKEN_TEXT,
    GOOD_HEADER "[Backend broken]\nTags=fine;ba/d\n", -1, "*tag*ba/d*" },
  { "abi-version-unsupported", BROKEN_TEXT,
    "[Reg Module]\nModule=libbroken.so\nAbiVersion=3\n\n[Backend broken]\n", -1,
    "*AbiVersion=3*" },
  { "abi-version-missing", BROKEN_TEXT,
    "[Reg Module]\nModule=libbroken.so\n\n[Backend broken]\n", -1, "*AbiVersion*" },
  { "abi-version-not-a-number", BROKEN_TEXT,
    "[Reg Module]\nModule=libbroken.so\nAbiVersion=one\n\n[Backend broken]\n", -1,
    "*AbiVersion*" },
  { "utf8-invalid-backend-name", BROKEN_TEXT,
    GOOD_HEADER "[Backend broken]\n\n[Backend caf\xe9]\n", -1, "*UTF-8*" },
  { "utf8-invalid-module", BROKEN_TEXT,
    "[Reg Module]\nModule=lib\xe9.so\nAbiVersion=2\n\n[Backend broken]\n", -1, "*UTF-8*" },
  { "utf8-invalid-tag", BROKEN_TEXT,
    GOOD_HEADER "[Backend broken]\nTags=caf\xe9\n", -1, "*UTF-8*" },
  { "utf8-invalid-description", BROKEN_TEXT,
    GOOD_HEADER "[Backend broken]\nDescription=caf\xe9\n", -1, "*UTF-8*" },
  { "nul-byte", BROKEN_TEXT,
    GOOD_HEADER "[Backend broken]\nDescription=before\0after\n",
    sizeof GOOD_HEADER "[Backend broken]\nDescription=before\0after\n" - 1, "*NUL byte*" },
  { "no-backend-group", BROKEN_TEXT,
    "[Reg Module]\nModule=libbroken.so\nAbiVersion=2\n", -1, "*no backend*" },
  { "too-large", BROKEN_TOO_LARGE, NULL, 0, "*bytes*" },
  { "directory", BROKEN_DIRECTORY, NULL, 0, "*not a regular file*" },
  { "fifo", BROKEN_FIFO, NULL, 0, "*not a regular file*" },
  { "dangling-symlink", BROKEN_SYMLINK, NULL, 0, "*" },
};

/* A broken manifest between two good ones: skipped with one warning naming
 * it and the reason, and the other two still declare their backends. */
static void
test_manifest_broken (Fixture       *f,
                      gconstpointer  data)
{
  const BrokenManifest *broken = data;
  g_autofree char *path = g_build_filename (f->dir, "m-broken.backend", NULL);
  g_autofree char *pattern = NULL;

  write_manifest (f->dir, "a-first.backend", "libfirst.so", "Before the broken one",
                  (const char * const[]) { "first_ok", NULL });
  write_manifest (f->dir, "z-last.backend", "liblast.so", "After the broken one",
                  (const char * const[]) { "last_ok", NULL });

  switch (broken->kind)
    {
    case BROKEN_TEXT:
      write_file (f->dir, "m-broken.backend", broken->contents, broken->length);
      break;

    case BROKEN_TOO_LARGE:
      {
        g_autoptr(GString) text = g_string_new (GOOD_HEADER "[Backend broken]\n");

        while (text->len <= 1024 * 1024)
          g_string_append (text, "# padding padding padding padding padding padding\n");
        write_file (f->dir, "m-broken.backend", text->str, text->len);
      }
      break;

    case BROKEN_DIRECTORY:
      g_assert_no_errno (g_mkdir (path, 0755));
      break;

    case BROKEN_SYMLINK:
      g_assert_no_errno (symlink ("no-such-file", path));
      break;

    case BROKEN_FIFO:
      g_assert_no_errno (mkfifo (path, 0644));
      break;

    default:
      g_assert_not_reached ();
    }

  pattern = g_strdup_printf ("*manifest*%s*skipped*%s", path, broken->reason);
  g_test_expect_message (LOG_DOMAIN, G_LOG_LEVEL_WARNING, pattern);
  assert_listed (f->registry, "first_ok", TRUE);
  g_test_assert_expected_messages ();

  assert_listed (f->registry, "last_ok", TRUE);
  assert_listed (f->registry, "broken", FALSE);
  g_assert_cmpuint (recorder_count (f->recorder, "declared", "first_ok"), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "declared", "last_ok"), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "declared", "broken"), ==, 0);
  assert_lookup_invalid (f->registry, "broken");

  /* The lookup says why, when the file's text could be read; the
   * registry lists the manifest as skipped either way. */
  {
    g_autoptr(GHashTable) skipped = reg_registry_dup_skipped_manifests (f->registry);
    g_autoptr(GError) error = NULL;
    g_autoptr(RegCompiler) compiler = reg_registry_lookup_backend (f->registry, "broken", &error);
    g_autofree char *said = g_strdup_printf ("Invalid backend: 'broken'. The manifest %s declares it but was skipped: ",
                                             path);

    g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
    if (broken->kind == BROKEN_TEXT &&
        (g_str_has_prefix (broken->contents, "[Backend broken]\n") ||
         g_strstr_len (broken->contents, broken->length, "\n[Backend broken]\n") != NULL))
      g_assert_true (g_str_has_prefix (error->message, said));
    else
      g_assert_true (g_str_has_prefix (error->message, "Invalid backend: 'broken'. See `regctl list`"));

    g_assert_cmpuint (g_hash_table_size (skipped), ==, 1);
    g_assert_true (g_hash_table_contains (skipped, path));
  }
}

/* Several broken manifests in one directory: one warning each, in file
 * name order, and the good one between them still counts. */
static void
test_manifest_several_broken (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *first = g_build_filename (f->dir, "a-broken.backend", NULL);
  g_autofree char *last = g_build_filename (f->dir, "z-broken.backend", NULL);
  g_autofree char *first_pattern = g_strdup_printf ("*manifest*%s*skipped*AbiVersion*", first);
  g_autofree char *last_pattern = g_strdup_printf ("*manifest*%s*skipped*Module*", last);

  write_file (f->dir, "a-broken.backend",
              "[Reg Module]\nModule=liba.so\nAbiVersion=3\n\n[Backend broken_a]\n", -1);
  write_manifest (f->dir, "m-good.backend", "libgood.so", "Between broken ones",
                  (const char * const[]) { "good_one", NULL });
  write_file (f->dir, "z-broken.backend",
              "[Reg Module]\nModule=../libz.so\nAbiVersion=2\n\n[Backend broken_z]\n", -1);
  /* Not a manifest: ignored silently. */
  write_file (f->dir, "README", "[Reg Module]\n", -1);
  write_file (f->dir, "other.backend~", "garbage", -1);

  g_test_expect_message (LOG_DOMAIN, G_LOG_LEVEL_WARNING, first_pattern);
  g_test_expect_message (LOG_DOMAIN, G_LOG_LEVEL_WARNING, last_pattern);
  assert_listed (f->registry, "good_one", TRUE);
  g_test_assert_expected_messages ();

  assert_listed (f->registry, "broken_a", FALSE);
  assert_listed (f->registry, "broken_z", FALSE);
}

/* Search path */

static void
assert_description (RegRegistry *registry,
                    const char  *name,
                    const char  *description)
{
  g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, name);

  g_assert_nonnull (info);
  g_assert_cmpstr (reg_backend_info_get_description (info), ==, description);
}

static void
assert_module_path (RegRegistry *registry,
                    const char  *name,
                    const char  *dir,
                    const char  *module)
{
  g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, name);
  g_autofree char *expected = g_build_filename (dir, module, NULL);

  g_assert_nonnull (info);
  g_assert_cmpstr (reg_backend_info_get_module_path (info), ==, expected);
}

/* Two added directories declare the same names: the one added last wins,
 * and its module is the one loaded. */
static void
test_search_path_newest_first (Fixture       *f,
                               gconstpointer  data)
{
  const char *older = f->dir;
  g_autofree char *older_module = install_fixture (older, "good");
  const char *newer = fixture_add_dir (f);
  g_autofree char *newer_module = install_fixture (newer, "good");
  g_autoptr(RegCompiler) compiler = NULL;

  assert_module_path (f->registry, "fixture_a", newer, GOOD_MODULE);
  assert_module_path (f->registry, "fixture_b", newer, GOOD_MODULE);
  g_assert_cmpuint (recorder_count (f->recorder, "declared", "fixture_a"), ==, 1);

  compiler = lookup_ok (f->registry, "fixture_a");
  g_assert_cmpuint (recorder_count (f->recorder, "module", newer_module), ==, 1);
  assert_good_loaded_once (newer_module, 1, 2);
  assert_not_loaded (older_module);
}

/* Two manifests of one directory declare the same name: the first in byte
 * order of their file names wins, whatever order the file system lists
 * them in. */
static void
test_search_path_same_directory (Fixture       *f,
                                 gconstpointer  data)
{
  write_manifest (f->dir, "b.backend", "libb.so", "from b",
                  (const char * const[]) { "shared", "only_b", NULL });
  write_manifest (f->dir, "B.backend", "libB.so", "from B",
                  (const char * const[]) { "shared", NULL });
  write_manifest (f->dir, "a.backend", "liba.so", "from a",
                  (const char * const[]) { "shared", NULL });

  assert_description (f->registry, "shared", "from B");
  assert_module_path (f->registry, "shared", f->dir, "libB.so");
  assert_description (f->registry, "only_b", "from b");
  g_assert_cmpuint (recorder_count (f->recorder, "declared", "shared"), ==, 1);
}

static void
assert_declaration (RegRegistry        *registry,
                    const char         *name,
                    const char         *manifest_dir,
                    const char         *manifest,
                    const char * const *shadowed)
{
  g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, name);
  g_autofree char *expected = manifest != NULL ? g_build_filename (manifest_dir, manifest, NULL) : NULL;
  g_auto(GStrv) from_property = NULL;
  const char * const *got;
  guint n = 0;

  g_assert_nonnull (info);
  g_assert_cmpstr (reg_backend_info_get_manifest_path (info), ==, expected);
  got = reg_backend_info_get_shadowed_manifests (info);
  g_object_get (info, "shadowed-manifests", &from_property, NULL);
  g_assert_cmpstrv (from_property, got);
  for (; shadowed[n] != NULL; n++)
    g_assert_cmpstr (got[n], ==, shadowed[n]);
  g_assert_null (got[n]);
}

/* Which manifest declared a backend, and which later declarations of its
 * name it hides: in a later directory, later in byte order in the same
 * directory, and those a runtime registration hides. */
static void
test_search_path_shadowed (Fixture       *f,
                           gconstpointer  data)
{
  const char *later = f->dir;
  const char *first = fixture_add_dir (f);
  g_autofree char *first_b = g_build_filename (first, "b.backend", NULL);
  g_autofree char *later_a = g_build_filename (later, "a.backend", NULL);
  g_autofree char *later_z = g_build_filename (later, "z.backend", NULL);
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("runtime", refuse_compile, NULL, NULL);
  g_autoptr(GError) error = NULL;

  write_manifest (first, "a.backend", "liba.so", "first",
                  (const char * const[]) { "shared", "runtime", NULL });
  write_manifest (first, "b.backend", "libb.so", "first, second file",
                  (const char * const[]) { "shared", "only_b", NULL });
  write_manifest (later, "a.backend", "liba.so", "later",
                  (const char * const[]) { "shared", "only_later", NULL });
  write_manifest (later, "z.backend", "libz.so", "later, second file",
                  (const char * const[]) { "shared", NULL });

  assert_declaration (f->registry, "shared", first, "a.backend",
                      (const char * const[]) { first_b, later_a, later_z, NULL });
  assert_declaration (f->registry, "only_b", first, "b.backend", (const char * const[]) { NULL });
  assert_declaration (f->registry, "only_later", later, "a.backend", (const char * const[]) { NULL });

  /* A runtime backend over a declared name hides its manifest. */
  g_assert_true (reg_registry_register_backend (f->registry, "runtime", compiler, NULL, &error));
  g_assert_no_error (error);
  {
    g_autofree char *first_a = g_build_filename (first, "a.backend", NULL);

    assert_declaration (f->registry, "runtime", NULL, NULL, (const char * const[]) { first_a, NULL });
  }

  /* A rescan finds the same. */
  reg_registry_rescan (f->registry);
  assert_declaration (f->registry, "shared", first, "a.backend",
                      (const char * const[]) { first_b, later_a, later_z, NULL });
  {
    g_autofree char *first_a = g_build_filename (first, "a.backend", NULL);

    assert_declaration (f->registry, "runtime", NULL, NULL, (const char * const[]) { first_a, NULL });
  }

  /* A directory added after discovery takes the name over, and hides what
   * the declaration it replaces hid. */
  {
    const char *earliest = fixture_add_dir (f);
    g_autofree char *first_a = g_build_filename (first, "a.backend", NULL);

    write_manifest (earliest, "e.backend", "libe.so", "earliest",
                    (const char * const[]) { "only_later", "shared", NULL });
    assert_listed (f->registry, "not_declared_anywhere", FALSE);
    assert_declaration (f->registry, "only_later", earliest, "e.backend",
                        (const char * const[]) { later_a, NULL });
    assert_declaration (f->registry, "shared", earliest, "e.backend",
                        (const char * const[]) { first_a, first_b, later_a, later_z, NULL });

    /* Unregistered, the name is gone with what it hid; a rescan brings
     * both back. */
    g_assert_true (reg_registry_unregister_backend (f->registry, "only_later", &error));
    g_assert_no_error (error);
    g_assert_null (reg_registry_get_backend_info (f->registry, "only_later"));
    reg_registry_rescan (f->registry);
    assert_declaration (f->registry, "only_later", earliest, "e.backend",
                        (const char * const[]) { later_a, NULL });
  }
}

/* A directory added after discovery is read by the next call that
 * discovers, and takes precedence as if it had been there all along. */
static void
test_search_path_added_after_discovery (Fixture       *f,
                                        gconstpointer  data)
{
  const char *newer;
  const char *third;
  g_autofree char *x_module = NULL;
  g_autoptr(RegCompiler) x = NULL;

  copy_fixture (f->dir, "good");
  assert_listed (f->registry, "fixture_a", TRUE);
  assert_listed (f->registry, "other", FALSE);
  assert_module_path (f->registry, "fixture_a", f->dir, GOOD_MODULE);

  newer = fixture_add_dir (f);
  copy_fixture (newer, "good");
  copy_fixture (newer, "other");
  assert_listed (f->registry, "other", TRUE);
  g_assert_cmpuint (recorder_count (f->recorder, "declared", "other"), ==, 1);
  assert_module_path (f->registry, "fixture_a", newer, GOOD_MODULE);

  /* A lookup of a name unknown so far discovers too. */
  third = fixture_add_dir (f);
  x_module = install_fixture (third, "missing-declared");
  x = lookup_ok (f->registry, "x");
  g_assert_cmpuint (recorder_count (f->recorder, "module", x_module), ==, 1);
}

/* REG_BACKEND_PATH comes after the added directories: a manifest in an
 * added directory that declares a shipped backend's name wins. */
static void
test_search_path_added_before_environment (Fixture       *f,
                                           gconstpointer  data)
{
  g_autoptr(RegRegistry) plain = reg_registry_new ();
  g_autoptr(RegBackendInfo) shipped = reg_registry_get_backend_info (plain, "eager");
  g_autofree char *module = NULL;

  if (shipped == NULL)
    {
      g_test_skip ("no eager backend in REG_BACKEND_PATH");
      return;
    }

  write_manifest (f->dir, "eager.backend", GOOD_MODULE, "Not the shipped one",
                  (const char * const[]) { "eager", NULL });
  assert_description (f->registry, "eager", "Not the shipped one");
  assert_module_path (f->registry, "eager", f->dir, GOOD_MODULE);
  g_assert_cmpstr (reg_backend_info_get_module_path (shipped), !=, NULL);
  module = g_build_filename (f->dir, GOOD_MODULE, NULL);
  g_assert_cmpstr (reg_backend_info_get_module_path (shipped), !=, module);
}

/* Runs in a subprocess: the environment is read when a registry is made. */
static void
test_search_path_environment (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *added = make_tmp_dir ();
      g_autofree char *env_a = make_tmp_dir ();
      g_autofree char *env_b = make_tmp_dir ();
      g_autofree char *system_dir = make_tmp_dir ();
      g_autofree char *env_path = g_strjoin (G_SEARCHPATH_SEPARATOR_S, env_a, env_b, NULL);
      g_autoptr(RegRegistry) registry = NULL;
      g_auto(GStrv) paths = NULL;

      write_manifest (added, "n.backend", "libadded.so", "added",
                      (const char * const[]) { "n1", NULL });
      write_manifest (env_a, "n.backend", "liba.so", "env_a",
                      (const char * const[]) { "n1", "n2", NULL });
      write_manifest (env_b, "n.backend", "libb.so", "env_b",
                      (const char * const[]) { "n1", "n2", "n3", NULL });
      write_manifest (system_dir, "n.backend", "libsystem.so", "system",
                      (const char * const[]) { "n1", "n2", "n3", "n4", NULL });

      g_assert_true (g_setenv ("REG_BACKEND_PATH", env_path, TRUE));
      g_assert_true (g_setenv ("REG_BACKEND_SYSTEM_DIR", system_dir, TRUE));
      registry = reg_registry_new ();
      reg_registry_add_search_path (registry, added);

      paths = reg_registry_get_search_paths (registry);
      g_assert_cmpstrv (paths, ((const char * const[]) { added, env_a, env_b, system_dir, NULL }));

      assert_description (registry, "n1", "added");
      assert_description (registry, "n2", "env_a");
      assert_description (registry, "n3", "env_b");
      assert_description (registry, "n4", "system");
      assert_module_path (registry, "n1", added, "libadded.so");
      assert_module_path (registry, "n4", system_dir, "libsystem.so");

      g_assert_finalize_object (g_steal_pointer (&registry));
      remove_tmp_dir (added);
      remove_tmp_dir (env_a);
      remove_tmp_dir (env_b);
      remove_tmp_dir (system_dir);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* REG_BACKEND_SYSTEM_DIR set and empty: no system directory at all. */
/* A directory that comes several times in the search path (50 times in
 * REG_BACKEND_PATH, under a symbolic link, as an added directory) is read
 * once, where it first comes: its broken manifest warns once, and its
 * declarations rank there. */
static void
test_search_path_repeated_directory (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *dir = make_tmp_dir ();
      g_autofree char *other = make_tmp_dir ();
      g_autofree char *link = g_build_filename (other, "link", NULL);
      g_autofree char *dotted = NULL;
      g_autoptr(GPtrArray) parts = g_ptr_array_new ();
      g_autofree char *env_path = NULL;
      g_autofree char *broken = g_build_filename (dir, "broken.backend", NULL);
      g_autofree char *pattern = NULL;
      g_autoptr(RegRegistry) registry = NULL;
      g_auto(GStrv) paths = NULL;
      g_auto(GStrv) names = NULL;
      const char * const no_exclusion[] = { NULL };

      write_manifest (dir, "good.backend", "librep.so", "repeated",
                      (const char * const[]) { "rep1", NULL });
      write_file (dir, "broken.backend", "not a manifest", -1);
      write_manifest (other, "other.backend", "libother.so", "other",
                      (const char * const[]) { "rep1", "rep2", NULL });
      g_assert_no_errno (symlink (dir, link));
      dotted = g_build_filename (other, "link", ".", NULL);

      for (guint i = 0; i < 50; i++)
        g_ptr_array_add (parts, dir);
      g_ptr_array_add (parts, link);
      g_ptr_array_add (parts, other);
      g_ptr_array_add (parts, link);
      g_ptr_array_add (parts, NULL);
      env_path = g_strjoinv (G_SEARCHPATH_SEPARATOR_S, (char **) parts->pdata);
      g_assert_true (g_setenv ("REG_BACKEND_PATH", env_path, TRUE));
      g_assert_true (g_setenv ("REG_BACKEND_SYSTEM_DIR", "", TRUE));

      registry = reg_registry_new ();
      reg_registry_add_search_path (registry, dotted);
      paths = reg_registry_get_search_paths (registry);
      g_assert_cmpuint (g_strv_length (paths), ==, 54);

      pattern = g_strdup_printf ("manifest */broken.backend skipped: *");
      g_test_expect_message (LOG_DOMAIN, G_LOG_LEVEL_WARNING, pattern);
      names = reg_registry_list_backends (registry, no_exclusion);
      g_test_assert_expected_messages ();
      g_assert_cmpstrv (names, ((const char * const[]) { "rep1", "rep2", NULL }));

      /* rep1 from the first place of the directory: the added path. */
      assert_description (registry, "rep1", "repeated");
      assert_description (registry, "rep2", "other");

      /* Discovery again, and a rescan: still once each. */
      g_test_expect_message (LOG_DOMAIN, G_LOG_LEVEL_WARNING, pattern);
      reg_registry_rescan (registry);
      g_test_assert_expected_messages ();
      g_strfreev (reg_registry_list_backends (registry, no_exclusion));

      g_assert_finalize_object (g_steal_pointer (&registry));
      remove_tmp_dir (other);
      remove_tmp_dir (dir);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

static void
test_search_path_system_dir_empty (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *env_dir = make_tmp_dir ();
      g_autoptr(RegRegistry) registry = NULL;
      g_autoptr(RegRegistry) bare = NULL;
      g_auto(GStrv) paths = NULL;
      g_auto(GStrv) bare_paths = NULL;
      g_auto(GStrv) names = NULL;

      g_assert_true (g_setenv ("REG_BACKEND_PATH", env_dir, TRUE));
      g_assert_true (g_setenv ("REG_BACKEND_SYSTEM_DIR", "", TRUE));
      registry = reg_registry_new ();
      paths = reg_registry_get_search_paths (registry);
      g_assert_cmpstrv (paths, ((const char * const[]) { env_dir, NULL }));

      g_unsetenv ("REG_BACKEND_PATH");
      bare = reg_registry_new ();
      bare_paths = reg_registry_get_search_paths (bare);
      g_assert_cmpstrv (bare_paths, no_tags);
      names = reg_registry_list_backends (bare, no_tags);
      g_assert_cmpstrv (names, no_tags);

      g_assert_finalize_object (g_steal_pointer (&registry));
      g_assert_finalize_object (g_steal_pointer (&bare));
      remove_tmp_dir (env_dir);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* REG_BACKEND_SYSTEM_DIR unset: the installed directory comes last. */
static void
test_search_path_system_dir_unset (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *env_dir = make_tmp_dir ();
      g_autoptr(RegRegistry) registry = NULL;
      g_autofree char *suffix = g_build_filename ("libreg-1", "backends", NULL);
      g_auto(GStrv) paths = NULL;

      g_assert_true (g_setenv ("REG_BACKEND_PATH", env_dir, TRUE));
      g_unsetenv ("REG_BACKEND_SYSTEM_DIR");
      registry = reg_registry_new ();
      paths = reg_registry_get_search_paths (registry);
      g_assert_cmpuint (g_strv_length (paths), ==, 2);
      g_assert_cmpstr (paths[0], ==, env_dir);
      g_assert_true (g_path_is_absolute (paths[1]));
      g_assert_true (g_str_has_suffix (paths[1], suffix));

      g_assert_finalize_object (g_steal_pointer (&registry));
      remove_tmp_dir (env_dir);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

static void
test_search_path_order (void)
{
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_auto(GStrv) initial = reg_registry_get_search_paths (registry);
  g_autoptr(GPtrArray) expected = g_ptr_array_new ();
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *relative = g_build_filename (cwd, "relative", "dir", NULL);
  g_auto(GStrv) names = NULL;
  g_auto(GStrv) paths = NULL;
  g_auto(GStrv) again = NULL;

  reg_registry_add_search_path (registry, "/nonexistent/one");
  reg_registry_add_search_path (registry, "/nonexistent/two");
  reg_registry_add_search_path (registry, "/nonexistent/three");

  paths = reg_registry_get_search_paths (registry);
  g_ptr_array_add (expected, "/nonexistent/three");
  g_ptr_array_add (expected, "/nonexistent/two");
  g_ptr_array_add (expected, "/nonexistent/one");
  for (guint i = 0; initial[i] != NULL; i++)
    g_ptr_array_add (expected, initial[i]);
  g_ptr_array_add (expected, NULL);
  g_assert_cmpstrv (paths, (const char * const *) expected->pdata);

  /* Added again: moved to the front.  Relative: made absolute. */
  reg_registry_add_search_path (registry, "/nonexistent/one");
  reg_registry_add_search_path (registry, "relative/dir");
  again = reg_registry_get_search_paths (registry);
  g_ptr_array_set_size (expected, 0);
  g_ptr_array_add (expected, relative);
  g_ptr_array_add (expected, "/nonexistent/one");
  g_ptr_array_add (expected, "/nonexistent/three");
  g_ptr_array_add (expected, "/nonexistent/two");
  for (guint i = 0; initial[i] != NULL; i++)
    g_ptr_array_add (expected, initial[i]);
  g_ptr_array_add (expected, NULL);
  g_assert_cmpstrv (again, (const char * const *) expected->pdata);

  /* Directories that do not exist, or are files, hold no manifests, and
   * say nothing. */
  reg_registry_add_search_path (registry, FIXTURE_BUILDDIR G_DIR_SEPARATOR_S "good.backend");
  names = reg_registry_list_backends (registry, no_tags);
  g_assert_nonnull (names);
  g_assert_false (g_strv_contains ((const char * const *) names, "fixture_a"));
}

/* Rescan */

static void
test_rescan_new_and_removed (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "good");

  copy_fixture (f->dir, "other");
  assert_listed (f->registry, "fixture_a", TRUE);
  assert_listed (f->registry, "other", TRUE);

  /* A scanned directory is not read again until a rescan. */
  write_manifest (f->dir, "fresh.backend", "libfresh.so", "Written after discovery",
                  (const char * const[]) { "fresh", NULL });
  assert_listed (f->registry, "fresh", FALSE);

  remove_file (f->dir, "good.backend");
  recorder_clear (f->recorder);
  reg_registry_rescan (f->registry);

  assert_listed (f->registry, "fresh", TRUE);
  assert_listed (f->registry, "fixture_a", FALSE);
  assert_listed (f->registry, "fixture_b", FALSE);
  assert_listed (f->registry, "other", TRUE);
  assert_lookup_invalid (f->registry, "fixture_a");
  g_assert_null (reg_registry_get_backend_info (f->registry, "fixture_b"));

  g_assert_cmpuint (recorder_count (f->recorder, "declared", "fresh"), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "unregistered", "fixture_a"), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "unregistered", "fixture_b"), ==, 1);
  /* Unchanged declarations make no noise. */
  g_assert_cmpuint (recorder_count (f->recorder, "declared", "other"), ==, 0);
  g_assert_cmpuint (recorder_count (f->recorder, "unregistered", "other"), ==, 0);
  assert_not_loaded (module);
}

/* Backends whose module is loaded, and runtime ones, survive a rescan that
 * no longer finds their manifest. */
static void
test_rescan_keeps_registered (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "good");
  g_autoptr(RegCompiler) a = lookup_ok (f->registry, "fixture_a");
  g_autoptr(RegCompiler) runtime = reg_func_compiler_new ("runtime", refuse_compile, NULL, NULL);
  g_autoptr(RegCompiler) a_again = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (reg_registry_register_backend (f->registry, "runtime", runtime, NULL, &error));
  g_assert_no_error (error);

  remove_file (f->dir, "good.backend");
  recorder_clear (f->recorder);
  reg_registry_rescan (f->registry);

  a_again = lookup_ok (f->registry, "fixture_a");
  g_assert_true (a == a_again);
  assert_listed (f->registry, "fixture_a", TRUE);
  assert_listed (f->registry, "runtime", TRUE);
  g_assert_cmpuint (recorder_count (f->recorder, "unregistered", "fixture_a"), ==, 0);
  g_assert_cmpuint (recorder_count (f->recorder, "unregistered", "runtime"), ==, 0);
  assert_good_loaded_once (module, 1, 2);
}

/* Signal handlers that call back into the registry */

/* Counts the signals about the fixture's own backends (REG_BACKEND_PATH
 * may declare others). */
typedef struct
{
  guint n_declared;
  guint n_loaded;
  guint n_registered;
  guint n_unregistered;
} Reentrant;

static gboolean
is_fixture_backend (const char *name)
{
  return g_str_equal (name, "fixture_a") || g_str_equal (name, "fixture_b") ||
         g_str_equal (name, "other");
}

static void
reenter_on_declared (RegRegistry *registry,
                     const char  *name,
                     Reentrant   *r)
{
  g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, name);
  g_auto(GStrv) names = reg_registry_list_backends (registry, no_tags);
  g_auto(GStrv) suggestions = reg_registry_suggest (registry, name);

  g_assert_true (g_strv_contains ((const char * const *) suggestions, name));
  g_assert_nonnull (info);
  g_assert_false (reg_backend_info_get_loaded (info));
  g_assert_true (g_strv_contains ((const char * const *) names, name));
  r->n_declared += is_fixture_backend (name);
}

static void
reenter_on_module_loaded (RegRegistry *registry,
                          RegModule   *module,
                          Reentrant   *r)
{
  g_autoptr(RegCompiler) b = lookup_ok (registry, "fixture_b");
  g_auto(GStrv) names = reg_registry_list_backends (registry, no_tags);

  g_assert_cmpstr (reg_compiler_get_name (b), ==, "fixture_b");
  g_assert_true (g_strv_contains ((const char * const *) names, "fixture_a"));
  r->n_loaded++;
}

static void
reenter_on_registered (RegRegistry *registry,
                       const char  *name,
                       Reentrant   *r)
{
  g_autoptr(RegCompiler) compiler = lookup_ok (registry, name);
  g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, name);

  g_assert_true (reg_registry_is_registered (registry, compiler));
  g_assert_true (reg_backend_info_get_loaded (info));
  r->n_registered += is_fixture_backend (name);
}

static void
reenter_on_unregistered (RegRegistry *registry,
                         const char  *name,
                         Reentrant   *r)
{
  g_auto(GStrv) names = reg_registry_list_backends (registry, no_tags);

  g_assert_false (g_strv_contains ((const char * const *) names, name));
  g_assert_null (reg_registry_get_backend_info (registry, name));
  r->n_unregistered += is_fixture_backend (name);
}

/* Every signal is emitted with no registry lock held, so handlers may call
 * the registry.  Runs in a subprocess with a timeout, as a lock held would
 * deadlock. */
static void
test_signals_reentrant (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *dir = make_tmp_dir ();
      g_autoptr(RegRegistry) registry = reg_registry_new ();
      g_autoptr(RegCompiler) a = NULL;
      g_autoptr(GError) error = NULL;
      Reentrant r = { 0, };

      copy_fixture (dir, "good");
      copy_fixture (dir, "other");
      reg_registry_add_search_path (registry, dir);
      g_signal_connect (registry, "backend-declared", G_CALLBACK (reenter_on_declared), &r);
      g_signal_connect (registry, "module-loaded", G_CALLBACK (reenter_on_module_loaded), &r);
      g_signal_connect (registry, "backend-registered", G_CALLBACK (reenter_on_registered), &r);
      g_signal_connect (registry, "backend-unregistered", G_CALLBACK (reenter_on_unregistered), &r);

      assert_listed (registry, "fixture_a", TRUE);
      g_assert_cmpuint (r.n_declared, ==, 3);

      a = lookup_ok (registry, "fixture_a");
      g_assert_cmpuint (r.n_loaded, ==, 1);
      g_assert_cmpuint (r.n_registered, ==, 2);

      g_assert_true (reg_registry_unregister_backend (registry, "fixture_b", &error));
      g_assert_no_error (error);
      g_assert_cmpuint (r.n_unregistered, ==, 1);

      remove_file (dir, "other.backend");
      reg_registry_rescan (registry);
      g_assert_cmpuint (r.n_unregistered, ==, 2);

      g_clear_object (&a);
      g_assert_finalize_object (g_steal_pointer (&registry));
      remove_tmp_dir (dir);
      return;
    }

  g_test_trap_subprocess (NULL, 30 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* Threads using modules' backends while others rescan, list and add
 * directories: no crash, no deadlock, one load, the same compilers.  (The
 * backends are loaded first: declared ones may flicker during a rescan,
 * which /module/threads/rescan-keeps-declared checks.) */

#define N_STRESS_THREADS 6
#define N_STRESS_ITERATIONS 40

typedef struct
{
  RegRegistry *registry;
  guint        index;
  gint        *n_ready;
  RegCompiler *a;  /* what the first lookup of fixture_a gave */
} StressThread;

static gpointer
stress_thread (gpointer data)
{
  StressThread *t = data;

  g_atomic_int_inc (t->n_ready);
  while (g_atomic_int_get (t->n_ready) < N_STRESS_THREADS)
    g_thread_yield ();

  for (guint i = 0; i < N_STRESS_ITERATIONS; i++)
    {
      switch ((i + t->index) % 6)
        {
        case 0:
          {
            g_autoptr(RegCompiler) a = lookup_ok (t->registry, "fixture_a");

            if (t->a == NULL)
              t->a = g_object_ref (a);
            g_assert_true (a == t->a);
          }
          break;

        case 1:
          {
            g_autoptr(RegCompiler) other = lookup_ok (t->registry, "other");

            g_assert_cmpstr (reg_compiler_get_name (other), ==, "other");
          }
          break;

        case 2:
          {
            g_auto(GStrv) names = reg_registry_list_backends (t->registry, no_tags);

            g_assert_true (g_strv_contains ((const char * const *) names, "fixture_a"));
            g_assert_true (g_strv_contains ((const char * const *) names, "other"));
          }
          break;

        case 3:
          {
            g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (t->registry, "other");

            g_assert_nonnull (info);
            g_assert_true (reg_backend_info_get_loaded (info));
          }
          break;

        case 4:
          reg_registry_rescan (t->registry);
          break;

        case 5:
          {
            g_autofree char *dir = g_strdup_printf ("/nonexistent/%u", t->index);
            g_auto(GStrv) suggestions = NULL;

            reg_registry_add_search_path (t->registry, dir);
            suggestions = reg_registry_suggest (t->registry, "fixture");
            g_assert_nonnull (suggestions);
          }
          break;

        default:
          g_assert_not_reached ();
        }
    }

  return NULL;
}

static void
test_threads_stress (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *dir = make_tmp_dir ();
      g_autofree char *module = install_fixture (dir, "good");
      g_autoptr(RegRegistry) registry = reg_registry_new ();
      StressThread threads[N_STRESS_THREADS];
      GThread *handles[N_STRESS_THREADS];
      g_autoptr(RegCompiler) a = NULL;
      g_autoptr(RegCompiler) other = NULL;
      gint n_ready = 0;

      copy_fixture (dir, "other");
      reg_registry_add_search_path (registry, dir);
      a = lookup_ok (registry, "fixture_a");
      other = lookup_ok (registry, "other");

      for (guint i = 0; i < N_STRESS_THREADS; i++)
        {
          threads[i] = (StressThread) {
            .registry = registry,
            .index = i,
            .n_ready = &n_ready,
          };
          handles[i] = g_thread_new ("stress", stress_thread, &threads[i]);
        }
      for (guint i = 0; i < N_STRESS_THREADS; i++)
        g_thread_join (handles[i]);

      for (guint i = 0; i < N_STRESS_THREADS; i++)
        g_assert_true (threads[i].a == a);
      assert_good_loaded_once (module, 1, 2);

      for (guint i = 0; i < N_STRESS_THREADS; i++)
        g_clear_object (&threads[i].a);
      g_assert_finalize_object (g_steal_pointer (&registry));
      remove_tmp_dir (dir);
      return;
    }

  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  if (!g_file_test ("/proc/self/maps", G_FILE_TEST_EXISTS))
    g_test_skip (NO_PROC_MAPS);
}

/* A name declared before and after a rescan stays visible to readers while
 * the rescan runs: a rescan swaps the old declarations for the new ones at
 * once, never leaving a moment when a declared backend is missing. */

#define N_RESCAN_THREADS 2
#define N_READER_THREADS 2
#define N_RESCAN_ITERATIONS 10000
#define RESCAN_SECONDS 2

typedef struct
{
  RegRegistry *registry;
  gboolean     rescans;
  gint        *n_ready;
  gint        *stop;      /* set once a reader saw a declared name missing */
  gint64       deadline;  /* bounds the run under valgrind */
  guint        n_missing_info;
  guint        n_missing_list;
  guint        n_missing_tags;
} RescanThread;

static gpointer
rescan_thread (gpointer data)
{
  RescanThread *t = data;

  g_atomic_int_inc (t->n_ready);
  while (g_atomic_int_get (t->n_ready) < N_RESCAN_THREADS + N_READER_THREADS)
    g_thread_yield ();

  for (guint i = 0; i < N_RESCAN_ITERATIONS && !g_atomic_int_get (t->stop); i++)
    {
      if (i % 64 == 0 && g_get_monotonic_time () > t->deadline)
        break;

      if (t->rescans)
        {
          reg_registry_rescan (t->registry);
        }
      else
        {
          g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (t->registry, "other");
          g_auto(GStrv) names = reg_registry_list_backends (t->registry, no_tags);
          g_auto(GStrv) tags = reg_registry_get_backend_tags (t->registry, "other", NULL);

          t->n_missing_info += info == NULL;
          t->n_missing_list += !g_strv_contains ((const char * const *) names, "other");
          t->n_missing_tags += tags == NULL;
          if (info == NULL || tags == NULL ||
              !g_strv_contains ((const char * const *) names, "other"))
            g_atomic_int_set (t->stop, TRUE);
        }
    }

  return NULL;
}

static void
test_threads_rescan_keeps_declared (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *dir = make_tmp_dir ();
      g_autofree char *module = install_fixture (dir, "other");
      g_autoptr(RegRegistry) registry = reg_registry_new ();
      RescanThread threads[N_RESCAN_THREADS + N_READER_THREADS];
      GThread *handles[N_RESCAN_THREADS + N_READER_THREADS];
      gint64 deadline = g_get_monotonic_time () + RESCAN_SECONDS * G_USEC_PER_SEC;
      gint n_ready = 0;
      gint stop = FALSE;

      reg_registry_add_search_path (registry, dir);
      assert_listed (registry, "other", TRUE);

      for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
        {
          threads[i] = (RescanThread) {
            .registry = registry,
            .rescans = i < N_RESCAN_THREADS,
            .n_ready = &n_ready,
            .stop = &stop,
            .deadline = deadline,
          };
          handles[i] = g_thread_new ("rescan", rescan_thread, &threads[i]);
        }
      for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
        g_thread_join (handles[i]);

      for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
        {
          g_assert_cmpuint (threads[i].n_missing_info, ==, 0);
          g_assert_cmpuint (threads[i].n_missing_list, ==, 0);
          g_assert_cmpuint (threads[i].n_missing_tags, ==, 0);
        }

      assert_declared_not_loaded (registry, "other", module);
      g_assert_finalize_object (g_steal_pointer (&registry));
      remove_tmp_dir (dir);
      return;
    }

  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* Runtime registrations and declared names */

/* A runtime registration takes over a declared name; when the module is
 * loaded later for its other backend, its offer for the taken name is
 * dropped without a warning (any warning would fail the test). */
static void
test_runtime_overrides_declared (Fixture       *f,
                                 gconstpointer  data)
{
  gboolean before_discovery = GPOINTER_TO_INT (data);
  g_autofree char *module = install_fixture (f->dir, "good");
  g_autoptr(RegCompiler) runtime = reg_func_compiler_new ("runtime_a", refuse_compile,
                                                         NULL, NULL);
  g_autoptr(RegCompiler) b_runtime = reg_func_compiler_new ("runtime_b", refuse_compile,
                                                           NULL, NULL);
  g_autoptr(RegCompiler) a = NULL;
  g_autoptr(RegCompiler) a_again = NULL;
  g_autoptr(RegCompiler) b = NULL;
  g_autoptr(RegBackendInfo) info = NULL;
  g_autoptr(GError) error = NULL;

  if (!before_discovery)
    assert_declared_not_loaded (f->registry, "fixture_a", module);

  g_assert_true (reg_registry_register_backend (f->registry, "fixture_a", runtime, NULL, &error));
  g_assert_no_error (error);

  info = reg_registry_get_backend_info (f->registry, "fixture_a");
  g_assert_nonnull (info);
  g_assert_cmpint (reg_backend_info_get_origin (info), ==, REG_BACKEND_ORIGIN_RUNTIME);
  g_assert_true (reg_backend_info_get_loaded (info));
  g_assert_null (reg_backend_info_get_module_path (info));
  g_assert_cmpstrv (reg_backend_info_get_tags (info), no_tags);

  a = lookup_ok (f->registry, "fixture_a");
  g_assert_true (a == runtime);
  assert_not_loaded (module);

  b = lookup_ok (f->registry, "fixture_b");
  g_assert_cmpstr (reg_compiler_get_name (b), ==, "fixture_b");
  /* Only fixture_b's compiler was made. */
  assert_good_counters (module, 1, 1);

  a_again = lookup_ok (f->registry, "fixture_a");
  g_assert_true (a_again == runtime);
  g_assert_cmpuint (recorder_count (f->recorder, "registered", "fixture_a"), ==, 1);
  g_assert_cmpuint (recorder_count (f->recorder, "registered", "fixture_b"), ==, 1);

  /* A loaded module backend cannot be taken over. */
  g_assert_false (reg_registry_register_backend (f->registry, "fixture_b", b_runtime,
                                                 NULL, &error));
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_DUPLICATE_NAME);
  g_assert_cmpstr (error->message, ==, "duplicate name: fixture_b");
}

static void
test_runtime_unregister_declared (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *module = install_fixture (f->dir, "good");
  g_autoptr(RegCompiler) a = NULL;
  g_autoptr(RegCompiler) b = NULL;
  g_autoptr(GError) error = NULL;

  assert_declared_not_loaded (f->registry, "fixture_a", module);

  g_assert_true (reg_registry_unregister_backend (f->registry, "fixture_a", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (recorder_count (f->recorder, "unregistered", "fixture_a"), ==, 1);
  assert_listed (f->registry, "fixture_a", FALSE);
  g_assert_null (reg_registry_get_backend_info (f->registry, "fixture_a"));
  assert_lookup_invalid (f->registry, "fixture_a");
  assert_not_loaded (module);

  g_assert_false (reg_registry_unregister_backend (f->registry, "fixture_a", &error));
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
  g_clear_error (&error);

  /* The module's other backend still loads, and its offer for the
   * unregistered name is dropped silently. */
  b = lookup_ok (f->registry, "fixture_b");
  assert_good_counters (module, 1, 1);
  assert_lookup_invalid (f->registry, "fixture_a");
  g_assert_cmpuint (recorder_count (f->recorder, "registered", "fixture_a"), ==, 0);

  /* A rescan declares it again, from the module already loaded. */
  reg_registry_rescan (f->registry);
  g_assert_cmpuint (recorder_count (f->recorder, "declared", "fixture_a"), ==, 2);
  assert_declared_not_loaded (f->registry, "fixture_a", module);
  a = lookup_ok (f->registry, "fixture_a");
  g_assert_cmpstr (reg_compiler_get_name (a), ==, "fixture_a");
  assert_good_counters (module, 1, 2);
  g_assert_cmpuint (recorder_count_kind (f->recorder, "module"), ==, 1);
}

/* Messages */

/* Whether @message is one line of valid, visible text: no control or
 * format character (a line break, a terminal escape, a direction
 * override) and no line or paragraph separator. */
static void
assert_visible_line (const char *message)
{
  g_assert_true (g_utf8_validate (message, -1, NULL));
  for (const char *p = message; *p != '\0'; p = g_utf8_next_char (p))
    {
      GUnicodeType type = g_unichar_type (g_utf8_get_char (p));

      if (type == G_UNICODE_CONTROL || type == G_UNICODE_FORMAT ||
          type == G_UNICODE_LINE_SEPARATOR || type == G_UNICODE_PARAGRAPH_SEPARATOR)
        g_error ("invisible U+%04X at byte %d of \"%s\"", g_utf8_get_char (p),
                 (int) (p - message), message);
    }
}

static GPtrArray *captured_warnings;

static void
capture_warning (const char     *log_domain,
                 GLogLevelFlags  log_level,
                 const char     *message,
                 gpointer        user_data)
{
  g_ptr_array_add (captured_warnings, g_strdup (message));
}

/* File names and manifest values reach warnings and errors escaped, like
 * every string from outside: a manifest whose file name holds a line break
 * could forge a second warning line, a Module= value with an escape
 * sequence drove the terminal of whoever read the error, and C1 controls
 * (U+009B, a terminal's CSI) and direction overrides passed through. */
static void
test_messages_escaped (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *dir = make_tmp_dir ();
      g_autoptr(RegRegistry) registry = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(RegCompiler) compiler = NULL;
      g_auto(GStrv) names = NULL;
      const char * const no_exclusion[] = { NULL };
      const char *forged = "evil\n(regctl:1): Reg-WARNING **: 12:00:00.000: all is well\xe2\x80\xae.backend";

      captured_warnings = g_ptr_array_new_with_free_func (g_free);
      g_log_set_always_fatal (G_LOG_FATAL_MASK);
      g_log_set_handler (LOG_DOMAIN, G_LOG_LEVEL_WARNING, capture_warning, NULL);

      write_file (dir, forged, "not a manifest", -1);
      write_manifest (dir, "red.backend", "lib\x1b[31mred\xc2\x9b.so", "red",
                      (const char * const[]) { "red", NULL });
      g_assert_true (g_setenv ("REG_BACKEND_PATH", "", TRUE));
      g_assert_true (g_setenv ("REG_BACKEND_SYSTEM_DIR", "", TRUE));
      registry = reg_registry_new ();
      reg_registry_add_search_path (registry, dir);

      names = reg_registry_list_backends (registry, no_exclusion);
      g_assert_cmpstrv (names, ((const char * const[]) { "red", NULL }));
      g_assert_cmpuint (captured_warnings->len, ==, 1);
      assert_visible_line (g_ptr_array_index (captured_warnings, 0));
      g_assert_nonnull (strstr (g_ptr_array_index (captured_warnings, 0),
                                "/evil<U+000A>(regctl:1): Reg-WARNING **: 12:00:00.000: "
                                "all is well<U+202E>.backend skipped: "));

      compiler = reg_registry_lookup_backend (registry, "red", &error);
      g_assert_null (compiler);
      g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
      assert_visible_line (error->message);
      g_assert_nonnull (strstr (error->message, "/lib<U+001B>[31mred<U+009B>.so cannot be opened: "));

      g_ptr_array_unref (captured_warnings);
      g_assert_finalize_object (g_steal_pointer (&registry));
      remove_tmp_dir (dir);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

int
main (int   argc,
      char *argv[])
{
  /* Messages from dlerror() and strerror() are matched in English. */
  g_setenv ("LC_ALL", "C", TRUE);

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

#define ADD(path, func, data) \
  g_test_add ((path), Fixture, (data), fixture_setup, (func), fixture_teardown)

  ADD ("/module/discovery/opens-nothing", test_discovery_opens_nothing, NULL);
  ADD ("/module/discovery/declared-signal", test_discovery_declared_signal, NULL);
  ADD ("/module/discovery/tags", test_discovery_tags, NULL);
  ADD ("/module/info/module-backend", test_info_module_backend, NULL);
  ADD ("/module/load/one-open-for-two-backends", test_load_one_open_for_two_backends, NULL);
  ADD ("/module/load/two-registries", test_load_two_registries, NULL);
  g_test_add_func ("/module/load/concurrent", test_load_concurrent);
  g_test_add ("/module/load/one-file-two-directories/symlink", Fixture, GINT_TO_POINTER (FALSE),
              fixture_setup, test_load_one_file_two_directories, fixture_teardown);
  g_test_add ("/module/load/one-file-two-directories/hard-link", Fixture, GINT_TO_POINTER (TRUE),
              fixture_setup, test_load_one_file_two_directories, fixture_teardown);

  ADD ("/module/failure/abi-mismatch", test_failure_abi_mismatch, NULL);
  ADD ("/module/failure/no-load-symbol", test_failure_no_load_symbol, NULL);
  ADD ("/module/failure/no-abi-symbol", test_failure_no_abi_symbol, NULL);
  ADD ("/module/failure/not-a-shared-object", test_failure_not_a_shared_object, NULL);
  ADD ("/module/failure/loader-without-reason", test_failure_loader_without_reason, NULL);
  ADD ("/module/failure/missing-module-file", test_failure_missing_module_file, NULL);
  ADD ("/module/failure/missing-declared", test_failure_missing_declared,
       GINT_TO_POINTER (FALSE));
  ADD ("/module/failure/missing-declared-first", test_failure_missing_declared,
       GINT_TO_POINTER (TRUE));
  ADD ("/module/failure/undeclared", test_failure_undeclared, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (broken_manifests); i++)
    {
      g_autofree char *path = g_strconcat ("/module/manifest/broken/",
                                           broken_manifests[i].test_name, NULL);

      ADD (path, test_manifest_broken, &broken_manifests[i]);
    }
  ADD ("/module/manifest/several-broken", test_manifest_several_broken, NULL);

  ADD ("/module/search-path/newest-first", test_search_path_newest_first, NULL);
  ADD ("/module/search-path/same-directory", test_search_path_same_directory, NULL);
  ADD ("/module/search-path/shadowed", test_search_path_shadowed, NULL);
  ADD ("/module/search-path/added-after-discovery",
       test_search_path_added_after_discovery, NULL);
  ADD ("/module/search-path/added-before-environment",
       test_search_path_added_before_environment, NULL);
  g_test_add_func ("/module/search-path/environment", test_search_path_environment);
  g_test_add_func ("/module/messages/escaped", test_messages_escaped);
  g_test_add_func ("/module/search-path/repeated-directory", test_search_path_repeated_directory);
  g_test_add_func ("/module/search-path/system-dir-empty", test_search_path_system_dir_empty);
  g_test_add_func ("/module/search-path/system-dir-unset", test_search_path_system_dir_unset);
  g_test_add_func ("/module/search-path/order", test_search_path_order);

  ADD ("/module/rescan/new-and-removed", test_rescan_new_and_removed, NULL);
  ADD ("/module/rescan/keeps-registered", test_rescan_keeps_registered, NULL);

  g_test_add_func ("/module/signals/reentrant", test_signals_reentrant);
  g_test_add_func ("/module/threads/stress", test_threads_stress);
  g_test_add_func ("/module/threads/rescan-keeps-declared", test_threads_rescan_keeps_declared);

  ADD ("/module/runtime/overrides-declared", test_runtime_overrides_declared,
       GINT_TO_POINTER (FALSE));
  ADD ("/module/runtime/overrides-before-discovery", test_runtime_overrides_declared,
       GINT_TO_POINTER (TRUE));
  ADD ("/module/runtime/unregister-declared", test_runtime_unregister_declared, NULL);

#undef ADD

  return g_test_run ();
}
