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

/* REG_IND_HAVE_TARGET_CLONES: meson found GCC's target_clones on x86-64
 * (modules/meson.build); otherwise one version, for the baseline. */
#if REG_IND_HAVE_TARGET_CLONES
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

/* The clamping bounds of the vector math.  Each loop reads them once,
 * through a volatile, and hands them to the inline functions: with
 * constant bounds GCC sees that a clamped lane has a constant result and
 * computes those lanes apart (two compares and a blend per bound), where an
 * opaque bound costs one minps or maxps.  The clamps let NaN through:
 * `x > hi ? hi : x` keeps x when x is NaN. */
typedef struct
{
  float exp_lo, exp_hi;          /* exp: n = round (x / ln2) in [-150, 128] */
  float sigmoid_lo, sigmoid_hi;  /* e^-x in one scaling: n in [-115, 128] */
  float tanh_hi;                 /* tanh is +-1 in float beyond */
} MathBounds;

static const volatile MathBounds math_bounds_opaque = {
  -104.0f, 88.8f, -88.8f, 80.0f, 7.99881172180175781f,
};

IND_INLINE MathBounds
math_bounds (void)
{
  MathBounds bounds;

  bounds.exp_lo = math_bounds_opaque.exp_lo;
  bounds.exp_hi = math_bounds_opaque.exp_hi;
  bounds.sigmoid_lo = math_bounds_opaque.sigmoid_lo;
  bounds.sigmoid_hi = math_bounds_opaque.sigmoid_hi;
  bounds.tanh_hi = math_bounds_opaque.tanh_hi;

  return bounds;
}

/* 1.5 * 2^23 + 126: adding x / ln2 to it rounds that to the integer n, and
 * leaves n + 126, the biased exponent of 2^(n-1), in the low bits. */
#define EXP_SHIFT 12583038.0f

/* 2 e^r for |r| <= ln2/2: Cephes' expf polynomial (degree 7) with every
 * coefficient doubled, which is exact, in Horner form (one FMA a term on
 * v3 and v4). */
IND_INLINE float
exp_poly2 (float r)
{
  float p;

  p = 2.0f * 1.9875691500e-4f;
  p = p * r + 2.0f * 1.3981999507e-3f;
  p = p * r + 2.0f * 8.3334519073e-3f;
  p = p * r + 2.0f * 4.1665795894e-2f;
  p = p * r + 2.0f * 1.6666665459e-1f;
  p = p * r + 2.0f * 5.0000001201e-1f;
  p = p * r + 2.0f;
  return p * r + 2.0f;
}

/* exp: x = n ln2 + r with |r| <= ln2/2 (Cody-Waite: the high part of ln2
 * has 9 significant bits, so n * C1 is exact), then 2 e^r times 2^(n-1),
 * whose exponent bits come straight from the rounding of x / ln2.  The
 * clamp keeps n in [-150, 128]: 2^(n-1) is a normal float for n >= -125;
 * below, the product is formed with 2^(n+63) (exact) and scaled by 2^-64,
 * so a subnormal result is rounded once.  Above the clamp the product
 * overflows to +inf, below it rounds to +0; NaN passes the clamp and comes
 * out NaN. */
IND_INLINE float
ind_expf (float x,
          float lo,
          float hi)
{
  float xc, t, fn, r, y;
  gboolean tiny;
  guint32 e;

  xc = x > hi ? hi : x;
  xc = xc < lo ? lo : xc;

  t = xc * 1.44269504088896341f + EXP_SHIFT;
  fn = t - EXP_SHIFT;
  r = xc - fn * 0.693359375f;
  r = r - fn * -2.12194440e-4f;

  tiny = fn < -125.5f;
  e = f2u (t) + (tiny ? 64u : 0u);
  y = exp_poly2 (r) * u2f (e << 23);

  return tiny ? y * 0x1p-64f : y;
}

/* log: Cephes logf.  x = 2^e m with m in [sqrt(1/2), sqrt(2)), log(m) by
 * a degree-9 polynomial in f = m - 1 (exact), e ln2 added in two parts.
 * The split is integer arithmetic on the bits: subtracting those of
 * sqrt(1/2) makes the exponent field e, and m keeps the mantissa with the
 * exponent of [sqrt(1/2), sqrt(2)).  Subnormals are scaled by 2^23 first;
 * 0 -> -inf, +inf -> +inf, negative and NaN -> NaN (the default NaN: the
 * payload of a NaN input is not kept), as logf. */
