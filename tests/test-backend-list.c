/* test-backend-list.c: RegBackendList, the list model of a registry
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each case follows the model with a Watch: a copy of the names it shows,
 * updated from items-changed alone.  If the positions and counts the model
 * signals are exact, the copy always equals the model, and the model the
 * registry's list_backends().  A watch also records every signal, and the
 * thread and context it came in.
 */

#include <string.h>

#include <reg.h>

#include "test-files.h"
#include "test-objects.h"

typedef struct
{
  guint position;
  guint removed;
  guint added;
} Change;

typedef struct
{
  GListModel   *model;
  GPtrArray    *names;     /* the copy */
  GArray       *changes;   /* Change */
  GThread      *thread;    /* where items-changed must come */
  GMainContext *context;   /* which must be owned then */
  gulong        handler;
} Watch;

static char **
model_names (GListModel *model)
{
  guint n = g_list_model_get_n_items (model);
  char **names = g_new0 (char *, n + 1);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RegBackendInfo) info = g_list_model_get_item (model, i);

      names[i] = g_strdup (reg_backend_info_get_name (info));
    }

  return names;
}

static void
on_items_changed (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Watch      *watch)
{
  Change change = { position, removed, added };

  g_assert_true (g_thread_self () == watch->thread);
  g_assert_true (g_main_context_is_owner (watch->context));
  g_assert_cmpuint (position + removed, <=, watch->names->len);

  g_array_append_val (watch->changes, change);
  g_ptr_array_remove_range (watch->names, position, removed);
  for (guint i = 0; i < added; i++)
    {
      g_autoptr(RegBackendInfo) info = g_list_model_get_item (model, position + i);

      g_assert_nonnull (info);
      g_ptr_array_insert (watch->names, position + i, g_strdup (reg_backend_info_get_name (info)));
    }

  /* The model is what the signals say it is, in order. */
  g_assert_cmpuint (watch->names->len, ==, g_list_model_get_n_items (model));
  for (guint i = 1; i < watch->names->len; i++)
    g_assert_cmpstr (g_ptr_array_index (watch->names, i - 1), <, g_ptr_array_index (watch->names, i));
}

static void
watch_init (Watch      *watch,
            GListModel *model)
{
  g_auto(GStrv) names = model_names (model);

  watch->model = g_object_ref (model);
  watch->names = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; names[i] != NULL; i++)
    g_ptr_array_add (watch->names, g_strdup (names[i]));
  watch->changes = g_array_new (FALSE, TRUE, sizeof (Change));
  watch->thread = g_thread_self ();
  watch->context = g_main_context_ref_thread_default ();
  watch->handler = g_signal_connect (model, "items-changed", G_CALLBACK (on_items_changed), watch);
}

static void
watch_clear (Watch *watch)
{
  g_clear_signal_handler (&watch->handler, watch->model);
  g_clear_object (&watch->model);
  g_clear_pointer (&watch->names, g_ptr_array_unref);
  g_clear_pointer (&watch->changes, g_array_unref);
  g_clear_pointer (&watch->context, g_main_context_unref);
}

/* The copy, the model and the registry agree. */
static void
assert_watch_agrees (Watch              *watch,
                     RegRegistry        *registry,
                     const char * const *exclude_tags)
{
  g_auto(GStrv) expected = reg_registry_list_backends (registry, exclude_tags);
  g_auto(GStrv) shown = model_names (watch->model);

  g_ptr_array_add (watch->names, NULL);
  g_assert_cmpstrv ((const char * const *) watch->names->pdata, expected);
  g_ptr_array_remove_index (watch->names, watch->names->len - 1);
  g_assert_cmpstrv (shown, expected);
}

static void
assert_changes (Watch        *watch,
                const Change *expected,
                guint         n)
{
  g_assert_cmpuint (watch->changes->len, ==, n);
  for (guint i = 0; i < n; i++)
    {
      const Change *got = &g_array_index (watch->changes, Change, i);

      g_assert_cmpuint (got->position, ==, expected[i].position);
      g_assert_cmpuint (got->removed, ==, expected[i].removed);
      g_assert_cmpuint (got->added, ==, expected[i].added);
    }
  g_array_set_size (watch->changes, 0);
}

