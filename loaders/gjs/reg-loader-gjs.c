/* reg-loader-gjs.c: the loader of backends written in JavaScript
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libreg opens this module (libreg-loader-gjs.so) the first time a
 * backend of a Loader=gjs manifest is looked up; see
 * libreg/reg-language-loader.c for the manifest.
 *
 * The context.  A context's JavaScript runs in the thread that made it,
 * and only there: every load, make, compile and call of a JavaScript
 * backend happens in that thread.  In a GJS program the loader uses the
 * program's context (gjs_context_get_current ()), whose thread is the
 * program's main thread: from another thread, a lookup that would load, a
 * compile and a call fail with an error saying so (that thread may be
 * waiting for this one), and reg_registry_compile_async () and
 * reg_compiled_fn_call_async () send the work to the default main
 * context.  In any other program the loader makes a context in a thread
 * of its own, which runs its main context for the rest of the process;
 * work from other threads is run there, the caller waiting for it (that
 * thread waits for nobody).  The tables here are touched in that thread
 * only.
 *
 * The import.  GJS's C API imports an ES module only by evaluating it, and
 * hands nothing back.  So the loader imports the module with
 * SpiderMonkey's API and GJS's own module loader, synchronously
 * (reg-loader-gjs-engine.cc), from JavaScript that runs in the thread:
 * the code that looked the backend up, or else a one-line script that
 * makes a RegGjsImporter, whose construction imports.  A script of the
 * loader (handoff.js, a resource) then receives the module's namespace
 * and hands the loader a RegGjsHandoff, a GObject type defined here:
 * JavaScript connects to its "make" signal a function that makes a
 * backend's object from the module's exports.  make () emits it.
 *
 * The compilers made are JavaScript objects, which only that thread may
 * call: the registry gets a proxy (RegGjsCompiler, and RegGjsFn for the
 * compiled functions that are JavaScript too) that checks the thread and
 * marshals asynchronous work.
 */

#include <pthread.h>
#include <string.h>

#include <gjs/gjs.h>
#include <reg.h>

#include "reg-language-loader-private.h"
#include "reg-loader-gjs-engine.h"

#define LOADER_ERROR(error, ...) \
  g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED, __VA_ARGS__)

/* What makes JavaScript run where none does, so that the import runs
 * from it (see RegGjsImporter). */
#define IMPORTER_SCRIPT \
  "imports.gi.GObject.Object.new_with_properties(" \
  "imports.gi.GObject.type_from_name('RegGjsImporter'), [], []);"

#define WRONG_THREAD \
  "in a gjs program, a backend written in JavaScript runs in the thread of the program's " \
  "GJS context only (its main thread)"

/* The context and the thread */

static pthread_mutex_t context_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t context_made = PTHREAD_COND_INITIALIZER;
static GjsContext *context;        /* set once, under context_lock */
static GMainContext *js_main;      /* the main context of the context's thread */
static gboolean own_thread;        /* that thread is the loader's */

static gboolean
on_js_thread (void)
{
  return reg_gjs_engine_is_own_thread (context);
}

/* The loader's thread, in a program that runs no GJS of its own: it makes
 * the context, then runs its main context for the rest of the process. */
static gpointer
run_js_thread (gpointer data)
{
  GMainContext *main_context = g_main_context_new ();
  GMainLoop *loop = g_main_loop_new (main_context, FALSE);

  /* GJS runs its promise jobs in the thread-default main context of the
   * thread that makes it. */
  g_main_context_push_thread_default (main_context);

  if (pthread_mutex_lock (&context_lock) != 0)
    g_assert_not_reached ();
  context = gjs_context_new ();
  js_main = main_context;
  pthread_cond_broadcast (&context_made);
  if (pthread_mutex_unlock (&context_lock) != 0)
    g_assert_not_reached ();

  g_main_loop_run (loop);
  g_assert_not_reached ();
  return NULL;
}

