/* test-graph.c: RegGraph, its builder, text form and shape checks
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <locale.h>
#include <math.h>
#include <string.h>

#include <reg.h>

#include "test-objects.h"

/* ---- Helpers ------------------------------------------------------------ */

/* Parses @text and checks that printing gives @canonical (@text itself
 * when NULL) and that printing is then a fixed point. */
static void
assert_prints_as (const char *text,
                  const char *canonical)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (text);
  g_autofree char *printed = reg_graph_to_string (graph);
  g_autoptr(RegGraph) again = NULL;
  g_autofree char *printed_again = NULL;

  g_assert_cmpstr (printed, ==, canonical != NULL ? canonical : text);

  again = graph_new_from_string (printed);
  printed_again = reg_graph_to_string (again);
  g_assert_cmpstr (printed_again, ==, printed);
}

static guint64
double_bits (double value)
{
  guint64 bits;

  memcpy (&bits, &value, sizeof bits);
  return bits;
}

static double
bits_double (guint64 bits)
{
  double value;

  memcpy (&value, &bits, sizeof value);
  return value;
}

/* ---- Builder ------------------------------------------------------------ */

/* The example graph of docs/overview.md, built. */
static RegGraph *
build_example (void)
{
  RegGraph *graph = reg_graph_new ();
  g_autoptr(GError) error = NULL;
  guint x, y, a, k, b, c;
  guint args[2];

  x = reg_graph_add_input (graph, "x");
  y = reg_graph_add_input (graph, "y");
  args[0] = x, args[1] = y;
  a = reg_graph_add_op (graph, "mul", args, 2, &error);
  g_assert_no_error (error);
  k = reg_graph_add_constant (graph, 1.5);
  args[0] = a, args[1] = k;
  b = reg_graph_add_op (graph, "add", args, 2, &error);
  g_assert_no_error (error);
  c = reg_graph_add_op (graph, "relu", &b, 1, &error);
  g_assert_no_error (error);
  reg_graph_set_outputs (graph, &c, 1);

  g_assert_cmpuint (x, ==, 0);
  g_assert_cmpuint (y, ==, 1);
  g_assert_cmpuint (a, ==, 2);
  g_assert_cmpuint (k, ==, 3);
  g_assert_cmpuint (b, ==, 4);
  g_assert_cmpuint (c, ==, 5);

  return graph;
}

static void
test_builder_basic (void)
{
  g_autoptr(RegGraph) graph = build_example ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  g_assert_true (reg_graph_validate (graph, &error));
  g_assert_no_error (error);

  text = reg_graph_to_string (graph);
  g_assert_cmpstr (text, ==,
                   "graph(x, y):\n"
                   "  v2 = mul(x, y)\n"
                   "  v4 = add(v2, 1.5)\n"
                   "  v5 = relu(v4)\n"
                   "  return (v5,)\n");
  assert_prints_as (text, NULL);
}

static void
test_builder_getters (void)
{
  g_autoptr(RegGraph) graph = build_example ();
  const guint *ids;
  guint n = 99;

  g_assert_cmpuint (reg_graph_get_n_nodes (graph), ==, 6);

  g_assert_cmpint (reg_graph_get_node_kind (graph, 0), ==, REG_NODE_INPUT);
  g_assert_cmpint (reg_graph_get_node_kind (graph, 2), ==, REG_NODE_OP);
  g_assert_cmpint (reg_graph_get_node_kind (graph, 3), ==, REG_NODE_CONSTANT);

  g_assert_cmpstr (reg_graph_get_node_name (graph, 0), ==, "x");
  g_assert_cmpstr (reg_graph_get_node_name (graph, 1), ==, "y");
  g_assert_null (reg_graph_get_node_name (graph, 2));
  g_assert_null (reg_graph_get_node_name (graph, 3));

  /* Interned: comparable by pointer. */
  g_assert_true (reg_graph_get_node_op (graph, 2) == g_intern_static_string ("mul"));
  g_assert_true (reg_graph_get_node_op (graph, 4) == g_intern_string ("add"));
  g_assert_null (reg_graph_get_node_op (graph, 0));
  g_assert_null (reg_graph_get_node_op (graph, 3));

  ids = reg_graph_get_node_args (graph, 4, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (ids[0], ==, 2);
  g_assert_cmpuint (ids[1], ==, 3);
  ids = reg_graph_get_node_args (graph, 5, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (ids[0], ==, 4);
  g_assert_null (reg_graph_get_node_args (graph, 0, &n));
  g_assert_cmpuint (n, ==, 0);
  g_assert_null (reg_graph_get_node_args (graph, 3, NULL));

  g_assert_cmpfloat (reg_graph_get_node_value (graph, 3), ==, 1.5);

  ids = reg_graph_get_inputs (graph, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (ids[0], ==, 0);
  g_assert_cmpuint (ids[1], ==, 1);

  ids = reg_graph_get_outputs (graph, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (ids[0], ==, 5);
}

static void
test_builder_empty (void)
{
  g_autoptr(RegGraph) graph = reg_graph_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  guint n = 99;

  g_assert_cmpuint (reg_graph_get_n_nodes (graph), ==, 0);
  reg_graph_get_inputs (graph, &n);
  g_assert_cmpuint (n, ==, 0);
  reg_graph_get_outputs (graph, &n);
  g_assert_cmpuint (n, ==, 0);

  /* Without outputs the graph is incomplete, as a text without return. */
  g_assert_false (reg_graph_validate (graph, &error));
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==, "graph has no outputs (no return)");
  g_clear_error (&error);

  text = reg_graph_to_string (graph);
  g_assert_cmpstr (text, ==, "graph():\n  return ()\n");

  /* No outputs at all is a choice, and a valid one. */
  reg_graph_set_outputs (graph, NULL, 0);
  g_assert_true (reg_graph_validate (graph, &error));
  g_assert_no_error (error);
}

static void
test_builder_outputs (void)
{
  g_autoptr(RegGraph) graph = reg_graph_new ();
  guint x = reg_graph_add_input (graph, "x");
  guint k = reg_graph_add_constant (graph, -2.0);
  guint y = reg_graph_add_op (graph, "neg", &x, 1, NULL);
  const guint first[] = { y, x, k, y };
  const guint *outputs;
  g_autofree char *text = NULL;
  guint n;

  reg_graph_set_outputs (graph, first, G_N_ELEMENTS (first));
  text = reg_graph_to_string (graph);
  g_assert_cmpstr (text, ==,
                   "graph(x):\n"
                   "  v2 = neg(x)\n"
                   "  return (v2, x, -2.0, v2)\n");

  /* Setting the outputs to themselves: the array given is the graph's own. */
  outputs = reg_graph_get_outputs (graph, &n);
  reg_graph_set_outputs (graph, outputs, n);
  outputs = reg_graph_get_outputs (graph, &n);
  g_assert_cmpmem (outputs, n * sizeof (guint), first, sizeof first);

  /* Replacing them */
  reg_graph_set_outputs (graph, &x, 1);
  outputs = reg_graph_get_outputs (graph, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (outputs[0], ==, x);

  g_assert_true (reg_graph_validate (graph, NULL));
}

static void
test_builder_constants (void)
{
  /* Constants print inline wherever used, and not at all when unused. */
  g_autoptr(RegGraph) graph = reg_graph_new ();
  guint k = reg_graph_add_constant (graph, 0.5);
  guint unused = reg_graph_add_constant (graph, 7.0);
  guint x = reg_graph_add_input (graph, "x");
  guint args[2] = { x, k };
  guint a = reg_graph_add_op (graph, "mul", args, 2, NULL);
  guint b;
  guint outputs[2];
  g_autofree char *text = NULL;

  args[0] = k, args[1] = a;
  b = reg_graph_add_op (graph, "sub", args, 2, NULL);
  outputs[0] = b, outputs[1] = k;
  reg_graph_set_outputs (graph, outputs, 2);

  g_assert_cmpuint (unused, ==, 1);
  g_assert_cmpfloat (reg_graph_get_node_value (graph, unused), ==, 7.0);

  text = reg_graph_to_string (graph);
  g_assert_cmpstr (text, ==,
                   "graph(x):\n"
                   "  v3 = mul(x, 0.5)\n"
                   "  v4 = sub(0.5, v3)\n"
                   "  return (v4, 0.5)\n");
  assert_prints_as (text, NULL);
}

static void
test_builder_generated_names (void)
{
  /* Generated names avoid the names in the graph and each other. */
  g_autoptr(RegGraph) graph = reg_graph_new ();
  guint v1 = reg_graph_add_input (graph, "v1");
  guint v1_ = reg_graph_add_input (graph, "v1_");
  guint v3 = reg_graph_add_input (graph, "v3");
  guint args[2] = { v1, v1_ };
  guint a, b, c;
  g_autofree char *text = NULL;

  g_assert_cmpuint (v3, ==, 2);
  a = reg_graph_add_op (graph, "add", args, 2, NULL);
  g_assert_cmpuint (a, ==, 3);
  b = reg_graph_add_op (graph, "relu", &a, 1, NULL);
  args[0] = b, args[1] = v3;
  c = reg_graph_add_op (graph, "matmul", args, 2, NULL);
  reg_graph_set_outputs (graph, &c, 1);

  text = reg_graph_to_string (graph);
  g_assert_cmpstr (text, ==,
                   "graph(v1, v1_, v3):\n"
                   "  v3_ = add(v1, v1_)\n"
                   "  v4 = relu(v3_)\n"
                   "  v5 = matmul(v4, v3)\n"
                   "  return (v5,)\n");
  assert_prints_as (text, NULL);
}

static void
test_builder_late_input (void)
{
  /* An input added after other nodes still prints in the header. */
  g_autoptr(RegGraph) graph = reg_graph_new ();
  guint x = reg_graph_add_input (graph, "x");
  guint a = reg_graph_add_op (graph, "exp", &x, 1, NULL);
  guint y = reg_graph_add_input (graph, "y");
  guint args[2] = { a, y };
  guint b = reg_graph_add_op (graph, "div", args, 2, NULL);
  g_autofree char *text = NULL;
  const guint *inputs;
  guint n;

  reg_graph_set_outputs (graph, &b, 1);
  inputs = reg_graph_get_inputs (graph, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (inputs[0], ==, x);
  g_assert_cmpuint (inputs[1], ==, y);

  text = reg_graph_to_string (graph);
  g_assert_cmpstr (text, ==,
                   "graph(x, y):\n"
                   "  v1 = exp(x)\n"
                   "  v3 = div(v1, y)\n"
                   "  return (v3,)\n");
  assert_prints_as (text, NULL);
}

static void
test_builder_error_unknown_op (void)
{
  g_autoptr(RegGraph) graph = reg_graph_new ();
  g_autoptr(GError) error = NULL;
  guint x = reg_graph_add_input (graph, "x");

  g_assert_cmpuint (reg_graph_add_op (graph, "softmax", &x, 1, &error), ==,
                    REG_GRAPH_INVALID_NODE);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNKNOWN_OP);
  g_assert_cmpstr (error->message, ==, "unknown operator 'softmax'");
  g_clear_error (&error);

  /* Whatever the caller gives ends up escaped in the message. */
  g_assert_cmpuint (reg_graph_add_op (graph, "bad\xff\n", &x, 1, &error), ==,
                    REG_GRAPH_INVALID_NODE);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNKNOWN_OP);
  g_assert_cmpstr (error->message, ==, "unknown operator 'bad\\xFF<U+000A>'");
  g_clear_error (&error);

  /* Names are exact: no case folding, no prefixes. */
  g_assert_cmpuint (reg_graph_add_op (graph, "Relu", &x, 1, NULL), ==, REG_GRAPH_INVALID_NODE);
  g_assert_cmpuint (reg_graph_add_op (graph, "rel", &x, 1, NULL), ==, REG_GRAPH_INVALID_NODE);
  g_assert_cmpuint (reg_graph_add_op (graph, "", &x, 1, NULL), ==, REG_GRAPH_INVALID_NODE);

  /* Failures add nothing and do not stick. */
  g_assert_cmpuint (reg_graph_get_n_nodes (graph), ==, 1);
  reg_graph_set_outputs (graph, &x, 1);
  g_assert_true (reg_graph_validate (graph, NULL));
}

static void
test_builder_error_arity (void)
{
  static const struct {
    const char *op;
    guint n_args;
    const char *message;
  } cases[] = {
    { "relu", 2, "relu takes 1 argument, 2 given" },
    { "sum", 0, "sum takes 1 argument, 0 given" },
    { "add", 1, "add takes 2 arguments, 1 given" },
    { "matmul", 3, "matmul takes 2 arguments, 3 given" },
  };
  g_autoptr(RegGraph) graph = reg_graph_new ();
  guint x = reg_graph_add_input (graph, "x");
  const guint args[] = { x, x, x };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_cmpuint (reg_graph_add_op (graph, cases[i].op, args, cases[i].n_args, &error),
                        ==, REG_GRAPH_INVALID_NODE);
      g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_ARITY);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }

  g_assert_cmpuint (reg_graph_get_n_nodes (graph), ==, 1);
}

static void
test_builder_error_undefined (void)
{
  g_autoptr(RegGraph) graph = reg_graph_new ();
  g_autoptr(GError) error = NULL;
  guint x = reg_graph_add_input (graph, "x");
  guint k = reg_graph_add_constant (graph, 1.0);
  guint args[2] = { x, 7 };

  g_assert_cmpuint (reg_graph_add_op (graph, "add", args, 2, &error), ==,
                    REG_GRAPH_INVALID_NODE);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNDEFINED);
  g_assert_cmpstr (error->message, ==,
                   "argument 1 of add: node 7 does not exist (the graph has 2 nodes)");
  g_clear_error (&error);

  /* The id just past the end */
  args[0] = 2, args[1] = k;
  g_assert_cmpuint (reg_graph_add_op (graph, "add", args, 2, &error), ==,
                    REG_GRAPH_INVALID_NODE);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNDEFINED);
  g_assert_cmpstr (error->message, ==,
                   "argument 0 of add: node 2 does not exist (the graph has 2 nodes)");
  g_clear_error (&error);

  /* The result of a failed call, passed on */
  args[0] = reg_graph_add_input (graph, "not a name");
  g_assert_cmpuint (args[0], ==, REG_GRAPH_INVALID_NODE);
  g_assert_cmpuint (reg_graph_add_op (graph, "relu", args, 1, &error), ==,
                    REG_GRAPH_INVALID_NODE);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNDEFINED);
  g_assert_cmpstr (error->message, ==,
                   "argument 0 of relu is REG_GRAPH_INVALID_NODE, the result of a failed call");

  g_assert_cmpuint (reg_graph_get_n_nodes (graph), ==, 2);
}

static void
test_builder_sticky_bad_name (void)
{
  /* Each name, and how the message shows it: as written when it is
   * printable UTF-8, invisible characters and bad bytes escaped. */
  static const struct { const char *name, *shown; } bad_names[] = {
    { "", "" }, { "1x", "1x" }, { "a b", "a b" }, { "a-b", "a-b" },
    { "inf", "inf" }, { "nan", "nan" }, { "caf\xc3\xa9", "caf\xc3\xa9" },
    { "x\n", "x<U+000A>" }, { "\xff", "\\xFF" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad_names); i++)
    {
      g_autoptr(RegGraph) graph = reg_graph_new ();
      g_autoptr(GError) error = NULL;
      g_autofree char *expected = NULL;
      guint x;

      g_test_message ("name '%s'", bad_names[i].shown);
      g_assert_cmpuint (reg_graph_add_input (graph, bad_names[i].name), ==, REG_GRAPH_INVALID_NODE);
      g_assert_cmpuint (reg_graph_get_n_nodes (graph), ==, 0);

      /* The graph goes on working, but stays invalid. */
      x = reg_graph_add_input (graph, "x");
      g_assert_cmpuint (x, ==, 0);
      reg_graph_set_outputs (graph, &x, 1);

      g_assert_false (reg_graph_validate (graph, &error));
      g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_PARSE);
      expected = g_strdup_printf ("invalid input name '%s': names are identifiers "
                                  "([A-Za-z_][A-Za-z0-9_]*) other than inf and nan",
                                  bad_names[i].shown);
      g_assert_cmpstr (error->message, ==, expected);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
    }
}

