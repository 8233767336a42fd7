/* reg-language-loader.c: backends written in Python and JavaScript
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The manifest of such a backend:
 *
 *   [Reg Module]
 *   AbiVersion=2
 *   Loader=python            or gjs
 *   Import=acme_reg.compiler for python: a dotted module name, found on
 *                            the interpreter's own path; for gjs: an ES
 *                            module file beside the manifest (acme.js)
 *
 *   [Backend acme]
 *   Object=AcmeCompiler      a class implementing RegCompiler, or a
 *                            function of no arguments returning one
 *
 * There is no Module=: a libreg without these loaders skips the manifest
 * with a warning, rather than opening a script as a shared object.
 * The loading itself is the loader module's (see
 * reg-language-loader-private.h); a failure to open it is retried by the
 * next lookup.
 */

#include "reg-config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include <gmodule.h>

#include "reg-environment-private.h"
#include "reg-error.h"
#include "reg-language-loader-private.h"
#include "reg-message-private.h"
#include "reg-version.h"

/* Names longer than this are refused: no module or object is named so. */
#define NAME_MAX_LENGTH 255

/* A loader module's message can quote a traceback: more room than a
 * name's, still bounded. */
#define LOADER_MESSAGE_MAX 4096

typedef struct
{
  const char      *file;    /* the loader module's file name */
  const char      *what;    /* "the Python loader" */
  const char      *option;  /* the meson option that builds it */
  const char      *needs;   /* what building it needs */
  pthread_mutex_t  lock;
  const RegLoaderModule *module;  /* once opened; atomic */
} Language;

static Language python = {
  "libreg-loader-python.so", "the Python loader", "python_loader",
  "python3-dev and python-gi-dev", PTHREAD_MUTEX_INITIALIZER, NULL,
};

static Language gjs = {
  "libreg-loader-gjs.so", "the JavaScript loader", "gjs_loader",
  "libgjs-dev", PTHREAD_MUTEX_INITIALIZER, NULL,
};

static const RegLoaderModule *
open_module_locked (Language  *language,
                    GError   **error)
{
  /* Which code a setuid program runs is not its caller's to choose. */
  const char *dir = _reg_environment_is_trusted () ? g_getenv ("REG_LOADER_DIR") : NULL;
  g_autofree char *path = NULL;
  g_autofree char *shown = NULL;
  const RegLoaderModule *exported = NULL;
  GModule *module;

  if (dir == NULL || dir[0] == '\0')
    dir = REG_LOADER_MODULE_DIR;
  path = g_build_filename (dir, language->file, NULL);
  shown = _reg_escape (path);

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                   "%s is not installed (%s does not exist): this libreg was built without it, "
                   "or it was removed. Build libreg with -D%s=enabled (it needs %s).",
                   language->what, shown, language->option, language->needs);
      return NULL;
    }

  /* Local binding: the loader's symbols are its own; it reaches libreg
   * and the interpreter's libraries through its own dependencies. */
  module = g_module_open (path, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    {
      g_autofree char *why = _reg_escape (g_module_error ());

      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                   "%s %s cannot be opened: %s. Install the libraries it needs "
                   "(`ldd` on it lists them).", language->what, shown, why);
      return NULL;
    }

  if (!g_module_symbol (module, REG_LOADER_MODULE_SYMBOL, (gpointer *) &exported) ||
      exported == NULL || g_strcmp0 (exported->libreg_version, REG_VERSION_S) != 0 ||
      exported->loader == NULL)
    {
      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                   "%s %s is not the one of this libreg (%s): install the loader "
                   "built with it.", language->what, shown, REG_VERSION_S);
      g_module_close (module);
      return NULL;
    }

  /* Kept for the life of the process, as the interpreter it starts. */
  g_module_make_resident (module);

  return exported;
}