static void
ensure_context (void)
{
  if (pthread_mutex_lock (&context_lock) != 0)
    g_assert_not_reached ();
  if (context == NULL && gjs_context_get_current () != NULL)
    {
      /* A GJS program's context, which runs in its main context. */
      context = g_object_ref (gjs_context_get_current ());
      js_main = g_main_context_ref (g_main_context_default ());
    }
  else if (context == NULL)
    {
      own_thread = TRUE;
      g_thread_unref (g_thread_new ("reg-gjs", run_js_thread, NULL));
      while (context == NULL)
        pthread_cond_wait (&context_made, &context_lock);
    }
  if (pthread_mutex_unlock (&context_lock) != 0)
    g_assert_not_reached ();
}

typedef struct
{
  void            (*func) (gpointer data);
  gpointer          data;
  pthread_mutex_t   lock;
  pthread_cond_t    cond;
  gboolean          done;
} Call;

static gboolean
run_call (gpointer data)
{
  Call *call = data;

  call->func (call->data);
  if (pthread_mutex_lock (&call->lock) != 0)
    g_assert_not_reached ();
  call->done = TRUE;
  pthread_cond_signal (&call->cond);
  if (pthread_mutex_unlock (&call->lock) != 0)
    g_assert_not_reached ();

  return G_SOURCE_REMOVE;
}

/* Runs @func in the context's thread: here when this is that thread; in
 * the loader's own thread, waiting for it (that thread waits for nobody,
 * so this cannot deadlock); else not at all, FALSE: a GJS program's
 * thread runs its own code, which may be waiting for this thread. */
static gboolean
run_in_js_thread (void     (*func) (gpointer data),
                  gpointer   data)
{
  Call call = { func, data, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, FALSE };

  ensure_context ();
  if (on_js_thread ())
    {
      func (data);
      return TRUE;
    }
  if (!own_thread)
    return FALSE;

  g_main_context_invoke (js_main, run_call, &call);
  if (pthread_mutex_lock (&call.lock) != 0)
    g_assert_not_reached ();
  while (!call.done)
    pthread_cond_wait (&call.cond, &call.lock);
  if (pthread_mutex_unlock (&call.lock) != 0)
    g_assert_not_reached ();

  return TRUE;
}

/* The handoff */

/* One import the loader asked for, innermost first (an import may look
 * up another JavaScript backend). */
typedef struct
{
  const char *uri;
  gboolean    imported;  /* the import ran */
  gboolean    compiled;  /* GJS keeps the module: see load () */
  char       *error;     /* what it threw */
  GObject    *handoff;   /* the one handoff.js made */
} Request;

static GSList *requests;

#define REG_TYPE_GJS_HANDOFF (reg_gjs_handoff_get_type ())
G_DECLARE_FINAL_TYPE (RegGjsHandoff, reg_gjs_handoff, REG, GJS_HANDOFF, GObject)

struct _RegGjsHandoff
{
  GObject   parent_instance;

  char     *uri;
  gboolean  ready;
  char     *error;  /* what the last make threw */
};

G_DEFINE_FINAL_TYPE (RegGjsHandoff, reg_gjs_handoff, G_TYPE_OBJECT)

enum {
  HANDOFF_PROP_0,
  HANDOFF_PROP_READY,
  HANDOFF_PROP_ERROR,
};

static guint make_signal;

