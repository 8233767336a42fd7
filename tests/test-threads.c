/* test-threads.c: the registry under concurrent use
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <reg.h>

#include "test-objects.h"

#define N_THREADS 8
#define N_ROUNDS 400
#define N_SHARED 16

typedef struct
{
  RegRegistry *reg;
  guint        index;
  gint        *start;
  GHashTable  *kept;  /* names this thread leaves registered */
} Worker;

/* Every name a signal reports must be visible in the registry at that
 * moment, or have been removed by a later operation: registered names are
 * unique per thread, so the emitting thread itself still sees it. */
static gint bad_signals;

static void
on_registered (RegRegistry *reg,
               const char  *name,
               gpointer     user_data)
{
  g_autoptr(RegBackendInfo) info = NULL;

  /* Only the emitting thread touches its own names, and it emits after
   * inserting: the name must be there. */
  if (g_str_has_prefix (name, "t"))
    {
      info = reg_registry_get_backend_info (reg, name);
      if (info == NULL)
        g_atomic_int_inc (&bad_signals);
    }
}

static void
on_unregistered (RegRegistry *reg,
                 const char  *name,
                 gpointer     user_data)
{
  g_autoptr(RegBackendInfo) info = NULL;

  if (g_str_has_prefix (name, "t"))
    {
      info = reg_registry_get_backend_info (reg, name);
      if (info != NULL)
        g_atomic_int_inc (&bad_signals);
    }
}

static gpointer
worker_run (gpointer data)
{
  Worker *w = data;
  g_autoptr(RegCompiler) compiler = NULL;
  g_autofree char *prefix = g_strdup_printf ("t%u_", w->index);

  compiler = reg_func_compiler_new (prefix, refuse_compile, NULL, NULL);

  while (g_atomic_int_get (w->start) == 0)
    g_thread_yield ();

  for (guint round = 0; round < N_ROUNDS; round++)
    {
      g_autofree char *name = g_strdup_printf ("%s%u", prefix, round);
      g_autofree char *shared = g_strdup_printf ("shared%u", round % N_SHARED);
      g_autoptr(RegCompiler) found = NULL;
      g_autoptr(GError) error = NULL;
      g_auto(GStrv) names = NULL;
      g_autofree char *def = NULL;

      g_assert_true (reg_registry_register_backend (w->reg, name, compiler, NULL, &error));
      g_assert_no_error (error);

      found = reg_registry_lookup_backend (w->reg, name, &error);
      g_assert_no_error (error);
      g_assert_true (found == compiler);
      g_clear_object (&found);

      /* Shared names: exactly one thread wins each registration. */
      if (!reg_registry_register_backend (w->reg, shared, compiler, NULL, &error))
        {
          g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_DUPLICATE_NAME);
          g_clear_error (&error);
        }
      found = reg_registry_lookup_backend (w->reg, shared, &error);
      if (found == NULL)
        {
          g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
          g_clear_error (&error);
        }
      if (!reg_registry_unregister_backend (w->reg, shared, &error))
        {
          g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
          g_clear_error (&error);
        }

      if (round % 64 == 0)
        {
          names = reg_registry_list_backends (w->reg, NULL);
          g_assert_true (g_strv_contains ((const char * const *) names, name));
          reg_registry_set_default_backend (w->reg, name);
          def = reg_registry_dup_default_backend (w->reg);
          g_assert_nonnull (def);
        }

      /* Keep every third name, remove the others. */
      if (round % 3 == 0)
        g_hash_table_add (w->kept, g_steal_pointer (&name));
      else
        {
          g_assert_true (reg_registry_unregister_backend (w->reg, name, &error));
          g_assert_no_error (error);
        }
    }

  return NULL;
}

