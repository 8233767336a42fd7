/* test-compiler.c: RegCompiler, RegCompiledFn and RegFuncCompiler wrappers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include <reg.h>

#include "test-objects.h"

/* A list model that claims @claimed items and gives its one tensor for the
 * first @held indexes, NULL for the others: a model that lies about its
 * count, or holds a hole. */
#define TEST_TYPE_LYING_MODEL (test_lying_model_get_type ())
G_DECLARE_FINAL_TYPE (TestLyingModel, test_lying_model, TEST, LYING_MODEL, GObject)

struct _TestLyingModel
{
  GObject    parent_instance;
  guint      claimed;
  guint      held;
  RegTensor *item;
  guint      reads;
};

static GType
test_lying_model_get_item_type (GListModel *model)
{
  return REG_TYPE_TENSOR;
}

static guint
test_lying_model_get_n_items (GListModel *model)
{
  return TEST_LYING_MODEL (model)->claimed;
}

static gpointer
test_lying_model_get_item (GListModel *model,
                           guint       position)
{
  TestLyingModel *self = TEST_LYING_MODEL (model);

  self->reads++;
  if (position < self->held)
    return g_object_ref (self->item);
  return NULL;
}

static void
test_lying_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = test_lying_model_get_item_type;
  iface->get_n_items = test_lying_model_get_n_items;
  iface->get_item = test_lying_model_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestLyingModel, test_lying_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      test_lying_model_iface_init))

static void
test_lying_model_finalize (GObject *object)
{
  g_clear_object (&TEST_LYING_MODEL (object)->item);
  G_OBJECT_CLASS (test_lying_model_parent_class)->finalize (object);
}

static void
test_lying_model_class_init (TestLyingModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_lying_model_finalize;
}

static void
test_lying_model_init (TestLyingModel *self)
{
}

/* A compiled function that doubles its first input, or misbehaves as
 * told. */
typedef enum {
  FN_DOUBLE,
  FN_NULL_WITHOUT_ERROR,
  FN_ERROR,
  FN_FOREIGN_ERROR,
  FN_NO_OUTPUTS,
  FN_TWO_OUTPUTS,
  FN_WRONG_SHAPE,
  FN_NOT_A_TENSOR,
  FN_MISSING_ITEM,
  FN_HUGE_COUNT,
  FN_NOT_A_MODEL,
  FN_RESULT_AND_ERROR,
} FnMode;

#define TEST_TYPE_FN (test_fn_get_type ())
G_DECLARE_FINAL_TYPE (TestFn, test_fn, TEST, FN, GObject)

struct _TestFn
{
  GObject         parent_instance;
  FnMode          mode;
  gint            calls;  /* atomic: the shared-fn test calls from threads */
  TestLyingModel *last_lying_model;
};

static void test_fn_iface_init (RegCompiledFnInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestFn, test_fn, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILED_FN, test_fn_iface_init))

static RegTensor *
doubled (RegTensor *in)
{
  const gint64 *shape;
  float *src, *dst;
  RegTensor *t;
  guint n_dims;
  gsize n;

  shape = reg_tensor_get_shape (in, &n_dims);
  t = reg_tensor_new (shape, n_dims);
  src = reg_tensor_get_data (in, &n);
  dst = reg_tensor_get_data (t, NULL);
  for (gsize i = 0; i < n; i++)
    dst[i] = 2 * src[i];

  return t;
}