static void
reg_gjs_handoff_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  RegGjsHandoff *self = REG_GJS_HANDOFF (object);

  switch (prop_id)
    {
    case HANDOFF_PROP_ERROR:
      g_value_set_string (value, self->error);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reg_gjs_handoff_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  RegGjsHandoff *self = REG_GJS_HANDOFF (object);

  switch (prop_id)
    {
    case HANDOFF_PROP_READY:
      self->ready = g_value_get_boolean (value);
      break;
    case HANDOFF_PROP_ERROR:
      g_free (self->error);
      self->error = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reg_gjs_handoff_finalize (GObject *object)
{
  RegGjsHandoff *self = REG_GJS_HANDOFF (object);

  g_free (self->uri);
  g_free (self->error);

  G_OBJECT_CLASS (reg_gjs_handoff_parent_class)->finalize (object);
}

static void
reg_gjs_handoff_class_init (RegGjsHandoffClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_STATIC_STRINGS;

  object_class->get_property = reg_gjs_handoff_get_property;
  object_class->set_property = reg_gjs_handoff_set_property;
  object_class->finalize = reg_gjs_handoff_finalize;

  g_object_class_install_property (object_class, HANDOFF_PROP_READY,
    g_param_spec_boolean ("ready", NULL, NULL, FALSE, flags | G_PARAM_WRITABLE));
  g_object_class_install_property (object_class, HANDOFF_PROP_ERROR,
    g_param_spec_string ("error", NULL, NULL, NULL, flags | G_PARAM_READWRITE));

  /* (entry) -> the object made, or NULL with error set. */
  make_signal = g_signal_new ("make", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                              NULL, NULL, NULL, G_TYPE_OBJECT, 1, G_TYPE_STRING);
}

static void
reg_gjs_handoff_init (RegGjsHandoff *self)
{
  Request *request = requests != NULL ? requests->data : NULL;

  /* Made by handoff.js for the innermost request; one made otherwise (by
   * other JavaScript) belongs to no request, and is never ready. */
  if (request != NULL && request->handoff == NULL)
    {
      self->uri = g_strdup (request->uri);
      request->handoff = g_object_ref (G_OBJECT (self));
    }
}

/* The import of the innermost request, run where JavaScript runs. */
static void
import_request (void)
{
  Request *request = requests->data;

  request->imported = TRUE;
  reg_gjs_engine_import (context, request->uri, &request->error, &request->compiled);
}

/* Made by IMPORTER_SCRIPT, to import from JavaScript. */
#define REG_TYPE_GJS_IMPORTER (reg_gjs_importer_get_type ())
G_DECLARE_FINAL_TYPE (RegGjsImporter, reg_gjs_importer, REG, GJS_IMPORTER, GObject)

struct _RegGjsImporter
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (RegGjsImporter, reg_gjs_importer, G_TYPE_OBJECT)

static void
reg_gjs_importer_class_init (RegGjsImporterClass *klass)
{
}

static void
reg_gjs_importer_init (RegGjsImporter *self)
{
  Request *request = requests != NULL ? requests->data : NULL;

  if (request != NULL && !request->imported)
    import_request ();
}

/* What a load gives: the handoff of an imported module, by its URI; the
 * URIs of the modules whose evaluation threw, which the next import
 * compiles afresh (GJS keeps a module that threw, and would throw the
 * same again). */
static GHashTable *sources;
static GHashTable *failed;

static GObject *
load_here (const char  *dir,
           const char  *source,
           GError     **error)
{
  g_autofree char *path = g_build_filename (dir, source, NULL);
  g_autofree char *uri = g_filename_to_uri (path, NULL, error);
  g_autoptr(GError) local_error = NULL;
  RegGjsHandoff *handoff;
  Request request = { NULL, };
  int status = 0;

  if (uri == NULL)
    return NULL;

  if (sources == NULL)
    {
      sources = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
      failed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    }

  handoff = g_hash_table_lookup (sources, uri);
  if (handoff != NULL)
    return G_OBJECT (handoff);

  /* The import of the module looks it up again.  (libreg tells this from
   * the thread that asked, but the import runs in the context's thread,
   * which may be another.) */
  for (GSList *l = requests; l != NULL; l = l->next)
    if (g_str_equal (((Request *) l->data)->uri, uri))
      {
        LOADER_ERROR (error, "it was looked up while its code (%s, Loader=gjs) was being "
                      "imported, by that import: a backend exists only once its code is "
                      "imported. Look it up after the import.", source);
        return NULL;
      }

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      LOADER_ERROR (error, "the JavaScript module %s does not exist (Import=%s names a file "
                    "beside the manifest)", path, source);
      return NULL;
    }

  /* A module that was compiled, and failed, stays in GJS's registry with
   * its failure: compiled afresh under its URI, which the import finds
   * first.  One that did not compile was never kept. */
  if (g_hash_table_contains (failed, uri) &&
      !gjs_context_register_module (context, uri, uri, &local_error))
    {
      LOADER_ERROR (error, "the JavaScript module %s cannot be imported: %s", path,
                    local_error->message);
      return NULL;
    }

  /* handoff.js finds the types by their names. */
  g_type_ensure (REG_TYPE_GJS_HANDOFF);
  g_type_ensure (REG_TYPE_GJS_IMPORTER);
  request.uri = uri;
  requests = g_slist_prepend (requests, &request);
  if (reg_gjs_engine_is_running (context))
    import_request ();
  else if (!gjs_context_eval (context, IMPORTER_SCRIPT, -1, "reg-loader-gjs", &status,
                              &local_error))
    g_debug ("the loader's script failed: %s", local_error->message);
  requests = g_slist_remove (requests, &request);
  handoff = (RegGjsHandoff *) request.handoff;

  /* Kept for the life of the process, as libreg keeps what it loaded. */
  if (request.imported && request.error == NULL && handoff != NULL && handoff->ready)
    {
      g_hash_table_remove (failed, uri);
      /* Its URI until now, the module's path from here on. */
      g_free (handoff->uri);
      handoff->uri = g_strdup (path);
      g_hash_table_insert (sources, g_strdup (uri), handoff);
      return G_OBJECT (handoff);
    }

  if (request.compiled)
    g_hash_table_add (failed, g_strdup (uri));
  LOADER_ERROR (error, "the JavaScript module %s cannot be imported: %s", path,
                request.error != NULL ? request.error
                : local_error != NULL ? local_error->message
                : "it gave the loader nothing");
  g_free (request.error);
  g_clear_object (&handoff);
  return NULL;
}

typedef struct
{
  const char  *dir;
  const char  *source;
  GError     **error;
  GObject     *loaded;
} LoadCall;

static void
load_call (gpointer data)
{
  LoadCall *call = data;

  call->loaded = load_here (call->dir, call->source, call->error);
}

static GObject *
load (const char  *dir,
      const char  *source,
      GError     **error)
{
  LoadCall call = { dir, source, error, NULL };

  if (!run_in_js_thread (load_call, &call))
    {
      LOADER_ERROR (error, "it cannot be loaded from this thread: " WRONG_THREAD ". Look it "
                    "up from that thread first.");
      return NULL;
    }

  return call.loaded;
}

/* The proxies */

/* Whether @object's class is defined in JavaScript (GJS marks its types):
 * its methods may run in the context's thread only. */
static gboolean
is_javascript (gpointer object)
{
  GQuark quark = g_quark_try_string ("gjs::custom-type");

  return quark != 0 && g_type_get_qdata (G_OBJECT_TYPE (object), quark) != NULL;
}

#define REG_TYPE_GJS_COMPILER (reg_gjs_compiler_get_type ())
G_DECLARE_FINAL_TYPE (RegGjsCompiler, reg_gjs_compiler, REG, GJS_COMPILER, GObject)

#define REG_TYPE_GJS_FN (reg_gjs_fn_get_type ())
G_DECLARE_FINAL_TYPE (RegGjsFn, reg_gjs_fn, REG, GJS_FN, GObject)

struct _RegGjsCompiler
{
  GObject           parent_instance;

  RegCompiler      *inner;    /* the JavaScript object */
  char             *name;     /* what it says of itself, asked in its thread */
  RegCompilerFlags  flags;
  GListModel       *options;
};

struct _RegGjsFn
{
  GObject        parent_instance;

  RegCompiledFn *inner;
  char          *backend;
};

static void reg_gjs_compiler_iface_init (RegCompilerInterface *iface);
static void reg_gjs_fn_iface_init (RegCompiledFnInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (RegGjsCompiler, reg_gjs_compiler, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILER, reg_gjs_compiler_iface_init))
G_DEFINE_FINAL_TYPE_WITH_CODE (RegGjsFn, reg_gjs_fn, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILED_FN, reg_gjs_fn_iface_init))

