/* test-stress.c: the registry under a mixed load from many threads
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * N_THREADS threads each run STRESS_OPS operations (environment variable,
 * default DEFAULT_OPS) picked at random: registering and unregistering
 * names of their own, fighting over shared names, looking up runtime and
 * module backends (the shipped modules, found through REG_BACKEND_PATH,
 * which the test environment points at the build's modules/), listing with
 * and without tags, setting and reading the default, rescanning, compiling.
 * Handlers on every signal call back into the registry.  STRESS_SEED fixes
 * the seed of the first thread (each thread's is derived from it); the seed
 * used is printed, so that a failing run can be replayed (as far as the
 * interleaving allows).
 *
 * What is checked, and why it is provable under concurrency:
 *
 * - Private names ("tI_K") are registered and unregistered only by their
 *   thread I, each name once.  So that thread knows exactly which of its
 *   names exist at every moment: its lookups return its own compiler for
 *   live names and fail for dead ones (a stale lookup snapshot would show
 *   here), its listings hold exactly its live names, and each of its
 *   register/unregister calls is followed by exactly one signal, emitted
 *   in the same thread before the call returns.
 * - Shared names ("sharedJ") are fought over by all threads.  Nothing is
 *   known about them at a given moment, but the sums are: successful
 *   registrations minus successful unregistrations is 0 or 1 and says
 *   whether the name is there at the end, and the numbers of signals equal
 *   the numbers of successful calls.
 * - The module backends eager, inductor and relu_compile_error_TESTING_ONLY
 *   are never unregistered: they are declared once, loaded once (one
 *   backend-registered each, one module-loaded per module file, and every
 *   lookup returns the same object), and always listed.
 *   relu_runtime_error_TESTING_ONLY is unregistered now and then and comes
 *   back with rescans: its declarations minus its unregistrations is 0 or
 *   1 and says whether it is there at the end, and it is loaded at most
 *   once per declaration.
 * - Every name a handler sees is one that some operation made: a module
 *   name, a shared name, or a private name already issued, signalled in
 *   its owner's thread.
 *
 * The test's own bookkeeping uses pthread mutexes, not GMutex, so that
 * ThreadSanitizer sees it (GMutex is futex-based, invisible to it).
 */

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <reg.h>

#include "test-files.h"
#include "test-objects.h"

#define N_THREADS 8
#define N_SHARED 16
#define MAX_LIVE 12        /* private names a thread keeps at most */
#define N_DEAD 8           /* recently unregistered names a thread remembers */
#define DEFAULT_OPS 50000  /* per thread; STRESS_OPS overrides */
#define DEFAULT_ROUNDS 40  /* of /stress/first-load; STRESS_ROUNDS overrides */
#define MAX_MESSAGES 20

/* The shipped module backends (modules/).  The first three are never
 * unregistered; CHURN is. */
enum { EAGER, INDUCTOR, RELU_COMPILE, CHURN, N_MODULE_NAMES };

static const char * const module_names[N_MODULE_NAMES] = {
  "eager",
  "inductor",
  "relu_compile_error_TESTING_ONLY",
  "relu_runtime_error_TESTING_ONLY",
};

/* Tags of the module backends, from their manifests */
static const gboolean module_is_debug[N_MODULE_NAMES] = { TRUE, FALSE, TRUE, TRUE };

static char shared_names[N_SHARED][16];

static const char * const module_files[] = {
  "libreg-eager.so",
  "libreg-inductor.so",
  "libreg-testing.so",
};

/* Tag sets of private registrations, by K % 4 */
static const char * const *const private_tags[] = {
  (const char * const[]) { NULL },
  (const char * const[]) { "stress", NULL },
  (const char * const[]) { REG_TAG_DEBUG, NULL },
  (const char * const[]) { REG_TAG_EXPERIMENTAL, "stress", NULL },
};

/* Exclusion sets of listings; NULL is the default set (debug, experimental) */
static const char * const *const list_excludes[] = {
  NULL,
  (const char * const[]) { NULL },
  (const char * const[]) { REG_TAG_DEBUG, NULL },
  (const char * const[]) { "stress", NULL },
  (const char * const[]) { REG_TAG_EXPERIMENTAL, "stress", NULL },
};

/* Violations: counted, the first few kept for the report */

static gint n_violations;
static pthread_mutex_t messages_lock = PTHREAD_MUTEX_INITIALIZER;
static GPtrArray *messages;

G_GNUC_PRINTF (1, 2)
static void
violation (const char *format,
           ...)
{
  va_list args;
  char *message;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_atomic_int_inc (&n_violations);
  pthread_mutex_lock (&messages_lock);
  if (messages->len < MAX_MESSAGES)
    g_ptr_array_add (messages, g_steal_pointer (&message));
  pthread_mutex_unlock (&messages_lock);
  g_free (message);
}

#define CHECK(cond, ...) \
  G_STMT_START { if (G_UNLIKELY (!(cond))) violation (__VA_ARGS__); } G_STMT_END

static void
report_violations (void)
{
  for (guint i = 0; i < messages->len; i++)
    g_test_message ("violation: %s", (const char *) g_ptr_array_index (messages, i));
  if (n_violations > MAX_MESSAGES)
    g_test_message ("... and %d more", n_violations - MAX_MESSAGES);
  g_assert_cmpint (n_violations, ==, 0);
}

static guint
env_uint (const char *variable,
          guint       fallback)
{
  const char *value = g_getenv (variable);
  guint64 n;

  if (value == NULL || *value == '\0')
    return fallback;
  if (!g_ascii_string_to_unsigned (value, 10, 1, G_MAXUINT, &n, NULL))
    g_error ("%s=%s: not a positive number", variable, value);

  return (guint) n;
}

/* ---- Shared state of one run ------------------------------------------ */

typedef struct
{
  RegRegistry *reg;
  guint        ops;
  gint         start;

  RegCompiler *compilers[N_THREADS];  /* one per thread */
  RegGraph    *graph;                 /* read by every thread */

  /* Outcomes of the calls on shared names, per name */
  gint         shared_registered[N_SHARED];
  gint         shared_unregistered[N_SHARED];
  gint         churn_unregistered;

  /* Signals seen, per name */
  gint         sig_registered[N_SHARED + N_MODULE_NAMES];
  gint         sig_declared[N_SHARED + N_MODULE_NAMES];
  gint         sig_unregistered[N_SHARED + N_MODULE_NAMES];
  gint         sig_module_loaded[G_N_ELEMENTS (module_files)];
  gint         sig_default;
  gint         default_sets;

  /* The object each stable module name resolved to first */
  gpointer     module_compilers[N_MODULE_NAMES];

  /* Private names issued so far, per thread, so that handlers can tell a
   * real name from an invented one. */
  guint        issued[N_THREADS];
} Run;

