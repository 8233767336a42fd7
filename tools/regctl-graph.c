/* regctl-graph.c: graph files, input tensors, backend options and timing
 * for `regctl run` and `regctl bench`
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "reg-file-private.h"
#include "regctl.h"

G_DEFINE_QUARK (regctl-error-quark, regctl_error)

/* The largest float below 1, so that inputs stay in [-1, 1) after the
 * double GRand draws is rounded to float. */
#define BELOW_ONE 0.99999994f

/**
 * regctl_parse_shape:
 * @text: "4x3", "16", "scalar"...
 * @shape: (out): the shape
 * @error: return location for a %REGCTL_ERROR_USAGE error
 *
 * Returns: %TRUE when @text is a shape of at most %REG_TENSOR_MAX_DIMS
 *   positive dimensions and %REGCTL_MAX_ELEMENTS elements
 */
gboolean
regctl_parse_shape (const char   *text,
                    RegctlShape  *shape,
                    GError      **error)
{
  g_auto(GStrv) dims = NULL;
  guint64 n_elements = 1;
  guint n_dims;

  if (g_str_equal (text, "scalar"))
    {
      shape->n_dims = 0;
      return TRUE;
    }

  dims = g_strsplit (text, "x", -1);
  n_dims = g_strv_length (dims);
  if (n_dims == 0 || n_dims > REG_TENSOR_MAX_DIMS)
    {
      g_set_error (error, REGCTL_ERROR, REGCTL_ERROR_USAGE,
                   "'%s' is not a shape: expected 1 to %d dimensions joined by 'x' (4x3), or 'scalar'",
                   text, REG_TENSOR_MAX_DIMS);
      return FALSE;
    }

  for (guint i = 0; i < n_dims; i++)
    {
      guint64 dim;

      if (!g_ascii_string_to_unsigned (dims[i], 10, 1, REGCTL_MAX_ELEMENTS, &dim, NULL))
        {
          g_set_error (error, REGCTL_ERROR, REGCTL_ERROR_USAGE,
                       "'%s' is not a shape: '%s' is not a positive dimension",
                       text, dims[i]);
          return FALSE;
        }

      n_elements *= dim;
      if (n_elements > (guint64) REGCTL_MAX_ELEMENTS)
        {
          g_set_error (error, REGCTL_ERROR, REGCTL_ERROR_USAGE,
                       "shape '%s' has more than %" G_GINT64_FORMAT " elements",
                       text, REGCTL_MAX_ELEMENTS);
          return FALSE;
        }
      shape->shape[i] = (gint64) dim;
    }
  shape->n_dims = n_dims;

  return TRUE;
}

/**
 * regctl_shape_to_string:
 * @shape: (array length=n_dims): dimensions
 * @n_dims: how many
 *
 * Returns: (transfer full): "4x3", or "scalar" for a 0-d shape
 */
char *
regctl_shape_to_string (const gint64 *shape,
                        guint         n_dims)
{
  GString *out;

  if (n_dims == 0)
    return g_strdup ("scalar");

  out = g_string_new (NULL);
  for (guint i = 0; i < n_dims; i++)
    g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i > 0 ? "x" : "", shape[i]);

  return g_string_free (out, FALSE);
}

/**
 * regctl_parse_input_specs:
 * @specs: (nullable): the values of --input, "NAME=SHAPE"
 * @error: return location for a %REGCTL_ERROR_USAGE error
 *
 * Returns: (transfer full) (element-type utf8 RegctlShape): input names to
 *   shapes, or %NULL with @error set
 */