static void
test_threads_stress (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  Worker workers[N_THREADS];
  GThread *threads[N_THREADS];
  g_auto(GStrv) names = NULL;
  guint expected = 0;
  gint start = 0;

  g_signal_connect (reg, "backend-registered", G_CALLBACK (on_registered), NULL);
  g_signal_connect (reg, "backend-unregistered", G_CALLBACK (on_unregistered), NULL);

  /* The workers' compiler class made here, not by the first worker:
   * GLib orders the other workers after a class's initialisation with
   * locks of its own, which ThreadSanitizer cannot see. */
  g_type_class_unref (g_type_class_ref (REG_TYPE_FUNC_COMPILER));

  for (guint i = 0; i < N_THREADS; i++)
    {
      workers[i].reg = reg;
      workers[i].index = i;
      workers[i].start = &start;
      workers[i].kept = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      threads[i] = g_thread_new ("worker", worker_run, &workers[i]);
    }
  g_atomic_int_set (&start, 1);

  for (guint i = 0; i < N_THREADS; i++)
    g_thread_join (threads[i]);

  /* The registry holds exactly the kept names.  Every shared name is gone:
   * its last successful registration was followed, in the same thread, by
   * an unregistration that removed it or found it removed already. */
  names = reg_registry_list_backends (reg, (const char *[]) { NULL });
  for (guint i = 0; names[i] != NULL; i++)
    {
      gboolean owned = FALSE;

      for (guint j = 0; j < N_THREADS && !owned; j++)
        owned = g_hash_table_contains (workers[j].kept, names[i]);
      g_assert_true (owned);
    }
  for (guint j = 0; j < N_THREADS; j++)
    {
      GHashTableIter iter;
      gpointer key;

      expected += g_hash_table_size (workers[j].kept);
      g_hash_table_iter_init (&iter, workers[j].kept);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_assert_true (g_strv_contains ((const char * const *) names, key));
      g_hash_table_unref (workers[j].kept);
    }
  g_assert_cmpuint (expected, ==, N_THREADS * ((N_ROUNDS + 2) / 3));
  g_assert_cmpint (g_atomic_int_get (&bad_signals), ==, 0);
}

/* Readers on stable names while a writer churns other names: every change
 * retires the lookup snapshot under the readers' feet, and each lookup must
 * still find the right compiler. */
#define N_STABLE 32

typedef struct
{
  RegRegistry *reg;
  RegCompiler *stable[N_STABLE];
  gint         stop;
  gint         wrong;
  guint64      lookups;
} Churn;

static gpointer
churn_reader (gpointer data)
{
  Churn *c = data;
  guint64 n = 0;

  while (!g_atomic_int_get (&c->stop))
    {
      guint i = n++ % N_STABLE;
      g_autofree char *name = g_strdup_printf ("stable%u", i);
      g_autoptr(RegCompiler) found = reg_registry_lookup_backend (c->reg, name, NULL);

      if (found != c->stable[i])
        g_atomic_int_inc (&c->wrong);
    }

  g_atomic_pointer_add (&c->lookups, n);
  return NULL;
}

static void
test_threads_snapshot_churn (void)
{
  Churn c = { .reg = reg_registry_new () };
  g_autoptr(RegCompiler) churner = reg_func_compiler_new ("churn", refuse_compile, NULL, NULL);
  GThread *readers[3];
  gpointer weak = churner;

  for (guint i = 0; i < N_STABLE; i++)
    {
      g_autofree char *name = g_strdup_printf ("stable%u", i);

      c.stable[i] = reg_func_compiler_new (name, refuse_compile, NULL, NULL);
      g_assert_true (reg_registry_register_backend (c.reg, NULL, c.stable[i], NULL, NULL));
    }

  for (guint i = 0; i < G_N_ELEMENTS (readers); i++)
    readers[i] = g_thread_new ("reader", churn_reader, &c);

  for (guint round = 0; round < 3000; round++)
    {
      g_autofree char *name = g_strdup_printf ("churn%u", round % 7);
      g_autoptr(RegCompiler) found = NULL;

      g_assert_true (reg_registry_register_backend (c.reg, name, churner, NULL, NULL));
      found = reg_registry_lookup_backend (c.reg, name, NULL);  /* republishes */
      g_assert_true (found == churner);
      g_assert_true (reg_registry_unregister_backend (c.reg, name, NULL));
    }

  g_atomic_int_set (&c.stop, 1);
  for (guint i = 0; i < G_N_ELEMENTS (readers); i++)
    g_thread_join (readers[i]);

  g_assert_cmpint (c.wrong, ==, 0);
  g_assert_cmpuint (c.lookups, >, 0);

  /* Every retired snapshot is freed by the time the registry is: no
   * reference to any compiler is left behind. */
  g_object_add_weak_pointer (G_OBJECT (churner), &weak);
  g_clear_object (&c.reg);
  g_clear_object (&churner);
  g_assert_null (weak);
  for (guint i = 0; i < N_STABLE; i++)
    {
      g_assert_cmpuint (G_OBJECT (c.stable[i])->ref_count, ==, 1);
      g_object_unref (c.stable[i]);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_unsetenv ("REG_BACKEND_PATH");
  g_setenv ("REG_BACKEND_SYSTEM_DIR", "", TRUE);

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/threads/stress/runtime", test_threads_stress);
  g_test_add_func ("/threads/lookup/snapshot-churn", test_threads_snapshot_churn);

  return g_test_run ();
}