static GListModel *
test_fn_run (RegCompiledFn  *fn,
             GPtrArray      *inputs,
             GError        **error)
{
  TestFn *self = TEST_FN (fn);
  g_autoptr(RegTensor) result = doubled (g_ptr_array_index (inputs, 0));
  GListStore *out = g_list_store_new (G_TYPE_OBJECT);
  TestLyingModel *lying;

  g_atomic_int_inc (&self->calls);
  switch (self->mode)
    {
    case FN_NULL_WITHOUT_ERROR:
      g_object_unref (out);
      return NULL;
    case FN_ERROR:
      g_object_unref (out);
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_RUNTIME, "told to fail");
      return NULL;
    case FN_FOREIGN_ERROR:
      g_object_unref (out);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE, "the pipe broke");
      return NULL;
    case FN_RESULT_AND_ERROR:
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_RUNTIME, "told to fail too");
      G_GNUC_FALLTHROUGH;
    case FN_DOUBLE:
      g_list_store_append (out, result);
      break;
    case FN_NO_OUTPUTS:
      break;
    case FN_TWO_OUTPUTS:
      g_list_store_append (out, result);
      g_list_store_append (out, result);
      break;
    case FN_WRONG_SHAPE:
      {
        g_autoptr(RegTensor) scalar = reg_tensor_new (NULL, 0);

        g_list_store_append (out, scalar);
      }
      break;
    case FN_NOT_A_TENSOR:
      g_list_store_append (out, fn);
      break;
    case FN_MISSING_ITEM:
    case FN_HUGE_COUNT:
      g_object_unref (out);
      lying = g_object_new (TEST_TYPE_LYING_MODEL, NULL);
      lying->item = g_object_ref (result);
      lying->claimed = self->mode == FN_HUGE_COUNT ? G_MAXUINT : 1;
      lying->held = self->mode == FN_HUGE_COUNT ? G_MAXUINT : 0;
      g_set_object (&self->last_lying_model, lying);
      return G_LIST_MODEL (lying);
    case FN_NOT_A_MODEL:
      g_object_unref (out);
      /* What a careless C backend could cast: a GObject of another kind. */
      return (GListModel *) g_object_ref (result);
    }

  return G_LIST_MODEL (out);
}

static void
test_fn_iface_init (RegCompiledFnInterface *iface)
{
  iface->run = test_fn_run;
}

static void
test_fn_finalize (GObject *object)
{
  g_clear_object (&TEST_FN (object)->last_lying_model);
  G_OBJECT_CLASS (test_fn_parent_class)->finalize (object);
}

static void
test_fn_class_init (TestFnClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_fn_finalize;
}

static void
test_fn_init (TestFn *self)
{
}

/* What the compile function saw. */
typedef struct
{
  guint          calls;
  FnMode         fn_mode;
  gboolean       fail_silently;
  gboolean       error_too;         /* sets an error beside its result */
  gboolean       fail_foreign;      /* fails in G_IO_ERROR */
  const char    *fail_unsupported;  /* fails with UNSUPPORTED_OP and this text */
  const char    *fail_text;         /* the text of fail_foreign, if not the usual */
  RegCompiledFn *shared;          /* returned by every compile when set */
  gboolean       options_was_null;
  gsize          options_size;
} CompileLog;

static RegCompiledFn *
log_compile (RegGraph   *graph,
             GPtrArray  *example_inputs,
             GVariant   *options,
             gpointer    user_data,
             GError    **error)
{
  CompileLog *log = user_data;
  TestFn *fn;

  log->calls++;
  log->options_was_null = options == NULL;
  log->options_size = options != NULL ? g_variant_n_children (options) : 0;
  if (log->fail_silently)
    return NULL;
  if (log->fail_foreign)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           log->fail_text != NULL ? log->fail_text : "no such thing");
      return NULL;
    }
  if (log->fail_unsupported != NULL)
    {
      g_set_error_literal (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP,
                           log->fail_unsupported);
      return NULL;
    }
  if (log->shared != NULL)
    return g_object_ref (log->shared);

  fn = g_object_new (TEST_TYPE_FN, NULL);
  fn->mode = log->fn_mode;
  if (log->error_too)
    g_set_error_literal (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED, "told to fail");
  return REG_COMPILED_FN (fn);
}

static GPtrArray *
tensors (guint         n,
         const gint64 *shape,
         guint         n_dims)
{
  GPtrArray *array = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < n; i++)
    {
      RegTensor *t = reg_tensor_new (shape, n_dims);
      float *data = reg_tensor_get_data (t, NULL);

      for (gsize j = 0; j < reg_tensor_get_n_elements (t); j++)
        data[j] = (float) j + 1;
      g_ptr_array_add (array, t);
    }

  return array;
}

static const char *two_input_graph =
  "graph(x, y):\n"
  "  a = add(x, y)\n"
  "  return (a,)\n";

