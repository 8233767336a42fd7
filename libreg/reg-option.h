/* reg-option.h: the declaration of one backend option
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <glib-object.h>

#include "reg-version-macros.h"

G_BEGIN_DECLS

#define REG_TYPE_OPTION (reg_option_get_type ())

REG_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (RegOption, reg_option, REG, OPTION, GObject)

REG_AVAILABLE_IN_ALL
RegOption          *reg_option_new                (const char          *name,
                                                   const char          *type_string,
                                                   GVariant            *default_value,
                                                   const char          *description,
                                                   GError             **error);
REG_AVAILABLE_IN_ALL
RegOption          *reg_option_new_with_range     (const char          *name,
                                                   const char          *type_string,
                                                   GVariant            *default_value,
                                                   GVariant            *minimum,
                                                   GVariant            *maximum,
                                                   const char          *description,
                                                   GError             **error);
REG_AVAILABLE_IN_ALL
RegOption          *reg_option_new_with_choices   (const char          *name,
                                                   const char          *type_string,
                                                   GVariant            *default_value,
                                                   const char * const  *choices,
                                                   const char          *description,
                                                   GError             **error);

REG_AVAILABLE_IN_ALL
const char         *reg_option_get_name           (RegOption           *self);
REG_AVAILABLE_IN_ALL
const char         *reg_option_get_type_string    (RegOption           *self);
REG_AVAILABLE_IN_ALL
const char         *reg_option_get_type_name      (RegOption           *self);
REG_AVAILABLE_IN_ALL
GVariant           *reg_option_get_default_value  (RegOption           *self);
REG_AVAILABLE_IN_ALL
const char         *reg_option_get_description    (RegOption           *self);
REG_AVAILABLE_IN_ALL
GVariant           *reg_option_get_minimum        (RegOption           *self);
REG_AVAILABLE_IN_ALL
GVariant           *reg_option_get_maximum        (RegOption           *self);
REG_AVAILABLE_IN_ALL
const char * const *reg_option_get_choices        (RegOption           *self);

REG_AVAILABLE_IN_ALL
gboolean            reg_option_check_value        (RegOption           *self,
                                                   GVariant            *value,
                                                   GError             **error);
REG_AVAILABLE_IN_ALL
GVariant           *reg_option_parse_value        (RegOption           *self,
                                                   const char          *text,
                                                   GError             **error);
REG_AVAILABLE_IN_ALL
char               *reg_option_value_to_string    (RegOption           *self,
                                                   GVariant            *value);

G_END_DECLS
