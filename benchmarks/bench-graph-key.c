/* bench-graph-key.c: the compile cache's key of a large graph
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Prints, measured in one run, for graphs of 1,000 to 100,000 nodes: the
 * time to check the graph against its example inputs (shape inference,
 * what every compile does first), the time to compute its compile cache
 * key (the graph's nodes as they are, without printing), the time to
 * print it (reg_graph_to_string, what a key made of text would cost), and
 * the ratio key / check (bound: at most 2 at 100,000 nodes).
 *
 * Usage: bench-graph-key [--quick]
 * Links libreg's internal library to reach the key function.
 */

#include <stdlib.h>
#include <string.h>

#include "reg-compile-cache-private.h"
#include "reg-graph-private.h"

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static double
median (double *values,
        guint   n)
{
  qsort (values, n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/* A chain of @n_nodes nodes: two inputs, then binary and unary operators
 * with a constant now and then, as a builder makes them (unnamed). */
static RegGraph *
chain_graph (guint n_nodes)
{
  static const char *unary[] = { "neg", "relu", "tanh" };
  static const char *binary[] = { "add", "mul", "maximum" };
  RegGraph *graph = reg_graph_new ();
  guint x = reg_graph_add_input (graph, "x");
  guint y = reg_graph_add_input (graph, "y");
  guint last = x;

  while (reg_graph_get_n_nodes (graph) < n_nodes)
    {
      g_autoptr(GError) error = NULL;
      guint i = reg_graph_get_n_nodes (graph);

      if (i % 7 == 0)
        {
          guint k = reg_graph_add_constant (graph, i * 0.25);

          last = reg_graph_add_op (graph, "mul", (const guint[]) { last, k }, 2, &error);
        }
      else if (i % 2)
        last = reg_graph_add_op (graph, unary[i % 3], &last, 1, &error);
      else
        last = reg_graph_add_op (graph, binary[i % 3], (const guint[]) { last, y }, 2, &error);
      g_assert_no_error (error);
    }
  reg_graph_set_outputs (graph, &last, 1);

  return graph;
}

int
main (int   argc,
      char *argv[])
{
  gboolean quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  const guint sizes[] = { 1000, 10000, 100000 };
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  guint runs = quick ? 5 : 21;

  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 8 }, 1));
  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 8 }, 1));

  g_print ("%8s %14s %14s %14s %10s\n", "nodes", "check (us)", "key (us)", "print (us)", "key/check");
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      g_autoptr(RegGraph) graph = chain_graph (sizes[s]);
      g_autofree double *check = g_new (double, runs);
      g_autofree double *key = g_new (double, runs);
      g_autofree double *print = g_new (double, runs);

      for (guint r = 0; r < runs; r++)
        {
          g_autoptr(GError) error = NULL;
          g_autofree RegShape *shapes = NULL;
          gsize key_size;
          g_autofree char *text = NULL;
          gint64 t0, t1, t2, t3;

          t0 = g_get_monotonic_time ();
          g_assert_true (_reg_graph_infer_shapes (graph, inputs, &shapes, &error));
          t1 = g_get_monotonic_time ();
          _reg_compile_cache_key (graph, inputs, NULL, &key_size);
          t2 = g_get_monotonic_time ();
          text = reg_graph_to_string (graph);
          t3 = g_get_monotonic_time ();
          check[r] = t1 - t0;
          key[r] = t2 - t1;
          print[r] = t3 - t2;
        }

      {
        double c = median (check, runs), k = median (key, runs), p = median (print, runs);

        g_print ("%8u %14.1f %14.1f %14.1f %9.2fx\n", sizes[s], c, k, p, k / c);
      }
    }
  g_print ("bound: key / check <= 2 at 100000 nodes\n");

  return 0;
}