static void
test_compile_and_call (void)
{
  CompileLog log = { 0 };
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("logger", log_compile, &log, NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 2, 3 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 2);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GError) error = NULL;
  RegTensor *out;
  float *data;
  gsize n;

  g_assert_cmpstr (reg_compiler_get_name (compiler), ==, "logger");

  fn = reg_compiler_compile (compiler, graph, inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (REG_IS_COMPILED_FN (fn));
  g_assert_cmpuint (log.calls, ==, 1);
  g_assert_true (log.options_was_null);

  outputs = reg_compiled_fn_call (fn, inputs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (outputs->len, ==, 1);
  out = g_ptr_array_index (outputs, 0);
  data = reg_tensor_get_data (out, &n);
  g_assert_cmpuint (n, ==, 6);
  g_assert_cmpfloat (data[5], ==, 12.0f);

  /* the array owns its elements: unreffing it finalizes the output */
  g_object_add_weak_pointer (G_OBJECT (out), (gpointer *) &out);
  g_clear_pointer (&outputs, g_ptr_array_unref);
  g_assert_null (out);
}

/* What a compile of frozen_compile() saw: the graph it was given, and
 * the graph its inner compile was given when it compiled that again. */
typedef struct
{
  RegGraph    *outer;
  RegGraph    *inner;
  RegCompiler *again;   /* nullable: compile the graph given with it */
} FrozenLog;

static RegCompiledFn *
frozen_compile (RegGraph   *graph,
                GPtrArray  *example_inputs,
                GVariant   *options,
                gpointer    user_data,
                GError    **error)
{
  FrozenLog *log = user_data;

  if (log->again == NULL)
    {
      g_set_object (&log->inner, graph);
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED, "inner");
      return NULL;
    }

  g_set_object (&log->outer, graph);
  /* A backend may hand its graph on: a frozen graph is not copied again. */
  g_assert_null (reg_compiler_compile (log->again, graph, example_inputs, NULL, NULL));
  g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED, "outer");
  return NULL;
}

/* A backend gets a copy of the caller's graph that never changes: equal,
 * but another object, which refuses builder calls. */
static void
test_compile_frozen_graph (void)
{
  FrozenLog inner_log = { 0 }, log = { 0 };
  g_autoptr(RegCompiler) inner = reg_func_compiler_new ("inner", frozen_compile, &inner_log, NULL);
  g_autoptr(RegCompiler) outer = NULL;
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 2, 3 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 2);
  g_autofree char *text = reg_graph_to_string (graph);
  g_autofree char *frozen_text = NULL;

  log.again = inner;
  outer = reg_func_compiler_new ("outer", frozen_compile, &log, NULL);
  g_assert_null (reg_compiler_compile (outer, graph, inputs, NULL, NULL));
  g_assert_nonnull (log.outer);
  g_assert_true (log.outer != graph);
  g_assert_true (inner_log.inner == log.outer);
  frozen_text = reg_graph_to_string (log.outer);
  g_assert_cmpstr (frozen_text, ==, text);

  if (g_test_subprocess ())
    {
      guint x = reg_graph_get_inputs (log.outer, NULL)[0];

      g_log_set_always_fatal (G_LOG_FATAL_MASK);
      g_assert_cmpuint (reg_graph_add_input (log.outer, "z"), ==, REG_GRAPH_INVALID_NODE);
      g_assert_cmpuint (reg_graph_add_constant (log.outer, 1.0), ==, REG_GRAPH_INVALID_NODE);
      g_assert_cmpuint (reg_graph_add_op (log.outer, "neg", &x, 1, NULL), ==,
                        REG_GRAPH_INVALID_NODE);
      g_assert_false (reg_graph_set_node_name (log.outer, 2, "b", NULL));
      reg_graph_set_outputs (log.outer, &x, 1);
      g_clear_pointer (&frozen_text, g_free);
      frozen_text = reg_graph_to_string (log.outer);
      g_assert_cmpstr (frozen_text, ==, text);
      g_clear_object (&log.outer);
      g_clear_object (&inner_log.inner);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*CRITICAL*reg_graph_add_input*frozen*"
                             "*CRITICAL*reg_graph_add_constant*frozen*"
                             "*CRITICAL*reg_graph_add_op*frozen*"
                             "*CRITICAL*reg_graph_set_node_name*frozen*"
                             "*CRITICAL*reg_graph_set_outputs*frozen*");
  g_clear_object (&log.outer);
  g_clear_object (&inner_log.inner);
}

static void
test_compile_options (void)
{
  CompileLog log = { 0 };
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("logger", log_compile, &log, NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 4 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 1);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(RegCompiledFn) fn2 = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  GVariant *empty = g_variant_new ("a{sv}", NULL);

  /* an empty dictionary reaches the compiler as given, not as NULL; the
   * floating reference is consumed */
  fn = reg_compiler_compile (compiler, graph, inputs, empty, &error);
  g_assert_no_error (error);
  g_assert_false (log.options_was_null);
  g_assert_cmpuint (log.options_size, ==, 0);

  g_variant_builder_add (&builder, "{sv}", "fuse", g_variant_new_boolean (FALSE));
  g_variant_builder_add (&builder, "{sv}", "threads", g_variant_new_uint32 (2));
  fn2 = reg_compiler_compile (compiler, graph, inputs, g_variant_builder_end (&builder), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (log.options_size, ==, 2);
}

static void
test_compile_null_without_error (void)
{
  CompileLog log = { .fail_silently = TRUE };
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("silent", log_compile, &log, NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 3 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 1);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;

  fn = reg_compiler_compile (compiler, graph, inputs, NULL, &error);
  g_assert_null (fn);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "silent"));
}

