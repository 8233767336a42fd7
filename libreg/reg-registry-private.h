/* reg-registry-private.h: the registry's state, shared by the files of
 * its concepts
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   reg-registry.c   the backend table and the public API on it (register,
 *                    unregister, lookup, list, info, suggest), the
 *                    properties and the signals
 *   reg-settings.c   the default backend and where it came from, the
 *                    fallback backends, the compile cache's size, module
 *                    checks, and reading them from the environment
 *   reg-discovery.c  the search path, reading its manifests into the
 *                    table, skipped manifests, rescan
 *   reg-loading.c    making the compilers of declared backends (through
 *                    their loader), after the checks of their modules;
 *                    the lock order
 *   reg-compile.c    compiling: the backend asked for, then the fallback
 *                    chain, synchronously and asynchronously
 */

#pragma once

#include "reg-compile-cache-private.h"
#include "reg-manifest-private.h"
#include "reg-registry.h"

G_BEGIN_DECLS

/* A backend of the table.  A declared one points into its manifest for
 * its name, tags and description; a registered one owns copies of its
 * name and tags. */
typedef struct
{
  const char               *name;
  const char * const       *tags;
  RegCompiler              *compiler;     /* NULL while only declared */
  RegBackendOrigin          origin;
  RegManifest              *manifest;     /* the declaration it came from, or NULL */
  const RegManifestBackend *declaration;  /* in manifest, or NULL */
  GPtrArray                *hidden;       /* nullable: the other manifests declaring its
                                           * name, in search order (refs) */
  char                     *load_error;   /* why its last load failed, or NULL */
  char                     *owned_name;   /* a registered backend's name and tags, */
  char                    **owned_tags;   /* NULL for a declared one */
} RegEntry;

RegEntry   *_reg_entry_new_declared (RegManifest *manifest,
                                     guint        index);
void        _reg_entry_free         (RegEntry    *entry);
/* Records that @entry hides the declaration of its name in @manifest. */
void        _reg_entry_hide         (RegEntry    *entry,
                                     RegManifest *manifest);
/* @taker takes the name of @replaced: it hides what @replaced declared
 * and hid. */
void        _reg_entry_take_over    (RegEntry    *taker,
                                     RegEntry    *replaced);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RegEntry, _reg_entry_free)

struct _RegRegistry
{
  GObject           parent_instance;

  /* The contents: guards every field up to the next comment.  Never held
   * while emitting, notifying or running a compiler's or a loader's code
   * (see the lock order in reg-loading.c). */
  GRWLock           lock;
  GHashTable       *backends;       /* name -> RegEntry */
  GPtrArray        *sorted;         /* every RegEntry in byte order of names, or
                                     * NULL until list_backends() needs it again */
  GPtrArray        *retired;        /* snapshots unpublished but maybe still read */
  GHashTable       *loaded;         /* what loaders loaded for this registry */
  GHashTable       *rejected;       /* name -> why its module's offer was refused */
  GHashTable       *skipped;        /* manifest path -> RegManifestSkip */
  GHashTable       *scanned_dirs;   /* search directories discovery has read */
  GPtrArray        *added_dirs;     /* reg_registry_add_search_path(), newest first */
  char            **env_dirs;       /* REG_BACKEND_PATH, then the system directory */
  char             *default_name;   /* NULL while default_compiler is set */
  RegCompiler      *default_compiler;
  RegSettingSource  default_source;
  GPtrArray        *fallbacks;      /* never NULL: names, NULL-terminated, never
                                     * changed (a new array replaces it) */

  /* The loaded backends, read by lookups without any lock (hazard
   * pointers, see reg-hazard-private.h).  Written under `lock`: cleared
   * when the backends change, made again by the next lookup that misses
   * it.  Atomic. */
  GHashTable       *snapshot;

  /* Its own lock, a leaf: see reg-compile-cache.c. */
  RegCompileCache  *cache;

  /* Serialises discovery and loading in this registry: see reg-loading.c. */
  GRecMutex         load_lock;

  /* Atomic, read without any lock. */
  gint              module_checks;  /* RegModuleChecks, read by loads */
  gboolean          strict;         /* no partition, no fallback */
};

enum {
  REG_REGISTRY_PROP_0,
  REG_REGISTRY_PROP_DEFAULT_BACKEND,
  REG_REGISTRY_PROP_MODULE_CHECKS,
  REG_REGISTRY_PROP_FALLBACK_BACKENDS,
  REG_REGISTRY_PROP_COMPILE_CACHE_SIZE,
  REG_REGISTRY_PROP_STRICT,
  REG_REGISTRY_N_PROPS
};