static void
test_builder_good_names (void)
{
  static const char *good_names[] = {
    "x", "_", "X9", "_private", "infinity", "nan_", "Inf", "NaN", "graph", "return",
  };
  g_autoptr(RegGraph) graph = reg_graph_new ();
  g_autofree char *text = NULL;
  g_autoptr(GString) expected = g_string_new ("graph(");

  for (guint i = 0; i < G_N_ELEMENTS (good_names); i++)
    {
      g_assert_cmpuint (reg_graph_add_input (graph, good_names[i]), ==, i);
      g_string_append_printf (expected, "%s%s", i > 0 ? ", " : "", good_names[i]);
    }
  reg_graph_set_outputs (graph, NULL, 0);
  g_assert_true (reg_graph_validate (graph, NULL));

  g_string_append (expected, "):\n  return ()\n");
  text = reg_graph_to_string (graph);
  g_assert_cmpstr (text, ==, expected->str);
  assert_prints_as (text, NULL);
}

static void
test_builder_sticky_redefined (void)
{
  g_autoptr(RegGraph) graph = reg_graph_new ();
  g_autoptr(GError) error = NULL;
  guint x = reg_graph_add_input (graph, "x");

  g_assert_cmpuint (reg_graph_add_input (graph, "x"), ==, REG_GRAPH_INVALID_NODE);
  g_assert_cmpuint (reg_graph_get_n_nodes (graph), ==, 1);
  reg_graph_set_outputs (graph, &x, 1);

  g_assert_false (reg_graph_validate (graph, &error));
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_REDEFINED);
  g_assert_cmpstr (error->message, ==, "input name 'x' is already defined");
}

static void
test_builder_sticky_redefined_parsed (void)
{
  /* A name from the text counts as well as an input's. */
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x):\n  a = relu(x)\n  return (a,)\n");
  g_autoptr(GError) error = NULL;

  g_assert_true (reg_graph_validate (graph, NULL));
  g_assert_cmpuint (reg_graph_add_input (graph, "a"), ==, REG_GRAPH_INVALID_NODE);
  g_assert_false (reg_graph_validate (graph, &error));
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_REDEFINED);
  g_assert_cmpstr (error->message, ==, "input name 'a' is already defined");
}

static void
test_builder_sticky_undefined_output (void)
{
  g_autoptr(RegGraph) graph = reg_graph_new ();
  g_autoptr(GError) error = NULL;
  guint x = reg_graph_add_input (graph, "x");
  const guint bad[] = { x, 1 };
  const guint *outputs;
  guint n;

  reg_graph_set_outputs (graph, &x, 1);
  g_assert_true (reg_graph_validate (graph, NULL));

  /* The call changes nothing... */
  reg_graph_set_outputs (graph, bad, 2);
  outputs = reg_graph_get_outputs (graph, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (outputs[0], ==, x);

  /* ...but the graph remembers it. */
  g_assert_false (reg_graph_validate (graph, &error));
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNDEFINED);
  g_assert_cmpstr (error->message, ==, "output 1: node 1 does not exist (the graph has 1 nodes)");
  g_clear_error (&error);

  /* Even a later good call does not clear it. */
  reg_graph_set_outputs (graph, &x, 1);
  g_assert_false (reg_graph_validate (graph, &error));
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNDEFINED);
}

static void
test_builder_sticky_invalid_output (void)
{
  g_autoptr(RegGraph) graph = reg_graph_new ();
  g_autoptr(GError) error = NULL;
  guint bad = reg_graph_add_input (graph, "");

  reg_graph_set_outputs (graph, &bad, 1);
  g_assert_false (reg_graph_validate (graph, &error));
  /* The first error is kept: the bad name, not the output it caused. */
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_PARSE);
  g_assert_true (g_str_has_prefix (error->message, "invalid input name ''"));
}

static void
test_builder_sticky_first_kept (void)
{
  g_autoptr(RegGraph) graph = reg_graph_new ();
  g_autoptr(GError) error = NULL;
  guint bad = 12;
  guint x;

  x = reg_graph_add_input (graph, "x");
  reg_graph_set_outputs (graph, &bad, 1);
  reg_graph_add_input (graph, "x");
  reg_graph_add_input (graph, "9");
  reg_graph_set_outputs (graph, &x, 1);

  g_assert_false (reg_graph_validate (graph, &error));
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNDEFINED);
  g_assert_cmpstr (error->message, ==, "output 0: node 12 does not exist (the graph has 1 nodes)");
  g_clear_error (&error);

  /* validate() hands out copies: the error stays for the next call. */
  g_assert_false (reg_graph_validate (graph, &error));
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNDEFINED);
  g_clear_error (&error);
  g_assert_false (reg_graph_validate (graph, NULL));
}

static void
test_builder_guards (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(RegGraph) graph = reg_graph_new ();
      guint x = reg_graph_add_input (graph, "x");
      guint n;

      /* Each guard logs a critical; they are made non-fatal here so that
       * all of them are checked in one run. */
      g_log_set_always_fatal (G_LOG_FATAL_MASK);
      g_assert_cmpuint (reg_graph_add_input (NULL, "y"), ==, REG_GRAPH_INVALID_NODE);
      g_assert_cmpuint (reg_graph_add_input (graph, NULL), ==, REG_GRAPH_INVALID_NODE);
      g_assert_cmpuint (reg_graph_add_op (graph, NULL, &x, 1, NULL), ==, REG_GRAPH_INVALID_NODE);
      g_assert_cmpuint (reg_graph_add_op (graph, "relu", NULL, 1, NULL), ==, REG_GRAPH_INVALID_NODE);
      reg_graph_set_outputs (graph, NULL, 1);
      g_assert_cmpint (reg_graph_get_node_kind (graph, 1), ==, REG_NODE_INPUT);
      g_assert_null (reg_graph_get_node_name (graph, 1));
      g_assert_null (reg_graph_get_node_op (graph, 1));
      g_assert_null (reg_graph_get_node_args (graph, 1, &n));
      g_assert_cmpfloat (reg_graph_get_node_value (graph, 1), ==, 0.0);
      g_assert_cmpfloat (reg_graph_get_node_value (graph, x), ==, 0.0);
      g_assert_null (reg_graph_new_from_string (NULL, NULL));
      g_assert_null (reg_graph_to_string (NULL));
      g_assert_cmpuint (reg_graph_get_n_nodes (graph), ==, 1);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*CRITICAL*reg_graph_add_input*REG_IS_GRAPH*"
                             "*CRITICAL*reg_graph_add_input*name != NULL*"
                             "*CRITICAL*reg_graph_add_op*op != NULL*"
                             "*CRITICAL*reg_graph_add_op*args != NULL*"
                             "*CRITICAL*reg_graph_set_outputs*nodes != NULL*"
                             "*CRITICAL*reg_graph_get_node_kind*node < self->nodes->len*"
                             "*CRITICAL*reg_graph_get_node_name*node < self->nodes->len*"
                             "*CRITICAL*reg_graph_get_node_op*node < self->nodes->len*"
                             "*CRITICAL*reg_graph_get_node_args*node < self->nodes->len*"
                             "*CRITICAL*reg_graph_get_node_value*node < self->nodes->len*"
                             "*CRITICAL*reg_graph_get_node_value*REG_NODE_CONSTANT*"
                             "*CRITICAL*reg_graph_new_from_string*text != NULL*"
                             "*CRITICAL*reg_graph_to_string*REG_IS_GRAPH*");
}

/* ---- Builder: names of calls ------------------------------------------- */

static void
test_builder_named_calls (void)
{
  g_autoptr(RegGraph) graph = reg_graph_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  guint x, y, a, k, b, c, d;

  x = reg_graph_add_input (graph, "x");
  y = reg_graph_add_input (graph, "y");
  a = reg_graph_add_op (graph, "mul", (guint[]) { x, y }, 2, &error);
  g_assert_true (reg_graph_set_node_name (graph, a, "a", &error));
  k = reg_graph_add_constant (graph, 1.5);
  b = reg_graph_add_op (graph, "add", (guint[]) { a, k }, 2, &error);
  g_assert_true (reg_graph_set_node_name (graph, b, "b", &error));
  c = reg_graph_add_op (graph, "relu", &b, 1, &error);
  g_assert_true (reg_graph_set_node_name (graph, c, "c", &error));
  /* Without a name: the printer makes one up */
  d = reg_graph_add_op (graph, "matmul", (guint[]) { c, c }, 2, &error);
  g_assert_no_error (error);
  reg_graph_set_outputs (graph, (guint[]) { c, d }, 2);

  g_assert_cmpuint (d, ==, 6);
  g_assert_true (reg_graph_validate (graph, NULL));
  g_assert_cmpstr (reg_graph_get_node_name (graph, a), ==, "a");
  g_assert_cmpstr (reg_graph_get_node_name (graph, c), ==, "c");
  g_assert_null (reg_graph_get_node_name (graph, d));

  /* Named calls print as the text they would be parsed from. */
  text = reg_graph_to_string (graph);
  g_assert_cmpstr (text, ==,
                   "graph(x, y):\n"
                   "  a = mul(x, y)\n"
                   "  b = add(a, 1.5)\n"
                   "  c = relu(b)\n"
                   "  v6 = matmul(c, c)\n"
                   "  return (c, v6)\n");
  assert_prints_as (text, NULL);
}

static void
test_builder_name_errors (void)
{
  static const struct {
    const char *name;
    int code;  /* RegGraphError, as GError keeps it */
    const char *message;
  } cases[] = {
    { "", REG_GRAPH_ERROR_PARSE, "invalid name '': names are identifiers "
      "([A-Za-z_][A-Za-z0-9_]*) other than inf and nan" },
    { "1a", REG_GRAPH_ERROR_PARSE, "invalid name '1a': names are identifiers "
      "([A-Za-z_][A-Za-z0-9_]*) other than inf and nan" },
    { "inf", REG_GRAPH_ERROR_PARSE, "invalid name 'inf': names are identifiers "
      "([A-Za-z_][A-Za-z0-9_]*) other than inf and nan" },
    { "nan", REG_GRAPH_ERROR_PARSE, "invalid name 'nan': names are identifiers "
      "([A-Za-z_][A-Za-z0-9_]*) other than inf and nan" },
    { "a b", REG_GRAPH_ERROR_PARSE, "invalid name 'a b': names are identifiers "
      "([A-Za-z_][A-Za-z0-9_]*) other than inf and nan" },
    /* Whatever the caller gives ends up escaped in the message. */
    { "bad\xff\n", REG_GRAPH_ERROR_PARSE, "invalid name 'bad\\xFF<U+000A>': "
      "names are identifiers ([A-Za-z_][A-Za-z0-9_]*) other than inf and nan" },
    { "x", REG_GRAPH_ERROR_REDEFINED, "name 'x' is already defined" },
    { "a", REG_GRAPH_ERROR_REDEFINED, "name 'a' is already defined" },
  };
  g_autoptr(RegGraph) graph = reg_graph_new ();
  guint x = reg_graph_add_input (graph, "x");
  guint a = reg_graph_add_op (graph, "exp", &x, 1, NULL);
  guint b = reg_graph_add_op (graph, "neg", &a, 1, NULL);

  g_assert_true (reg_graph_set_node_name (graph, a, "a", NULL));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_false (reg_graph_set_node_name (graph, b, cases[i].name, &error));
      g_assert_error (error, REG_GRAPH_ERROR, cases[i].code);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }

  /* Failures leave the node unnamed and do not stick. */
  g_assert_null (reg_graph_get_node_name (graph, b));
  reg_graph_set_outputs (graph, &b, 1);
  g_assert_true (reg_graph_validate (graph, NULL));
  g_assert_true (reg_graph_set_node_name (graph, b, "b", NULL));

  /* A name taken by a call is taken for inputs too. */
  g_assert_cmpuint (reg_graph_add_input (graph, "a"), ==, REG_GRAPH_INVALID_NODE);
  g_assert_false (reg_graph_validate (graph, NULL));
}

static void
test_builder_name_guards (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(RegGraph) graph = reg_graph_new ();
      guint x = reg_graph_add_input (graph, "x");
      guint k = reg_graph_add_constant (graph, 2.0);
      guint a = reg_graph_add_op (graph, "neg", &x, 1, NULL);

      g_log_set_always_fatal (G_LOG_FATAL_MASK);
      g_assert_true (reg_graph_set_node_name (graph, a, "a", NULL));
      g_assert_false (reg_graph_set_node_name (NULL, a, "b", NULL));
      g_assert_false (reg_graph_set_node_name (graph, 3, "b", NULL));
      g_assert_false (reg_graph_set_node_name (graph, a, NULL, NULL));
      /* Only unnamed calls: inputs are named when added, constants never. */
      g_assert_false (reg_graph_set_node_name (graph, x, "b", NULL));
      g_assert_false (reg_graph_set_node_name (graph, k, "b", NULL));
      g_assert_false (reg_graph_set_node_name (graph, a, "b", NULL));
      g_assert_cmpstr (reg_graph_get_node_name (graph, a), ==, "a");
      g_assert_cmpint (reg_graph_get_node_operator (graph, 3), ==, REG_OP_ADD);
      g_assert_cmpint (reg_graph_get_node_operator (graph, x), ==, REG_OP_ADD);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*CRITICAL*reg_graph_set_node_name*REG_IS_GRAPH*"
                             "*CRITICAL*reg_graph_set_node_name*node < self->nodes->len*"
                             "*CRITICAL*reg_graph_set_node_name*name != NULL*"
                             "*CRITICAL*reg_graph_set_node_name*REG_NODE_OP*"
                             "*CRITICAL*reg_graph_set_node_name*REG_NODE_OP*"
                             "*CRITICAL*reg_graph_set_node_name*REG_NODE_OP*"
                             "*CRITICAL*reg_graph_get_node_operator*node < self->nodes->len*"
                             "*CRITICAL*reg_graph_get_node_operator*REG_NODE_OP*");
}

/* ---- Parsing ------------------------------------------------------------ */

