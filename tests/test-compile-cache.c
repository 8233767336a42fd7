/* test-compile-cache.c: the registry's compile cache
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <reg.h>

#include "test-backend.h"
#include "test-files.h"
#include "test-objects.h"


#define SHIPPED_MODULES_DIR TEST_BUILDDIR G_DIR_SEPARATOR_S ".." G_DIR_SEPARATOR_S "modules"

static const char *neg_text =
  "graph(x):\n"
  "  a = neg(x)\n"
  "  return (a,)\n";

typedef struct
{
  RegRegistry *registry;
  TestBackend *shared;      /* "shared": REG_COMPILER_FLAGS_SHAREABLE */
  TestBackend *private_;    /* "private": not shareable */
  GPtrArray   *inputs;      /* one tensor of shape [3] */
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->registry = reg_registry_new ();
  f->shared = test_backend_new ("shared", REG_COMPILER_FLAGS_SHAREABLE);
  f->private_ = test_backend_new ("private", REG_COMPILER_FLAGS_NONE);
  g_assert_true (reg_registry_register_backend (f->registry, NULL, REG_COMPILER (f->shared), NULL, &error));
  g_assert_true (reg_registry_register_backend (f->registry, NULL, REG_COMPILER (f->private_), NULL, &error));
  g_assert_no_error (error);
  f->inputs = tensor_array_new ();
  g_ptr_array_add (f->inputs, reg_tensor_new ((const gint64[]) { 3 }, 1));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_ptr_array_unref (f->inputs);
  g_object_unref (f->shared);
  g_object_unref (f->private_);
  g_object_unref (f->registry);
}

static RegCompiledFn *
compile_ok (RegRegistry *registry,
            const char  *backend,
            const char  *text,
            GPtrArray   *inputs,
            GVariant    *options)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegGraph) graph = graph_new_from_string (text);
  RegCompiledFn *fn = reg_registry_compile (registry, backend, graph, inputs, options, &error);

  g_assert_no_error (error);
  g_assert_nonnull (fn);

  return fn;
}

static void
assert_counters (RegRegistry *registry,
                 guint64      hits,
                 guint64      misses,
                 guint64      evictions)
{
  guint64 h, m, e;

  reg_registry_get_compile_cache_counters (registry, &h, &m, &e);
  g_assert_cmpuint (h, ==, hits);
  g_assert_cmpuint (m, ==, misses);
  g_assert_cmpuint (e, ==, evictions);
}

/* An equal graph parsed twice (two objects) is one entry. */
static void
test_equal_graph (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(RegCompiledFn) first = compile_ok (f->registry, "shared", neg_text, f->inputs, NULL);
  g_autoptr(RegCompiledFn) again = compile_ok (f->registry, "shared", neg_text, f->inputs, NULL);

  g_assert_true (first == again);
  g_assert_cmpint (test_backend_get_compiles (f->shared), ==, 1);
  {
    guint64 hits;

    reg_registry_get_compile_cache_counters (f->registry, &hits, NULL, NULL);
    g_assert_cmpuint (hits, ==, 1);
  }
}

/* A chain of @n_ops negations of x, the last one's argument @last (a
 * node name or a constant). */
static char *
chain_text (guint       n_ops,
            const char *last)
{
  GString *text = g_string_new ("graph(x):\n  t0 = neg(x)\n");

  for (guint i = 1; i + 1 < n_ops; i++)
    g_string_append_printf (text, "  t%u = neg(t%u)\n", i, i - 1);
  g_string_append_printf (text, "  t%u = add(t%u, %s)\n  return (t%u,)\n",
                          n_ops - 1, n_ops - 2, last, n_ops - 1);

  return g_string_free (text, FALSE);
}

/* Keys far longer than a small graph's: equal graphs still meet, and a
 * difference in the last operand is still seen. */
static void
test_large_graph (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *text = chain_text (2000, "x");
  g_autofree char *other = chain_text (2000, "1.5");
  g_autoptr(RegCompiledFn) first = compile_ok (f->registry, "shared", text, f->inputs, NULL);
  g_autoptr(RegCompiledFn) small = compile_ok (f->registry, "shared", neg_text, f->inputs, NULL);
  g_autoptr(RegCompiledFn) again = compile_ok (f->registry, "shared", text, f->inputs, NULL);
  g_autoptr(RegCompiledFn) different = compile_ok (f->registry, "shared", other, f->inputs, NULL);

  g_assert_true (first == again);
  g_assert_true (first != small);
  g_assert_true (different != first);
  g_assert_cmpint (test_backend_get_compiles (f->shared), ==, 3);
  assert_counters (f->registry, 1, 3, 0);
}

/* A compile whose key would be longer than the cache may hold (an option
 * larger than REG_COMPILE_CACHE_MAX_BYTES here) is not cached, and not
 * counted as a miss: each such compile compiles. */