typedef struct
{
  Run         *run;
  guint        index;
  GRand       *rand;

  GPtrArray   *live;    /* char *: registered private names */
  char        *dead[N_DEAD];
  guint        n_dead;
  GPtrArray   *inputs;  /* RegTensor: for compiling run->graph */

  /* What this thread's own register/unregister call is about to signal */
  const char  *expect_registered;
  const char  *expect_unregistered;
  guint        seen_registered;
  guint        seen_unregistered;

  guint        private_registered;
  guint        private_unregistered;
  guint        sig_private_registered;
  guint        sig_private_unregistered;
} Worker;

/* A GPrivate, not a thread-local variable: portable to every system. */
static GPrivate current_worker;

/* Names are classified by their form: private "tI_K", shared "sharedJ", a
 * module name, or something else (which no operation makes). */
typedef enum { NAME_PRIVATE, NAME_SHARED, NAME_MODULE, NAME_UNKNOWN } NameKind;

static NameKind
classify (Run        *run,
          const char *name,
          guint      *index)
{
  guint a, b;
  int end = 0;

  if (sscanf (name, "t%u_%u%n", &a, &b, &end) == 2 && name[end] == '\0' &&
      a < N_THREADS && b < (guint) g_atomic_int_get ((gint *) &run->issued[a]))
    {
      *index = a;
      return NAME_PRIVATE;
    }
  if (sscanf (name, "shared%u%n", &a, &end) == 1 && name[end] == '\0' && a < N_SHARED)
    {
      *index = a;
      return NAME_SHARED;
    }
  for (guint i = 0; i < N_MODULE_NAMES; i++)
    if (g_str_equal (name, module_names[i]))
      {
        *index = i;
        return NAME_MODULE;
      }

  return NAME_UNKNOWN;
}

static gboolean
is_known_default (Run        *run,
                  const char *name)
{
  guint index;

  return name == NULL || classify (run, name, &index) != NAME_UNKNOWN;
}

/* ---- Signal handlers: each checks the name, then calls back in -------- */

static void
on_registered (RegRegistry *reg,
               const char  *name,
               Run         *run)
{
  g_autoptr(RegBackendInfo) info = NULL;
  Worker *self = g_private_get (&current_worker);
  guint index;

  switch (classify (run, name, &index))
    {
    case NAME_PRIVATE:
      /* Only the owner registers it, and emits in its own thread, after
       * the insertion, before its call returns: the name is there. */
      CHECK (self != NULL && self->index == index,
             "backend-registered '%s' emitted outside its owner thread", name);
      if (self == NULL || self->index != index)
        return;
      self->sig_private_registered++;
      CHECK (self->expect_registered != NULL && g_str_equal (self->expect_registered, name),
             "backend-registered '%s' while thread %u registers nothing of that name",
             name, self->index);
      self->seen_registered++;
      info = reg_registry_get_backend_info (reg, name);
      CHECK (info != NULL && reg_backend_info_get_loaded (info) &&
             reg_backend_info_get_origin (info) == REG_BACKEND_ORIGIN_RUNTIME,
             "backend-registered '%s': the handler does not find it registered", name);
      break;

    case NAME_SHARED:
      g_atomic_int_inc (&run->sig_registered[index]);
      {
        /* Another thread may have removed it already. */
        g_autoptr(RegCompiler) found = reg_registry_lookup_backend (reg, name, NULL);
        CHECK (found == NULL || REG_IS_COMPILER (found), "lookup of '%s' in a handler", name);
      }
      break;

    case NAME_MODULE:
      g_atomic_int_inc (&run->sig_registered[N_SHARED + index]);
      info = reg_registry_get_backend_info (reg, name);
      CHECK (index == CHURN || (info != NULL && reg_backend_info_get_loaded (info) &&
                                reg_backend_info_get_origin (info) == REG_BACKEND_ORIGIN_MODULE),
             "backend-registered '%s': the handler does not find it loaded", name);
      break;

    case NAME_UNKNOWN:
    default:
      violation ("backend-registered for '%s', which nobody registered", name);
    }
}

static void
on_declared (RegRegistry *reg,
             const char  *name,
             Run         *run)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) tags = NULL;
  guint index;

  if (classify (run, name, &index) != NAME_MODULE)
    {
      violation ("backend-declared for '%s', which no manifest declares", name);
      return;
    }

  g_atomic_int_inc (&run->sig_declared[N_SHARED + index]);
  tags = reg_registry_get_backend_tags (reg, name, &error);
  if (index == CHURN && tags == NULL)
    CHECK (g_error_matches (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND),
           "tags of '%s': %s", name, error->message);
  else
    CHECK (tags != NULL && g_strv_contains ((const char * const *) tags, REG_TAG_DEBUG) ==
                           module_is_debug[index],
           "tags of declared '%s' are wrong", name);
}

static void
on_unregistered (RegRegistry *reg,
                 const char  *name,
                 Run         *run)
{
  g_autoptr(RegBackendInfo) info = NULL;
  Worker *self = g_private_get (&current_worker);
  guint index;

  switch (classify (run, name, &index))
    {
    case NAME_PRIVATE:
      CHECK (self != NULL && self->index == index,
             "backend-unregistered '%s' emitted outside its owner thread", name);
      if (self == NULL || self->index != index)
        return;
      self->sig_private_unregistered++;
      CHECK (self->expect_unregistered != NULL && g_str_equal (self->expect_unregistered, name),
             "backend-unregistered '%s' while thread %u unregisters nothing of that name",
             name, self->index);
      self->seen_unregistered++;
      info = reg_registry_get_backend_info (reg, name);
      CHECK (info == NULL, "backend-unregistered '%s': the handler still finds it", name);
      break;

    case NAME_SHARED:
      g_atomic_int_inc (&run->sig_unregistered[index]);
      info = reg_registry_get_backend_info (reg, name);
      break;

    case NAME_MODULE:
      CHECK (index == CHURN, "backend-unregistered for '%s', which nobody unregisters", name);
      g_atomic_int_inc (&run->sig_unregistered[N_SHARED + index]);
      info = reg_registry_get_backend_info (reg, name);
      break;

    case NAME_UNKNOWN:
    default:
      violation ("backend-unregistered for '%s', which nobody registered", name);
    }
}