static void
test_parse_example (void)
{
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x, y):\n"
                                        "  a = mul(x, y)\n"
                                        "  b = add(a, 1.5)\n"
                                        "  c = relu(b)\n"
                                        "  return (c,)\n");
  const guint *ids;
  guint n;

  g_assert_true (reg_graph_validate (graph, NULL));
  /* x y a 1.5 b c: the constant comes right before its user. */
  g_assert_cmpuint (reg_graph_get_n_nodes (graph), ==, 6);
  g_assert_cmpstr (reg_graph_get_node_name (graph, 0), ==, "x");
  g_assert_cmpstr (reg_graph_get_node_name (graph, 1), ==, "y");
  g_assert_cmpstr (reg_graph_get_node_name (graph, 2), ==, "a");
  g_assert_cmpint (reg_graph_get_node_kind (graph, 3), ==, REG_NODE_CONSTANT);
  g_assert_null (reg_graph_get_node_name (graph, 3));
  g_assert_cmpfloat (reg_graph_get_node_value (graph, 3), ==, 1.5);
  g_assert_cmpstr (reg_graph_get_node_name (graph, 4), ==, "b");
  g_assert_cmpstr (reg_graph_get_node_name (graph, 5), ==, "c");

  g_assert_true (reg_graph_get_node_op (graph, 2) == g_intern_static_string ("mul"));
  g_assert_true (reg_graph_get_node_op (graph, 4) == g_intern_static_string ("add"));
  g_assert_true (reg_graph_get_node_op (graph, 5) == g_intern_static_string ("relu"));

  ids = reg_graph_get_node_args (graph, 4, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (ids[0], ==, 2);
  g_assert_cmpuint (ids[1], ==, 3);

  ids = reg_graph_get_inputs (graph, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (ids[0], ==, 0);
  g_assert_cmpuint (ids[1], ==, 1);

  ids = reg_graph_get_outputs (graph, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (ids[0], ==, 5);
}

static void
test_parse_constants (void)
{
  /* Every number is a node of its own, in reading order, right before the
   * node that uses it; outputs' constants come last. */
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x):\n"
                                        "  a = add(2.0, 3.0)\n"
                                        "  b = mul(a, 2.0)\n"
                                        "  return (b, -1)\n");
  static const struct {
    RegNodeKind kind;
    double value;
  } expected[] = {
    { REG_NODE_INPUT, 0 },
    { REG_NODE_CONSTANT, 2.0 },
    { REG_NODE_CONSTANT, 3.0 },
    { REG_NODE_OP, 0 },
    { REG_NODE_CONSTANT, 2.0 },
    { REG_NODE_OP, 0 },
    { REG_NODE_CONSTANT, -1.0 },
  };
  const guint *outputs;
  guint n;

  g_assert_cmpuint (reg_graph_get_n_nodes (graph), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_assert_cmpint (reg_graph_get_node_kind (graph, i), ==, expected[i].kind);
      if (expected[i].kind == REG_NODE_CONSTANT)
        g_assert_cmpfloat (reg_graph_get_node_value (graph, i), ==, expected[i].value);
    }

  outputs = reg_graph_get_outputs (graph, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (outputs[0], ==, 5);
  g_assert_cmpuint (outputs[1], ==, 6);
}

static void
test_parse_numbers (void)
{
  static const struct {
    const char *literal;
    guint64 bits;
  } cases[] = {
    { "1", G_GUINT64_CONSTANT (0x3ff0000000000000) },
    { "+1", G_GUINT64_CONSTANT (0x3ff0000000000000) },
    { "-1", G_GUINT64_CONSTANT (0xbff0000000000000) },
    { "1.", G_GUINT64_CONSTANT (0x3ff0000000000000) },
    { ".5", G_GUINT64_CONSTANT (0x3fe0000000000000) },
    { "-.5", G_GUINT64_CONSTANT (0xbfe0000000000000) },
    { "00012.500", G_GUINT64_CONSTANT (0x4029000000000000) },
    { "1e3", G_GUINT64_CONSTANT (0x408f400000000000) },
    { "1E+3", G_GUINT64_CONSTANT (0x408f400000000000) },
    { "2.5e-1", G_GUINT64_CONSTANT (0x3fd0000000000000) },
    { "0", G_GUINT64_CONSTANT (0x0000000000000000) },
    { "-0", G_GUINT64_CONSTANT (0x8000000000000000) },
    { "-0.0", G_GUINT64_CONSTANT (0x8000000000000000) },
    { "inf", G_GUINT64_CONSTANT (0x7ff0000000000000) },
    { "+inf", G_GUINT64_CONSTANT (0x7ff0000000000000) },
    { "-inf", G_GUINT64_CONSTANT (0xfff0000000000000) },
    /* Underflow reads as the nearest double, as in Python. */
    { "1e-400", G_GUINT64_CONSTANT (0x0000000000000000) },
    { "-1e-400", G_GUINT64_CONSTANT (0x8000000000000000) },
    { "4.9e-324", G_GUINT64_CONSTANT (0x0000000000000001) },
    { "2.4703282292062328e-324", G_GUINT64_CONSTANT (0x0000000000000001) },
    { "1.7976931348623157e308", G_GUINT64_CONSTANT (0x7fefffffffffffff) },
    { "0.1", G_GUINT64_CONSTANT (0x3fb999999999999a) },
    { "9007199254740993", G_GUINT64_CONSTANT (0x4340000000000000) },
    { "0.30000000000000004", G_GUINT64_CONSTANT (0x3fd3333333333334) },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf ("graph(x):\n  a = add(x, %s)\n  return (a,)\n",
                                               cases[i].literal);
      g_autoptr(RegGraph) graph = graph_new_from_string (text);

      g_test_message ("literal %s", cases[i].literal);
      g_assert_cmphex (double_bits (reg_graph_get_node_value (graph, 1)), ==, cases[i].bits);
    }
}

static void
test_parse_nan (void)
{
  static const char *literals[] = { "nan", "+nan", "-nan" };

  for (guint i = 0; i < G_N_ELEMENTS (literals); i++)
    {
      g_autofree char *text = g_strdup_printf ("graph():\n  return (%s,)\n", literals[i]);
      g_autoptr(RegGraph) graph = graph_new_from_string (text);
      g_autofree char *printed = reg_graph_to_string (graph);

      g_assert_true (isnan (reg_graph_get_node_value (graph, 0)));
      /* As in Python, NaN prints without sign. */
      g_assert_cmpstr (printed, ==, "graph():\n  return (nan,)\n");
    }
}

static void
test_parse_flexible (void)
{
  /* Comments, blank lines, free spacing, tabs, CRLF, line breaks inside
   * parentheses, trailing commas: all read, and printed canonically. */
  assert_prints_as ("# A comment before the header\n"
                    "\n"
                    "graph ( x ,y, ) :   # inputs\n"
                    "\n"
                    "    # indentation is free\n"
                    "a=mul(x,y)\n"
                    "\t\tb   =   add ( a ,\n"
                    "                  1.50 , )\r\n"
                    "  c = relu(\n"
                    "    b\n"
                    "  )\n"
                    "\n"
                    "  return ( c , )  # the end\n"
                    "\n"
                    "# trailing comment",
                    "graph(x, y):\n"
                    "  a = mul(x, y)\n"
                    "  b = add(a, 1.5)\n"
                    "  c = relu(b)\n"
                    "  return (c,)\n");

  /* No newline at the end */
  assert_prints_as ("graph(x):\n  return (x,)", "graph(x):\n  return (x,)\n");
  /* UTF-8 in comments is fine. */
  assert_prints_as ("graph(x): # entrée, 入力\n  return (x,) # ✓\n",
                    "graph(x):\n  return (x,)\n");
  /* A header alone on one line with nothing after it, CR line ends */
  assert_prints_as ("graph(x):\r\n\r\n  return (x,)\r\n", "graph(x):\n  return (x,)\n");
}

static void
test_parse_return_forms (void)
{
  static const struct {
    const char *statement;
    const char *canonical;
  } cases[] = {
    { "return (a, b)", "return (a, b)" },
    { "return (a, b,)", "return (a, b)" },
    { "return (a,)", "return (a,)" },
    { "return (a)", "return (a,)" },
    { "return ()", "return ()" },
    { "return a", "return (a,)" },
    { "return a,", "return (a,)" },
    { "return a, b", "return (a, b)" },
    { "return a, 2", "return (a, 2.0)" },
    { "return (\n    a,\n    b,\n  )", "return (a, b)" },
    { "return 1e3", "return (1000.0,)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf ("graph(a, b):\n  %s\n", cases[i].statement);
      g_autofree char *text_no_newline = g_strdup_printf ("graph(a, b):\n  %s", cases[i].statement);
      g_autofree char *expected = g_strdup_printf ("graph(a, b):\n  %s\n", cases[i].canonical);

      g_test_message ("%s", cases[i].statement);
      assert_prints_as (text, expected);
      assert_prints_as (text_no_newline, expected);
    }
}

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static GPtrArray *
list_graph_files (const char *dir_path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, &error);
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_no_error (error);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".graph"))
      g_ptr_array_add (paths, g_build_filename (dir_path, name, NULL));

  /* A stable order, for readable logs */
  g_ptr_array_sort (paths, compare_paths);

  return paths;
}

static void
test_parse_roundtrip (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "graphs", NULL);
  g_autoptr(GPtrArray) paths = list_graph_files (dir);

  g_assert_cmpuint (paths->len, >=, 10);

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autoptr(GError) error = NULL;
      g_autofree char *text = NULL;
      g_autoptr(RegGraph) graph = NULL;
      g_autoptr(RegGraph) copy = NULL;
      g_autofree char *copy_text = NULL;
      guint n_nodes;

      g_test_message ("%s", path);
      g_file_get_contents (path, &text, NULL, &error);
      g_assert_no_error (error);

      assert_prints_as (text, NULL);

      /* Copying the graph node by node with the builder gives the same
       * text: the names are the only thing the builder cannot give, and
       * here they come from an identical text. */
      graph = graph_new_from_string (text);
      g_assert_true (reg_graph_validate (graph, NULL));
      n_nodes = reg_graph_get_n_nodes (graph);
      copy = reg_graph_new ();
      for (guint id = 0; id < n_nodes; id++)
        {
          const guint *args;
          guint n_args;

          switch (reg_graph_get_node_kind (graph, id))
            {
            case REG_NODE_INPUT:
              g_assert_cmpuint (reg_graph_add_input (copy, reg_graph_get_node_name (graph, id)), ==, id);
              break;
            case REG_NODE_CONSTANT:
              g_assert_cmpuint (reg_graph_add_constant (copy, reg_graph_get_node_value (graph, id)), ==, id);
              break;
            case REG_NODE_OP:
              args = reg_graph_get_node_args (graph, id, &n_args);
              g_assert_cmpuint (reg_graph_add_op (copy, reg_graph_get_node_op (graph, id),
                                                  args, n_args, &error), ==, id);
              g_assert_no_error (error);
              break;
            default:
              g_assert_not_reached ();
            }
        }
      {
        guint n_outputs;
        const guint *outputs = reg_graph_get_outputs (graph, &n_outputs);

        reg_graph_set_outputs (copy, outputs, n_outputs);
      }
      g_assert_true (reg_graph_validate (copy, NULL));
      copy_text = reg_graph_to_string (copy);
      /* Same structure; the builder's copy has generated names. */
      assert_prints_as (copy_text, NULL);
      {
        g_autoptr(RegGraph) reparsed = graph_new_from_string (copy_text);
        g_assert_cmpuint (reg_graph_get_n_nodes (reparsed), ==, n_nodes);
      }
    }
}

static void
test_builder_copy (void)
{
  /* Copying each graph of tests/data node by node with the builder, names
   * included, gives back its text exactly: the builder can make every
   * graph the text form can. */
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "graphs", NULL);
  g_autoptr(GPtrArray) paths = list_graph_files (dir);

  g_assert_cmpuint (paths->len, >=, 10);

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autoptr(GError) error = NULL;
      g_autofree char *text = NULL;
      g_autoptr(RegGraph) graph = NULL;
      g_autoptr(RegGraph) copy = reg_graph_new ();
      g_autofree char *graph_text = NULL, *copy_text = NULL;
      const guint *outputs;
      guint n_nodes, n_outputs;

      g_test_message ("%s", path);
      g_file_get_contents (path, &text, NULL, &error);
      g_assert_no_error (error);
      graph = graph_new_from_string (text);
      n_nodes = reg_graph_get_n_nodes (graph);

      for (guint id = 0; id < n_nodes; id++)
        {
          const char *name = reg_graph_get_node_name (graph, id);
          const guint *args;
          guint n_args;

          switch (reg_graph_get_node_kind (graph, id))
            {
            case REG_NODE_INPUT:
              g_assert_cmpuint (reg_graph_add_input (copy, name), ==, id);
              break;
            case REG_NODE_CONSTANT:
              g_assert_cmpuint (reg_graph_add_constant (copy, reg_graph_get_node_value (graph, id)), ==, id);
              break;
            case REG_NODE_OP:
              args = reg_graph_get_node_args (graph, id, &n_args);
              g_assert_nonnull (name);
              g_assert_cmpuint (reg_graph_add_op (copy, reg_graph_get_node_op (graph, id),
                                                  args, n_args, &error), ==, id);
              g_assert_true (reg_graph_set_node_name (copy, id, name, &error));
              break;
            default:
              g_assert_not_reached ();
            }
        }
      outputs = reg_graph_get_outputs (graph, &n_outputs);
      reg_graph_set_outputs (copy, outputs, n_outputs);
      g_assert_true (reg_graph_validate (copy, NULL));

      graph_text = reg_graph_to_string (graph);
      copy_text = reg_graph_to_string (copy);
      g_assert_cmpstr (copy_text, ==, graph_text);
    }
}

typedef struct
{
  const char    *path;
  const char    *text;
  RegGraphError  code;
  const char    *message;
} ParseErrorCase;

#define HEADER "graph(x):\n"

