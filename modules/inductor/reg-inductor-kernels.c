/* reg-inductor-kernels.c: the loops the inductor backend runs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Compiled with -O3 -fno-math-errno -fno-trapping-math (never -ffast-math:
 * NaN, infinities and signed zeros must behave as in eager; no trapping
 * math only lets GCC if-convert the selects, it changes no result).  Every
 * loop is branch-free so GCC vectorizes it; each exists for x86-64 (SSE2),
 * x86-64-v3 (AVX2 + FMA) and x86-64-v4 (AVX-512), picked once at load time
 * through an ifunc.  See reg-inductor-kernels.h.
 */

#include <math.h>
#include <string.h>

#include "reg-inductor-kernels.h"

#if defined (__GNUC__) && !defined (__clang__) && defined (__x86_64__) && defined (__ELF__)
# define IND_CLONES __attribute__ ((target_clones ("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
# define IND_CLONES
#endif

#define IND_INLINE static inline __attribute__ ((always_inline))

IND_INLINE guint32
f2u (float f)
{
  union { float f; guint32 u; } v = { .f = f };
  return v.u;
}

IND_INLINE float
u2f (guint32 u)
{
  union { float f; guint32 u; } v = { .u = u };
  return v.f;
}

/* Scalar semantics, identical to eager ------------------------------- */

/* IEEE 754-2019 maximum/minimum as eager has them: NaN (the default NaN,
 * as eager returns NAN) if either side is NaN, and -0 < +0.  When x == y
 * the only difference can be the sign of zero: the AND of the bits keeps
 * +0 (maximum), the OR keeps -0 (minimum). */
IND_INLINE float
ind_maximum (float x,
             float y)
{
  float r = x > y ? x : y;

  r = x == y ? u2f (f2u (x) & f2u (y)) : r;
  return (x != x || y != y) ? NAN : r;
}

IND_INLINE float
ind_minimum (float x,
             float y)
{
  float r = x < y ? x : y;

  r = x == y ? u2f (f2u (x) | f2u (y)) : r;
  return (x != x || y != y) ? NAN : r;
}

IND_INLINE float
ind_relu (float x)
{
  float r = x > 0.0f ? x : 0.0f;

  return x != x ? NAN : r;
}

IND_INLINE float
ind_abs (float x)
{
  return u2f (f2u (x) & 0x7fffffffu);
}

static float
exact_sigmoid (float x)
{
  return 1.0f / (1.0f + expf (-x));
}

/* Vector math --------------------------------------------------------- */

/* exp: Cephes-style.  x = n ln2 + r with |r| <= ln2/2 (Cody-Waite: the high
 * part of ln2 has 9 significant bits, so n * C1 is exact), e^r by a degree-7
 * polynomial, then 2^n applied as 2^n1 * 2^n2 (n1 = n/2): both factors are
 * normal, p * 2^n1 is exact, so a subnormal result is rounded once.  Inputs
 * are clamped so that n stays in [-150, 128]: above the clamp the product
 * overflows to +inf, below it rounds to +0, NaN passes the clamp unchanged
 * (comparisons with NaN are false) and comes out NaN. */
IND_INLINE float
ind_expf (float x)
{
  const float magic = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
  float xc, t, fn, r, z, p;
  gint32 n, n1, n2;

  xc = x > 88.8f ? 88.8f : x;
  xc = xc < -104.0f ? -104.0f : xc;

  t = xc * 1.44269504088896341f + magic;
  fn = t - magic;
  n = (gint32) (f2u (t) - f2u (magic));

  r = xc - fn * 0.693359375f;
  r = r - fn * -2.12194440e-4f;

  z = r * r;
  p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * z + r;
  p = p + 1.0f;

  n1 = n >> 1;
  n2 = n - n1;
  p = p * u2f ((guint32) (n1 + 127) << 23);
  return p * u2f ((guint32) (n2 + 127) << 23);
}

/* log: Cephes logf.  x = 2^e m with m in [sqrt(1/2), sqrt(2)), log(m) by
 * a degree-9 polynomial in f = m - 1, e ln2 added in two parts.
 * Subnormals are scaled by 2^23 first; 0 -> -inf, negative -> NaN,
 * +inf -> +inf, NaN -> NaN, as logf. */