static void
async_done (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static GAsyncResult *
wait_for (GAsyncResult **result)
{
  while (*result == NULL)
    g_main_context_iteration (NULL, TRUE);

  return *result;
}

/* A backend that returns its result and sets an error breaks the GError
 * rules: its result counts, with a warning, whether it was asked to
 * compile or run synchronously or asynchronously. */
static void
test_result_and_error (void)
{
  CompileLog log = { .fn_mode = FN_RESULT_AND_ERROR, .error_too = TRUE };
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("both", log_compile, &log, NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 2 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 1);
  g_autoptr(GAsyncResult) compiled = NULL;
  g_autoptr(GAsyncResult) ran = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(RegCompiledFn) fn_async = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GPtrArray) outputs_async = NULL;
  g_autoptr(GError) error = NULL;

  g_test_expect_message ("Reg", G_LOG_LEVEL_WARNING,
                         "backend 'both' returned its result and set an error: told to fail");
  fn = reg_compiler_compile (compiler, graph, inputs, NULL, &error);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_nonnull (fn);

  g_test_expect_message ("Reg", G_LOG_LEVEL_WARNING,
                         "backend 'both' returned its result and set an error: told to fail");
  reg_compiler_compile_async (compiler, graph, inputs, NULL, NULL, async_done, &compiled);
  fn_async = reg_compiler_compile_finish (compiler, wait_for (&compiled), &error);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_nonnull (fn_async);

  g_test_expect_message ("Reg", G_LOG_LEVEL_WARNING,
                         "backend 'both' returned its result and set an error: told to fail too");
  outputs = reg_compiled_fn_call (fn, inputs, &error);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_cmpuint (outputs->len, ==, 1);

  g_test_expect_message ("Reg", G_LOG_LEVEL_WARNING,
                         "backend 'both' returned its result and set an error: told to fail too");
  reg_compiled_fn_call_async (fn, inputs, NULL, async_done, &ran);
  outputs_async = reg_compiled_fn_call_finish (fn, wait_for (&ran), &error);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_cmpuint (outputs_async->len, ==, 1);
  g_assert_cmpfloat (((float *) reg_tensor_get_data (outputs_async->pdata[0], NULL))[1], ==, 4);
}

static void
test_compile_shape_mismatch (void)
{
  CompileLog log = { 0 };
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("logger", log_compile, &log, NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape_a[] = { 2, 3 };
  const gint64 shape_b[] = { 3, 2 };
  g_autoptr(GPtrArray) one = tensors (1, shape_a, 2);
  g_autoptr(GPtrArray) mixed = tensors (1, shape_a, 2);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (mixed, reg_tensor_new (shape_b, 2));

  /* the backend never sees a graph its inputs do not fit */
  fn = reg_compiler_compile (compiler, graph, one, NULL, &error);
  g_assert_null (fn);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE);
  g_clear_error (&error);

  fn = reg_compiler_compile (compiler, graph, mixed, NULL, &error);
  g_assert_null (fn);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "[2, 3]"));
  g_assert_nonnull (strstr (error->message, "[3, 2]"));
  g_assert_cmpuint (log.calls, ==, 0);
}

static void
test_call_bad_inputs (void)
{
  CompileLog log = { 0 };
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("logger", log_compile, &log, NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 2, 3 };
  const gint64 other[] = { 6 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 2);
  g_autoptr(GPtrArray) too_few = tensors (1, shape, 2);
  g_autoptr(GPtrArray) wrong_shape = tensors (1, shape, 2);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (wrong_shape, reg_tensor_new (other, 1));

  fn = reg_compiler_compile (compiler, graph, inputs, NULL, &error);
  g_assert_no_error (error);

  outputs = reg_compiled_fn_call (fn, too_few, &error);
  g_assert_null (outputs);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_INPUTS);
  g_assert_cmpstr (error->message, ==, "expected 2 inputs, got 1");
  g_clear_error (&error);

  outputs = reg_compiled_fn_call (fn, wrong_shape, &error);
  g_assert_null (outputs);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_INPUTS);
  g_assert_cmpstr (error->message, ==, "input 1 ('y'): expected shape [2, 3], got [6]");

  /* the backend was never called with them */
  g_assert_cmpuint ((guint) g_atomic_int_get (&TEST_FN (fn)->calls), ==, 0);
}

