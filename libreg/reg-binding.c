/* reg-binding.c: what libreg knows of the language bindings
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-binding-private.h"

/* Type data the bindings set (to a non-NULL value) on every type a class
 * of theirs defines, and on no other type. */
#define PYGOBJECT_CUSTOM_KEY "PyGObject::custom"
#define GJS_CUSTOM_KEY       "gjs::custom-type"

static gboolean
has_type_data (GType       type,
               const char *key)
{
  GQuark quark = g_quark_try_string (key);

  return quark != 0 && g_type_get_qdata (type, quark) != NULL;
}

gboolean
_reg_binding_is_python (GType type)
{
  return has_type_data (type, PYGOBJECT_CUSTOM_KEY);
}

gboolean
_reg_binding_is_thread_bound (GType type)
{
  return has_type_data (type, GJS_CUSTOM_KEY);
}