/* The JavaScript objects are released in their thread: the last
 * reference to a proxy may go in any. */
static gboolean
unref_in_js_thread (gpointer data)
{
  g_object_unref (data);
  return G_SOURCE_REMOVE;
}

static void
release_inner (gpointer inner)
{
  if (inner == NULL)
    return;
  if (on_js_thread ())
    g_object_unref (inner);
  else
    g_main_context_invoke (js_main, unref_in_js_thread, inner);
}

static void
reg_gjs_compiler_finalize (GObject *object)
{
  RegGjsCompiler *self = REG_GJS_COMPILER (object);

  release_inner (self->inner);
  g_free (self->name);
  g_clear_object (&self->options);

  G_OBJECT_CLASS (reg_gjs_compiler_parent_class)->finalize (object);
}

static void
reg_gjs_compiler_class_init (RegGjsCompilerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = reg_gjs_compiler_finalize;
}

static void
reg_gjs_compiler_init (RegGjsCompiler *self)
{
}

static void
reg_gjs_fn_finalize (GObject *object)
{
  RegGjsFn *self = REG_GJS_FN (object);

  release_inner (self->inner);
  g_free (self->backend);

  G_OBJECT_CLASS (reg_gjs_fn_parent_class)->finalize (object);
}

static void
reg_gjs_fn_class_init (RegGjsFnClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = reg_gjs_fn_finalize;
}

