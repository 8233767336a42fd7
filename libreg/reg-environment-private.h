/* reg-environment-private.h: whether the environment may choose code to run
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* FALSE in a setuid or setgid program (or one the kernel otherwise runs
 * with more privileges than its caller): the variables that name
 * directories of code, helper programs or settings (REG_BACKEND_PATH,
 * REG_DEFAULT_BACKEND, ...) are its caller's, and are ignored, as GIO
 * ignores GIO_EXTRA_MODULES. */
gboolean _reg_environment_is_trusted (void);

G_END_DECLS
