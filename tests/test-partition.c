/* test-partition.c: backends that take part of a graph, and the
 * partitioned functions the registry makes of them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * TestPartial takes the operators it is given (matmul and add, the
 * operators of the accelerator these tests stand for) and computes with
 * the eager module; every result is compared with eager's for the whole
 * graph.
 */

#include <string.h>

#include <reg.h>

#include "test-objects.h"

#define OP(op) (1u << (op))
#define MATMUL_ADD (OP (REG_OP_MATMUL) | OP (REG_OP_ADD))

/* How TestPartial's dup_supported_nodes answers. */
typedef enum
{
  CAPABILITY_TRUTH,        /* the nodes it takes */
  CAPABILITY_NONE,         /* NULL: every node */
  CAPABILITY_LIE,          /* the nodes of `claims`, which it may refuse */
  CAPABILITY_OUT_OF_RANGE, /* a node the graph does not have */
  CAPABILITY_INPUT,        /* an input node */
  CAPABILITY_WRONG_TYPE,   /* an `as` variant */
  CAPABILITY_ERROR,        /* fails */
} Capability;

#define TEST_TYPE_PARTIAL (test_partial_get_type ())
G_DECLARE_FINAL_TYPE (TestPartial, test_partial, TEST, PARTIAL, GObject)

struct _TestPartial
{
  GObject           parent_instance;
  char             *name;
  RegCompiler      *eager;
  guint32           takes;     /* OP () of the operators it compiles */
  guint32           claims;    /* those it says it takes, for CAPABILITY_LIE */
  Capability        capability;
  RegCompilerFlags  flags;
  gint              compiles;  /* atomic */
  GCancellable     *cancel_on_compile;  /* nullable: cancelled by every compile */
};

static gboolean
takes_node (RegGraph *graph,
            guint     node,
            guint32   ops)
{
  return reg_graph_get_node_kind (graph, node) == REG_NODE_OP &&
         (ops & OP (reg_graph_get_node_operator (graph, node))) != 0;
}

static RegCompiledFn *
test_partial_compile (RegCompiler  *compiler,
                      RegGraph     *graph,
                      GPtrArray    *example_inputs,
                      GVariant     *options,
                      GError      **error)
{
  TestPartial *self = TEST_PARTIAL (compiler);

  g_atomic_int_inc (&self->compiles);
  if (self->cancel_on_compile != NULL)
    g_cancellable_cancel (self->cancel_on_compile);
  for (guint i = 0; i < reg_graph_get_n_nodes (graph); i++)
    if (reg_graph_get_node_kind (graph, i) == REG_NODE_OP && !takes_node (graph, i, self->takes))
      {
        g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP,
                     "%s: no %s (node %u)", self->name, reg_graph_get_node_op (graph, i), i);
        return NULL;
      }

  return REG_COMPILER_GET_IFACE (self->eager)->compile (self->eager, graph, example_inputs,
                                                         NULL, error);
}

static GVariant *
test_partial_dup_supported_nodes (RegCompiler  *compiler,
                                  RegGraph     *graph,
                                  GPtrArray    *example_inputs,
                                  GError      **error)
{
  TestPartial *self = TEST_PARTIAL (compiler);
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint32 ops = self->capability == CAPABILITY_LIE ? self->claims : self->takes;

  switch (self->capability)
    {
    case CAPABILITY_NONE:
      return NULL;
    case CAPABILITY_OUT_OF_RANGE:
      return g_variant_new_parsed ("[@u 2, %u]", reg_graph_get_n_nodes (graph));
    case CAPABILITY_INPUT:
      return g_variant_new_parsed ("[@u %u]", reg_graph_get_inputs (graph, NULL)[0]);
    case CAPABILITY_WRONG_TYPE:
      return g_variant_new_parsed ("['0']");
    case CAPABILITY_ERROR:
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED, "%s: cannot tell", self->name);
      return NULL;
    default:
      break;
    }

  for (guint i = 0; i < reg_graph_get_n_nodes (graph); i++)
    if (takes_node (graph, i, ops))
      g_array_append_val (ids, i);

  return g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, ids->data, ids->len, sizeof (guint32));
}

