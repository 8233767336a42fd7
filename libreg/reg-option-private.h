/* reg-option-private.h: option schemas inside libreg
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "reg-option.h"

G_BEGIN_DECLS

/* The most options one backend may declare, and the most choices one
 * option may have: a schema is read by people, and checked on every
 * compile. */
#define REG_OPTION_MAX_OPTIONS     256
#define REG_OPTION_MAX_CHOICES     256
#define REG_OPTION_MAX_DESCRIPTION 1024

/* The one validating constructor: every public constructor and the
 * manifest reader make options through it.  Takes floating
 * references of the variants (sunk even on failure). */
RegOption  *_reg_option_new_full           (const char          *name,
                                            const char          *type_string,
                                            GVariant            *default_value,
                                            const char          *description,
                                            GVariant            *minimum,
                                            GVariant            *maximum,
                                            const char * const  *choices,
                                            GError             **error);

/* Reads @text as a value of @type_string (one RegOption accepts), without
 * the checks of a range or choices; the manifest reader reads Minimum= and
 * Maximum= with it.  Returns a new, non-floating reference. */
GVariant   *_reg_option_parse_text         (const char          *type_string,
                                            const char          *text,
                                            GError             **error);

gboolean    _reg_option_equal              (RegOption           *a,
                                            RegOption           *b);

/* An immutable list model of options: what schemas are handed out as.
 * @options are checked by the caller (valid, names unique). */
GListModel *_reg_option_list_new           (RegOption * const   *options,
                                            guint                n_options);
/* Both nullable: NULL (no schema) equals NULL only. */
gboolean    _reg_option_list_equal         (GListModel          *a,
                                            GListModel          *b);
/* The option named @name in @schema (an option list), borrowed, or NULL. */
RegOption  *_reg_option_list_lookup        (GListModel          *schema,
                                            const char          *name);

/* Checks what a backend's own code handed back as its schema (any list
 * model: a binding's, possibly lying about its size or holding other
 * objects) and copies it into an option list.  NULL with @error (FAILED,
 * saying what is wrong) when it is not a schema. */
GListModel *_reg_option_list_copy_checked  (GListModel          *model,
                                            const char          *backend,
                                            GError             **error);

/* Checks the `a{sv}` @options against @schema (an option list) for the
 * backend @backend: every key declared, every value of its option's type,
 * within its range or choices.  BAD_OPTION saying what is wrong, with
 * close matches for an unknown key. */
gboolean    _reg_option_list_check_options (GListModel          *schema,
                                            const char          *backend,
                                            GVariant            *options,
                                            GError             **error);

G_END_DECLS
