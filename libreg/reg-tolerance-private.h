/* reg-tolerance-private.h: how close a backend's results must be to eager's
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

#include <glib.h>

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

/* The operators with their bound for one application.  `max_ulp` is the
 * largest distance from eager over a sweep of all finite floats for the
 * functions whose results a backend may approximate (G_MAXUINT: none,
 * the operator is held to REG_TOLERANCE_ONE_OP_RTOL alone); `sum` and
 * `matmul` are reductions, held to REG_TOLERANCE_RTOL/ATOL and to
 * _reg_tolerance_matmul_atol().  This is also the one list of operators
 * the conformance set covers: when the operator table of the library
 * exists, it replaces the names here. */
typedef enum {
  REG_TOLERANCE_UNARY,
  REG_TOLERANCE_BINARY,
  REG_TOLERANCE_SUM,
  REG_TOLERANCE_MATMUL,
} RegToleranceKind;

typedef struct
{
  const char       *op;
  RegToleranceKind  kind;
  guint             max_ulp;
} RegOpTolerance;

static const RegOpTolerance reg_op_tolerances[] = {
  { "add",     REG_TOLERANCE_BINARY, G_MAXUINT },
  { "sub",     REG_TOLERANCE_BINARY, G_MAXUINT },
  { "mul",     REG_TOLERANCE_BINARY, G_MAXUINT },
  { "div",     REG_TOLERANCE_BINARY, G_MAXUINT },
  { "maximum", REG_TOLERANCE_BINARY, G_MAXUINT },
  { "minimum", REG_TOLERANCE_BINARY, G_MAXUINT },
  { "neg",     REG_TOLERANCE_UNARY,  G_MAXUINT },
  { "relu",    REG_TOLERANCE_UNARY,  G_MAXUINT },
  { "exp",     REG_TOLERANCE_UNARY,  1 },
  { "log",     REG_TOLERANCE_UNARY,  1 },
  { "sqrt",    REG_TOLERANCE_UNARY,  G_MAXUINT },
  { "tanh",    REG_TOLERANCE_UNARY,  5 },
  { "sigmoid", REG_TOLERANCE_UNARY,  4 },
  { "abs",     REG_TOLERANCE_UNARY,  G_MAXUINT },
  { "sum",     REG_TOLERANCE_SUM,    G_MAXUINT },
  { "matmul",  REG_TOLERANCE_MATMUL, G_MAXUINT },
};

static inline const RegOpTolerance *
_reg_tolerance_lookup (const char *op)
{
  for (gsize i = 0; i < G_N_ELEMENTS (reg_op_tolerances); i++)
    if (strcmp (reg_op_tolerances[i].op, op) == 0)
      return &reg_op_tolerances[i];

  return NULL;
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
