/* reg-backend-error.c: what a backend's method reports
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <gio/gio.h>

#include "reg-backend-error-private.h"
#include "reg-binding-private.h"
#include "reg-graph.h"
#include "reg-message-private.h"

/* The errors callers of libreg handle: a backend's error in one of
 * libreg's domains, or a cancellation (of a cancellable the caller gave,
 * which the backend saw as the current one), reaches the caller as it
 * is. */
static gboolean
passes_through (const GError *error)
{
  return error->domain == REG_COMPILER_ERROR || error->domain == REG_GRAPH_ERROR ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

gboolean
_reg_backend_check_result (GObject           *implementation,
                           const char        *backend,
                           gboolean           returned,
                           RegCompilerError   code,
                           GError           **local_error,
                           GError           **error)
{
  g_autofree char *who = _reg_text_for_message (backend, -1, 256);
  g_autoptr(GError) reported = g_steal_pointer (local_error);

  if (returned)
    {
      if (reported != NULL)
        g_warning ("backend '%s' returned its result and set an error: %s",
                   who, reported->message);
      return TRUE;
    }

  if (reported == NULL)
    {
      if (_reg_binding_is_python (G_OBJECT_TYPE (implementation)))
        g_set_error (error, REG_COMPILER_ERROR, code,
                     "backend '%s': the Python implementation raised an exception "
                     "(its traceback was printed) or returned None", who);
      else
        g_set_error (error, REG_COMPILER_ERROR, code,
                     "backend '%s' failed without giving a reason", who);
    }
  else if (passes_through (reported))
    {
      g_propagate_error (error, g_steal_pointer (&reported));
    }
  else
    {
      g_set_error (error, REG_COMPILER_ERROR, code, "backend '%s': %s",
                   who, reported->message);
    }

  return FALSE;
}
