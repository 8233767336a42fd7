/* reg-backend-error.c: what a backend's method reports
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <gio/gio.h>

#include "reg-backend-error-private.h"
#include "reg-binding-private.h"
#include "reg-error.h"
#include "reg-message-private.h"

/* A backend's message is cut after this many bytes: enough for any
 * message meant to be read. */
#define BACKEND_MESSAGE_MAX 4096

/* The errors callers of libreg handle: a backend's error in one of
 * libreg's domains (a tensor it could not allocate included), or a
 * cancellation (of a cancellable the caller gave,
 * which the backend saw as the current one), reaches the caller as it
 * is. */
static gboolean
passes_through (const GError *error)
{
  return error->domain == REG_COMPILER_ERROR || error->domain == REG_GRAPH_ERROR ||
         error->domain == REG_TENSOR_ERROR ||
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
  g_autofree char *who = NULL;
  g_autoptr(GError) reported = g_steal_pointer (local_error);

  /* Every call comes here: escaped only for a message. */
  if (returned && reported == NULL)
    return TRUE;

  who = _reg_text_for_message (backend, -1, 256);
  if (returned)
    {
      if (reported != NULL)
        {
          g_autofree char *why = _reg_text_for_message (reported->message, -1, BACKEND_MESSAGE_MAX);

          g_warning ("backend '%s' returned its result and set an error: %s", who, why);
        }
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
  else if (g_error_matches (reported, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND) ||
           g_error_matches (reported, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED))
    {
      /* The registry could not provide a backend this one builds on.  Not
       * the registry's error of this call (this backend exists): a code
       * of its own, so that callers and `regctl verify` tell it from this
       * backend's failures. */
      g_autofree char *why = _reg_text_for_message (reported->message, -1, BACKEND_MESSAGE_MAX);

      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BACKEND_UNAVAILABLE,
                   "backend '%s': %s", who, why);
    }
  else if (passes_through (reported))
    {
      /* Domain and code as they are; the text escaped like any other
       * from outside. */
      char *shown = _reg_text_for_message (reported->message, -1, BACKEND_MESSAGE_MAX);

      g_free (reported->message);
      reported->message = shown;
      g_propagate_error (error, g_steal_pointer (&reported));
    }
  else
    {
      g_autofree char *why = _reg_text_for_message (reported->message, -1, BACKEND_MESSAGE_MAX);

      g_set_error (error, REG_COMPILER_ERROR, code, "backend '%s': %s", who, why);
    }

  return FALSE;
}
