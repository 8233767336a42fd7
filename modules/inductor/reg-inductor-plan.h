/* reg-inductor-plan.h: graph passes, kernel plans and their execution
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The inductor compiles a RegGraph in three steps:
 *
 * 1. _reg_ind_graph_new() copies the graph into an IndGraph, running the
 *    graph passes on the way (constant folding, exact algebraic
 *    simplification and common subexpression elimination in one forward
 *    walk, then dead code elimination);
 * 2. _reg_ind_plan_new() groups its operators into kernels (fusion),
 *    decides which values live in memory and which only in block buffers,
 *    and turns each fused kernel into a short list of block instructions;
 * 3. _reg_ind_plan_run() runs the kernels on a call's inputs.
 *
 * A plan is immutable once made, so any number of threads may run it at
 * once: everything a call writes is per call, and the block buffers come
 * from a pool guarded by a mutex.
 */

#pragma once

#include <reg.h>

#include "reg-inductor-gemm.h"
#include "reg-inductor-kernels.h"

G_BEGIN_DECLS

typedef enum {
  REG_IND_PASS_FOLD     = 1 << 0,
  REG_IND_PASS_SIMPLIFY = 1 << 1,
  REG_IND_PASS_CSE      = 1 << 2,
  REG_IND_PASS_DCE      = 1 << 3,
  REG_IND_PASS_ALL      = 0xf,
} RegIndPasses;

typedef struct _IndGraph IndGraph;
typedef struct _IndPlan  IndPlan;

typedef struct
{
  gboolean fuse;
  guint    block_size;
  guint    threads;
  gboolean vector_math;
  guint    passes;       /* RegIndPasses */
  RegIndMatmul matmul;   /* the option `matmul` */
} RegIndOptions;

/* @shapes: from reg_graph_infer_shapes(). */
IndGraph  *_reg_ind_graph_new     (RegGraph         *graph,
                                   RegShapeList     *shapes,
                                   guint             passes,
                                   GError          **error);
void       _reg_ind_graph_free    (IndGraph         *graph);
/* The optimized graph as a new RegGraph, made with the graph builder, with
 * the original names (unnamed values are `_N`, N the original node). */
RegGraph  *_reg_ind_graph_to_reg_graph (IndGraph  *graph,
                                        GError   **error);
guint      _reg_ind_graph_get_n_ops (IndGraph       *graph);

/* Takes ownership of @graph. */
IndPlan   *_reg_ind_plan_new      (IndGraph         *graph,
                                   const RegIndOptions *options);
void       _reg_ind_plan_free     (IndPlan          *plan);
guint      _reg_ind_plan_get_n_kernels (IndPlan     *plan);
/* One line per kernel, each ending in a newline. */
char      *_reg_ind_plan_describe (IndPlan          *plan);
IndGraph  *_reg_ind_plan_get_graph (IndPlan         *plan);

/* Returns (transfer full) the outputs, in a GPtrArray without a free
 * function (as the call vfunc wants), or NULL with @error set. */
GPtrArray *_reg_ind_plan_run      (IndPlan          *plan,
                                   GPtrArray        *inputs,
                                   GError          **error);

G_END_DECLS