static void
on_module_loaded (RegRegistry *reg,
                  RegModule   *module,
                  Run         *run)
{
  g_autofree char *base = g_path_get_basename (reg_module_get_path (module));
  g_auto(GStrv) names = NULL;
  gboolean known = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (module_files); i++)
    if (g_str_equal (base, module_files[i]))
      {
        g_atomic_int_inc (&run->sig_module_loaded[i]);
        known = TRUE;
      }
  CHECK (known, "module-loaded for %s, which no manifest names", reg_module_get_path (module));

  /* Lists (and so discovers) from inside the handler. */
  names = reg_registry_list_backends (reg, (const char * const[]) { NULL });
  for (guint i = 0; i < N_MODULE_NAMES; i++)
    CHECK (i == CHURN || g_strv_contains ((const char * const *) names, module_names[i]),
           "module-loaded handler: '%s' not listed", module_names[i]);
}

static void
on_notify_default (RegRegistry *reg,
                   GParamSpec  *pspec,
                   Run         *run)
{
  g_autofree char *name = reg_registry_dup_default_backend (reg);

  g_atomic_int_inc (&run->sig_default);
  CHECK (is_known_default (run, name), "notify::default-backend: unknown default '%s'", name);
}

/* ---- Operations -------------------------------------------------------- */

static void
remember_dead (Worker *w,
               char   *name)
{
  guint slot = w->n_dead++ % N_DEAD;

  g_free (w->dead[slot]);
  w->dead[slot] = name;
}

static void
op_register_private (Worker *w)
{
  Run *run = w->run;
  g_autoptr(GError) error = NULL;
  guint k = run->issued[w->index];
  char *name = g_strdup_printf ("t%u_%u", w->index, k);
  gboolean ok;

  /* Issued before the call, so that handlers know the name. */
  g_atomic_int_set ((gint *) &run->issued[w->index], k + 1);

  w->expect_registered = name;
  w->seen_registered = 0;
  ok = reg_registry_register_backend (run->reg, name, run->compilers[w->index],
                                      private_tags[k % 4], &error);
  w->expect_registered = NULL;

  CHECK (ok, "register '%s': %s", name, error->message);
  CHECK (w->seen_registered == (ok ? 1 : 0),
         "register '%s': %u backend-registered signals in its thread", name, w->seen_registered);
  if (!ok)
    {
      g_free (name);
      return;
    }
  w->private_registered++;
  g_ptr_array_add (w->live, name);

  /* Again: a duplicate, which changes nothing and signals nothing. */
  if (g_rand_int_range (w->rand, 0, 16) == 0)
    {
      g_clear_error (&error);
      w->expect_registered = "";
      w->seen_registered = 0;
      ok = reg_registry_register_backend (run->reg, name, run->compilers[w->index], NULL, &error);
      w->expect_registered = NULL;
      CHECK (!ok && g_error_matches (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_DUPLICATE_NAME),
             "registering '%s' twice did not fail as a duplicate", name);
      CHECK (w->seen_registered == 0, "registering '%s' twice signalled", name);
    }
}

static void
op_unregister_private (Worker *w)
{
  g_autoptr(GError) error = NULL;
  char *name;
  gboolean ok;

  if (w->live->len == 0)
    return;

  name = g_ptr_array_steal_index_fast (w->live, g_rand_int_range (w->rand, 0, w->live->len));
  w->expect_unregistered = name;
  w->seen_unregistered = 0;
  ok = reg_registry_unregister_backend (w->run->reg, name, &error);
  w->expect_unregistered = NULL;

  CHECK (ok, "unregister '%s': %s", name, error->message);
  CHECK (w->seen_unregistered == (ok ? 1 : 0),
         "unregister '%s': %u backend-unregistered signals in its thread",
         name, w->seen_unregistered);
  if (ok)
    w->private_unregistered++;
  remember_dead (w, name);
}

static void
op_lookup_private (Worker *w)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) found = NULL;
  gboolean dead = w->live->len == 0 || (w->n_dead > 0 && g_rand_boolean (w->rand));
  const char *name;

  if (dead && w->n_dead == 0)
    return;

  if (dead)
    name = w->dead[g_rand_int_range (w->rand, 0, MIN (w->n_dead, N_DEAD))];
  else
    name = g_ptr_array_index (w->live, g_rand_int_range (w->rand, 0, w->live->len));

  found = reg_registry_lookup_backend (w->run->reg, name, &error);
  if (dead)
    CHECK (found == NULL &&
           g_error_matches (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND),
           "lookup of unregistered '%s' %s", name,
           found != NULL ? "found a compiler (stale snapshot?)" : "failed the wrong way");
  else
    CHECK (found == w->run->compilers[w->index],
           "lookup of live '%s' gave %p, not its compiler %p: %s", name,
           (gpointer) found, (gpointer) w->run->compilers[w->index],
           error != NULL ? error->message : "");
}

static void
op_info_private (Worker *w)
{
  g_autoptr(RegBackendInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) tags = NULL;
  const char *name;
  guint k;

  if (w->live->len == 0)
    return;

  name = g_ptr_array_index (w->live, g_rand_int_range (w->rand, 0, w->live->len));
  k = (guint) g_ascii_strtoull (strchr (name, '_') + 1, NULL, 10);
  info = reg_registry_get_backend_info (w->run->reg, name);
  CHECK (info != NULL && reg_backend_info_get_loaded (info) &&
         reg_backend_info_get_origin (info) == REG_BACKEND_ORIGIN_RUNTIME &&
         reg_backend_info_get_module_path (info) == NULL &&
         g_strv_equal (reg_backend_info_get_tags (info), private_tags[k % 4]),
         "info of live '%s' is wrong or missing", name);

  tags = reg_registry_get_backend_tags (w->run->reg, name, &error);
  CHECK (tags != NULL && g_strv_equal ((const char * const *) tags, private_tags[k % 4]),
         "tags of live '%s' are wrong or missing", name);
}

