/* reg-loader-python.c: the loader of backends written in Python
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libreg opens this module (libreg-loader-python.so) the first time a
 * backend of a Loader=python manifest is looked up or checked; see
 * libreg/reg-language-loader.c for the manifest.  It links no libpython:
 *
 *  - in a process that runs Python already (a PyGObject application,
 *    /usr/bin/python3, whose libpython is linked in statically and exports
 *    its symbols), it uses that interpreter, through the symbols the
 *    process has (dlsym (RTLD_DEFAULT)), after checking that its version
 *    is the one this module was built for: two libpythons in one process
 *    would be two interpreters sharing one set of C extensions;
 *  - elsewhere it opens the libpython this module was built for
 *    (REG_LIBPYTHON, RTLD_GLOBAL so that C extensions find it) and starts
 *    an interpreter configured to leave the process alone: no signal
 *    handlers, no locale or standard stream changes, no command line.  It
 *    is never finalized: extension modules do not survive it, and
 *    compilers made of Python objects outlive any one lookup.
 *
 * Python.h is included for types and macros that use no symbol; every
 * function of the C API used is called through `py`, resolved at run
 * time.  Every call into Python holds the interpreter lock
 * (PyGILState_Ensure), which also guards this module's tables; libreg
 * calls load() and make() with none of its own locks held.  Nothing of
 * the host interpreter is changed but the modules imported: gi,
 * gi.repository.GObject and Reg, and the backend's module.
 */

#define PY_SSIZE_T_CLEAN
#define NO_IMPORT_PYGOBJECT
#include <Python.h>
#include <pygobject.h>

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <reg.h>

#include "reg-language-loader-private.h"

#define LOADER_ERROR(error, ...) \
  g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED, __VA_ARGS__)

/* The frames of a traceback shown in an error, the innermost ones. */
#define TRACEBACK_FRAMES 12

/* The C API, resolved at run time */

static struct
{
  int               (*Py_IsInitialized) (void);
  const char       *(*Py_GetVersion) (void);
  PyStatus          (*Py_PreInitialize) (const PyPreConfig *);
  void              (*PyPreConfig_InitPythonConfig) (PyPreConfig *);
  void              (*PyConfig_InitPythonConfig) (PyConfig *);
  PyStatus          (*Py_InitializeFromConfig) (const PyConfig *);
  void              (*PyConfig_Clear) (PyConfig *);
  PyStatus          (*PyConfig_SetBytesString) (PyConfig *, wchar_t **, const char *);
  int               (*PyStatus_Exception) (PyStatus);
  PyThreadState    *(*PyEval_SaveThread) (void);
  PyGILState_STATE  (*PyGILState_Ensure) (void);
  void              (*PyGILState_Release) (PyGILState_STATE);
  void              (*Py_IncRef) (PyObject *);
  void              (*Py_DecRef) (PyObject *);
  PyObject         *(*PyImport_ImportModule) (const char *);
  PyObject         *(*PyObject_GetAttrString) (PyObject *, const char *);
  PyObject         *(*PyObject_CallNoArgs) (PyObject *);
  PyObject         *(*PyObject_CallFunctionObjArgs) (PyObject *, ...);
  PyObject         *(*PyObject_Str) (PyObject *);
  int               (*PyObject_IsInstance) (PyObject *, PyObject *);
  int               (*PyObject_IsSubclass) (PyObject *, PyObject *);
  int               (*PyCallable_Check) (PyObject *);
  const char       *(*PyUnicode_AsUTF8) (PyObject *);
  PyObject         *(*PyUnicode_FromString) (const char *);
  Py_ssize_t        (*PySequence_Size) (PyObject *);
  PyObject         *(*PySequence_GetItem) (PyObject *, Py_ssize_t);
  long              (*PyLong_AsLong) (PyObject *);
  PyObject         *(*PyErr_Occurred) (void);
  void              (*PyErr_Fetch) (PyObject **, PyObject **, PyObject **);
  void              (*PyErr_NormalizeException) (PyObject **, PyObject **, PyObject **);
  void              (*PyErr_Clear) (void);
  int               (*PyException_SetTraceback) (PyObject *, PyObject *);
  PyObject         *(*PyDict_New) (void);
  PyObject         *(*PyDict_GetItemString) (PyObject *, const char *);
  PyObject         *(*PyRun_StringFlags) (const char *, int, PyObject *, PyObject *,
                                          PyCompilerFlags *);
} py;

