/* reg-backend-error-private.h: what a backend's method reports
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib-object.h>

#include "reg-error.h"

G_BEGIN_DECLS

/* Judges the outcome of a backend's compile or call, made by
 * @implementation for the backend named @backend: @returned says whether
 * it returned its result, @local_error is the error it set (cleared here).
 *
 * Returned with no error: TRUE.  Returned and set an error: a warning, the
 * error dropped, TRUE.  Failed with an error: the error goes to @error, as
 * REG_COMPILER_ERROR_BACKEND_UNAVAILABLE when it is the registry's for a
 * backend it cannot provide (one this backend builds on), as
 * REG_COMPILER_ERROR @code with the backend's message when its domain is
 * not one of libreg's (a binding's own, such as GJS's); FALSE.  Failed
 * without an error: REG_COMPILER_ERROR @code saying so; when
 * @implementation is of a class defined in Python, saying that it raised
 * an exception whose traceback was printed or returned None (PyGObject
 * gives C no error for an exception that is not a GLib.Error); FALSE. */
gboolean _reg_backend_check_result (GObject           *implementation,
                                    const char        *backend,
                                    gboolean           returned,
                                    RegCompilerError   code,
                                    GError           **local_error,
                                    GError           **error);

G_END_DECLS