static const ParseErrorCase parse_error_cases[] = {
  /* The header */
  { "empty", "", REG_GRAPH_ERROR_PARSE,
    "1:1: expected the header 'graph(...):', got end of text" },
  { "blank", "\n  # nothing\n\n", REG_GRAPH_ERROR_PARSE,
    "4:1: expected the header 'graph(...):', got end of text" },
  { "no-header", "a = relu(x)\n", REG_GRAPH_ERROR_PARSE,
    "1:1: expected the header 'graph(...):', got name 'a'" },
  { "header-no-paren", "graph x:\n", REG_GRAPH_ERROR_PARSE,
    "1:7: expected '(' after 'graph', got name 'x'" },
  { "header-no-colon", "graph(x)\n  return (x,)\n", REG_GRAPH_ERROR_PARSE,
    "1:9: expected ':' after the inputs, got end of line" },
  { "header-number", "graph(x, 1):\n", REG_GRAPH_ERROR_PARSE,
    "1:10: expected an input name, got number '1'" },
  { "header-inf", "graph(inf):\n", REG_GRAPH_ERROR_PARSE,
    "1:7: expected an input name, got number 'inf'" },
  { "header-nan", "graph(x, nan):\n", REG_GRAPH_ERROR_PARSE,
    "1:10: expected an input name, got number 'nan'" },
  { "header-no-comma", "graph(x y):\n", REG_GRAPH_ERROR_PARSE,
    "1:9: expected ',' or ')', got name 'y'" },
  { "header-double-comma", "graph(x,,y):\n", REG_GRAPH_ERROR_PARSE,
    "1:9: expected an input name, got ','" },
  { "header-trailing", "graph(x):  y\n", REG_GRAPH_ERROR_PARSE,
    "1:12: expected end of line after 'graph(...):', got name 'y'" },
  { "header-duplicate", "graph(x, y, x):\n", REG_GRAPH_ERROR_REDEFINED,
    "1:13: input 'x' is defined twice" },
  /* return */
  { "missing-return", HEADER "  a = relu(x)\n", REG_GRAPH_ERROR_PARSE,
    "3:1: missing return statement" },
  { "missing-return-no-newline", HEADER "  a = relu(x)", REG_GRAPH_ERROR_PARSE,
    "2:14: missing return statement" },
  { "missing-return-header-only", "graph(x):", REG_GRAPH_ERROR_PARSE,
    "1:10: missing return statement" },
  { "return-nothing", HEADER "  return\n", REG_GRAPH_ERROR_PARSE,
    "2:9: expected the outputs after 'return' (use 'return ()' for none), got end of line" },
  { "return-unclosed", HEADER "  return (x,\n", REG_GRAPH_ERROR_PARSE,
    "3:1: expected a name or a number, got end of text" },
  { "return-no-comma", HEADER "  return (x x)\n", REG_GRAPH_ERROR_PARSE,
    "2:13: expected ',' or ')', got name 'x'" },
  { "return-bare-no-comma", HEADER "  return x x\n", REG_GRAPH_ERROR_PARSE,
    "2:12: expected ',' or end of line, got name 'x'" },
  { "return-undefined", HEADER "  return (q,)\n", REG_GRAPH_ERROR_UNDEFINED,
    "2:11: undefined name 'q'" },
  { "return-call", HEADER "  return (relu(x),)\n", REG_GRAPH_ERROR_PARSE,
    "2:11: calls do not nest: assign the call of 'relu' to a name first" },
  { "after-return", HEADER "  return (x,)\n  a = relu(x)\n", REG_GRAPH_ERROR_PARSE,
    "3:3: expected end of text after the return statement, got name 'a'" },
  { "after-return-same-line", HEADER "  return (x,) (x,)\n", REG_GRAPH_ERROR_PARSE,
    "2:15: expected end of text after the return statement, got '('" },
  { "two-returns", HEADER "  return (x,)\n  return (x,)\n", REG_GRAPH_ERROR_PARSE,
    "3:3: expected end of text after the return statement, got name 'return'" },
  /* Statements */
  { "unknown-op", HEADER "  a = foo(x)\n  return (a,)\n", REG_GRAPH_ERROR_UNKNOWN_OP,
    "2:7: unknown operator 'foo'" },
  { "unknown-op-case", HEADER "  a = ReLU(x)\n  return (a,)\n", REG_GRAPH_ERROR_UNKNOWN_OP,
    "2:7: unknown operator 'ReLU'" },
  { "arity-unary", HEADER "  a = relu(x, x)\n  return (a,)\n", REG_GRAPH_ERROR_ARITY,
    "2:7: relu takes 1 argument, 2 given" },
  { "arity-binary", HEADER "  a = add(x)\n  return (a,)\n", REG_GRAPH_ERROR_ARITY,
    "2:7: add takes 2 arguments, 1 given" },
  { "arity-none", HEADER "  a = sum()\n  return (a,)\n", REG_GRAPH_ERROR_ARITY,
    "2:7: sum takes 1 argument, 0 given" },
  { "undefined", HEADER "  a = add(x, z)\n  return (a,)\n", REG_GRAPH_ERROR_UNDEFINED,
    "2:14: undefined name 'z'" },
  { "undefined-later", HEADER "  a = relu(b)\n  b = relu(x)\n  return (a,)\n",
    REG_GRAPH_ERROR_UNDEFINED, "2:12: undefined name 'b'" },
  { "undefined-self", HEADER "  a = relu(a)\n  return (a,)\n", REG_GRAPH_ERROR_UNDEFINED,
    "2:12: undefined name 'a'" },
  { "redefined", HEADER "  a = relu(x)\n  a = relu(a)\n  return (a,)\n",
    REG_GRAPH_ERROR_REDEFINED, "3:3: 'a' is already defined" },
  { "redefined-input", HEADER "  x = relu(x)\n  return (x,)\n", REG_GRAPH_ERROR_REDEFINED,
    "2:3: 'x' is already defined as an input" },
  { "nested", HEADER "  a = relu(neg(x))\n  return (a,)\n", REG_GRAPH_ERROR_PARSE,
    "2:12: calls do not nest: assign the call of 'neg' to a name first" },
  { "missing-equals", HEADER "  a relu(x)\n", REG_GRAPH_ERROR_PARSE,
    "2:5: expected '=' after 'a', got name 'relu'" },
  { "no-call", HEADER "  a = x\n", REG_GRAPH_ERROR_PARSE,
    "2:8: expected '(' after 'x', got end of line" },
  { "op-number", HEADER "  a = 1.5(x)\n", REG_GRAPH_ERROR_PARSE,
    "2:7: expected an operator name, got number '1.5'" },
  { "op-missing", HEADER "  a = (x)\n", REG_GRAPH_ERROR_PARSE,
    "2:7: expected an operator name, got '('" },
  { "unclosed", HEADER "  a = relu(x\n  return (a,)\n", REG_GRAPH_ERROR_PARSE,
    "3:3: expected ',' or ')', got name 'return'" },
  { "unclosed-end", HEADER "  a = relu(x", REG_GRAPH_ERROR_PARSE,
    "2:13: expected ',' or ')', got end of text" },
  { "after-call", HEADER "  a = relu(x) y\n", REG_GRAPH_ERROR_PARSE,
    "2:15: expected end of line after ')', got name 'y'" },
  { "bad-argument", HEADER "  a = add(x, =)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: expected a name or a number, got '='" },
  { "empty-argument", HEADER "  a = add(x, , x)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: expected a name or a number, got ','" },
  { "number-target", HEADER "  1 = relu(x)\n", REG_GRAPH_ERROR_PARSE,
    "2:3: expected a statement 'NAME = OP(ARGS)' or 'return', got number '1'" },
  { "inf-target", HEADER "  inf = relu(x)\n", REG_GRAPH_ERROR_PARSE,
    "2:3: expected a statement 'NAME = OP(ARGS)' or 'return', got number 'inf'" },
  { "nan-target", HEADER "  nan = relu(x)\n", REG_GRAPH_ERROR_PARSE,
    "2:3: expected a statement 'NAME = OP(ARGS)' or 'return', got number 'nan'" },
  { "stray-paren", HEADER "  )\n", REG_GRAPH_ERROR_PARSE,
    "2:3: expected a statement 'NAME = OP(ARGS)' or 'return', got ')'" },
  /* Numbers */
  { "number-two-points", HEADER "  a = add(x, 1.5.2)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: invalid number '1.5.2'" },
  { "number-suffix", HEADER "  a = add(x, 12abc)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: invalid number '12abc'" },
  { "number-no-exponent", HEADER "  a = add(x, 1e)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: invalid number '1e'" },
  { "number-exponent-sign", HEADER "  a = add(x, 1e+)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: invalid number '1e'" },
  { "number-hex", HEADER "  a = add(x, 0x10)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: invalid number '0x10'" },
  { "number-point", HEADER "  a = add(x, .)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: invalid number '.'" },
  { "number-sign-only", HEADER "  a = add(x, -)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: unexpected character '-'" },
  { "number-sign-name", HEADER "  a = add(x, -x)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: unexpected character '-'" },
  { "number-double-sign", HEADER "  a = add(x, --1)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: unexpected character '-'" },
  { "number-infinity", HEADER "  a = add(x, -infinity)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: unexpected character '-'" },
  { "number-overflow", HEADER "  a = add(x, 1e999)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: number out of range: '1e999'" },
  { "number-overflow-negative", HEADER "  a = add(x, -1.8e308)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: number out of range: '-1.8e308'" },
  { "number-overflow-return", HEADER "  return (x, 2e308)\n", REG_GRAPH_ERROR_PARSE,
    "2:14: number out of range: '2e308'" },
  /* Characters */
  { "bad-character", HEADER "  a = relu(x) $\n", REG_GRAPH_ERROR_PARSE,
    "2:15: unexpected character '$'" },
  { "control-character", "graph(x):\x01\n", REG_GRAPH_ERROR_PARSE,
    "1:10: unexpected character U+0001" },
  { "escape-character", "graph(x)\x1b[0m:\n", REG_GRAPH_ERROR_PARSE,
    "1:9: unexpected character U+001B" },
  { "non-ascii-name", HEADER "  caf\xc3\xa9 = relu(x)\n", REG_GRAPH_ERROR_PARSE,
    "2:6: unexpected character '\xc3\xa9'" },
  { "non-ascii-column", "graph(x): # \xc3\xa9\xc3\xa9\n  a = relu(\xc3\xa9)\n", REG_GRAPH_ERROR_PARSE,
    "2:12: unexpected character '\xc3\xa9'" },
  { "non-breaking-space", "graph(x):\xc2\xa0\n", REG_GRAPH_ERROR_PARSE,
    "1:10: unexpected character U+00A0" },
  { "invalid-utf8", "graph(x\xff):\n", REG_GRAPH_ERROR_PARSE,
    "1:8: invalid UTF-8 (byte 0xFF)" },
  { "invalid-utf8-comment", HEADER "# \xc3\xa9\xc3\xa9\xff\n  return (x,)\n",
    REG_GRAPH_ERROR_PARSE, "2:5: invalid UTF-8 (byte 0xFF)" },
  { "truncated-utf8-comment", HEADER "# caf\xc3\n  return (x,)\n", REG_GRAPH_ERROR_PARSE,
    "2:6: invalid UTF-8 (byte 0xC3)" },
  { "overlong-utf8", HEADER "  return (x,) # \xc0\xaf\n", REG_GRAPH_ERROR_PARSE,
    "2:17: invalid UTF-8 (byte 0xC0)" },
  { "surrogate-utf8", HEADER "  return (x,) # \xed\xa0\x80\n", REG_GRAPH_ERROR_PARSE,
    "2:17: invalid UTF-8 (byte 0xED)" },
  { "utf8-after-return", HEADER "  return (x,)\n# \xfe", REG_GRAPH_ERROR_PARSE,
    "3:3: invalid UTF-8 (byte 0xFE)" },
  /* Long tokens are cut in messages. */
  { "long-name", "graph(x):\n  a = relu(x) yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\n",
    REG_GRAPH_ERROR_PARSE,
    "2:15: expected end of line after ')', got name 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy...'" },
};

static void
test_parse_error (gconstpointer data)
{
  const ParseErrorCase *c = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(RegGraph) graph = NULL;

  graph = reg_graph_new_from_string (c->text, &error);
  g_assert_null (graph);
  g_assert_error (error, REG_GRAPH_ERROR, (gint) c->code);
  g_assert_cmpstr (error->message, ==, c->message);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));

  /* Without a GError to fill, the parser fails the same way. */
  g_assert_null (reg_graph_new_from_string (c->text, NULL));
}

/* tests/data/bad/graphs: each file starts with a line
 * `# expect: CODE LINE:COLUMN: MESSAGE`. */
static void
test_parse_bad_corpus (void)
{
  static const char *codes[] = {
    [REG_GRAPH_ERROR_PARSE] = "PARSE",
    [REG_GRAPH_ERROR_UNKNOWN_OP] = "UNKNOWN_OP",
    [REG_GRAPH_ERROR_ARITY] = "ARITY",
    [REG_GRAPH_ERROR_UNDEFINED] = "UNDEFINED",
    [REG_GRAPH_ERROR_REDEFINED] = "REDEFINED",
    [REG_GRAPH_ERROR_SHAPE] = "SHAPE",
  };
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "bad", "graphs", NULL);
  g_autoptr(GPtrArray) paths = list_graph_files (dir);

  g_assert_cmpuint (paths->len, >=, 10);

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autoptr(GError) error = NULL;
      g_autofree char *text = NULL;
      g_autoptr(RegGraph) graph = NULL;
      g_auto(GStrv) expect = NULL;
      const char *newline;
      g_autofree char *first_line = NULL;

      g_test_message ("%s", path);
      g_file_get_contents (path, &text, NULL, &error);
      g_assert_no_error (error);

      newline = strchr (text, '\n');
      g_assert_nonnull (newline);
      first_line = g_strndup (text, newline - text);
      g_assert_true (g_str_has_prefix (first_line, "# expect: "));
      expect = g_strsplit (first_line + strlen ("# expect: "), " ", 2);
      g_assert_cmpuint (g_strv_length (expect), ==, 2);

      graph = reg_graph_new_from_string (text, &error);
      g_assert_null (graph);
      g_assert_nonnull (error);
      g_assert_true (error->domain == REG_GRAPH_ERROR);
      g_assert_cmpint (error->code, >=, 0);
      g_assert_cmpint (error->code, <, (int) G_N_ELEMENTS (codes));
      g_assert_cmpstr (codes[error->code], ==, expect[0]);
      g_assert_cmpstr (error->message, ==, expect[1]);
    }
}

static void
test_parse_huge_line (void)
{
  g_autoptr(GString) text = g_string_new ("graph(");
  g_autoptr(GError) error = NULL;
  g_autoptr(RegGraph) graph = NULL;
  g_autofree char *expected = NULL;
  const gsize len = 1000000;

  /* One long name, then the end of the line without the colon */
  for (gsize i = 0; i < len; i++)
    g_string_append_c (text, 'a');
  g_string_append (text, ")\n");

  graph = reg_graph_new_from_string (text->str, &error);
  g_assert_null (graph);
  expected = g_strdup_printf ("1:%" G_GSIZE_FORMAT ": expected ':' after the inputs, got end of line",
                              len + 8);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==, expected);
  g_clear_error (&error);

  /* A long line of garbage */
  g_string_assign (text, "");
  for (gsize i = 0; i < len; i++)
    g_string_append_c (text, "@(),=:\"\xff"[i % 8]);
  graph = reg_graph_new_from_string (text->str, &error);
  g_assert_null (graph);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==, "1:1: unexpected character '@'");
  g_clear_error (&error);

  /* A long number: a million digits read as 1e+999999 */
  g_string_assign (text, "graph():\n  return (1");
  for (gsize i = 0; i < len; i++)
    g_string_append_c (text, '0');
  g_string_append (text, ",)\n");
  graph = reg_graph_new_from_string (text->str, &error);
  g_assert_null (graph);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==,
                   "2:11: number out of range: '1000000000000000000000000000000000000000...'");
  g_clear_error (&error);

  /* Deep parentheses do not recurse. */
  g_string_assign (text, "graph(x):\n  a = relu");
  for (gsize i = 0; i < len; i++)
    g_string_append_c (text, '(');
  graph = reg_graph_new_from_string (text->str, &error);
  g_assert_null (graph);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==, "2:12: expected a name or a number, got '('");
}

static void
test_parse_large (void)
{
  const guint n = 100000;
  g_autoptr(GString) text = g_string_new ("graph(x, y):\n  v0 = add(x, y)\n");
  g_autoptr(RegGraph) graph = NULL;
  g_autofree char *printed = NULL;
  const guint *outputs;
  guint n_outputs;

  /* A long chain, with constants sprinkled in */
  for (guint i = 1; i < n; i++)
    {
      if (i % 10 == 0)
        g_string_append_printf (text, "  v%u = mul(v%u, 0.5)\n", i, i - 1);
      else if (i % 10 == 5)
        g_string_append_printf (text, "  v%u = add(v%u, x)\n", i, i - 1);
      else
        g_string_append_printf (text, "  v%u = relu(v%u)\n", i, i - 1);
    }
  g_string_append_printf (text, "  return (v%u, v%u)\n", n - 1, n / 2);

  graph = graph_new_from_string (text->str);
  g_assert_cmpuint (reg_graph_get_n_nodes (graph), ==, 2 + n + (n - 1) / 10);
  outputs = reg_graph_get_outputs (graph, &n_outputs);
  g_assert_cmpuint (n_outputs, ==, 2);
  g_assert_cmpstr (reg_graph_get_node_name (graph, outputs[0]), ==, "v99999");
  g_assert_cmpstr (reg_graph_get_node_name (graph, outputs[1]), ==, "v50000");

  printed = reg_graph_to_string (graph);
  g_assert_true (strcmp (printed, text->str) == 0);
}

static void
test_parse_large_wide (void)
{
  /* Many outputs on one line, many inputs in the header */
  const guint n = 100000;
  g_autoptr(GString) text = g_string_new ("graph(");
  g_autoptr(RegGraph) graph = NULL;
  g_autofree char *printed = NULL;
  guint n_ids;

  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%si%u", i > 0 ? ", " : "", i);
  g_string_append (text, "):\n  return (");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%si%u", i > 0 ? ", " : "", n - 1 - i);
  g_string_append (text, ")\n");

  graph = graph_new_from_string (text->str);
  reg_graph_get_inputs (graph, &n_ids);
  g_assert_cmpuint (n_ids, ==, n);
  reg_graph_get_outputs (graph, &n_ids);
  g_assert_cmpuint (n_ids, ==, n);

  printed = reg_graph_to_string (graph);
  g_assert_true (strcmp (printed, text->str) == 0);
}

/* Mutates good texts at random (fixed seed): whatever comes out must be
 * an error with a location, or a graph that prints stably. */