static const struct
{
  const char *name;
  gsize       offset;
} py_symbols[] = {
#define SYMBOL(name) { #name, G_STRUCT_OFFSET (__typeof__ (py), name) }
  SYMBOL (Py_IsInitialized), SYMBOL (Py_GetVersion), SYMBOL (Py_PreInitialize),
  SYMBOL (PyPreConfig_InitPythonConfig), SYMBOL (PyConfig_InitPythonConfig),
  SYMBOL (Py_InitializeFromConfig), SYMBOL (PyConfig_Clear), SYMBOL (PyStatus_Exception),
  SYMBOL (PyConfig_SetBytesString),
  SYMBOL (PyEval_SaveThread), SYMBOL (PyGILState_Ensure), SYMBOL (PyGILState_Release),
  SYMBOL (Py_IncRef), SYMBOL (Py_DecRef), SYMBOL (PyImport_ImportModule),
  SYMBOL (PyObject_GetAttrString), SYMBOL (PyObject_CallNoArgs),
  SYMBOL (PyObject_CallFunctionObjArgs), SYMBOL (PyObject_Str), SYMBOL (PyObject_IsInstance),
  SYMBOL (PyObject_IsSubclass), SYMBOL (PyCallable_Check), SYMBOL (PyUnicode_AsUTF8),
  SYMBOL (PyUnicode_FromString), SYMBOL (PySequence_Size), SYMBOL (PySequence_GetItem),
  SYMBOL (PyLong_AsLong), SYMBOL (PyErr_Occurred), SYMBOL (PyErr_Fetch),
  SYMBOL (PyErr_NormalizeException), SYMBOL (PyErr_Clear), SYMBOL (PyException_SetTraceback),
  SYMBOL (PyDict_New), SYMBOL (PyDict_GetItemString), SYMBOL (PyRun_StringFlags),
#undef SYMBOL
};

#define LOADER_PYTHON G_STRINGIFY (PY_MAJOR_VERSION) "." G_STRINGIFY (PY_MINOR_VERSION)

static void
decref (PyObject *object)
{
  if (object != NULL)
    py.Py_DecRef (object);
}

/* Resolves every symbol of `py` in @handle (RTLD_DEFAULT: the process's). */
static gboolean
resolve (void        *handle,
         const char  *where,
         GError     **error)
{
  for (gsize i = 0; i < G_N_ELEMENTS (py_symbols); i++)
    {
      void *symbol = dlsym (handle, py_symbols[i].name);

      if (symbol == NULL)
        {
          LOADER_ERROR (error, "the Python loader cannot use %s: it has no %s", where,
                        py_symbols[i].name);
          return FALSE;
        }
      G_STRUCT_MEMBER (void *, &py, py_symbols[i].offset) = symbol;
    }

  return TRUE;
}

/* Whether the interpreter of the process is the Python this loader was
 * built for (its major and minor version: their ABI). */
static gboolean
check_version (const char  *where,
               GError     **error)
{
  const char *(*get_version) (void) = (const char *(*) (void)) dlsym (RTLD_DEFAULT, "Py_GetVersion");
  const char *version = get_version != NULL ? get_version () : NULL;
  int major = 0, minor = 0;

  if (version == NULL || sscanf (version, "%d.%d", &major, &minor) != 2 ||
      major != PY_MAJOR_VERSION || minor != PY_MINOR_VERSION)
    {
      g_autofree char *shown = version != NULL ? g_strndup (version, strcspn (version, " "))
                                               : g_strdup ("of an unknown version");

      LOADER_ERROR (error, "%s runs Python %s, and the Python loader is built for "
                    "Python " LOADER_PYTHON ": a backend written in Python runs in a "
                    "program whose Python is the loader's (or in a program without "
                    "Python, which starts it). Rebuild libreg against this Python.",
                    where, shown);
      return FALSE;
    }

  return TRUE;
}

/* Puts back the dispositions of the signals that changed since @saved. */
static void
restore_signals (const struct sigaction *saved)
{
  for (int signum = 1; signum < NSIG; signum++)
    {
      struct sigaction now;

      if (signum == SIGKILL || signum == SIGSTOP || sigaction (signum, NULL, &now) != 0)
        continue;
      if (now.sa_handler != saved[signum].sa_handler || now.sa_flags != saved[signum].sa_flags)
        sigaction (signum, &saved[signum], NULL);
    }
}

