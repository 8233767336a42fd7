/* inductor-ulp.c: the error of the inductor backend's vector math, in ulp
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs the vector exp, log, tanh and sigmoid loops of the inductor module
 * (modules/inductor/reg-inductor-kernels.c, compiled in) over every float
 * (or every STRIDE-th with --stride), and reports for each function the
 * largest distance in ulp
 *   - to the correctly rounded result (the double-precision libm function
 *     rounded to float), and
 *   - to glibc's float function, which the eager backend calls,
 *   - and, for comparison, glibc's own distance to the correctly rounded
 *     result,
 * and whether NaN and infinities come out exactly where glibc puts them.
 *
 *   build/benchmarks/inductor-ulp [--stride N] [--function NAME,...]
 */

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <reg.h>

#include "reg-inductor-kernels.h"

static gint64
ordered (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  return (u & 0x80000000u) ? -(gint64) (u & 0x7fffffffu) : (gint64) u;
}

static double
ulp_distance (float a,
              float b)
{
  return (double) ABS (ordered (a) - ordered (b));
}

static float ref_exp (float x) { return (float) exp ((double) x); }
static float ref_log (float x) { return (float) log ((double) x); }
static float ref_tanh (float x) { return (float) tanh ((double) x); }
static float ref_sigmoid (float x) { return (float) (1.0 / (1.0 + exp (-(double) x))); }
static float libm_sigmoid (float x) { return 1.0f / (1.0f + expf (-x)); }

typedef struct
{
  RegOp       op;
  float     (*ref) (float);
  float     (*libm) (float);
} Func;

static const Func funcs[] = {
  { REG_OP_EXP,     ref_exp,     expf },
  { REG_OP_LOG,     ref_log,     logf },
  { REG_OP_TANH,    ref_tanh,    tanhf },
  { REG_OP_SIGMOID, ref_sigmoid, libm_sigmoid },
};

#define BATCH (1 << 16)

int
main (int   argc,
      char *argv[])
{
  gint64 stride = 1;
  g_autofree char *function_list = NULL;
  g_auto(GStrv) functions = NULL;
  GOptionEntry entries[] = {
    { "stride", 0, 0, G_OPTION_ARG_INT64, &stride, "Test every N-th float only (default 1: all)", "N" },
    { "function", 0, 0, G_OPTION_ARG_STRING, &function_list,
      "Comma-separated functions among exp, log, tanh, sigmoid (default: all)", "NAME,..." },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("- the error in ulp of the inductor's vector math over every float");
  g_autoptr(GError) error = NULL;
  static float in[BATCH], out[BATCH];

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc > 1)
    {
      g_printerr ("%s\n", error != NULL ? error->message : "unexpected arguments");
      return 2;
    }
  stride = MAX (1, stride);
  if (function_list != NULL)
    {
      functions = g_strsplit (function_list, ",", -1);
      for (guint i = 0; functions[i] != NULL; i++)
        {
          gboolean known = FALSE;

          for (guint f = 0; f < G_N_ELEMENTS (funcs); f++)
            known |= g_str_equal (functions[i], reg_op_get_name (funcs[f].op));
          if (!known)
            {
              g_printerr ("unknown function %s\n", functions[i]);
              return 2;
            }
        }
    }

  printf ("vector math of the inductor backend (%s loops), %s float inputs\n",
          _reg_ind_isa_name (),
          stride == 1 ? "all 2^32" : "every stride-th of the");
  printf ("(CR: correctly rounded; compared where it is a normal float, as a\n"
          " subnormal result of sigmoid is 0 with eager's 1/(1+expf(-x)) too)\n");
  printf ("%-8s %12s %11s %14s %11s %12s %10s\n", "function", "ulp vs CR", "at x",
          "ulp vs libm", "at x", "libm vs CR", "NaN/inf");

  for (guint f = 0; f < G_N_ELEMENTS (funcs); f++)
    {
      RegIndUnaryFn loop = _reg_ind_unary_fn (funcs[f].op, TRUE);
      const char *name = reg_op_get_name (funcs[f].op);
      double max_cr = 0, max_libm = 0, max_lm_cr = 0;
      float at_cr = 0, at_libm = 0;
      guint64 special_mismatch = 0;
      guint64 bits = 0;

      if (functions != NULL && !g_strv_contains ((const char * const *) functions, name))
        continue;

      while (bits <= G_MAXUINT32)
        {
          guint n = 0;

          for (; n < BATCH && bits <= G_MAXUINT32; n++, bits += (guint64) stride)
            {
              guint32 u = (guint32) bits;

              memcpy (&in[n], &u, sizeof u);
            }
          loop (out, in, n);

          for (guint i = 0; i < n; i++)
            {
              float x = in[i], got = out[i];
              float cr = funcs[f].ref (x), lm = funcs[f].libm (x);

              if (isnan (lm) || isinf (lm) || isnan (got) || isinf (got))
                {
                  if (!(isnan (lm) && isnan (got)) && got != lm)
                    special_mismatch++;
                  continue;
                }
              if (!isnan (cr) && !isinf (cr) && fabsf (cr) >= FLT_MIN)
                {
                  if (ulp_distance (got, cr) > max_cr)
                    {
                      max_cr = ulp_distance (got, cr);
                      at_cr = x;
                    }
                  max_lm_cr = MAX (max_lm_cr, ulp_distance (lm, cr));
                }
              if (ulp_distance (got, lm) > max_libm)
                {
                  max_libm = ulp_distance (got, lm);
                  at_libm = x;
                }
            }
        }

      printf ("%-8s %12.0f %11.4g %14.0f %11.4g %12.0f %10s\n", name,
              max_cr, at_cr, max_libm, at_libm, max_lm_cr,
              special_mismatch == 0 ? "identical" : "DIFFER");
      if (special_mismatch > 0)
        printf ("  %" G_GUINT64_FORMAT " inputs where NaN/inf differ from libm\n",
                special_mismatch);
    }

  return 0;
}