static void
test_parse_fuzz (void)
{
  static const char alphabet[] = "graph(),:=#\n \t.-+e0123456789xyzabinfreturnu\xff\xc3\xa9";
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "graphs", NULL);
  g_autoptr(GPtrArray) paths = list_graph_files (dir);
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GRand) rand = g_rand_new_with_seed (1234);
  g_autoptr(GRegex) location = g_regex_new ("^[1-9][0-9]*:[1-9][0-9]*: ", 0, 0, NULL);
  guint n_ok = 0;

  for (guint i = 0; i < paths->len; i++)
    {
      char *text;

      g_file_get_contents (g_ptr_array_index (paths, i), &text, NULL, NULL);
      g_assert_nonnull (text);
      g_ptr_array_add (texts, text);
    }

  for (guint iteration = 0; iteration < 5000; iteration++)
    {
      const char *base = g_ptr_array_index (texts, g_rand_int_range (rand, 0, texts->len));
      g_autoptr(GString) text = g_string_new (base);
      guint n_mutations = g_rand_int_range (rand, 1, 4);
      g_autoptr(GError) error = NULL;
      g_autoptr(RegGraph) graph = NULL;

      for (guint m = 0; m < n_mutations; m++)
        {
          gsize pos = g_rand_int_range (rand, 0, text->len + 1);
          char c = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];

          switch (g_rand_int_range (rand, 0, 4))
            {
            case 0:
              g_string_insert_c (text, pos, c);
              break;
            case 1:
              if (pos < text->len)
                g_string_erase (text, pos, 1);
              break;
            case 2:
              if (pos < text->len)
                text->str[pos] = c;
              break;
            default:
              /* Control characters and random bytes, but no NUL */
              if (pos < text->len)
                text->str[pos] = (char) g_rand_int_range (rand, 1, 256);
              break;
            }
        }

      graph = reg_graph_new_from_string (text->str, &error);
      if (graph == NULL)
        {
          g_assert_nonnull (error);
          g_assert_true (error->domain == REG_GRAPH_ERROR);
          g_assert_true (g_utf8_validate (error->message, -1, NULL));
          if (!g_regex_match (location, error->message, 0, NULL))
            g_error ("no location in '%s'", error->message);
        }
      else
        {
          g_autofree char *printed = reg_graph_to_string (graph);

          g_assert_no_error (error);
          g_assert_true (reg_graph_validate (graph, NULL));
          assert_prints_as (printed, NULL);
          n_ok++;
        }
    }

  /* Some mutations (in comments, white space, numbers) keep a graph. */
  g_assert_cmpuint (n_ok, >, 0);
}

/* ---- Printing numbers --------------------------------------------------- */