IND_INLINE float
ind_logf (float x)
{
  float s, m, z, y, fe, r;
  guint32 u, t;

  /* one select only: a second one on the same condition would make GCC
   * compute the bit manipulations below twice, once for each case */
  s = x < 1.17549435e-38f ? 8388608.0f : 1.0f;
  u = f2u (x * s);                            /* exact */
  t = u - 0x3f3504f3u;                        /* the bits of sqrt(1/2) */
  m = u2f (u - (t & 0xff800000u)) - 1.0f;     /* [sqrt(1/2), sqrt(2)) - 1 */
  fe = (float) ((gint32) (t - (f2u (s) - 0x3f800000u)) >> 23);  /* e - 23 if scaled */

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

  y = y + fe * -2.12194440e-4f;
  y = y - 0.5f * z;
  r = m + y;
  r = r + fe * 0.693359375f;

  r = x == INFINITY ? INFINITY : r;
  r = x == 0.0f ? -INFINITY : r;
  return x >= 0.0f ? r : NAN;
}

/* tanh: a rational minimax approximation on [-7.9988, 7.9988] (the one
 * Eigen uses: odd degree-13 numerator, even degree-6 denominator), one
 * division and no exp.  Both polynomials are scaled by 2^8 (exactly), so
 * that the numerator, x times about 1.25, underflows only where x itself
 * is subnormal: down to the smallest floats the quotient stays within a
 * few ulp of tanh x = x, with no separate case near 0.  Beyond the clamp
 * (@hi) tanh is +-1 in float.  NaN passes the clamp and comes out NaN,
 * -0 comes out -0. */
IND_INLINE float
ind_tanhf (float x,
           float hi)
{
  float xc, x2, p, q;

  xc = x > hi ? hi : x;
  xc = xc < -hi ? -hi : xc;
  x2 = xc * xc;

  p = 256.0f * -2.76076847742355e-16f;
  p = p * x2 + 256.0f * 2.00018790482477e-13f;
  p = p * x2 + 256.0f * -8.60467152213735e-11f;
  p = p * x2 + 256.0f * 5.12229709037114e-08f;
  p = p * x2 + 256.0f * 1.48572235717979e-05f;
  p = p * x2 + 256.0f * 6.37261928875436e-04f;
  p = p * x2 + 256.0f * 4.89352455891786e-03f;
  p = p * xc;

  q = 256.0f * 1.19825839466702e-06f;
  q = q * x2 + 256.0f * 1.18534705686654e-04f;
  q = q * x2 + 256.0f * 2.26843463243900e-03f;
  q = q * x2 + 256.0f * 4.89352518554385e-03f;

  return p / q;
}

/* sigmoid as eager writes it, 1 / (1 + e^-x), with e^-x computed as in
 * ind_expf() but scaled in one step: the clamp to [-88.8, 80] keeps n in
 * [-115, 128], where 2^(n-1) is normal, and does not change the result
 * (from x = 17 on, 1 + e^-x is 1 in float; below -88.73, e^-x overflows to
 * +inf and the result is +0, as in eager).  NaN passes the clamp and comes
 * out NaN. */
IND_INLINE float
ind_sigmoidf (float x,
              float lo,
              float hi)
{
  float xc, t, fn, r, e;

  xc = x < lo ? lo : x;
  xc = xc > hi ? hi : xc;

  t = xc * -1.44269504088896341f + EXP_SHIFT;
  fn = t - EXP_SHIFT;
  r = -xc - fn * 0.693359375f;
  r = r - fn * -2.12194440e-4f;

  e = exp_poly2 (r) * u2f (f2u (t) << 23);

  return 1.0f / (1.0f + e);
}

float
_reg_ind_vexpf (float x)
{
  MathBounds bounds = math_bounds ();

  return ind_expf (x, bounds.exp_lo, bounds.exp_hi);
}

float
_reg_ind_vlogf (float x)
{
  return ind_logf (x);
}

float
_reg_ind_vtanhf (float x)
{
  MathBounds bounds = math_bounds ();

  return ind_tanhf (x, bounds.tanh_hi);
}