IND_INLINE float
ind_logf (float x)
{
  gboolean sub = x < 1.17549435e-38f;
  float xs, m, z, y, fe, r;
  guint32 u;
  gint32 e;

  xs = sub ? x * 8388608.0f : x;
  u = f2u (xs);
  e = (gint32) ((u >> 23) & 0xff) - 126 - (sub ? 23 : 0);
  m = u2f ((u & 0x007fffffu) | 0x3f000000u);     /* [0.5, 1) */

  e = m < 0.707106781186547524f ? e - 1 : e;
  m = m < 0.707106781186547524f ? m + m - 1.0f : m - 1.0f;

  z = m * m;
  y = 7.0376836292e-2f;
  y = y * m - 1.1514610310e-1f;
  y = y * m + 1.1676998740e-1f;
  y = y * m - 1.2420140846e-1f;
  y = y * m + 1.4249322787e-1f;
  y = y * m - 1.6668057665e-1f;
  y = y * m + 2.0000714765e-1f;
  y = y * m - 2.4999993993e-1f;
  y = y * m + 3.3333331174e-1f;
  y = y * m * z;

  fe = (float) e;
  y = y + fe * -2.12194440e-4f;
  y = y - 0.5f * z;
  r = m + y;
  r = r + fe * 0.693359375f;

  r = x == INFINITY ? INFINITY : r;
  r = x == 0.0f ? -INFINITY : r;
  r = x < 0.0f ? NAN : r;
  return x != x ? x : r;
}

/* tanh: a rational minimax approximation on [-7.9988, 7.9988] (the one
 * Eigen uses: odd degree-13 numerator, even degree-6 denominator), one
 * division and no exp, for |x| >= 0.625; below, Cephes' odd polynomial.
 * Beyond the clamp tanh is +-1 in float.  NaN passes the clamp
 * (comparisons are false) and comes out NaN. */
IND_INLINE float
ind_tanhf (float x)
{
  float xc, x2, p, q, z, ps;

  xc = x > 7.99881172180175781f ? 7.99881172180175781f : x;
  xc = xc < -7.99881172180175781f ? -7.99881172180175781f : xc;
  x2 = xc * xc;

  p = -2.76076847742355e-16f;
  p = p * x2 + 2.00018790482477e-13f;
  p = p * x2 - 8.60467152213735e-11f;
  p = p * x2 + 5.12229709037114e-08f;
  p = p * x2 + 1.48572235717979e-05f;
  p = p * x2 + 6.37261928875436e-04f;
  p = p * x2 + 4.89352455891786e-03f;
  p = p * xc;

  q = 1.19825839466702e-06f;
  q = q * x2 + 1.18534705686654e-04f;
  q = q * x2 + 2.26843463243900e-03f;
  q = q * x2 + 4.89352518554385e-03f;

  /* near 0, where the rational form loses a few ulp, Cephes' odd
   * polynomial (1 ulp); the sign of x is then that of the result */
  z = x2;
  ps = -5.70498872745e-3f;
  ps = ps * z + 2.06390887954e-2f;
  ps = ps * z - 5.37397155531e-2f;
  ps = ps * z + 1.33314422036e-1f;
  ps = ps * z - 3.33332819422e-1f;
  ps = ps * z * xc + xc;

  return ind_abs (x) < 0.625f ? ps : p / q;
}

/* sigmoid as eager writes it, 1 / (1 + e^-x), with the vector exp:
 * e^-x = +inf gives +0, NaN stays NaN. */
IND_INLINE float
ind_sigmoidf (float x)
{
  return 1.0f / (1.0f + ind_expf (-x));
}

float
_reg_ind_vexpf (float x)
{
  return ind_expf (x);
}

float
_reg_ind_vlogf (float x)
{
  return ind_logf (x);
}

float
_reg_ind_vtanhf (float x)
{
  return ind_tanhf (x);
}

float
_reg_ind_vsigmoidf (float x)
{
  return ind_sigmoidf (x);
}

/* Loops --------------------------------------------------------------- */

#define UNARY_LOOP(name, expr)                                          \
  IND_CLONES static void                                                \
  name (float       *restrict out,                                      \
        const float *restrict a,                                        \
        gsize                 n)                                        \
  {                                                                     \
    for (gsize i = 0; i < n; i++)                                       \
      {                                                                 \
        float x = a[i];                                                 \
        out[i] = (expr);                                                \
      }                                                                 \
  }

