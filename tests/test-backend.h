/* test-backend.h: a compiler backend that tests steer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * TestBackend compiles any graph whose outputs have the shape of its first
 * input into a TestBackendFn that returns that input once per output.  A
 * test sets what it says of itself (flags), makes its compiles fail with a
 * given error, holds them at a gate until it opens it, and counts them.
 */

#pragma once

#include <reg.h>

#define TEST_TYPE_BACKEND_FN (test_backend_fn_get_type ())
G_DECLARE_FINAL_TYPE (TestBackendFn, test_backend_fn, TEST, BACKEND_FN, GObject)

struct _TestBackendFn
{
  GObject parent_instance;
  guint   n_outputs;
  gint    runs;         /* atomic */
};

static GListModel *
test_backend_fn_run (RegCompiledFn  *fn,
                     GPtrArray      *inputs,
                     GError        **error)
{
  TestBackendFn *self = TEST_BACKEND_FN (fn);
  GListStore *outputs = g_list_store_new (REG_TYPE_TENSOR);

  g_atomic_int_inc (&self->runs);
  for (guint i = 0; i < self->n_outputs; i++)
    g_list_store_append (outputs, g_ptr_array_index (inputs, 0));

  return G_LIST_MODEL (outputs);
}

static void
test_backend_fn_iface_init (RegCompiledFnInterface *iface)
{
  iface->run = test_backend_fn_run;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestBackendFn, test_backend_fn, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILED_FN,
                                                      test_backend_fn_iface_init))

static void
test_backend_fn_class_init (TestBackendFnClass *klass)
{
}

static void
test_backend_fn_init (TestBackendFn *self)
{
}

#define TEST_TYPE_BACKEND (test_backend_get_type ())
G_DECLARE_FINAL_TYPE (TestBackend, test_backend, TEST, BACKEND, GObject)

struct _TestBackend
{
  GObject           parent_instance;
  char             *name;
  RegCompilerFlags  flags;
  GQuark            fail_domain;    /* 0: compiles succeed */
  gint              fail_code;
  gint              compiles;       /* atomic: compiles that started */
  GVariant         *last_options;   /* under gate_mutex */
  gboolean          saw_cancellable;/* under gate_mutex: g_cancellable_get_current () */

  /* A closed gate holds every compile until it opens. */
  GMutex            gate_mutex;
  GCond             gate_cond;
  gboolean          gate_closed;
  guint             waiting;        /* compiles held at the gate */
};

static RegCompiledFn *
test_backend_compile (RegCompiler  *compiler,
                      RegGraph     *graph,
                      GPtrArray    *example_inputs,
                      GVariant     *options,
                      GError      **error)
{
  TestBackend *self = TEST_BACKEND (compiler);
  TestBackendFn *fn;
  guint n_outputs;

  g_atomic_int_inc (&self->compiles);

  g_mutex_lock (&self->gate_mutex);
  g_clear_pointer (&self->last_options, g_variant_unref);
  self->last_options = options != NULL ? g_variant_ref (options) : NULL;
  self->saw_cancellable = g_cancellable_get_current () != NULL;
  self->waiting++;
  g_cond_broadcast (&self->gate_cond);
  while (self->gate_closed)
    g_cond_wait (&self->gate_cond, &self->gate_mutex);
  self->waiting--;
  g_mutex_unlock (&self->gate_mutex);

  if (self->fail_domain != 0)
    {
      g_set_error (error, self->fail_domain, self->fail_code, "%s fails as told", self->name);
      return NULL;
    }

  reg_graph_get_outputs (graph, &n_outputs);
  fn = g_object_new (TEST_TYPE_BACKEND_FN, NULL);
  fn->n_outputs = n_outputs;

  return REG_COMPILED_FN (fn);
}

static char *
test_backend_dup_name (RegCompiler *compiler)
{
  return g_strdup (TEST_BACKEND (compiler)->name);
}

static RegCompilerFlags
test_backend_get_flags (RegCompiler *compiler)
{
  return TEST_BACKEND (compiler)->flags;
}

static void
test_backend_iface_init (RegCompilerInterface *iface)
{
  iface->compile = test_backend_compile;
  iface->dup_name = test_backend_dup_name;
  iface->get_flags = test_backend_get_flags;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestBackend, test_backend, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILER, test_backend_iface_init))

static void
test_backend_finalize (GObject *object)
{
  TestBackend *self = TEST_BACKEND (object);

  g_free (self->name);
  g_clear_pointer (&self->last_options, g_variant_unref);
  g_mutex_clear (&self->gate_mutex);
  g_cond_clear (&self->gate_cond);

  G_OBJECT_CLASS (test_backend_parent_class)->finalize (object);
}

static void
test_backend_class_init (TestBackendClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_backend_finalize;
}

static void
test_backend_init (TestBackend *self)
{
  g_mutex_init (&self->gate_mutex);
  g_cond_init (&self->gate_cond);
}

static inline TestBackend *
test_backend_new (const char       *name,
                  RegCompilerFlags  flags)
{
  TestBackend *self = g_object_new (TEST_TYPE_BACKEND, NULL);

  self->name = g_strdup (name);
  self->flags = flags;

  return self;
}

/* Makes every compile of @self fail with @domain and @code (0: succeed). */
static inline void
test_backend_fail_with (TestBackend *self,
                        GQuark       domain,
                        gint         code)
{
  self->fail_domain = domain;
  self->fail_code = code;
}

static inline void
test_backend_close_gate (TestBackend *self)
{
  g_mutex_lock (&self->gate_mutex);
  self->gate_closed = TRUE;
  g_mutex_unlock (&self->gate_mutex);
}

static inline void
test_backend_open_gate (TestBackend *self)
{
  g_mutex_lock (&self->gate_mutex);
  self->gate_closed = FALSE;
  g_cond_broadcast (&self->gate_cond);
  g_mutex_unlock (&self->gate_mutex);
}

/* Waits until @n compiles are held at the gate. */
static inline void
test_backend_wait_for_waiting (TestBackend *self,
                               guint        n)
{
  g_mutex_lock (&self->gate_mutex);
  while (self->waiting < n)
    g_cond_wait (&self->gate_cond, &self->gate_mutex);
  g_mutex_unlock (&self->gate_mutex);
}

/* Whether a compile is held at the gate now. */
static inline gboolean
test_backend_is_waiting (TestBackend *self)
{
  gboolean waiting;

  g_mutex_lock (&self->gate_mutex);
  waiting = self->waiting > 0;
  g_mutex_unlock (&self->gate_mutex);

  return waiting;
}

static inline gint
test_backend_get_compiles (TestBackend *self)
{
  return g_atomic_int_get (&self->compiles);
}