enum {
  REG_REGISTRY_BACKEND_REGISTERED,
  REG_REGISTRY_BACKEND_DECLARED,
  REG_REGISTRY_BACKEND_UNREGISTERED,
  REG_REGISTRY_MODULE_LOADED,
  REG_REGISTRY_FALLBACK,
  REG_REGISTRY_BACKEND_CHANGED,
  REG_REGISTRY_N_SIGNALS
};

extern GParamSpec *_reg_registry_properties[REG_REGISTRY_N_PROPS];
extern guint       _reg_registry_signals[REG_REGISTRY_N_SIGNALS];

/* reg-registry.c */

/* Emits the detailed name signal @signal_id for each of @names (a
 * GPtrArray of strings); call without any lock. */
void        _reg_registry_emit_names        (RegRegistry  *self,
                                             guint         signal_id,
                                             GPtrArray    *names);
/* A list for the snapshots that invalidate() retires, to be freed once
 * the lock is released (they hold compiler references, and a
 * compiler's finalizer is someone else's code). */
GPtrArray  *_reg_registry_garbage_new       (void);
/* Call with the writer lock held whenever backends are added, removed
 * or loaded: drops the views derived from the table. */
void        _reg_registry_invalidate_locked (RegRegistry  *self,
                                             GPtrArray    *garbage);
/* The error of looking up @name, no backend: LOAD_FAILED for a name a
 * loaded module offered without declaring it (docs/discovery.md);
 * otherwise INVALID_BACKEND, saying why a skipped manifest that declares
 * it was skipped, or the names close to it. */
void        _reg_registry_set_unknown_error_locked (RegRegistry  *self,
                                                    const char   *name,
                                                    GError      **error);
/* Info snapshots of every backend reg_registry_list_backends() would list
 * with @exclude_tags (not NULL: an empty array excludes nothing), in its
 * order, all taken at one moment.  Runs discovery first. */
GPtrArray  *_reg_registry_dup_infos         (RegRegistry        *self,
                                             const char * const *exclude_tags);

/* reg-settings.c */

void         _reg_settings_init             (RegRegistry  *self);
void         _reg_settings_clear            (RegRegistry  *self);
/* The fallback backends, a reference to an array nobody changes. */
GPtrArray   *_reg_settings_ref_fallbacks    (RegRegistry  *self);
/* The default resolved to a compiler, and in *@name the name to bind its
 * functions to (the default backend's, or a default object's own). */
RegCompiler *_reg_settings_resolve_default  (RegRegistry  *self,
                                             char        **name,
                                             GError      **error);

/* reg-discovery.c */

void         _reg_discovery_init            (RegRegistry  *self);
void         _reg_discovery_clear           (RegRegistry  *self);
/* Reads the search directories not read yet. */
void         _reg_discovery_ensure          (RegRegistry  *self);
/* Discovers when @name is no backend yet, so that a lookup of it under
 * the lock that follows sees every declaration. */
void         _reg_discovery_ensure_name     (RegRegistry  *self,
                                             const char   *name);
/* The skipped manifest that seems to declare @name, if any. */
const RegManifestSkip *_reg_discovery_find_skipped_locked (RegRegistry *self,
                                                           const char  *name);

/* reg-loading.c */

/* Makes the compiler of the declared backend @name (and of the other
 * backends of its manifest the same load provides) and returns it, or
 * the compiler it has already. */
RegCompiler *_reg_loading_load              (RegRegistry  *self,
                                             const char   *name,
                                             GError      **error);

/* The file the verdicts of @manifest's backends are recorded against
 * (reg-verify-private.h): for a module written in C its file; for a
 * backend written in Python or JavaScript a key file in the user's cache
 * (see "Verdict keys" in reg-loading.c), or the source's file where there
 * is no user cache (setuid programs).  A key file is made or brought up
 * to date only with @create (to record a verdict), which for Python
 * starts the interpreter to find the module's files: without, NULL when
 * there is none or a file it lists changed, as no verdict recorded holds
 * then, and no interpreter starts.  Newly allocated. */
char *_reg_loading_dup_verdict_path (const RegManifest *manifest,
                                     gboolean           create);

G_END_DECLS
