/* reg-inductor-gemm.c: the inductor's matrix products, on a BLAS or not
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See reg-inductor-gemm.h for the three modes and docs/inductor.md for why
 * OpenBLAS (and not BLIS) and how its threads are counted.
 */

#include <string.h>

#include "reg-inductor-gemm.h"
#include "reg-inductor-kernels.h"

#ifdef REG_INDUCTOR_OPENBLAS
# include <cblas.h>
#endif

/* openblas_get_parallel (): what the library was built for. */
#define OPENBLAS_SEQUENTIAL 0
#define OPENBLAS_PTHREADS   1

gboolean
_reg_ind_gemm_have_blas (void)
{
#ifdef REG_INDUCTOR_OPENBLAS
  return TRUE;
#else
  return FALSE;
#endif
}

#ifdef REG_INDUCTOR_OPENBLAS
/* OpenBLAS's x86 cores that have AVX-512 GEMM kernels. */
static const char * const avx512_cores[] = { "skylakex", "cooperlake", "sapphirerapids" };

/* Whether the in-tree loops run wider vectors than OpenBLAS's kernels:
 * their AVX-512 variant against a core of OpenBLAS without AVX-512 GEMM
 * kernels, which they outrun at every size (on AMD Zen 5, where OpenBLAS
 * 0.3.21 takes its Haswell kernels: `bench-inductor --graphs layer`,
 * benchmarks/README.md). */
static gboolean
intree_is_wider (void)
{
  static gsize answer;

  if (g_once_init_enter (&answer))
    {
      const char *core = openblas_get_corename ();
      gboolean wider = g_str_has_prefix (_reg_ind_isa_name (), "x86-64-v4");

      for (guint i = 0; wider && i < G_N_ELEMENTS (avx512_cores); i++)
        if (core != NULL && g_ascii_strcasecmp (core, avx512_cores[i]) == 0)
          wider = FALSE;
      g_once_init_leave (&answer, wider ? 2 : 1);
    }

  return answer == 2;
}

/* Only the pthreads build is safe for calls from several threads at once:
 * Debian's single-threaded build is compiled without USE_LOCKING, so two
 * concurrent calls can share a work buffer (and give wrong products), and
 * the OpenMP build expects its callers to be OpenMP threads.  Any other
 * build is left alone (the in-tree loops run instead). */
static gboolean
blas_usable (void)
{
  return openblas_get_parallel () == OPENBLAS_PTHREADS;
}
#endif

char *
_reg_ind_gemm_dup_description (guint        threads,
                               RegIndMatmul matmul)
{
#ifdef REG_INDUCTOR_OPENBLAS
  g_auto(GStrv) words = g_strsplit (openblas_get_config (), " ", 3);
  g_autofree char *name = g_strdup_printf ("%s %s %s", words[0],
                                           words[1] != NULL ? words[1] : "",
                                           openblas_get_corename ());
  guint blas_threads;

  if (matmul == REG_IND_MATMUL_IN_TREE)
    return g_strdup ("in-tree loops (matmul in-tree)");
  if (!blas_usable ())
    return g_strdup_printf ("in-tree loops (%s is not a pthreads build)", name);
  if (matmul == REG_IND_MATMUL_AUTO && intree_is_wider ())
    return g_strdup_printf ("in-tree loops (AVX-512, wider than %s's kernels)", name);

  switch (_reg_ind_gemm_choose (threads, matmul, &blas_threads))
    {
    case REG_IND_GEMM_BLAS_SPLIT:
      return g_strdup_printf ("%s, 1 thread: sgemm per panel on the inductor's threads", name);
    case REG_IND_GEMM_BLAS_THREADED:
      return g_strdup_printf ("%s, %u threads: one sgemm on OpenBLAS's threads from "
                              "2^27 multiply-adds, in-tree loops below", name, blas_threads);
    case REG_IND_GEMM_IN_TREE:
    default:
      return g_strdup_printf ("in-tree loops (%s would use %u threads)", name, blas_threads);
    }
#else
  if (matmul == REG_IND_MATMUL_IN_TREE)
    return g_strdup ("in-tree loops (matmul in-tree)");
  return g_strdup ("in-tree loops");
#endif
}

RegIndGemmMode
_reg_ind_gemm_choose (guint         threads,
                      RegIndMatmul  matmul,
                      guint        *blas_threads)
{
  *blas_threads = 1;

#ifdef REG_INDUCTOR_OPENBLAS
  if (matmul != REG_IND_MATMUL_IN_TREE && blas_usable () &&
      !(matmul == REG_IND_MATMUL_AUTO && intree_is_wider ()))
    {
      /* read, never set: the count belongs to the application */
      int t = openblas_get_num_threads ();

      *blas_threads = (guint) MAX (t, 1);
      if (*blas_threads == 1)
        return REG_IND_GEMM_BLAS_SPLIT;
      if (*blas_threads <= threads)
        return REG_IND_GEMM_BLAS_THREADED;
    }
#endif

  return REG_IND_GEMM_IN_TREE;
}

gboolean
_reg_ind_gemm_fits_blas (gsize m,
                         gsize k,
                         gsize n)
{
#ifdef REG_INDUCTOR_OPENBLAS
  gsize limit = sizeof (blasint) >= 8 ? G_MAXINT64 : G_MAXINT;

  return m <= limit && k <= limit && n <= limit;
#else
  return FALSE;
#endif
}

void
_reg_ind_gemm_rows (RegIndGemmMode  mode,
                    const float    *a,
                    const float    *b,
                    float          *c,
                    gsize           row_begin,
                    gsize           row_end,
                    gsize           k,
                    gsize           n)
{
  if (row_end <= row_begin || n == 0)
    return;

#ifdef REG_INDUCTOR_OPENBLAS
  if (mode != REG_IND_GEMM_IN_TREE)
    {
      /* C = A B with beta 0: C is only written.  k = 0 is a product of
       * zeros, which is what sgemm's beta pass gives too; done here so as
       * not to depend on it. */
      if (k == 0)
        memset (c, 0, (row_end - row_begin) * n * sizeof (float));
      else
        cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans,
                     (blasint) (row_end - row_begin), (blasint) n, (blasint) k,
                     1.0f, a + row_begin * k, (blasint) k, b, (blasint) n,
                     0.0f, c, (blasint) n);
      return;
    }
#endif

  _reg_ind_matmul_rows (a, b, c, row_begin, row_end, k, n);
}