static void
reg_gjs_fn_init (RegGjsFn *self)
{
}

static void
set_wrong_thread_error (GError     **error,
                        const char  *backend,
                        const char  *doing)
{
  g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED,
               "backend '%s' cannot %s from this thread: " WRONG_THREAD ". Do it from that "
               "thread, or asynchronously (reg_registry_compile_async(), "
               "reg_compiled_fn_call_async()), which runs it there.", backend, doing);
}

/* The compile, in the context's thread. */
static RegCompiledFn *
compile_here (RegGjsCompiler  *self,
              RegGraph        *graph,
              GPtrArray       *example_inputs,
              GVariant        *options,
              GError         **error)
{
  RegCompiledFn *fn = reg_compiler_compile (self->inner, graph, example_inputs, options, error);
  RegGjsFn *proxy;

  if (fn == NULL || !is_javascript (fn))
    return fn;

  proxy = g_object_new (REG_TYPE_GJS_FN, NULL);
  proxy->inner = fn;
  proxy->backend = g_strdup (self->name);
  return REG_COMPILED_FN (proxy);
}

typedef struct
{
  RegGjsCompiler  *self;
  RegGraph        *graph;
  GPtrArray       *inputs;
  GVariant        *options;
  GError         **error;
  RegCompiledFn   *fn;
} CompileCall;

static void
compile_call (gpointer data)
{
  CompileCall *call = data;

  call->fn = compile_here (call->self, call->graph, call->inputs, call->options, call->error);
}

static RegCompiledFn *
reg_gjs_compiler_compile (RegCompiler  *compiler,
                          RegGraph     *graph,
                          GPtrArray    *example_inputs,
                          GVariant     *options,
                          GError      **error)
{
  RegGjsCompiler *self = REG_GJS_COMPILER (compiler);
  CompileCall call = { self, graph, example_inputs, options, error, NULL };

  if (!run_in_js_thread (compile_call, &call))
    set_wrong_thread_error (error, self->name, "compile");

  return call.fn;
}

/* Asynchronous work, sent to the context's thread */

typedef struct
{
  GTask      *task;
  RegGraph   *graph;
  GPtrArray  *inputs;
  GVariant   *options;
} Job;

static void
job_free (gpointer data)
{
  Job *job = data;

  g_object_unref (job->task);
  g_clear_object (&job->graph);
  g_ptr_array_unref (job->inputs);
  g_clear_pointer (&job->options, g_variant_unref);
  g_free (job);
}