static gboolean
tags_excluded (const char * const *tags,
               const char * const *exclude)
{
  for (guint i = 0; tags[i] != NULL; i++)
    if (g_strv_contains (exclude, tags[i]))
      return TRUE;

  return FALSE;
}

static void
op_list (Worker *w)
{
  static const char * const default_exclude[] = { REG_TAG_DEBUG, REG_TAG_EXPERIMENTAL, NULL };
  guint which = g_rand_int_range (w->rand, 0, G_N_ELEMENTS (list_excludes));
  const char * const *exclude = list_excludes[which] != NULL ? list_excludes[which] : default_exclude;
  g_auto(GStrv) names = reg_registry_list_backends (w->run->reg, list_excludes[which]);
  guint own = 0;

  for (guint i = 0; names[i] != NULL; i++)
    {
      guint index;
      NameKind kind = classify (w->run, names[i], &index);

      CHECK (kind != NAME_UNKNOWN, "listed '%s', which nobody registered", names[i]);
      CHECK (i == 0 || strcmp (names[i - 1], names[i]) < 0,
             "listing not in strictly ascending byte order at '%s'", names[i]);
      if (kind == NAME_PRIVATE && index == w->index)
        own++;
    }

  /* Exactly this thread's live names whose tags are not excluded */
  for (guint i = 0; i < w->live->len; i++)
    {
      const char *name = g_ptr_array_index (w->live, i);
      guint k = (guint) g_ascii_strtoull (strchr (name, '_') + 1, NULL, 10);
      gboolean expected = !tags_excluded (private_tags[k % 4], exclude);

      CHECK (g_strv_contains ((const char * const *) names, name) == expected,
             "listing %s live '%s'", expected ? "misses" : "shows excluded", name);
      if (expected)
        own--;
    }
  CHECK (own == 0, "listing shows %u names of thread %u that are not live", own, w->index);

  for (guint i = 0; i < w->n_dead && i < N_DEAD; i++)
    CHECK (!g_strv_contains ((const char * const *) names, w->dead[i]),
           "listing shows unregistered '%s'", w->dead[i]);

  for (guint i = 0; i < N_MODULE_NAMES; i++)
    if (i != CHURN)
      CHECK (g_strv_contains ((const char * const *) names, module_names[i]) ==
             !(module_is_debug[i] && g_strv_contains (exclude, REG_TAG_DEBUG)),
             "listing is wrong about module backend '%s'", module_names[i]);
}

static void
op_shared (Worker *w)
{
  Run *run = w->run;
  guint j = g_rand_int_range (w->rand, 0, N_SHARED);
  const char *name = shared_names[j];
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) found = NULL;

  switch (g_rand_int_range (w->rand, 0, 3))
    {
    case 0:
      if (reg_registry_register_backend (run->reg, name, run->compilers[w->index], NULL, &error))
        g_atomic_int_inc (&run->shared_registered[j]);
      else
        CHECK (g_error_matches (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_DUPLICATE_NAME),
               "register shared '%s': %s", name, error->message);
      break;

    case 1:
      if (reg_registry_unregister_backend (run->reg, name, &error))
        g_atomic_int_inc (&run->shared_unregistered[j]);
      else
        CHECK (g_error_matches (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND),
               "unregister shared '%s': %s", name, error->message);
      break;

    default:
      found = reg_registry_lookup_backend (run->reg, name, &error);
      if (found != NULL)
        {
          gboolean ours = FALSE;

          for (guint i = 0; i < N_THREADS; i++)
            ours = ours || found == run->compilers[i];
          CHECK (ours, "lookup of shared '%s' gave an unknown compiler", name);
        }
      else
        CHECK (g_error_matches (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND),
               "lookup shared '%s': %s", name, error->message);
    }
}

static void
lookup_module (Worker *w,
               guint   i)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) found = reg_registry_lookup_backend (w->run->reg, module_names[i], &error);

  if (i == CHURN)
    {
      CHECK (found != NULL ||
             g_error_matches (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND),
             "lookup of '%s': %s", module_names[i], error->message);
      return;
    }

  CHECK (found != NULL, "lookup of '%s': %s", module_names[i], error != NULL ? error->message : "");
  if (found == NULL)
    return;

  /* Loaded once: the same object for every lookup, in every thread. */
  if (!g_atomic_pointer_compare_and_exchange (&w->run->module_compilers[i], NULL, found))
    CHECK (g_atomic_pointer_get (&w->run->module_compilers[i]) == (gpointer) found,
           "'%s' resolved to two different compilers", module_names[i]);
}

static void
op_churn (Worker *w)
{
  g_autoptr(GError) error = NULL;

  if (reg_registry_unregister_backend (w->run->reg, module_names[CHURN], &error))
    g_atomic_int_inc (&w->run->churn_unregistered);
  else
    CHECK (g_error_matches (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND),
           "unregister '%s': %s", module_names[CHURN], error->message);
}

static void
op_rescan (Worker *w)
{
  reg_registry_rescan (w->run->reg);

  /* Declarations are swapped in one step: the stable names never vanish. */
  for (guint i = 0; i < N_MODULE_NAMES; i++)
    if (i != CHURN)
      {
        g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (w->run->reg, module_names[i]);
        CHECK (info != NULL, "'%s' missing right after a rescan", module_names[i]);
      }
}

static void
op_default (Worker *w)
{
  Run *run = w->run;
  g_autofree char *name = NULL;
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(GError) error = NULL;

  switch (g_rand_int_range (w->rand, 0, 6))
    {
    case 0:
      g_atomic_int_inc (&run->default_sets);
      reg_registry_set_default_backend (run->reg, NULL);
      break;
    case 1:
      g_atomic_int_inc (&run->default_sets);
      reg_registry_set_default_backend (run->reg, module_names[g_rand_int_range (w->rand, 0, N_MODULE_NAMES)]);
      break;
    case 2:
      g_atomic_int_inc (&run->default_sets);
      reg_registry_set_default_backend (run->reg, shared_names[g_rand_int_range (w->rand, 0, N_SHARED)]);
      break;
    case 3:
      g_atomic_int_inc (&run->default_sets);
      reg_registry_set_default_compiler (run->reg, g_rand_boolean (w->rand) ? run->compilers[w->index] : NULL);
      break;
    case 4:
      name = reg_registry_dup_default_backend (run->reg);
      CHECK (is_known_default (run, name), "default backend '%s' was never set", name);
      break;
    default:
      compiler = reg_registry_dup_default_compiler (run->reg, &error);
      CHECK (compiler != NULL ||
             g_error_matches (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND),
             "default compiler: %s", error->message);
    }
}