static const RegLoaderModule *
language_open (Language  *language,
               GError   **error)
{
  const RegLoaderModule *module = g_atomic_pointer_get (&language->module);

  if (module != NULL)
    return module;

  if (pthread_mutex_lock (&language->lock) != 0)
    g_assert_not_reached ();
  module = language->module;
  if (module == NULL)
    {
      module = open_module_locked (language, error);
      g_atomic_pointer_set (&language->module, module);
    }
  if (pthread_mutex_unlock (&language->lock) != 0)
    g_assert_not_reached ();

  return module;
}

/* The loader module's message, which may quote a module's text, escaped
 * as every message from outside is. */
static void
escape_error (GError **error)
{
  if (error != NULL && *error != NULL)
    {
      char *shown = _reg_text_for_message ((*error)->message, -1, LOADER_MESSAGE_MAX);

      g_free ((*error)->message);
      (*error)->message = shown;
    }
}

static GObject *
language_load (Language    *language,
               const char  *dir,
               const char  *source,
               GError     **error)
{
  const RegLoaderModule *module = language_open (language, error);
  GObject *loaded;

  if (module == NULL)
    return NULL;

  loaded = module->loader->load (dir, source, error);
  if (loaded == NULL)
    escape_error (error);

  return loaded;
}

static RegCompiler *
language_make (Language    *language,
               GObject     *loaded,
               const char  *name,
               const char  *entry,
               GError     **error)
{
  /* Something was loaded, so the module is open. */
  const RegLoaderModule *module = g_atomic_pointer_get (&language->module);
  RegCompiler *compiler = module->loader->make (loaded, name, entry, error);

  if (compiler == NULL)
    escape_error (error);

  return compiler;
}

/* Reading manifests */

/* @text is, @dotted, names joined by '.' (Python) or else one name
 * (JavaScript): each an ASCII identifier of the language, with '$'
 * allowed in JavaScript's. */
static gboolean
check_names (const char  *text,
             gboolean     dotted,
             GError     **error)
{
  gsize length = strlen (text);
  gboolean start = TRUE;

  if (length == 0 || length > NAME_MAX_LENGTH)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "%s (at most %d bytes are allowed)", length == 0 ? "empty" : "too long",
                   NAME_MAX_LENGTH);
      return FALSE;
    }

  for (gsize i = 0; i < length; i++)
    {
      char c = text[i];

      if (dotted && c == '.' && !start && i + 1 < length)
        start = TRUE;
      else if (g_ascii_isalpha (c) || c == '_' || (!dotted && c == '$') ||
               (!start && g_ascii_isdigit (c)))
        start = FALSE;
      else
        {
          g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                       "byte %" G_GSIZE_FORMAT " does not fit: %s", i,
                       dotted ? "names of ASCII letters, digits and '_' are expected, "
                                "joined by '.' (acme_reg.compiler)"
                              : "a name of ASCII letters, digits, '_' and '$' is expected");
          return FALSE;
        }
    }

  return TRUE;
}

/* Import=, for both; Module= is the C loader's and is refused, so that a
 * manifest says what it loads one way. */
static char *
read_import (RegKeyGroup  *group,
             const char   *loader,
             const char   *example,
             GError      **error)
{
  g_autofree char *import = NULL;

  if (_reg_key_group_get_value (group, "Module") != NULL)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "Module= is for backends written in C; Loader=%s reads Import= (%s)",
                   loader, example);
      return NULL;
    }
  if (!_reg_key_group_get_string (group, "Import", &import, error))
    return NULL;
  if (import == NULL)
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                 "Import: missing (Loader=%s imports what it names: %s)", loader, example);

  return g_steal_pointer (&import);
}

static char *
python_read_source (RegKeyGroup  *group,
                    GError      **error)
{
  g_autofree char *import = read_import (group, "python", "Import=acme_reg.compiler, a module "
                                         "on Python's path", error);

  if (import == NULL)
    return NULL;

  if (!check_names (import, TRUE, error))
    {
      g_prefix_error (error, "Import=%s is not a dotted Python module name: ", import);
      return NULL;
    }

  return g_steal_pointer (&import);
}