static const struct {
  guint64     bits;
  const char *repr;
} repr_cases[] = {
  /* BEGIN generated by tests/data/gen-float-repr.py */
  { G_GUINT64_CONSTANT (0x0000000000000000), "0.0" },
  { G_GUINT64_CONSTANT (0x8000000000000000), "-0.0" },
  { G_GUINT64_CONSTANT (0x3ff0000000000000), "1.0" },
  { G_GUINT64_CONSTANT (0xbff0000000000000), "-1.0" },
  { G_GUINT64_CONSTANT (0x3ff8000000000000), "1.5" },
  { G_GUINT64_CONSTANT (0x4000000000000000), "2.0" },
  { G_GUINT64_CONSTANT (0x3fb999999999999a), "0.1" },
  { G_GUINT64_CONSTANT (0x3fc999999999999a), "0.2" },
  { G_GUINT64_CONSTANT (0x3fd3333333333334), "0.30000000000000004" },
  { G_GUINT64_CONSTANT (0x3fd5555555555555), "0.3333333333333333" },
  { G_GUINT64_CONSTANT (0x3fe5555555555555), "0.6666666666666666" },
  { G_GUINT64_CONSTANT (0x400921fb54442d18), "3.141592653589793" },
  { G_GUINT64_CONSTANT (0x4005bf0a8b145769), "2.718281828459045" },
  { G_GUINT64_CONSTANT (0x4059000000000000), "100.0" },
  { G_GUINT64_CONSTANT (0x405edd2f1a9fbe77), "123.456" },
  { G_GUINT64_CONSTANT (0xc05edd2f1a9fbe77), "-123.456" },
  { G_GUINT64_CONSTANT (0x7ff0000000000000), "inf" },
  { G_GUINT64_CONSTANT (0xfff0000000000000), "-inf" },
  { G_GUINT64_CONSTANT (0x7ff8000000000000), "nan" },
  { G_GUINT64_CONSTANT (0x3f1a36e2eb1c432d), "0.0001" },
  { G_GUINT64_CONSTANT (0x3f1cd5f99c38b04b), "0.00011" },
  { G_GUINT64_CONSTANT (0x3f1a36371ea531a8), "9.999e-05" },
  { G_GUINT64_CONSTANT (0x3ee4f8b588e368f1), "1e-05" },
  { G_GUINT64_CONSTANT (0x3eef75104d551d69), "1.5e-05" },
  { G_GUINT64_CONSTANT (0x3f1a36d1bd105b06), "9.9999e-05" },
  { G_GUINT64_CONSTANT (0x430c6bf526340000), "1000000000000000.0" },
  { G_GUINT64_CONSTANT (0x4341c37937e08000), "1e+16" },
  { G_GUINT64_CONSTANT (0x4376345785d8a000), "1e+17" },
  { G_GUINT64_CONSTANT (0x43118b54f22aeb00), "1234567890123456.0" },
  { G_GUINT64_CONSTANT (0x4345ee2a2eb5a5c4), "1.2345678901234568e+16" },
  { G_GUINT64_CONSTANT (0x4341c37937e07fff), "9999999999999998.0" },
  { G_GUINT64_CONSTANT (0x4340000000000000), "9007199254740992.0" },
  { G_GUINT64_CONSTANT (0x430c6bf52633ffff), "999999999999999.9" },
  { G_GUINT64_CONSTANT (0x4480f0cf064dd592), "1e+22" },
  { G_GUINT64_CONSTANT (0x44b52d02c7e14af6), "1e+23" },
  { G_GUINT64_CONSTANT (0x7e41eb2d66005835), "1.5e+300" },
  { G_GUINT64_CONSTANT (0x81b01297d23ab683), "-1.5e-300" },
  { G_GUINT64_CONSTANT (0x0000000000000001), "5e-324" },
  { G_GUINT64_CONSTANT (0x8000000000000001), "-5e-324" },
  { G_GUINT64_CONSTANT (0x0000000000000002), "1e-323" },
  { G_GUINT64_CONSTANT (0x0010000000000000), "2.2250738585072014e-308" },
  { G_GUINT64_CONSTANT (0x000fffffffffffff), "2.225073858507201e-308" },
  { G_GUINT64_CONSTANT (0x7fefffffffffffff), "1.7976931348623157e+308" },
  { G_GUINT64_CONSTANT (0xffefffffffffffff), "-1.7976931348623157e+308" },
  { G_GUINT64_CONSTANT (0x0000000000002264), "4.35e-320" },
  { G_GUINT64_CONSTANT (0x47efffffe0000000), "3.4028234663852886e+38" },
  { G_GUINT64_CONSTANT (0x3810000000000000), "1.1754943508222875e-38" },
  { G_GUINT64_CONSTANT (0x36a0000000000000), "1.401298464324817e-45" },
  { G_GUINT64_CONSTANT (0x0000002000000000), "6.7903865311e-313" },
  { G_GUINT64_CONSTANT (0x0170000000000000), "9.332636185032189e-302" },
  { G_GUINT64_CONSTANT (0x03c0000000000000), "1.2826677504057426e-290" },
  { G_GUINT64_CONSTANT (0x0610000000000000), "1.7628851326804976e-279" },
  { G_GUINT64_CONSTANT (0x0860000000000000), "2.4228908772695546e-268" },
  { G_GUINT64_CONSTANT (0x0ab0000000000000), "3.329995865487836e-257" },
  { G_GUINT64_CONSTANT (0x0d00000000000000), "4.5767114681873503e-246" },
  { G_GUINT64_CONSTANT (0x0f50000000000000), "6.290184345309701e-235" },
  { G_GUINT64_CONSTANT (0x11a0000000000000), "8.645163535653227e-224" },
  { G_GUINT64_CONSTANT (0x13f0000000000000), "1.188182228934475e-212" },
  { G_GUINT64_CONSTANT (0x1640000000000000), "1.6330252207878255e-201" },
  { G_GUINT64_CONSTANT (0x1890000000000000), "2.2444127733846047e-190" },
  { G_GUINT64_CONSTANT (0x1ae0000000000000), "3.084697427331692e-179" },
  { G_GUINT64_CONSTANT (0x1d30000000000000), "4.239575861902385e-168" },
  { G_GUINT64_CONSTANT (0x1f80000000000000), "5.826828696250162e-157" },
  { G_GUINT64_CONSTANT (0x21d0000000000000), "8.008332380732404e-146" },
  { G_GUINT64_CONSTANT (0x2420000000000000), "1.1006568214637918e-134" },
  { G_GUINT64_CONSTANT (0x2670000000000000), "1.512731216738015e-123" },
  { G_GUINT64_CONSTANT (0x28c0000000000000), "2.07908195312898e-112" },
  { G_GUINT64_CONSTANT (0x2b10000000000000), "2.8574684782056875e-101" },
  { G_GUINT64_CONSTANT (0x2d60000000000000), "3.9272747722381812e-90" },
  { G_GUINT64_CONSTANT (0x2fb0000000000000), "5.397605346934028e-79" },
  { G_GUINT64_CONSTANT (0x3200000000000000), "7.418412301374843e-68" },
  { G_GUINT64_CONSTANT (0x3450000000000000), "1.0195788231247695e-56" },
  { G_GUINT64_CONSTANT (0x38f0000000000000), "1.925929944387236e-34" },
  { G_GUINT64_CONSTANT (0x3b40000000000000), "2.6469779601696886e-23" },
  { G_GUINT64_CONSTANT (0x3d90000000000000), "3.637978807091713e-12" },
  { G_GUINT64_CONSTANT (0x3fe0000000000000), "0.5" },
  { G_GUINT64_CONSTANT (0x4230000000000000), "68719476736.0" },
  { G_GUINT64_CONSTANT (0x4480000000000000), "9.44473296573929e+21" },
  { G_GUINT64_CONSTANT (0x46d0000000000000), "1.298074214633707e+33" },
  { G_GUINT64_CONSTANT (0x4920000000000000), "1.78405961588245e+44" },
  { G_GUINT64_CONSTANT (0x4b70000000000000), "2.4519928653854222e+55" },
  { G_GUINT64_CONSTANT (0x4dc0000000000000), "3.36999333339383e+66" },
  { G_GUINT64_CONSTANT (0x5010000000000000), "4.631683569492648e+77" },
  { G_GUINT64_CONSTANT (0x5260000000000000), "6.365737426045269e+88" },
  { G_GUINT64_CONSTANT (0x54b0000000000000), "8.749002899132048e+99" },
  { G_GUINT64_CONSTANT (0x5700000000000000), "1.2024538023802026e+111" },
  { G_GUINT64_CONSTANT (0x5950000000000000), "1.6526399219756215e+122" },
  { G_GUINT64_CONSTANT (0x5ba0000000000000), "2.2713710134237715e+133" },
  { G_GUINT64_CONSTANT (0x5df0000000000000), "3.1217485503159922e+144" },
  { G_GUINT64_CONSTANT (0x6040000000000000), "4.290498537581631e+155" },
  { G_GUINT64_CONSTANT (0x6290000000000000), "5.896816288783659e+166" },
  { G_GUINT64_CONSTANT (0x64e0000000000000), "8.10452259547069e+177" },
  { G_GUINT64_CONSTANT (0x6730000000000000), "1.1138771039116688e+189" },
  { G_GUINT64_CONSTANT (0x6980000000000000), "1.5309010345804195e+200" },
  { G_GUINT64_CONSTANT (0x6bd0000000000000), "2.1040543606193494e+211" },
  { G_GUINT64_CONSTANT (0x6e20000000000000), "2.891790293717215e+222" },
  { G_GUINT64_CONSTANT (0x7070000000000000), "3.974446316289815e+233" },
  { G_GUINT64_CONSTANT (0x72c0000000000000), "5.462437423415177e+244" },
  { G_GUINT64_CONSTANT (0x7510000000000000), "7.5075168288047e+255" },
  { G_GUINT64_CONSTANT (0x7760000000000000), "1.0318252561243462e+267" },
  { G_GUINT64_CONSTANT (0x79b0000000000000), "1.418129833677085e+278" },
  { G_GUINT64_CONSTANT (0x7c00000000000000), "1.94906280228e+289" },
  { G_GUINT64_CONSTANT (0x7e50000000000000), "2.6787715179656683e+300" },
  { G_GUINT64_CONSTANT (0x0060000000000000), "7.120236347223045e-307" },
  { G_GUINT64_CONSTANT (0x0100000000000000), "7.291122019556398e-304" },
  { G_GUINT64_CONSTANT (0x0420000000000000), "8.209073602596753e-289" },
  { G_GUINT64_CONSTANT (0x0660000000000000), "5.641232424577593e-278" },
  { G_GUINT64_CONSTANT (0x0d70000000000000), "5.858190679279809e-244" },
  { G_GUINT64_CONSTANT (0x0e80000000000000), "7.678447687145631e-239" },
  { G_GUINT64_CONSTANT (0x0eb0000000000000), "6.142758149716505e-238" },
  { G_GUINT64_CONSTANT (0x13e0000000000000), "5.940911144672375e-213" },
  { G_GUINT64_CONSTANT (0x4350000000000000), "1.8014398509481984e+16" },
  { G_GUINT64_CONSTANT (0x43e0000000000000), "9.223372036854776e+18" },
  { G_GUINT64_CONSTANT (0x43f0000000000000), "1.8446744073709552e+19" },
  { G_GUINT64_CONSTANT (0x7fe0000000000000), "8.98846567431158e+307" },
  { G_GUINT64_CONSTANT (0x603235a1e58e1b1c), "2.441494999204605e+155" },
  { G_GUINT64_CONSTANT (0x6762b34f4e26ea8e), "1.0414989766097382e+190" },
  { G_GUINT64_CONSTANT (0x8661abe05b1b90b4), "-6.230526898715033e-278" },
  { G_GUINT64_CONSTANT (0x6861072c1e753a93), "6.215145294404808e+194" },
  { G_GUINT64_CONSTANT (0x97da1b729ffe1d99), "-8.94094437889084e-194" },
  { G_GUINT64_CONSTANT (0x8698e95fb8d058ea), "-7.026611036348231e-277" },
  { G_GUINT64_CONSTANT (0x34ba5acef0867ff7), "1.0748285820495111e-54" },
  { G_GUINT64_CONSTANT (0xcaceb86f95b686c5), "-2.2987771825314225e+52" },
  { G_GUINT64_CONSTANT (0x8c21aecb511609d7), "-3.087197386747746e-250" },
  { G_GUINT64_CONSTANT (0x7a0071a93b4ed972), "4.663942141080057e+279" },
  { G_GUINT64_CONSTANT (0x5f8543633822dce7), "1.3920573253274706e+152" },
  { G_GUINT64_CONSTANT (0xd264cddd432a8933), "-8.27711272937829e+88" },
  { G_GUINT64_CONSTANT (0xb8d96afd054b7eef), "-7.648928060448913e-35" },
  { G_GUINT64_CONSTANT (0x7b994e16150e5651), "2.408255950349256e+287" },
  { G_GUINT64_CONSTANT (0xd2380b6a8c10562b), "-1.1957935569867676e+88" },
  { G_GUINT64_CONSTANT (0x0fcb44b3fcba4843), "1.3721846625640267e-232" },
  { G_GUINT64_CONSTANT (0x0337f2143e4f1740), "3.749301308590527e-293" },
  { G_GUINT64_CONSTANT (0x5004857e61f3a5b5), "2.9702783654702176e+77" },
  { G_GUINT64_CONSTANT (0x426b3d8cc6487799), "935974023747.7374" },
  { G_GUINT64_CONSTANT (0x5679b215bdf4cb40), "3.7717071705628334e+108" },
  { G_GUINT64_CONSTANT (0x35e5e9a10f422b96), "4.685380874883408e-49" },
  { G_GUINT64_CONSTANT (0x6409a0be3336e39f), "7.923199182017435e+173" },
  { G_GUINT64_CONSTANT (0xd22c55f70f49279a), "-7.046026150182277e+87" },
  { G_GUINT64_CONSTANT (0xf2f5f9331da21c2d), "-6.001426014961312e+245" },
  { G_GUINT64_CONSTANT (0x3a9589e6bc182f77), "1.73988047072314e-26" },
  { G_GUINT64_CONSTANT (0x77d5ebfa2d7017eb), "1.8095562091742157e+269" },
  { G_GUINT64_CONSTANT (0x308924e99e0691b3), "6.948782738449595e-75" },
  { G_GUINT64_CONSTANT (0xc3eba5d5babe3ec5), "-1.5937867265709844e+19" },
  { G_GUINT64_CONSTANT (0x8ca15772111b8802), "-7.750725352789286e-248" },
  { G_GUINT64_CONSTANT (0xf76ff762aff624d2), "-2.0614804289258562e+267" },
  { G_GUINT64_CONSTANT (0x804fd65ce1181284), "-3.542023286158013e-307" },
  { G_GUINT64_CONSTANT (0x93bce856ca0833dd), "-1.3416978930615857e-213" },
  { G_GUINT64_CONSTANT (0x0a4bcd42101034a8), "4.520500165069547e-259" },
  { G_GUINT64_CONSTANT (0x7ef992a83e470134), "4.384249711496811e+303" },
  { G_GUINT64_CONSTANT (0x3a7c6010b9ae8a03), "5.730337154395294e-27" },
  { G_GUINT64_CONSTANT (0xc83c5d2425266511), "-9.651712153572285e+39" },
  { G_GUINT64_CONSTANT (0x6760ed2a37ffff52), "9.426978883810016e+189" },
  { G_GUINT64_CONSTANT (0xd6a7b6c8a2d2466d), "-2.7846668185905256e+109" },
  { G_GUINT64_CONSTANT (0xd8eaeebd745da064), "-2.173332723540297e+120" },
  { G_GUINT64_CONSTANT (0x5ac6ef5270fbb2e8), "1.9872115081775688e+129" },
  { G_GUINT64_CONSTANT (0x33ae1a625db1e199), "9.366591186736687e-60" },
  { G_GUINT64_CONSTANT (0x2a79e68e9142e874), "4.5172232022678016e-104" },
  { G_GUINT64_CONSTANT (0xcedca0f3a6427061), "-7.903525938358312e+71" },
  { G_GUINT64_CONSTANT (0xc8426514595e8078), "-1.2518880581420001e+40" },
  { G_GUINT64_CONSTANT (0xb3b9196352ee06fd), "-1.5619252965469572e-59" },
  { G_GUINT64_CONSTANT (0x11bbc7aa88c25af3), "3.002027190990871e-223" },
  { G_GUINT64_CONSTANT (0x9ad2e05adb32f148), "-1.8196231384555797e-179" },
  { G_GUINT64_CONSTANT (0x84268cc8f863e145), "-1.156963312656768e-288" },
  { G_GUINT64_CONSTANT (0xa9d34bcd79a24020), "-3.286481444829727e-107" },
  { G_GUINT64_CONSTANT (0x3f406ac50f947e6d), "0.0005010091983059358" },
  { G_GUINT64_CONSTANT (0xfb70d9dd38f7053d), "-4.0092430828867026e+286" },
  { G_GUINT64_CONSTANT (0x3bb51aed1c29cabd), "4.469195812783108e-21" },
  { G_GUINT64_CONSTANT (0xdfdc80c8099f6569), "-5.971303923063532e+153" },
  { G_GUINT64_CONSTANT (0x74e597a5c50314f2), "1.2664461337538145e+255" },
  { G_GUINT64_CONSTANT (0xe920bd1829087675), "-2.502462544887099e+198" },
  { G_GUINT64_CONSTANT (0xed167aa80159f55c), "-3.0996760627366474e+217" },
  { G_GUINT64_CONSTANT (0xba39b4d7f781a349), "-3.2446064096906376e-28" },
  { G_GUINT64_CONSTANT (0x78149a02fe866910), "2.720929234639833e+270" },
  { G_GUINT64_CONSTANT (0xf33b82db7842ae8c), "-1.2022239782480186e+247" },
  { G_GUINT64_CONSTANT (0x3e108dd1d5424a1f), "9.63568632033283e-10" },
  { G_GUINT64_CONSTANT (0xf1adedbc5c915e93), "-3.8977481698443583e+239" },
  { G_GUINT64_CONSTANT (0x7f780056b2cde10d), "1.053393882545672e+306" },
  { G_GUINT64_CONSTANT (0x2ffd0cecc14c05c8), "1.568030671771353e-77" },
  { G_GUINT64_CONSTANT (0xd5f66883a4a3d1fd), "-1.2848327587211526e+106" },
  { G_GUINT64_CONSTANT (0x28ed7ada559ebda1), "1.532277890895685e-111" },
  { G_GUINT64_CONSTANT (0x715662cd87f9b290), "9.110707320275676e+237" },
  { G_GUINT64_CONSTANT (0x732baabe2974051b), "6.045162412583346e+246" },
  { G_GUINT64_CONSTANT (0xb8468eb9a10408c7), "-1.3258118648566185e-37" },
  { G_GUINT64_CONSTANT (0xd4aaa6d16290b6f9), "-7.286725302357612e+99" },
  { G_GUINT64_CONSTANT (0xb37640cad26b50f2), "-8.655084314254835e-61" },
  { G_GUINT64_CONSTANT (0x4717a2c9a47b1acc), "3.0681138466781e+34" },
  { G_GUINT64_CONSTANT (0x91fdfd212cdaa208), "-5.185159437166375e-222" },
  { G_GUINT64_CONSTANT (0xca52ce5ee60db9ec), "-1.0994079152516477e+50" },
  { G_GUINT64_CONSTANT (0xa33d32fb46f0fce9), "-6.1298828085336484e-139" },
  { G_GUINT64_CONSTANT (0x82ea0fd64118783a), "-1.2752041320617901e-294" },
  { G_GUINT64_CONSTANT (0x3fa138cda9d76e88), "0.03363650034199589" },
  { G_GUINT64_CONSTANT (0x89f12f8becad0899), "-8.732361746954978e-261" },
  { G_GUINT64_CONSTANT (0xa913e85cbae05530), "-8.27793338416948e-111" },
  { G_GUINT64_CONSTANT (0x84e24cfc94840610), "-3.845940016454712e-285" },
  { G_GUINT64_CONSTANT (0xd6d609b6bb3a0c20), "-2.070282044665876e+110" },
  { G_GUINT64_CONSTANT (0x4bb7c586af90d432), "5.828776023273387e+56" },
  { G_GUINT64_CONSTANT (0x2f6181e3c92b1b25), "1.8456628636086264e-80" },
  { G_GUINT64_CONSTANT (0x0ddf6a9bee71ef23), "7.3617402669525424e-242" },
  { G_GUINT64_CONSTANT (0xa738f0ac622454bd), "-9.65829471929731e-120" },
  { G_GUINT64_CONSTANT (0xee7fb0b76244843f), "-1.8328339356978904e+224" },
  { G_GUINT64_CONSTANT (0x4f3fb37fbe1a1f5b), "5.6011115537513736e+73" },
  { G_GUINT64_CONSTANT (0x313aac81b9a2f1f2), "1.509686660510861e-71" },
  { G_GUINT64_CONSTANT (0xc97b92562798a8e0), "-9.837885296359443e+45" },
  { G_GUINT64_CONSTANT (0xe9cca4dbc47d1117), "-4.3851096146291655e+201" },
  { G_GUINT64_CONSTANT (0x2e45f6fe7624fe17), "8.833216976929782e-86" },
  { G_GUINT64_CONSTANT (0x575469075d1e859f), "4.908481019986916e+112" },
  { G_GUINT64_CONSTANT (0xe54b97faa680436e), "-8.945340352349966e+179" },
  { G_GUINT64_CONSTANT (0xed7ba19905ebc6a4), "-2.4384690887057775e+219" },
  { G_GUINT64_CONSTANT (0x0e2399e1072b19e2), "1.4697846039560313e-240" },
  { G_GUINT64_CONSTANT (0x2af8c585eff7d5dd), "1.1059999162258364e-101" },
  { G_GUINT64_CONSTANT (0xfc09e5dd98978d22), "-3.154791123980469e+289" },
  { G_GUINT64_CONSTANT (0x47fe4b5f56f534cf), "6.442911337017533e+38" },
  { G_GUINT64_CONSTANT (0x94de626cf3841092), "-3.696874822410841e-208" },
  { G_GUINT64_CONSTANT (0x778e1cf261e86f7d), "7.767857434591037e+267" },
  { G_GUINT64_CONSTANT (0xcc8488ec14234c49), "-4.1247794191475844e+60" },
  { G_GUINT64_CONSTANT (0x9318c21d550ab5f3), "-1.1221818786237002e-216" },
  { G_GUINT64_CONSTANT (0x5dec3c0813e57272), "2.7544063750082417e+144" },
  { G_GUINT64_CONSTANT (0x7e530b74f0d9560d), "3.1885338899127095e+300" },
  { G_GUINT64_CONSTANT (0x071df4db4f592bfd), "2.1630901479943414e-274" },
  { G_GUINT64_CONSTANT (0x07a18e7c7de94326), "6.490737107516742e-272" },
  { G_GUINT64_CONSTANT (0xe8dca47450fb953c), "-1.338155504084498e+197" },
  { G_GUINT64_CONSTANT (0x84428f09620e8232), "-3.8087509344542234e-288" },
  { G_GUINT64_CONSTANT (0x9ea23fc57108957a), "-4.05633610737405e-161" },
  { G_GUINT64_CONSTANT (0x3af21d11c79aff1c), "9.364487181997027e-25" },
  { G_GUINT64_CONSTANT (0x6b40e24df5bd153f), "4.336530540568569e+208" },
  { G_GUINT64_CONSTANT (0xe5c3234cd48511bc), "-1.5882595402664158e+182" },
  { G_GUINT64_CONSTANT (0x67d632b3c5a33272), "1.5824579768278197e+192" },
  { G_GUINT64_CONSTANT (0x86578fce47527c0d), "-4.153664345842736e-278" },
  { G_GUINT64_CONSTANT (0x00c1799e33ae4a2f), "4.97706520576923e-305" },
  { G_GUINT64_CONSTANT (0xe5c56f797f041761), "-1.7789344736825026e+182" },
  { G_GUINT64_CONSTANT (0x143e0b0f6d9952ed), "3.569680128843868e-211" },
  { G_GUINT64_CONSTANT (0x16ae5760301db6e5), "1.9819250739488298e-199" },
  { G_GUINT64_CONSTANT (0xa4d1f156105b2df3), "-2.5278434037904817e-131" },
  { G_GUINT64_CONSTANT (0x7286bc51a191f3bf), "4.851246279986029e+243" },
  { G_GUINT64_CONSTANT (0x6ea90aadb092c9c5), "1.1586461119828858e+225" },
  { G_GUINT64_CONSTANT (0x27f703da4bed0148), "3.650678593754578e-116" },
  { G_GUINT64_CONSTANT (0xe45ccb72f1a84a2a), "-2.8487241259117774e+175" },
  { G_GUINT64_CONSTANT (0xaff8bceaf2dd7345), "-1.335257453437976e-77" },
  { G_GUINT64_CONSTANT (0x74c31c2cb85c17db), "2.8021304169014703e+254" },
  { G_GUINT64_CONSTANT (0x2a46d1f68c1d0127), "4.974968832423217e-105" },
  { G_GUINT64_CONSTANT (0xf53093aab56528bb), "-3.111269545395105e+256" },
  { G_GUINT64_CONSTANT (0xe9b1cbc6fc0a53f8), "-1.3621961242907314e+201" },
  { G_GUINT64_CONSTANT (0xd24fd2568de4676b), "-3.1651275234960796e+88" },
  { G_GUINT64_CONSTANT (0x8e199631d4ef7a26), "-9.593072319414474e-241" },
  { G_GUINT64_CONSTANT (0x97653b072a7e3b59), "-5.680344183588844e-196" },
  { G_GUINT64_CONSTANT (0x4d491d79795db44d), "2.0663534383474972e+64" },
  { G_GUINT64_CONSTANT (0x997d9504af0735e0), "-6.798791598393792e-186" },
  { G_GUINT64_CONSTANT (0x6905c512dbe98143), "8.136581653858314e+197" },
  { G_GUINT64_CONSTANT (0xf4ae8a8d3ff54d72), "-1.1195737627767749e+254" },
  { G_GUINT64_CONSTANT (0xb91312f448dcc120), "-9.183816193074143e-34" },
  { G_GUINT64_CONSTANT (0x7a79d7c34ced1367), "9.382010730457242e+281" },
  { G_GUINT64_CONSTANT (0xb9d0ea57f5aac4b8), "-3.335975357582969e-30" },
  { G_GUINT64_CONSTANT (0xff90b6026613ad9a), "-2.9337112714578275e+306" },
  { G_GUINT64_CONSTANT (0x37d393f4ab428084), "8.989754725410686e-40" },
  { G_GUINT64_CONSTANT (0x8def5c91d85e5c92), "-1.4697778821882185e-241" },
  { G_GUINT64_CONSTANT (0xc52cd977af4d4b75), "-1.7438442135186299e+25" },
  { G_GUINT64_CONSTANT (0xff5d5bcb6f9f5b4f), "-3.221295472345925e+305" },
  { G_GUINT64_CONSTANT (0x9e2ca8c0257277e8), "-2.4883768501838136e-163" },
  { G_GUINT64_CONSTANT (0xdb4218a2a3c810c3), "-4.013989853877472e+131" },
  { G_GUINT64_CONSTANT (0x654014627690e462), "5.212708152812461e+179" },
  { G_GUINT64_CONSTANT (0x4a3ebd72ee7df241), "4.4926611436146784e+49" },
  { G_GUINT64_CONSTANT (0x93aff237b5d7b5dd), "-7.413645048979897e-214" },
  { G_GUINT64_CONSTANT (0x03e06e3da3a5b53f), "5.268759176542239e-290" },
  { G_GUINT64_CONSTANT (0xbee40c1ac8f54b4f), "-9.55928979232625e-06" },
  { G_GUINT64_CONSTANT (0x06b322d0b24b3879), "2.1590121300132285e-276" },
  { G_GUINT64_CONSTANT (0x3c29d35025bff857), "7e-19" },
  { G_GUINT64_CONSTANT (0x3eadff0dd17951eb), "8.93959540125e-07" },
  { G_GUINT64_CONSTANT (0x41e44698e4c00000), "2721367846.0" },
  { G_GUINT64_CONSTANT (0x4652eec2eb3869af), "6e+30" },
  { G_GUINT64_CONSTANT (0x42b2cc6067220000), "20669000000000.0" },
  { G_GUINT64_CONSTANT (0x430197d158ed8000), "619000000000000.0" },
  { G_GUINT64_CONSTANT (0x400cfa7d195b45cc), "3.62230892" },
  { G_GUINT64_CONSTANT (0x42c6bcc41e900000), "50000000000000.0" },
  { G_GUINT64_CONSTANT (0x45137ff8c38ef2de), "5.89348e+24" },
  { G_GUINT64_CONSTANT (0x3dcb5ace71e059e6), "4.9757932353e-11" },
  { G_GUINT64_CONSTANT (0x41a0c7f5a0000000), "140770000.0" },
  { G_GUINT64_CONSTANT (0x4494b8a8b0c5f3a7), "2.44634215e+22" },
  { G_GUINT64_CONSTANT (0x44806eb455799448), "9.7e+21" },
  { G_GUINT64_CONSTANT (0x4226ad7e0e000000), "48700000000.0" },
  { G_GUINT64_CONSTANT (0x46f09ad361a140fc), "5.3885617608e+33" },
  { G_GUINT64_CONSTANT (0x44a797018fd18114), "5.57e+22" },
  { G_GUINT64_CONSTANT (0x4578ac26d539195b), "4.772349287427034e+26" },
  { G_GUINT64_CONSTANT (0x426ced3ecf5e31c6), "993915206385.5554" },
  { G_GUINT64_CONSTANT (0x4309564c456c6000), "891470000000000.0" },
  { G_GUINT64_CONSTANT (0x42311b2084c00000), "73469560000.0" },
  { G_GUINT64_CONSTANT (0x45ae8612ac0532e7), "4.72331726514e+27" },
  { G_GUINT64_CONSTANT (0x41e9e7d01b200000), "3476979929.0" },
  { G_GUINT64_CONSTANT (0x3b2dfb3a6e2ba9ea), "1.24e-23" },
  { G_GUINT64_CONSTANT (0x3d25e4dd53d83d04), "3.88915605319e-14" },
  { G_GUINT64_CONSTANT (0x3f8411c2a0232096), "0.0097995" },
  { G_GUINT64_CONSTANT (0x409548f57939d339), "1362.23972025253" },
  { G_GUINT64_CONSTANT (0x3d6d0acbe8bd7e6f), "8.25428228e-13" },
  { G_GUINT64_CONSTANT (0x3c0d65805828e3db), "1.99198362e-19" },
  { G_GUINT64_CONSTANT (0x3e23689448c69d49), "2.259448245e-09" },
  { G_GUINT64_CONSTANT (0x45d027e72f1f1281), "2e+28" },
  { G_GUINT64_CONSTANT (0x3f3acde19fc2a887), "0.000409" },
  { G_GUINT64_CONSTANT (0x430bc7855e6d8000), "977400000000000.0" },
  { G_GUINT64_CONSTANT (0x4008fda3f7c16d1d), "3.1238479" },
  { G_GUINT64_CONSTANT (0x3be9f9ffaaf34974), "4.4006e-20" },
  { G_GUINT64_CONSTANT (0x4374dcb28b46fbac), "9.3954542931e+16" },
  { G_GUINT64_CONSTANT (0x416aab797b611340), "13982667.8556" },
  { G_GUINT64_CONSTANT (0x42a1301e9f7fe57e), "9449184935922.746" },
  { G_GUINT64_CONSTANT (0x429781c62c7ab752), "6461535755949.83" },
  { G_GUINT64_CONSTANT (0x3f8441355475a31a), "0.00989" },
  { G_GUINT64_CONSTANT (0x4440fd4c77891f6c), "6.268e+20" },
  { G_GUINT64_CONSTANT (0x3d00aad2d853bf0b), "7.40175909e-15" },
  { G_GUINT64_CONSTANT (0x3fde4c950408a33d), "0.4734242" },
  { G_GUINT64_CONSTANT (0x43414cd584b87fb0), "9739109085020000.0" },
  { G_GUINT64_CONSTANT (0x44e7e9b81ccbbcc7), "9.034062974223212e+23" },
  { G_GUINT64_CONSTANT (0x45615b8618c296e0), "1.6787158345e+26" },
  { G_GUINT64_CONSTANT (0x3e0dfb835a9d59aa), "8.72604812391253e-10" },
  { G_GUINT64_CONSTANT (0x3fd54fb85f89aa87), "0.3329907353387757" },
  { G_GUINT64_CONSTANT (0x408b09999999999a), "865.2" },
  { G_GUINT64_CONSTANT (0x3defbd4cc93ec6b1), "2.309349140932213e-10" },
  { G_GUINT64_CONSTANT (0x4235297eeff97d71), "90890498041.49" },
  { G_GUINT64_CONSTANT (0x42946cb06c808f52), "5614262231075.83" },
  { G_GUINT64_CONSTANT (0x3feb2df7b8bf69da), "0.84936128696" },
  { G_GUINT64_CONSTANT (0x415dbfaa4f5c28f6), "7798441.24" },
  { G_GUINT64_CONSTANT (0x3d695e30cf44c4b9), "7.21e-13" },
  { G_GUINT64_CONSTANT (0x422217c0fab40000), "38853967194.0" },
  { G_GUINT64_CONSTANT (0x3bb7d626f7cad7e9), "5.04758201e-21" },
  { G_GUINT64_CONSTANT (0x3d651c51ce3718e1), "6e-13" },
  { G_GUINT64_CONSTANT (0x45806ddb8fabc192), "6.3557124e+26" },
  { G_GUINT64_CONSTANT (0x42843b1d0d590000), "2780515380000.0" },
  { G_GUINT64_CONSTANT (0x42e84e6d950b4000), "213801000000000.0" },
  { G_GUINT64_CONSTANT (0x3d6e7c8ba24f0b02), "8.6647860502e-13" },
  { G_GUINT64_CONSTANT (0x3abbda88dd44a476), "9e-26" },
  { G_GUINT64_CONSTANT (0x3f069bb63d49443d), "4.312181377897531e-05" },
  { G_GUINT64_CONSTANT (0x4020605787b617af), "8.1881678018361" },
  { G_GUINT64_CONSTANT (0x461bc49558fd67ce), "5.5e+29" },
  { G_GUINT64_CONSTANT (0x3c87a28834d566b4), "4.1e-17" },
  { G_GUINT64_CONSTANT (0x3fec7ae147ae147b), "0.89" },
  { G_GUINT64_CONSTANT (0x44046e0767c8f4e7), "4.7107912657e+19" },
  { G_GUINT64_CONSTANT (0x402121356be16956), "8.564860698" },
  { G_GUINT64_CONSTANT (0x3fa863be2476f828), "0.0476359767449" },
  { G_GUINT64_CONSTANT (0x3eaed442963455b9), "9.1878e-07" },
  { G_GUINT64_CONSTANT (0x4079000000000000), "400.0" },
  { G_GUINT64_CONSTANT (0x438f161421c8e000), "2.8e+17" },
  { G_GUINT64_CONSTANT (0x3e0c49ede2496c77), "8.2331203363e-10" },
  { G_GUINT64_CONSTANT (0x45f32c9523a96b35), "9.4945795409896e+28" },
  { G_GUINT64_CONSTANT (0x4621959df094329c), "6.965914833306372e+29" },
  { G_GUINT64_CONSTANT (0x45008dcc0cc0fafa), "2.50155385534e+24" },
  { G_GUINT64_CONSTANT (0x3fb4467381d7dbf5), "0.0792" },
  { G_GUINT64_CONSTANT (0x4302112e150af800), "635679900000000.0" },
  { G_GUINT64_CONSTANT (0x3dd9d4f579025421), "9.39757978486323e-11" },
  { G_GUINT64_CONSTANT (0x47621bfcd539bfa7), "7.52232e+35" },
  { G_GUINT64_CONSTANT (0x3e96f5c70aa3d12c), "3.4213168e-07" },
  { G_GUINT64_CONSTANT (0x3cd121b6a19d0659), "9.51e-16" },
  { G_GUINT64_CONSTANT (0x3fe7eb02ad5969ff), "0.7474378" },
  { G_GUINT64_CONSTANT (0x472a8fcf6dfdfedc), "6.8958268582898e+34" },
  { G_GUINT64_CONSTANT (0x3dd2fc3ef19e6e9e), "6.9068248e-11" },
  { G_GUINT64_CONSTANT (0x3f2ebc501f4993bf), "0.000234494" },
  { G_GUINT64_CONSTANT (0x3b582db34012b251), "8e-23" },
  { G_GUINT64_CONSTANT (0x461e4ad1785a42b2), "6e+29" },
  { G_GUINT64_CONSTANT (0x3bed83c94fb6d2ac), "5e-20" },
  { G_GUINT64_CONSTANT (0x3f351a437824d4cc), "0.000322" },
  { G_GUINT64_CONSTANT (0x43ab3c59f5d4dff4), "9.81271225e+17" },
  { G_GUINT64_CONSTANT (0x46c6cc5479739986), "9.248034e+32" },
  { G_GUINT64_CONSTANT (0x3e033a87f96de721), "5.59627e-10" },
  { G_GUINT64_CONSTANT (0x3ca54c6d65b5ca61), "1.47788339e-16" },
  { G_GUINT64_CONSTANT (0x42537e4673c80000), "334891700000.0" },
  { G_GUINT64_CONSTANT (0x3cbe41383cbdae28), "4.198692e-16" },
  { G_GUINT64_CONSTANT (0x3f4f13e512027f75), "0.0009484165675708161" },
  { G_GUINT64_CONSTANT (0x44c8b567f10eabfa), "2.333662921e+23" },
  { G_GUINT64_CONSTANT (0x45b2159b2fdbdb1b), "5.59685046864022e+27" },
  { G_GUINT64_CONSTANT (0x408519acb131d7c0), "675.2093223470656" },
  { G_GUINT64_CONSTANT (0xc072b4676c5ed8ea), "-299.275249834535" },
  { G_GUINT64_CONSTANT (0xc04cb41cafe06560), "-57.4071254583057" },
  { G_GUINT64_CONSTANT (0xc04614c7fcd61080), "-44.16235313846937" },
  { G_GUINT64_CONSTANT (0x404a9b93b7d46840), "53.215445498194185" },
  { G_GUINT64_CONSTANT (0xc08886270e5e925c), "-784.769070376245" },
  { G_GUINT64_CONSTANT (0x407fdb3b423be2f4), "509.7019674624746" },
  { G_GUINT64_CONSTANT (0x407e9ae68d541e58), "489.68128712519456" },
  { G_GUINT64_CONSTANT (0xc083858ac9b59fe8), "-624.6927675427842" },
  { G_GUINT64_CONSTANT (0x404c8ab2feb37240), "57.083587491626986" },
  { G_GUINT64_CONSTANT (0xc0565786430ef1f8), "-89.3675696989011" },
  { G_GUINT64_CONSTANT (0x40736cd62a32c858), "310.8022863372512" },
  { G_GUINT64_CONSTANT (0x408824ab983c5d6a), "772.5837864604957" },
  { G_GUINT64_CONSTANT (0xc07dacebb42d2798), "-474.8075448764662" },
  { G_GUINT64_CONSTANT (0x408308a26fb4256a), "609.0793146203916" },
  { G_GUINT64_CONSTANT (0xc08787d7ce425129), "-752.9803738766688" },
  { G_GUINT64_CONSTANT (0x408bb5d31bd2a598), "886.7280804116044" },
  { G_GUINT64_CONSTANT (0xc0827887749abf2e), "-591.0661403741449" },
  { G_GUINT64_CONSTANT (0xc052a370ae9d7ba0), "-74.55375256900015" },
  { G_GUINT64_CONSTANT (0xc0806a8b4ab263b0), "-525.3180135666535" },
  { G_GUINT64_CONSTANT (0x4089f92bd5403cae), "831.146402837612" },
  { G_GUINT64_CONSTANT (0xc06d359f6a6e7eb4), "-233.67570993023912" },
  { G_GUINT64_CONSTANT (0x408a517a42756cce), "842.1846970723943" },
  { G_GUINT64_CONSTANT (0x408bf1ca71dafad6), "894.2238499744224" },
  { G_GUINT64_CONSTANT (0xc07b1ebc0b1426fe), "-433.9209090029907" },
  { G_GUINT64_CONSTANT (0x4052837d03c3fc00), "74.05450529231166" },
  { G_GUINT64_CONSTANT (0xc07fcc4e9fbc186e), "-508.7691953036764" },
  { G_GUINT64_CONSTANT (0xc0570dda3d265180), "-92.21644524328258" },
  { G_GUINT64_CONSTANT (0xc08239d7b8b78c7c), "-583.2303327884433" },
  { G_GUINT64_CONSTANT (0xc080434bd9451a13), "-520.4120355032522" },
  { G_GUINT64_CONSTANT (0x407a0c268088a49c), "416.75939992309736" },
  { G_GUINT64_CONSTANT (0xc08a4a686b104657), "-841.3009854575602" },
  { G_GUINT64_CONSTANT (0x408d401ee736ff0c), "936.0150894447884" },
  { G_GUINT64_CONSTANT (0x4084cef6948dae24), "665.8704005306977" },
  { G_GUINT64_CONSTANT (0xc08d30ab2c524eb0), "-934.0835806303276" },
  { G_GUINT64_CONSTANT (0xc089464590f9072b), "-808.7839679198563" },
  { G_GUINT64_CONSTANT (0x408f2d56fc415870), "997.6674733262171" },
  { G_GUINT64_CONSTANT (0x405510d4304772e0), "84.26295096375861" },
  { G_GUINT64_CONSTANT (0x408bdcd576dfcab8), "891.604230640768" },
  { G_GUINT64_CONSTANT (0xc058adee46204d10), "-98.71766808657071" },
  { G_GUINT64_CONSTANT (0x407a02bf47859e0c), "416.17169906801496" },
  { G_GUINT64_CONSTANT (0x408465943441957a), "652.697365295767" },
  { G_GUINT64_CONSTANT (0x40585e1df6db3380), "97.47057887464871" },
  { G_GUINT64_CONSTANT (0x4081ae38172b773c), "565.7773879428637" },
  { G_GUINT64_CONSTANT (0x40764b088a0e0bb4), "356.68958478438003" },
  { G_GUINT64_CONSTANT (0xc05a0aec83939b88), "-104.1706856671791" },
  { G_GUINT64_CONSTANT (0x4088b6fb5de3d96e), "790.8727376747827" },
  { G_GUINT64_CONSTANT (0x4077381f1df9c960), "371.50759694645785" },
  { G_GUINT64_CONSTANT (0x407cbc1e1c62de28), "459.7573512899421" },
  { G_GUINT64_CONSTANT (0xc08e1867e25d8704), "-963.0507247263745" },
  /* END generated by tests/data/gen-float-repr.py */
};

