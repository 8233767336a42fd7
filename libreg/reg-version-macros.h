/* reg-version-macros.h: symbol visibility and availability macros
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <glib.h>

#ifndef _REG_EXTERN
# define _REG_EXTERN __attribute__((visibility ("default"))) extern
#endif

/**
 * REG_AVAILABLE_IN_ALL:
 *
 * Marks a symbol as exported and available in every version of libreg.
 */
#define REG_AVAILABLE_IN_ALL _REG_EXTERN

/**
 * REG_AVAILABLE_IN_1_0:
 *
 * Marks a symbol as available since libreg 1.0.
 */
#define REG_AVAILABLE_IN_1_0 _REG_EXTERN