static void
op_lookup_unknown (Worker *w)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiler) found = NULL;

  found = reg_registry_lookup_backend (w->run->reg, "indcutor", &error);
  CHECK (found == NULL &&
         g_error_matches (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND) &&
         g_str_has_prefix (error->message, "Invalid backend: 'indcutor', did you mean: 'inductor'"),
         "lookup of a misspelt name: %s", error != NULL ? error->message : "found");
}

static void
op_compile (Worker *w)
{
  Run *run = w->run;
  const char *backend = g_rand_boolean (w->rand) ? "eager" : "inductor";
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GPtrArray) outputs = NULL;

  fn = reg_registry_compile (run->reg, backend, run->graph, w->inputs, NULL, &error);
  CHECK (fn != NULL, "compile with %s: %s", backend, error != NULL ? error->message : "");
  if (fn == NULL)
    return;

  outputs = reg_compiled_fn_call (fn, w->inputs, &error);
  CHECK (outputs != NULL && outputs->len == 1, "call of %s's function: %s",
         backend, error != NULL ? error->message : "wrong outputs");
  if (outputs != NULL && outputs->len == 1)
    {
      gsize n;
      const float *data = reg_tensor_get_data (g_ptr_array_index (outputs, 0), &n);

      /* relu(x * 2 + 1) with x = index of the thread */
      CHECK (n == 4 && data[0] == (float) (w->index * 2 + 1),
             "%s computed %g, not %u", backend, n > 0 ? data[0] : -1.0, w->index * 2 + 1);
    }
}

static gpointer
worker_run (gpointer data)
{
  Worker *w = data;
  Run *run = w->run;

  g_private_set (&current_worker, w);

  while (g_atomic_int_get (&run->start) == 0)
    g_thread_yield ();

  /* First loads, all at once: each thread starts with another module. */
  lookup_module (w, w->index % N_MODULE_NAMES);

  for (guint op = 0; op < run->ops; op++)
    {
      guint r = g_rand_int_range (w->rand, 0, 1000);

      if (r < 200)
        {
          if (w->live->len >= MAX_LIVE)
            op_unregister_private (w);
          else
            op_register_private (w);
        }
      else if (r < 330)
        op_unregister_private (w);
      else if (r < 480)
        op_lookup_private (w);
      else if (r < 530)
        op_info_private (w);
      else if (r < 620)
        lookup_module (w, g_rand_int_range (w->rand, 0, N_MODULE_NAMES));
      else if (r < 810)
        op_shared (w);
      else if (r < 850)
        op_list (w);
      else if (r < 910)
        op_default (w);
      else if (r < 930)
        op_churn (w);
      else if (r < 936)
        op_rescan (w);
      else if (r < 941)
        op_lookup_unknown (w);
      else if (r < 946)
        op_compile (w);
      else
        lookup_module (w, g_rand_int_range (w->rand, 0, N_MODULE_NAMES - 1));
    }

  g_private_set (&current_worker, NULL);
  return NULL;
}

/* ---- The run ----------------------------------------------------------- */

static gint
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static RegGraph *
make_graph (void)
{
  g_autoptr(GError) error = NULL;
  RegGraph *graph = reg_graph_new_from_string ("graph(x):\n"
                                               "  a = mul(x, 2)\n"
                                               "  b = add(a, 1)\n"
                                               "  c = relu(b)\n"
                                               "  return (c,)\n", &error);

  g_assert_no_error (error);
  return graph;
}

