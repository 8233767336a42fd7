/* reg-snapshot-private.h: an immutable name -> compiler table
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-compiler.h"

G_BEGIN_DECLS

/* What lookups of loaded backends read without a lock: never changed once
 * made, replaced as a whole, and freed only when no hazard slot protects
 * it (see reg-hazard-private.h).  It holds a reference on each compiler,
 * so a compiler found in it stays alive while the snapshot is protected. */
typedef struct _RegSnapshot RegSnapshot;

RegSnapshot *_reg_snapshot_new    (const char * const *names,
                                   RegCompiler * const *compilers,
                                   guint               n);
RegCompiler *_reg_snapshot_lookup (const RegSnapshot  *snapshot,
                                   const char         *name);
void         _reg_snapshot_free   (RegSnapshot        *snapshot);

G_END_DECLS
