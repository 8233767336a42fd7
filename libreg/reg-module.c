/* reg-module.c: backend plugin modules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gmodule.h>

#include "reg-file-private.h"
#include "reg-keyfile-private.h"
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
  /* The backends the module offered while it loaded, in order: each
   * reg_module_add_backend() appends to both. */
  GPtrArray   *offer_names; /* NULL-terminated */
  GArray      *offer_types; /* of GType */
  gboolean     in_load;     /* reg_module_add_backend() is allowed */
  GError      *load_error;  /* why the last load failed */
};

G_DEFINE_FINAL_TYPE (RegModule, reg_module, G_TYPE_TYPE_MODULE)

/* A module is its file: one file reached through several paths (symbolic
 * links, hard links, bind mounts, several search directories) is one
 * module, loaded once.  Running its reg_module_load() twice would register
 * its types twice, which GType refuses.  Both tables are never freed. */
static GHashTable *modules_by_file;  /* _reg_file_identity() -> RegModule */
static GHashTable *modules_by_path;  /* path -> RegModule, for a file that
                                      * was replaced since it was loaded
                                      * (its code stays what was loaded) */

/* Whether @path begins as an ELF file does. */
static gboolean
is_shared_object (const char *path)
{
  static const char elf_magic[4] = { 0x7f, 'E', 'L', 'F' };
  char start[sizeof elf_magic];
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  gssize n = -1;

  if (fd >= 0)
    {
      n = read (fd, start, sizeof start);
      g_close (fd, NULL);
    }

  return n == sizeof start && memcmp (start, elf_magic, sizeof start) == 0;
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

      if (!g_file_test (self->path, G_FILE_TEST_EXISTS))
        g_set_error (&self->load_error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                     "module %s cannot be opened: %s. "
                     "Install the module file, or fix Module= in the manifest.", path, why);
      else if (!is_shared_object (self->path))
        g_set_error (&self->load_error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                     "module %s is not a shared object (an ELF file): Module= names the "
                     "compiled module of a backend written in C. A backend written in Python "
                     "or JavaScript is declared by a manifest with Loader=python or Loader=gjs "
                     "and Import= instead of Module=.",
                     path);
      else
        g_set_error (&self->load_error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                     "module %s cannot be opened: %s. Rebuild the module against this libreg "
                     "and the libraries it needs (`ldd -r` on it lists what is missing).",
                     path, why);
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
      g_clear_pointer (&self->gmodule, g_module_close);
      return FALSE;
    }

  g_ptr_array_set_size (self->offer_names, 0);
  g_array_set_size (self->offer_types, 0);
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

  g_ptr_array_set_size (self->offer_names, 0);
  g_array_set_size (self->offer_types, 0);
  g_clear_pointer (&self->gmodule, g_module_close);
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
  self->offer_names = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  self->offer_types = g_array_new (FALSE, FALSE, sizeof (GType));
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
  g_return_if_fail (REG_IS_MODULE (module));
  g_return_if_fail (name != NULL);
  g_return_if_fail (g_type_is_a (type, REG_TYPE_COMPILER));
  g_return_if_fail (G_TYPE_IS_INSTANTIATABLE (type) && !G_TYPE_IS_ABSTRACT (type));
  g_return_if_fail (module->in_load);

  if (g_ptr_array_find_with_equal_func (module->offer_names, name, g_str_equal, NULL))
    {
      g_autofree char *shown_path = _reg_escape (module->path);
      g_autofree char *shown_name = _reg_escape (name);

      g_warning ("module %s offers backend '%s' twice; the first one is kept",
                 shown_path, shown_name);
      return;
    }

  g_ptr_array_add (module->offer_names, g_strdup (name));
  g_array_append_val (module->offer_types, type);
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

/* The loader of modules written in C: Loader=c, or no Loader= */

/* Module= must name a file in the manifest's own directory: a manifest may
 * not make libreg open a library elsewhere on the system. */
static char *
read_source (RegKeyGroup  *group,
             GError      **error)
{
  g_autofree char *module = NULL;

  if (!_reg_key_group_get_string (group, "Module", &module, error))
    return NULL;

  if (module == NULL)
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                 "Module: missing (it names the module's file, beside the manifest)");
  else if (module[0] == '\0')
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "Module= is empty");
  else if (strchr (module, '/') != NULL)
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                 "Module=%s is not a bare file name (it holds a '/')", module);
  else if (g_str_equal (module, ".") || g_str_equal (module, ".."))
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                 "Module=%s is not a file name", module);
  else
    return g_steal_pointer (&module);

  return NULL;
}

static char *
locate (const char *dir,
        const char *source)
{
  return g_build_filename (dir, source, NULL);
}

/* The module of the file Module= names, loaded. */
static GObject *
load (const char  *dir,
      const char  *source,
      GError     **error)
{
  g_autofree char *path = locate (dir, source);
  g_autofree char *identity = _reg_file_identity (path);
  RegModule *self;

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
    return G_OBJECT (self);

  if (self->load_error != NULL)
    g_propagate_error (error, g_error_copy (self->load_error));
  else
    {
      g_autofree char *shown = _reg_escape (path);

      g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
                   "module %s failed to load", shown);
    }

  return NULL;
}

static char **
offers (GObject *loaded)
{
  return g_strdupv ((char **) REG_MODULE (loaded)->offer_names->pdata);
}

static RegCompiler *
make (GObject     *loaded,
      const char  *name,
      const char  *entry,
      GError     **error)
{
  RegModule *self = REG_MODULE (loaded);
  g_autofree char *shown = NULL;
  guint index;

  if (g_ptr_array_find_with_equal_func (self->offer_names, name, g_str_equal, &index))
    return g_object_new (g_array_index (self->offer_types, GType, index), NULL);

  shown = _reg_escape (self->path);
  g_set_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED,
               "module %s does not provide it. Make the module's reg_module_load() add it, "
               "or remove [Backend %s] from the manifest.", shown, name);
  return NULL;
}

const RegLoader _reg_module_loader = {
  .name = "c",
  .hint = "Fix Module= in the manifest: it names the module file, in the manifest's own directory.",
  .read_source = read_source,
  .locate = locate,
  .load = load,
  .offers = offers,
  .make = make,
};