static char *
test_partial_dup_name (RegCompiler *compiler)
{
  return g_strdup (TEST_PARTIAL (compiler)->name);
}

static RegCompilerFlags
test_partial_get_flags (RegCompiler *compiler)
{
  return TEST_PARTIAL (compiler)->flags;
}

static void
test_partial_iface_init (RegCompilerInterface *iface)
{
  iface->compile = test_partial_compile;
  iface->dup_name = test_partial_dup_name;
  iface->get_flags = test_partial_get_flags;
  iface->dup_supported_nodes = test_partial_dup_supported_nodes;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestPartial, test_partial, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILER, test_partial_iface_init))

static void
test_partial_finalize (GObject *object)
{
  TestPartial *self = TEST_PARTIAL (object);

  g_free (self->name);
  g_clear_object (&self->eager);

  G_OBJECT_CLASS (test_partial_parent_class)->finalize (object);
}

static void
test_partial_class_init (TestPartialClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_partial_finalize;
}

static void
test_partial_init (TestPartial *self)
{
}

/* What the fallback signal said: "FAILED->NEXT: MESSAGE". */
static void
on_fallback (RegRegistry  *registry,
             const char   *failed,
             const char   *next,
             const GError *error,
             gpointer      user_data)
{
  g_ptr_array_add (user_data, g_strdup_printf ("%s->%s: %s", failed, next, error->message));
}

typedef struct
{
  RegRegistry *registry;
  TestPartial *dsp;        /* takes matmul and add */
  GPtrArray   *heard;      /* what the fallback signal said */
} Fixture;

static TestPartial *
add_partial (Fixture    *f,
             const char *name,
             guint32     takes)
{
  g_autoptr(GError) error = NULL;
  TestPartial *partial = g_object_new (TEST_TYPE_PARTIAL, NULL);

  partial->name = g_strdup (name);
  partial->takes = takes;
  partial->eager = reg_registry_lookup_backend (f->registry, "eager", &error);
  g_assert_no_error (error);
  g_assert_true (reg_registry_register_backend (f->registry, NULL, REG_COMPILER (partial),
                                                NULL, &error));
  g_assert_no_error (error);

  return partial;
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->registry = reg_registry_new ();
  reg_registry_set_fallback_backends (f->registry, (const char *[]) { "eager", NULL });
  f->dsp = add_partial (f, "dsp", MATMUL_ADD);
  f->heard = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (f->registry, "fallback", G_CALLBACK (on_fallback), f->heard);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_ptr_array_unref (f->heard);
  g_object_unref (f->dsp);
  g_object_unref (f->registry);
}

/* Inputs for @graph: every one 3x3, values in [-1, 1). */
static GPtrArray *
inputs_for (RegGraph *graph)
{
  GPtrArray *inputs = tensor_array_new ();
  guint n_inputs;

  reg_graph_get_inputs (graph, &n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    g_ptr_array_add (inputs, tensor_new_uniform ((const gint64[]) { 3, 3 }, 2, -1.0, 1.0));

  return inputs;
}

/* "dsp[m] eager[r] dsp[a b]": the groups of @fn's placement, each node
 * by its name in @graph, or "whole" for a function that is not
 * partitioned. */
static char *
placement_of (RegCompiledFn *fn,
              RegGraph      *graph)
{
  g_autoptr(GVariant) placement = reg_compiled_fn_dup_placement (fn);
  GString *out = g_string_new (NULL);
  GVariantIter iter;
  const char *backend;
  GVariant *nodes;

  if (placement == NULL)
    return g_string_free (g_string_append (out, "whole"), FALSE);

  g_assert_true (g_variant_is_of_type (placement, G_VARIANT_TYPE ("a(sau)")));
  g_variant_iter_init (&iter, placement);
  while (g_variant_iter_loop (&iter, "(&s@au)", &backend, &nodes))
    {
      gsize n;
      const guint32 *ids = g_variant_get_fixed_array (nodes, &n, sizeof (guint32));

      g_string_append_printf (out, "%s%s[", out->len > 0 ? " " : "", backend);
      for (gsize i = 0; i < n; i++)
        {
          const char *name = reg_graph_get_node_name (graph, ids[i]);

          if (name != NULL)
            g_string_append_printf (out, "%s%s", i > 0 ? " " : "", name);
          else
            g_string_append_printf (out, "%s%u", i > 0 ? " " : "", ids[i]);
        }
      g_string_append_c (out, ']');
    }

  return g_string_free (out, FALSE);
}

/* Whether @got are the outputs eager gives for @graph and @inputs. */
static void
assert_outputs_equal_eager (Fixture   *f,
                            RegGraph  *graph,
                            GPtrArray *inputs,
                            GPtrArray *got)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) eager = reg_registry_compile (f->registry, "eager", graph, inputs,
                                                         NULL, &error);
  g_autoptr(GPtrArray) want = NULL;

  g_assert_no_error (error);
  want = reg_compiled_fn_call (eager, inputs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (got->len, ==, want->len);
  for (guint i = 0; i < got->len; i++)
    g_assert_true (reg_tensor_allclose (got->pdata[i], want->pdata[i], 1e-6, 1e-6));
}