static void
test_call_failures (void)
{
  CompileLog silent_log = { .fn_mode = FN_NULL_WITHOUT_ERROR };
  CompileLog error_log = { .fn_mode = FN_ERROR };
  g_autoptr(RegCompiler) silent = reg_func_compiler_new ("s", log_compile, &silent_log, NULL);
  g_autoptr(RegCompiler) failing = reg_func_compiler_new ("f", log_compile, &error_log, NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 2 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 1);
  g_autoptr(RegCompiledFn) fn_silent = NULL;
  g_autoptr(RegCompiledFn) fn_error = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GError) error = NULL;

  fn_silent = reg_compiler_compile (silent, graph, inputs, NULL, &error);
  fn_error = reg_compiler_compile (failing, graph, inputs, NULL, &error);
  g_assert_no_error (error);

  outputs = reg_compiled_fn_call (fn_silent, inputs, &error);
  g_assert_null (outputs);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_RUNTIME);
  g_clear_error (&error);

  outputs = reg_compiled_fn_call (fn_error, inputs, &error);
  g_assert_null (outputs);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_RUNTIME);
  g_assert_cmpstr (error->message, ==, "told to fail");
}

/* What a backend returns is checked as what it is given: every way of
 * returning the wrong thing is a RUNTIME error naming the backend. */
static void
test_call_checks_outputs (void)
{
  static const struct {
    FnMode      mode;
    const char *message;
  } cases[] = {
    { FN_NO_OUTPUTS, "backend 'logger' returned 0 outputs, the graph has 1" },
    { FN_TWO_OUTPUTS, "backend 'logger' returned 2 outputs, the graph has 1" },
    { FN_WRONG_SHAPE, "backend 'logger' returned output 0 ('a') of shape [], "
                      "the graph gives it shape [2, 3]" },
    { FN_NOT_A_TENSOR, "backend 'logger' returned output 0 as TestFn, not a RegTensor" },
    { FN_MISSING_ITEM, "backend 'logger' returned output 0 as nothing, not a RegTensor" },
    { FN_HUGE_COUNT, "backend 'logger' returned 4294967295 outputs, the graph has 1" },
    { FN_NOT_A_MODEL, "backend 'logger' returned a RegTensor, not a GListModel of RegTensor" },
    { FN_FOREIGN_ERROR, "backend 'logger': the pipe broke" },
    { FN_NULL_WITHOUT_ERROR, "backend 'logger' failed without giving a reason" },
  };
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 2, 3 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 2);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      CompileLog log = { .fn_mode = cases[i].mode };
      g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("logger", log_compile, &log, NULL);
      g_autoptr(RegCompiledFn) fn = NULL;
      g_autoptr(GPtrArray) outputs = NULL;
      g_autoptr(GError) error = NULL;

      g_test_message ("case %u: %s", i, cases[i].message);
      fn = reg_compiler_compile (compiler, graph, inputs, NULL, &error);
      g_assert_no_error (error);

      outputs = reg_compiled_fn_call (fn, inputs, &error);
      g_assert_null (outputs);
      g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_RUNTIME);
      g_assert_cmpstr (error->message, ==, cases[i].message);
      g_assert_cmpuint ((guint) g_atomic_int_get (&TEST_FN (fn)->calls), ==, 1);

      /* A count that cannot be true is refused before any item is read. */
      if (cases[i].mode == FN_HUGE_COUNT)
        g_assert_cmpuint (TEST_FN (fn)->last_lying_model->reads, ==, 0);
    }
}

/* A function that no compile made has no signature: only what every call
 * needs is checked (the outputs are tensors). */
static void
test_call_unbound (void)
{
  const gint64 shape[] = { 3 };
  g_autoptr(GPtrArray) inputs = tensors (1, shape, 1);
  g_autoptr(TestFn) good = g_object_new (TEST_TYPE_FN, NULL);
  g_autoptr(TestFn) holey = g_object_new (TEST_TYPE_FN, NULL);
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GError) error = NULL;

  outputs = reg_compiled_fn_call (REG_COMPILED_FN (good), inputs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (outputs->len, ==, 1);
  g_assert_cmpfloat (reg_tensor_get_data (g_ptr_array_index (outputs, 0), NULL)[2], ==, 6.0f);

  holey->mode = FN_MISSING_ITEM;
  g_clear_pointer (&outputs, g_ptr_array_unref);
  outputs = reg_compiled_fn_call (REG_COMPILED_FN (holey), inputs, &error);
  g_assert_null (outputs);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_RUNTIME);
  g_assert_cmpstr (error->message, ==, "backend 'TestFn' returned output 0 as nothing, not a RegTensor");
}

