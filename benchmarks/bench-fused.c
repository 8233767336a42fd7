/* bench-fused.c: hand-written loops for the inductor benchmark
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The benchmark's two floors, compiled on their own with
 * -O3 -march=native -ffast-math (see meson.build):
 *
 * - "hand-fused": each graph written as one C loop, which GCC vectorizes
 *   with glibc's vector math library (libmvec) for expf, logf, tanhf: the
 *   practical floor for a compiler that fuses;
 * - "stream": a loop that moves the same bytes as the fused graph and
 *   computes nothing worth mentioning: the memory bandwidth floor.
 *
 * Both write into buffers the caller allocated once, so neither pays for
 * allocating (or zero-filling) its output: they are floors, not rivals.
 */

#include <math.h>

#include "bench-fused.h"

void
bench_fused_chain8 (const float *restrict x,
                    const float *restrict a,
                    const float *restrict b,
                    float       *restrict y,
                    size_t                n)
{
  for (size_t i = 0; i < n; i++)
    {
      float t = fmaxf (x[i] * a[i] + b[i], 0.0f);
      float s = 1.0f / (1.0f + expf (-x[i]));

      y[i] = (t * s + tanhf (b[i])) * 0.5f;
    }
}

void
bench_fused_chain16 (const float *restrict x,
                     const float *restrict a,
                     const float *restrict b,
                     float       *restrict y,
                     size_t                n)
{
  for (size_t i = 0; i < n; i++)
    {
      float t = fmaxf (x[i] * a[i] + b[i], 0.0f);
      float s = 1.0f / (1.0f + expf (-x[i]));
      float t6 = t * s + tanhf (b[i]);
      float t8 = fabsf (a[i]) + 1.0f;
      float t11 = expf (t6 - logf (t8));
      float t13 = sqrtf (fmaxf (t11, x[i]));

      y[i] = fminf (t13 / t8, 2.0f);
    }
}

double
bench_fused_sum (const float *restrict x,
                 const float *restrict a,
                 size_t                n)
{
  float acc = 0.0f;

  for (size_t i = 0; i < n; i++)
    acc += expf (x[i]) * a[i];

  return acc;
}

/* One row at a time: both layers and the activations on 64 + 16 values
 * that stay in registers/L1; only x is read and y written. */
void
bench_fused_mlp (const float *restrict x,
                 const float *restrict w1,
                 const float *restrict w2,
                 float       *restrict y,
                 size_t                rows)
{
  for (size_t r = 0; r < rows; r++)
    {
      float h[BENCH_MLP_HIDDEN] = { 0 };
      float o[BENCH_MLP_OUT] = { 0 };

      for (size_t l = 0; l < BENCH_MLP_IN; l++)
        {
          float xv = x[r * BENCH_MLP_IN + l];

          for (size_t j = 0; j < BENCH_MLP_HIDDEN; j++)
            h[j] += xv * w1[l * BENCH_MLP_HIDDEN + j];
        }
      for (size_t j = 0; j < BENCH_MLP_HIDDEN; j++)
        h[j] = fmaxf (h[j] + 0.1f, 0.0f);
      for (size_t l = 0; l < BENCH_MLP_HIDDEN; l++)
        for (size_t j = 0; j < BENCH_MLP_OUT; j++)
          o[j] += h[l] * w2[l * BENCH_MLP_OUT + j];
      for (size_t j = 0; j < BENCH_MLP_OUT; j++)
        y[r * BENCH_MLP_OUT + j] = 1.0f / (1.0f + expf (-(o[j] - 0.05f)));
    }
}

/* The MLP layer as a C programmer writes it without a BLAS: a row of y
 * starts as the row of b, takes x[i][l] times each row of w (the inner
 * loop vectorizes over j, the row of y stays in L1), then the relu. */
void
bench_fused_layer (const float *restrict x,
                   const float *restrict w,
                   const float *restrict b,
                   float       *restrict y,
                   size_t                m,
                   size_t                k,
                   size_t                n)
{
  for (size_t i = 0; i < m; i++)
    {
      float *restrict yr = y + i * n;

      for (size_t j = 0; j < n; j++)
        yr[j] = b[i * n + j];
      for (size_t l = 0; l < k; l++)
        {
          float xv = x[i * k + l];
          const float *restrict wr = w + l * n;

          for (size_t j = 0; j < n; j++)
            yr[j] += xv * wr[j];
        }
      for (size_t j = 0; j < n; j++)
        yr[j] = fmaxf (yr[j], 0.0f);
    }
}

/* Bandwidth probes: reads n_in arrays of n floats, writes n_out floats. */
void
bench_stream_3to1 (const float *restrict x,
                   const float *restrict a,
                   const float *restrict b,
                   float       *restrict y,
                   size_t                n)
{
  for (size_t i = 0; i < n; i++)
    y[i] = x[i] + a[i] + b[i];
}

double
bench_stream_2to0 (const float *restrict x,
                   const float *restrict a,
                   size_t                n)
{
  float acc = 0.0f;

  for (size_t i = 0; i < n; i++)
    acc += x[i] + a[i];

  return acc;
}

/* reads n floats, writes n / 4 */
void
bench_stream_4to1 (const float *restrict x,
                   float       *restrict y,
                   size_t                n_out)
{
  for (size_t i = 0; i < n_out; i++)
    y[i] = x[4 * i] + x[4 * i + 1] + x[4 * i + 2] + x[4 * i + 3];
}