/* Compiles @text on dsp, checks the results against eager's and returns
 * the placement (placement_of()). */
static char *
compile_checked (Fixture    *f,
                 const char *text)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (text);
  g_autoptr(GPtrArray) inputs = inputs_for (graph);
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) fn = reg_registry_compile (f->registry, "dsp", graph, inputs,
                                                      NULL, &error);
  g_autoptr(GPtrArray) outputs = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (reg_compiled_fn_get_backend (fn), ==, "dsp");
  outputs = reg_compiled_fn_call (fn, inputs, &error);
  g_assert_no_error (error);
  assert_outputs_equal_eager (f, graph, inputs, outputs);

  return placement_of (fn, graph);
}

/* The graph of the done criterion: matmul and add on dsp, relu and sum on
 * the fallback, in the order the dependencies ask for. */
static void
test_chain (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *placement = compile_checked (f,
    "graph(x, y):\n"
    "  m = matmul(x, y)\n"
    "  r = relu(m)\n"
    "  a = add(r, x)\n"
    "  s = sum(a)\n"
    "  return (s,)\n");

  g_assert_cmpstr (placement, ==, "dsp[m] eager[r] dsp[a] eager[s]");
  /* Announced once, naming the backends used and what dsp does not take. */
  g_assert_cmpuint (f->heard->len, ==, 1);
  g_assert_cmpstr (f->heard->pdata[0], ==, "dsp->eager: backend 'dsp' does not take relu, sum");
}

/* A node used by two branches that meet again; the branch of dsp's nodes
 * runs with the node that joins them. */
static void
test_diamond (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *placement = compile_checked (f,
    "graph(x, y):\n"
    "  m = matmul(x, y)\n"
    "  r = relu(m)\n"
    "  c = add(m, m)\n"
    "  d = add(r, c)\n"
    "  return (d,)\n");

  g_assert_cmpstr (placement, ==, "dsp[m] eager[r] dsp[c d]");
}

/* A node dsp takes between two it does not: three groups. */
static void
test_sandwich (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *placement = compile_checked (f,
    "graph(x, y):\n"
    "  r = relu(x)\n"
    "  a = add(r, y)\n"
    "  e = tanh(a)\n"
    "  return (e,)\n");

  g_assert_cmpstr (placement, ==, "eager[r] dsp[a] eager[e]");
}

/* Grouping m and a would make a group that both feeds r and depends on
 * it: the rule keeps them apart. */
static void
test_no_cycle (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *placement = compile_checked (f,
    "graph(x, y):\n"
    "  m = matmul(x, y)\n"
    "  r = relu(m)\n"
    "  a = add(r, m)\n"
    "  return (a,)\n");

  g_assert_cmpstr (placement, ==, "dsp[m] eager[r] dsp[a]");
}

/* Independent nodes of one kind share a group, whichever comes first in
 * the graph: a node that only feeds an output joins the last group of its
 * kind. */