/* Starts the interpreter of the libpython just opened. */
static gboolean
start_interpreter (GError **error)
{
  struct sigaction saved[NSIG];
  PyPreConfig preconfig;
  PyConfig config;
  PyStatus status;
  PyObject *signal_module;

  for (int signum = 1; signum < NSIG; signum++)
    sigaction (signum, NULL, &saved[signum]);

  /* The process's locale and its standard streams are the host's. */
  py.PyPreConfig_InitPythonConfig (&preconfig);
  preconfig.configure_locale = 0;
  preconfig.coerce_c_locale = 0;
  preconfig.coerce_c_locale_warn = 0;
  preconfig.parse_argv = 0;
  status = py.Py_PreInitialize (&preconfig);
  if (py.PyStatus_Exception (status))
    {
      LOADER_ERROR (error, "the Python interpreter cannot be started: %s",
                    status.err_msg != NULL ? status.err_msg : "an unknown error");
      return FALSE;
    }

  /* The environment (PYTHONPATH, PYTHONHOME...) applies: it is where the
   * user says the modules are.  Without PYTHONHOME the prefix is that of
   * the Python the loader is built for, named in full: Python looks a
   * bare program name up in PATH, which would make it whichever python3
   * (a virtual environment's, another installation's) comes first.  No
   * signal handler: the host's signals are its own. */
  py.PyConfig_InitPythonConfig (&config);
  config.install_signal_handlers = 0;
  config.parse_argv = 0;
  config.configure_c_stdio = 0;
  config.pathconfig_warnings = 0;
  status = py.PyConfig_SetBytesString (&config, &config.program_name, REG_PYTHON_PROGRAM);
  if (!py.PyStatus_Exception (status))
    status = py.Py_InitializeFromConfig (&config);
  py.PyConfig_Clear (&config);
  if (py.PyStatus_Exception (status))
    {
      LOADER_ERROR (error, "the Python interpreter cannot be started: %s",
                    status.err_msg != NULL ? status.err_msg : "an unknown error");
      return FALSE;
    }

  /* Python 3.11 installs its SIGINT handler when its signal module is
   * first imported, whatever install_signal_handlers says: imported now,
   * and the host's handlers put back. */
  signal_module = py.PyImport_ImportModule ("signal");
  decref (signal_module);
  py.PyErr_Clear ();
  restore_signals (saved);

  /* Started with the lock held: release it for every thread's
   * PyGILState_Ensure(). */
  py.PyEval_SaveThread ();
  return TRUE;
}

/* One process, one interpreter: found or started once, never finalized.
 * A failure is retried by the next load. */
static pthread_mutex_t interpreter_lock = PTHREAD_MUTEX_INITIALIZER;
static gint interpreter_ready;  /* atomic */

static gboolean
ensure_interpreter_locked (GError **error)
{
  int (*is_initialized) (void) = (int (*) (void)) dlsym (RTLD_DEFAULT, "Py_IsInitialized");
  void *libpython;

  if (is_initialized != NULL)
    {
      /* The host's Python (or one it linked and has not started). */
      if (!check_version ("this program", error) ||
          !resolve (RTLD_DEFAULT, "this program's Python", error))
        return FALSE;
      return py.Py_IsInitialized () || start_interpreter (error);
    }

  libpython = dlopen (REG_LIBPYTHON, RTLD_NOW | RTLD_GLOBAL);
  if (libpython == NULL)
    {
      LOADER_ERROR (error, "the Python loader needs " REG_LIBPYTHON ", which cannot be "
                    "opened: %s. Install the Python " LOADER_PYTHON " library "
                    "(libpython" LOADER_PYTHON ").", dlerror ());
      return FALSE;
    }

  return check_version (REG_LIBPYTHON, error) &&
         resolve (libpython, REG_LIBPYTHON, error) &&
         start_interpreter (error);
}

static gboolean
ensure_interpreter (GError **error)
{
  gboolean ready;

  if (g_atomic_int_get (&interpreter_ready))
    return TRUE;

  if (pthread_mutex_lock (&interpreter_lock) != 0)
    g_assert_not_reached ();
  ready = g_atomic_int_get (&interpreter_ready) || ensure_interpreter_locked (error);
  if (ready)
    g_atomic_int_set (&interpreter_ready, TRUE);
  if (pthread_mutex_unlock (&interpreter_lock) != 0)
    g_assert_not_reached ();

  return ready;
}