static void
send_job (gpointer        source,
          GPtrArray      *inputs,
          RegGraph       *graph,
          GVariant       *options,
          GCancellable   *cancellable,
          GAsyncReadyCallback callback,
          gpointer        user_data,
          GSourceFunc     run)
{
  Job *job = g_new0 (Job, 1);

  /* The task returns to the caller's context, from the context's thread. */
  job->task = g_task_new (source, cancellable, callback, user_data);
  job->graph = graph != NULL ? g_object_ref (graph) : NULL;
  job->inputs = g_ptr_array_ref (inputs);
  job->options = options != NULL ? g_variant_ref (options) : NULL;

  /* From the context's thread, in the caller's main context, as libreg
   * runs any JavaScript class's work; from another, in the context's. */
  if (on_js_thread ())
    {
      g_autoptr(GSource) idle = g_idle_source_new ();

      g_source_set_callback (idle, run, job, job_free);
      g_source_attach (idle, g_main_context_get_thread_default ());
    }
  else
    g_main_context_invoke_full (js_main, G_PRIORITY_DEFAULT, run, job, job_free);
}

static gboolean
run_compile_job (gpointer data)
{
  Job *job = data;
  RegGjsCompiler *self = g_task_get_source_object (job->task);
  GError *error = NULL;
  RegCompiledFn *fn;

  if (g_task_return_error_if_cancelled (job->task))
    return G_SOURCE_REMOVE;

  fn = compile_here (self, job->graph, job->inputs, job->options, &error);
  if (fn != NULL)
    g_task_return_pointer (job->task, fn, g_object_unref);
  else
    g_task_return_error (job->task, error);

  return G_SOURCE_REMOVE;
}

static void
reg_gjs_compiler_compile_async (RegCompiler         *compiler,
                                RegGraph            *graph,
                                GPtrArray           *example_inputs,
                                GVariant            *options,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  send_job (compiler, example_inputs, graph, options, cancellable, callback, user_data,
            run_compile_job);
}

