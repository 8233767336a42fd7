/* reg-registry.h: the registry of compiler backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <gio/gio.h>

#include "reg-error.h"
#include "reg-version-macros.h"
#include "reg-backend-info.h"
#include "reg-compiled-fn.h"
#include "reg-compiler.h"
#include "reg-graph.h"
#include "reg-verdict.h"

G_BEGIN_DECLS

/**
 * REG_DEFAULT_BACKEND:
 *
 * The name of the backend a registry uses when no other default is set.
 */
#define REG_DEFAULT_BACKEND "inductor"

/**
 * REG_TAG_DEBUG:
 *
 * The tag of backends meant for debugging, hidden by default from
 * [method@Reg.Registry.list_backends].
 */
#define REG_TAG_DEBUG "debug"

/**
 * REG_TAG_EXPERIMENTAL:
 *
 * The tag of experimental backends, hidden by default from
 * [method@Reg.Registry.list_backends].
 */
#define REG_TAG_EXPERIMENTAL "experimental"

/**
 * RegModuleChecks:
 * @REG_MODULE_CHECKS_NONE: open modules without looking at verdicts
 * @REG_MODULE_CHECKS_QUARANTINE: never open a module file that a recorded
 *   verdict quarantines (a check crashed or timed out on it, and the file
 *   has not changed since); its backends' lookups fail with
 *   %REG_REGISTRY_ERROR_LOAD_FAILED.  The default.
 * @REG_MODULE_CHECKS_VERIFY: before the first load of a module, check
 *   each of its backends that has no recorded verdict out of process, as
 *   [method@Reg.Registry.verify_backend] does (recording the verdicts in
 *   the user's store), and refuse the module when a check crashes or times
 *   out.  Implies the quarantine.
 *
 * What a [class@Reg.Registry] checks before it opens a module file; see
 * [method@Reg.Registry.set_module_checks] and the "Verifying backends"
 * page.
 */
typedef enum /*< flags >*/ {
  REG_MODULE_CHECKS_NONE       = 0,
  REG_MODULE_CHECKS_QUARANTINE = 1 << 0,
  REG_MODULE_CHECKS_VERIFY     = 1 << 1,
} RegModuleChecks;

/**
 * RegSettingSource:
 * @REG_SETTING_SOURCE_BUILT_IN: libreg's own default
 * @REG_SETTING_SOURCE_ENVIRONMENT: an environment variable, read when the
 *   registry was made
 * @REG_SETTING_SOURCE_APPLICATION: set by the application
 *
 * Where a registry setting came from; see
 * [method@Reg.Registry.get_default_backend_source].
 */
typedef enum {
  REG_SETTING_SOURCE_BUILT_IN,
  REG_SETTING_SOURCE_ENVIRONMENT,
  REG_SETTING_SOURCE_APPLICATION,
} RegSettingSource;

/**
 * REG_COMPILE_CACHE_DEFAULT_SIZE:
 *
 * The number of compiled functions a registry keeps when neither the
 * application nor `REG_COMPILE_CACHE_SIZE` says otherwise; see
 * [property@Reg.Registry:compile-cache-size].
 */
#define REG_COMPILE_CACHE_DEFAULT_SIZE 128

#define REG_TYPE_REGISTRY (reg_registry_get_type ())

REG_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (RegRegistry, reg_registry, REG, REGISTRY, GObject)

REG_AVAILABLE_IN_ALL
RegRegistry    *reg_registry_get_default                 (void);
REG_AVAILABLE_IN_ALL
RegRegistry    *reg_registry_new                         (void);

REG_AVAILABLE_IN_ALL
gboolean        reg_registry_register_backend            (RegRegistry        *self,
                                                          const char         *name,
                                                          RegCompiler        *compiler,
                                                          const char * const *tags,
                                                          GError            **error);
REG_AVAILABLE_IN_ALL
gboolean        reg_registry_register_debug_backend      (RegRegistry        *self,
                                                          const char         *name,
                                                          RegCompiler        *compiler,
                                                          GError            **error);
REG_AVAILABLE_IN_ALL
gboolean        reg_registry_register_experimental_backend (RegRegistry      *self,
                                                          const char         *name,
                                                          RegCompiler        *compiler,
                                                          GError            **error);
REG_AVAILABLE_IN_ALL
gboolean        reg_registry_unregister_backend          (RegRegistry        *self,
                                                          const char         *name,
                                                          GError            **error);
REG_AVAILABLE_IN_ALL
RegCompiler    *reg_registry_lookup_backend              (RegRegistry        *self,
                                                          const char         *name,
                                                          GError            **error);