static void
register_named (RegRegistry        *registry,
                const char         *name,
                const char * const *tags)
{
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new (name, refuse_compile, NULL, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (reg_registry_register_backend (registry, name, compiler, tags, &error));
  g_assert_no_error (error);
}

static void
unregister_named (RegRegistry *registry,
                  const char  *name)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (reg_registry_unregister_backend (registry, name, &error));
  g_assert_no_error (error);
}

/* A private registry that sees no module directory: its contents are the
 * test's alone. */
static RegRegistry *
empty_registry (char **dir)
{
  g_autofree char *saved = g_strdup (g_getenv ("REG_BACKEND_PATH"));
  RegRegistry *registry;

  /* The environment is read when a registry is made, and only then: it is
   * set back at once (no other thread runs here). */
  *dir = make_tmp_dir ();
  g_assert_true (g_setenv ("REG_BACKEND_PATH", *dir, TRUE));
  registry = reg_registry_new ();
  if (saved != NULL)
    g_assert_true (g_setenv ("REG_BACKEND_PATH", saved, TRUE));
  else
    g_unsetenv ("REG_BACKEND_PATH");

  return registry;
}

static void
test_initial (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(RegRegistry) registry = empty_registry (&dir);
  g_autoptr(RegBackendList) shown = NULL;
  g_autoptr(RegBackendList) all = NULL;
  const char * const debug[] = { REG_TAG_DEBUG, NULL };
  const char * const none[] = { NULL };
  const char * const default_exclusion[] = { REG_TAG_DEBUG, REG_TAG_EXPERIMENTAL, NULL };
  g_auto(GStrv) names = NULL;
  guint n_items = 0;

  register_named (registry, "zeta", NULL);
  register_named (registry, "alpha", NULL);
  register_named (registry, "hidden", debug);
  write_file (dir, "m.backend",
              "[Reg Module]\nModule=libm.so\nAbiVersion=2\n\n[Backend mid]\nOptions=\n", -1);

  shown = reg_backend_list_new (registry, NULL);
  all = reg_backend_list_new (registry, none);

  g_assert_true (g_list_model_get_item_type (G_LIST_MODEL (shown)) == REG_TYPE_BACKEND_INFO);
  g_assert_true (reg_backend_list_get_registry (shown) == registry);
  g_assert_cmpstrv (reg_backend_list_get_exclude_tags (shown), default_exclusion);
  g_assert_cmpstrv (reg_backend_list_get_exclude_tags (all), none);

  names = model_names (G_LIST_MODEL (shown));
  g_assert_cmpstrv (names, ((const char * const[]) { "alpha", "mid", "zeta", NULL }));
  g_clear_pointer (&names, g_strfreev);
  names = model_names (G_LIST_MODEL (all));
  g_assert_cmpstrv (names, ((const char * const[]) { "alpha", "hidden", "mid", "zeta", NULL }));

  g_object_get (all, "n-items", &n_items, NULL);
  g_assert_cmpuint (n_items, ==, 4);
  g_assert_null (g_list_model_get_item (G_LIST_MODEL (all), 4));

  /* The declared backend's info shows its (empty) schema. */
  {
    g_autoptr(RegBackendInfo) mid = g_list_model_get_item (G_LIST_MODEL (shown), 1);

    g_assert_false (reg_backend_info_get_loaded (mid));
    g_assert_cmpuint (g_list_model_get_n_items (reg_backend_info_get_options (mid)), ==, 0);
  }

  remove_tmp_dir (dir);
}

/* Changes made in the model's thread show at once, at exact positions;
 * items that did not change stay the same objects. */