static void
test_print_repr (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (repr_cases); i++)
    {
      double value = bits_double (repr_cases[i].bits);
      g_autoptr(RegGraph) graph = reg_graph_new ();
      g_autofree char *text = NULL;
      g_autofree char *expected = NULL;
      g_autoptr(RegGraph) parsed = NULL;
      guint k = reg_graph_add_constant (graph, value);

      reg_graph_set_outputs (graph, &k, 1);
      text = reg_graph_to_string (graph);
      expected = g_strdup_printf ("graph():\n  return (%s,)\n", repr_cases[i].repr);
      g_assert_cmpstr (text, ==, expected);

      /* Reading back gives the very same double. */
      parsed = graph_new_from_string (text);
      if (isnan (value))
        g_assert_true (isnan (reg_graph_get_node_value (parsed, 0)));
      else
        g_assert_cmphex (double_bits (reg_graph_get_node_value (parsed, 0)), ==, repr_cases[i].bits);
    }
}

static void
test_print_repr_random (void)
{
  /* Beyond the table: every double reads back exactly from its text, and
   * no shorter text would (the last digit cannot be dropped). */
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);

  for (guint i = 0; i < 5000; i++)
    {
      guint64 bits = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
      double value = bits_double (bits);
      g_autoptr(RegGraph) graph = reg_graph_new ();
      g_autoptr(RegGraph) parsed = NULL;
      g_autofree char *text = NULL;
      guint k;

      if (isnan (value))
        continue;
      k = reg_graph_add_constant (graph, value);
      reg_graph_set_outputs (graph, &k, 1);
      text = reg_graph_to_string (graph);
      parsed = graph_new_from_string (text);
      g_assert_cmphex (double_bits (reg_graph_get_node_value (parsed, 0)), ==, bits);
    }
}

static void
test_print_locale (void)
{
  /* Numbers are printed and read in the C locale whatever the process
   * locale; this test only bites where a comma locale is installed. */
  static const char *locales[] = { "de_DE.UTF-8", "fr_FR.UTF-8", "de_DE", "fr_FR" };
  g_autofree char *old = g_strdup (setlocale (LC_NUMERIC, NULL));
  const char *set = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (locales) && set == NULL; i++)
    set = setlocale (LC_NUMERIC, locales[i]);
  if (set == NULL)
    {
      g_test_skip ("no locale with a decimal comma installed");
      return;
    }

  assert_prints_as ("graph(x):\n  a = add(x, 1.5)\n  b = mul(a, 1.25e-10)\n  return (b,)\n", NULL);
  setlocale (LC_NUMERIC, old);
}

/* ---- Shapes ------------------------------------------------------------- */

/* Shape inference is internal; reg_compiler_compile() runs it before the
 * backend, so a backend that fails on purpose shows whether it passed. */
