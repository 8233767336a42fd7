/* reg-tolerance.h: how close a backend's results must be to eager's
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One definition for the test suite, which holds the inductor to these
 * bounds (tests/test-inductor.c), and for the conformance set of
 * `regctl verify`, which holds every backend to them: a backend passes
 * exactly where the inductor is required to.  docs/verifying-backends.md
 * lists them for module authors.  Header only, as the test programs link
 * the shared library, which exports none of it.
 *
 * A result agrees with eager's when both are NaN (payloads are not
 * specified), when both are the same infinity, or when
 * |got - want| <= atol + rtol |want|; the ulp bounds measure the distance
 * between the two floats in units in the last place.
 */

#pragma once

#include <math.h>
#include <string.h>

#include <reg.h>

G_BEGIN_DECLS

/* Graphs of several operators on moderate values: a few ulp per step,
 * amplified by the chain (the tests' random trees and reductions). */
#define REG_TOLERANCE_RTOL 1e-5
#define REG_TOLERANCE_ATOL 1e-5

/* One elementwise operator on any input, NaN, infinities, zeros,
 * subnormals and overflowing values included: relative only, about 5 ulp
 * (the widest bound of the vector math, tanh's). */
#define REG_TOLERANCE_ONE_OP_RTOL 6e-7

/* The unit roundoff of float32, 2^-24, rounded up. */
#define REG_TOLERANCE_EPSILON 6e-8

/* The bound of one application of @op over all finite floats, in ulp from
 * eager, for the functions whose results a backend may approximate;
 * G_MAXUINT for the others, held to REG_TOLERANCE_ONE_OP_RTOL (elementwise
 * operators) or to REG_TOLERANCE_RTOL/ATOL and _reg_tolerance_matmul_atol()
 * (reductions and matmul), by their RegOpKind.  The conformance set covers
 * every RegOp, so an operator added to the table of the library is checked
 * by its kind's bound until it gets one here. */
static inline guint
_reg_tolerance_max_ulp (RegOp op)
{
  switch (op)
    {
    case REG_OP_EXP:
    case REG_OP_LOG:
      return 1;
    case REG_OP_SIGMOID:
      return 4;
    case REG_OP_TANH:
      return 5;
    default:
      return G_MAXUINT;
    }
}

/* The absolute bound of one matmul over @k terms whose factors are at
 * most 1 in magnitude: float accumulation gives
 * |error| <= k 2^-24 sum_l |a_il| |b_lj| <= k^2 2^-24, doubled as a margin
 * for the order of the additions. */
static inline double
_reg_tolerance_matmul_atol (gint64 k)
{
  return 2 * (double) k * (double) k * REG_TOLERANCE_EPSILON;
}

/* Whether @got agrees with @want within @atol and @rtol (see above). */
static inline gboolean
_reg_tolerance_floats_agree (float  got,
                             float  want,
                             double atol,
                             double rtol)
{
  if (isnan (want) || isnan (got))
    return isnan (want) && isnan (got);
  if (isinf (want) || isinf (got))
    return got == want;

  return fabs ((double) got - want) <= atol + rtol * fabs (want);
}

/* @f's place on a line where consecutive floats are one apart, -0 and +0
 * both at 0: the distance of two finite floats in ulp is the difference. */
static inline gint64
_reg_tolerance_ordered (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  return (u & 0x80000000u) ? -(gint64) (u & 0x7fffffffu) : (gint64) u;
}

static inline guint64
_reg_tolerance_ulp_distance (float a,
                             float b)
{
  gint64 d = _reg_tolerance_ordered (a) - _reg_tolerance_ordered (b);

  return (guint64) (d < 0 ? -d : d);
}

G_END_DECLS