static void
test_same_thread (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(RegRegistry) registry = empty_registry (&dir);
  g_autoptr(RegBackendList) list = NULL;
  g_autoptr(RegBackendInfo) b_before = NULL;
  g_autoptr(RegBackendInfo) b_after = NULL;
  const char * const debug[] = { REG_TAG_DEBUG, NULL };
  Watch watch = { NULL, };

  register_named (registry, "b", NULL);
  register_named (registry, "d", NULL);
  list = reg_backend_list_new (registry, NULL);
  watch_init (&watch, G_LIST_MODEL (list));
  b_before = g_list_model_get_item (G_LIST_MODEL (list), 0);

  register_named (registry, "c", NULL);
  assert_changes (&watch, (const Change[]) { { 1, 0, 1 } }, 1);
  register_named (registry, "a", NULL);
  assert_changes (&watch, (const Change[]) { { 0, 0, 1 } }, 1);
  register_named (registry, "e", NULL);
  assert_changes (&watch, (const Change[]) { { 4, 0, 1 } }, 1);
  assert_watch_agrees (&watch, registry, NULL);

  /* Left out by its tag: nothing to say. */
  register_named (registry, "bb", debug);
  assert_changes (&watch, NULL, 0);

  unregister_named (registry, "c");
  assert_changes (&watch, (const Change[]) { { 2, 1, 0 } }, 1);

  /* The default changes two items: one replaced each. */
  reg_registry_set_default_backend (registry, "d");
  assert_changes (&watch, (const Change[]) { { 2, 1, 1 } }, 1);
  reg_registry_set_default_backend (registry, "a");
  assert_changes (&watch, (const Change[]) { { 0, 1, 1 }, { 2, 1, 1 } }, 2);
  {
    g_autoptr(RegBackendInfo) a = g_list_model_get_item (G_LIST_MODEL (list), 0);
    g_autoptr(RegBackendInfo) d = g_list_model_get_item (G_LIST_MODEL (list), 2);

    g_assert_true (reg_backend_info_get_is_default (a));
    g_assert_false (reg_backend_info_get_is_default (d));
  }
  assert_watch_agrees (&watch, registry, NULL);

  /* b never changed: the same info all along. */
  b_after = g_list_model_get_item (G_LIST_MODEL (list), 1);
  g_assert_true (b_before == b_after);

  watch_clear (&watch);
  remove_tmp_dir (dir);
}

/* Declarations, loads and rescans. */
static void
test_modules_and_rescan (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(RegBackendList) list = NULL;
  g_autoptr(RegCompiler) eager = NULL;
  g_autoptr(GError) error = NULL;
  const char * const none[] = { NULL };
  const char *manifest =
    "[Reg Module]\nModule=libx.so\nAbiVersion=2\n\n"
    "[Backend aaa]\nDescription=first\n\n[Backend zzz]\n";
  const char *changed =
    "[Reg Module]\nModule=libx.so\nAbiVersion=2\n\n"
    "[Backend aaa]\nDescription=second\n\n[Backend mmm]\n";
  Watch watch = { NULL, };
  guint eager_at;

  /* The shipped modules (REG_BACKEND_PATH) and this directory. */
  write_file (dir, "x.backend", manifest, -1);
  reg_registry_add_search_path (registry, dir);
  list = reg_backend_list_new (registry, none);
  watch_init (&watch, G_LIST_MODEL (list));
  assert_watch_agrees (&watch, registry, none);

  /* Loading eager replaces its item (loaded now) and nothing else. */
  {
    g_auto(GStrv) names = model_names (G_LIST_MODEL (list));

    for (eager_at = 0; g_strcmp0 (names[eager_at], "eager") != 0; eager_at++)
      g_assert_nonnull (names[eager_at]);
  }
  eager = reg_registry_lookup_backend (registry, "eager", &error);
  g_assert_no_error (error);
  assert_changes (&watch, (const Change[]) { { eager_at, 1, 1 } }, 1);
  {
    g_autoptr(RegBackendInfo) info = g_list_model_get_item (G_LIST_MODEL (list), eager_at);

    g_assert_true (reg_backend_info_get_loaded (info));
  }

  /* A rescan: aaa's description changed, zzz is gone, mmm is new. */
  write_file (dir, "x.backend", changed, -1);
  reg_registry_rescan (registry);
  assert_watch_agrees (&watch, registry, none);
  {
    g_autoptr(RegBackendInfo) first = g_list_model_get_item (G_LIST_MODEL (list), 0);

    g_assert_cmpstr (reg_backend_info_get_name (first), ==, "aaa");
    g_assert_cmpstr (reg_backend_info_get_description (first), ==, "second");
  }
  g_assert_cmpuint (watch.changes->len, >=, 3);

  watch_clear (&watch);
  remove_tmp_dir (dir);
}