static RegCompiledFn *
compile_reached (RegGraph   *graph,
                 GPtrArray  *example_inputs,
                 GVariant   *options,
                 gpointer    user_data,
                 GError    **error)
{
  g_set_error_literal (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED, "reached");
  return NULL;
}

static GPtrArray *
tensors_of_shapes (const char *spec)
{
  /* "4x3 3x4 scalar" */
  GPtrArray *tensors = g_ptr_array_new_with_free_func (g_object_unref);
  g_auto(GStrv) items = g_strsplit (spec, " ", -1);

  for (guint i = 0; items[i] != NULL; i++)
    {
      gint64 shape[REG_TENSOR_MAX_DIMS];
      guint n_dims = 0;

      if (items[i][0] == '\0')
        continue;
      if (!g_str_equal (items[i], "scalar"))
        {
          g_auto(GStrv) dims = g_strsplit (items[i], "x", -1);

          for (; dims[n_dims] != NULL; n_dims++)
            shape[n_dims] = g_ascii_strtoll (dims[n_dims], NULL, 10);
        }
      g_ptr_array_add (tensors, reg_tensor_new (shape, n_dims));
    }

  return tensors;
}

typedef struct
{
  const char  *path;
  const char  *text;
  const char  *shapes;
  const char  *result;    /* the shape of the first output, or the error */
} ShapeCase;

static const ShapeCase shape_cases[] = {
  { "example", "graph(x, y):\n  a = mul(x, y)\n  b = add(a, 1.5)\n  c = relu(b)\n  return (c,)\n",
    "4x3 4x3", "[4, 3]" },
  { "constant-left", "graph(x):\n  a = sub(1.0, x)\n  return (a,)\n", "2x5x7", "[2, 5, 7]" },
  { "constant-both", "graph():\n  a = maximum(1.0, 2.0)\n  return (a,)\n", "", "[]" },
  { "unary", "graph(x):\n  a = tanh(x)\n  b = sigmoid(a)\n  return (b,)\n", "0x3", "[0, 3]" },
  { "scalars", "graph(x, y):\n  a = div(x, y)\n  return (a,)\n", "scalar scalar", "[]" },
  { "sum", "graph(x):\n  s = sum(x)\n  t = add(s, 1.0)\n  return (t,)\n", "2x3x4", "[]" },
  { "matmul", "graph(a, b):\n  c = matmul(a, b)\n  d = relu(c)\n  e = matmul(d, a)\n  return (e,)\n",
    "4x4 4x4", "[4, 4]" },
  { "matmul-rect", "graph(a, b):\n  c = matmul(a, b)\n  return (c,)\n", "2x3 3x5", "[2, 5]" },
  { "no-inputs", "graph():\n  return (1.0,)\n", "", "[]" },
  { "input-output", "graph(x, y):\n  return (y,)\n", "1 2x2x2x2x2x2x2x2", "[2, 2, 2, 2, 2, 2, 2, 2]" },
  { "too-few-inputs", "graph(x, y):\n  return (x,)\n", "4",
    "graph has 2 inputs, 1 example input given" },
  { "too-many-inputs", "graph(x):\n  return (x,)\n", "4 4 4",
    "graph has 1 input, 3 example inputs given" },
  { "binary-differ", "graph(x, y):\n  a = add(x, y)\n  return (a,)\n", "4x3 3x4",
    "node 'a': add of [4, 3] and [3, 4]: shapes differ" },
  { "binary-rank", "graph(x, y):\n  a = maximum(x, y)\n  return (a,)\n", "3 1x3",
    "node 'a': maximum of [3] and [1, 3]: shapes differ" },
  { "binary-computed-scalar", "graph(x):\n  s = sum(x)\n  a = mul(x, s)\n  return (a,)\n", "3",
    "node 'a': mul of [3] and []: shapes differ" },
  { "matmul-1d", "graph(x, y):\n  c = matmul(x, y)\n  return (c,)\n", "3 3x4",
    "node 'c': matmul of [3] and [3, 4]: both must have 2 dimensions" },
  { "matmul-constant", "graph(x):\n  c = matmul(x, 2.0)\n  return (c,)\n", "3x3",
    "node 'c': matmul of [3, 3] and []: both must have 2 dimensions" },
  { "matmul-inner", "graph(x, y):\n  c = matmul(x, y)\n  return (c,)\n", "2x3 4x5",
    "node 'c': matmul of [2, 3] and [4, 5]: inner dimensions differ (3 and 4)" },
  { "late-error", "graph(x, y):\n  a = relu(x)\n  b = sub(a, y)\n  return (a,)\n", "5 6",
    "node 'b': sub of [5] and [6]: shapes differ" },
  /* Empty operands whose product is not: a result no tensor can hold is a
   * shape error, whether its element count overflows or its size in
   * bytes does.  Backends wrote through a wild pointer for these. */
  { "matmul-overflow", "graph(a, b):\n  c = matmul(a, b)\n  return (c,)\n",
    "2147483647x0 0x2147483649",
    "node 'c': matmul of [2147483647, 0] and [0, 2147483649]: "
    "the result [2147483647, 2147483649] has more elements than memory can address" },
  { "matmul-overflow-count", "graph(a, b):\n  c = matmul(a, b)\n  return (c,)\n",
    "4294967296x0 0x4294967296",
    "node 'c': matmul of [4294967296, 0] and [0, 4294967296]: "
    "the result [4294967296, 4294967296] has more elements than memory can address" },
  { "matmul-overflow-bytes", "graph(a, b):\n  c = matmul(a, b)\n  return (c,)\n",
    "4611686018427387904x0 0x1",
    "node 'c': matmul of [4611686018427387904, 0] and [0, 1]: "
    "the result [4611686018427387904, 1] has more elements than memory can address" },
  { "matmul-overflow-late", "graph(a, b):\n  c = matmul(a, b)\n  d = relu(c)\n  e = add(d, 1.0)\n  return (e,)\n",
    "9223372036854775807x0 0x9223372036854775807",
    "node 'c': matmul of [9223372036854775807, 0] and [0, 9223372036854775807]: "
    "the result [9223372036854775807, 9223372036854775807] has more elements than memory can address" },
  /* Addressable, whether or not the memory is there: a shape says nothing
   * of the memory a machine has. */
  { "matmul-large", "graph(a, b):\n  c = matmul(a, b)\n  return (c,)\n",
    "1048576x0 0x1048576", "[1048576, 1048576]" },
  { "matmul-largest", "graph(a, b):\n  c = matmul(a, b)\n  return (c,)\n",
    "2305843009213693951x0 0x1", "[2305843009213693951, 1]" },
  { "matmul-just-too-large", "graph(a, b):\n  c = matmul(a, b)\n  return (c,)\n",
    "1x0 0x2305843009213693952",
    "node 'c': matmul of [1, 0] and [0, 2305843009213693952]: "
    "the result [1, 2305843009213693952] has more elements than memory can address" },
  { "matmul-empty-result", "graph(a, b):\n  c = matmul(a, b)\n  return (c,)\n",
    "0x0 0x9223372036854775807", "[0, 9223372036854775807]" },
};

static char *
format_shape (RegShapeList *shapes,
              guint         node)
{
  guint n_dims;
  const gint64 *dims = reg_shape_list_get_shape (shapes, node, &n_dims);
  GString *out = g_string_new ("[");

  for (guint i = 0; i < n_dims; i++)
    g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", dims[i]);
  g_string_append_c (out, ']');

  return g_string_free (out, FALSE);
}

static void
test_shapes (gconstpointer data)
{
  const ShapeCase *c = data;
  g_autoptr(RegGraph) graph = graph_new_from_string (c->text);
  g_autoptr(GPtrArray) examples = tensors_of_shapes (c->shapes);
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("shapes", compile_reached, NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RegShapeList) shapes = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  gboolean fits = c->result[0] == '[';

  shapes = reg_graph_infer_shapes (graph, examples, &error);
  if (fits)
    {
      const guint *outputs = reg_graph_get_outputs (graph, NULL);
      g_autofree char *str = NULL;

      g_assert_no_error (error);
      g_assert_cmpuint (reg_shape_list_get_n_shapes (shapes), ==, reg_graph_get_n_nodes (graph));
      str = format_shape (shapes, outputs[0]);
      g_assert_cmpstr (str, ==, c->result);
    }
  else
    {
      g_assert_null (shapes);
      g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE);
      g_assert_cmpstr (error->message, ==, c->result);
    }
  g_clear_error (&error);

  /* Compiling checks the same, before the backend runs. */
  fn = reg_compiler_compile (compiler, graph, examples, NULL, &error);
  g_assert_null (fn);
  if (fits)
    {
      g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
      g_assert_cmpstr (error->message, ==, "reached");
    }
  else
    {
      g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE);
      g_assert_cmpstr (error->message, ==, c->result);
    }
}

static void
test_shapes_every_node (void)
{
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x, w):\n"
                                        "  h = matmul(x, w)\n"
                                        "  r = relu(h)\n"
                                        "  s = sum(r)\n"
                                        "  return (s,)\n");
  g_autoptr(GPtrArray) examples = tensors_of_shapes ("8x4 4x2");
  g_autoptr(GError) error = NULL;
  g_autoptr(RegShapeList) shapes = reg_graph_infer_shapes (graph, examples, &error);
  g_autoptr(RegShapeList) again = NULL;
  static const char *expected[] = { "[8, 4]", "[4, 2]", "[8, 2]", "[8, 2]", "[]" };
  guint n_dims = 99;

  g_assert_no_error (error);
  g_assert_cmpuint (reg_shape_list_get_n_shapes (shapes), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autofree char *str = format_shape (shapes, i);

      g_assert_cmpstr (str, ==, expected[i]);
    }
  g_assert_nonnull (reg_shape_list_get_shape (shapes, 4, &n_dims));
  g_assert_cmpuint (n_dims, ==, 0);

  /* A boxed type, for the bindings: a copy is a reference. */
  again = g_boxed_copy (REG_TYPE_SHAPE_LIST, shapes);
  g_assert_true (again == shapes);

  if (g_test_subprocess ())
    {
      g_log_set_always_fatal (G_LOG_FATAL_MASK);
      g_assert_null (reg_shape_list_get_shape (shapes, 5, NULL));
      g_assert_null (reg_shape_list_get_shape (NULL, 0, NULL));
      g_assert_cmpuint (reg_shape_list_get_n_shapes (NULL), ==, 0);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*CRITICAL*reg_shape_list_get_shape*index < self->n_shapes*"
                             "*CRITICAL*reg_shape_list_get_shape*self != NULL*"
                             "*CRITICAL*reg_shape_list_get_n_shapes*self != NULL*");
}

static void
test_shapes_builder (void)
{
  /* Builder nodes have no name: the message gives the id. */
  g_autoptr(RegGraph) graph = reg_graph_new ();
  g_autoptr(GPtrArray) examples = tensors_of_shapes ("2x2 3x3");
  g_autoptr(GError) error = NULL;
  g_autoptr(RegShapeList) shapes = NULL;
  guint args[2];
  guint c;

  args[0] = reg_graph_add_input (graph, "a");
  args[1] = reg_graph_add_input (graph, "b");
  c = reg_graph_add_op (graph, "sub", args, 2, NULL);
  reg_graph_set_outputs (graph, &c, 1);

  shapes = reg_graph_infer_shapes (graph, examples, &error);
  g_assert_null (shapes);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE);
  g_assert_cmpstr (error->message, ==, "node 2: sub of [2, 2] and [3, 3]: shapes differ");
}

static void
test_shapes_invalid_graph (void)
{
  /* An invalid graph fails with its own error before shapes are looked at. */
  g_autoptr(RegGraph) graph = reg_graph_new ();
  g_autoptr(GPtrArray) examples = tensors_of_shapes ("2");
  g_autoptr(GError) error = NULL;
  g_autoptr(RegShapeList) shapes = NULL;

  reg_graph_add_input (graph, "x");
  shapes = reg_graph_infer_shapes (graph, examples, &error);
  g_assert_null (shapes);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==, "graph has no outputs (no return)");
  g_clear_error (&error);

  reg_graph_add_input (graph, "x");
  reg_graph_set_outputs (graph, NULL, 0);
  shapes = reg_graph_infer_shapes (graph, examples, &error);
  g_assert_null (shapes);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_REDEFINED);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/graph/builder/basic", test_builder_basic);
  g_test_add_func ("/graph/builder/getters", test_builder_getters);
  g_test_add_func ("/graph/builder/empty", test_builder_empty);
  g_test_add_func ("/graph/builder/outputs", test_builder_outputs);
  g_test_add_func ("/graph/builder/constants", test_builder_constants);
  g_test_add_func ("/graph/builder/generated-names", test_builder_generated_names);
  g_test_add_func ("/graph/builder/late-input", test_builder_late_input);
  g_test_add_func ("/graph/builder/good-names", test_builder_good_names);
  g_test_add_func ("/graph/builder/error/unknown-op", test_builder_error_unknown_op);
  g_test_add_func ("/graph/builder/error/arity", test_builder_error_arity);
  g_test_add_func ("/graph/builder/error/undefined", test_builder_error_undefined);
  g_test_add_func ("/graph/builder/sticky/bad-name", test_builder_sticky_bad_name);
  g_test_add_func ("/graph/builder/sticky/redefined", test_builder_sticky_redefined);
  g_test_add_func ("/graph/builder/sticky/redefined-parsed", test_builder_sticky_redefined_parsed);
  g_test_add_func ("/graph/builder/sticky/undefined-output", test_builder_sticky_undefined_output);
  g_test_add_func ("/graph/builder/sticky/invalid-output", test_builder_sticky_invalid_output);
  g_test_add_func ("/graph/builder/sticky/first-kept", test_builder_sticky_first_kept);
  g_test_add_func ("/graph/builder/guards", test_builder_guards);
  g_test_add_func ("/graph/builder/name/basic", test_builder_named_calls);
  g_test_add_func ("/graph/builder/name/errors", test_builder_name_errors);
  g_test_add_func ("/graph/builder/name/guards", test_builder_name_guards);
  g_test_add_func ("/graph/builder/copy", test_builder_copy);

  g_test_add_func ("/graph/parse/example", test_parse_example);
  g_test_add_func ("/graph/parse/constants", test_parse_constants);
  g_test_add_func ("/graph/parse/numbers", test_parse_numbers);
  g_test_add_func ("/graph/parse/nan", test_parse_nan);
  g_test_add_func ("/graph/parse/flexible", test_parse_flexible);
  g_test_add_func ("/graph/parse/return-forms", test_parse_return_forms);
  g_test_add_func ("/graph/parse/roundtrip", test_parse_roundtrip);
  for (guint i = 0; i < G_N_ELEMENTS (parse_error_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/graph/parse/error/%s", parse_error_cases[i].path);

      g_test_add_data_func (path, &parse_error_cases[i], test_parse_error);
    }
  g_test_add_func ("/graph/parse/error/corpus", test_parse_bad_corpus);
  g_test_add_func ("/graph/parse/error/huge-line", test_parse_huge_line);
  g_test_add_func ("/graph/parse/large", test_parse_large);
  g_test_add_func ("/graph/parse/large-wide", test_parse_large_wide);
  g_test_add_func ("/graph/parse/fuzz", test_parse_fuzz);

  g_test_add_func ("/graph/print/repr", test_print_repr);
  g_test_add_func ("/graph/print/repr-random", test_print_repr_random);
  g_test_add_func ("/graph/print/locale", test_print_locale);

  for (guint i = 0; i < G_N_ELEMENTS (shape_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/graph/shapes/%s", shape_cases[i].path);

      g_test_add_data_func (path, &shape_cases[i], test_shapes);
    }
  g_test_add_func ("/graph/shapes/every-node", test_shapes_every_node);
  g_test_add_func ("/graph/shapes/builder-node", test_shapes_builder);
  g_test_add_func ("/graph/shapes/invalid-graph", test_shapes_invalid_graph);

  return g_test_run ();
}
