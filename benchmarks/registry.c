/* registry.c: the registry's speed and memory against the floors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Prints, in one run, the registry's figures beside their floors (see
 * benchmarks/README.md and docs/performance.md):
 *
 *  - lookup of a loaded backend, ns/op, with 10, 1,000 and 10,000
 *    backends, beside a plain GHashTable and a GHashTable under a GRWLock
 *    reader lock on the same keys in the same order (the floor), and
 *    beside a model of TorchDynamo's lookup_backend() (Python) run by
 *    /usr/bin/python3;
 *  - the same with 2 threads, on one name and on distinct names: total
 *    throughput and its ratio to one thread's;
 *  - discovery of 100, 1,000 and 10,000 generated manifests, each in a
 *    fresh process (this program run again with --child), beside the
 *    floors: g_key_file_load_from_file() on each manifest in a loop, and
 *    on one key file holding them all; the peak RSS of that process and
 *    the heap bytes per declared backend;
 *  - list_backends() with 1,000 and 10,000 names;
 *  - the first lookup of a module backend (eager, inductor), each in a fresh
 *    process: without module checks, with the quarantine (the default),
 *    and checking the module out of process first (REG_VERIFY_MODULES=1)
 *    with its verdict already recorded and without;
 *  - a whole process that finds eager through the default registry (the
 *    shipped manifests discovered, its module loaded) against a GIO hello
 *    world (hello-gio.c), each started afresh.
 *
 *   registry [--quick] [--keep] [--only=lookup,threads,list,discovery,first-lookup,process]
 *   registry --child MODE DIR N      (internal: one discovery, see run_child)
 *   registry --lookup-child CHECKS DIR NAME  (internal: one first lookup)
 *   registry --process-child                 (internal: the whole process)
 *
 * Every lookup column takes and drops a reference to the compiler it
 * finds: reg_registry_lookup_backend() returns a new reference, so the
 * floors do the same work.  Timings are the best of several repetitions,
 * as the machine may be busy; the load average is printed first.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <glib/gstdio.h>
#include <reg.h>

#define KEY_RING 16384  /* lookups cycle through this many keys */
#define N_LIST_CALLS 20

static gboolean quick;
static gboolean keep_files;
static char *only;

/* Clock and statistics */

static gint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const char *
verdict (gboolean pass)
{
  return pass ? "PASS" : "MISS";
}

/* Bytes the heap holds: arena chunks in use and mmapped chunks. */
static gsize
heap_in_use (void)
{
  struct mallinfo2 info = mallinfo2 ();

  return info.uordblks + info.hblkhd;
}

/* VmHWM of /proc/self/status, in kB. */
static gint64
peak_rss_kb (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return -1;
  line = strstr (status, "VmHWM:");
  if (line == NULL)
    return -1;

  return g_ascii_strtoll (line + strlen ("VmHWM:"), NULL, 10);
}

/* Compilers: the registry only stores and hands them out. */

static RegCompiledFn *
never_compile (RegGraph   *graph,
               GPtrArray  *example_inputs,
               GVariant   *options,
               gpointer    user_data,
               GError    **error)
{
  g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED, "benchmark compiler");
  return NULL;
}

static char *
backend_name (guint i)
{
  return g_strdup_printf ("backend_%05u", i);
}

/* A registry of @n runtime backends, and the same names and compilers in
 * a GHashTable.  The names handed to lookups are copies of their own, as
 * a caller's strings would be. */
typedef struct
{
  guint         n;
  RegRegistry  *registry;
  GHashTable   *table;     /* name -> RegCompiler */
  GRWLock       lock;
  char        **names;     /* n names, the callers' copies */
  const char  **ring;      /* KEY_RING names picked at random */
} LookupSet;

static LookupSet *
lookup_set_new (guint n)
{
  LookupSet *set = g_new0 (LookupSet, 1);
  g_autoptr(GRand) rand = g_rand_new_with_seed (n);

  set->n = n;
  set->registry = reg_registry_new ();
  set->table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  g_rw_lock_init (&set->lock);
  set->names = g_new0 (char *, n + 1);
  set->ring = g_new (const char *, KEY_RING);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = backend_name (i);
      g_autoptr(RegCompiler) compiler = reg_func_compiler_new (name, never_compile, NULL, NULL);
      g_autoptr(GError) error = NULL;

      if (!reg_registry_register_backend (set->registry, name, compiler, NULL, &error))
        g_error ("%s", error->message);
      g_hash_table_insert (set->table, g_strdup (name), g_object_ref (compiler));
      set->names[i] = g_strdup (name);
    }

  for (guint i = 0; i < KEY_RING; i++)
    set->ring[i] = set->names[g_rand_int_range (rand, 0, n)];

  return set;
}

static void
lookup_set_free (LookupSet *set)
{
  g_object_unref (set->registry);
  g_hash_table_unref (set->table);
  g_rw_lock_clear (&set->lock);
  g_strfreev (set->names);
  g_free (set->ring);
  g_free (set);
}

typedef enum {
  LOOKUP_REGISTRY,
  LOOKUP_HASH_TABLE,
  LOOKUP_RW_LOCK,
  LOOKUP_NONE,       /* hashing the key only: no shared memory written */
  LOOKUP_REF_ONLY,   /* no lookup, only the reference a lookup hands out */
} LookupKind;