static void
test_key_too_large (Fixture       *f,
                    gconstpointer  data)
{
  gsize size = (gsize) 256 * 1024 * 1024 + 1;
  g_autoptr(GBytes) blob = g_bytes_new_take (g_malloc0 (size), size);
  g_autoptr(GVariant) value = g_variant_ref_sink (
    g_variant_new_from_bytes (G_VARIANT_TYPE_BYTESTRING, blob, TRUE));
  g_autoptr(RegCompiledFn) first = NULL;
  g_autoptr(RegCompiledFn) again = NULL;
  g_autoptr(RegCompiledFn) small = NULL;
  GVariantDict dict;

  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert_value (&dict, "blob", value);
  first = compile_ok (f->registry, "shared", neg_text, f->inputs, g_variant_dict_end (&dict));
  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert_value (&dict, "blob", value);
  again = compile_ok (f->registry, "shared", neg_text, f->inputs, g_variant_dict_end (&dict));

  g_assert_true (first != again);
  g_assert_cmpint (test_backend_get_compiles (f->shared), ==, 2);
  assert_counters (f->registry, 0, 0, 0);

  /* The cache still works after it. */
  small = compile_ok (f->registry, "shared", neg_text, f->inputs, NULL);
  g_clear_object (&small);
  small = compile_ok (f->registry, "shared", neg_text, f->inputs, NULL);
  assert_counters (f->registry, 1, 1, 0);
}

/* x * 2.0, built: the constant after the input, or before it; with an
 * unused constant at the end, or not. */
static RegGraph *
built_product (gboolean constant_first,
               gboolean unused_constant)
{
  RegGraph *graph = reg_graph_new ();
  g_autoptr(GError) error = NULL;
  guint two = constant_first ? reg_graph_add_constant (graph, 2.0) : 0;
  guint x = reg_graph_add_input (graph, "x");
  guint product;

  if (!constant_first)
    two = reg_graph_add_constant (graph, 2.0);
  product = reg_graph_add_op (graph, "mul", (const guint[]) { x, two }, 2, &error);
  g_assert_no_error (error);
  if (unused_constant)
    reg_graph_add_constant (graph, 3.0);
  reg_graph_set_outputs (graph, &product, 1);

  return graph;
}

/* The key is the graph as the backend receives it: its nodes in order,
 * with their names, and its outputs.  Graphs built by the same calls, or
 * parsed from the same text, are equal; graphs that only print alike are
 * not, since a backend sees (and may show) their differences. */
static void
test_graph_as_received (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(RegGraph) built = built_product (FALSE, FALSE);
  g_autoptr(RegGraph) again = built_product (FALSE, FALSE);
  g_autoptr(RegGraph) reordered = built_product (TRUE, FALSE);
  g_autoptr(RegGraph) unused = built_product (FALSE, TRUE);
  g_autoptr(RegGraph) parsed = NULL;
  RegGraph *others[3];
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) a = NULL;
  g_autoptr(RegCompiledFn) b = NULL;
  g_autoptr(RegCompiledFn) c = NULL;
  g_autoptr(RegCompiledFn) d = NULL;
  g_autofree char *text = reg_graph_to_string (built);

  a = reg_registry_compile (f->registry, "shared", built, f->inputs, NULL, &error);
  g_assert_no_error (error);
  b = reg_registry_compile (f->registry, "shared", again, f->inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (a == b);

  /* The same text, other graphs: the call named `v2` rather than unnamed,
   * the nodes numbered otherwise, a constant no one uses. */
  g_assert_cmpstr (text, ==, "graph(x):\n  v2 = mul(x, 2.0)\n  return (v2,)\n");
  parsed = graph_new_from_string (text);
  others[0] = parsed, others[1] = reordered, others[2] = unused;
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    {
      g_autoptr(RegCompiledFn) other = NULL;
      g_autofree char *other_text = reg_graph_to_string (others[i]);

      g_assert_cmpstr (other_text, ==, text);
      other = reg_registry_compile (f->registry, "shared", others[i], f->inputs, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (other != a);
    }

  /* A name counts... */
  c = compile_ok (f->registry, "shared", "graph(x):\n  y = mul(x, 2.0)\n  return (y,)\n",
                  f->inputs, NULL);
  g_assert_true (c != a);
  /* ...and so does the sign of a zero. */
  g_clear_object (&c);
  c = compile_ok (f->registry, "shared", "graph(x):\n  y = mul(x, -0.0)\n  return (y,)\n",
                  f->inputs, NULL);
  d = compile_ok (f->registry, "shared", "graph(x):\n  y = mul(x, 0.0)\n  return (y,)\n",
                  f->inputs, NULL);
  g_assert_true (c != d);
  g_assert_cmpint (test_backend_get_compiles (f->shared), ==, 7);
}

/* A graph of add (x, k), k the double of @bits. */
static RegGraph *
add_constant_graph (guint64 bits)
{
  RegGraph *graph = reg_graph_new ();
  g_autoptr(GError) error = NULL;
  guint x = reg_graph_add_input (graph, "x");
  double value;
  guint y;

  memcpy (&value, &bits, sizeof value);
  y = reg_graph_add_op (graph, "add", (const guint[]) { x, reg_graph_add_constant (graph, value) },
                        2, &error);
  g_assert_no_error (error);
  reg_graph_set_outputs (graph, &y, 1);

  return graph;
}

/* Every NaN prints `nan`, but the key holds a constant's bits, which the
 * backend computes with: NaNs of another sign or payload are other
 * compiles, and each function gives its own NaN. */
static void
test_nan_bits (void)
{
  static const struct { guint64 bits; guint32 result; } nans[] = {
    { 0x7ff8000000000000ull, 0x7fc00000u },   /* nan */
    { 0xfff8000000000000ull, 0xffc00000u },   /* -nan */
  };
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(RegCompiledFn) first = NULL;

  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 1 }, 1));
  for (guint i = 0; i < G_N_ELEMENTS (nans); i++)
    {
      g_autoptr(RegGraph) graph = add_constant_graph (nans[i].bits);
      g_autofree char *text = reg_graph_to_string (graph);
      g_autoptr(GError) error = NULL;
      g_autoptr(RegCompiledFn) fn = NULL;
      g_autoptr(GPtrArray) outputs = NULL;
      guint32 result;

      g_assert_cmpstr (text, ==, "graph(x):\n  v2 = add(x, nan)\n  return (v2,)\n");
      fn = reg_registry_compile (registry, "eager", graph, inputs, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (fn != first);
      outputs = reg_compiled_fn_call (fn, inputs, &error);
      g_assert_no_error (error);
      memcpy (&result, reg_tensor_get_data (g_ptr_array_index (outputs, 0), NULL), sizeof result);
      g_assert_cmphex (result, ==, nans[i].result);
      if (first == NULL)
        first = g_steal_pointer (&fn);
    }
}