#define BINARY_LOOP(name, expr)                                         \
  IND_CLONES static void                                                \
  name (float       *restrict out,                                      \
        const float *restrict a,                                        \
        const float *restrict b,                                        \
        gsize                 n)                                        \
  {                                                                     \
    for (gsize i = 0; i < n; i++)                                       \
      {                                                                 \
        float x = a[i], y = b[i];                                       \
        out[i] = (expr);                                                \
      }                                                                 \
  }

BINARY_LOOP (loop_add, x + y)
BINARY_LOOP (loop_sub, x - y)
BINARY_LOOP (loop_mul, x * y)
BINARY_LOOP (loop_div, x / y)
BINARY_LOOP (loop_maximum, ind_maximum (x, y))
BINARY_LOOP (loop_minimum, ind_minimum (x, y))

UNARY_LOOP (loop_neg, -x)
UNARY_LOOP (loop_relu, ind_relu (x))
UNARY_LOOP (loop_abs, ind_abs (x))
UNARY_LOOP (loop_sqrt, sqrtf (x))   /* -fno-math-errno: one sqrtps, correctly rounded */
UNARY_LOOP (loop_vexp, ind_expf (x))
UNARY_LOOP (loop_vlog, ind_logf (x))
UNARY_LOOP (loop_vtanh, ind_tanhf (x))
UNARY_LOOP (loop_vsigmoid, ind_sigmoidf (x))

/* libm, one call per element: what eager does, bit for bit. */
static void
loop_exact_exp (float       *restrict out,
                const float *restrict a,
                gsize                 n)
{
  for (gsize i = 0; i < n; i++)
    out[i] = expf (a[i]);
}

static void
loop_exact_log (float       *restrict out,
                const float *restrict a,
                gsize                 n)
{
  for (gsize i = 0; i < n; i++)
    out[i] = logf (a[i]);
}

static void
loop_exact_tanh (float       *restrict out,
                 const float *restrict a,
                 gsize                 n)
{
  for (gsize i = 0; i < n; i++)
    out[i] = tanhf (a[i]);
}

static void
loop_exact_sigmoid (float       *restrict out,
                    const float *restrict a,
                    gsize                 n)
{
  for (gsize i = 0; i < n; i++)
    out[i] = exact_sigmoid (a[i]);
}

RegIndUnaryFn
_reg_ind_unary_fn (RegIndOp op,
                   gboolean vector_math)
{
  switch (op)
    {
    case REG_IND_OP_NEG:     return loop_neg;
    case REG_IND_OP_RELU:    return loop_relu;
    case REG_IND_OP_ABS:     return loop_abs;
    case REG_IND_OP_SQRT:    return loop_sqrt;
    case REG_IND_OP_EXP:     return vector_math ? loop_vexp : loop_exact_exp;
    case REG_IND_OP_LOG:     return vector_math ? loop_vlog : loop_exact_log;
    case REG_IND_OP_TANH:    return vector_math ? loop_vtanh : loop_exact_tanh;
    case REG_IND_OP_SIGMOID: return vector_math ? loop_vsigmoid : loop_exact_sigmoid;
    default:
      g_assert_not_reached ();
    }
}

RegIndBinaryFn
_reg_ind_binary_fn (RegIndOp op)
{
  switch (op)
    {
    case REG_IND_OP_ADD:     return loop_add;
    case REG_IND_OP_SUB:     return loop_sub;
    case REG_IND_OP_MUL:     return loop_mul;
    case REG_IND_OP_DIV:     return loop_div;
    case REG_IND_OP_MAXIMUM: return loop_maximum;
    case REG_IND_OP_MINIMUM: return loop_minimum;
    default:
      g_assert_not_reached ();
    }
}

