/* reg-verdict.h: the outcome of checking a backend out of process
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

/**
 * RegVerdictKind:
 * @REG_VERDICT_KIND_OK: every graph of the conformance set compiled and
 *   agreed with eager
 * @REG_VERDICT_KIND_UNSUPPORTED: the backend refused some graphs with
 *   %REG_COMPILER_ERROR_UNSUPPORTED_OP, which is allowed, and agreed with
 *   eager on the others
 * @REG_VERDICT_KIND_WRONG_RESULTS: an output differed from eager's beyond
 *   the tolerance, or a graph failed otherwise than as unsupported
 * @REG_VERDICT_KIND_CRASHED: the checking process died (a signal, or an
 *   exit without a result); the module is quarantined
 * @REG_VERDICT_KIND_TIMEOUT: the check did not finish in time and was
 *   killed; the module is quarantined
 * @REG_VERDICT_KIND_LOAD_FAILED: the backend's module could not provide it
 *
 * The verdict of a backend's check.  The nicks (`ok`, `unsupported`,
 * `wrong-results`, `crashed`, `timeout`, `load-failed`) are the words
 * `regctl verify` prints.
 */
typedef enum {
  REG_VERDICT_KIND_OK,
  REG_VERDICT_KIND_UNSUPPORTED,
  REG_VERDICT_KIND_WRONG_RESULTS,
  REG_VERDICT_KIND_CRASHED,
  REG_VERDICT_KIND_TIMEOUT,
  REG_VERDICT_KIND_LOAD_FAILED,
} RegVerdictKind;

#define REG_TYPE_VERDICT (reg_verdict_get_type ())

REG_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (RegVerdict, reg_verdict, REG, VERDICT, GObject)

REG_AVAILABLE_IN_ALL
const char         *reg_verdict_get_backend_name    (RegVerdict *self);
REG_AVAILABLE_IN_ALL
const char         *reg_verdict_get_module_path     (RegVerdict *self);
REG_AVAILABLE_IN_ALL
RegVerdictKind      reg_verdict_get_kind            (RegVerdict *self);
REG_AVAILABLE_IN_ALL
const char         *reg_verdict_get_reason          (RegVerdict *self);
REG_AVAILABLE_IN_ALL
const char * const *reg_verdict_get_unsupported_ops (RegVerdict *self);
REG_AVAILABLE_IN_ALL
gint64              reg_verdict_get_time            (RegVerdict *self);
REG_AVAILABLE_IN_ALL
gboolean            reg_verdict_get_quarantines     (RegVerdict *self);
REG_AVAILABLE_IN_ALL
const GError       *reg_verdict_get_store_error     (RegVerdict *self);

G_END_DECLS