static void
test_stress_mixed (void)
{
  Run run = { 0, };
  Worker workers[N_THREADS];
  GThread *threads[N_THREADS];
  guint32 seed = env_uint ("STRESS_SEED", g_test_rand_int () & G_MAXINT32);
  g_autoptr(GPtrArray) expected = g_ptr_array_new ();
  g_auto(GStrv) names = NULL;
  gpointer weak_reg;
  gint64 start_time;
  guint total_live = 0;
  gint churn_balance;
  gulong handlers[5];
  int notifies;

  run.reg = reg_registry_new ();
  run.ops = env_uint ("STRESS_OPS", DEFAULT_OPS);
  run.graph = make_graph ();
  g_test_message ("%u threads x %u operations, STRESS_SEED=%" G_GUINT32_FORMAT,
                  N_THREADS, run.ops, seed);

  handlers[0] = g_signal_connect (run.reg, "backend-registered", G_CALLBACK (on_registered), &run);
  handlers[1] = g_signal_connect (run.reg, "backend-declared", G_CALLBACK (on_declared), &run);
  handlers[2] = g_signal_connect (run.reg, "backend-unregistered", G_CALLBACK (on_unregistered), &run);
  handlers[3] = g_signal_connect (run.reg, "module-loaded", G_CALLBACK (on_module_loaded), &run);
  handlers[4] = g_signal_connect (run.reg, "notify::default-backend", G_CALLBACK (on_notify_default), &run);

  for (guint i = 0; i < N_THREADS; i++)
    {
      g_autofree char *cname = g_strdup_printf ("stress%u", i);
      const gint64 shape[] = { 2, 2 };
      g_autoptr(RegTensor) x = NULL;
      float values[4];

      for (guint v = 0; v < 4; v++)
        values[v] = (float) i;
      x = reg_tensor_new_from_data (values, 4, shape, 2, NULL);

      /* Made here, not in the threads: GLib initialises a class in the
       * thread that first instantiates it and publishes it through its
       * own (uninstrumented) atomics, which ThreadSanitizer cannot see. */
      run.compilers[i] = reg_func_compiler_new (cname, refuse_compile, NULL, NULL);

      workers[i] = (Worker) {
        .run = &run,
        .index = i,
        .rand = g_rand_new_with_seed (seed + i),
        .live = g_ptr_array_new_with_free_func (g_free),
        .inputs = g_ptr_array_new_with_free_func (g_object_unref),
      };
      g_ptr_array_add (workers[i].inputs, g_steal_pointer (&x));
      threads[i] = g_thread_new ("stress", worker_run, &workers[i]);
    }

  start_time = g_get_monotonic_time ();
  g_atomic_int_set (&run.start, 1);
  for (guint i = 0; i < N_THREADS; i++)
    g_thread_join (threads[i]);
  g_test_message ("%u operations in %.2f s", N_THREADS * run.ops,
                  (g_get_monotonic_time () - start_time) / 1e6);

  /* Quiet now: compare the registry with what the operations imply. */

  /* Private names: each thread's signals match its successful calls, and
   * each live name is there, as registered. */
  for (guint i = 0; i < N_THREADS; i++)
    {
      Worker *w = &workers[i];

      CHECK (w->sig_private_registered == w->private_registered,
             "thread %u: %u registrations, %u backend-registered", i,
             w->private_registered, w->sig_private_registered);
      CHECK (w->sig_private_unregistered == w->private_unregistered,
             "thread %u: %u unregistrations, %u backend-unregistered", i,
             w->private_unregistered, w->sig_private_unregistered);
      CHECK (w->private_registered - w->private_unregistered == w->live->len,
             "thread %u: %u registered - %u unregistered != %u live", i,
             w->private_registered, w->private_unregistered, w->live->len);

      for (guint j = 0; j < w->live->len; j++)
        {
          const char *name = g_ptr_array_index (w->live, j);
          g_autoptr(RegCompiler) found = reg_registry_lookup_backend (run.reg, name, NULL);

          CHECK (found == run.compilers[i], "live '%s' not found at the end", name);
          g_ptr_array_add (expected, (gpointer) name);
        }
      total_live += w->live->len;
    }

  /* Shared names: present exactly when registrations outnumber
   * unregistrations, which they do by at most one; one signal per
   * successful call. */
  for (guint j = 0; j < N_SHARED; j++)
    {
      int balance = run.shared_registered[j] - run.shared_unregistered[j];
      const char *name = shared_names[j];
      g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (run.reg, name);

      CHECK (balance == 0 || balance == 1, "'%s': %d registered, %d unregistered",
             name, run.shared_registered[j], run.shared_unregistered[j]);
      CHECK ((info != NULL) == (balance == 1), "'%s' %s at the end, balance %d",
             name, info != NULL ? "present" : "absent", balance);
      CHECK (run.sig_registered[j] == run.shared_registered[j],
             "'%s': %d registrations, %d backend-registered", name,
             run.shared_registered[j], run.sig_registered[j]);
      CHECK (run.sig_unregistered[j] == run.shared_unregistered[j],
             "'%s': %d unregistrations, %d backend-unregistered", name,
             run.shared_unregistered[j], run.sig_unregistered[j]);
      CHECK (run.sig_declared[j] == 0, "'%s' declared", name);
      if (balance == 1)
        g_ptr_array_add (expected, (gpointer) name);
    }

  /* Stable module names: declared once, loaded once, never removed. */
  for (guint i = 0; i < N_MODULE_NAMES; i++)
    {
      const char *name = module_names[i];
      guint k = N_SHARED + i;
      g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (run.reg, name);

      if (i == CHURN)
        continue;
      CHECK (run.sig_declared[k] == 1, "'%s' declared %d times", name, run.sig_declared[k]);
      CHECK (run.sig_registered[k] == 1, "'%s' loaded %d times", name, run.sig_registered[k]);
      CHECK (run.sig_unregistered[k] == 0, "'%s' unregistered", name);
      CHECK (info != NULL && reg_backend_info_get_loaded (info), "'%s' not loaded at the end", name);
      g_ptr_array_add (expected, (gpointer) name);
    }

  /* The churned module name: each declaration starts a life that ends with
   * one unregistration (the threads', as the manifests never change), and
   * loads at most once. */
  churn_balance = run.sig_declared[N_SHARED + CHURN] - run.sig_unregistered[N_SHARED + CHURN];
  {
    g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (run.reg, module_names[CHURN]);

    CHECK (churn_balance == 0 || churn_balance == 1, "'%s': declared %d times, unregistered %d",
           module_names[CHURN], run.sig_declared[N_SHARED + CHURN],
           run.sig_unregistered[N_SHARED + CHURN]);
    CHECK ((info != NULL) == (churn_balance == 1), "'%s' %s at the end, balance %d",
           module_names[CHURN], info != NULL ? "present" : "absent", churn_balance);
    CHECK (run.sig_unregistered[N_SHARED + CHURN] == run.churn_unregistered,
           "'%s': %d unregistrations, %d backend-unregistered", module_names[CHURN],
           run.churn_unregistered, run.sig_unregistered[N_SHARED + CHURN]);
    CHECK (run.sig_registered[N_SHARED + CHURN] <= run.sig_declared[N_SHARED + CHURN],
           "'%s' loaded %d times from %d declarations", module_names[CHURN],
           run.sig_registered[N_SHARED + CHURN], run.sig_declared[N_SHARED + CHURN]);
    if (info != NULL)
      g_ptr_array_add (expected, (gpointer) module_names[CHURN]);
  }

  for (guint i = 0; i < G_N_ELEMENTS (module_files); i++)
    CHECK (run.sig_module_loaded[i] == 1, "module-loaded %d times for %s",
           run.sig_module_loaded[i], module_files[i]);

  notifies = g_atomic_int_get (&run.sig_default);
  CHECK (notifies <= run.default_sets, "%d default-backend notifications for %d sets",
         notifies, run.default_sets);

  /* The whole registry, debug and experimental included, is exactly the
   * names the operations left. */
  names = reg_registry_list_backends (run.reg, (const char * const[]) { NULL });
  g_ptr_array_sort (expected, compare_strings);
  g_ptr_array_add (expected, NULL);
  if (!g_strv_equal ((const char * const *) names, (const char * const *) expected->pdata))
    {
      g_autofree char *got = g_strjoinv (" ", names);
      g_autofree char *want = g_strjoinv (" ", (char **) expected->pdata);

      violation ("the registry holds [%s], the operations imply [%s]", got, want);
    }
  g_test_message ("at the end: %u live private names, %u names in all",
                  total_live, g_strv_length (names));

  /* Single-threaded now, notifications are exact. */
  reg_registry_set_default_backend (run.reg, "eager");
  notifies = g_atomic_int_get (&run.sig_default);
  reg_registry_set_default_backend (run.reg, "inductor");
  reg_registry_set_default_backend (run.reg, "inductor");
  CHECK (g_atomic_int_get (&run.sig_default) == notifies + 1,
         "one change of the default gave %d notifications",
         g_atomic_int_get (&run.sig_default) - notifies);

  report_violations ();

  /* Nothing keeps the registry alive: no reference is left behind in a
   * retired snapshot, a handler or a thread. */
  for (guint i = 0; i < G_N_ELEMENTS (handlers); i++)
    g_signal_handler_disconnect (run.reg, handlers[i]);
  weak_reg = run.reg;
  g_object_add_weak_pointer (G_OBJECT (run.reg), &weak_reg);
  g_clear_object (&run.reg);
  g_assert_null (weak_reg);

  for (guint i = 0; i < N_THREADS; i++)
    {
      g_rand_free (workers[i].rand);
      g_ptr_array_unref (workers[i].live);
      g_ptr_array_unref (workers[i].inputs);
      for (guint j = 0; j < N_DEAD; j++)
        g_free (workers[i].dead[j]);
      /* The registry is gone: only this test holds the compilers now. */
      g_assert_cmpuint (G_OBJECT (run.compilers[i])->ref_count, ==, 1);
      g_object_unref (run.compilers[i]);
    }
  g_object_unref (run.graph);
}