/* A backend may return one function from several compiles of one
 * signature; the signature then stays the first compile's, and a compile
 * for another signature fails rather than replace it. */
static void
test_compile_shared_fn (void)
{
  g_autoptr(TestFn) shared = g_object_new (TEST_TYPE_FN, NULL);
  CompileLog log = { .shared = REG_COMPILED_FN (shared) };
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("sharer", log_compile, &log, NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 2, 3 };
  const gint64 other[] = { 4 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 2);
  g_autoptr(GPtrArray) other_inputs = tensors (2, other, 1);
  g_autoptr(RegCompiledFn) first = NULL;
  g_autoptr(RegCompiledFn) again = NULL;
  g_autoptr(RegCompiledFn) refused = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GError) error = NULL;

  first = reg_compiler_compile (compiler, graph, inputs, NULL, &error);
  g_assert_no_error (error);
  again = reg_compiler_compile (compiler, graph, inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (first == again);

  refused = reg_compiler_compile (compiler, graph, other_inputs, NULL, &error);
  g_assert_null (refused);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "backend 'sharer' returned a function that an earlier compile"));
  g_clear_error (&error);

  /* the first signature still holds */
  outputs = reg_compiled_fn_call (first, inputs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (outputs->len, ==, 1);
  g_clear_pointer (&outputs, g_ptr_array_unref);
  outputs = reg_compiled_fn_call (first, other_inputs, &error);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_INPUTS);
}

typedef struct
{
  RegCompiler *compiler;
  RegGraph    *graph;
  GPtrArray   *inputs;
  guint        rounds;
} SharedCompileJob;

static gpointer
compile_and_call_thread (gpointer data)
{
  SharedCompileJob *job = data;

  for (guint i = 0; i < job->rounds; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegCompiledFn) fn = reg_compiler_compile (job->compiler, job->graph,
                                                          job->inputs, NULL, &error);
      g_autoptr(GPtrArray) outputs = NULL;

      g_assert_no_error (error);
      outputs = reg_compiled_fn_call (fn, job->inputs, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (outputs->len, ==, 1);
    }

  return NULL;
}

/* Threads that compile to one shared function and call it at once: the
 * signature is set once and read by all (run under TSan and ASan by
 * tools/check). */
static RegCompiledFn *
shared_compile (RegGraph   *graph,
                GPtrArray  *example_inputs,
                GVariant   *options,
                gpointer    user_data,
                GError    **error)
{
  return g_object_ref (user_data);
}

static void
test_compile_shared_fn_threads (void)
{
  g_autoptr(TestFn) shared = g_object_new (TEST_TYPE_FN, NULL);
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("sharer", shared_compile, shared, NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 5 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 1);
  SharedCompileJob job = { compiler, graph, inputs, 200 };
  GThread *threads[4];

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("compile", compile_and_call_thread, &job);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
}

static void
test_compile_options_not_a_dictionary (void)
{
  CompileLog log = { 0 };
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("logger", log_compile, &log, NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 2 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 1);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;

  fn = reg_compiler_compile (compiler, graph, inputs, g_variant_new_int32 (2), &error);
  g_assert_null (fn);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
  g_assert_cmpstr (error->message, ==,
                   "options for backend 'logger' must be an a{sv} dictionary, "
                   "not a value of type 'i'");
  g_assert_cmpuint (log.calls, ==, 0);
}

static void
test_compile_foreign_error (void)
{
  CompileLog log = { .fail_foreign = TRUE };
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("stranger", log_compile, &log, NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 2 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 1);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;

  /* a binding's own domain (GJS's, say) is not one callers handle */
  fn = reg_compiler_compile (compiler, graph, inputs, NULL, &error);
  g_assert_null (fn);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==, "backend 'stranger': no such thing");
}

/* A backend that compiles on another one through a registry */
static RegCompiledFn *
compile_on_nowhere (RegGraph   *graph,
                    GPtrArray  *example_inputs,
                    GVariant   *options,
                    gpointer    user_data,
                    GError    **error)
{
  return reg_registry_compile (user_data, "nowhere", graph, example_inputs, NULL, error);
}

