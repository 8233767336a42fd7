/* bench-fused.h: hand-written loops for the inductor benchmark
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <stddef.h>

/* The MLP: x [rows, IN] -> relu (x w1 + 0.1) [rows, HIDDEN]
 * -> sigmoid (h w2 - 0.05) [rows, OUT]. */
#define BENCH_MLP_IN     64
#define BENCH_MLP_HIDDEN 64
#define BENCH_MLP_OUT    16

void   bench_fused_chain8  (const float *x, const float *a, const float *b, float *y, size_t n);
void   bench_fused_chain16 (const float *x, const float *a, const float *b, float *y, size_t n);
double bench_fused_sum     (const float *x, const float *a, size_t n);
void   bench_fused_mlp     (const float *x, const float *w1, const float *w2, float *y, size_t rows);
/* y = relu (x w + b), x [m, k], w [k, n], b and y [m, n] */
void   bench_fused_layer   (const float *x, const float *w, const float *b, float *y,
                            size_t m, size_t k, size_t n);

void   bench_stream_3to1   (const float *x, const float *a, const float *b, float *y, size_t n);
double bench_stream_2to0   (const float *x, const float *a, size_t n);
void   bench_stream_4to1   (const float *x, float *y, size_t n_out);
