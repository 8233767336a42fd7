/* reg-graph-private.h: graph internals, for the parser and the compile cache
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-graph.h"
#include "reg-tensor-private.h"

G_BEGIN_DECLS

/* Every operator takes one or two arguments, so they are stored inline. */
#define REG_GRAPH_MAX_ARITY 2

typedef struct
{
  RegNodeKind kind;
  RegOp       op;           /* REG_NODE_OP */
  guint       n_args;
  guint       args[REG_GRAPH_MAX_ARITY];
  double      value;        /* REG_NODE_CONSTANT */
  const char *name;         /* inputs, named calls; else NULL.  Owned by names */
} RegNode;

struct _RegGraph
{
  GObject     parent_instance;

  GArray     *nodes;         /* RegNode */
  GArray     *inputs;        /* guint: the input nodes, in order */
  GArray     *outputs;       /* guint */
  gboolean    has_outputs;   /* set_outputs() or a `return` happened */
  GHashTable *names;         /* name (owned) -> node id (GUINT_TO_POINTER) */

  /* The first failure of a builder call that has no GError of its own
   * (add_input, set_outputs), reported by reg_graph_validate(). */
  GError     *builder_error;

  /* What backends get (_reg_graph_dup_frozen()): builder calls refused. */
  gboolean    frozen;
};

static inline const RegNode *
_reg_graph_get_node (RegGraph *self,
                     guint     id)
{
  return &g_array_index (self->nodes, RegNode, id);
}

/* Appends a node without any check (the caller made them): @name
 * (nullable, taken) must be free, @args (REG_NODE_OP) must be earlier nodes
 * and fit the arity of @op. */
guint        _reg_graph_append        (RegGraph     *self,
                                       RegNodeKind   kind,
                                       RegOp         op,
                                       const guint  *args,
                                       double        value,
                                       char         *name);
void         _reg_graph_set_outputs   (RegGraph     *self,
                                       const guint  *nodes,
                                       guint         n);

/* "relu takes 1 argument, 2 given" */
char        *_reg_graph_arity_message (RegOp         op,
                                       guint         n_args);

/* Whether @name may name a node (the lexical rule, in the parser). */
gboolean     _reg_graph_is_valid_name (const char   *name);

/* reg_graph_infer_shapes() without its guards: @example_inputs (NULL for
 * none) must hold tensors; @shapes gets a g_new()ed array of one shape per
 * node. */
gboolean     _reg_graph_infer_shapes  (RegGraph     *graph,
                                       GPtrArray    *example_inputs,
                                       RegShape    **shapes,
                                       GError      **error);

/* A graph equal to @self that never changes, for a backend to keep: @self
 * (a new reference) when it is frozen already, else a frozen copy. */
RegGraph    *_reg_graph_dup_frozen    (RegGraph     *self);

G_END_DECLS
