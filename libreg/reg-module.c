/* reg-module.c: backend plugin modules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Lock order.  This file owns the outermost of libreg's locks.  A thread
 * takes them in this order and never the other way round:
 *
 *   1. modules_lock (here): the process's module lock, recursive.  Every
 *      load through any registry takes it first (_reg_module_lock(), from
 *      the registry's load_backend()), and module code runs under it
 *      (reg_module_load(), the construction of a module's compilers), so
 *      that a module may look backends up in any registry, the default
 *      one included, while it loads: such a lookup takes it again, then
 *      the other registry's load lock.  It also serialises loading across
 *      the process, so no two modules load at once.
 *   2. RegRegistry.load_lock (reg-registry.c), one per registry,
 *      recursive: serialises discovery and loading in that registry.  A
 *      thread holds the load locks of two registries at once only in
 *      module code, so under modules_lock, which orders any two such
 *      threads.  Discovery takes a load lock without modules_lock, and
 *      takes nothing under it but its registry's lock.
 *   3. RegRegistry.lock (reg-registry.c): the registry's contents.  Held
 *      only around the registry's own code: no signal, notification,
 *      module or compiler code runs under it, and no lock but those of 4
 *      is taken under it.
 *   4. Leaves, under which nothing is taken: the storage cache lock of
 *      reg-storage.c, and the locks of GLib and GObject themselves.
 *
 * Before, a registry's loads took its load lock, then modules_lock: a
 * module whose reg_module_load() looked a backend up in the default
 * registry (modules_lock, then the default's load lock) deadlocked with
 * a thread loading through the default registry.  test-stress's
 * /stress/lock-order loads modules through several registries at once,
 * ThreadSanitizer watching (tools/check's tsan configuration).
 */

#include <pthread.h>

#include <gmodule.h>

#include "reg-compiler.h"
#include "reg-file-private.h"
#include "reg-message-private.h"
#include "reg-module-private.h"
#include "reg-error.h"

/**
 * RegModule:
 *
 * A backend module: a shared object that a `.backend` manifest declares,
 * opened the first time one of its backends is looked up.
 *
 * A module exports two symbols:
 *
 * ```c
 * G_MODULE_EXPORT const guint32 reg_module_abi_version = REG_MODULE_ABI_VERSION;
 *
 * G_MODULE_EXPORT void
 * reg_module_load (RegModule *module)
 * {
 *   my_compiler_register_type (G_TYPE_MODULE (module));
 *   reg_module_add_backend (module, "mine", MY_TYPE_COMPILER);
 * }
 * ```
 *
 * `RegModule` is a [class@GObject.TypeModule], so compilers defined in a
 * module are dynamic types (`G_DEFINE_DYNAMIC_TYPE`) registered on it.
 * The ABI version is checked before any function of the module runs; an
 * optional `reg_module_unload` is never called in practice, as a module
 * stays loaded for the rest of the process (its types cannot be
 * unregistered while instances may exist).
 *
 * There is one `RegModule` per module file in a process, shared by every
 * [class@Reg.Registry].  [Writing a backend module](writing-a-module.html)
 * builds one out of tree.
 */

typedef void (*RegModuleLoadFunc) (RegModule *module);

struct _RegModule
{
  GTypeModule  parent_instance;

  char        *path;
  GModule     *gmodule;
  GArray      *offers;      /* of RegModuleOffer, filled during load */
  gboolean     in_load;     /* reg_module_add_backend() is allowed */
  GError      *load_error;  /* why the last load failed */
};

G_DEFINE_FINAL_TYPE (RegModule, reg_module, G_TYPE_TYPE_MODULE)

/* Guards the tables and serialises loading: a module is opened by one
 * thread while the others wait for its result.  A pthread mutex with a
 * static initialiser rather than a static GRecMutex: that one allocates
 * its mutex on first use, which threads may race to do (GLib orders them
 * with atomics ThreadSanitizer cannot see), and this lock is the first
 * any load takes, with no other lock held. */
static pthread_mutex_t modules_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

