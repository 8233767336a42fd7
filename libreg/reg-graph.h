/* reg-graph.h: computation graphs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (REG_INSIDE) && !defined (REG_COMPILATION)
# error "Only <reg.h> can be included directly."
#endif

#include <glib-object.h>

#include "reg-op.h"
#include "reg-error.h"
#include "reg-tensor.h"
#include "reg-version-macros.h"

G_BEGIN_DECLS

/**
 * RegNodeKind:
 * @REG_NODE_INPUT: a graph input, named
 * @REG_NODE_CONSTANT: a scalar constant
 * @REG_NODE_OP: a call of an operator on earlier nodes
 *
 * What a node of a [class@Reg.Graph] is.
 */
typedef enum {
  REG_NODE_INPUT,
  REG_NODE_CONSTANT,
  REG_NODE_OP,
} RegNodeKind;

/**
 * REG_GRAPH_INVALID_NODE:
 *
 * The node id that builder calls return when they fail.  A graph that has
 * been given one keeps the first builder error; see
 * [method@Reg.Graph.validate].
 */
#define REG_GRAPH_INVALID_NODE ((guint) 0xffffffffU)  /* G_MAXUINT, spelled so that the GIR has it */

#define REG_TYPE_GRAPH (reg_graph_get_type ())

REG_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (RegGraph, reg_graph, REG, GRAPH, GObject)

REG_AVAILABLE_IN_ALL
RegGraph      *reg_graph_new                  (void);
REG_AVAILABLE_IN_ALL
RegGraph      *reg_graph_new_from_string      (const char    *text,
                                               GError       **error);
REG_AVAILABLE_IN_ALL
char          *reg_graph_to_string            (RegGraph      *self);

REG_AVAILABLE_IN_ALL
guint          reg_graph_add_input            (RegGraph      *self,
                                               const char    *name);
REG_AVAILABLE_IN_ALL
guint          reg_graph_add_constant         (RegGraph      *self,
                                               double         value);
REG_AVAILABLE_IN_ALL
guint          reg_graph_add_op               (RegGraph      *self,
                                               const char    *op,
                                               const guint   *args,
                                               guint          n_args,
                                               GError       **error);
REG_AVAILABLE_IN_ALL
gboolean       reg_graph_set_node_name        (RegGraph      *self,
                                               guint          node,
                                               const char    *name,
                                               GError       **error);
REG_AVAILABLE_IN_ALL
void           reg_graph_set_outputs          (RegGraph      *self,
                                               const guint   *nodes,
                                               guint          n);
REG_AVAILABLE_IN_ALL
RegShapeList  *reg_graph_infer_shapes         (RegGraph      *self,
                                               GPtrArray     *example_inputs,
                                               GError       **error);
REG_AVAILABLE_IN_ALL
gboolean       reg_graph_validate             (RegGraph      *self,
                                               GError       **error);

REG_AVAILABLE_IN_ALL
guint          reg_graph_get_n_nodes          (RegGraph      *self);
REG_AVAILABLE_IN_ALL
RegNodeKind    reg_graph_get_node_kind        (RegGraph      *self,
                                               guint          node);
REG_AVAILABLE_IN_ALL
const char    *reg_graph_get_node_name        (RegGraph      *self,
                                               guint          node);
REG_AVAILABLE_IN_ALL
const char    *reg_graph_get_node_op          (RegGraph      *self,
                                               guint          node);
REG_AVAILABLE_IN_ALL
RegOp          reg_graph_get_node_operator    (RegGraph      *self,
                                               guint          node);
REG_AVAILABLE_IN_ALL
const guint   *reg_graph_get_node_args        (RegGraph      *self,
                                               guint          node,
                                               guint         *n_args);
REG_AVAILABLE_IN_ALL
double         reg_graph_get_node_value       (RegGraph      *self,
                                               guint          node);
REG_AVAILABLE_IN_ALL
const guint   *reg_graph_get_inputs           (RegGraph      *self,
                                               guint         *n_inputs);
REG_AVAILABLE_IN_ALL
const guint   *reg_graph_get_outputs          (RegGraph      *self,
                                               guint         *n_outputs);

G_END_DECLS