static RegCompiledFn *
reg_gjs_compiler_compile_finish (RegCompiler   *compiler,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static char *
reg_gjs_compiler_dup_name (RegCompiler *compiler)
{
  return g_strdup (REG_GJS_COMPILER (compiler)->name);
}

static RegCompilerFlags
reg_gjs_compiler_get_flags (RegCompiler *compiler)
{
  return REG_GJS_COMPILER (compiler)->flags;
}

static GListModel *
reg_gjs_compiler_dup_options (RegCompiler *compiler)
{
  RegGjsCompiler *self = REG_GJS_COMPILER (compiler);

  return self->options != NULL ? g_object_ref (self->options) : NULL;
}

static void
reg_gjs_compiler_iface_init (RegCompilerInterface *iface)
{
  iface->compile = reg_gjs_compiler_compile;
  iface->compile_async = reg_gjs_compiler_compile_async;
  iface->compile_finish = reg_gjs_compiler_compile_finish;
  iface->dup_name = reg_gjs_compiler_dup_name;
  iface->get_flags = reg_gjs_compiler_get_flags;
  iface->dup_options = reg_gjs_compiler_dup_options;
}

typedef struct
{
  RegGjsFn     *self;
  GPtrArray    *inputs;
  GError      **error;
  GListModel   *outputs;
} RunCall;

static void
run_call_here (gpointer data)
{
  RunCall *call = data;

  /* The caller (reg_compiled_fn_call ()) checks the inputs before and the
   * outputs after. */
  call->outputs = REG_COMPILED_FN_GET_IFACE (call->self->inner)->run (call->self->inner,
                                                                      call->inputs, call->error);
}

static GListModel *
reg_gjs_fn_run (RegCompiledFn  *fn,
                GPtrArray      *inputs,
                GError        **error)
{
  RegGjsFn *self = REG_GJS_FN (fn);
  RunCall call = { self, inputs, error, NULL };

  if (!run_in_js_thread (run_call_here, &call))
    set_wrong_thread_error (error, self->backend, "call its compiled function");

  return call.outputs;
}

static gboolean
run_call_job (gpointer data)
{
  Job *job = data;
  RegGjsFn *self = g_task_get_source_object (job->task);
  GError *error = NULL;
  GListModel *outputs;

  if (g_task_return_error_if_cancelled (job->task))
    return G_SOURCE_REMOVE;

  outputs = REG_COMPILED_FN_GET_IFACE (self->inner)->run (self->inner, job->inputs, &error);
  if (outputs != NULL)
    g_task_return_pointer (job->task, outputs, g_object_unref);
  else if (error != NULL)
    g_task_return_error (job->task, error);
  else
    g_task_return_pointer (job->task, NULL, NULL);

  return G_SOURCE_REMOVE;
}

static void
reg_gjs_fn_run_async (RegCompiledFn       *fn,
                      GPtrArray           *inputs,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  send_job (fn, inputs, NULL, NULL, cancellable, callback, user_data, run_call_job);
}

static GListModel *
reg_gjs_fn_run_finish (RegCompiledFn  *fn,
                       GAsyncResult   *result,
                       GError        **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
reg_gjs_fn_iface_init (RegCompiledFnInterface *iface)
{
  iface->run = reg_gjs_fn_run;
  iface->run_async = reg_gjs_fn_run_async;
  iface->run_finish = reg_gjs_fn_run_finish;
}

/* Making a backend's compiler */

static RegCompiler *
make_here (GObject     *loaded,
           const char  *entry,
           GError     **error)
{
  RegGjsHandoff *handoff = REG_GJS_HANDOFF (loaded);
  g_autoptr(GObject) made = NULL;
  RegGjsCompiler *proxy;
  GListModel *options;

  g_clear_pointer (&handoff->error, g_free);
  g_signal_emit (handoff, make_signal, 0, entry, &made);

  if (made == NULL)
    {
      LOADER_ERROR (error, "the JavaScript module %s cannot make %s: %s", handoff->uri, entry,
                    handoff->error != NULL ? handoff->error : "its function returned nothing");
      return NULL;
    }
  if (!REG_IS_COMPILER (made))
    {
      LOADER_ERROR (error, "the JavaScript module %s cannot make %s: it gave a %s, which "
                    "does not implement Reg.Compiler", handoff->uri, entry,
                    G_OBJECT_TYPE_NAME (made));
      return NULL;
    }
  if (!is_javascript (made))
    return REG_COMPILER (g_steal_pointer (&made));

  /* What it says of itself is asked now, in its thread: the registry
   * asks from any. */
  proxy = g_object_new (REG_TYPE_GJS_COMPILER, NULL);
  proxy->inner = REG_COMPILER (g_steal_pointer (&made));
  proxy->name = g_strdup (reg_compiler_get_name (proxy->inner));
  proxy->flags = reg_compiler_get_flags (proxy->inner);
  options = reg_compiler_get_options (proxy->inner);
  proxy->options = options != NULL ? g_object_ref (options) : NULL;

  return REG_COMPILER (proxy);
}

typedef struct
{
  GObject      *loaded;
  const char   *entry;
  GError      **error;
  RegCompiler  *compiler;
} MakeCall;

static void
make_call (gpointer data)
{
  MakeCall *call = data;

  call->compiler = make_here (call->loaded, call->entry, call->error);
}

static RegCompiler *
make (GObject     *loaded,
      const char  *name,
      const char  *entry,
      GError     **error)
{
  MakeCall call = { loaded, entry, error, NULL };

  if (!run_in_js_thread (make_call, &call))
    LOADER_ERROR (error, "it cannot be made from this thread: " WRONG_THREAD ".");

  return call.compiler;
}

static const RegLoader gjs_loader = {
  .name = "gjs",
  .load = load,
  .make = make,
};

G_MODULE_EXPORT const RegLoaderModule reg_loader_module = {
  REG_VERSION_S,
  &gjs_loader,
};