/* Exceptions */

/* A string attribute of @object, or NULL (and no exception). */
static char *
dup_string_attr (PyObject   *object,
                 const char *name)
{
  PyObject *value = py.PyObject_GetAttrString (object, name);
  PyObject *text = value != NULL ? py.PyObject_Str (value) : NULL;
  const char *utf8 = text != NULL ? py.PyUnicode_AsUTF8 (text) : NULL;
  char *copy = g_strdup (utf8);

  decref (text);
  decref (value);
  if (copy == NULL)
    py.PyErr_Clear ();

  return copy;
}

/* "FILE:LINE in NAME" for the frames of @tb, innermost last. */
static void
append_traceback (GString  *text,
                  PyObject *tb)
{
  PyObject *module = py.PyImport_ImportModule ("traceback");
  PyObject *extract = module != NULL ? py.PyObject_GetAttrString (module, "extract_tb") : NULL;
  PyObject *frames = extract != NULL ? py.PyObject_CallFunctionObjArgs (extract, tb, NULL) : NULL;
  Py_ssize_t n = frames != NULL ? py.PySequence_Size (frames) : -1;

  if (n > 0)
    g_string_append (text, " (traceback, most recent call last:");
  for (Py_ssize_t i = MAX (0, n - TRACEBACK_FRAMES); i < n; i++)
    {
      PyObject *frame = py.PySequence_GetItem (frames, i);
      g_autofree char *file = frame != NULL ? dup_string_attr (frame, "filename") : NULL;
      g_autofree char *line = frame != NULL ? dup_string_attr (frame, "lineno") : NULL;
      g_autofree char *name = frame != NULL ? dup_string_attr (frame, "name") : NULL;

      if (i == MAX (0, n - TRACEBACK_FRAMES) && i > 0)
        g_string_append (text, " ...");
      g_string_append_printf (text, "%s %s:%s in %s", i > MAX (0, n - TRACEBACK_FRAMES) ? "," : "",
                              file, line, name);
      decref (frame);
    }
  if (n > 0)
    g_string_append_c (text, ')');

  decref (frames);
  decref (extract);
  decref (module);
  py.PyErr_Clear ();
}

static gboolean
is_syntax_error (PyObject *value)
{
  PyObject *builtins = py.PyImport_ImportModule ("builtins");
  PyObject *syntax_error = builtins != NULL ? py.PyObject_GetAttrString (builtins, "SyntaxError") : NULL;
  gboolean is = syntax_error != NULL && py.PyObject_IsInstance (value, syntax_error) == 1;

  decref (syntax_error);
  decref (builtins);
  py.PyErr_Clear ();

  return is;
}

/* The pending exception, taken: "TYPE: MESSAGE (traceback ...)". */
static char *
take_exception (void)
{
  PyObject *type = NULL, *value = NULL, *tb = NULL;
  GString *text = g_string_new (NULL);

  py.PyErr_Fetch (&type, &value, &tb);
  py.PyErr_NormalizeException (&type, &value, &tb);

  if (type != NULL)
    {
      g_autofree char *module = dup_string_attr (type, "__module__");
      g_autofree char *name = dup_string_attr (type, "__qualname__");
      PyObject *str = value != NULL ? py.PyObject_Str (value) : NULL;
      const char *said = str != NULL ? py.PyUnicode_AsUTF8 (str) : NULL;

      if (module != NULL && !g_str_equal (module, "builtins"))
        g_string_append_printf (text, "%s.", module);
      g_string_append (text, name != NULL ? name : "an exception");
      if (said != NULL && said[0] != '\0')
        g_string_append_printf (text, ": %s", said);
      decref (str);
      py.PyErr_Clear ();
      /* A SyntaxError names its file by its base name, and has no frame
       * in it: its path is said too. */
      if (value != NULL && is_syntax_error (value))
        {
          g_autofree char *file = dup_string_attr (value, "filename");

          if (file != NULL && strchr (file, G_DIR_SEPARATOR) != NULL)
            g_string_append_printf (text, " in %s", file);
        }
      if (tb != NULL)
        append_traceback (text, tb);
    }
  else
    g_string_append (text, "an error without an exception");

  decref (type);
  decref (value);
  decref (tb);

  return g_string_free (text, FALSE);
}

/* Sets @error to @prefix and the pending exception, which is cleared. */
static void
set_error_from_exception (GError     **error,
                          const char  *prefix)
{
  g_autofree char *exception = take_exception ();

  LOADER_ERROR (error, "%s: %s", prefix, exception);
}

