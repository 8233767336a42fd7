/* reg-conformance.h: the graphs a backend must agree with eager on
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <reg.h>

G_BEGIN_DECLS

/* One graph of the set, with its inputs and the bound its outputs are
 * held to (reg-tolerance.h). */
typedef struct
{
  char       *name;     /* "op/tanh", "shape/8d"... */
  const char *op;       /* the one operator it is about, or NULL */
  RegGraph   *graph;
  GPtrArray  *inputs;   /* of RegTensor, one per graph input */
  double      atol;
  double      rtol;
  guint       max_ulp;  /* G_MAXUINT: atol and rtol; otherwise the
                         * distance in ulp of finite results */
} ConformanceCase;

/* The whole set, in a fixed order, with the same inputs on every run
 * (element free function conformance_case_free). */
GPtrArray *conformance_cases_new    (void);
void       conformance_case_free    (ConformanceCase        *c);

/* Compares a backend's outputs @got with eager's @want (same count and
 * shapes, checked by reg_compiled_fn_call() already).  On a difference
 * beyond the bound returns FALSE and says which output, where, and the
 * largest error, in @problem. */
gboolean   conformance_compare      (const ConformanceCase  *c,
                                     GPtrArray              *got,
                                     GPtrArray              *want,
                                     char                  **problem);

G_END_DECLS
