/* test-compiler.c: RegCompiler, RegCompiledFn and RegFuncCompiler wrappers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include <reg.h>

#include "test-objects.h"

/* A compiled function that doubles its first input, or fails as told. */
typedef enum {
  FN_DOUBLE,
  FN_NULL_WITHOUT_ERROR,
  FN_ERROR,
} FnMode;

#define TEST_TYPE_FN (test_fn_get_type ())
G_DECLARE_FINAL_TYPE (TestFn, test_fn, TEST, FN, GObject)

struct _TestFn
{
  GObject parent_instance;
  FnMode  mode;
  guint   calls;
};

static void test_fn_iface_init (RegCompiledFnInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestFn, test_fn, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILED_FN, test_fn_iface_init))

static GPtrArray *
test_fn_call (RegCompiledFn  *fn,
              GPtrArray      *inputs,
              GError        **error)
{
  TestFn *self = TEST_FN (fn);
  RegTensor *in;
  GPtrArray *out;
  const gint64 *shape;
  float *src, *dst;
  RegTensor *t;
  guint n_dims;
  gsize n;

  self->calls++;
  switch (self->mode)
    {
    case FN_NULL_WITHOUT_ERROR:
      return NULL;
    case FN_ERROR:
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_RUNTIME, "told to fail");
      return NULL;
    case FN_DOUBLE:
      break;
    }

  in = g_ptr_array_index (inputs, 0);
  shape = reg_tensor_get_shape (in, &n_dims);
  t = reg_tensor_new (shape, n_dims);
  src = reg_tensor_get_data (in, &n);
  dst = reg_tensor_get_data (t, NULL);
  for (gsize i = 0; i < n; i++)
    dst[i] = 2 * src[i];

  /* No free function: the wrapper must set it (API.md §9). */
  out = g_ptr_array_new ();
  g_ptr_array_add (out, t);
  return out;
}

static void
test_fn_iface_init (RegCompiledFnInterface *iface)
{
  iface->call = test_fn_call;
}

static void
test_fn_class_init (TestFnClass *klass)
{
}

static void
test_fn_init (TestFn *self)
{
}

/* What the compile function saw. */
typedef struct
{
  guint     calls;
  FnMode    fn_mode;
  gboolean  fail_silently;
  gboolean  options_was_null;
  gsize     options_size;
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

  fn = g_object_new (TEST_TYPE_FN, NULL);
  fn->mode = log->fn_mode;
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
  g_assert_cmpuint (TEST_FN (fn)->calls, ==, 0);
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
  g_test_add_func ("/compiler/compile/null-without-error", test_compile_null_without_error);
  g_test_add_func ("/compiler/compile/shape-mismatch", test_compile_shape_mismatch);
  g_test_add_func ("/compiler/call/bad-inputs", test_call_bad_inputs);
  g_test_add_func ("/compiler/call/failures", test_call_failures);
  g_test_add_func ("/compiler/func-compiler/destroy", test_func_compiler_destroy);
  g_test_add_func ("/compiler/default-name", test_default_name);
  g_test_add_func ("/compiler/registry-compile", test_registry_compile);

  return g_test_run ();
}