GHashTable *
regctl_parse_input_specs (char   **specs,
                          GError **error)
{
  g_autoptr(GHashTable) shapes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; specs != NULL && specs[i] != NULL; i++)
    {
      const char *equal = strchr (specs[i], '=');
      g_autofree char *name = NULL;
      g_autofree RegctlShape *shape = g_new0 (RegctlShape, 1);
      g_autoptr(GError) local_error = NULL;

      if (equal == NULL || equal == specs[i])
        {
          g_set_error (error, REGCTL_ERROR, REGCTL_ERROR_USAGE,
                       "--input '%s': expected NAME=SHAPE, like x=4x3", specs[i]);
          return NULL;
        }

      name = g_strndup (specs[i], equal - specs[i]);
      if (!regctl_parse_shape (equal + 1, shape, &local_error))
        {
          g_set_error (error, REGCTL_ERROR, REGCTL_ERROR_USAGE,
                       "--input '%s': %s", specs[i], local_error->message);
          return NULL;
        }
      if (g_hash_table_contains (shapes, name))
        {
          g_set_error (error, REGCTL_ERROR, REGCTL_ERROR_USAGE,
                       "--input: input '%s' given twice", name);
          return NULL;
        }

      g_hash_table_insert (shapes, g_steal_pointer (&name), g_steal_pointer (&shape));
    }

  return g_steal_pointer (&shapes);
}

/**
 * regctl_parse_option:
 * @text: "KEY=VALUE", or "BACKEND/KEY=VALUE" when @allow_backend
 * @allow_backend: whether a "BACKEND/" prefix is understood
 * @backend: (out) (transfer full) (nullable): the backend it is for, or
 *   %NULL for all
 * @key: (out) (transfer full): the key
 * @value: (out) (transfer full): VALUE, as text: it is read by the type
 *   the backend's schema gives the key (regctl_parse_options())
 * @error: return location for a %REGCTL_ERROR_USAGE error
 *
 * Backend names cannot hold '/' (docs/names.md), so the first '/' before the
 * '=' ends the backend name.
 *
 * Returns: %TRUE on success
 */
gboolean
regctl_parse_option (const char  *text,
                     gboolean     allow_backend,
                     char       **backend,
                     char       **key,
                     char       **value,
                     GError     **error)
{
  const char *equal = strchr (text, '=');
  g_autofree char *left = NULL;
  g_autofree char *for_backend = NULL;
  char *slash;

  if (equal == NULL || equal == text)
    {
      g_set_error (error, REGCTL_ERROR, REGCTL_ERROR_USAGE,
                   "--option '%s': expected %sKEY=VALUE, like fuse=false",
                   text, allow_backend ? "[BACKEND/]" : "");
      return FALSE;
    }

  left = g_strndup (text, equal - text);
  slash = allow_backend ? strchr (left, '/') : NULL;
  if (slash != NULL)
    {
      *slash = '\0';
      for_backend = g_strdup (left);
      memmove (left, slash + 1, strlen (slash + 1) + 1);
      if (for_backend[0] == '\0' || left[0] == '\0')
        {
          g_set_error (error, REGCTL_ERROR, REGCTL_ERROR_USAGE,
                       "--option '%s': expected BACKEND/KEY=VALUE", text);
          return FALSE;
        }
    }

  *backend = g_steal_pointer (&for_backend);
  *key = g_steal_pointer (&left);
  *value = g_strdup (equal + 1);
  return TRUE;
}

/**
 * regctl_check_options:
 * @specs: (nullable): the values of --option
 * @allow_backend: whether "BACKEND/KEY=VALUE" is understood
 * @error: return location for a %REGCTL_ERROR_USAGE error
 *
 * Checks the form of every --option, before any backend is looked up.
 *
 * Returns: %TRUE on success
 */
gboolean
regctl_check_options (char    **specs,
                      gboolean  allow_backend,
                      GError  **error)
{
  for (guint i = 0; specs != NULL && specs[i] != NULL; i++)
    {
      g_autofree char *backend = NULL;
      g_autofree char *key = NULL;
      g_autofree char *value = NULL;

      if (!regctl_parse_option (specs[i], allow_backend, &backend, &key, &value, error))
        return FALSE;
    }

  return TRUE;
}

/* Whether the backend of @info declares @key, or judges every key itself
 * (it has no schema). */
static gboolean
takes_key (RegBackendInfo *info,
           const char     *key)
{
  GListModel *schema = reg_backend_info_get_options (info);

  for (guint i = 0; schema != NULL && i < g_list_model_get_n_items (schema); i++)
    {
      g_autoptr(RegOption) option = g_list_model_get_item (schema, i);

      if (g_str_equal (reg_option_get_name (option), key))
        return TRUE;
    }

  return schema == NULL;
}

