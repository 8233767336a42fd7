/* reg-compiler-private.h: what the registry sets on compilers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-compiler.h"

G_BEGIN_DECLS

/* Gives @self the schema @options (an option list, or NULL for none)
 * before anyone else has @self: a module backend's schema is its
 * manifest's, and the backend is not asked.  Returns FALSE, keeping the
 * schema @self has, when one was set or asked for already. */
gboolean _reg_compiler_set_options (RegCompiler *self,
                                    GListModel  *options);

G_END_DECLS