/* A payload is part of the bits too. */
static void
test_nan_payloads (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(RegGraph) g1 = add_constant_graph (0x7ff8000000000000ull);
  g_autoptr(RegGraph) g2 = add_constant_graph (0x7ff8000000000001ull);
  g_autoptr(RegGraph) g3 = add_constant_graph (0x7ff8000000000001ull);
  g_autoptr(GError) error = NULL;
  g_autoptr(RegCompiledFn) a = NULL;
  g_autoptr(RegCompiledFn) b = NULL;
  g_autoptr(RegCompiledFn) c = NULL;

  a = reg_registry_compile (f->registry, "shared", g1, f->inputs, NULL, &error);
  b = reg_registry_compile (f->registry, "shared", g2, f->inputs, NULL, &error);
  c = reg_registry_compile (f->registry, "shared", g3, f->inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (a != b);
  g_assert_true (b == c);
  g_assert_cmpint (test_backend_get_compiles (f->shared), ==, 2);
}

static GVariant *
options_new (const char *first_key,
             ...)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  const char *key = first_key;
  va_list args;

  va_start (args, first_key);
  while (key != NULL)
    {
      g_variant_builder_add (&builder, "{sv}", key, g_variant_new_uint32 (va_arg (args, guint)));
      key = va_arg (args, const char *);
    }
  va_end (args);

  return g_variant_builder_end (&builder);
}

/* Options are part of the key, their order is not; no options and empty
 * options are two keys. */
static void
test_options (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(RegCompiledFn) ab = compile_ok (f->registry, "shared", neg_text, f->inputs,
                                            options_new ("a", 1, "b", 2, NULL));
  g_autoptr(RegCompiledFn) ba = compile_ok (f->registry, "shared", neg_text, f->inputs,
                                            options_new ("b", 2, "a", 1, NULL));
  g_autoptr(RegCompiledFn) other = compile_ok (f->registry, "shared", neg_text, f->inputs,
                                               options_new ("a", 1, "b", 3, NULL));
  g_autoptr(RegCompiledFn) none = compile_ok (f->registry, "shared", neg_text, f->inputs, NULL);
  g_autoptr(RegCompiledFn) empty = compile_ok (f->registry, "shared", neg_text, f->inputs,
                                               options_new (NULL));

  g_assert_true (ab == ba);
  g_assert_true (ab != other);
  g_assert_true (none != empty);
  g_assert_true (none != ab);
  g_assert_cmpint (test_backend_get_compiles (f->shared), ==, 4);
}

static void
store_result (GObject      *source_object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
  g_main_context_wakeup (NULL);
}

/* The error of compiling on "shared" with @options, by the path @how: the
 * registry's compile or the compiler's, each synchronous or not. */
static GError *
compile_error_by (Fixture    *f,
                  int         how,
                  GVariant   *options)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (neg_text);
  RegCompiler *compiler = REG_COMPILER (f->shared);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  GError *error = NULL;

  switch (how)
    {
    case 0:
      fn = reg_registry_compile (f->registry, "shared", graph, f->inputs, options, &error);
      break;
    case 1:
      fn = reg_compiler_compile (compiler, graph, f->inputs, options, &error);
      break;
    case 2:
      reg_registry_compile_async (f->registry, "shared", graph, f->inputs, options, NULL,
                                  store_result, &result);
      while (result == NULL)
        g_main_context_iteration (NULL, TRUE);
      fn = reg_registry_compile_finish (f->registry, result, &error);
      break;
    default:
      reg_compiler_compile_async (compiler, graph, f->inputs, options, NULL, store_result, &result);
      while (result == NULL)
        g_main_context_iteration (NULL, TRUE);
      fn = reg_compiler_compile_finish (compiler, result, &error);
    }

  g_assert_null (fn);
  return error;
}

/* A key given twice is refused on every path, before the cache is
 * looked in: a backend would read its first value (g_variant_lookup()),
 * and the key must be what the backend reads. */
static void
test_options_repeated_key (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GVariant) twice = g_variant_ref_sink (g_variant_new_parsed (
    "{'factor': <3>, 'factor': <2>}"));
  g_autoptr(GVariant) once = g_variant_ref_sink (g_variant_new_parsed ("{'factor': <2>}"));
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(RegCompiledFn) again = NULL;

  for (int how = 0; how < 4; how++)
    {
      g_autoptr(GError) error = compile_error_by (f, how, twice);

      g_test_message ("path %d", how);
      g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
      g_assert_cmpstr (error->message, ==, "option 'factor' for backend 'shared' is given twice");
    }
  g_assert_cmpint (test_backend_get_compiles (f->shared), ==, 0);

  /* The key given once compiles, is cached, and the repeated key still
   * finds nothing of it. */
  fn = compile_ok (f->registry, "shared", neg_text, f->inputs, once);
  g_assert_true (g_variant_equal (f->shared->last_options, once));
  again = compile_ok (f->registry, "shared", neg_text, f->inputs, once);
  g_assert_true (fn == again);
  {
    g_autoptr(GError) error = compile_error_by (f, 0, twice);

    g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
  }
  g_assert_cmpint (test_backend_get_compiles (f->shared), ==, 1);
  {
    guint64 hits;

    reg_registry_get_compile_cache_counters (f->registry, &hits, NULL, NULL);
    g_assert_cmpuint (hits, ==, 1);
  }
}