/* Changes made in other threads reach the model in its context, from the
 * main loop, never in the thread that made them. */
typedef struct
{
  RegRegistry *registry;
  guint        first;
  guint        count;
} Worker;

static gpointer
worker_run (gpointer data)
{
  Worker *worker = data;

  for (guint i = 0; i < worker->count; i++)
    {
      g_autofree char *name = g_strdup_printf ("w%03u", worker->first + i);

      register_named (worker->registry, name, NULL);
      if (i % 3 == 2)
        {
          g_autofree char *earlier = g_strdup_printf ("w%03u", worker->first + i - 1);

          unregister_named (worker->registry, earlier);
        }
      if (i % 7 == 0)
        reg_registry_set_default_backend (worker->registry, name);
    }

  return NULL;
}

static gboolean
watch_agrees_now (Watch       *watch,
                  RegRegistry *registry)
{
  g_auto(GStrv) expected = reg_registry_list_backends (registry, NULL);
  g_autofree char *default_name = reg_registry_dup_default_backend (registry);
  guint n = g_strv_length (expected);

  if (watch->names->len != n)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RegBackendInfo) info = g_list_model_get_item (watch->model, i);

      if (!g_str_equal (g_ptr_array_index (watch->names, i), expected[i]) ||
          reg_backend_info_get_is_default (info) != (g_strcmp0 (default_name, expected[i]) == 0))
        return FALSE;
    }

  return TRUE;
}

static void
test_other_threads (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(RegRegistry) registry = empty_registry (&dir);
  g_autoptr(RegBackendList) list = NULL;
  Worker workers[3];
  GThread *threads[G_N_ELEMENTS (workers)];
  Watch watch = { NULL, };

  list = reg_backend_list_new (registry, NULL);
  watch_init (&watch, G_LIST_MODEL (list));

  for (guint i = 0; i < G_N_ELEMENTS (workers); i++)
    {
      workers[i].registry = registry;
      workers[i].first = i * 100;
      workers[i].count = 40;
      threads[i] = g_thread_new ("worker", worker_run, &workers[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (workers); i++)
    g_thread_join (threads[i]);

  /* Nothing reached the model yet: its context has not run. */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 0);
  g_assert_cmpuint (watch.changes->len, ==, 0);

  while (!watch_agrees_now (&watch, registry))
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (watch.changes->len, >, 0);
  assert_watch_agrees (&watch, registry, NULL);

  /* One update for many changes: nothing left to do. */
  g_array_set_size (watch.changes, 0);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_cmpuint (watch.changes->len, ==, 0);

  watch_clear (&watch);
  remove_tmp_dir (dir);
}

/* A model made in a thread of its own, for a context that thread runs:
 * changes made in the main thread arrive there. */
typedef struct
{
  RegRegistry  *registry;
  GMainContext *context;
  GMainLoop    *loop;
  GMutex        mutex;
  GCond         cond;
  gboolean      ready;
  Watch         watch;
  guint         expected;
} ContextThread;

static gboolean
check_done (gpointer data)
{
  ContextThread *ct = data;

  if (g_list_model_get_n_items (ct->watch.model) == ct->expected)
    g_main_loop_quit (ct->loop);
  return G_SOURCE_CONTINUE;
}

static gpointer
context_thread_run (gpointer data)
{
  ContextThread *ct = data;
  g_autoptr(RegBackendList) list = NULL;
  g_autoptr(GSource) poll = g_timeout_source_new (1);

  g_main_context_push_thread_default (ct->context);
  list = reg_backend_list_new (ct->registry, NULL);
  watch_init (&ct->watch, G_LIST_MODEL (list));

  g_mutex_lock (&ct->mutex);
  ct->ready = TRUE;
  g_cond_signal (&ct->cond);
  g_mutex_unlock (&ct->mutex);

  g_source_set_callback (poll, check_done, ct, NULL);
  g_source_attach (poll, ct->context);
  g_main_loop_run (ct->loop);
  g_source_destroy (poll);

  assert_watch_agrees (&ct->watch, ct->registry, NULL);
  watch_clear (&ct->watch);
  g_main_context_pop_thread_default (ct->context);

  return NULL;
}

static void
test_thread_default_context (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(RegRegistry) registry = empty_registry (&dir);
  ContextThread ct = { NULL, };
  GThread *thread;

  ct.registry = registry;
  ct.context = g_main_context_new ();
  ct.loop = g_main_loop_new (ct.context, FALSE);
  ct.expected = 5;
  g_mutex_init (&ct.mutex);
  g_cond_init (&ct.cond);

  thread = g_thread_new ("model", context_thread_run, &ct);
  g_mutex_lock (&ct.mutex);
  while (!ct.ready)
    g_cond_wait (&ct.cond, &ct.mutex);
  g_mutex_unlock (&ct.mutex);

  for (guint i = 0; i < ct.expected; i++)
    {
      g_autofree char *name = g_strdup_printf ("b%u", i);

      register_named (registry, name, NULL);
    }
  g_thread_join (thread);

  g_main_loop_unref (ct.loop);
  g_main_context_unref (ct.context);
  g_mutex_clear (&ct.mutex);
  g_cond_clear (&ct.cond);
  remove_tmp_dir (dir);
}

/* A handler that changes the registry while the model reports a change:
 * the model takes that change too, and stays exact. */
static void
register_more (GListModel *model,
               guint       position,
               guint       removed,
               guint       added,
               gpointer    user_data)
{
  RegRegistry *registry = user_data;
  g_autoptr(RegBackendInfo) info = NULL;
  g_autofree char *next = NULL;

  if (added == 0)
    return;
  info = g_list_model_get_item (model, position);
  if (strlen (reg_backend_info_get_name (info)) >= 4)
    return;

  next = g_strconcat (reg_backend_info_get_name (info), "x", NULL);
  register_named (registry, next, NULL);
}

static void
test_reentrant (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(RegRegistry) registry = empty_registry (&dir);
  g_autoptr(RegBackendList) list = reg_backend_list_new (registry, NULL);
  Watch watch = { NULL, };

  watch_init (&watch, G_LIST_MODEL (list));
  g_signal_connect_after (list, "items-changed", G_CALLBACK (register_more), registry);

  register_named (registry, "q", NULL);
  assert_watch_agrees (&watch, registry, NULL);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 4);  /* q qx qxx qxxx */

  watch_clear (&watch);
  remove_tmp_dir (dir);
}