float
_reg_ind_eval_scalar (RegIndOp op,
                      float    a,
                      float    b)
{
  switch (op)
    {
    case REG_IND_OP_ADD:     return a + b;
    case REG_IND_OP_SUB:     return a - b;
    case REG_IND_OP_MUL:     return a * b;
    case REG_IND_OP_DIV:     return a / b;
    case REG_IND_OP_MAXIMUM: return ind_maximum (a, b);
    case REG_IND_OP_MINIMUM: return ind_minimum (a, b);
    case REG_IND_OP_NEG:     return -a;
    case REG_IND_OP_RELU:    return ind_relu (a);
    case REG_IND_OP_EXP:     return expf (a);
    case REG_IND_OP_LOG:     return logf (a);
    case REG_IND_OP_SQRT:    return sqrtf (a);
    case REG_IND_OP_TANH:    return tanhf (a);
    case REG_IND_OP_SIGMOID: return exact_sigmoid (a);
    case REG_IND_OP_ABS:     return ind_abs (a);
    case REG_IND_OP_SUM:     return (float) (double) a;
    default:
      g_assert_not_reached ();
    }
}

/* Reductions and matmul ----------------------------------------------- */

#define SUM_LANES 16

IND_CLONES double
_reg_ind_sum (const float *x,
              gsize        n)
{
  double acc[SUM_LANES] = { 0 };
  double total;
  gsize i = 0;

  /* Independent partial sums: the loop vectorizes (in double: a float
   * widened to double is exact) and the additions do not wait for each
   * other; each lane sums n/16 terms, combined pairwise at the end. */
  for (; i + SUM_LANES <= n; i += SUM_LANES)
    for (guint j = 0; j < SUM_LANES; j++)
      acc[j] += (double) x[i + j];
  for (guint j = 0; i < n; i++, j++)
    acc[j] += (double) x[i];

  for (guint width = SUM_LANES / 2; width > 0; width /= 2)
    for (guint j = 0; j < width; j++)
      acc[j] += acc[j + width];
  total = acc[0];

  return total;
}

/* Row tiles of 4 rows x 64 columns accumulate in a local array (it stays
 * in registers or L1), each element of A broadcast against a row of B:
 * the inner loop is a vectorized multiply-add over j. */
#define MM_ROWS 4
#define MM_COLS 64

IND_CLONES void
_reg_ind_matmul_rows (const float *a,
                      const float *b,
                      float       *c,
                      gsize        row_begin,
                      gsize        row_end,
                      gsize        k,
                      gsize        n)
{
  for (gsize i0 = row_begin; i0 < row_end; i0 += MM_ROWS)
    {
      gsize rows = MIN (MM_ROWS, row_end - i0);

      for (gsize j0 = 0; j0 < n; j0 += MM_COLS)
        {
          gsize cols = MIN (MM_COLS, n - j0);
          float acc[MM_ROWS][MM_COLS];

          if (rows == MM_ROWS && cols == MM_COLS)
            {
              memset (acc, 0, sizeof acc);
              for (gsize l = 0; l < k; l++)
                {
                  const float *brow = b + l * n + j0;
                  float a0 = a[(i0 + 0) * k + l];
                  float a1 = a[(i0 + 1) * k + l];
                  float a2 = a[(i0 + 2) * k + l];
                  float a3 = a[(i0 + 3) * k + l];

                  for (gsize j = 0; j < MM_COLS; j++)
                    {
                      float bv = brow[j];

                      acc[0][j] += a0 * bv;
                      acc[1][j] += a1 * bv;
                      acc[2][j] += a2 * bv;
                      acc[3][j] += a3 * bv;
                    }
                }
            }
          else
            {
              for (gsize r = 0; r < rows; r++)
                for (gsize j = 0; j < cols; j++)
                  acc[r][j] = 0.0f;
              for (gsize l = 0; l < k; l++)
                {
                  const float *brow = b + l * n + j0;

                  for (gsize r = 0; r < rows; r++)
                    {
                      float av = a[(i0 + r) * k + l];

                      for (gsize j = 0; j < cols; j++)
                        acc[r][j] += av * brow[j];
                    }
                }
            }

          for (gsize r = 0; r < rows; r++)
            memcpy (c + (i0 + r) * n + j0, acc[r], cols * sizeof (float));
        }
    }
}

const char *
_reg_ind_isa_name (void)
{
#if defined (__GNUC__) && !defined (__clang__) && defined (__x86_64__)
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("x86-64-v4"))
    return "x86-64-v4 (AVX-512)";
  if (__builtin_cpu_supports ("x86-64-v3"))
    return "x86-64-v3 (AVX2, FMA)";
  return "x86-64 (SSE2)";
#else
  return "generic";
#endif
}
