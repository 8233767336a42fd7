/* reg-partition-private.h: a graph run as groups of nodes on several
 * backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-compiled-fn.h"
#include "reg-graph-private.h"

G_BEGIN_DECLS

/* A graph cut into groups of operator nodes: the nodes a backend takes,
 * in as few groups as the rule below allows, and the other nodes in the
 * groups between them.  Each group is a graph of its own: its inputs are
 * the tensors that cross into it (inputs of the whole graph, or results
 * of earlier groups), its outputs those that leave it.  The groups come in
 * an order in which every group depends only on earlier ones, so no group
 * both feeds and depends on the same node outside it. */
typedef struct _RegPartition RegPartition;

/* Cuts @graph, valid and of node shapes @shapes for @example_inputs, by
 * @taken (one byte per node, nonzero for the operator nodes the backend
 * takes; see _reg_compiler_select_nodes()).  Fails only when a tensor
 * shaped like a group's input cannot be allocated
 * (REG_TENSOR_ERROR_NO_MEMORY). */
RegPartition  *_reg_partition_new          (RegGraph        *graph,
                                            GPtrArray       *example_inputs,
                                            const RegShape  *shapes,
                                            const guint8    *taken,
                                            GError         **error);
void           _reg_partition_free         (RegPartition    *partition);

/* Group @group: its graph, tensors shaped like its inputs (both owned by
 * @partition), and whether its nodes are taken ones; NULL past the last
 * group. */
RegGraph      *_reg_partition_get_group    (RegPartition    *partition,
                                            guint            group,
                                            GPtrArray      **example_inputs,
                                            gboolean        *taken);

/* The function that runs @graph (that of _reg_partition_new()) as
 * @partition's groups in order, group i by @fns[i] (compiled for the
 * group's graph by the backend named @backends[i], and bound, see
 * _reg_compiled_fn_bind()), handing each group's outputs to the next ones
 * as they are; not bound yet.  Takes @partition, @fns (one reference per
 * group, the array g_free()d) and @backends (a NULL-terminated strv).
 * Logs a summary of where the nodes run at debug level. */
RegCompiledFn *_reg_partition_finish       (RegPartition       *partition,
                                            RegGraph           *graph,
                                            RegCompiledFn     **fns,
                                            char              **backends);

/* Where the nodes of @fn, a function of _reg_partition_finish(), run, as
 * reg_compiled_fn_dup_placement() tells it (a RegPlacementFunc). */
GVariant      *_reg_partition_dup_placement (RegCompiledFn     *fn);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RegPartition, _reg_partition_free)

G_END_DECLS