static void
test_independent (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *placement = compile_checked (f,
    "graph(x, y):\n"
    "  m = matmul(x, y)\n"
    "  r = relu(x)\n"
    "  a = add(r, y)\n"
    "  return (m, a)\n");

  g_assert_cmpstr (placement, ==, "eager[r] dsp[m a]");
}

/* Outputs of several groups, an output twice, an input and a constant as
 * outputs, and a constant argument copied into the group that uses it. */
static void
test_outputs (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *placement = compile_checked (f,
    "graph(x, y):\n"
    "  m = matmul(x, y)\n"
    "  r = relu(m)\n"
    "  a = add(r, 0.5)\n"
    "  s = sum(a)\n"
    "  return (m, x, r, 2.5, a, s, m)\n");

  g_assert_cmpstr (placement, ==, "dsp[m] eager[r] dsp[a] eager[s]");
}

/* Random graphs of every operator kind, dsp taking matmul and add: the
 * results are eager's, every operator node runs once, on a backend that
 * takes it, after the groups of its arguments. */
static void
test_random (Fixture       *f,
             gconstpointer  data)
{
  for (guint round = 0; round < 200; round++)
    {
      g_autoptr(RegGraph) graph = reg_graph_new ();
      g_autoptr(GArray) matrices = g_array_new (FALSE, FALSE, sizeof (guint));
      g_autoptr(GArray) scalars = g_array_new (FALSE, FALSE, sizeof (guint));
      g_autoptr(GArray) outputs = g_array_new (FALSE, FALSE, sizeof (guint));
      g_autoptr(GPtrArray) inputs = NULL;
      g_autoptr(GPtrArray) got = NULL;
      g_autoptr(RegCompiledFn) fn = NULL;
      g_autoptr(GVariant) placement = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree guint *group_of = NULL;
      guint n_ops = g_test_rand_int_range (1, 30);

      for (guint i = 0; i < 2; i++)
        {
          guint id = reg_graph_add_input (graph, i == 0 ? "x" : "y");

          g_array_append_val (matrices, id);
        }
      for (guint k = 0; k < n_ops; k++)
        {
          static const char * const matrix_ops[] = { "matmul", "add", "add", "relu", "tanh", "sub", "sum" };
          const char *op = matrix_ops[g_test_rand_int_range (0, G_N_ELEMENTS (matrix_ops))];
          guint a = g_array_index (matrices, guint, g_test_rand_int_range (0, matrices->len));
          guint b = g_array_index (matrices, guint, g_test_rand_int_range (0, matrices->len));
          guint args[2] = { a, b };
          guint id;

          if (g_str_equal (op, "add") && g_test_rand_bit ())
            args[1] = reg_graph_add_constant (graph, 0.25);
          if (g_str_equal (op, "sum") && scalars->len > 0 && g_test_rand_bit ())
            {
              op = "add";
              args[0] = g_array_index (scalars, guint, g_test_rand_int_range (0, scalars->len));
              args[1] = g_array_index (scalars, guint, g_test_rand_int_range (0, scalars->len));
            }
          id = reg_graph_add_op (graph, op, args,
                                 g_str_equal (op, "relu") || g_str_equal (op, "tanh") ||
                                 g_str_equal (op, "sum") ? 1 : 2, &error);
          g_assert_no_error (error);
          g_array_append_val (g_str_equal (op, "sum") || args[0] != a ? scalars : matrices, id);
          if (g_test_rand_int_range (0, 4) == 0)
            g_array_append_val (outputs, id);
        }
      g_array_append_val (outputs, g_array_index (matrices, guint, matrices->len - 1));
      reg_graph_set_outputs (graph, (const guint *) outputs->data, outputs->len);

      inputs = inputs_for (graph);
      fn = reg_registry_compile (f->registry, "dsp", graph, inputs, NULL, &error);
      g_assert_no_error (error);
      got = reg_compiled_fn_call (fn, inputs, &error);
      g_assert_no_error (error);
      assert_outputs_equal_eager (f, graph, inputs, got);

      placement = reg_compiled_fn_dup_placement (fn);
      if (placement == NULL)
        continue;
      group_of = g_new (guint, reg_graph_get_n_nodes (graph));
      memset (group_of, 0xff, reg_graph_get_n_nodes (graph) * sizeof (guint));
      for (guint g = 0; g < g_variant_n_children (placement); g++)
        {
          const char *backend;
          g_autoptr(GVariant) nodes = NULL;
          const guint32 *ids;
          gsize n;

          g_variant_get_child (placement, g, "(&s@au)", &backend, &nodes);
          ids = g_variant_get_fixed_array (nodes, &n, sizeof (guint32));
          for (gsize k = 0; k < n; k++)
            {
              const guint *args;
              guint n_args;

              g_assert_cmpuint (group_of[ids[k]], ==, G_MAXUINT);
              group_of[ids[k]] = g;
              g_assert_cmpint (takes_node (graph, ids[k], MATMUL_ADD), ==, g_str_equal (backend, "dsp"));
              args = reg_graph_get_node_args (graph, ids[k], &n_args);
              for (guint j = 0; j < n_args; j++)
                if (reg_graph_get_node_kind (graph, args[j]) == REG_NODE_OP)
                  g_assert_cmpuint (group_of[args[j]], <=, g);
            }
        }
      for (guint i = 0; i < reg_graph_get_n_nodes (graph); i++)
        g_assert_true ((group_of[i] != G_MAXUINT) == (reg_graph_get_node_kind (graph, i) == REG_NODE_OP));
      g_clear_pointer (&group_of, g_free);
    }
}