REG_AVAILABLE_IN_ALL
char          **reg_registry_list_backends               (RegRegistry        *self,
                                                          const char * const *exclude_tags);
REG_AVAILABLE_IN_ALL
char          **reg_registry_get_backend_tags            (RegRegistry        *self,
                                                          const char         *name,
                                                          GError            **error);
REG_AVAILABLE_IN_ALL
RegBackendInfo *reg_registry_get_backend_info            (RegRegistry        *self,
                                                          const char         *name);
REG_AVAILABLE_IN_ALL
gboolean        reg_registry_is_registered               (RegRegistry        *self,
                                                          RegCompiler        *compiler);

REG_AVAILABLE_IN_ALL
void            reg_registry_set_default_backend         (RegRegistry        *self,
                                                          const char         *name);
REG_AVAILABLE_IN_ALL
char           *reg_registry_dup_default_backend         (RegRegistry        *self);
REG_AVAILABLE_IN_ALL
void            reg_registry_set_default_compiler        (RegRegistry        *self,
                                                          RegCompiler        *compiler);
REG_AVAILABLE_IN_ALL
RegCompiler    *reg_registry_dup_default_compiler        (RegRegistry        *self,
                                                          GError            **error);

REG_AVAILABLE_IN_ALL
RegSettingSource reg_registry_get_default_backend_source (RegRegistry        *self);
REG_AVAILABLE_IN_ALL
void            reg_registry_set_fallback_backends       (RegRegistry        *self,
                                                          const char * const *names);
REG_AVAILABLE_IN_ALL
char          **reg_registry_dup_fallback_backends       (RegRegistry        *self);
REG_AVAILABLE_IN_ALL
void            reg_registry_set_strict                  (RegRegistry        *self,
                                                          gboolean            strict);
REG_AVAILABLE_IN_ALL
gboolean        reg_registry_get_strict                  (RegRegistry        *self);

REG_AVAILABLE_IN_ALL
RegCompiledFn  *reg_registry_compile                     (RegRegistry        *self,
                                                          const char         *backend,
                                                          RegGraph           *graph,
                                                          GPtrArray          *example_inputs,
                                                          GVariant           *options,
                                                          GError            **error);
REG_AVAILABLE_IN_ALL
void            reg_registry_compile_async               (RegRegistry        *self,
                                                          const char         *backend,
                                                          RegGraph           *graph,
                                                          GPtrArray          *example_inputs,
                                                          GVariant           *options,
                                                          GCancellable       *cancellable,
                                                          GAsyncReadyCallback callback,
                                                          gpointer            user_data);
REG_AVAILABLE_IN_ALL
RegCompiledFn  *reg_registry_compile_finish              (RegRegistry        *self,
                                                          GAsyncResult       *result,
                                                          GError            **error);
REG_AVAILABLE_IN_ALL
void            reg_registry_set_compile_cache_size      (RegRegistry        *self,
                                                          guint               size);
REG_AVAILABLE_IN_ALL
guint           reg_registry_get_compile_cache_size      (RegRegistry        *self);
REG_AVAILABLE_IN_ALL
void            reg_registry_get_compile_cache_counters  (RegRegistry        *self,
                                                          guint64            *hits,
                                                          guint64            *misses,
                                                          guint64            *evictions);
REG_AVAILABLE_IN_ALL
char          **reg_registry_suggest                     (RegRegistry        *self,
                                                          const char         *name);

REG_AVAILABLE_IN_ALL
void            reg_registry_add_search_path             (RegRegistry        *self,
                                                          const char         *dir);
REG_AVAILABLE_IN_ALL
char          **reg_registry_get_search_paths            (RegRegistry        *self);
REG_AVAILABLE_IN_ALL
void            reg_registry_rescan                      (RegRegistry        *self);
REG_AVAILABLE_IN_ALL
GHashTable     *reg_registry_dup_skipped_manifests       (RegRegistry        *self);
REG_AVAILABLE_IN_ALL
void            reg_registry_set_module_checks           (RegRegistry        *self,
                                                          RegModuleChecks     checks);
REG_AVAILABLE_IN_ALL
RegModuleChecks reg_registry_get_module_checks           (RegRegistry        *self);
REG_AVAILABLE_IN_ALL
RegVerdict     *reg_registry_verify_backend              (RegRegistry        *self,
                                                          const char         *name,
                                                          GVariant           *options,
                                                          GCancellable       *cancellable,
                                                          GError            **error);
REG_AVAILABLE_IN_ALL
RegVerdict     *reg_registry_dup_verdict                 (RegRegistry        *self,
                                                          const char         *name);

G_END_DECLS