/* What the loader needs of PyGObject, with the interpreter lock held:
 * GObject.Object, to tell a compiler from anything else, and the Reg
 * typelib, which the backend's module imports. */
static PyObject *gobject_class;

static gboolean
ensure_gi (GError **error)
{
  PyObject *gi, *require, *result, *repository;

  if (gobject_class != NULL)
    return TRUE;

  gi = py.PyImport_ImportModule ("gi");
  if (gi == NULL)
    {
      set_error_from_exception (error, "PyGObject (the Python module gi) cannot be imported; "
                                "install it (python3-gi) for this Python");
      return FALSE;
    }

  require = py.PyObject_GetAttrString (gi, "require_version");
  if (require != NULL)
    {
      PyObject *namespace = py.PyUnicode_FromString ("Reg");
      PyObject *version = py.PyUnicode_FromString ("1.0");

      result = py.PyObject_CallFunctionObjArgs (require, namespace, version, NULL);
      decref (result);
      decref (namespace);
      decref (version);
    }
  decref (require);
  decref (gi);
  if (py.PyErr_Occurred ())
    {
      set_error_from_exception (error, "the Reg 1.0 typelib (Reg-1.0.typelib) is not found: "
                                "install libreg's introspection data, or name its directory "
                                "in GI_TYPELIB_PATH");
      return FALSE;
    }

  repository = py.PyImport_ImportModule ("gi.repository.Reg");
  decref (repository);
  if (repository == NULL)
    {
      set_error_from_exception (error, "the Reg 1.0 typelib cannot be loaded");
      return FALSE;
    }

  repository = py.PyImport_ImportModule ("gi.repository.GObject");
  gobject_class = repository != NULL ? py.PyObject_GetAttrString (repository, "Object") : NULL;
  decref (repository);
  if (gobject_class == NULL)
    {
      set_error_from_exception (error, "PyGObject's GObject.Object cannot be found");
      return FALSE;
    }

  return TRUE;
}

/* What a load gives: the imported module */

#define REG_TYPE_PYTHON_SOURCE (reg_python_source_get_type ())
G_DECLARE_FINAL_TYPE (RegPythonSource, reg_python_source, REG, PYTHON_SOURCE, GObject)

struct _RegPythonSource
{
  GObject   parent_instance;

  char     *name;
  PyObject *module;  /* a strong reference, never dropped */
};

G_DEFINE_FINAL_TYPE (RegPythonSource, reg_python_source, G_TYPE_OBJECT)

static void
reg_python_source_class_init (RegPythonSourceClass *klass)
{
}

static void
reg_python_source_init (RegPythonSource *self)
{
}

/* Module name -> RegPythonSource, for the life of the process (libreg
 * keeps what was loaded); and the modules whose import failed, whose
 * next import starts afresh.  Both guarded by the interpreter lock. */
static GHashTable *sources;
static GHashTable *failed;

static GObject *
load (const char  *dir,
      const char  *source,
      GError     **error)
{
  RegPythonSource *loaded = NULL;
  PyGILState_STATE gil;
  PyObject *module;

  if (!ensure_interpreter (error))
    return NULL;

  gil = py.PyGILState_Ensure ();

  if (sources == NULL)
    {
      sources = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      failed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    }

  loaded = g_hash_table_lookup (sources, source);
  if (loaded != NULL || !ensure_gi (error))
    goto out;

  /* After a failure the file may have been fixed, or added, within the
   * time stamps' resolution: importlib forgets what it had cached of the
   * directories. */
  if (g_hash_table_contains (failed, source))
    {
      PyObject *importlib = py.PyImport_ImportModule ("importlib");
      PyObject *invalidate = importlib != NULL
                           ? py.PyObject_GetAttrString (importlib, "invalidate_caches") : NULL;

      decref (invalidate != NULL ? py.PyObject_CallNoArgs (invalidate) : NULL);
      decref (invalidate);
      decref (importlib);
      py.PyErr_Clear ();
    }

  module = py.PyImport_ImportModule (source);
  if (module == NULL)
    {
      g_autofree char *prefix = g_strdup_printf ("the Python module %s cannot be imported", source);

      set_error_from_exception (error, prefix);
      g_hash_table_add (failed, g_strdup (source));
      goto out;
    }

  g_hash_table_remove (failed, source);
  /* The import ran Python code, which lets other threads take the GIL:
   * another registry may have loaded the same module meanwhile. */
  loaded = g_hash_table_lookup (sources, source);
  if (loaded != NULL)
    {
      decref (module);
      goto out;
    }
  loaded = g_object_new (REG_TYPE_PYTHON_SOURCE, NULL);
  loaded->name = g_strdup (source);
  loaded->module = module;
  g_hash_table_insert (sources, g_strdup (source), loaded);

out:
  py.PyGILState_Release (gil);
  return G_OBJECT (loaded);
}