/* The model keeps its registry alive, not the other way round, and an
 * update scheduled for a model that is gone does nothing. */
static void
test_lifetime (void)
{
  g_autofree char *dir = NULL;
  RegRegistry *registry = empty_registry (&dir);
  RegBackendList *list = reg_backend_list_new (registry, NULL);
  Worker worker = { registry, 0, 3 };
  GThread *thread;

  g_object_add_weak_pointer (G_OBJECT (registry), (gpointer *) &registry);
  g_object_add_weak_pointer (G_OBJECT (list), (gpointer *) &list);

  /* An update scheduled from another thread... */
  thread = g_thread_new ("worker", worker_run, &worker);
  g_thread_join (thread);

  g_object_unref (registry);
  g_assert_nonnull (registry);

  /* ...then the model goes, and the registry with it. */
  g_object_unref (list);
  g_assert_null (list);
  g_assert_null (registry);
  while (g_main_context_iteration (NULL, FALSE))
    ;

  remove_tmp_dir (dir);
}

/* Made by g_object_new() without a registry (as bindings may): the
 * default registry. */
static void
test_default_registry (void)
{
  g_autoptr(RegBackendList) list = g_object_new (REG_TYPE_BACKEND_LIST, NULL);

  g_assert_true (reg_backend_list_get_registry (list) == reg_registry_get_default ());
}

/* What infos say of a backend's state, and that the list follows it: a
 * module that does not load is failed, with the lookup's reason; one
 * whose check crashed is quarantined, with the verdict. */
