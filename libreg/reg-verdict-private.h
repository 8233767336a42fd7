/* reg-verdict-private.h: making verdicts
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-verdict.h"

G_BEGIN_DECLS

/* @reason is NULL for REG_VERDICT_KIND_OK only; @unsupported_ops may be
 * NULL (none); @time_us is in microseconds since the epoch. */
RegVerdict  *_reg_verdict_new            (const char         *backend_name,
                                          const char         *module_path,
                                          RegVerdictKind      kind,
                                          const char         *reason,
                                          const char * const *unsupported_ops,
                                          gint64              time_us);

/* When the check ran, in microseconds since the epoch: what orders
 * verdicts, of which there may be several in a second. */
gint64       _reg_verdict_get_time_us    (RegVerdict         *self);

/* Sets reg_verdict_get_store_error(), taking @error: only before the
 * verdict is handed out. */
void         _reg_verdict_take_store_error (RegVerdict       *self,
                                            GError           *error);

/* The nick of @kind ("wrong-results"), or NULL for a value that is none. */
const char  *_reg_verdict_kind_to_nick   (RegVerdictKind      kind);

/* The kind whose nick is @nick; FALSE for any other text. */
gboolean     _reg_verdict_kind_from_nick (const char         *nick,
                                          RegVerdictKind     *kind);

G_END_DECLS
