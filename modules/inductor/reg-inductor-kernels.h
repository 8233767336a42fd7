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

#include <reg.h>

G_BEGIN_DECLS

typedef void (*RegIndUnaryFn)  (float       *out,
                                const float *a,
                                gsize        n);
typedef void (*RegIndBinaryFn) (float       *out,
                                const float *a,
                                const float *b,
                                gsize        n);

/* The loop of an elementwise operator: @vector_math picks the polynomial
 * kernels for exp, log, tanh, sigmoid (FALSE: libm, one call per element). */
RegIndUnaryFn  _reg_ind_unary_fn   (RegOp        op,
                                    gboolean     vector_math);
RegIndBinaryFn _reg_ind_binary_fn  (RegOp        op);

/* One element, exactly as eager computes it (constant folding uses this). */
float          _reg_ind_eval_scalar (RegOp       op,
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