/* @n_ops lookups of the keys of @keys (a ring of KEY_RING, or one key when
 * @mask is 0); returns the nanoseconds taken. */
static gint64
run_lookups (LookupSet    *set,
             LookupKind    kind,
             const char  **keys,
             guint         mask,
             guint64       n_ops)
{
  gint64 start = now_ns ();

  switch (kind)
    {
    case LOOKUP_REGISTRY:
      for (guint64 i = 0; i < n_ops; i++)
        {
          RegCompiler *compiler = reg_registry_lookup_backend (set->registry, keys[i & mask], NULL);

          g_object_unref (compiler);
        }
      break;

    case LOOKUP_HASH_TABLE:
      for (guint64 i = 0; i < n_ops; i++)
        {
          RegCompiler *compiler = g_hash_table_lookup (set->table, keys[i & mask]);

          g_object_ref (compiler);
          g_object_unref (compiler);
        }
      break;

    case LOOKUP_RW_LOCK:
      for (guint64 i = 0; i < n_ops; i++)
        {
          RegCompiler *compiler;

          g_rw_lock_reader_lock (&set->lock);
          compiler = g_object_ref (g_hash_table_lookup (set->table, keys[i & mask]));
          g_rw_lock_reader_unlock (&set->lock);
          g_object_unref (compiler);
        }
      break;

    case LOOKUP_NONE:
      {
        /* On the stack: each thread writes its own. */
        volatile guint sink = 0;

        for (guint64 i = 0; i < n_ops; i++)
          sink += g_str_hash (keys[i & mask]);
        (void) sink;
      }
      break;

    case LOOKUP_REF_ONLY:
      {
        RegCompiler *compiler = g_hash_table_lookup (set->table, keys[0]);

        for (guint64 i = 0; i < n_ops; i++)
          {
            g_object_ref (compiler);
            g_object_unref (compiler);
          }
      }
      break;
    }

  return now_ns () - start;
}

/* Best of @reps runs of each kind, in ns per lookup, in @ns.  The kinds
 * take turns, so that a burst of load elsewhere on the machine weighs on
 * all of them alike. */
static void
best_ns_per_op (LookupSet   *set,
                const char **keys,
                guint        mask,
                guint64      n_ops,
                guint        reps,
                double       ns[3])
{
  gint64 best[3] = { G_MAXINT64, G_MAXINT64, G_MAXINT64 };

  for (guint r = 0; r < reps; r++)
    for (LookupKind kind = LOOKUP_REGISTRY; kind <= LOOKUP_RW_LOCK; kind++)
      best[kind] = MIN (best[kind], run_lookups (set, kind, keys, mask, n_ops));

  for (guint k = 0; k < 3; k++)
    ns[k] = (double) best[k] / n_ops;
}

/* Two threads */

typedef struct
{
  LookupSet   *set;
  LookupKind   kind;
  const char **keys;
  guint        mask;
  guint64      n_ops;
  gint        *start;   /* spin until set, so both threads start together */
  gint64       end_ns;
} Worker;

static gpointer
worker_run (gpointer data)
{
  Worker *worker = data;

  while (!g_atomic_int_get (worker->start))
    ;
  run_lookups (worker->set, worker->kind, worker->keys, worker->mask, worker->n_ops);
  worker->end_ns = now_ns ();

  return NULL;
}

/* Total lookups per second of @n_threads threads, thread i on @keys[i]
 * (one name each); best of @reps. */
static double
threads_ops_per_s (LookupSet   *set,
                   LookupKind   kind,
                   guint        n_threads,
                   const char **keys,
                   guint64      n_ops,
                   guint        reps)
{
  double best = 0;

  for (guint r = 0; r < reps; r++)
    {
      Worker workers[2];
      GThread *threads[2];
      gint start = 0;
      gint64 start_ns, end_ns = 0;

      g_assert (n_threads <= 2);
      for (guint t = 0; t < n_threads; t++)
        {
          workers[t] = (Worker) { set, kind, &keys[t], 0, n_ops, &start, 0 };
          threads[t] = g_thread_new ("lookup", worker_run, &workers[t]);
        }
      g_usleep (2000);
      start_ns = now_ns ();
      g_atomic_int_set (&start, 1);
      for (guint t = 0; t < n_threads; t++)
        {
          g_thread_join (threads[t]);
          end_ns = MAX (end_ns, workers[t].end_ns);
        }

      best = MAX (best, (double) n_threads * n_ops * 1e9 / (end_ns - start_ns));
    }

  return best;
}

/* TorchDynamo's lookup, in Python */

/* torch/_dynamo/backends/registry.py's lookup_backend() and the two dicts
 * it reads, as they are: a registered backend costs the isinstance() test,
 * three dict membership tests and a dict lookup behind a function call.
 * The time of the bare loop over the same keys is subtracted. */