/* A backend that takes every node, or none: no partition. */
static void
test_all_or_nothing (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *all = compile_checked (f,
    "graph(x, y):\n"
    "  m = matmul(x, y)\n"
    "  a = add(m, x)\n"
    "  return (a,)\n");
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x):\n  r = relu(x)\n  return (r,)\n");
  g_autoptr(GPtrArray) inputs = inputs_for (graph);
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;

  g_assert_cmpstr (all, ==, "whole");
  g_assert_cmpuint (f->heard->len, ==, 0);

  /* The whole graph falls back, as before partial backends. */
  g_test_expect_message ("Reg", G_LOG_LEVEL_MESSAGE,
                         "backend 'dsp' cannot compile the graph (backend 'dsp' does not take "
                         "relu); falling back to 'eager'");
  fn = reg_registry_compile (f->registry, "dsp", graph, inputs, NULL, &error);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_cmpstr (reg_compiled_fn_get_backend (fn), ==, "eager");
  g_assert_null (reg_compiled_fn_dup_placement (fn));
  g_assert_cmpuint (f->heard->len, ==, 1);
  g_assert_cmpstr (f->heard->pdata[0], ==, "dsp->eager: backend 'dsp' does not take relu");
  g_assert_cmpint (f->dsp->compiles, ==, 1);  /* the graph it took whole */
}

static const char *mixed_text =
  "graph(x, y):\n"
  "  m = matmul(x, y)\n"
  "  r = relu(m)\n"
  "  a = add(r, x)\n"
  "  s = sum(a)\n"
  "  return (s,)\n";

/* Strict: no partition, no fallback; the error names every operator dsp
 * does not take.  REG_STRICT=1 sets it. */
static void
test_strict (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (mixed_text);
  g_autoptr(GPtrArray) inputs = inputs_for (graph);
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(RegRegistry) from_env = NULL;
  guint notified = 0;

  g_signal_connect_swapped (f->registry, "notify::strict", G_CALLBACK (g_atomic_int_inc), &notified);
  reg_registry_set_strict (f->registry, TRUE);
  reg_registry_set_strict (f->registry, TRUE);
  g_assert_cmpuint (notified, ==, 1);
  g_assert_true (reg_registry_get_strict (f->registry));

  fn = reg_registry_compile (f->registry, "dsp", graph, inputs, NULL, &error);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  g_assert_cmpstr (error->message, ==, "backend 'dsp' does not take relu, sum (the registry "
                   "is strict: nothing else runs them)");
  g_assert_null (fn);
  g_assert_cmpuint (f->heard->len, ==, 0);
  g_assert_cmpint (f->dsp->compiles, ==, 0);

  /* No fallback either, whatever the backend's failure. */
  f->dsp->capability = CAPABILITY_NONE;
  g_clear_error (&error);
  fn = reg_registry_compile (f->registry, "dsp", graph, inputs, NULL, &error);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  g_assert_cmpstr (error->message, ==, "dsp: no relu (node 3)");
  g_assert_cmpuint (f->heard->len, ==, 0);

  g_setenv ("REG_STRICT", "1", TRUE);
  from_env = reg_registry_new ();
  g_unsetenv ("REG_STRICT");
  g_assert_true (reg_registry_get_strict (from_env));
}