/* The registry's failure to provide the backend it builds on is not the
 * registry's error of this compile (this backend exists), nor the
 * backend's own failure: a code of its own, the registry's words. */
static void
test_compile_backend_unavailable (void)
{
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("wrapper", compile_on_nowhere, registry, NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 2 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 1);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;

  fn = reg_compiler_compile (compiler, graph, inputs, NULL, &error);
  g_assert_null (fn);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BACKEND_UNAVAILABLE);
  g_assert_true (g_str_has_prefix (error->message, "backend 'wrapper': Invalid backend: 'nowhere'"));
}

/* A backend's message is text from outside: it reaches the caller on one
 * line, unable to drive a terminal, in its own domain or wrapped. */
static void
test_compile_error_text_escaped (void)
{
  CompileLog own = { .fail_unsupported = "no\nop \033[2J here\xff" };
  CompileLog foreign = { .fail_foreign = TRUE, .fail_text = "gone\r\nfake line" };
  g_autoptr(RegCompiler) compiler = reg_func_compiler_new ("odd", log_compile, &own, NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 2 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 1);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *long_text = g_strnfill (100000, 'x');

  fn = reg_compiler_compile (compiler, graph, inputs, NULL, &error);
  g_assert_null (fn);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  g_assert_cmpstr (error->message, ==, "no<U+000A>op <U+001B>[2J here\\xFF");
  g_clear_error (&error);

  /* and cut when it is too long to be read */
  own.fail_unsupported = long_text;
  fn = reg_compiler_compile (compiler, graph, inputs, NULL, &error);
  g_assert_null (fn);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  g_assert_cmpuint (strlen (error->message), <, 5000);
  g_assert_true (g_str_has_suffix (error->message, "..."));
  g_clear_error (&error);
  g_clear_object (&compiler);

  compiler = reg_func_compiler_new ("odd", log_compile, &foreign, NULL);
  fn = reg_compiler_compile (compiler, graph, inputs, NULL, &error);
  g_assert_null (fn);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==, "backend 'odd': gone<U+000D><U+000A>fake line");
  g_assert_cmpuint (own.calls + foreign.calls, ==, 3);
}

static void
count_destroy (gpointer data)
{
  (*(guint *) data)++;
}

static RegCompiledFn *
never_compile (RegGraph   *graph,
               GPtrArray  *example_inputs,
               GVariant   *options,
               gpointer    user_data,
               GError    **error)
{
  g_assert_not_reached ();
}

static void
test_func_compiler_destroy (void)
{
  guint destroyed = 0;
  RegCompiler *compiler = reg_func_compiler_new ("d", never_compile, &destroyed, count_destroy);

  g_assert_true (REG_IS_FUNC_COMPILER (compiler));
  g_assert_cmpuint (destroyed, ==, 0);
  g_object_unref (compiler);
  g_assert_cmpuint (destroyed, ==, 1);
}

/* A compiler class that implements compile only: named after its type. */
#define TEST_TYPE_NAMELESS (test_nameless_get_type ())
G_DECLARE_FINAL_TYPE (TestNameless, test_nameless, TEST, NAMELESS, GObject)

struct _TestNameless
{
  GObject parent_instance;
};

static RegCompiledFn *
test_nameless_compile (RegCompiler  *compiler,
                       RegGraph     *graph,
                       GPtrArray    *example_inputs,
                       GVariant     *options,
                       GError      **error)
{
  return g_object_new (TEST_TYPE_FN, NULL);
}

static void
test_nameless_iface_init (RegCompilerInterface *iface)
{
  iface->compile = test_nameless_compile;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestNameless, test_nameless, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILER, test_nameless_iface_init))

static void
test_nameless_class_init (TestNamelessClass *klass)
{
}

static void
test_nameless_init (TestNameless *self)
{
}

static void
test_default_name (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(RegCompiler) compiler = g_object_new (TEST_TYPE_NAMELESS, NULL);
  g_autoptr(RegCompiler) found = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpstr (reg_compiler_get_name (compiler), ==, "TestNameless");
  g_assert_true (reg_registry_register_backend (reg, NULL, compiler, NULL, &error));
  found = reg_registry_lookup_backend (reg, "TestNameless", &error);
  g_assert_no_error (error);
  g_assert_true (found == compiler);
}

/* A compiler that counts how often its name is asked for. */
#define TEST_TYPE_NAMED (test_named_get_type ())
G_DECLARE_FINAL_TYPE (TestNamed, test_named, TEST, NAMED, GObject)