static const char python_model[] =
  "import random, sys, time\n"
  "_BACKENDS = {}\n"
  "_COMPILER_FNS = {}\n"
  "def _lazy_import():\n"
  "    pass\n"
  "def register_backend(compiler_fn=None, name=None, tags=()):\n"
  "    name = name or compiler_fn.__name__\n"
  "    assert name not in _COMPILER_FNS, f'duplicate name: {name}'\n"
  "    if compiler_fn not in _BACKENDS:\n"
  "        _BACKENDS[name] = None\n"
  "    _COMPILER_FNS[name] = compiler_fn\n"
  "    compiler_fn._tags = tuple(tags)\n"
  "    return compiler_fn\n"
  "def lookup_backend(compiler_fn):\n"
  "    if isinstance(compiler_fn, str):\n"
  "        if compiler_fn not in _BACKENDS:\n"
  "            _lazy_import()\n"
  "        if compiler_fn not in _BACKENDS:\n"
  "            raise KeyError(compiler_fn)\n"
  "        if compiler_fn not in _COMPILER_FNS:\n"
  "            entry_point = _BACKENDS[compiler_fn]\n"
  "            register_backend(compiler_fn=entry_point.load(), name=compiler_fn)\n"
  "        compiler_fn = _COMPILER_FNS[compiler_fn]\n"
  "    return compiler_fn\n"
  "iterations = int(sys.argv[1])\n"
  "for n in (int(a) for a in sys.argv[2:]):\n"
  "    _BACKENDS.clear(); _COMPILER_FNS.clear()\n"
  "    for i in range(n):\n"
  "        def fn(gm, example_inputs): return gm\n"
  "        register_backend(fn, name='backend_%05d' % i)\n"
  "    rng = random.Random(n)\n"
  "    # Fresh string objects, as a caller's would be.\n"
  "    keys = ['backend_%05d' % rng.randrange(n) for _ in range(16384)]\n"
  "    best = None\n"
  "    for rep in range(5):\n"
  "        t0 = time.perf_counter_ns()\n"
  "        for _ in range(iterations):\n"
  "            for k in keys:\n"
  "                lookup_backend(k)\n"
  "        t1 = time.perf_counter_ns()\n"
  "        for _ in range(iterations):\n"
  "            for k in keys:\n"
  "                pass\n"
  "        t2 = time.perf_counter_ns()\n"
  "        ns = ((t1 - t0) - (t2 - t1)) / (iterations * len(keys))\n"
  "        best = ns if best is None else min(best, ns)\n"
  "    print(n, '%.1f' % best)\n";

/* Fills @python_ns[i] for sizes[i]; -1 when python3 cannot be run. */
static void
measure_python (const guint *sizes,
                guint        n_sizes,
                double      *python_ns)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  int status;

  for (guint i = 0; i < n_sizes; i++)
    python_ns[i] = -1;

  g_ptr_array_add (argv, g_strdup ("/usr/bin/python3"));
  g_ptr_array_add (argv, g_strdup ("-c"));
  g_ptr_array_add (argv, g_strdup (python_model));
  g_ptr_array_add (argv, g_strdup (quick ? "20" : "60"));
  for (guint i = 0; i < n_sizes; i++)
    g_ptr_array_add (argv, g_strdup_printf ("%u", sizes[i]));
  g_ptr_array_add (argv, NULL);

  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                     &out, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    {
      g_printerr ("registry: the Python model did not run: %s\n", error->message);
      return;
    }

  lines = g_strsplit (out, "\n", -1);
  for (guint l = 0; lines[l] != NULL; l++)
    {
      guint n;
      double ns;

      if (sscanf (lines[l], "%u %lf", &n, &ns) == 2)
        for (guint i = 0; i < n_sizes; i++)
          if (sizes[i] == n)
            python_ns[i] = ns;
    }
}

/* Lookup tables */

static void
bench_lookup (void)
{
  static const guint sizes[] = { 10, 1000, 10000 };
  double python_ns[G_N_ELEMENTS (sizes)];
  guint64 n_ops = quick ? 1000000 : 4000000;
  guint reps = quick ? 3 : 7;
  LookupSet *set;

  measure_python (sizes, G_N_ELEMENTS (sizes), python_ns);
  if (!quick)
    {
      double again[G_N_ELEMENTS (sizes)];

      /* Twice, the best kept, as for the other columns. */
      measure_python (sizes, G_N_ELEMENTS (sizes), again);
      for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
        if (again[s] > 0 && (python_ns[s] < 0 || again[s] < python_ns[s]))
          python_ns[s] = again[s];
    }

  g_print ("\nLookup of a loaded backend, 1 thread: ns per lookup (each column takes and\n"
           "drops a reference, as reg_registry_lookup_backend's transfer full needs);\n"
           "keys drawn at random from the registered names\n\n");
  g_print ("%9s %9s %11s %10s %13s %14s %12s %14s\n",
           "backends", "registry", "GHashTable", "GRWLock+", "vs floor", "bound <=1.5x",
           "TorchDynamo", "bound >=2.5x");
  g_print ("%9s %9s %11s %10s %13s %14s %12s %14s\n",
           "", "", "", "GHashTable", "", "", "", "faster");

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      double registry_ns, table_ns, locked_ns, ratio, speedup;
      double ns[3];

      set = lookup_set_new (sizes[s]);
      /* The first lookup publishes the snapshot the others read. */
      g_object_unref (reg_registry_lookup_backend (set->registry, set->names[0], NULL));

      best_ns_per_op (set, set->ring, KEY_RING - 1, n_ops, reps, ns);
      registry_ns = ns[LOOKUP_REGISTRY];
      table_ns = ns[LOOKUP_HASH_TABLE];
      locked_ns = ns[LOOKUP_RW_LOCK];
      ratio = registry_ns / locked_ns;
      speedup = python_ns[s] > 0 ? python_ns[s] / registry_ns : 0;

      g_print ("%9u %9.1f %11.1f %10.1f %12.2fx %9s %4s %12.1f %8.1fx %5s\n",
               sizes[s], registry_ns, table_ns, locked_ns, ratio,
               "", verdict (ratio <= 1.5), python_ns[s], speedup,
               python_ns[s] > 0 ? verdict (speedup >= 2.5) : "n/a");

      lookup_set_free (set);
    }
}