/* First loads, many times over: each round makes a new registry and lets
 * all threads look every module backend up at once, in different orders.
 * Each module is taken once per registry (one module-loaded, one
 * backend-registered per name) and every thread gets the same object. */

typedef struct
{
  RegRegistry *reg;
  gint         start;
  gint         registered[N_MODULE_NAMES];
  gint         loaded;
  RegCompiler *found[N_THREADS][N_MODULE_NAMES];
} FirstLoad;

typedef struct
{
  FirstLoad *fl;
  guint      index;
} FirstLoadWorker;

static void
on_first_load_registered (RegRegistry *reg,
                          const char  *name,
                          FirstLoad   *fl)
{
  for (guint i = 0; i < N_MODULE_NAMES; i++)
    if (g_str_equal (name, module_names[i]))
      g_atomic_int_inc (&fl->registered[i]);
}

static void
on_first_load_module (RegRegistry *reg,
                      RegModule   *module,
                      FirstLoad   *fl)
{
  g_atomic_int_inc (&fl->loaded);
}

static gpointer
first_load_run (gpointer data)
{
  FirstLoadWorker *w = data;
  FirstLoad *fl = w->fl;

  while (g_atomic_int_get (&fl->start) == 0)
    g_thread_yield ();

  for (guint k = 0; k < N_MODULE_NAMES; k++)
    {
      /* Threads go forwards or backwards from different starts. */
      guint i = (w->index % 2 == 0 ? w->index + k : w->index + N_MODULE_NAMES - k) % N_MODULE_NAMES;
      g_autoptr(GError) error = NULL;

      fl->found[w->index][i] = reg_registry_lookup_backend (fl->reg, module_names[i], &error);
      CHECK (fl->found[w->index][i] != NULL, "first load of '%s': %s", module_names[i],
             error != NULL ? error->message : "");
    }

  return NULL;
}

static void
test_stress_first_load (void)
{
  guint rounds = env_uint ("STRESS_ROUNDS", DEFAULT_ROUNDS);

  for (guint round = 0; round < rounds; round++)
    {
      FirstLoad fl = { .reg = reg_registry_new () };
      FirstLoadWorker workers[N_THREADS];
      GThread *threads[N_THREADS];

      g_signal_connect (fl.reg, "backend-registered", G_CALLBACK (on_first_load_registered), &fl);
      g_signal_connect (fl.reg, "module-loaded", G_CALLBACK (on_first_load_module), &fl);

      for (guint i = 0; i < N_THREADS; i++)
        {
          workers[i] = (FirstLoadWorker) { &fl, i };
          threads[i] = g_thread_new ("first-load", first_load_run, &workers[i]);
        }
      g_atomic_int_set (&fl.start, 1);
      for (guint i = 0; i < N_THREADS; i++)
        g_thread_join (threads[i]);

      CHECK (fl.loaded == (gint) G_N_ELEMENTS (module_files),
             "round %u: %d module-loaded signals for %u modules", round,
             fl.loaded, (guint) G_N_ELEMENTS (module_files));
      for (guint i = 0; i < N_MODULE_NAMES; i++)
        {
          CHECK (fl.registered[i] == 1, "round %u: '%s' registered %d times",
                 round, module_names[i], fl.registered[i]);
          for (guint t = 0; t < N_THREADS; t++)
            CHECK (fl.found[t][i] == fl.found[0][i],
                   "round %u: two threads got different objects for '%s'",
                   round, module_names[i]);
          for (guint t = 0; t < N_THREADS; t++)
            g_clear_object (&fl.found[t][i]);
        }
      g_object_unref (fl.reg);

      if (n_violations > 0)
        break;
    }

  report_violations ();
}

/* Lock order: modules loading through several registries at once.
 *
 * Each round puts a fresh copy of the good fixture (fixture_a, fixture_b)
 * in the default registry's search path, and gives each of N_PRIVATE new
 * registries a copy of the lookup-default fixture, whose reg_module_load()
 * looks fixture_a up in the default registry.  Then all threads start at
 * once: some load fixture_lookup through their private registry (the
 * module lock, that registry's load lock, then the default registry's),
 * some look fixture_a and fixture_b up in the default registry directly
 * (its load lock, then the module lock), one lists the default registry
 * (discovery) and one rescans a private registry.  With the locks taken in
 * opposite orders by the two kinds of load, the first round deadlocked;
 * ThreadSanitizer also reports any inversion it sees. */

#define N_PRIVATE 3
#define N_LOCK_THREADS (2 * N_PRIVATE + 4)
#define DEFAULT_LOCK_ROUNDS 20  /* STRESS_LOCK_ROUNDS overrides */

typedef struct
{
  RegRegistry *privates[N_PRIVATE];
  gint         start;
  gint         registered_a;
  RegCompiler *found[N_LOCK_THREADS];
} LockRound;

typedef struct
{
  LockRound *round;
  guint      index;
} LockWorker;

