/* reg-option-private.h: options and schemas inside libreg
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

/* reg-option.c ------------------------------------------------------------ */

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

/* reg_option_check_value() for the option of the backend @backend
 * (nullable: the message names none).  @self is made. */
gboolean    _reg_option_check_value        (RegOption           *self,
                                            const char          *backend,
                                            GVariant            *value,
                                            GError             **error);

gboolean    _reg_option_equal              (RegOption           *a,
                                            RegOption           *b);

/* Message parts, escaped: "option 'threads' for backend 'inductor'" (or
 * without the backend when it is NULL), " for backend 'inductor'" (or ""),
 * "'fold', 'cse'". */
char       *_reg_option_describe           (const char          *name,
                                            const char          *backend);
char       *_reg_option_for_backend        (const char          *backend);
char       *_reg_option_join_quoted        (const char * const  *strings);

/* reg-option-list.c: schemas --------------------------------------------- */

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
 * saying what is wrong) when it is not a schema: "backend 'x' declares
 * option 'a' twice", or with @backend NULL the predicate alone ("declares
 * option 'a' twice"), for a caller that names the backend itself. */
GListModel *_reg_option_list_copy_checked  (GListModel          *model,
                                            const char          *backend,
                                            GError             **error);

/* The check of the options of every compile, for the backend @backend as
 * its caller knows it: @options is an `a{sv}` that gives each key once
 * and, when there is a @schema (an option list, nullable), follows it:
 * every key declared, every value of its option's type, within its range
 * or choices.  BAD_OPTION saying what is wrong, with close matches for an
 * unknown key. */
gboolean    _reg_option_list_check_options (GListModel          *schema,
                                            const char          *backend,
                                            GVariant            *options,
                                            GError             **error);

/* Reads KEY=VALUE texts into the `a{sv}` a compile takes: each VALUE by
 * the type @schema (an option list, nullable) declares for KEY, or as
 * GVariant text when there is no schema.  A new, non-floating reference,
 * or NULL with BAD_OPTION. */
GVariant   *_reg_option_list_parse         (GListModel          *schema,
                                            const char          *backend,
                                            const char * const  *assignments,
                                            GError             **error);

G_END_DECLS