static void
test_shapes (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GPtrArray) other_inputs = tensor_array_new ();
  g_autoptr(RegCompiledFn) a = NULL;
  g_autoptr(RegCompiledFn) b = NULL;
  g_autoptr(RegCompiledFn) c = NULL;

  g_ptr_array_add (other_inputs, reg_tensor_new ((const gint64[]) { 3, 1 }, 2));
  a = compile_ok (f->registry, "shared", neg_text, f->inputs, NULL);
  b = compile_ok (f->registry, "shared", neg_text, other_inputs, NULL);
  c = compile_ok (f->registry, "shared", neg_text, f->inputs, NULL);
  g_assert_true (a != b);
  g_assert_true (a == c);
}

/* A backend that does not share its functions is never cached. */
static void
test_not_shareable (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(RegCompiledFn) a = compile_ok (f->registry, "private", neg_text, f->inputs, NULL);
  g_autoptr(RegCompiledFn) b = compile_ok (f->registry, "private", neg_text, f->inputs, NULL);

  g_assert_true (a != b);
  g_assert_cmpint (test_backend_get_compiles (f->private_), ==, 2);
  assert_counters (f->registry, 0, 0, 0);
}

static void
test_unregister_drops (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  RegCompiledFn *fn = compile_ok (f->registry, "shared", neg_text, f->inputs, NULL);
  g_autoptr(RegCompiledFn) again = NULL;

  g_object_add_weak_pointer (G_OBJECT (fn), (gpointer *) &fn);
  g_object_unref (fn);
  g_assert_nonnull (fn);   /* the cache holds it */

  g_assert_true (reg_registry_unregister_backend (f->registry, "shared", &error));
  g_assert_null (fn);

  /* Registered again, the same object compiles afresh. */
  g_assert_true (reg_registry_register_backend (f->registry, NULL, REG_COMPILER (f->shared), NULL, &error));
  again = compile_ok (f->registry, "shared", neg_text, f->inputs, NULL);
  g_assert_cmpint (test_backend_get_compiles (f->shared), ==, 2);
}

static void
test_rescan_drops (Fixture       *f,
                   gconstpointer  data)
{
  RegCompiledFn *fn = compile_ok (f->registry, "shared", neg_text, f->inputs, NULL);

  g_object_add_weak_pointer (G_OBJECT (fn), (gpointer *) &fn);
  g_object_unref (fn);
  g_assert_nonnull (fn);
  reg_registry_rescan (f->registry);
  g_assert_null (fn);
}

/* Compiles of the default backend are dropped when the default changes;
 * compiles by name stay. */
static void
test_default_change_drops (Fixture       *f,
                           gconstpointer  data)
{
  RegCompiledFn *by_default = NULL;
  RegCompiledFn *by_name = NULL;

  reg_registry_set_default_backend (f->registry, "shared");
  by_default = compile_ok (f->registry, NULL, neg_text, f->inputs, NULL);
  by_name = compile_ok (f->registry, "shared", "graph(x):\n  a = abs(x)\n  return (a,)\n",
                        f->inputs, NULL);
  g_object_add_weak_pointer (G_OBJECT (by_default), (gpointer *) &by_default);
  g_object_add_weak_pointer (G_OBJECT (by_name), (gpointer *) &by_name);
  g_object_unref (by_default);
  g_object_unref (by_name);

  reg_registry_set_default_backend (f->registry, "private");
  g_assert_null (by_default);
  g_assert_nonnull (by_name);
}

/* Least recently used first, by entry count; 0 disables the cache. */
static void
test_size_and_eviction (Fixture       *f,
                        gconstpointer  data)
{
  const char *texts[] = {
    "graph(x):\n  a = neg(x)\n  return (a,)\n",
    "graph(x):\n  a = abs(x)\n  return (a,)\n",
    "graph(x):\n  a = exp(x)\n  return (a,)\n",
  };
  RegCompiledFn *fns[G_N_ELEMENTS (texts)];
  g_autoptr(RegCompiledFn) again = NULL;

  g_assert_cmpuint (reg_registry_get_compile_cache_size (f->registry), ==,
                    REG_COMPILE_CACHE_DEFAULT_SIZE);
  reg_registry_set_compile_cache_size (f->registry, 2);
  g_assert_cmpuint (reg_registry_get_compile_cache_size (f->registry), ==, 2);

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      fns[i] = compile_ok (f->registry, "shared", texts[i], f->inputs, NULL);
      g_object_add_weak_pointer (G_OBJECT (fns[i]), (gpointer *) &fns[i]);
      g_object_unref (fns[i]);
      if (i == 1)
        {
          /* Use the first again: the second becomes the least recent. */
          g_autoptr(RegCompiledFn) hit = compile_ok (f->registry, "shared", texts[0], f->inputs, NULL);
        }
    }

  g_assert_nonnull (fns[0]);
  g_assert_null (fns[1]);
  g_assert_nonnull (fns[2]);
  assert_counters (f->registry, 1, 3, 1);

  reg_registry_set_compile_cache_size (f->registry, 0);
  g_assert_null (fns[0]);
  g_assert_null (fns[2]);
  again = compile_ok (f->registry, "shared", texts[0], f->inputs, NULL);
  g_assert_cmpint (test_backend_get_compiles (f->shared), ==, 4);
  assert_counters (f->registry, 1, 3, 3);
}

