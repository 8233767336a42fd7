/* reg-backend-info-private.h: making backend info snapshots
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-manifest-private.h"
#include "reg-backend-info.h"

G_BEGIN_DECLS

/* @options: an option list, or NULL (no schema); @details: the manifest's
 * version, authors, website, license and compiler flags (nullable), kept
 * by reference. */
RegBackendInfo *_reg_backend_info_new   (const char         *name,
                                         const char * const *tags,
                                         const char         *description,
                                         const char         *module_path,
                                         gboolean            loaded,
                                         RegBackendOrigin    origin,
                                         gboolean            is_default,
                                         GListModel         *options,
                                         RegBackendDetails  *details);

/* Sets the options (an option list, or NULL) of an info nobody else has
 * seen yet. */
void            _reg_backend_info_set_options (RegBackendInfo *self,
                                               GListModel     *options);

/* Adds @flags, what the backend's compiler says of itself, to the
 * manifest's, on an info nobody else has seen yet. */
void            _reg_backend_info_add_compiler_flags (RegBackendInfo   *self,
                                                      RegCompilerFlags  flags);

/* Whether @a and @b say the same of the same backend. */
gboolean        _reg_backend_info_equal (RegBackendInfo     *a,
                                         RegBackendInfo     *b);

/* Sets where a module backend was declared, once, before @self is handed
 * out: the manifest, the later declarations of its name it hides, its
 * loader and (nullable) its entry point. */
void            _reg_backend_info_set_declaration (RegBackendInfo     *self,
                                                   const char         *manifest_path,
                                                   const char * const *shadowed_manifests,
                                                   const char         *loader,
                                                   const char         *entry_point);

/* Sets what the backend's state is, once, before @self is handed out:
 * @verdict (nullable) is the one that governs it, @load_error (nullable)
 * why its last load failed; the state follows from them and @loaded. */
void            _reg_backend_info_set_state (RegBackendInfo     *self,
                                             RegVerdict         *verdict,
                                             const char         *load_error);

G_END_DECLS