static void
bench_threads (void)
{
  guint64 n_ops = quick ? 2000000 : 8000000;
  guint reps = quick ? 3 : 5;
  LookupSet *set = lookup_set_new (1000);
  /* Distinct names far apart in registration order, so that their
   * compilers' reference counts are not neighbours in memory. */
  const char *same[2] = { set->names[10], set->names[10] };
  const char *distinct[2] = { set->names[10], set->names[900] };
  static const struct { const char *label; LookupKind kind; } kinds[] = {
    { "registry", LOOKUP_REGISTRY },
    { "GRWLock+GHashTable", LOOKUP_RW_LOCK },
    { "GHashTable", LOOKUP_HASH_TABLE },
    { "g_str_hash only", LOOKUP_NONE },
    { "g_object_ref/unref", LOOKUP_REF_ONLY },  /* last: see ref_only_same */
  };
  double one[G_N_ELEMENTS (kinds)][2] = { { 0, } }, two[G_N_ELEMENTS (kinds)][2] = { { 0, } };
  double ref_only_same;

  g_object_unref (reg_registry_lookup_backend (set->registry, set->names[0], NULL));

  g_print ("\nLookup with 2 threads (1,000 backends): total millions of lookups per second,\n"
           "and scaling = 2 threads' total / 1 thread's.  \"g_str_hash only\" shares nothing:\n"
           "its scaling is what the machine allows at the moment (2.0 when idle).\n"
           "\"g_object_ref/unref\" does no lookup, only the reference a lookup returns\n"
           "(transfer full): on the same name, that shared write alone caps the scaling,\n"
           "and the registry's bound is that cap\n\n");
  g_print ("%-20s %-15s %8s %8s %8s   %s\n", "", "names", "1 thread", "2 threads", "scaling", "bound");

  /* Every row first, one thread and two threads taking turns, so that the
   * cap of the same-name bound can be printed beside it. */
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    for (guint pattern = 0; pattern < 2; pattern++)
      for (guint r = 0; r < reps; r++)
        {
          const char **keys = pattern == 0 ? same : distinct;

          one[k][pattern] = MAX (one[k][pattern], threads_ops_per_s (set, kinds[k].kind, 1, keys, n_ops, 1));
          two[k][pattern] = MAX (two[k][pattern], threads_ops_per_s (set, kinds[k].kind, 2, keys, n_ops / 2, 1));
        }
  ref_only_same = two[G_N_ELEMENTS (kinds) - 1][0] / one[G_N_ELEMENTS (kinds) - 1][0];

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    for (guint pattern = 0; pattern < 2; pattern++)
      {
        double scaling = two[k][pattern] / one[k][pattern];
        g_autofree char *bound = NULL;

        if (kinds[k].kind == LOOKUP_REGISTRY)
          /* On one name, the bound is what the reference alone allows
           * in this run, less a tenth for the noise between rows. */
          bound = pattern == 0
            ? g_strdup_printf (">=0.9 x ref/unref's %.2fx %s", ref_only_same,
                               verdict (scaling >= 0.9 * ref_only_same))
            : g_strdup_printf (">=1.6x %s", verdict (scaling >= 1.6));

        g_print ("%-20s %-15s %8.1f %9.1f %7.2fx   %s\n",
                 kinds[k].label, pattern == 0 ? "same name" : "distinct names",
                 one[k][pattern] / 1e6, two[k][pattern] / 1e6, scaling, bound != NULL ? bound : "");
      }

  lookup_set_free (set);
}

/* list_backends() */

