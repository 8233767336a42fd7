/* test-op.c: RegOp, the operator table
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include <reg.h>

#include "test-objects.h"

/* The operators as the graph documentation lists them: name, number of
 * arguments and shape rule. */
static const struct {
  const char *name;
  guint       arity;
  RegOpKind   kind;
} documented[] = {
  { "add",     2, REG_OP_KIND_ELEMENTWISE_BINARY },
  { "sub",     2, REG_OP_KIND_ELEMENTWISE_BINARY },
  { "mul",     2, REG_OP_KIND_ELEMENTWISE_BINARY },
  { "div",     2, REG_OP_KIND_ELEMENTWISE_BINARY },
  { "maximum", 2, REG_OP_KIND_ELEMENTWISE_BINARY },
  { "minimum", 2, REG_OP_KIND_ELEMENTWISE_BINARY },
  { "neg",     1, REG_OP_KIND_ELEMENTWISE_UNARY },
  { "relu",    1, REG_OP_KIND_ELEMENTWISE_UNARY },
  { "exp",     1, REG_OP_KIND_ELEMENTWISE_UNARY },
  { "log",     1, REG_OP_KIND_ELEMENTWISE_UNARY },
  { "sqrt",    1, REG_OP_KIND_ELEMENTWISE_UNARY },
  { "tanh",    1, REG_OP_KIND_ELEMENTWISE_UNARY },
  { "sigmoid", 1, REG_OP_KIND_ELEMENTWISE_UNARY },
  { "abs",     1, REG_OP_KIND_ELEMENTWISE_UNARY },
  { "sum",     1, REG_OP_KIND_REDUCTION },
  { "matmul",  2, REG_OP_KIND_MATMUL },
};

/* A graph of one call of @name on the first @n_args of its inputs x, y, z,
 * in the text form. */
static char *
one_call_text (const char *name,
               guint       n_args)
{
  static const char * const args[] = { "x", "x, y", "x, y, z" };

  g_assert (n_args >= 1 && n_args <= G_N_ELEMENTS (args));

  return g_strdup_printf ("graph(x, y, z):\n"
                          "  r = %s(%s)\n"
                          "  return (r,)\n", name, args[n_args - 1]);
}

static void
test_op_types (void)
{
  g_assert_true (G_TYPE_IS_ENUM (REG_TYPE_OP));
  g_assert_cmpstr (g_type_name (REG_TYPE_OP), ==, "RegOp");
  g_assert_true (G_TYPE_IS_ENUM (REG_TYPE_OP_KIND));
  g_assert_cmpstr (g_type_name (REG_TYPE_OP_KIND), ==, "RegOpKind");
}

static void
test_op_nicks (void)
{
  /* Every value, in order, with the documented name as its nick; the name
   * is what reg_op_get_name() gives and reg_op_from_name() takes. */
  g_autoptr(GEnumClass) ops = g_type_class_ref (REG_TYPE_OP);

  g_assert_cmpuint (ops->n_values, ==, G_N_ELEMENTS (documented));

  for (guint i = 0; i < ops->n_values; i++)
    {
      const GEnumValue *value = &ops->values[i];
      RegOp op = (RegOp) -1;

      g_assert_cmpint (value->value, ==, (int) i);
      g_assert_cmpstr (value->value_nick, ==, documented[i].name);
      g_assert_cmpstr (reg_op_get_name (value->value), ==, value->value_nick);
      /* Interned, so comparable by pointer */
      g_assert_true (reg_op_get_name (value->value) == g_intern_string (value->value_nick));

      g_assert_true (reg_op_from_name (value->value_nick, &op));
      g_assert_cmpint (op, ==, value->value);
      g_assert_true (reg_op_from_name (value->value_nick, NULL));
    }
}

