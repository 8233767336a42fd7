/* reg-option-private.h: options and schemas inside libreg
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "reg-option.h"

G_BEGIN_DECLS

/* A schema is read by people and checked on every compile. */
#define REG_OPTION_MAX_OPTIONS     256
#define REG_OPTION_MAX_CHOICES     256
#define REG_OPTION_MAX_DESCRIPTION 1024

/* reg-option.c */

/* Every constructor and the manifest reader make options with it. */
RegOption  *_reg_option_new_full           (const char          *name,
                                            const char          *type_string,
                                            GVariant            *default_value,
                                            const char          *description,
                                            GVariant            *minimum,
                                            GVariant            *maximum,
                                            const char * const  *choices,
                                            GError             **error);
/* @text as a value of @type_string (an option's), unchecked, not floating. */
GVariant   *_reg_option_parse_text         (const char          *type_string,
                                            const char          *text,
                                            GError             **error);
/* reg_option_check_value(), naming the backend when it is not NULL. */
gboolean    _reg_option_check_value        (RegOption           *self,
                                            const char          *backend,
                                            GVariant            *value,
                                            GError             **error);
gboolean    _reg_option_equal              (RegOption           *a,
                                            RegOption           *b);
/* The first of the @n @strings that repeats an earlier one, or NULL. */
const char *_reg_option_find_repeated      (const char * const  *strings,
                                            gsize                n);
/* Sets REG_COMPILER_ERROR_BAD_OPTION, returns FALSE. */
gboolean    _reg_option_fail               (GError             **error,
                                            const char          *format,
                                            ...) G_GNUC_PRINTF (2, 3);
/* Message parts, escaped: "option 'threads' for backend 'inductor'" (no
 * backend when it is NULL), " for backend 'inductor'" (or ""), "'a', 'b'". */
char       *_reg_option_describe           (const char          *name,
                                            const char          *backend);
char       *_reg_option_for_backend        (const char          *backend);
char       *_reg_option_join_quoted        (const char * const  *strings);

/* reg-option-list.c: schemas are immutable lists of options */

/* Takes @options (of RegOption, freeing them), valid and names unique. */
GListModel *_reg_option_list_new           (GPtrArray           *options);
/* NULL (no schema) equals NULL only. */
gboolean    _reg_option_list_equal         (GListModel          *a,
                                            GListModel          *b);
/* Borrowed, or NULL. */
RegOption  *_reg_option_list_lookup        (GListModel          *schema,
                                            const char          *name);
/* Copies what a backend's code returned as its schema (any list model, which
 * may hold other objects or lie about its size), or fails with FAILED and
 * what the caller puts after the backend's name: "declares option 'a' twice". */
GListModel *_reg_option_list_copy_checked  (GListModel          *model,
                                            GError             **error);
/* The check of every compile's options: an `a{sv}` giving each key once,
 * following @schema when there is one. */
gboolean    _reg_option_list_check_options (GListModel          *schema,
                                            const char          *backend,
                                            GVariant            *options,
                                            GError             **error);
/* KEY=VALUE texts as the `a{sv}` a compile takes, each VALUE read by the
 * type @schema declares for KEY, or as GVariant text without a schema.
 * Not floating. */
GVariant   *_reg_option_list_parse         (GListModel          *schema,
                                            const char          *backend,
                                            const char * const  *assignments,
                                            GError             **error);

G_END_DECLS