struct _TestNamed
{
  GObject parent_instance;
  guint   name_calls;  /* atomic */
};

static char *
test_named_dup_name (RegCompiler *compiler)
{
  g_atomic_int_inc (&TEST_NAMED (compiler)->name_calls);
  return g_strdup ("counted");
}

static void
test_named_iface_init (RegCompilerInterface *iface)
{
  iface->compile = test_nameless_compile;
  iface->dup_name = test_named_dup_name;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestNamed, test_named, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILER, test_named_iface_init))

static void
test_named_class_init (TestNamedClass *klass)
{
}

static void
test_named_init (TestNamed *self)
{
}

/* The name is the implementation's, asked for once and kept: a binding's
 * dup_name allocates a string per call. */
static void
test_name_asked_once (void)
{
  g_autoptr(TestNamed) compiler = g_object_new (TEST_TYPE_NAMED, NULL);
  const char *first = reg_compiler_get_name (REG_COMPILER (compiler));

  g_assert_cmpstr (first, ==, "counted");
  g_assert_true (reg_compiler_get_name (REG_COMPILER (compiler)) == first);
  g_assert_cmpuint (compiler->name_calls, ==, 1);
}

static void
test_registry_compile (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  CompileLog named_log = { 0 };
  CompileLog default_log = { 0 };
  g_autoptr(RegCompiler) named = reg_func_compiler_new ("named", log_compile, &named_log, NULL);
  g_autoptr(RegCompiler) fallback = reg_func_compiler_new ("fallback", log_compile, &default_log, NULL);
  g_autoptr(RegGraph) graph = graph_new_from_string (two_input_graph);
  const gint64 shape[] = { 2 };
  g_autoptr(GPtrArray) inputs = tensors (2, shape, 1);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (reg_registry_register_backend (reg, NULL, named, NULL, &error));

  fn = reg_registry_compile (reg, "named", graph, inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (named_log.calls, ==, 1);
  g_clear_object (&fn);

  /* NULL: the default, here an object */
  reg_registry_set_default_compiler (reg, fallback);
  fn = reg_registry_compile (reg, NULL, graph, inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (default_log.calls, ==, 1);
  g_clear_object (&fn);

  /* NULL: the default, by name */
  reg_registry_set_default_backend (reg, "named");
  fn = reg_registry_compile (reg, NULL, graph, inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (named_log.calls, ==, 2);
  g_clear_object (&fn);

  fn = reg_registry_compile (reg, "nope", graph, inputs, NULL, &error);
  g_assert_null (fn);
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND);
}

int
main (int   argc,
      char *argv[])
{
  g_unsetenv ("REG_BACKEND_PATH");
  g_setenv ("REG_BACKEND_SYSTEM_DIR", "", TRUE);

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/compiler/compile/call", test_compile_and_call);
  g_test_add_func ("/compiler/compile/options", test_compile_options);
  g_test_add_func ("/compiler/compile/frozen-graph", test_compile_frozen_graph);
  g_test_add_func ("/compiler/compile/null-without-error", test_compile_null_without_error);
  g_test_add_func ("/compiler/compile/shape-mismatch", test_compile_shape_mismatch);
  g_test_add_func ("/compiler/result-and-error", test_result_and_error);
  g_test_add_func ("/compiler/call/bad-inputs", test_call_bad_inputs);
  g_test_add_func ("/compiler/call/failures", test_call_failures);
  g_test_add_func ("/compiler/call/checks-outputs", test_call_checks_outputs);
  g_test_add_func ("/compiler/call/unbound", test_call_unbound);
  g_test_add_func ("/compiler/compile/shared-fn", test_compile_shared_fn);
  g_test_add_func ("/compiler/compile/shared-fn-threads", test_compile_shared_fn_threads);
  g_test_add_func ("/compiler/compile/options-not-a-dictionary", test_compile_options_not_a_dictionary);
  g_test_add_func ("/compiler/compile/foreign-error", test_compile_foreign_error);
  g_test_add_func ("/compiler/compile/backend-unavailable", test_compile_backend_unavailable);
  g_test_add_func ("/compiler/compile/error-text-escaped", test_compile_error_text_escaped);
  g_test_add_func ("/compiler/func-compiler/destroy", test_func_compiler_destroy);
  g_test_add_func ("/compiler/default-name", test_default_name);
  g_test_add_func ("/compiler/name-asked-once", test_name_asked_once);
  g_test_add_func ("/compiler/registry-compile", test_registry_compile);

  return g_test_run ();
}