/* The estimate of memory bounds the cache too: a graph whose values are
 * larger than all of it is never kept, and leaves the cache as it was
 * (it evicted every other entry first, then itself). */
static void
test_memory_bound (Fixture       *f,
                   gconstpointer  data)
{
  const char *small_texts[] = {
    "graph(x):\n  a = neg(x)\n  return (a,)\n",
    "graph(x):\n  a = abs(x)\n  return (a,)\n",
  };
  g_autoptr(GPtrArray) small = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) big = tensor_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x):\n  a = neg(x)\n  b = abs(a)\n  return (a,)\n");
  RegCompiledFn *fn;

  for (guint i = 0; i < G_N_ELEMENTS (small_texts); i++)
    g_ptr_array_add (small, compile_ok (f->registry, "shared", small_texts[i], f->inputs, NULL));

  /* Three values of 32M floats: 384 MiB, above the cache's 256 MiB. */
  g_ptr_array_add (big, reg_tensor_new_uninitialized ((const gint64[]) { 32 * 1024 * 1024 }, 1));
  fn = reg_registry_compile (f->registry, "shared", graph, big, NULL, &error);
  g_assert_no_error (error);
  g_object_add_weak_pointer (G_OBJECT (fn), (gpointer *) &fn);
  g_object_unref (fn);
  g_assert_null (fn);

  /* Still there: equal compiles are hits. */
  assert_counters (f->registry, 0, 3, 0);
  for (guint i = 0; i < G_N_ELEMENTS (small_texts); i++)
    {
      g_autoptr(RegCompiledFn) again = compile_ok (f->registry, "shared", small_texts[i], f->inputs, NULL);

      g_assert_true (again == g_ptr_array_index (small, i));
    }
  assert_counters (f->registry, 2, 3, 0);
}

typedef struct
{
  Fixture       *f;
  RegCompiledFn *fn;
} Racer;

static gpointer
compile_racer (gpointer data)
{
  Racer *racer = data;

  racer->fn = compile_ok (racer->f->registry, "shared", neg_text, racer->f->inputs, NULL);

  return NULL;
}

/* Concurrent compiles of one key compile once, and all get the same
 * function: the first holds the others at the gate's side. */
static void
test_concurrent_compiles (Fixture       *f,
                          gconstpointer  data)
{
  Racer racers[4];
  GThread *threads[G_N_ELEMENTS (racers)];

  test_backend_close_gate (f->shared);
  for (guint i = 0; i < G_N_ELEMENTS (racers); i++)
    {
      racers[i] = (Racer) { f, NULL };
      threads[i] = g_thread_new ("racer", compile_racer, &racers[i]);
    }
  test_backend_wait_for_waiting (f->shared, 1);
  /* Give the others the time to queue behind it (a test of the waiting,
   * not of a timing: they compile once however late they come). */
  g_usleep (50 * G_TIME_SPAN_MILLISECOND);
  test_backend_open_gate (f->shared);

  for (guint i = 0; i < G_N_ELEMENTS (racers); i++)
    g_thread_join (threads[i]);

  g_assert_cmpint (test_backend_get_compiles (f->shared), ==, 1);
  for (guint i = 0; i < G_N_ELEMENTS (racers); i++)
    {
      g_assert_true (racers[i].fn == racers[0].fn);
      g_object_unref (racers[i].fn);
    }
}

/* A shareable backend whose compile, in the outermost compile of each
 * thread, first compiles the same graph on the backend @target of
 * @registry (itself, or another relay), after @rendezvous: as a backend
 * that delegates does. */
#define TEST_TYPE_RELAY (test_relay_get_type ())
G_DECLARE_FINAL_TYPE (TestRelay, test_relay, TEST, RELAY, GObject)

typedef struct
{
  GMutex mutex;
  GCond  cond;
  guint  arrived;
  guint  expected;
} Rendezvous;

struct _TestRelay
{
  GObject      parent_instance;
  char        *name;
  char        *target;
  RegRegistry *registry;     /* not a reference: it holds this */
  Rendezvous  *rendezvous;
  gint         compiles;     /* atomic */
};

/* The relay compiles the current thread is in. */
static GPrivate relay_depth;

static RegCompiledFn *
test_relay_compile (RegCompiler  *compiler,
                    RegGraph     *graph,
                    GPtrArray    *example_inputs,
                    GVariant     *options,
                    GError      **error)
{
  TestRelay *self = TEST_RELAY (compiler);
  guint depth = GPOINTER_TO_UINT (g_private_get (&relay_depth));
  TestBackendFn *fn;

  g_atomic_int_inc (&self->compiles);
  if (depth == 0)
    {
      g_autoptr(RegCompiledFn) inner = NULL;
      Rendezvous *r = self->rendezvous;

      g_mutex_lock (&r->mutex);
      r->arrived++;
      g_cond_broadcast (&r->cond);
      while (r->arrived < r->expected)
        g_cond_wait (&r->cond, &r->mutex);
      g_mutex_unlock (&r->mutex);

      g_private_set (&relay_depth, GUINT_TO_POINTER (depth + 1));
      inner = reg_registry_compile (self->registry, self->target, graph, example_inputs, NULL, error);
      g_private_set (&relay_depth, GUINT_TO_POINTER (depth));
      if (inner == NULL)
        return NULL;
    }

  fn = g_object_new (TEST_TYPE_BACKEND_FN, NULL);
  reg_graph_get_outputs (graph, &fn->n_outputs);

  return REG_COMPILED_FN (fn);
}