static void
test_states (void)
{
  g_autofree char *dir = NULL;
  g_autoptr(RegRegistry) registry = empty_registry (&dir);
  g_autoptr(RegBackendList) list = NULL;
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(RegVerdict) verdict = NULL;
  g_autoptr(GError) error = NULL;
  const char * const all[] = { NULL };
  Watch watch = { NULL, };
  RegBackendInfo *info;

  write_file (dir, "broken.backend",
              "[Reg Module]\nModule=libbroken.so\nAbiVersion=2\n\n[Backend broken]\n", -1);
  write_file (dir, "libbroken.so", "not a module", -1);
  copy_fixture (dir, "verify-crash");
  register_named (registry, "runtime", NULL);

  list = reg_backend_list_new (registry, all);
  watch_init (&watch, G_LIST_MODEL (list));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 3);

  info = g_list_model_get_item (G_LIST_MODEL (list), 0);
  g_assert_cmpstr (reg_backend_info_get_name (info), ==, "broken");
  g_assert_cmpint (reg_backend_info_get_state (info), ==, REG_BACKEND_STATE_DECLARED);
  g_assert_null (reg_backend_info_get_reason (info));
  g_assert_null (reg_backend_info_get_verdict (info));
  g_object_unref (info);
  info = g_list_model_get_item (G_LIST_MODEL (list), 1);
  g_assert_cmpint (reg_backend_info_get_state (info), ==, REG_BACKEND_STATE_LOADED);
  g_object_unref (info);

  /* A failed lookup replaces the item. */
  compiler = reg_registry_lookup_backend (registry, "broken", &error);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
  assert_changes (&watch, (const Change[]) { { 0, 1, 1 } }, 1);
  info = g_list_model_get_item (G_LIST_MODEL (list), 0);
  g_assert_cmpint (reg_backend_info_get_state (info), ==, REG_BACKEND_STATE_FAILED);
  g_assert_cmpstr (reg_backend_info_get_reason (info), ==, error->message);
  g_object_unref (info);
  g_clear_error (&error);

  /* The same failure again says nothing new. */
  compiler = reg_registry_lookup_backend (registry, "broken", &error);
  g_assert_null (compiler);
  g_clear_error (&error);
  assert_changes (&watch, NULL, 0);

  /* A crash verdict quarantines verify_crash. */
  verdict = reg_registry_verify_backend (registry, "verify_crash", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (reg_verdict_get_quarantines (verdict));
  assert_changes (&watch, (const Change[]) { { 2, 1, 1 } }, 1);
  info = g_list_model_get_item (G_LIST_MODEL (list), 2);
  g_assert_cmpstr (reg_backend_info_get_name (info), ==, "verify_crash");
  g_assert_cmpint (reg_backend_info_get_state (info), ==, REG_BACKEND_STATE_QUARANTINED);
  g_assert_nonnull (reg_backend_info_get_verdict (info));
  g_assert_cmpint (reg_verdict_get_kind (reg_backend_info_get_verdict (info)), ==, REG_VERDICT_KIND_CRASHED);
  g_assert_cmpstr (reg_backend_info_get_reason (info), ==, reg_verdict_get_reason (verdict));
  g_object_unref (info);

  /* A rescan forgets the failure, not the verdict. */
  reg_registry_rescan (registry);
  info = reg_registry_get_backend_info (registry, "broken");
  g_assert_cmpint (reg_backend_info_get_state (info), ==, REG_BACKEND_STATE_DECLARED);
  g_object_unref (info);
  info = reg_registry_get_backend_info (registry, "verify_crash");
  g_assert_cmpint (reg_backend_info_get_state (info), ==, REG_BACKEND_STATE_QUARANTINED);
  g_object_unref (info);

  watch_clear (&watch);
  remove_tmp_dir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/backend-list/initial", test_initial);
  g_test_add_func ("/backend-list/same-thread", test_same_thread);
  g_test_add_func ("/backend-list/modules-and-rescan", test_modules_and_rescan);
  g_test_add_func ("/backend-list/other-threads", test_other_threads);
  g_test_add_func ("/backend-list/thread-default-context", test_thread_default_context);
  g_test_add_func ("/backend-list/reentrant", test_reentrant);
  g_test_add_func ("/backend-list/lifetime", test_lifetime);
  g_test_add_func ("/backend-list/default-registry", test_default_registry);
  g_test_add_func ("/backend-list/states", test_states);

  return g_test_run ();
}