/* A node claimed and then refused: the partitioned compile fails, and the
 * graph falls back whole. */
static void
test_lying_capability (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (mixed_text);
  g_autoptr(GPtrArray) inputs = inputs_for (graph);
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;

  f->dsp->capability = CAPABILITY_LIE;
  f->dsp->claims = MATMUL_ADD | OP (REG_OP_RELU);
  g_test_expect_message ("Reg", G_LOG_LEVEL_MESSAGE,
                         "backend 'dsp' cannot compile the graph (dsp: no relu (node 3)); "
                         "falling back to 'eager'");
  fn = reg_registry_compile (f->registry, "dsp", graph, inputs, NULL, &error);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_cmpstr (reg_compiled_fn_get_backend (fn), ==, "eager");
  g_assert_null (reg_compiled_fn_dup_placement (fn));
}

/* What dup_supported_nodes returns is checked: a failure, or a node that
 * is not an operator node of the graph, fails the compile as FAILED
 * (which falls back). */
static void
test_bad_capability (Fixture       *f,
                     gconstpointer  data)
{
  static const struct { Capability capability; const char *message; } cases[] = {
    { CAPABILITY_OUT_OF_RANGE, "backend 'dsp' says it takes node 6, which is not an operator node "
                               "of the graph (6 nodes)" },
    { CAPABILITY_INPUT, "backend 'dsp' says it takes node 0, which is not an operator node of the "
                        "graph (6 nodes)" },
    { CAPABILITY_WRONG_TYPE, "backend 'dsp' named the nodes it takes with a 'as' variant, not 'au'" },
    { CAPABILITY_ERROR, "dsp: cannot tell" },
  };
  g_autoptr(RegGraph) graph = graph_new_from_string (mixed_text);
  g_autoptr(GPtrArray) inputs = inputs_for (graph);

  reg_registry_set_fallback_backends (f->registry, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegCompiledFn) fn = NULL;

      f->dsp->capability = cases[i].capability;
      fn = reg_registry_compile (f->registry, "dsp", graph, inputs, NULL, &error);
      g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
      g_assert_cmpstr (error->message, ==, cases[i].message);
      g_assert_null (fn);
    }
  g_assert_cmpint (f->dsp->compiles, ==, 0);
}

/* The other nodes go to the default backend when there is no fallback;
 * when the backend is the default itself, nothing takes them. */
static void
test_default_takes_the_rest (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (mixed_text);
  g_autoptr(GPtrArray) inputs = inputs_for (graph);
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(TestPartial) broken = NULL;
  g_autofree char *placement = NULL;

  reg_registry_set_fallback_backends (f->registry, NULL);
  reg_registry_set_default_backend (f->registry, "eager");
  fn = reg_registry_compile (f->registry, "dsp", graph, inputs, NULL, &error);
  g_assert_no_error (error);
  placement = placement_of (fn, graph);
  g_assert_cmpstr (placement, ==, "dsp[m] eager[r] dsp[a] eager[s]");
  g_clear_object (&fn);

  reg_registry_set_default_backend (f->registry, "dsp");
  fn = reg_registry_compile (f->registry, NULL, graph, inputs, NULL, &error);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  g_assert_cmpstr (error->message, ==, "backend 'dsp' does not take relu, sum, and no other "
                   "backend compiles them: backend 'dsp' does not take relu");
  g_assert_null (fn);

  /* After the last fallback, nothing is left either. */
  g_clear_error (&error);
  broken = add_partial (f, "broken", MATMUL_ADD);
  broken->capability = CAPABILITY_ERROR;
  reg_registry_set_fallback_backends (f->registry, (const char *[]) { "dsp", NULL });
  g_test_expect_message ("Reg", G_LOG_LEVEL_MESSAGE,
                         "backend 'broken' cannot compile the graph (broken: cannot tell); "
                         "falling back to 'dsp'");
  fn = reg_registry_compile (f->registry, "broken", graph, inputs, NULL, &error);
  g_test_assert_expected_messages ();
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==, "broken: cannot tell (and every fallback failed; 'dsp': "
                   "backend 'dsp' does not take relu, sum)");
}