static void
bench_list (void)
{
  static const guint sizes[] = { 1000, 10000 };
  const char * const no_exclusion[] = { NULL };
  double per_name[G_N_ELEMENTS (sizes)];

  g_print ("\nlist_backends(), all names (excluding none): microseconds per call\n\n");
  g_print ("%9s %18s %14s %16s\n", "backends", "after a change", "cached sort", "ns per name");

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      LookupSet *set = lookup_set_new (sizes[s]);
      gint64 first = G_MAXINT64, steady = G_MAXINT64;

      for (guint r = 0; r < 5; r++)
        {
          g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("x", never_compile, NULL, NULL);
          g_auto(GStrv) names = NULL;
          gint64 start;

          /* A change of the set drops the cached sort. */
          reg_registry_register_backend (set->registry, "zz_change", compiler, NULL, NULL);
          reg_registry_unregister_backend (set->registry, "zz_change", NULL);

          start = now_ns ();
          names = reg_registry_list_backends (set->registry, no_exclusion);
          first = MIN (first, now_ns () - start);
          g_assert (g_strv_length (names) == sizes[s]);

          for (guint c = 0; c < N_LIST_CALLS; c++)
            {
              g_auto(GStrv) again = NULL;

              start = now_ns ();
              again = reg_registry_list_backends (set->registry, no_exclusion);
              steady = MIN (steady, now_ns () - start);
            }
        }

      per_name[s] = (double) steady / sizes[s];
      g_print ("%9u %18.1f %14.1f %16.1f\n", sizes[s], first / 1e3, steady / 1e3, per_name[s]);
      lookup_set_free (set);
    }

  g_print ("no quadratic step: ns per name at 10,000 / at 1,000 = %.2f (bound <=2) %s\n",
           per_name[1] / per_name[0], verdict (per_name[1] / per_name[0] <= 2));
}

/* Discovery */

/* Writes @n manifests into @dir, each declaring one backend and naming a
 * module file of its own (an empty file: discovery neither opens nor stats
 * it, but it lengthens the directory to list as real modules would), and
 * the same declarations into the one key file @all_path. */
static void
generate_manifests (const char *dir,
                    guint       n,
                    const char *all_path)
{
  g_autoptr(GString) all = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  g_assert_no_errno (g_mkdir_with_parents (dir, 0755));

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *manifest = g_strdup_printf ("%s/bench-%05u.backend", dir, i);
      g_autofree char *module = g_strdup_printf ("%s/libbench-%05u.so", dir, i);
      g_autofree char *text = NULL;
      const char *tags = i % 10 == 0 ? "debug;" : i % 3 == 0 ? "gpu;fast;" : "";

      text = g_strdup_printf ("[Reg Module]\n"
                              "Module=libbench-%05u.so\n"
                              "AbiVersion=2\n"
                              "\n"
                              "[Backend bench_%05u]\n"
                              "Tags=%s\n"
                              "Description=Generated backend number %u\n",
                              i, i, tags, i);
      if (!g_file_set_contents (manifest, text, -1, &error) ||
          !g_file_set_contents (module, "", 0, &error))
        g_error ("%s", error->message);

      g_string_append_printf (all,
                              "[Reg Module %05u]\n"
                              "Module=libbench-%05u.so\n"
                              "AbiVersion=2\n"
                              "\n"
                              "[Backend bench_%05u]\n"
                              "Tags=%s\n"
                              "Description=Generated backend number %u\n"
                              "\n",
                              i, i, i, tags, i);
    }

  if (!g_file_set_contents (all_path, all->str, all->len, &error))
    g_error ("%s", error->message);
}

typedef struct
{
  gint64 ns;
  gint64 heap_bytes;
  gint64 peak_rss_kb;
  guint  n_backends;
} ChildResult;

/* Runs this program with --child MODE DIR N in a fresh process; best time
 * of @reps runs. */
static gboolean
run_child (const char  *mode,
           const char  *dir,
           guint        n,
           guint        reps,
           ChildResult *result)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *n_text = g_strdup_printf ("%u", n);
  const char *argv[] = { self, "--child", mode, dir, n_text, NULL };
  g_auto(GStrv) env = g_get_environ ();

  env = g_environ_setenv (env, "REG_BACKEND_PATH", "", TRUE);
  env = g_environ_setenv (env, "REG_BACKEND_SYSTEM_DIR", "", TRUE);

  memset (result, 0, sizeof *result);
  result->ns = G_MAXINT64;

  for (guint r = 0; r < reps; r++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      ChildResult one = { 0, };
      const char *line;
      int status;

      if (!g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL,
                         &out, &err, &status, &error) ||
          !g_spawn_check_wait_status (status, &error))
        {
          g_printerr ("registry: child %s failed: %s\n%s", mode, error->message, err != NULL ? err : "");
          return FALSE;
        }
      line = out;
      if (sscanf (line, "ns=%" G_GINT64_FORMAT " heap=%" G_GINT64_FORMAT
                  " hwm=%" G_GINT64_FORMAT " backends=%u",
                  &one.ns, &one.heap_bytes, &one.peak_rss_kb, &one.n_backends) != 4)
        {
          g_printerr ("registry: child %s printed: %s\n", mode, out);
          return FALSE;
        }
      if (one.ns < result->ns)
        *result = one;
    }

  return TRUE;
}

/* In the fresh process: one discovery of @dir (@n manifests), by @mode:
 *   registry       reg_registry_add_search_path() and the first
 *                  get_backend_info(), which discovers
 *   keyfile-loop   list @dir, g_key_file_load_from_file() each manifest
 *   one-keyfile    g_key_file_load_from_file() of @dir itself, a key file
 *                  holding all the manifests
 * Prints the time, the heap it left allocated, the peak RSS and the number
 * of backends found. */