static void
test_op_parser_accepts (void)
{
  /* The parser knows each operator by its nick, and its arity. */
  g_autoptr(GEnumClass) ops = g_type_class_ref (REG_TYPE_OP);

  for (guint i = 0; i < ops->n_values; i++)
    {
      RegOp op = ops->values[i].value;
      guint arity = reg_op_get_arity (op);
      g_autofree char *text = one_call_text (ops->values[i].value_nick, arity);
      g_autofree char *wrong = one_call_text (ops->values[i].value_nick, arity == 1 ? 2 : 3);
      g_autoptr(RegGraph) graph = graph_new_from_string (text);
      g_autoptr(RegGraph) bad = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *printed = reg_graph_to_string (graph);

      g_assert_cmpint (reg_graph_get_node_kind (graph, 3), ==, REG_NODE_OP);
      g_assert_cmpint (reg_graph_get_node_operator (graph, 3), ==, op);
      g_assert_true (reg_graph_get_node_op (graph, 3) == reg_op_get_name (op));
      g_assert_cmpstr (printed, ==, text);

      bad = reg_graph_new_from_string (wrong, &error);
      g_assert_null (bad);
      g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_ARITY);
    }
}

static void
test_op_arity_kind (void)
{
  g_autoptr(GEnumClass) kinds = g_type_class_ref (REG_TYPE_OP_KIND);
  static const char * const kind_nicks[] = {
    "elementwise-unary", "elementwise-binary", "reduction", "matmul",
  };

  for (guint i = 0; i < G_N_ELEMENTS (documented); i++)
    {
      RegOp op;

      g_assert_true (reg_op_from_name (documented[i].name, &op));
      g_assert_cmpuint (reg_op_get_arity (op), ==, documented[i].arity);
      g_assert_cmpint (reg_op_get_kind (op), ==, documented[i].kind);
    }

  g_assert_cmpuint (kinds->n_values, ==, G_N_ELEMENTS (kind_nicks));
  for (guint i = 0; i < kinds->n_values; i++)
    g_assert_cmpstr (g_enum_get_value (kinds, (int) i)->value_nick, ==, kind_nicks[i]);
}

/* The shape of @op's result for arguments shaped @a and @b (NULL for a
 * unary operator), as "[2, 4]", or the error code, as "error N". */
static char *
infer (RegOp       op,
       const gint64 *a,
       guint        a_dims,
       const gint64 *b,
       guint        b_dims)
{
  g_autoptr(RegGraph) graph = reg_graph_new ();
  g_autoptr(GPtrArray) examples = tensor_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RegShapeList) shapes = NULL;
  guint args[2];
  guint n_args = 0;
  guint id;
  const gint64 *dims;
  guint n_dims;

  args[n_args++] = reg_graph_add_input (graph, "a");
  g_ptr_array_add (examples, reg_tensor_new (a, a_dims));
  if (b != NULL)
    {
      args[n_args++] = reg_graph_add_input (graph, "b");
      g_ptr_array_add (examples, reg_tensor_new (b, b_dims));
    }
  id = reg_graph_add_op (graph, reg_op_get_name (op), args, n_args, &error);
  g_assert_no_error (error);
  reg_graph_set_outputs (graph, &id, 1);

  shapes = reg_graph_infer_shapes (graph, examples, &error);
  if (shapes == NULL)
    {
      g_assert_nonnull (error);
      g_assert_true (error->domain == REG_GRAPH_ERROR);
      return g_strdup_printf ("error %d", error->code);
    }

  dims = reg_shape_list_get_shape (shapes, id, &n_dims);
  {
    GString *out = g_string_new ("[");

    for (guint i = 0; i < n_dims; i++)
      g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", dims[i]);
    g_string_append_c (out, ']');

    return g_string_free (out, FALSE);
  }
}

