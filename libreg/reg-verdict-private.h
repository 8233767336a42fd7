/* reg-verdict-private.h: making verdicts, and the stores that keep them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-file-private.h"
#include "reg-verdict.h"

G_BEGIN_DECLS

/* Immutable once handed out.  @time_us orders verdicts (there may be
 * several in a second); @stamp is the module file's as it was checked: a
 * verdict holds for that file only. */
struct _RegVerdict
{
  GObject          parent_instance;

  char            *backend_name;
  char            *module_path;
  RegVerdictKind   kind;
  char            *reason;         /* NULL for REG_VERDICT_KIND_OK only */
  char           **unsupported_ops;
  gint64           time_us;        /* since the epoch */
  RegFileStamp     stamp;
  GError          *store_error;    /* why it is not recorded; nullable */
};

/* @unsupported_ops may be NULL (none). */
RegVerdict  *_reg_verdict_new              (const char         *backend_name,
                                            const char         *module_path,
                                            RegVerdictKind      kind,
                                            const char         *reason,
                                            const char * const *unsupported_ops,
                                            gint64              time_us,
                                            const RegFileStamp *stamp);

/* The kind of the nick @nick ("wrong-results"), FALSE for any other text. */
gboolean     _reg_verdict_kind_from_nick   (const char         *nick,
                                            RegVerdictKind     *kind);

/* The stores (reg-verdict-store.c) */

/* The verdicts that hold for the module file @module_path as it is now:
 * each backend's newest, from whichever store, newest first; NULL when the
 * file cannot be stat'ed.  A store that is unreadable or corrupt in any way
 * is ignored whole, with a g_debug() saying why; each is read again only
 * when it changed.  Thread-safe. */
GPtrArray   *_reg_verdict_store_find       (const char         *module_path);

/* The first of @verdicts of backend @name, or with a %NULL @name the first
 * that quarantines the module; NULL if none.  (transfer none) */
RegVerdict  *_reg_verdict_store_pick       (GPtrArray          *verdicts,
                                            const char         *name);

/* Records @verdict in the user's store, or with @beside in the one beside
 * its module, replacing the backend's verdict of that file and dropping
 * those of files that changed or are gone.  Fails with a G_FILE_ERROR when
 * the store cannot be written or made, when a setuid program asks for the
 * user's, and when the verdicts that quarantine modules fill it
 * (G_FILE_ERROR_NOSPC). */
gboolean     _reg_verdict_store_record     (RegVerdict         *verdict,
                                            gboolean            beside,
                                            GError            **error);

G_END_DECLS