static int
child_main (const char *mode,
            const char *dir,
            guint       n)
{
  gsize heap_before, heap_after;
  guint n_backends = 0;
  gint64 start, end;

  heap_before = heap_in_use ();

  if (g_str_equal (mode, "registry"))
    {
      RegRegistry *registry = reg_registry_new ();
      g_autoptr(RegBackendInfo) info = NULL;
      const char * const no_exclusion[] = { NULL };
      g_auto(GStrv) names = NULL;

      start = now_ns ();
      reg_registry_add_search_path (registry, dir);
      info = reg_registry_get_backend_info (registry, "bench_00000");
      end = now_ns ();
      g_assert (info != NULL);
      g_clear_object (&info);
      heap_after = heap_in_use ();

      names = reg_registry_list_backends (registry, no_exclusion);
      n_backends = g_strv_length (names);
      /* The registry is left alive: its memory is what is measured. */
    }
  else if (g_str_equal (mode, "keyfile-loop"))
    {
      g_autoptr(GDir) gdir = NULL;
      const char *name;

      start = now_ns ();
      gdir = g_dir_open (dir, 0, NULL);
      while ((name = g_dir_read_name (gdir)) != NULL)
        if (g_str_has_suffix (name, ".backend"))
          {
            g_autofree char *path = g_build_filename (dir, name, NULL);
            g_autoptr(GKeyFile) keyfile = g_key_file_new ();

            if (g_key_file_load_from_file (keyfile, path, G_KEY_FILE_NONE, NULL))
              n_backends++;
          }
      end = now_ns ();
      heap_after = heap_in_use ();
    }
  else if (g_str_equal (mode, "one-keyfile"))
    {
      GKeyFile *keyfile = g_key_file_new ();

      start = now_ns ();
      if (!g_key_file_load_from_file (keyfile, dir, G_KEY_FILE_NONE, NULL))
        return 1;
      end = now_ns ();
      heap_after = heap_in_use ();
      n_backends = n;
    }
  else
    return 2;

  printf ("ns=%" G_GINT64_FORMAT " heap=%" G_GINT64_FORMAT " hwm=%" G_GINT64_FORMAT " backends=%u\n",
          end - start, (gint64) heap_after - (gint64) heap_before, peak_rss_kb (), n_backends);
  return 0;
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) gdir = g_dir_open (path, 0, NULL);
  const char *name;

  if (gdir == NULL)
    {
      g_unlink (path);
      return;
    }
  while ((name = g_dir_read_name (gdir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      remove_tree (child);
    }
  g_rmdir (path);
}

static void
bench_discovery (void)
{
  static const guint sizes[] = { 100, 1000, 10000 };
  g_autoptr(GError) error = NULL;
  g_autofree char *root = g_dir_make_tmp ("bench-registry-XXXXXX", &error);
  guint reps = quick ? 3 : 5;

  if (root == NULL)
    g_error ("%s", error->message);

  g_print ("\nDiscovery of generated manifests (1 backend each, each with a module file),\n"
           "each run in a fresh process, best of %u: milliseconds\n\n", reps);
  g_print ("%9s %9s %9s %9s %9s %7s\n",
           "manifests", "keyfile", "one", "registry", "registry", "bound");
  g_print ("%9s %9s %9s %9s %9s %7s\n",
           "", "loop", "keyfile", "", "/ loop", "<=1.2x");

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/dir-%u", root, sizes[s]);
      g_autofree char *all = g_strdup_printf ("%s/all-%u.keyfile", root, sizes[s]);
      ChildResult loop, one, discovered;
      double ratio;

      generate_manifests (dir, sizes[s], all);

      if (!run_child ("keyfile-loop", dir, sizes[s], reps, &loop) ||
          !run_child ("one-keyfile", all, sizes[s], reps, &one) ||
          !run_child ("registry", dir, sizes[s], reps, &discovered))
        continue;

      ratio = (double) discovered.ns / loop.ns;
      g_print ("%9u %9.2f %9.2f %9.2f %8.2fx %7s\n",
               sizes[s], loop.ns / 1e6, one.ns / 1e6, discovered.ns / 1e6,
               ratio, verdict (ratio <= 1.2));

      if (s == G_N_ELEMENTS (sizes) - 1)
        {
          double per_backend = (double) discovered.heap_bytes / discovered.n_backends;

          g_print ("\nMemory after discovering %u manifests (%u backends), in the same processes:\n",
                   sizes[s], discovered.n_backends);
          g_print ("  %-22s %12s %14s %14s\n", "", "peak RSS", "heap kept", "bytes/backend");
          g_print ("  %-22s %9" G_GINT64_FORMAT " kB %11.0f kB %14.0f   bound <=400 %s\n",
                   "registry", discovered.peak_rss_kb, discovered.heap_bytes / 1024.0,
                   per_backend, verdict (per_backend <= 400));
          g_print ("  %-22s %9" G_GINT64_FORMAT " kB %11.0f kB %14.0f\n",
                   "one key file (floor)", one.peak_rss_kb, one.heap_bytes / 1024.0,
                   (double) one.heap_bytes / sizes[s]);
        }
    }

  if (keep_files)
    g_print ("\n(generated files kept in %s)\n", root);
  else
    remove_tree (root);
}

/* The first lookup */

/* In the fresh process: discovers @dir, then times the lookup of @name,
 * which opens its module, under the module checks @checks ("none",
 * "quarantine", "verify"). */