/* The value of --option @spec (key @key, value @text), read as libreg
 * reads options from text for the backend of @info.  A key the backend
 * does not declare fails as its compile would (exit status 1, libreg's
 * message naming close keys); a value that does not read is a usage
 * error. */
static GVariant *
read_value (RegBackendInfo  *info,
            const char      *spec,
            const char      *key,
            const char      *text,
            GError         **error)
{
  g_autofree char *assignment = g_strconcat (key, "=", text, NULL);
  const char * const assignments[] = { assignment, NULL };
  g_autoptr(GVariant) options = NULL;
  g_autoptr(GError) local_error = NULL;

  options = reg_backend_info_parse_options (info, assignments, &local_error);
  if (options != NULL)
    return g_variant_lookup_value (options, key, NULL);

  if (!takes_key (info, key))
    g_propagate_error (error, g_steal_pointer (&local_error));
  else
    g_set_error (error, REGCTL_ERROR, REGCTL_ERROR_USAGE,
                 "--option '%s': %s", spec, local_error->message);
  return NULL;
}

static int
compare_keys (gconstpointer a,
              gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Adds the entries of @from to @merged (borrowed keys and values),
 * replacing those of the same key, and new keys to @keys. */
static void
merge_into (GHashTable *merged,
            GPtrArray  *keys,
            GHashTable *from)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, from);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (g_hash_table_insert (merged, key, value))
      g_ptr_array_add (keys, key);
}

/**
 * regctl_parse_options:
 * @specs: (nullable): the values of --option
 * @allow_backend: whether "BACKEND/KEY=VALUE" is understood
 * @info: the backend to gather options for: those without a backend
 *   prefix and those for it, which win; values are read by its schema
 *   (reg_backend_info_parse_options())
 * @options: (out) (transfer full) (nullable): an `a{sv}`, or %NULL when no
 *   option applies (so the backend sees no options rather than an empty
 *   dictionary)
 * @error: return location for a %REGCTL_ERROR_USAGE error, or libreg's
 *   %REG_COMPILER_ERROR_BAD_OPTION for a key the backend does not declare
 *
 * Returns: %TRUE on success
 */
gboolean
regctl_parse_options (char           **specs,
                      gboolean         allow_backend,
                      RegBackendInfo  *info,
                      GVariant       **options,
                      GError         **error)
{
  const char *backend = reg_backend_info_get_name (info);
  g_autoptr(GHashTable) common = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                        (GDestroyNotify) g_variant_unref);
  g_autoptr(GHashTable) specific = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) g_variant_unref);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) merged = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) keys = g_ptr_array_new ();
  g_autoptr(GPtrArray) wanted = g_ptr_array_new ();
  GVariantBuilder builder;

  *options = NULL;

  /* The form and the repeats of every --option first, then the values in
   * the order given: a key given twice is a usage error, whatever the
   * backend would say of it. */
  for (guint i = 0; specs != NULL && specs[i] != NULL; i++)
    {
      g_autofree char *for_backend = NULL;
      g_autofree char *key = NULL;
      g_autofree char *text = NULL;

      if (!regctl_parse_option (specs[i], allow_backend, &for_backend, &key, &text, error))
        return FALSE;
      if (for_backend != NULL && !g_str_equal (for_backend, backend))
        continue;

      if (!g_hash_table_add (seen, g_strconcat (for_backend != NULL ? "/" : "", key, NULL)))
        {
          g_set_error (error, REGCTL_ERROR, REGCTL_ERROR_USAGE,
                       "--option: key '%s' given twice", key);
          return FALSE;
        }
      g_ptr_array_add (wanted, specs[i]);
    }

  for (guint i = 0; i < wanted->len; i++)
    {
      const char *spec = g_ptr_array_index (wanted, i);
      g_autofree char *for_backend = NULL;
      g_autofree char *key = NULL;
      g_autofree char *text = NULL;
      GVariant *value;

      regctl_parse_option (spec, allow_backend, &for_backend, &key, &text, NULL);
      value = read_value (info, spec, key, text, error);
      if (value == NULL)
        return FALSE;
      g_hash_table_insert (for_backend != NULL ? specific : common, g_steal_pointer (&key), value);
    }

  if (g_hash_table_size (common) == 0 && g_hash_table_size (specific) == 0)
    return TRUE;

  /* Options for the backend itself override common ones of the same key. */
  merge_into (merged, keys, common);
  merge_into (merged, keys, specific);

  /* Sorted, so the dictionary does not depend on hashing. */
  g_ptr_array_sort (keys, compare_keys);

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  for (guint i = 0; i < keys->len; i++)
    {
      const char *key = g_ptr_array_index (keys, i);

      g_variant_builder_add (&builder, "{sv}", key, g_hash_table_lookup (merged, key));
    }
  *options = g_variant_ref_sink (g_variant_builder_end (&builder));

  return TRUE;
}

