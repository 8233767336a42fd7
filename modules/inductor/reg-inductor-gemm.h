/* reg-inductor-gemm.h: the inductor's matrix products, on a BLAS or not
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * With the module built against OpenBLAS (meson option `blas`), a product
 * can be one cblas_sgemm() call per panel of rows, or the in-tree loops of
 * reg-inductor-kernels.c.  The option `matmul` chooses: `blas` and
 * `in-tree` force one, `auto` (the default) takes the in-tree loops where
 * their vectors are wider than those of OpenBLAS's kernels for this CPU
 * (the loops' AVX-512 variant against an OpenBLAS core without AVX-512
 * kernels, such as the Haswell kernels OpenBLAS 0.3.21 picks on AMD Zen 4
 * and 5: the loops are then faster at every size, docs/inductor.md), and
 * OpenBLAS elsewhere.
 *
 * OpenBLAS's thread count belongs to the process (OPENBLAS_NUM_THREADS, or
 * openblas_set_num_threads() by the application): the module only reads
 * it, at every call, and never changes it.  A call that may use N threads
 * (the inductor's `threads` option) then runs its products in one of three
 * ways (RegIndGemmMode), chosen so that OpenBLAS's threads and the
 * inductor's never multiply:
 *
 * - OpenBLAS runs single-threaded: the inductor splits each product into
 *   panels of rows over up to N threads of its own, one sgemm per panel;
 * - OpenBLAS runs T threads, 1 < T <= N: each product is a single sgemm
 *   from the calling thread (OpenBLAS splits it over its T threads), and
 *   the inductor's threads only share the epilogue that follows;
 * - OpenBLAS would run more than N threads (or is a build that is not
 *   safe for concurrent calls): the in-tree loops, on up to N threads.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* OpenBLAS's own threads pay only on large products: at 256^3 its two
 * threads are no faster than one on an idle machine here, and 20 times
 * slower than one when the other core is busy (its threads wait for each
 * other by spinning), while at 2048x1024x1024 they halve the time.  In a
 * process where OpenBLAS has several threads, a product of fewer
 * multiply-adds than this goes to the in-tree loops on the call's threads
 * instead of one sgemm on OpenBLAS's. */
#define REG_IND_GEMM_THREADED_MIN_MADDS ((double) (1 << 27))

typedef enum {
  REG_IND_GEMM_IN_TREE,
  REG_IND_GEMM_BLAS_SPLIT,      /* single-threaded sgemm per panel */
  REG_IND_GEMM_BLAS_THREADED,   /* one sgemm, on OpenBLAS's own threads */
} RegIndGemmMode;

/* The option `matmul`. */
typedef enum {
  REG_IND_MATMUL_AUTO,
  REG_IND_MATMUL_BLAS,
  REG_IND_MATMUL_IN_TREE,
} RegIndMatmul;

/* TRUE when the module was built with a BLAS. */
gboolean       _reg_ind_gemm_have_blas   (void);

/* What a call on @threads threads does with its products now, for the
 * plan's log line: "OpenBLAS 0.3.21 Haswell, 1 thread: sgemm per panel on
 * the inductor's threads", "in-tree loops (OpenBLAS would use 2 threads)"... */
char          *_reg_ind_gemm_dup_description (guint        threads,
                                              RegIndMatmul matmul);

/* How a call that may use @threads threads computes its products now
 * (OpenBLAS's thread count is read each time).  *@blas_threads is set to
 * the threads OpenBLAS uses for one call (1 without a BLAS). */
RegIndGemmMode _reg_ind_gemm_choose      (guint        threads,
                                          RegIndMatmul matmul,
                                          guint       *blas_threads);

/* Rows [@row_begin, @row_end) of C = A B, A [m, k] and B [k, n] row-major,
 * into @c, which points to row @row_begin of C (a whole C, or a buffer that
 * holds only these rows).  @mode other than REG_IND_GEMM_IN_TREE calls
 * sgemm (the dimensions must fit a BLAS int: _reg_ind_gemm_fits_blas()). */
void           _reg_ind_gemm_rows        (RegIndGemmMode mode,
                                          const float *a,
                                          const float *b,
                                          float       *c,
                                          gsize        row_begin,
                                          gsize        row_end,
                                          gsize        k,
                                          gsize        n);

/* Whether a product of these dimensions can go to the BLAS (its
 * dimensions and leading dimensions are 32-bit ints). */
gboolean       _reg_ind_gemm_fits_blas   (gsize        m,
                                          gsize        k,
                                          gsize        n);

G_END_DECLS