static char *
test_relay_dup_name (RegCompiler *compiler)
{
  return g_strdup (TEST_RELAY (compiler)->name);
}

static RegCompilerFlags
test_relay_get_flags (RegCompiler *compiler)
{
  return REG_COMPILER_FLAGS_SHAREABLE;
}

static void
test_relay_iface_init (RegCompilerInterface *iface)
{
  iface->compile = test_relay_compile;
  iface->dup_name = test_relay_dup_name;
  iface->get_flags = test_relay_get_flags;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestRelay, test_relay, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILER, test_relay_iface_init))

static void
test_relay_finalize (GObject *object)
{
  TestRelay *self = TEST_RELAY (object);

  g_free (self->name);
  g_free (self->target);

  G_OBJECT_CLASS (test_relay_parent_class)->finalize (object);
}

static void
test_relay_class_init (TestRelayClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_relay_finalize;
}

static void
test_relay_init (TestRelay *self)
{
}

static TestRelay *
relay_register (RegRegistry *registry,
                const char  *name,
                const char  *target,
                Rendezvous  *rendezvous)
{
  g_autoptr(GError) error = NULL;
  TestRelay *relay = g_object_new (TEST_TYPE_RELAY, NULL);

  relay->name = g_strdup (name);
  relay->target = g_strdup (target);
  relay->registry = registry;
  relay->rendezvous = rendezvous;
  g_assert_true (reg_registry_register_backend (registry, NULL, REG_COMPILER (relay), NULL, &error));
  g_assert_no_error (error);

  return relay;
}

/* A compile that compiles the same key again from within (in the thread
 * that claimed the key) does not wait for itself: the inner one compiles
 * on its own, and the outer one is kept. */
static void
test_reentrant_same_key (Fixture       *f,
                         gconstpointer  data)
{
  Rendezvous alone = { .expected = 1 };
  g_autoptr(TestRelay) relay = relay_register (f->registry, "relay", "relay", &alone);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(RegCompiledFn) again = NULL;
  Watchdog dog;

  watchdog_arm (&dog);
  fn = compile_ok (f->registry, "relay", neg_text, f->inputs, NULL);
  watchdog_disarm (&dog);
  g_assert_cmpint (g_atomic_int_get (&relay->compiles), ==, 2);

  again = compile_ok (f->registry, "relay", neg_text, f->inputs, NULL);
  g_assert_true (again == fn);
  g_assert_cmpint (g_atomic_int_get (&relay->compiles), ==, 2);
}

typedef struct
{
  Fixture       *f;
  const char    *backend;
  RegCompiledFn *fn;
} Relayer;

static gpointer
relayer_run (gpointer data)
{
  Relayer *relayer = data;

  relayer->fn = compile_ok (relayer->f->registry, relayer->backend, neg_text,
                            relayer->f->inputs, NULL);

  return NULL;
}

/* Two threads, each compiling a key whose compile needs the other's: the
 * second to come to the other's key does not wait for a thread that waits
 * for it, but compiles that key itself. */
static void
test_waits_form_no_cycle (Fixture       *f,
                          gconstpointer  data)
{
  Rendezvous both = { .expected = 2 };
  g_autoptr(TestRelay) a = relay_register (f->registry, "relay-a", "relay-b", &both);
  g_autoptr(TestRelay) b = relay_register (f->registry, "relay-b", "relay-a", &both);
  Relayer relayers[] = { { f, "relay-a", NULL }, { f, "relay-b", NULL } };
  GThread *threads[G_N_ELEMENTS (relayers)];
  Watchdog dog;

  watchdog_arm (&dog);
  for (guint i = 0; i < G_N_ELEMENTS (relayers); i++)
    threads[i] = g_thread_new ("relayer", relayer_run, &relayers[i]);
  for (guint i = 0; i < G_N_ELEMENTS (relayers); i++)
    g_thread_join (threads[i]);
  watchdog_disarm (&dog);

  /* Each outer compile, and one inner one (the other was a hit). */
  g_assert_cmpint (g_atomic_int_get (&a->compiles) + g_atomic_int_get (&b->compiles), ==, 3);
  for (guint i = 0; i < G_N_ELEMENTS (relayers); i++)
    {
      g_autoptr(RegCompiledFn) again = compile_ok (f->registry, relayers[i].backend, neg_text,
                                                   f->inputs, NULL);

      g_assert_true (again == relayers[i].fn);
      g_object_unref (relayers[i].fn);
    }
}