/* The object @entry names in @module (a dotted path), a new reference. */
static PyObject *
find_entry (RegPythonSource  *self,
            const char       *entry,
            GError          **error)
{
  g_auto(GStrv) parts = g_strsplit (entry, ".", -1);
  PyObject *object = self->module;

  py.Py_IncRef (object);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      PyObject *next = py.PyObject_GetAttrString (object, parts[i]);

      decref (object);
      if (next == NULL)
        {
          g_autofree char *prefix = g_strdup_printf ("the Python module %s has no %s "
                                                     "(Object=%s in the manifest)",
                                                     self->name, entry, entry);

          set_error_from_exception (error, prefix);
          return NULL;
        }
      object = next;
    }

  return object;
}

static char *
dup_type_name (PyObject *object)
{
  PyObject *type = py.PyObject_GetAttrString (object, "__class__");
  char *name = type != NULL ? dup_string_attr (type, "__qualname__") : NULL;

  decref (type);
  py.PyErr_Clear ();

  return name != NULL ? name : g_strdup ("object");
}

static RegCompiler *
make (GObject     *loaded,
      const char  *name,
      const char  *entry,
      GError     **error)
{
  RegPythonSource *self = REG_PYTHON_SOURCE (loaded);
  RegCompiler *compiler = NULL;
  PyObject *object, *made = NULL;
  int is_gobject = 1;
  g_autofree char *what = g_strdup_printf ("%s.%s", self->name, entry);
  PyGILState_STATE gil;

  gil = py.PyGILState_Ensure ();

  object = find_entry (self, entry, error);
  if (object == NULL)
    goto out;

  if (PyType_Check (object) && (is_gobject = py.PyObject_IsSubclass (object, gobject_class)) < 0)
    {
      set_error_from_exception (error, what);
      goto out;
    }
  if (PyType_Check (object) && !is_gobject)
    {
      LOADER_ERROR (error, "%s is a class, but not a GObject.Object implementing "
                    "Reg.Compiler", what);
      py.PyErr_Clear ();
      goto out;
    }
  if (!py.PyCallable_Check (object))
    {
      g_autofree char *type = dup_type_name (object);

      LOADER_ERROR (error, "%s is a value of type %s, not a class implementing "
                    "Reg.Compiler or a function returning a compiler", what, type);
      goto out;
    }

  made = py.PyObject_CallNoArgs (object);
  if (made == NULL)
    {
      g_autofree char *prefix = g_strdup_printf ("%s() raised an exception", what);

      set_error_from_exception (error, prefix);
      goto out;
    }

  if (py.PyObject_IsInstance (made, gobject_class) != 1)
    {
      g_autofree char *type = dup_type_name (made);

      LOADER_ERROR (error, "%s() returned a value of type %s, not a GObject.Object "
                    "implementing Reg.Compiler", what, type);
      py.PyErr_Clear ();
      goto out;
    }
  if (pygobject_get (made) == NULL)
    {
      LOADER_ERROR (error, "%s() returned a GObject.Object that was never initialised "
                    "(its __init__ does not call GObject.Object.__init__)", what);
      goto out;
    }
  if (!REG_IS_COMPILER (pygobject_get (made)))
    {
      LOADER_ERROR (error, "%s() returned a %s, which does not implement Reg.Compiler",
                    what, G_OBJECT_TYPE_NAME (pygobject_get (made)));
      goto out;
    }

  /* The wrapper keeps the Python object alive while C holds a reference
   * (PyGObject's toggle reference), and takes the interpreter lock
   * itself when the last one goes, from whatever thread. */
  compiler = g_object_ref (REG_COMPILER (pygobject_get (made)));

out:
  decref (made);
  decref (object);
  py.PyGILState_Release (gil);

  return compiler;
}