float
_reg_ind_vsigmoidf (float x)
{
  MathBounds bounds = math_bounds ();

  return ind_sigmoidf (x, bounds.sigmoid_lo, bounds.sigmoid_hi);
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
UNARY_LOOP (loop_vlog, ind_logf (x))

/* The same with the clamping bounds of the vector math at hand (@bd). */
#define MATH_LOOP(name, expr)                                           \
  IND_CLONES static void                                                \
  name (float       *restrict out,                                      \
        const float *restrict a,                                        \
        gsize                 n)                                        \
  {                                                                     \
    const MathBounds bd = math_bounds ();                               \
                                                                        \
    for (gsize i = 0; i < n; i++)                                       \
      {                                                                 \
        float x = a[i];                                                 \
        out[i] = (expr);                                                \
      }                                                                 \
  }

MATH_LOOP (loop_vexp, ind_expf (x, bd.exp_lo, bd.exp_hi))
MATH_LOOP (loop_vtanh, ind_tanhf (x, bd.tanh_hi))
MATH_LOOP (loop_vsigmoid, ind_sigmoidf (x, bd.sigmoid_lo, bd.sigmoid_hi))

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
_reg_ind_unary_fn (RegOp    op,
                   gboolean vector_math)
{
  switch (op)
    {
    case REG_OP_NEG:     return loop_neg;
    case REG_OP_RELU:    return loop_relu;
    case REG_OP_ABS:     return loop_abs;
    case REG_OP_SQRT:    return loop_sqrt;
    case REG_OP_EXP:     return vector_math ? loop_vexp : loop_exact_exp;
    case REG_OP_LOG:     return vector_math ? loop_vlog : loop_exact_log;
    case REG_OP_TANH:    return vector_math ? loop_vtanh : loop_exact_tanh;
    case REG_OP_SIGMOID: return vector_math ? loop_vsigmoid : loop_exact_sigmoid;
    default:
      g_assert_not_reached ();
    }
}

RegIndBinaryFn
_reg_ind_binary_fn (RegOp op)
{
  switch (op)
    {
    case REG_OP_ADD:     return loop_add;
    case REG_OP_SUB:     return loop_sub;
    case REG_OP_MUL:     return loop_mul;
    case REG_OP_DIV:     return loop_div;
    case REG_OP_MAXIMUM: return loop_maximum;
    case REG_OP_MINIMUM: return loop_minimum;
    default:
      g_assert_not_reached ();
    }
}

float
_reg_ind_eval_scalar (RegOp    op,
                      float    a,
                      float    b)
{
  switch (op)
    {
    case REG_OP_ADD:     return a + b;
    case REG_OP_SUB:     return a - b;
    case REG_OP_MUL:     return a * b;
    case REG_OP_DIV:     return a / b;
    case REG_OP_MAXIMUM: return ind_maximum (a, b);
    case REG_OP_MINIMUM: return ind_minimum (a, b);
    case REG_OP_NEG:     return -a;
    case REG_OP_RELU:    return ind_relu (a);
    case REG_OP_EXP:     return expf (a);
    case REG_OP_LOG:     return logf (a);
    case REG_OP_SQRT:    return sqrtf (a);
    case REG_OP_TANH:    return tanhf (a);
    case REG_OP_SIGMOID: return exact_sigmoid (a);
    case REG_OP_ABS:     return ind_abs (a);
    case REG_OP_SUM:     return (float) (double) a;
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
#define MM_NARROW 16

/* MM_NARROW floats: a GCC generic vector, which each variant lowers to its
 * own registers (one zmm, two ymm, four xmm). */
typedef float MmVec __attribute__ ((vector_size (MM_NARROW * sizeof (float))));

IND_CLONES void
_reg_ind_matmul_rows (const float *a,
                      const float *b,
                      float       *c,
                      gsize        row_begin,
                      gsize        row_end,
                      gsize        k,
                      gsize        n)
{
  for (gsize j0 = 0; j0 < n; j0 += MM_COLS)
    for (gsize i0 = row_begin; i0 < row_end; i0 += MM_ROWS)
        {
          gsize rows = MIN (MM_ROWS, row_end - i0);
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
              gsize j1 = 0;

              /* a narrow tile (a matrix narrower than 64, or its last
               * columns): 16 columns at a time with the accumulators in
               * registers, the same sums in the same order.  Vector
               * variables, not an array: GCC would align an array to 64
               * bytes for AVX-512 and store to it with aligned moves, and
               * AddressSanitizer's fake stack (detect_stack_use_after_return)
               * aligns locals to 32 only. */
              if (rows == MM_ROWS)
                for (; j1 + MM_NARROW <= cols; j1 += MM_NARROW)
                  {
                    MmVec t0 = { 0 }, t1 = { 0 }, t2 = { 0 }, t3 = { 0 };

                    for (gsize l = 0; l < k; l++)
                      {
                        MmVec bv;

                        memcpy (&bv, b + l * n + j0 + j1, sizeof bv);
                        t0 += a[(i0 + 0) * k + l] * bv;
                        t1 += a[(i0 + 1) * k + l] * bv;
                        t2 += a[(i0 + 2) * k + l] * bv;
                        t3 += a[(i0 + 3) * k + l] * bv;
                      }
                    memcpy (&acc[0][j1], &t0, sizeof t0);
                    memcpy (&acc[1][j1], &t1, sizeof t1);
                    memcpy (&acc[2][j1], &t2, sizeof t2);
                    memcpy (&acc[3][j1], &t3, sizeof t3);
                  }

              for (gsize r = 0; r < rows; r++)
                for (gsize j = j1; j < cols; j++)
                  acc[r][j] = 0.0f;
              for (gsize l = 0; l < k && j1 < cols; l++)
                {
                  const float *brow = b + l * n + j0;

                  for (gsize r = 0; r < rows; r++)
                    {
                      float av = a[(i0 + r) * k + l];

                      for (gsize j = j1; j < cols; j++)
                        acc[r][j] += av * brow[j];
                    }
                }
            }

          for (gsize r = 0; r < rows; r++)
            memcpy (c + (i0 - row_begin + r) * n + j0, acc[r], cols * sizeof (float));
        }
}

const char *
_reg_ind_isa_name (void)
{
#if REG_IND_HAVE_TARGET_CLONES
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