/**
 * regctl_load_graph:
 * @path: a graph file, or "-" for standard input
 * @error: return location for a #GError
 *
 * Reads and parses a graph file: a regular file of at most
 * %REGCTL_MAX_GRAPH_SIZE bytes, or standard input read within that bound.
 * Parse errors keep their %REG_GRAPH_ERROR domain and code, with the file
 * name (escaped) put before their "LINE:COLUMN: " so that they read
 * `FILE:LINE:COLUMN: message`, as compilers print them; a file that cannot
 * be read is a %REGCTL_ERROR_FAILED error saying why.
 *
 * Returns: (transfer full): the graph, or %NULL with @error set
 */
RegGraph *
regctl_load_graph (const char  *path,
                   GError     **error)
{
  g_autofree char *display = NULL;
  g_autoptr(GBytes) contents = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(RegGraph) graph = NULL;
  const char *text;
  gsize length;

  /* The file reader of libreg: bounded, a special file refused unread
   * (regctl run /dev/zero grew to gigabytes), standard input read to its
   * end within the same bound. */
  if (g_str_equal (path, "-"))
    {
      display = g_strdup ("<stdin>");
      contents = _reg_file_read_fd (STDIN_FILENO, REGCTL_MAX_GRAPH_SIZE, "a graph file",
                                    NULL, &local_error);
    }
  else
    {
      display = regctl_escape (path);
      contents = _reg_file_read (path, REGCTL_MAX_GRAPH_SIZE, "a graph file", NULL, &local_error);
    }
  if (contents == NULL)
    {
      g_set_error (error, REGCTL_ERROR, REGCTL_ERROR_FAILED, "%s: %s", display, local_error->message);
      return NULL;
    }

  /* NUL-terminated by the reader. */
  text = g_bytes_get_data (contents, &length);
  if (length == 0)
    text = "";
  if (memchr (text, '\0', length) != NULL || !g_utf8_validate (text, length, NULL))
    {
      g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_PARSE,
                   "%s: not a graph: the file is not UTF-8 text", display);
      return NULL;
    }

  graph = reg_graph_new_from_string (text, &local_error);
  if (graph == NULL)
    {
      /* "LINE:COLUMN: ..." gets the file name glued on; a message without
       * a position (none should come) gets it as a prefix. */
      g_set_error (error, local_error->domain, local_error->code, "%s:%s%s",
                   display, g_ascii_isdigit (local_error->message[0]) ? "" : " ",
                   local_error->message);
      return NULL;
    }

  return g_steal_pointer (&graph);
}