/* A module is its file: one file reached through several paths (symbolic
 * links, hard links, bind mounts, several search directories) is one
 * module, loaded once.  Running its reg_module_load() twice would register
 * its types twice, which GType refuses.  Both tables are never freed. */
static GHashTable *modules_by_file;  /* _reg_file_identity() -> RegModule */
static GHashTable *modules_by_path;  /* path -> RegModule, for a file that
                                      * was replaced since it was loaded
                                      * (its code stays what was loaded) */

static void
offer_clear (gpointer data)
{
  RegModuleOffer *offer = data;

  g_free (offer->name);
}

static gboolean
reg_module_load_module (GTypeModule *type_module)
{
  RegModule *self = REG_MODULE (type_module);
  g_autofree char *path = _reg_escape (self->path);
  const guint32 *abi_version = NULL;
  RegModuleLoadFunc load = NULL;

  g_clear_error (&self->load_error);

  /* Immediate binding: a module with an unresolved symbol fails here, as
   * LOAD_FAILED, instead of killing the process when the symbol is first
   * used. */
  self->gmodule = g_module_open (self->path, G_MODULE_BIND_LOCAL);
  if (self->gmodule == NULL)
    {
      /* The dynamic linker's message quotes the file name, and a symbol
       * name from the module. */
      g_autofree char *why = _reg_escape (g_module_error ());

      g_set_error (&self->load_error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                   "module %s cannot be opened: %s. %s", path, why,
                   g_file_test (self->path, G_FILE_TEST_EXISTS)
                   ? "Rebuild the module against this libreg and the libraries it needs "
                     "(`ldd -r` on it lists what is missing)."
                   : "Install the module file, or fix Module= in the manifest.");
      return FALSE;
    }

  /* Check the ABI before calling anything: a module built for another ABI
   * must not run a single line of its code against this libreg. */
  if (!g_module_symbol (self->gmodule, "reg_module_abi_version", (gpointer *) &abi_version) ||
      abi_version == NULL)
    {
      g_set_error (&self->load_error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                   "module %s does not export reg_module_abi_version. "
                   "Rebuild it against this libreg's <reg.h>: a module exports "
                   "reg_module_abi_version = REG_MODULE_ABI_VERSION.", path);
    }
  else if (*abi_version != REG_MODULE_ABI_VERSION)
    {
      g_set_error (&self->load_error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                   "module %s has ABI version %u, this libreg expects %u. "
                   "Rebuild the module against this libreg.",
                   path, *abi_version, REG_MODULE_ABI_VERSION);
    }
  else if (!g_module_symbol (self->gmodule, "reg_module_load", (gpointer *) &load) ||
           load == NULL)
    {
      g_set_error (&self->load_error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                   "module %s does not export reg_module_load. "
                   "Rebuild it with reg_module_load() exported (G_MODULE_EXPORT).", path);
    }

  if (self->load_error != NULL)
    {
      g_module_close (self->gmodule);
      self->gmodule = NULL;
      return FALSE;
    }

  g_array_set_size (self->offers, 0);
  self->in_load = TRUE;
  load (self);
  self->in_load = FALSE;

  return TRUE;
}

static void
reg_module_unload_module (GTypeModule *type_module)
{
  RegModule *self = REG_MODULE (type_module);
  RegModuleLoadFunc unload = NULL;

  if (g_module_symbol (self->gmodule, "reg_module_unload", (gpointer *) &unload) &&
      unload != NULL)
    unload (self);

  g_array_set_size (self->offers, 0);
  g_module_close (self->gmodule);
  self->gmodule = NULL;
}

static void
reg_module_class_init (RegModuleClass *klass)
{
  GTypeModuleClass *type_module_class = G_TYPE_MODULE_CLASS (klass);

  type_module_class->load = reg_module_load_module;
  type_module_class->unload = reg_module_unload_module;
}

static void
reg_module_init (RegModule *self)
{
  self->offers = g_array_new (FALSE, TRUE, sizeof (RegModuleOffer));
  g_array_set_clear_func (self->offers, offer_clear);
}

void
_reg_module_lock (void)
{
  if (pthread_mutex_lock (&modules_lock) != 0)
    g_assert_not_reached ();
}

