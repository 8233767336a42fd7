/* reg-module-private.h: the loader of modules written in C
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-loader-private.h"
#include "reg-module.h"

G_BEGIN_DECLS

/* Loader=c: a GModule, one RegModule per module file in the process
 * (identified by its device and inode, whichever path leads to it),
 * loaded once and kept for the life of the process, as GTypes registered
 * from it cannot be unregistered.  A failure is retried on the next
 * load. */
extern const RegLoader _reg_module_loader;

G_END_DECLS