/* A partitioned compile is one entry of the compile cache, when every
 * backend it used shares its functions. */
static void
test_cache (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (mixed_text);
  g_autoptr(RegGraph) again = graph_new_from_string (mixed_text);
  g_autoptr(GPtrArray) inputs = inputs_for (graph);
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) first = NULL;
  g_autoptr(RegCompiledFn) second = NULL;
  guint64 hits, misses;

  f->dsp->flags = REG_COMPILER_FLAGS_SHAREABLE;
  first = reg_registry_compile (f->registry, "dsp", graph, inputs, NULL, &error);
  g_assert_no_error (error);
  second = reg_registry_compile (f->registry, "dsp", again, inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (first == second);
  reg_registry_get_compile_cache_counters (f->registry, &hits, &misses, NULL);
  g_assert_cmpuint (hits, ==, 1);
  g_assert_cmpuint (misses, ==, 1);   /* the groups are not entries */
  g_assert_cmpint (f->dsp->compiles, ==, 2);
  g_assert_cmpuint (f->heard->len, ==, 1);

  /* The fallbacks changed: the cached function used the old ones. */
  reg_registry_set_fallback_backends (f->registry, (const char *[]) { "inductor", NULL });
  g_clear_object (&second);
  second = reg_registry_compile (f->registry, "dsp", again, inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (first != second);
  g_assert_cmpint (f->dsp->compiles, ==, 4);
}

/* A backend that does not share its functions keeps the whole out. */
static void
test_cache_unshared_part (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (mixed_text);
  g_autoptr(GPtrArray) inputs = inputs_for (graph);
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) first = NULL;
  g_autoptr(RegCompiledFn) second = NULL;
  g_autoptr(TestPartial) other = add_partial (f, "other", ~MATMUL_ADD);

  f->dsp->flags = REG_COMPILER_FLAGS_SHAREABLE;
  reg_registry_set_fallback_backends (f->registry, (const char *[]) { "other", NULL });
  first = reg_registry_compile (f->registry, "dsp", graph, inputs, NULL, &error);
  g_assert_no_error (error);
  second = reg_registry_compile (f->registry, "dsp", graph, inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (first != second);
  g_assert_cmpint (other->compiles, ==, 4);
}

/* The debug message of every partitioned compile. */
static void
test_debug_summary (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *placement = NULL;
  gboolean was_enabled = g_log_get_debug_enabled ();

  /* As G_MESSAGES_DEBUG=Reg would: the summary is made only then. */
  g_log_set_debug_enabled (TRUE);
  g_test_expect_message ("Reg", G_LOG_LEVEL_DEBUG,
                         "partitioned a graph in 4 groups: 2 of 4 nodes on 'dsp': matmul, add; "
                         "2 on 'eager': relu, sum");
  placement = compile_checked (f, mixed_text);
  g_test_assert_expected_messages ();
  g_log_set_debug_enabled (was_enabled);
}

static void
compiled_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static RegCompiledFn *
compile_async_wait (Fixture       *f,
                    RegGraph      *graph,
                    GPtrArray     *inputs,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  reg_registry_compile_async (f->registry, "dsp", graph, inputs, NULL, cancellable,
                              compiled_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);

  return reg_registry_compile_finish (f->registry, result, error);
}

static void
called_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/* Asynchronously: the same function, called asynchronously too; a
 * cancelled compile compiles nothing. */
static void
test_async (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (mixed_text);
  g_autoptr(GPtrArray) inputs = inputs_for (graph);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  g_autofree char *placement = NULL;

  fn = compile_async_wait (f, graph, inputs, NULL, &error);
  g_assert_no_error (error);
  placement = placement_of (fn, graph);
  g_assert_cmpstr (placement, ==, "dsp[m] eager[r] dsp[a] eager[s]");
  g_assert_cmpuint (f->heard->len, ==, 1);

  reg_compiled_fn_call_async (fn, inputs, NULL, called_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  outputs = reg_compiled_fn_call_finish (fn, result, &error);
  g_assert_no_error (error);
  assert_outputs_equal_eager (f, graph, inputs, outputs);
  g_clear_object (&fn);

  g_cancellable_cancel (cancellable);
  fn = compile_async_wait (f, graph, inputs, cancellable, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (fn);
  g_assert_cmpint (f->dsp->compiles, ==, 2);
}

/* A compile_async of a graph it partitions, then a compile of the same
 * key in the main thread before the first is done: the groups of the first
 * compile in this main context, so the second must not wait for it (it
 * compiles on its own), and both give a function. */
static void
test_async_then_sync (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (mixed_text);
  g_autoptr(GPtrArray) inputs = inputs_for (graph);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(RegCompiledFn) first = NULL;
  g_autoptr(RegCompiledFn) second = NULL;
  g_autoptr(GError) error = NULL;
  guint64 misses = 0;
  Watchdog dog;

  f->dsp->flags = REG_COMPILER_FLAGS_SHAREABLE;
  watchdog_arm (&dog);
  reg_registry_compile_async (f->registry, "dsp", graph, inputs, NULL, NULL,
                              compiled_cb, &result);
  /* The worker has looked in the cache: the key is taken. */
  while (misses == 0)
    {
      g_usleep (1000);
      reg_registry_get_compile_cache_counters (f->registry, NULL, &misses, NULL);
    }
  second = reg_registry_compile (f->registry, "dsp", graph, inputs, NULL, &error);
  g_assert_no_error (error);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  first = reg_registry_compile_finish (f->registry, result, &error);
  g_assert_no_error (error);
  watchdog_disarm (&dog);
  g_assert_nonnull (first);
  g_assert_nonnull (second);
}

/* Cancelled while its groups compile: cancelled, and nothing is kept,
 * not even in the cache. */
static void
test_async_cancel_between_groups (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (mixed_text);
  g_autoptr(GPtrArray) inputs = inputs_for (graph);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  guint64 hits, misses;

  f->dsp->flags = REG_COMPILER_FLAGS_SHAREABLE;
  f->dsp->cancel_on_compile = cancellable;
  fn = compile_async_wait (f, graph, inputs, cancellable, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (fn);
  g_assert_cmpint (f->dsp->compiles, ==, 1);
  g_assert_cmpuint (f->heard->len, ==, 0);

  f->dsp->cancel_on_compile = NULL;
  g_clear_error (&error);
  fn = compile_async_wait (f, graph, inputs, NULL, &error);
  g_assert_no_error (error);
  reg_registry_get_compile_cache_counters (f->registry, &hits, &misses, NULL);
  g_assert_cmpuint (hits, ==, 0);
  g_assert_cmpuint (misses, ==, 2);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("/partition/chain", test_chain);
  ADD ("/partition/diamond", test_diamond);
  ADD ("/partition/sandwich", test_sandwich);
  ADD ("/partition/no-cycle", test_no_cycle);
  ADD ("/partition/independent", test_independent);
  ADD ("/partition/outputs", test_outputs);
  ADD ("/partition/random", test_random);
  ADD ("/partition/all-or-nothing", test_all_or_nothing);
  ADD ("/partition/strict", test_strict);
  ADD ("/partition/capability/lying", test_lying_capability);
  ADD ("/partition/capability/bad", test_bad_capability);
  ADD ("/partition/default-takes-the-rest", test_default_takes_the_rest);
  ADD ("/partition/cache", test_cache);
  ADD ("/partition/cache/unshared-part", test_cache_unshared_part);
  ADD ("/partition/debug-summary", test_debug_summary);
  ADD ("/partition/async", test_async);
  ADD ("/partition/async/cancel", test_async_cancel_between_groups);
  ADD ("/partition/async/then-sync", test_async_then_sync);

  return g_test_run ();
}
