/* reg-error.h: the error domains of libreg
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <glib.h>

#include "reg-version-macros.h"

G_BEGIN_DECLS

/**
 * REG_REGISTRY_ERROR:
 *
 * The error domain of the registry.  Its codes are [enum@Reg.RegistryError].
 */
#define REG_REGISTRY_ERROR (reg_registry_error_quark ())

/**
 * RegRegistryError:
 * @REG_REGISTRY_ERROR_INVALID_BACKEND: no backend has that name
 * @REG_REGISTRY_ERROR_DUPLICATE_NAME: a backend of that name is registered already
 * @REG_REGISTRY_ERROR_INVALID_NAME: a name or tag breaks the naming rules
 * @REG_REGISTRY_ERROR_LOAD_FAILED: the module declaring the backend could not
 *   provide it
 *
 * Errors in the %REG_REGISTRY_ERROR domain.
 */
typedef enum {
  REG_REGISTRY_ERROR_INVALID_BACKEND,
  REG_REGISTRY_ERROR_DUPLICATE_NAME,
  REG_REGISTRY_ERROR_INVALID_NAME,
  REG_REGISTRY_ERROR_LOAD_FAILED,
} RegRegistryError;

/**
 * REG_COMPILER_ERROR:
 *
 * The error domain of compiling and calling.  Its codes are
 * [enum@Reg.CompilerError].
 */
#define REG_COMPILER_ERROR (reg_compiler_error_quark ())

/**
 * RegCompilerError:
 * @REG_COMPILER_ERROR_FAILED: compiling failed (also: a compiler returned
 *   nothing and said nothing)
 * @REG_COMPILER_ERROR_UNSUPPORTED_OP: the graph uses an operator the backend
 *   does not support
 * @REG_COMPILER_ERROR_BAD_INPUTS: a call's inputs differ in count or shape
 *   from the example inputs the function was compiled for
 * @REG_COMPILER_ERROR_BAD_OPTION: an option key the backend does not know,
 *   a value of the wrong type or out of its range or choices, or an option
 *   declaration (a [class@Reg.Option]) that is not valid
 * @REG_COMPILER_ERROR_RUNTIME: a call failed while running
 * @REG_COMPILER_ERROR_BACKEND_UNAVAILABLE: the backend builds on another
 *   one that the registry could not provide (no backend has its name, or
 *   its module could not be loaded or is quarantined): the registry's
 *   %REG_REGISTRY_ERROR_INVALID_BACKEND or %REG_REGISTRY_ERROR_LOAD_FAILED,
 *   passed on by a compile or a call
 *
 * Errors in the %REG_COMPILER_ERROR domain.
 */
typedef enum {
  REG_COMPILER_ERROR_FAILED,
  REG_COMPILER_ERROR_UNSUPPORTED_OP,
  REG_COMPILER_ERROR_BAD_INPUTS,
  REG_COMPILER_ERROR_BAD_OPTION,
  REG_COMPILER_ERROR_RUNTIME,
  REG_COMPILER_ERROR_BACKEND_UNAVAILABLE,
} RegCompilerError;

/**
 * REG_GRAPH_ERROR:
 *
 * The error domain of graph construction, parsing and shape checking.
 * Its codes are [enum@Reg.GraphError].
 */
#define REG_GRAPH_ERROR (reg_graph_error_quark ())

/**
 * RegGraphError:
 * @REG_GRAPH_ERROR_PARSE: the text is not a graph (syntax, bad name or number)
 * @REG_GRAPH_ERROR_UNKNOWN_OP: an operator libreg does not know
 * @REG_GRAPH_ERROR_ARITY: an operator called with the wrong number of arguments
 * @REG_GRAPH_ERROR_UNDEFINED: a reference to a name or node that does not exist
 * @REG_GRAPH_ERROR_REDEFINED: a name defined twice
 * @REG_GRAPH_ERROR_SHAPE: shapes that do not fit (graph against its inputs,
 *   or a tensor's data against its shape), or a shape no tensor can hold
 *   (more elements than memory can address): shapes are one concern,
 *   whether they come from a graph or a tensor
 *
 * Errors in the %REG_GRAPH_ERROR domain.  Messages from the text form start
 * with `LINE:COLUMN: `.
 */
typedef enum {
  REG_GRAPH_ERROR_PARSE,
  REG_GRAPH_ERROR_UNKNOWN_OP,
  REG_GRAPH_ERROR_ARITY,
  REG_GRAPH_ERROR_UNDEFINED,
  REG_GRAPH_ERROR_REDEFINED,
  REG_GRAPH_ERROR_SHAPE,
} RegGraphError;

/**
 * REG_TENSOR_ERROR:
 *
 * The error domain of tensor allocation.  Its codes are
 * [enum@Reg.TensorError].  A wrong shape (a negative dimension, too many
 * dimensions, data that does not fill it) is a %REG_GRAPH_ERROR_SHAPE.
 */
#define REG_TENSOR_ERROR (reg_tensor_error_quark ())

/**
 * RegTensorError:
 * @REG_TENSOR_ERROR_NO_MEMORY: the memory for a tensor of a valid shape
 *   could not be allocated; the message says the shape and how many bytes
 *   that is
 *
 * Errors in the %REG_TENSOR_ERROR domain.
 */
typedef enum {
  REG_TENSOR_ERROR_NO_MEMORY,
} RegTensorError;

REG_AVAILABLE_IN_ALL
GQuark reg_registry_error_quark (void);
REG_AVAILABLE_IN_ALL
GQuark reg_compiler_error_quark (void);
REG_AVAILABLE_IN_ALL
GQuark reg_graph_error_quark    (void);
REG_AVAILABLE_IN_ALL
GQuark reg_tensor_error_quark   (void);

G_END_DECLS