static gboolean
python_check_entry (const char  *entry,
                    GError     **error)
{
  return check_names (entry, TRUE, error);
}

static GObject *
python_load (const char  *dir,
             const char  *source,
             GError     **error)
{
  return language_load (&python, dir, source, error);
}

static RegCompiler *
python_make (GObject     *loaded,
             const char  *name,
             const char  *entry,
             GError     **error)
{
  return language_make (&python, loaded, name, entry, error);
}

const RegLoader _reg_python_loader = {
  .name = "python",
  .entry_key = "Object",
  .hint = "Fix Import= in the manifest: it names a Python module (acme_reg.compiler), "
          "found on Python's module path.",
  .unlocked = TRUE,
  .read_source = python_read_source,
  .check_entry = python_check_entry,
  /* No locate(): Python finds the module's file when it imports it.  No
   * offers(): what such a module makes is what its manifest names. */
  .load = python_load,
  .make = python_make,
};

static char *
gjs_read_source (RegKeyGroup  *group,
                 GError      **error)
{
  g_autofree char *import = read_import (group, "gjs", "Import=acme.js, a file beside the "
                                         "manifest", error);

  if (import == NULL)
    return NULL;

  /* A manifest may not make libreg run a script elsewhere on the
   * system, as Module= may not name a library elsewhere. */
  if (import[0] == '\0' || strchr (import, '/') != NULL ||
      g_str_equal (import, ".") || g_str_equal (import, ".."))
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "Import=%s is not the name of a file beside the manifest", import);
      return NULL;
    }

  return g_steal_pointer (&import);
}

static gboolean
gjs_check_entry (const char  *entry,
                 GError     **error)
{
  return check_names (entry, FALSE, error);
}

static char *
gjs_locate (const char *dir,
            const char *source)
{
  return g_build_filename (dir, source, NULL);
}

static GObject *
gjs_load (const char  *dir,
          const char  *source,
          GError     **error)
{
  return language_load (&gjs, dir, source, error);
}

static RegCompiler *
gjs_make (GObject     *loaded,
          const char  *name,
          const char  *entry,
          GError     **error)
{
  return language_make (&gjs, loaded, name, entry, error);
}

const RegLoader _reg_gjs_loader = {
  .name = "gjs",
  .entry_key = "Object",
  .hint = "Fix Import= in the manifest: it names the backend's ES module file, "
          "in the manifest's own directory.",
  .unlocked = TRUE,
  .read_source = gjs_read_source,
  .check_entry = gjs_check_entry,
  .locate = gjs_locate,
  .load = gjs_load,
  .make = gjs_make,
};

/* The environment in verdict keys (reg-loading.c) */

char *
_reg_language_loader_dup_python_environment (void)
{
  int (*is_initialized) (void) = (int (*) (void)) dlsym (RTLD_DEFAULT, "Py_IsInitialized");
  const char *home = _reg_environment_is_trusted () ? g_getenv ("PYTHONHOME") : NULL;

  if (is_initialized != NULL && is_initialized ())
    {
      const char *(*get_version) (void) = (const char *(*) (void)) dlsym (RTLD_DEFAULT,
                                                                          "Py_GetVersion");

      if (language_open (&python, NULL) != NULL && python.module->environment != NULL)
        {
          char *environment = python.module->environment ();

          if (environment != NULL)
            return environment;
        }
      return g_strdup_printf ("python %.8s (this program's, not the loader's)",
                              get_version != NULL ? get_version () : "?");
    }

  return g_strdup_printf ("python %s %s", REG_PYTHON_VERSION,
                          home != NULL && home[0] != '\0' ? home : REG_PYTHON_PREFIX);
}

char **
_reg_language_loader_dup_python_files (const char  *source,
                                       GError     **error)
{
  char **files;

  if (language_open (&python, error) == NULL)
    return NULL;

  files = python.module->source_files (source, error);
  if (files == NULL)
    escape_error (error);

  return files;
}