static void
test_op_shape_rules (void)
{
  /* Shape inference follows each operator's kind. */
  static const gint64 m23[] = { 2, 3 }, m34[] = { 3, 4 }, m32[] = { 3, 2 };
  static const gint64 v5[] = { 5 };
  g_autofree char *shape_error = g_strdup_printf ("error %d", REG_GRAPH_ERROR_SHAPE);
  g_autoptr(GEnumClass) ops = g_type_class_ref (REG_TYPE_OP);

  for (guint i = 0; i < ops->n_values; i++)
    {
      RegOp op = ops->values[i].value;
      g_autofree char *same = NULL, *other = NULL, *vector = NULL;

      g_test_message ("%s", reg_op_get_name (op));
      switch (reg_op_get_kind (op))
        {
        case REG_OP_KIND_ELEMENTWISE_UNARY:
          same = infer (op, m23, 2, NULL, 0);
          g_assert_cmpstr (same, ==, "[2, 3]");
          vector = infer (op, v5, 1, NULL, 0);
          g_assert_cmpstr (vector, ==, "[5]");
          break;

        case REG_OP_KIND_ELEMENTWISE_BINARY:
          same = infer (op, m23, 2, m23, 2);
          g_assert_cmpstr (same, ==, "[2, 3]");
          other = infer (op, m23, 2, m32, 2);
          g_assert_cmpstr (other, ==, shape_error);
          break;

        case REG_OP_KIND_REDUCTION:
          same = infer (op, m23, 2, NULL, 0);
          g_assert_cmpstr (same, ==, "[]");
          vector = infer (op, v5, 1, NULL, 0);
          g_assert_cmpstr (vector, ==, "[]");
          break;

        case REG_OP_KIND_MATMUL:
          same = infer (op, m23, 2, m34, 2);
          g_assert_cmpstr (same, ==, "[2, 4]");
          other = infer (op, m23, 2, m23, 2);
          g_assert_cmpstr (other, ==, shape_error);
          vector = infer (op, v5, 1, m34, 2);
          g_assert_cmpstr (vector, ==, shape_error);
          break;

        default:
          g_assert_not_reached ();
        }
    }
}

static void
test_op_unknown_names (void)
{
  /* Names are exact: no case folding, prefixes, padding or aliases. */
  static const char * const unknown[] = {
    "", "softmax", "Relu", "MATMUL", "rel", "relu ", " relu", "sum2",
    "REG_OP_ADD", "mat_mul", "maximum\n", "add\xff",
  };

  g_autoptr(RegGraph) builder = reg_graph_new ();

  for (guint i = 0; i < G_N_ELEMENTS (unknown); i++)
    {
      RegOp op = (RegOp) 77;
      g_autofree char *text = one_call_text (unknown[i], 1);
      g_autoptr(RegGraph) graph = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_false (reg_op_from_name (unknown[i], &op));
      g_assert_cmpint (op, ==, 77);  /* untouched */
      g_assert_false (reg_op_from_name (unknown[i], NULL));

      g_assert_cmpuint (reg_graph_add_op (builder, unknown[i], NULL, 0, &error),
                        ==, REG_GRAPH_INVALID_NODE);
      g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNKNOWN_OP);
      g_clear_error (&error);

      /* Not a word of the text form, or an unknown operator there; white
       * space around a word is free in the text, so "relu " is relu. */
      if (strpbrk (unknown[i], " \n") != NULL)
        continue;
      graph = reg_graph_new_from_string (text, &error);
      g_assert_null (graph);
      g_assert_true (g_error_matches (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNKNOWN_OP) ||
                     g_error_matches (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_PARSE));
    }

  g_assert_cmpuint (reg_graph_get_n_nodes (builder), ==, 0);
}

static void
test_op_guards (void)
{
  if (g_test_subprocess ())
    {
      RegOp op = REG_OP_SUM;

      g_log_set_always_fatal (G_LOG_FATAL_MASK);
      g_assert_null (reg_op_get_name ((RegOp) 16));
      g_assert_cmpuint (reg_op_get_arity ((RegOp) -1), ==, 0);
      g_assert_cmpint (reg_op_get_kind ((RegOp) G_MAXINT), ==, REG_OP_KIND_ELEMENTWISE_UNARY);
      g_assert_false (reg_op_from_name (NULL, &op));
      g_assert_cmpint (op, ==, REG_OP_SUM);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*CRITICAL*reg_op_get_name*_reg_op_is_valid*"
                             "*CRITICAL*reg_op_get_arity*_reg_op_is_valid*"
                             "*CRITICAL*reg_op_get_kind*_reg_op_is_valid*"
                             "*CRITICAL*reg_op_from_name*name != NULL*");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/op/types", test_op_types);
  g_test_add_func ("/op/nicks", test_op_nicks);
  g_test_add_func ("/op/parser-accepts", test_op_parser_accepts);
  g_test_add_func ("/op/arity-kind", test_op_arity_kind);
  g_test_add_func ("/op/shape-rules", test_op_shape_rules);
  g_test_add_func ("/op/unknown-names", test_op_unknown_names);
  g_test_add_func ("/op/guards", test_op_guards);

  return g_test_run ();
}