/* A compile that fails is not cached, and waiters compile themselves. */
static void
test_failure_not_cached (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(RegGraph) graph = graph_new_from_string (neg_text);
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;

  test_backend_fail_with (f->shared, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  fn = reg_registry_compile (f->registry, "shared", graph, f->inputs, NULL, &error);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  g_clear_error (&error);

  test_backend_fail_with (f->shared, 0, 0);
  fn = reg_registry_compile (f->registry, "shared", graph, f->inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (test_backend_get_compiles (f->shared), ==, 2);
}

/* Two callers build equal graphs and get one function from the cache:
 * when the first goes on building its graph, the second's function is
 * unchanged. */
static void
test_graph_changed_after_compile (void)
{
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(RegGraph) mine = NULL;
  g_autoptr(RegGraph) theirs = NULL;
  g_autoptr(RegCompiledFn) my_fn = NULL;
  g_autoptr(RegCompiledFn) their_fn = NULL;
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GError) error = NULL;
  guint y;

  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 4 }, 1));
  mine = add_constant_graph (0x3ff0000000000000ull);    /* add (x, 1.0) */
  theirs = add_constant_graph (0x3ff0000000000000ull);
  my_fn = reg_registry_compile (registry, "eager", mine, inputs, NULL, &error);
  g_assert_no_error (error);
  their_fn = reg_registry_compile (registry, "eager", theirs, inputs, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (my_fn == their_fn);

  reg_graph_add_input (mine, "late");
  y = reg_graph_add_op (mine, "neg", (const guint[]) { 0 }, 1, &error);
  g_assert_no_error (error);
  reg_graph_set_outputs (mine, (const guint[]) { y, y }, 2);

  outputs = reg_compiled_fn_call (their_fn, inputs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (outputs->len, ==, 1);
  g_assert_cmpfloat (reg_tensor_get_data (g_ptr_array_index (outputs, 0), NULL)[3], ==, 1.0f);
}

/* The shipped backends share their functions. */
static void
test_shipped_backends (void)
{
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  const char *names[] = { "eager", "inductor" };

  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 4 }, 1));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegCompiler) compiler = reg_registry_lookup_backend (registry, names[i], &error);
      g_autoptr(RegCompiledFn) a = NULL;
      g_autoptr(RegCompiledFn) b = NULL;

      g_assert_no_error (error);
      g_assert_cmpint (reg_compiler_get_flags (compiler), ==, REG_COMPILER_FLAGS_SHAREABLE);
      a = compile_ok (registry, names[i], neg_text, inputs, NULL);
      b = compile_ok (registry, names[i], neg_text, inputs, NULL);
      g_assert_true (a == b);
    }
}

/* ---- What a module's manifest says: Shareable= ------------------------- */

/* Writes into @dir the verify_ok fixture module, whose compiler does not
 * say it shares its functions (the eager interpreter under another name),
 * with a manifest whose [Backend verify_ok] group holds @keys.  Each call
 * is a copy of its own, loaded anew.  Returns a registry that searches
 * @dir first. */
static RegRegistry *
registry_with_fixture (const char *dir,
                       const char *keys)
{
  const char *module = "libfixture-verify-ok.so";
  g_autofree char *source = g_build_filename (FIXTURE_BUILDDIR, module, NULL);
  g_autofree char *manifest = NULL;
  RegRegistry *registry;

  copy_file (source, dir, module);
  manifest = g_strdup_printf ("[Reg Module]\nModule=%s\nAbiVersion=%d\n\n[Backend verify_ok]\n%s",
                              module, REG_MODULE_ABI_VERSION, keys);
  write_file (dir, "verify-ok.backend", manifest, -1);

  registry = reg_registry_new ();
  reg_registry_add_search_path (registry, dir);
  return registry;
}

static RegCompilerFlags
info_flags (RegRegistry *registry,
            const char  *name,
            gboolean     loaded)
{
  g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, name);
  RegCompilerFlags by_property;

  g_assert_nonnull (info);
  g_assert_cmpint (reg_backend_info_get_loaded (info), ==, loaded);
  g_object_get (info, "compiler-flags", &by_property, NULL);
  g_assert_cmpint (by_property, ==, reg_backend_info_get_compiler_flags (info));

  return reg_backend_info_get_compiler_flags (info);
}

/* A module backend whose compiler says nothing, but whose manifest says
 * Shareable=true, has its compiles cached; its info says so before and
 * after its module is loaded. */
static void
test_manifest_shareable (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autoptr(RegRegistry) registry = registry_with_fixture (dir, "Shareable=true\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(RegCompiledFn) a = NULL;
  g_autoptr(RegCompiledFn) b = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (info_flags (registry, "verify_ok", FALSE), ==, REG_COMPILER_FLAGS_SHAREABLE);

  compiler = reg_registry_lookup_backend (registry, "verify_ok", &error);
  g_assert_no_error (error);
  g_assert_cmpint (reg_compiler_get_flags (compiler), ==, REG_COMPILER_FLAGS_NONE);
  g_assert_cmpint (info_flags (registry, "verify_ok", TRUE), ==, REG_COMPILER_FLAGS_SHAREABLE);

  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 3 }, 1));
  a = compile_ok (registry, "verify_ok", neg_text, inputs, NULL);
  b = compile_ok (registry, "verify_ok", neg_text, inputs, NULL);
  g_assert_true (a == b);
  assert_counters (registry, 1, 1, 0);

  remove_tmp_dir (dir);
}

/* The same backend with Shareable=false, or without the key, compiles
 * afresh every time. */
static void
test_manifest_not_shareable (gconstpointer data)
{
  const char *keys = data;
  g_autofree char *dir = make_tmp_dir ();
  g_autoptr(RegRegistry) registry = registry_with_fixture (dir, keys);
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(RegCompiledFn) a = NULL;
  g_autoptr(RegCompiledFn) b = NULL;

  g_assert_cmpint (info_flags (registry, "verify_ok", FALSE), ==, REG_COMPILER_FLAGS_NONE);

  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 3 }, 1));
  a = compile_ok (registry, "verify_ok", neg_text, inputs, NULL);
  b = compile_ok (registry, "verify_ok", neg_text, inputs, NULL);
  g_assert_true (a != b);
  assert_counters (registry, 0, 0, 0);
  g_assert_cmpint (info_flags (registry, "verify_ok", TRUE), ==, REG_COMPILER_FLAGS_NONE);

  remove_tmp_dir (dir);
}