static char *
describe_graph_inputs (RegGraph *graph)
{
  g_autoptr(GString) names = g_string_new (NULL);
  const guint *inputs;
  guint n_inputs;

  inputs = reg_graph_get_inputs (graph, &n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    g_string_append_printf (names, "%s%s", i > 0 ? ", " : "",
                            reg_graph_get_node_name (graph, inputs[i]));

  return g_string_free (g_steal_pointer (&names), FALSE);
}

/**
 * regctl_make_inputs:
 * @graph: a graph
 * @shapes: (element-type utf8 RegctlShape): shapes from --input
 * @default_size: inputs not in @shapes are @default_size x @default_size
 * @seed: the GRand seed
 * @error: return location for a %REGCTL_ERROR_USAGE error (a name in
 *   @shapes that is not an input of @graph), or %REG_TENSOR_ERROR_NO_MEMORY
 *   naming the input
 *
 * Makes one tensor per graph input, in graph order, filled with values
 * uniform in [-1, 1) drawn in order from one GRand seeded with @seed.
 *
 * Returns: (transfer full) (element-type RegTensor): the inputs
 */
GPtrArray *
regctl_make_inputs (RegGraph    *graph,
                    GHashTable  *shapes,
                    gint64       default_size,
                    guint32      seed,
                    GError     **error)
{
  g_autoptr(GPtrArray) tensors = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GRand) rand = NULL;
  GHashTableIter iter;
  gpointer key;
  const guint *inputs;
  guint n_inputs;

  inputs = reg_graph_get_inputs (graph, &n_inputs);

  g_hash_table_iter_init (&iter, shapes);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      gboolean found = FALSE;

      for (guint i = 0; i < n_inputs && !found; i++)
        found = g_strcmp0 (reg_graph_get_node_name (graph, inputs[i]), key) == 0;

      if (!found)
        {
          g_autofree char *names = describe_graph_inputs (graph);

          g_set_error (error, REGCTL_ERROR, REGCTL_ERROR_USAGE,
                       "--input: the graph has no input '%s' (its inputs: %s)",
                       (const char *) key, n_inputs > 0 ? names : "none");
          return NULL;
        }
    }

  rand = g_rand_new_with_seed (seed);
  for (guint i = 0; i < n_inputs; i++)
    {
      const RegctlShape *given = g_hash_table_lookup (shapes, reg_graph_get_node_name (graph, inputs[i]));
      RegctlShape shape = { { default_size, default_size }, 2 };
      RegTensor *tensor;
      float *data;
      gsize n_elements;

      if (given != NULL)
        shape = *given;

      /* Up to REGCTL_MAX_ELEMENTS (1 GiB) each, from the command line:
       * memory may be short, which is an error, not an abort. */
      tensor = reg_tensor_try_new (shape.shape, shape.n_dims, error);
      if (tensor == NULL)
        {
          g_prefix_error (error, "input '%s': ", reg_graph_get_node_name (graph, inputs[i]));
          return NULL;
        }
      g_ptr_array_add (tensors, tensor);

      data = reg_tensor_get_data (tensor, &n_elements);
      for (gsize j = 0; j < n_elements; j++)
        data[j] = MIN ((float) g_rand_double_range (rand, -1.0, 1.0), BELOW_ONE);
    }

  return g_steal_pointer (&tensors);
}

/**
 * regctl_append_values:
 * @out: where to append
 * @tensor: a tensor
 * @max_values: how many values to show at most (0: all)
 *
 * Appends "[v0, v1, ...]" (6 significant digits), with "..." when values
 * are left out.
 */
void
regctl_append_values (GString   *out,
                      RegTensor *tensor,
                      guint      max_values)
{
  const float *data;
  gsize n_elements;
  gsize n_shown;

  data = reg_tensor_get_data (tensor, &n_elements);
  n_shown = max_values > 0 ? MIN (n_elements, max_values) : n_elements;

  g_string_append_c (out, '[');
  for (gsize i = 0; i < n_shown; i++)
    {
      g_autofree char *value = regctl_format_double (data[i], "%.6g");

      g_string_append_printf (out, "%s%s", i > 0 ? ", " : "", value);
    }
  if (n_shown < n_elements)
    g_string_append (out, n_shown > 0 ? ", ..." : "...");
  g_string_append_c (out, ']');
}

/**
 * regctl_now_ns:
 *
 * Returns: a monotonic time in nanoseconds (g_get_monotonic_time() counts
 *   microseconds, too coarse for small graphs)
 */
gint64
regctl_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/**
 * regctl_format_ms:
 * @ns: a duration in nanoseconds
 * @format: a printf() format for a double
 *
 * Returns: (transfer full): @ns in milliseconds
 */
char *
regctl_format_ms (gint64      ns,
                  const char *format)
{
  return regctl_format_double ((double) ns / 1e6, format);
}

gboolean
regctl_stderr_is_terminal (void)
{
  return isatty (STDERR_FILENO);
}