/* "python MAJOR.MINOR PREFIX" of the program's own interpreter, which
 * runs already (libreg asks only then): sys.prefix names a virtual
 * environment, where Py_GetPrefix () names its base. */
static char *
environment (void)
{
  PyGILState_STATE gil;
  PyObject *sys, *prefix;
  char *text = NULL;
  int major = 0, minor = 0;

  if (!ensure_interpreter (NULL))
    return NULL;

  gil = py.PyGILState_Ensure ();
  sys = py.PyImport_ImportModule ("sys");
  prefix = sys != NULL ? py.PyObject_GetAttrString (sys, "prefix") : NULL;
  if (prefix != NULL && py.PyUnicode_AsUTF8 (prefix) != NULL &&
      sscanf (py.Py_GetVersion (), "%d.%d", &major, &minor) == 2)
    text = g_strdup_printf ("python %d.%d %s", major, minor, py.PyUnicode_AsUTF8 (prefix));
  decref (prefix);
  decref (sys);
  py.PyErr_Clear ();
  py.PyGILState_Release (gil);

  return text;
}

/* The files a source is made of, found as the import system finds them,
 * running none of them: the source files and extension modules of its
 * top-level package (every one, however deep: the package's modules import
 * each other), or the one file of a top-level module.  No more than
 * FILES_MAX: more are too many to check at each load. */
#define FILES_MAX 4096

static const char files_code[] =
  "def files(name):\n"
  "    import importlib.machinery, importlib.util, os\n"
  "    spec = importlib.util.find_spec(name.partition('.')[0])\n"
  "    if spec is None:\n"
  "        return []\n"
  "    if not spec.submodule_search_locations:\n"
  "        return [spec.origin] if spec.has_location else []\n"
  "    suffixes = tuple(importlib.machinery.SOURCE_SUFFIXES + importlib.machinery.EXTENSION_SUFFIXES)\n"
  "    found = []\n"
  "    for root in spec.submodule_search_locations:\n"
  "        for top, dirs, names in os.walk(root):\n"
  "            dirs[:] = sorted(d for d in dirs if d != '__pycache__')\n"
  "            found += [os.path.join(top, n) for n in sorted(names) if n.endswith(suffixes)]\n"
  "            if len(found) > " G_STRINGIFY (FILES_MAX) ":\n"
  "                raise OverflowError('more than " G_STRINGIFY (FILES_MAX) " files')\n"
  "    return found\n";

static char **
source_files (const char  *source,
              GError     **error)
{
  PyGILState_STATE gil;
  PyObject *globals, *ran = NULL, *function = NULL, *name = NULL, *found = NULL;
  GPtrArray *files = NULL;
  Py_ssize_t n;

  if (!ensure_interpreter (error))
    return NULL;

  gil = py.PyGILState_Ensure ();
  globals = py.PyDict_New ();
  if (globals != NULL)
    ran = py.PyRun_StringFlags (files_code, Py_file_input, globals, globals, NULL);
  if (ran != NULL)
    function = py.PyDict_GetItemString (globals, "files");  /* borrowed */
  if (function != NULL && (name = py.PyUnicode_FromString (source)) != NULL)
    found = py.PyObject_CallFunctionObjArgs (function, name, NULL);

  n = found != NULL ? py.PySequence_Size (found) : -1;
  if (n >= 0)
    {
      files = g_ptr_array_new_with_free_func (g_free);
      for (Py_ssize_t i = 0; i < n && files != NULL; i++)
        {
          PyObject *item = py.PySequence_GetItem (found, i);
          const char *path = item != NULL ? py.PyUnicode_AsUTF8 (item) : NULL;

          if (path != NULL)
            g_ptr_array_add (files, g_strdup (path));
          else
            g_clear_pointer (&files, g_ptr_array_unref);
          decref (item);
        }
    }
  if (files == NULL)
    set_error_from_exception (error, "the files of the Python module cannot be listed");
  py.PyErr_Clear ();
  decref (found);
  decref (name);
  decref (ran);
  decref (globals);
  py.PyGILState_Release (gil);

  if (files == NULL)
    return NULL;
  g_ptr_array_add (files, NULL);
  return (char **) g_ptr_array_free (files, FALSE);
}

static const RegLoader python_loader = {
  .name = "python",
  .load = load,
  .make = make,
};

G_MODULE_EXPORT const RegLoaderModule reg_loader_module = {
  REG_VERSION_S,
  &python_loader,
  environment,
  source_files,
};