static int
lookup_child_main (const char *checks,
                   const char *dir,
                   const char *name)
{
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(RegBackendInfo) info = NULL;
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start, end;

  if (g_str_equal (checks, "none"))
    reg_registry_set_module_checks (registry, REG_MODULE_CHECKS_NONE);
  else if (g_str_equal (checks, "quarantine"))
    reg_registry_set_module_checks (registry, REG_MODULE_CHECKS_QUARANTINE);
  else if (g_str_equal (checks, "verify"))
    reg_registry_set_module_checks (registry, REG_MODULE_CHECKS_QUARANTINE | REG_MODULE_CHECKS_VERIFY);
  else
    return 2;

  reg_registry_add_search_path (registry, dir);
  info = reg_registry_get_backend_info (registry, name);
  if (info == NULL)
    return 1;

  start = now_ns ();
  compiler = reg_registry_lookup_backend (registry, name, &error);
  end = now_ns ();
  if (compiler == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }

  printf ("ns=%" G_GINT64_FORMAT "\n", end - start);
  return 0;
}

/* Best time of @reps first lookups, each in a fresh process whose verdict
 * store is in @cache_dir, or in a new empty directory for each run when
 * @cache_dir is NULL. */
static gint64
run_lookup_child (const char *checks,
                  const char *name,
                  const char *cache_dir,
                  const char *root,
                  guint       reps)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  const char *argv[] = { self, "--lookup-child", checks, BENCH_MODULE_DIR, name, NULL };
  gint64 best = G_MAXINT64;

  for (guint r = 0; r < reps; r++)
    {
      g_autofree char *fresh = cache_dir == NULL ? g_strdup_printf ("%s/cache-XXXXXX", root) : NULL;
      g_auto(GStrv) env = g_get_environ ();
      g_autoptr(GError) error = NULL;
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      gint64 ns;
      int status;

      if (fresh != NULL && g_mkdtemp (fresh) == NULL)
        g_error ("%s: %s", fresh, g_strerror (errno));

      env = g_environ_setenv (env, "REG_BACKEND_PATH", "", TRUE);
      env = g_environ_setenv (env, "REG_BACKEND_SYSTEM_DIR", "", TRUE);
      env = g_environ_setenv (env, "XDG_CACHE_HOME", fresh != NULL ? fresh : cache_dir, TRUE);
      if (g_environ_getenv (env, "REG_VERIFY_HELPER") == NULL)
        env = g_environ_setenv (env, "REG_VERIFY_HELPER", BENCH_VERIFY_HELPER, TRUE);

      if (!g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL,
                         &out, &err, &status, &error) ||
          !g_spawn_check_wait_status (status, &error) ||
          sscanf (out, "ns=%" G_GINT64_FORMAT, &ns) != 1)
        {
          g_printerr ("registry: first lookup of %s (%s) failed: %s\n%s", name, checks,
                      error != NULL ? error->message : out, err != NULL ? err : "");
          return -1;
        }
      best = MIN (best, ns);
    }

  return best;
}

static void
bench_first_lookup (void)
{
  static const char * const names[] = { "eager", "inductor" };
  g_autoptr(GError) error = NULL;
  g_autofree char *root = g_dir_make_tmp ("bench-first-lookup-XXXXXX", &error);
  guint reps = quick ? 3 : 7;

  if (root == NULL)
    g_error ("%s", error->message);

  g_print ("\nFirst lookup of a module backend of %s (opening its module; discovery\n"
           "done before), each in a fresh process, best of %u: milliseconds.  \"quarantine\"\n"
           "is the default (the verdict stores read before the module is opened);\n"
           "\"verify\" is REG_MODULE_CHECKS_VERIFY, what REG_VERIFY_MODULES=1 sets: the\n"
           "module's backends checked out of process before it is opened, the first\n"
           "time (no verdict recorded: a checker process runs the conformance set) and\n"
           "later (the verdict found in the store)\n\n",
           BENCH_MODULE_DIR, reps);
  g_print ("%-9s %10s %11s %11s %11s %11s %11s\n", "backend", "no checks", "quarantine",
           "verify,", "verify,", "first /", "recorded /");
  g_print ("%-9s %10s %11s %11s %11s %11s %11s\n", "", "", "", "first", "recorded",
           "no checks", "no checks");

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *warm = g_strdup_printf ("%s/warm-%s", root, names[i]);
      gint64 none, quarantine, recorded, first;

      g_assert_no_errno (g_mkdir_with_parents (warm, 0700));
      none = run_lookup_child ("none", names[i], NULL, root, reps);
      quarantine = run_lookup_child ("quarantine", names[i], NULL, root, reps);
      first = run_lookup_child ("verify", names[i], NULL, root, reps);
      /* the first run records the verdict that the others find */
      run_lookup_child ("verify", names[i], warm, root, 1);
      recorded = run_lookup_child ("verify", names[i], warm, root, reps);
      if (none < 0 || quarantine < 0 || first < 0 || recorded < 0)
        continue;

      g_print ("%-9s %10.3f %11.3f %11.3f %11.3f %10.1fx %10.2fx\n", names[i],
               none / 1e6, quarantine / 1e6, first / 1e6, recorded / 1e6,
               (double) first / none, (double) recorded / none);
    }

  remove_tree (root);
}

