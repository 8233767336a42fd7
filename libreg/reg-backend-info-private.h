/* reg-backend-info-private.h: making backend info snapshots
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-manifest-private.h"
#include "reg-backend-info.h"

G_BEGIN_DECLS

/* The info of the backend @name, made under the registry's lock from
 * what runs none of the backend's code: @manifest and @declaration (both
 * NULL for a runtime backend) give its description, paths, loader, entry
 * point and details (kept by reference), @hidden (nullable, RegManifest)
 * the other declarations of its name it hides.  Complete it with
 * _reg_backend_info_complete() before handing it out. */
RegBackendInfo *_reg_backend_info_new      (const char               *name,
                                            const char * const       *tags,
                                            RegBackendOrigin          origin,
                                            gboolean                  is_default,
                                            const RegManifest        *manifest,
                                            const RegManifestBackend *declaration,
                                            GPtrArray                *hidden);

/* Completes @self once, outside the lock (it asks @compiler): @compiler
 * (nullable, the backend's once loaded) adds its flags and, for a runtime
 * backend, its options; @verdict (nullable) is the one that governs it,
 * @load_error (nullable) why its last load failed.  The state follows. */
void            _reg_backend_info_complete (RegBackendInfo           *self,
                                            RegCompiler              *compiler,
                                            RegVerdict               *verdict,
                                            const char               *load_error);

/* Whether @a and @b, made by _reg_backend_info_new() (whose tags and
 * shadowed manifests are never NULL), say the same of the same backend. */
gboolean        _reg_backend_info_equal    (RegBackendInfo           *a,
                                            RegBackendInfo           *b);

G_END_DECLS