void
_reg_module_unlock (void)
{
  if (pthread_mutex_unlock (&modules_lock) != 0)
    g_assert_not_reached ();
}

RegModule *
_reg_module_ensure (const char  *path,
                    GError     **error)
{
  RegModule *self;
  RegModule *result = NULL;

  g_autofree char *identity = _reg_file_identity (path);

  _reg_module_lock ();

  if (modules_by_file == NULL)
    {
      modules_by_file = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      modules_by_path = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    }

  /* Device and inode identify a file only while it exists: a loaded
   * module's file stays mapped, so its inode cannot be reused, but one
   * that failed to load may have been deleted since and its inode given
   * to another file. */
  self = identity != NULL ? g_hash_table_lookup (modules_by_file, identity) : NULL;
  if (self != NULL && self->gmodule == NULL)
    {
      g_hash_table_remove (modules_by_file, identity);
      self = NULL;
    }
  if (self == NULL)
    self = g_hash_table_lookup (modules_by_path, path);
  if (self == NULL)
    {
      self = g_object_new (REG_TYPE_MODULE, NULL);
      self->path = g_strdup (path);
      g_type_module_set_name (G_TYPE_MODULE (self), path);
    }
  if (identity != NULL && !g_hash_table_contains (modules_by_file, identity))
    g_hash_table_insert (modules_by_file, g_steal_pointer (&identity), self);
  if (!g_hash_table_contains (modules_by_path, path))
    g_hash_table_insert (modules_by_path, g_strdup (path), self);

  /* The first successful use is never matched by an unuse: the module
   * stays loaded (see the class documentation). */
  if (self->gmodule != NULL || g_type_module_use (G_TYPE_MODULE (self)))
    result = self;
  else if (self->load_error != NULL)
    g_propagate_error (error, g_error_copy (self->load_error));
  else
    {
      g_autofree char *shown = _reg_escape (path);

      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                   "module %s failed to load", shown);
    }

  _reg_module_unlock ();

  return result;
}

const RegModuleOffer *
_reg_module_get_offers (RegModule *module,
                        guint     *n_offers)
{
  *n_offers = module->offers->len;
  return (const RegModuleOffer *) (gpointer) module->offers->data;
}

/**
 * reg_module_add_backend:
 * @module: the module being loaded
 * @name: the name of a backend the module's manifest declares
 * @type: a type implementing [iface@Reg.Compiler]
 *
 * Offers a backend, from the module's `reg_module_load` function only.  The
 * registry makes the compiler with `g_object_new (type, NULL)` and
 * registers it under @name.  A name the module's manifest does not declare
 * is ignored with a warning.
 */
void
reg_module_add_backend (RegModule  *module,
                        const char *name,
                        GType       type)
{
  RegModuleOffer offer;

  g_return_if_fail (REG_IS_MODULE (module));
  g_return_if_fail (name != NULL);
  g_return_if_fail (g_type_is_a (type, REG_TYPE_COMPILER));
  g_return_if_fail (G_TYPE_IS_INSTANTIATABLE (type) && !G_TYPE_IS_ABSTRACT (type));
  g_return_if_fail (module->in_load);

  for (guint i = 0; i < module->offers->len; i++)
    {
      if (g_str_equal (g_array_index (module->offers, RegModuleOffer, i).name, name))
        {
          g_autofree char *shown_path = _reg_escape (module->path);
          g_autofree char *shown_name = _reg_escape (name);

          g_warning ("module %s offers backend '%s' twice; the first one is kept",
                     shown_path, shown_name);
          return;
        }
    }

  offer.name = g_strdup (name);
  offer.type = type;
  g_array_append_val (module->offers, offer);
}

/**
 * reg_module_get_path:
 * @module: a [class@Reg.Module]
 *
 * Gets the full path of the module file.
 *
 * Returns: (transfer none) (type filename): the path
 */
const char *
reg_module_get_path (RegModule *module)
{
  g_return_val_if_fail (REG_IS_MODULE (module), NULL);

  return module->path;
}
