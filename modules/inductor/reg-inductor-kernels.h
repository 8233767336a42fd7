/* reg-inductor-kernels.h: the loops the inductor backend runs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Everything here works on plain float arrays and is compiled on its own
 * (-O3, never -ffast-math) with GCC target_clones, so the loops are
 * vectorized for x86-64 (SSE2), x86-64-v3 (AVX2, FMA) and x86-64-v4
 * (AVX-512) and the best variant is picked once, when the module is loaded.
 * The arithmetic operators, relu, abs, sqrt, maximum and minimum are one
 * IEEE operation per element and so bit-identical on every variant; the
 * polynomials of exp, log, tanh and sigmoid use FMA where the CPU has it,
 * so their last bit may differ between CPUs (within the documented ulp
 * bounds; tanh on the SSE2 variant, which has no FMA, reaches 6 ulp).
 *
 * Elementwise loops take an output distinct from their operands (the
 * operands may be the same array).  The semantics are those of the eager
 * backend (modules/eager/reg-eager-interp.h) except for exp, log, tanh and
 * sigmoid, whose vector versions are within a few ulp of glibc's (see
 * docs/inductor.md for the measured errors); the "exact" variants call libm
 * one element at a time and are bit-identical to eager.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef void (*RegIndUnaryFn)  (float       *out,
                                const float *a,
                                gsize        n);
typedef void (*RegIndBinaryFn) (float       *out,
                                const float *a,
                                const float *b,
                                gsize        n);

typedef enum {
  REG_IND_OP_ADD,
  REG_IND_OP_SUB,
  REG_IND_OP_MUL,
  REG_IND_OP_DIV,
  REG_IND_OP_MAXIMUM,
  REG_IND_OP_MINIMUM,
  REG_IND_OP_NEG,
  REG_IND_OP_RELU,
  REG_IND_OP_EXP,
  REG_IND_OP_LOG,
  REG_IND_OP_SQRT,
  REG_IND_OP_TANH,
  REG_IND_OP_SIGMOID,
  REG_IND_OP_ABS,
  REG_IND_OP_SUM,
  REG_IND_OP_MATMUL,
  REG_IND_N_OPS,
} RegIndOp;

#define REG_IND_OP_IS_BINARY(op) ((op) <= REG_IND_OP_MINIMUM)
#define REG_IND_OP_IS_UNARY(op)  ((op) >= REG_IND_OP_NEG && (op) <= REG_IND_OP_ABS)
#define REG_IND_OP_IS_ELEMENTWISE(op) ((op) <= REG_IND_OP_ABS)

/* The loop of an elementwise operator: @vector_math picks the polynomial
 * kernels for exp, log, tanh, sigmoid (FALSE: libm, one call per element). */
RegIndUnaryFn  _reg_ind_unary_fn   (RegIndOp     op,
                                    gboolean     vector_math);
RegIndBinaryFn _reg_ind_binary_fn  (RegIndOp     op);

/* One element, exactly as eager computes it (constant folding uses this). */
float          _reg_ind_eval_scalar (RegIndOp    op,
                                     float       a,
                                     float       b);

/* The vector kernels one element at a time (same code, same results as the
 * loops): for the ulp sweep in benchmarks/. */
float          _reg_ind_vexpf      (float        x);
float          _reg_ind_vlogf      (float        x);
float          _reg_ind_vtanhf     (float        x);
float          _reg_ind_vsigmoidf  (float        x);

/* The sum of @n floats in double precision (eight interleaved partial sums,
 * combined pairwise). */
double         _reg_ind_sum        (const float *x,
                                    gsize        n);

/* Rows [@row_begin, @row_end) of C = A B, A [m, k], B [k, n], row-major,
 * accumulated in float; @c points to row @row_begin of C (a whole C, or a
 * block buffer that holds only those rows). */
void           _reg_ind_matmul_rows (const float *a,
                                     const float *b,
                                     float       *c,
                                     gsize        row_begin,
                                     gsize        row_end,
                                     gsize        k,
                                     gsize        n);

/* The name of the instruction set the loops were dispatched to. */
const char    *_reg_ind_isa_name   (void);

G_END_DECLS