/* A whole process */

/* In the fresh process: what a program that uses one backend does. */
static int
process_child_main (void)
{
  g_autoptr(RegCompiler) eager = NULL;
  g_autoptr(GError) error = NULL;

  eager = reg_registry_lookup_backend (reg_registry_get_default (), "eager", &error);
  if (eager == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  g_print ("%s\n", reg_compiler_get_name (eager));
  return 0;
}

/* Best wall time of @reps runs of @argv, each a fresh process, started
 * and waited for here. */
static gint64
time_process (const char * const *argv,
              char              **env,
              guint               reps)
{
  gint64 best = G_MAXINT64;

  for (guint r = 0; r < reps; r++)
    {
      g_autoptr(GError) error = NULL;
      int status;
      gint64 start = now_ns ();

      if (!g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                         NULL, NULL, &status, &error) ||
          !g_spawn_check_wait_status (status, &error))
        {
          g_printerr ("registry: %s failed: %s\n", argv[0], error->message);
          return -1;
        }
      best = MIN (best, now_ns () - start);
    }

  return best;
}

static void
bench_process (void)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  const char * const registry_argv[] = { self, "--process-child", NULL };
  const char * const hello_argv[] = { BENCH_HELLO_GIO, NULL };
  g_auto(GStrv) env = g_get_environ ();
  guint reps = quick ? 10 : 30;
  gint64 hello, registry;
  double ratio;

  env = g_environ_setenv (env, "REG_BACKEND_PATH", BENCH_MODULE_DIR, TRUE);
  env = g_environ_setenv (env, "REG_BACKEND_SYSTEM_DIR", "", TRUE);

  g_print ("\nA whole process, started afresh, best of %u: milliseconds.  \"registry\"\n"
           "discovers the manifests of %s and looks eager up in\n"
           "the default registry (loading its module); \"GIO hello world\" makes a GFile\n"
           "and prints a line\n\n", reps, BENCH_MODULE_DIR);

  /* Alternately, so that both see the same machine. */
  hello = time_process (hello_argv, env, 1);
  registry = time_process (registry_argv, env, 1);
  for (guint r = 1; r < reps && hello > 0 && registry > 0; r++)
    {
      hello = MIN (hello, time_process (hello_argv, env, 1));
      registry = MIN (registry, time_process (registry_argv, env, 1));
    }
  if (hello <= 0 || registry <= 0)
    return;

  ratio = (double) registry / hello;
  g_print ("%18s %10s %10s %9s\n", "GIO hello world", "registry", "ratio", "bound");
  g_print ("%18.3f %10.3f %9.2fx %9s\n", hello / 1e6, registry / 1e6, ratio,
           ratio <= 1.5 ? "<=1.5x PASS" : "<=1.5x MISS");
}

static gboolean
wanted (const char *part)
{
  g_auto(GStrv) parts = NULL;

  if (only == NULL)
    return TRUE;
  parts = g_strsplit (only, ",", -1);
  return g_strv_contains ((const char * const *) parts, part);
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *loadavg = NULL;
  gboolean child = FALSE;
  gboolean lookup_child = FALSE;
  gboolean process_child = FALSE;
  const GOptionEntry entries[] = {
    { "quick", 'q', 0, G_OPTION_ARG_NONE, &quick, "Fewer repetitions", NULL },
    { "keep", 0, 0, G_OPTION_ARG_NONE, &keep_files, "Keep the generated manifests", NULL },
    { "only", 0, 0, G_OPTION_ARG_STRING, &only,
      "Run only these parts (comma-separated: lookup, threads, list, discovery, first-lookup, process)",
      "PARTS" },
    { "child", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &child, "One discovery (internal)", NULL },
    { "lookup-child", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &lookup_child,
      "One first lookup (internal)", NULL },
    { "process-child", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &process_child,
      "The whole process (internal)", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- the registry against its floors");
  g_autoptr(GError) error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("registry: %s\n", error->message);
      return 2;
    }

  if (child)
    {
      if (argc != 4)
        return 2;
      return child_main (argv[1], argv[2], (guint) g_ascii_strtoull (argv[3], NULL, 10));
    }

  if (lookup_child)
    return argc == 4 ? lookup_child_main (argv[1], argv[2], argv[3]) : 2;

  if (process_child)
    return process_child_main ();

  /* Runtime backends only: no discovery of the built modules meddles. */
  g_setenv ("REG_BACKEND_PATH", "", TRUE);
  g_setenv ("REG_BACKEND_SYSTEM_DIR", "", TRUE);

  if (g_file_get_contents ("/proc/loadavg", &loadavg, NULL, NULL))
    g_print ("registry benchmark: %u processors, load average %s", g_get_num_processors (), loadavg);
  g_print ("(a busy machine lowers the 2-thread figures most; rerun when it is idle)\n");

  if (wanted ("lookup"))
    bench_lookup ();
  if (wanted ("threads"))
    bench_threads ();
  if (wanted ("list"))
    bench_list ();
  if (wanted ("discovery"))
    bench_discovery ();
  if (wanted ("first-lookup"))
    bench_first_lookup ();
  if (wanted ("process"))
    bench_process ();

  return 0;
}
