/* reg.h: the one public header of libreg
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#define REG_INSIDE
# include "reg-version.h"
# include "reg-version-macros.h"
# include "reg-enums.h"
# include "reg-error.h"
# include "reg-tensor.h"
# include "reg-op.h"
# include "reg-graph.h"
# include "reg-compiled-fn.h"
# include "reg-option.h"
# include "reg-compiler.h"
# include "reg-func-compiler.h"
# include "reg-backend-info.h"
# include "reg-verdict.h"
# include "reg-module.h"
# include "reg-close-matches.h"
# include "reg-registry.h"
# include "reg-backend-list.h"
#undef REG_INSIDE