static void
on_lock_registered (RegRegistry *reg,
                    const char  *name,
                    LockRound   *round)
{
  if (g_str_equal (name, "fixture_a"))
    g_atomic_int_inc (&round->registered_a);
}

static gpointer
lock_worker_run (gpointer data)
{
  LockWorker *w = data;
  LockRound *round = w->round;
  RegRegistry *registry;
  const char *name;
  g_autoptr(GError) error = NULL;

  while (g_atomic_int_get (&round->start) == 0)
    g_thread_yield ();

  if (w->index < N_PRIVATE)
    {
      registry = round->privates[w->index];
      name = "fixture_lookup";
    }
  else if (w->index < 2 * N_PRIVATE)
    {
      registry = reg_registry_get_default ();
      name = (w->index - N_PRIVATE) % 2 == 0 ? "fixture_a" : "fixture_b";
    }
  else if (w->index == 2 * N_PRIVATE)
    {
      g_strfreev (reg_registry_list_backends (reg_registry_get_default (), NULL));
      return NULL;
    }
  else if (w->index == 2 * N_PRIVATE + 1)
    {
      reg_registry_rescan (round->privates[0]);
      return NULL;
    }
  else
    {
      registry = reg_registry_get_default ();
      name = "eager";
    }

  round->found[w->index] = reg_registry_lookup_backend (registry, name, &error);
  CHECK (round->found[w->index] != NULL, "thread %u: looking '%s' up: %s", w->index, name,
         error != NULL ? error->message : "");

  return NULL;
}

/* The counters of the lookup-default copy @path, without loading it. */
static void
lookup_counters (const char *path,
                 gint       *n_found,
                 gint       *n_failed)
{
  void *handle = dlopen (path, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);

  g_assert_nonnull (handle);
  *n_found = g_atomic_int_get ((gint *) dlsym (handle, "fixture_lookup_n_found"));
  *n_failed = g_atomic_int_get ((gint *) dlsym (handle, "fixture_lookup_n_failed"));
  g_assert_cmpint (dlclose (handle), ==, 0);
}

static void
test_stress_lock_order (void)
{
  guint rounds = env_uint ("STRESS_LOCK_ROUNDS", DEFAULT_LOCK_ROUNDS);
  RegRegistry *default_registry = reg_registry_get_default ();
  g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  gulong handler;

  g_setenv ("FIXTURE_LOOKUP_NAME", "fixture_a", TRUE);

  for (guint r = 0; r < rounds && n_violations == 0; r++)
    {
      LockRound round = { 0, };
      LockWorker workers[N_LOCK_THREADS];
      GThread *threads[N_LOCK_THREADS];
      char *good_dir = make_tmp_dir ();
      char *lookup_modules[N_PRIVATE] = { NULL, };
      g_autoptr(GError) error = NULL;

      g_ptr_array_add (dirs, good_dir);
      copy_fixture (good_dir, "good");
      reg_registry_add_search_path (default_registry, good_dir);
      handler = g_signal_connect (default_registry, "backend-registered",
                                  G_CALLBACK (on_lock_registered), &round);

      for (guint p = 0; p < N_PRIVATE; p++)
        {
          char *dir = make_tmp_dir ();

          g_ptr_array_add (dirs, dir);
          copy_fixture (dir, "lookup-default");
          lookup_modules[p] = g_build_filename (dir, "libfixture-lookup-default.so", NULL);
          round.privates[p] = reg_registry_new ();
          reg_registry_add_search_path (round.privates[p], dir);
        }

      for (guint i = 0; i < N_LOCK_THREADS; i++)
        {
          workers[i] = (LockWorker) { &round, i };
          threads[i] = g_thread_new ("lock-order", lock_worker_run, &workers[i]);
        }
      g_atomic_int_set (&round.start, 1);
      for (guint i = 0; i < N_LOCK_THREADS; i++)
        g_thread_join (threads[i]);
      g_signal_handler_disconnect (default_registry, handler);

      /* Every module loaded once, each lookup-default copy found
       * fixture_a, and fixture_a of this round is one object, registered
       * once. */
      for (guint p = 0; p < N_PRIVATE; p++)
        {
          gint n_found, n_failed;

          lookup_counters (lookup_modules[p], &n_found, &n_failed);
          CHECK (n_found == 1 && n_failed == 0,
                 "round %u: lookup-default copy %u found fixture_a %d times, failed %d times",
                 r, p, n_found, n_failed);
        }
      CHECK (round.registered_a == 1, "round %u: fixture_a registered %d times", r, round.registered_a);
      for (guint i = N_PRIVATE; i < 2 * N_PRIVATE; i += 2)
        CHECK (round.found[i] == round.found[N_PRIVATE],
               "round %u: two lookups of fixture_a gave two objects", r);

      for (guint i = 0; i < N_LOCK_THREADS; i++)
        g_clear_object (&round.found[i]);
      for (guint p = 0; p < N_PRIVATE; p++)
        {
          g_object_unref (round.privates[p]);
          g_free (lookup_modules[p]);
        }

      /* The next round's copy declares them anew. */
      reg_registry_unregister_backend (default_registry, "fixture_a", &error);
      g_assert_no_error (error);
      reg_registry_unregister_backend (default_registry, "fixture_b", &error);
      g_assert_no_error (error);
    }

  report_violations ();

  for (guint i = 0; i < dirs->len; i++)
    remove_tmp_dir (g_ptr_array_index (dirs, i));
}

int
main (int   argc,
      char *argv[])
{
  /* The build's modules/ (the test environment's REG_BACKEND_PATH) and
   * nothing installed on the machine */
  g_setenv ("REG_BACKEND_SYSTEM_DIR", "", TRUE);
  if (g_getenv ("REG_BACKEND_PATH") == NULL)
    g_setenv ("REG_BACKEND_PATH", TEST_BUILDDIR "/../modules", TRUE);

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  messages = g_ptr_array_new_with_free_func (g_free);
  for (guint j = 0; j < N_SHARED; j++)
    g_snprintf (shared_names[j], sizeof shared_names[j], "shared%u", j);

  g_test_add_func ("/stress/mixed", test_stress_mixed);
  g_test_add_func ("/stress/first-load", test_stress_first_load);
  g_test_add_func ("/stress/lock-order", test_stress_lock_order);

  return g_test_run ();
}