/* The flags of an info: the manifest's, ORed with the compiler's once it
 * exists.  eager's compiler says it shares its functions; declared by a
 * manifest that does not say it (its module reached through a symbolic
 * link), it is not known to share them until it is loaded. */
static void
test_info_compiler_flags (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *eager = g_build_filename (SHIPPED_MODULES_DIR, "libreg-eager.so", NULL);
  g_autofree char *link = g_build_filename (dir, "libreg-eager.so", NULL);
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(GError) error = NULL;

  /* Registered at run time: the compiler's own. */
  g_assert_cmpint (info_flags (f->registry, "shared", TRUE), ==, REG_COMPILER_FLAGS_SHAREABLE);
  g_assert_cmpint (info_flags (f->registry, "private", TRUE), ==, REG_COMPILER_FLAGS_NONE);

  g_assert_no_errno (symlink (eager, link));
  write_file (dir, "eager.backend",
              "[Reg Module]\nModule=libreg-eager.so\nAbiVersion=2\n\n[Backend eager]\nOptions=\n", -1);
  reg_registry_add_search_path (f->registry, dir);

  g_assert_cmpint (info_flags (f->registry, "eager", FALSE), ==, REG_COMPILER_FLAGS_NONE);
  compiler = reg_registry_lookup_backend (f->registry, "eager", &error);
  g_assert_no_error (error);
  g_assert_cmpint (info_flags (f->registry, "eager", TRUE), ==, REG_COMPILER_FLAGS_SHAREABLE);

  remove_tmp_dir (dir);
}

static void
test_size_from_environment (void)
{
  g_autoptr(RegRegistry) sized = NULL;
  g_autoptr(RegRegistry) bad = NULL;

  g_setenv ("REG_COMPILE_CACHE_SIZE", "7", TRUE);
  sized = reg_registry_new ();
  g_assert_cmpuint (reg_registry_get_compile_cache_size (sized), ==, 7);

  g_setenv ("REG_COMPILE_CACHE_SIZE", "seven\x1b[2J", TRUE);
  g_test_expect_message ("Reg", G_LOG_LEVEL_WARNING,
                         "REG_COMPILE_CACHE_SIZE=seven<U+001B>[2J is not a number of entries; using 128");
  bad = reg_registry_new ();
  g_test_assert_expected_messages ();
  g_assert_cmpuint (reg_registry_get_compile_cache_size (bad), ==, REG_COMPILE_CACHE_DEFAULT_SIZE);
  g_unsetenv ("REG_COMPILE_CACHE_SIZE");
}

int
main (int   argc,
      char *argv[])
{
  g_setenv ("REG_BACKEND_SYSTEM_DIR", "", TRUE);
  g_unsetenv ("REG_COMPILE_CACHE_SIZE");
  g_unsetenv ("REG_DEFAULT_BACKEND");
  g_unsetenv ("REG_FALLBACK_BACKENDS");

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/compile-cache/equal-graph", test_equal_graph);
  ADD ("/compile-cache/graph-as-received", test_graph_as_received);
  ADD ("/compile-cache/large-graph", test_large_graph);
  ADD ("/compile-cache/key-too-large", test_key_too_large);
  ADD ("/compile-cache/nan-payloads", test_nan_payloads);
  g_test_add_func ("/compile-cache/nan-bits", test_nan_bits);
  g_test_add_func ("/compile-cache/graph-changed-after-compile", test_graph_changed_after_compile);
  ADD ("/compile-cache/options", test_options);
  ADD ("/compile-cache/options/repeated-key", test_options_repeated_key);
  ADD ("/compile-cache/shapes", test_shapes);
  ADD ("/compile-cache/not-shareable", test_not_shareable);
  ADD ("/compile-cache/drop/unregister", test_unregister_drops);
  ADD ("/compile-cache/drop/rescan", test_rescan_drops);
  ADD ("/compile-cache/drop/default-change", test_default_change_drops);
  ADD ("/compile-cache/size-and-eviction", test_size_and_eviction);
  ADD ("/compile-cache/memory-bound", test_memory_bound);
  ADD ("/compile-cache/concurrent-compiles", test_concurrent_compiles);
  ADD ("/compile-cache/reentrant-same-key", test_reentrant_same_key);
  ADD ("/compile-cache/waits-form-no-cycle", test_waits_form_no_cycle);
  ADD ("/compile-cache/failure-not-cached", test_failure_not_cached);
  ADD ("/compile-cache/info-compiler-flags", test_info_compiler_flags);
#undef ADD
  g_test_add_func ("/compile-cache/manifest/shareable", test_manifest_shareable);
  g_test_add_data_func ("/compile-cache/manifest/not-shareable/false", "Shareable=false\n",
                        test_manifest_not_shareable);
  g_test_add_data_func ("/compile-cache/manifest/not-shareable/absent", "Description=No word of it\n",
                        test_manifest_not_shareable);
  g_test_add_func ("/compile-cache/shipped-backends", test_shipped_backends);
  g_test_add_func ("/compile-cache/size-from-environment", test_size_from_environment);

  return g_test_run ();
}
