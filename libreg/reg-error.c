/* reg-error.c: the error domains of libreg
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-error.h"

/**
 * reg_registry_error_quark:
 *
 * Returns: the %REG_REGISTRY_ERROR domain
 */
G_DEFINE_QUARK (reg-registry-error-quark, reg_registry_error)

/**
 * reg_compiler_error_quark:
 *
 * Returns: the %REG_COMPILER_ERROR domain
 */
G_DEFINE_QUARK (reg-compiler-error-quark, reg_compiler_error)

/**
 * reg_graph_error_quark:
 *
 * Returns: the %REG_GRAPH_ERROR domain
 */
G_DEFINE_QUARK (reg-graph-error-quark, reg_graph_error)

/**
 * reg_tensor_error_quark:
 *
 * Returns: the %REG_TENSOR_ERROR domain
 */
G_DEFINE_QUARK (reg-tensor-error-quark, reg_tensor_error)
