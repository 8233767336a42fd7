/* test-option.c: RegOption, and the schema checks of reg_compiler_compile()
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <string.h>

#include <reg.h>

#include "test-files.h"
#include "test-objects.h"

/* ---- Declarations ------------------------------------------------------- */

static void
test_new_plain (void)
{
  g_autoptr(RegOption) option = NULL;
  g_autoptr(GError) error = NULL;

  option = reg_option_new ("fuse", "b", g_variant_new_boolean (TRUE),
                           "Fuse elementwise chains", &error);
  g_assert_no_error (error);
  g_assert_true (REG_IS_OPTION (option));
  g_assert_cmpstr (reg_option_get_name (option), ==, "fuse");
  g_assert_cmpstr (reg_option_get_type_string (option), ==, "b");
  g_assert_cmpstr (reg_option_get_type_name (option), ==, "boolean");
  g_assert_true (g_variant_get_boolean (reg_option_get_default_value (option)));
  g_assert_false (g_variant_is_floating (reg_option_get_default_value (option)));
  g_assert_cmpstr (reg_option_get_description (option), ==, "Fuse elementwise chains");
  g_assert_null (reg_option_get_minimum (option));
  g_assert_null (reg_option_get_maximum (option));
  g_assert_null (reg_option_get_choices (option));

  /* The properties say the same. */
  {
    g_autofree char *name = NULL;
    g_autofree char *type_string = NULL;
    g_autoptr(GVariant) default_value = NULL;

    g_object_get (option, "name", &name, "type-string", &type_string,
                  "default-value", &default_value, NULL);
    g_assert_cmpstr (name, ==, "fuse");
    g_assert_cmpstr (type_string, ==, "b");
    g_assert_true (g_variant_get_boolean (default_value));
  }

  /* No default, no description. */
  g_clear_object (&option);
  option = reg_option_new ("mode", "s", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (reg_option_get_default_value (option));
  g_assert_null (reg_option_get_description (option));
  g_assert_cmpstr (reg_option_get_type_name (option), ==, "string");
}

static void
test_new_range_and_choices (void)
{
  g_autoptr(RegOption) threads = NULL;
  g_autoptr(RegOption) mode = NULL;
  g_autoptr(RegOption) passes = NULL;
  g_autoptr(GError) error = NULL;
  const char * const modes[] = { "fast", "small", NULL };
  const char * const pass_names[] = { "fold", "cse", "dce", NULL };
  const char * const default_passes[] = { "fold", "dce", NULL };

  threads = reg_option_new_with_range ("threads", "u", g_variant_new_uint32 (1),
                                       g_variant_new_uint32 (0), g_variant_new_uint32 (256),
                                       "Threads a call runs on", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_variant_get_uint32 (reg_option_get_minimum (threads)), ==, 0);
  g_assert_cmpuint (g_variant_get_uint32 (reg_option_get_maximum (threads)), ==, 256);

  mode = reg_option_new_with_choices ("mode", "s", g_variant_new_string ("fast"), modes,
                                      NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (reg_option_get_choices (mode), modes);

  passes = reg_option_new_with_choices ("passes", "as",
                                        g_variant_new_strv (default_passes, -1),
                                        pass_names, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (reg_option_get_type_name (passes), ==, "string list");
}

/* Every way a declaration can be wrong, and the words that say it. */
static void
test_new_invalid (void)
{
  const char * const good[] = { "a", "b", NULL };
  const char * const repeated[] = { "a", "a", NULL };
  const char * const spaced[] = { "a b", NULL };
  const char * const empty[] = { NULL };
  struct {
    RegOption  *option;
    const char *message;
  } cases[17];
  guint n = 0;
  GError *errors[G_N_ELEMENTS (cases)] = { NULL, };

#define CASE(call, text) \
  G_STMT_START { \
    cases[n].option = (call); \
    cases[n].message = (text); \
    n++; \
  } G_STMT_END
#define E (&errors[n])

  CASE (reg_option_new ("", "b", NULL, NULL, E), "invalid option name '': empty");
  CASE (reg_option_new ("a=b", "b", NULL, NULL, E), "invalid option name 'a=b': character '=' at byte 1 is not allowed");
  CASE (reg_option_new ("x", "a{sv}", NULL, NULL, E), "option 'x': type 'a{sv}' is not one an option may have (b, y, n, q, i, u, x, t, d, s or as)");
  CASE (reg_option_new ("x", "u", g_variant_new_int32 (1), NULL, E), "option 'x': default of type int32 ('i'), not of the option's type uint32 ('u')");
  CASE (reg_option_new ("x", "b", NULL, "two\nlines", E), "option 'x': description holds U+000A at byte 3; it must be one line of visible text");
  CASE (reg_option_new ("x", "b", NULL, "caf\xe9", E), "option 'x': description holds invalid UTF-8 at byte 3; it must be one line of visible text");
  CASE (reg_option_new_with_range ("x", "s", NULL, g_variant_new_string ("a"), NULL, NULL, E), "option 'x': only numbers have a range, not string options");
  CASE (reg_option_new_with_range ("x", "u", NULL, g_variant_new_uint32 (5), g_variant_new_uint32 (2), NULL, E), "option 'x': minimum 5 is above maximum 2");
  CASE (reg_option_new_with_range ("x", "u", g_variant_new_uint32 (9), g_variant_new_uint32 (1), g_variant_new_uint32 (8), NULL, E), "option 'x': default must be between 1 and 8, not 9");
  CASE (reg_option_new_with_range ("x", "d", NULL, NULL, g_variant_new_double (INFINITY), NULL, E), "option 'x': the bounds of a range must be finite numbers");
  CASE (reg_option_new_with_range ("x", "i", NULL, g_variant_new_uint32 (1), NULL, NULL, E), "option 'x': minimum of type uint32 ('u'), not of the option's type int32 ('i')");
  CASE (reg_option_new_with_choices ("x", "u", NULL, good, NULL, E), "option 'x': only string and string list options have choices, not uint32 ones");
  CASE (reg_option_new_with_choices ("x", "s", NULL, empty, NULL, E), "option 'x': 0 choices, from 1 to 256 are allowed");
  CASE (reg_option_new_with_choices ("x", "s", NULL, repeated, NULL, E), "option 'x': choice 'a' given twice");
  CASE (reg_option_new_with_choices ("x", "s", NULL, spaced, NULL, E), "option 'x': invalid choice 'a b': white space U+0020 at byte 1 is not allowed");
  CASE (reg_option_new_with_choices ("x", "s", g_variant_new_string ("c"), good, NULL, E), "option 'x': default must be one of 'a', 'b', not 'c'");
  CASE (reg_option_new_with_choices ("x", "as", g_variant_new_strv ((const char * const[]) { "a", "z", NULL }, -1), good, NULL, E), "option 'x': default holds 'z', which is not one of 'a', 'b'");

#undef CASE
#undef E

  g_assert_cmpuint (n, ==, G_N_ELEMENTS (cases));
  for (guint i = 0; i < n; i++)
    {
      g_test_message ("case %u: %s", i, cases[i].message);
      g_assert_null (cases[i].option);
      g_assert_error (errors[i], REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
      g_assert_cmpstr (errors[i]->message, ==, cases[i].message);
      g_clear_error (&errors[i]);
    }
}

/* A long description is refused, one of the limit is not. */
static void
test_new_description_limit (void)
{
  g_autofree char *limit = g_strnfill (1024, 'd');
  g_autofree char *over = g_strnfill (1025, 'd');
  g_autoptr(RegOption) option = NULL;
  g_autoptr(GError) error = NULL;

  option = reg_option_new ("x", "b", NULL, limit, &error);
  g_assert_no_error (error);
  g_assert_nonnull (option);

  g_assert_null (reg_option_new ("x", "b", NULL, over, &error));
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
  g_assert_nonnull (strstr (error->message, "1025 bytes"));
}

/* ---- Values ------------------------------------------------------------- */

typedef struct
{
  const char *type_string;
  const char *text;
  const char *expected;  /* GVariant text with types, or NULL: refused */
} ParseCase;

static const ParseCase parse_cases[] = {
  { "b", "true", "true" },
  { "b", "false", "false" },
  { "b", "True", NULL },
  { "b", "1", NULL },
  { "y", "255", "byte 0xff" },
  { "y", "256", NULL },
  { "n", "-32768", "int16 -32768" },
  { "q", "65535", "uint16 65535" },
  { "i", "-7", "-7" },
  { "i", "2147483648", NULL },
  { "u", "2", "uint32 2" },
  { "u", "-1", NULL },
  { "u", " 2 ", "uint32 2" },
  { "u", "uint32 2", "uint32 2" },
  { "u", "0x10", "uint32 16" },
  { "x", "-9223372036854775808", "int64 -9223372036854775808" },
  { "t", "18446744073709551615", "uint64 18446744073709551615" },
  { "d", "0.25", "0.25" },
  { "d", "1e-3", "0.001" },
  { "d", "", NULL },
  { "d", "fast", NULL },
  { "s", "fast", "'fast'" },
  { "s", "", "''" },
  { "s", "'quoted'", "'quoted'" },
  { "s", "'unterminated", "\"'unterminated\"" },
  { "s", "a b, c", "'a b, c'" },
  { "as", "fold,cse", "['fold', 'cse']" },
  { "as", " fold , cse ,", "['fold', 'cse']" },
  { "as", "", "@as []" },
  { "as", "['a,b', 'c']", "['a,b', 'c']" },
  { "as", "[unclosed", NULL },
};

static void
test_parse_value (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (parse_cases); i++)
    {
      const ParseCase *c = &parse_cases[i];
      g_autoptr(RegOption) option = reg_option_new ("opt", c->type_string, NULL, NULL, NULL);
      g_autoptr(GVariant) value = NULL;
      g_autoptr(GError) error = NULL;

      g_test_message ("%s: \"%s\"", c->type_string, c->text);
      value = reg_option_parse_value (option, c->text, &error);
      if (c->expected == NULL)
        {
          g_assert_null (value);
          g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
          g_assert_true (g_str_has_prefix (error->message, "option 'opt': "));
        }
      else
        {
          g_autofree char *printed = NULL;

          g_assert_no_error (error);
          g_assert_false (g_variant_is_floating (value));
          g_assert_cmpstr (g_variant_get_type_string (value), ==, c->type_string);
          printed = g_variant_print (value, TRUE);
          g_assert_cmpstr (printed, ==, c->expected);
        }
    }
}

/* The messages say what was expected. */
static void
test_parse_value_messages (void)
{
  g_autoptr(RegOption) threads = reg_option_new_with_range ("threads", "u", NULL, NULL,
                                                            g_variant_new_uint32 (256), NULL, NULL);
  g_autoptr(RegOption) fuse = reg_option_new ("fuse", "b", NULL, NULL, NULL);
  g_autoptr(RegOption) offset = reg_option_new ("offset", "i", NULL, NULL, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_null (reg_option_parse_value (threads, "many", &error));
  g_assert_cmpstr (error->message, ==,
                   "option 'threads': 'many' is not a uint32 (an integer from 0 to 4294967295)");
  g_clear_error (&error);

  g_assert_null (reg_option_parse_value (threads, "300", &error));
  g_assert_cmpstr (error->message, ==, "option 'threads' must be at most 256, not 300");
  g_clear_error (&error);

  g_assert_null (reg_option_parse_value (fuse, "yes", &error));
  g_assert_cmpstr (error->message, ==, "option 'fuse': 'yes' is not a boolean (true or false)");
  g_clear_error (&error);

  g_assert_null (reg_option_parse_value (offset, "1.5", &error));
  g_assert_cmpstr (error->message, ==,
                   "option 'offset': '1.5' is not an int32 (an integer from -2147483648 to 2147483647)");
}

/* value_to_string() writes what parse_value() reads back, for values that
 * the plain form could misread too. */
static void
test_value_to_string (void)
{
  const struct {
    const char *type_string;
    const char *value;    /* GVariant text */
    const char *text;
  } cases[] = {
    { "b", "true", "true" },
    { "u", "uint32 512", "512" },
    { "x", "int64 -3", "-3" },
    { "d", "0.1", "0.10000000000000001" },
    { "d", "1e300", "1.0000000000000001e+300" },
    { "s", "'fast'", "fast" },
    { "s", "''", "" },
    { "s", "\"'quoted'\"", "\"'quoted'\"" },
    { "as", "['fold', 'cse']", "fold,cse" },
    { "as", "@as []", "" },
    { "as", "['a,b']", "['a,b']" },
    { "as", "[' padded']", "[' padded']" },
    { "as", "['[x', 'y']", "['[x', 'y']" },
    { "as", "['']", "['']" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(RegOption) option = reg_option_new ("opt", cases[i].type_string, NULL, NULL, NULL);
      g_autoptr(GVariant) value = g_variant_parse (G_VARIANT_TYPE (cases[i].type_string),
                                                   cases[i].value, NULL, NULL, NULL);
      g_autoptr(GVariant) again = NULL;
      g_autofree char *text = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_nonnull (value);
      text = reg_option_value_to_string (option, value);
      g_assert_cmpstr (text, ==, cases[i].text);

      again = reg_option_parse_value (option, text, &error);
      g_assert_no_error (error);
      g_assert_true (g_variant_equal (again, value));
    }
}

static void
test_check_value (void)
{
  const char * const modes[] = { "fast", "small", NULL };
  g_autoptr(RegOption) threads = reg_option_new_with_range ("threads", "u", NULL,
                                                            g_variant_new_uint32 (1),
                                                            g_variant_new_uint32 (8), NULL, NULL);
  g_autoptr(RegOption) scale = reg_option_new_with_range ("scale", "d", NULL,
                                                          g_variant_new_double (-1.5), NULL,
                                                          NULL, NULL);
  g_autoptr(RegOption) ratio = reg_option_new ("ratio", "d", NULL, NULL, NULL);
  g_autoptr(RegOption) mode = reg_option_new_with_choices ("mode", "s", NULL, modes, NULL, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (reg_option_check_value (threads, g_variant_new_uint32 (1), &error));
  g_assert_true (reg_option_check_value (threads, g_variant_new_uint32 (8), &error));
  g_assert_no_error (error);

  g_assert_false (reg_option_check_value (threads, g_variant_new_uint32 (9), &error));
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
  g_assert_cmpstr (error->message, ==, "option 'threads' must be between 1 and 8, not 9");
  g_clear_error (&error);

  g_assert_false (reg_option_check_value (threads, g_variant_new_int32 (2), &error));
  g_assert_cmpstr (error->message, ==,
                   "option 'threads' must be of type uint32 ('u'), not int32 ('i')");
  g_clear_error (&error);

  g_assert_false (reg_option_check_value (threads, g_variant_new ("(u)", 2), &error));
  g_assert_cmpstr (error->message, ==, "option 'threads' must be of type uint32 ('u'), not '(u)'");
  g_clear_error (&error);

  g_assert_false (reg_option_check_value (scale, g_variant_new_double (-2.0), &error));
  g_assert_cmpstr (error->message, ==, "option 'scale' must be at least -1.5, not -2.0");
  g_clear_error (&error);

  g_assert_false (reg_option_check_value (ratio, g_variant_new_double (NAN), &error));
  g_assert_cmpstr (error->message, ==, "option 'ratio' must be a finite number, not nan");
  g_clear_error (&error);

  g_assert_false (reg_option_check_value (mode, g_variant_new_string ("slow"), &error));
  g_assert_cmpstr (error->message, ==, "option 'mode' must be one of 'fast', 'small', not 'slow'");
  g_clear_error (&error);

  /* A value from outside is escaped in the message. */
  g_assert_false (reg_option_check_value (mode, g_variant_new_string ("\033[2J"), &error));
  g_assert_null (strchr (error->message, '\033'));
}

/* An option made by g_object_new() (as a binding may) has no name: the
 * accessors say so, and no schema takes it (see test_schema_refused). */
static void
test_unmade_option (void)
{
  g_autoptr(RegOption) option = g_object_new (REG_TYPE_OPTION, NULL);

  g_assert_null (reg_option_get_name (option));
  g_assert_null (reg_option_get_default_value (option));
}

/* ---- Schemas in compile ------------------------------------------------- */

/* A compiler with a schema of its own: dup_options() returns @model (or
 * none), and counts how often it is asked. */
#define TEST_TYPE_SCHEMA_COMPILER (test_schema_compiler_get_type ())
G_DECLARE_FINAL_TYPE (TestSchemaCompiler, test_schema_compiler, TEST, SCHEMA_COMPILER, GObject)

struct _TestSchemaCompiler
{
  GObject     parent_instance;
  GListModel *model;
  gboolean    nameless;  /* dup_name() gives NULL: named after its type */
  guint       asked;
  guint       compiles;
  GVariant   *last_options;
};

static RegCompiledFn *
test_schema_compiler_compile (RegCompiler  *compiler,
                              RegGraph     *graph,
                              GPtrArray    *example_inputs,
                              GVariant     *options,
                              GError      **error)
{
  TestSchemaCompiler *self = TEST_SCHEMA_COMPILER (compiler);

  self->compiles++;
  g_clear_pointer (&self->last_options, g_variant_unref);
  if (options != NULL)
    self->last_options = g_variant_ref (options);

  /* Compiling is not what is tested: any compiler's function will do. */
  g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP, "reached the backend");
  return NULL;
}

static char *
test_schema_compiler_dup_name (RegCompiler *compiler)
{
  return TEST_SCHEMA_COMPILER (compiler)->nameless ? NULL : g_strdup ("schema");
}

static GListModel *
test_schema_compiler_dup_options (RegCompiler *compiler)
{
  TestSchemaCompiler *self = TEST_SCHEMA_COMPILER (compiler);

  self->asked++;
  return self->model != NULL ? g_object_ref (self->model) : NULL;
}

static void
test_schema_compiler_iface_init (RegCompilerInterface *iface)
{
  iface->compile = test_schema_compiler_compile;
  iface->dup_name = test_schema_compiler_dup_name;
  iface->dup_options = test_schema_compiler_dup_options;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestSchemaCompiler, test_schema_compiler, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILER,
                                                      test_schema_compiler_iface_init))

static void
test_schema_compiler_finalize (GObject *object)
{
  TestSchemaCompiler *self = TEST_SCHEMA_COMPILER (object);

  g_clear_object (&self->model);
  g_clear_pointer (&self->last_options, g_variant_unref);
  G_OBJECT_CLASS (test_schema_compiler_parent_class)->finalize (object);
}

static void
test_schema_compiler_class_init (TestSchemaCompilerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_schema_compiler_finalize;
}

static void
test_schema_compiler_init (TestSchemaCompiler *self)
{
}

/* The schema of inductor's kind: threads (u, 0 to 256), fuse (b),
 * block-size (u), mode (s: fast or small), passes (as), scale (d). */
static GListModel *
inductor_like_schema (void)
{
  const char * const modes[] = { "fast", "small", NULL };
  const char * const passes[] = { "fold", "cse", "dce", NULL };
  GListStore *store = g_list_store_new (REG_TYPE_OPTION);
  RegOption *options[] = {
    reg_option_new ("fuse", "b", g_variant_new_boolean (TRUE), NULL, NULL),
    reg_option_new_with_range ("threads", "u", g_variant_new_uint32 (1), NULL,
                               g_variant_new_uint32 (256), NULL, NULL),
    reg_option_new ("block-size", "u", NULL, NULL, NULL),
    reg_option_new_with_choices ("mode", "s", NULL, modes, NULL, NULL),
    reg_option_new_with_choices ("passes", "as", NULL, passes, NULL, NULL),
    reg_option_new_with_range ("scale", "d", NULL, g_variant_new_double (0.0),
                               g_variant_new_double (1.0), NULL, NULL),
  };

  for (gsize i = 0; i < G_N_ELEMENTS (options); i++)
    {
      g_assert_nonnull (options[i]);
      g_list_store_append (store, options[i]);
      g_object_unref (options[i]);
    }

  return G_LIST_MODEL (store);
}

static TestSchemaCompiler *
schema_compiler_new (GListModel *model)
{
  TestSchemaCompiler *compiler = g_object_new (TEST_TYPE_SCHEMA_COMPILER, NULL);

  compiler->model = model;
  return compiler;
}

/* Compiles a one-input graph on @compiler with the options of @text
 * (GVariant text of an a{sv}, or NULL) and returns the error. */
static GError *
compile_with (TestSchemaCompiler *compiler,
              const char         *text)
{
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x):\n  y = neg(x)\n  return (y,)\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GVariant) options = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  const gint64 shape[] = { 3 };
  GError *error = NULL;

  g_ptr_array_add (inputs, reg_tensor_new (shape, 1));
  if (text != NULL)
    {
      options = g_variant_parse (NULL, text, NULL, NULL, &error);
      g_assert_no_error (error);
    }

  fn = reg_compiler_compile (REG_COMPILER (compiler), graph, inputs, options, &error);
  g_assert_null (fn);
  g_assert_nonnull (error);
  return error;
}

static void
test_schema_checks (void)
{
  g_autoptr(TestSchemaCompiler) compiler = schema_compiler_new (inductor_like_schema ());
  const struct {
    const char *options;
    const char *message;  /* NULL: reaches the backend */
  } cases[] = {
    { NULL, NULL },
    { "@a{sv} {}", NULL },
    { "{'threads': <uint32 2>, 'fuse': <false>, 'mode': <'fast'>}", NULL },
    { "{'passes': <['fold', 'dce']>, 'scale': <0.5>, 'block-size': <uint32 4096>}", NULL },
    { "{'thread': <uint32 2>}",
      "unknown option 'thread' for backend 'schema', did you mean 'threads'?" },
    { "{'fus': <true>}",
      "unknown option 'fus' for backend 'schema', did you mean 'fuse'?" },
    { "{'zzz': <true>}",
      "unknown option 'zzz' for backend 'schema'; it takes fuse, threads, block-size, mode, passes, scale" },
    { "{'threads': <2>}",
      "option 'threads' for backend 'schema' must be of type uint32 ('u'), not int32 ('i')" },
    { "{'fuse': <'no'>}",
      "option 'fuse' for backend 'schema' must be of type boolean ('b'), not string ('s')" },
    { "{'threads': <uint32 300>}",
      "option 'threads' for backend 'schema' must be at most 256, not 300" },
    { "{'scale': <1.5>}",
      "option 'scale' for backend 'schema' must be between 0.0 and 1.0, not 1.5" },
    { "{'mode': <'slow'>}",
      "option 'mode' for backend 'schema' must be one of 'fast', 'small', not 'slow'" },
    { "{'passes': <['fold', 'inline']>}",
      "option 'passes' for backend 'schema' holds 'inline', which is not one of 'fold', 'cse', 'dce'" },
    /* A backend reads the first value of a key (g_variant_lookup()), a
     * GVariantDict the last: a key given twice is refused. */
    { "{'threads': <uint32 2>, 'threads': <uint32 3>}",
      "option 'threads' for backend 'schema' is given twice" },
    { "{'fuse': <true>, 'mode': <'fast'>, 'fuse': <true>}",
      "option 'fuse' for backend 'schema' is given twice" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      guint before = compiler->compiles;

      g_test_message ("%s", cases[i].options != NULL ? cases[i].options : "(null)");
      error = compile_with (compiler, cases[i].options);
      if (cases[i].message == NULL)
        {
          g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
          g_assert_cmpuint (compiler->compiles, ==, before + 1);
        }
      else
        {
          g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
          g_assert_cmpstr (error->message, ==, cases[i].message);
          /* Checked before the backend runs. */
          g_assert_cmpuint (compiler->compiles, ==, before);
        }
    }

  /* The options reach the backend as given: no default is filled in. */
  {
    g_autoptr(GError) error = compile_with (compiler, "{'fuse': <false>}");

    g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
    g_assert_cmpuint (g_variant_n_children (compiler->last_options), ==, 1);
  }

  /* The schema was asked for once, and is kept. */
  g_assert_cmpuint (compiler->asked, ==, 1);
  g_assert_true (reg_compiler_get_options (REG_COMPILER (compiler)) ==
                 reg_compiler_get_options (REG_COMPILER (compiler)));
  g_assert_cmpuint (compiler->asked, ==, 1);
}

/* A schema given is copied: changing the backend's list afterwards
 * changes nothing, and the list handed out is another object. */
static void
test_schema_copied (void)
{
  g_autoptr(TestSchemaCompiler) compiler = schema_compiler_new (inductor_like_schema ());
  g_autoptr(RegOption) extra = reg_option_new ("thread", "u", NULL, NULL, NULL);
  g_autoptr(GError) error = NULL;
  GListModel *schema = reg_compiler_get_options (REG_COMPILER (compiler));

  g_assert_nonnull (schema);
  g_assert_true (schema != compiler->model);
  g_assert_true (g_list_model_get_item_type (schema) == REG_TYPE_OPTION);
  g_assert_cmpuint (g_list_model_get_n_items (schema), ==, 6);

  g_list_store_append (G_LIST_STORE (compiler->model), extra);
  g_assert_cmpuint (g_list_model_get_n_items (schema), ==, 6);

  error = compile_with (compiler, "{'thread': <uint32 2>}");
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
}

/* No schema: options go unchecked, whatever they hold. */
static void
test_schema_none (void)
{
  g_autoptr(TestSchemaCompiler) compiler = schema_compiler_new (NULL);
  g_autoptr(RegCompiler) func = reg_func_compiler_new ("func", refuse_compile, NULL, NULL);
  g_autoptr(GError) error = NULL;

  error = compile_with (compiler, "{'anything': <(1, 'x')>}");
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  g_assert_null (reg_compiler_get_options (REG_COMPILER (compiler)));
  g_assert_cmpuint (compiler->asked, ==, 1);
  g_clear_error (&error);

  /* But a key given twice, which backends and the compile cache would
   * read differently, is refused. */
  error = compile_with (compiler, "{'a': <1>, 'b': <2>, 'a': <3>}");
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
  g_assert_cmpstr (error->message, ==, "option 'a' for backend 'schema' is given twice");
  g_assert_cmpuint (compiler->compiles, ==, 1);

  /* A compiler without the vfunc has none either. */
  g_assert_null (reg_compiler_get_options (func));
}

/* An empty schema: the backend takes no option. */
static void
test_schema_empty (void)
{
  g_autoptr(TestSchemaCompiler) compiler =
    schema_compiler_new (G_LIST_MODEL (g_list_store_new (REG_TYPE_OPTION)));
  g_autoptr(GError) error = NULL;

  error = compile_with (compiler, "@a{sv} {}");
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP);
  g_clear_error (&error);

  error = compile_with (compiler, "{'threads': <uint32 1>}");
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
  g_assert_cmpstr (error->message, ==,
                   "unknown option 'threads' for backend 'schema', which takes no option");
  g_assert_cmpuint (g_list_model_get_n_items (reg_compiler_get_options (REG_COMPILER (compiler))), ==, 0);
}

/* A list that is not a schema fails every compile, saying why, and the
 * compiler shows no schema. */
static void
test_schema_refused (void)
{
  struct {
    const char *why;
    GListStore *store;
  } cases[3];
  g_autoptr(RegOption) option = reg_option_new ("a", "b", NULL, NULL, NULL);
  g_autoptr(RegOption) unmade = g_object_new (REG_TYPE_OPTION, NULL);
  g_autoptr(RegTensor) tensor = reg_tensor_new (NULL, 0);

  cases[0].why = "declares option 'a' twice";
  cases[0].store = g_list_store_new (REG_TYPE_OPTION);
  g_list_store_append (cases[0].store, option);
  g_list_store_append (cases[0].store, option);

  cases[1].why = "item 1 a RegTensor, not a RegOption";
  cases[1].store = g_list_store_new (G_TYPE_OBJECT);
  g_list_store_append (cases[1].store, option);
  g_list_store_append (cases[1].store, tensor);

  cases[2].why = "made without a constructor of RegOption";
  cases[2].store = g_list_store_new (REG_TYPE_OPTION);
  g_list_store_append (cases[2].store, unmade);

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(TestSchemaCompiler) compiler = schema_compiler_new (G_LIST_MODEL (cases[i].store));
      g_autoptr(GError) error = compile_with (compiler, NULL);

      g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
      g_assert_true (g_str_has_prefix (error->message, "backend 'schema' declares "));
      g_assert_nonnull (strstr (error->message, cases[i].why));
      g_assert_cmpuint (compiler->compiles, ==, 0);
      g_assert_null (reg_compiler_get_options (REG_COMPILER (compiler)));
    }
}

/* Threads asking a fresh compiler for its schema at once all get the one
 * it keeps. */
typedef struct
{
  RegCompiler *compiler;
  GListModel  *seen;
} AskData;

static gpointer
ask_schema (gpointer data)
{
  AskData *ask = data;

  ask->seen = reg_compiler_get_options (ask->compiler);
  return NULL;
}

static void
test_schema_threads (void)
{
  for (guint round = 0; round < 20; round++)
    {
      g_autoptr(TestSchemaCompiler) compiler = schema_compiler_new (inductor_like_schema ());
      AskData asks[4];
      GThread *threads[G_N_ELEMENTS (asks)];

      for (guint i = 0; i < G_N_ELEMENTS (asks); i++)
        {
          asks[i].compiler = REG_COMPILER (compiler);
          threads[i] = g_thread_new ("ask", ask_schema, &asks[i]);
        }
      for (guint i = 0; i < G_N_ELEMENTS (asks); i++)
        g_thread_join (threads[i]);

      for (guint i = 0; i < G_N_ELEMENTS (asks); i++)
        g_assert_true (asks[i].seen == reg_compiler_get_options (REG_COMPILER (compiler)));
    }
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

/* The error of compiling a one-input graph on @backend of @registry with
 * the options of @text (GVariant text), synchronously or not. */
static GError *
registry_compile_error (RegRegistry *registry,
                        const char  *backend,
                        const char  *text,
                        gboolean     async)
{
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x):\n  y = neg(x)\n  return (y,)\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GVariant) options = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  GError *error = NULL;

  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 3 }, 1));
  options = g_variant_parse (NULL, text, NULL, NULL, &error);
  g_assert_no_error (error);

  if (async)
    {
      reg_registry_compile_async (registry, backend, graph, inputs, options, NULL,
                                  store_result, &result);
      while (result == NULL)
        g_main_context_iteration (NULL, TRUE);
      fn = reg_registry_compile_finish (registry, result, &error);
    }
  else
    {
      fn = reg_registry_compile (registry, backend, graph, inputs, options, &error);
    }

  g_assert_null (fn);
  g_assert_nonnull (error);
  return error;
}

/* A backend is named as its caller knows it: compiled through a registry,
 * by the name it is registered under, even when its compiler's own name is
 * its type's (it has no dup_name); compiled directly, by its own name. */
static void
test_schema_registered_name (void)
{
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(TestSchemaCompiler) compiler = schema_compiler_new (inductor_like_schema ());
  g_autoptr(TestSchemaCompiler) refused = NULL;
  g_autoptr(RegOption) option = reg_option_new ("a", "b", NULL, NULL, NULL);
  g_autoptr(GListStore) twice = g_list_store_new (REG_TYPE_OPTION);
  g_autoptr(GError) error = NULL;
  const struct {
    const char *options;
    const char *message;
  } cases[] = {
    { "{'thread': <uint32 2>}",
      "unknown option 'thread' for backend 'mine', did you mean 'threads'?" },
    { "{'threads': <2>}",
      "option 'threads' for backend 'mine' must be of type uint32 ('u'), not int32 ('i')" },
    { "{'threads': <uint32 2>, 'threads': <uint32 2>}",
      "option 'threads' for backend 'mine' is given twice" },
    { "uint32 2",
      "options for backend 'mine' must be an a{sv} dictionary, not a value of type 'u'" },
  };

  compiler->nameless = TRUE;
  g_assert_cmpstr (reg_compiler_get_name (REG_COMPILER (compiler)), ==, "TestSchemaCompiler");
  g_assert_true (reg_registry_register_backend (registry, "mine", REG_COMPILER (compiler), NULL, &error));
  g_assert_no_error (error);

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    for (int async = 0; async <= 1; async++)
      {
        g_autoptr(GError) compile_error = registry_compile_error (registry, "mine",
                                                                  cases[i].options, async);

        g_test_message ("%s%s", cases[i].options, async ? " (async)" : "");
        g_assert_error (compile_error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
        g_assert_cmpstr (compile_error->message, ==, cases[i].message);
      }

  error = compile_with (compiler, "{'thread': <uint32 2>}");
  g_assert_cmpstr (error->message, ==,
                   "unknown option 'thread' for backend 'TestSchemaCompiler', did you mean 'threads'?");
  g_clear_error (&error);

  /* A schema the backend gives that is refused is told under the name too:
   * the compiler keeps it once, and each caller names the backend. */
  g_list_store_append (twice, option);
  g_list_store_append (twice, option);
  refused = schema_compiler_new (G_LIST_MODEL (g_steal_pointer (&twice)));
  refused->nameless = TRUE;
  g_assert_true (reg_registry_register_backend (registry, "other", REG_COMPILER (refused), NULL, &error));
  error = registry_compile_error (registry, "other", "@a{sv} {}", FALSE);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==, "backend 'other' declares option 'a' twice");
  g_clear_error (&error);
  error = compile_with (refused, NULL);
  g_assert_cmpstr (error->message, ==, "backend 'TestSchemaCompiler' declares option 'a' twice");
  g_assert_cmpuint (refused->compiles, ==, 0);
}

/* ---- Options from text -------------------------------------------------- */

/* KEY=VALUE texts read by the schema of a backend's info, without loading
 * its module, into the options a compile takes. */
static void
test_parse_options (void)
{
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(RegBackendInfo) inductor = reg_registry_get_backend_info (registry, "inductor");
  g_autoptr(RegBackendInfo) after = NULL;
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x):\n  y = neg(x)\n  return (y,)\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GVariant) options = NULL;
  g_autoptr(GVariant) empty = NULL;
  g_autoptr(GVariant) expected = NULL;
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;
  const char * const assignments[] = {
    "threads=2", "fuse=false", "passes=fold,cse", "matmul=blas", "block-size=uint32 64", NULL
  };
  const char * const none[] = { NULL };

  options = reg_backend_info_parse_options (inductor, assignments, &error);
  g_assert_no_error (error);
  g_assert_false (g_variant_is_floating (options));
  expected = g_variant_ref_sink (g_variant_new_parsed (
    "{'threads': <uint32 2>, 'fuse': <false>, 'passes': <['fold', 'cse']>, "
    "'matmul': <'blas'>, 'block-size': <uint32 64>}"));
  g_assert_true (g_variant_equal (options, expected));

  after = reg_registry_get_backend_info (registry, "inductor");
  g_assert_false (reg_backend_info_get_loaded (after));

  g_ptr_array_add (inputs, reg_tensor_new ((const gint64[]) { 3 }, 1));
  fn = reg_registry_compile (registry, "inductor", graph, inputs, options, &error);
  g_assert_no_error (error);
  g_assert_nonnull (fn);

  empty = reg_backend_info_parse_options (inductor, none, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (g_variant_get_type_string (empty), ==, "a{sv}");
  g_assert_cmpuint (g_variant_n_children (empty), ==, 0);
}

/* What parse_options() refuses, as parse_value() and compile refuse it. */
static void
test_parse_options_errors (void)
{
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(RegCompiler) func = reg_func_compiler_new ("func", refuse_compile, NULL, NULL);
  const struct {
    const char  *backend;
    const char  *assignments[3];
    const char  *message;
  } cases[] = {
    { "inductor", { "thread=2" },
      "unknown option 'thread' for backend 'inductor', did you mean 'threads'?" },
    { "inductor", { "threads=many" },
      "option 'threads': 'many' is not a uint32 (an integer from 0 to 4294967295)" },
    { "inductor", { "threads=300" }, "option 'threads' must be between 0 and 256, not 300" },
    { "inductor", { "matmul=fast" },
      "option 'matmul' must be one of 'auto', 'blas', 'in-tree', not 'fast'" },
    { "inductor", { "threads=2", "threads=2" },
      "option 'threads' for backend 'inductor' is given twice" },
    { "inductor", { "threads" }, "option assignment 'threads' is not KEY=VALUE" },
    { "inductor", { "=2" }, "option assignment '=2' is not KEY=VALUE" },
    { "inductor", { "threads=\xff" }, "option assignment 'threads=\\xFF' is not UTF-8 text" },
    { "eager", { "fuse=false" },
      "unknown option 'fuse' for backend 'eager', which takes no option" },
    /* No schema: the values are GVariant text, checked by the backend. */
    { "func", { "x=maybe" },
      "option 'x' for backend 'func': 'maybe' is not GVariant text (0-5:unknown keyword), "
      "and the backend declares no options to read it by; write booleans as true or false, "
      "unsigned numbers as uint32 2, strings quoted as 'text'" },
  };

  g_assert_true (reg_registry_register_backend (registry, "func", func, NULL, NULL));

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, cases[i].backend);
      g_autoptr(GVariant) options = NULL;
      g_autoptr(GError) error = NULL;

      g_test_message ("%s: %s", cases[i].backend, cases[i].message);
      options = reg_backend_info_parse_options (info, cases[i].assignments, &error);
      g_assert_null (options);
      g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }

  /* GVariant text, for a backend without a schema. */
  {
    g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, "func");
    const char * const typed[] = { "n=uint32 2", "s='two words'", "b=true", "l=[1, 2]", NULL };
    g_autoptr(GVariant) options = reg_backend_info_parse_options (info, typed, NULL);
    g_autoptr(GVariant) expected = g_variant_ref_sink (g_variant_new_parsed (
      "{'n': <uint32 2>, 's': <'two words'>, 'b': <true>, 'l': <[1, 2]>}"));

    g_assert_nonnull (options);
    g_assert_true (g_variant_equal (options, expected));
  }
}

/* ---- Schemas in manifests ----------------------------------------------- */

static const char manifest_with_options[] =
  "[Reg Module]\n"
  "Module=libx.so\n"
  "AbiVersion=2\n"
  "\n"
  "[Backend a]\n"
  "Options=on;count;ratio;mode;passes\n"
  "Version=2.1.0-rc1\n"
  "Authors=Ada Lovelace <ada@example.org>;Grace Hopper\n"
  "Website=https://example.org/backends/a\n"
  "License=MIT OR Apache-2.0\n"
  "\n"
  "[Option a on]\n"
  "Type=b\n"
  "Default=false\n"
  "Description=A switch\n"
  "\n"
  "[Option a count]\n"
  "Type=u\n"
  "Default=4\n"
  "Minimum=1\n"
  "Maximum=64\n"
  "\n"
  "[Option a ratio]\n"
  "Type=d\n"
  "Minimum=0\n"
  "\n"
  "[Option a mode]\n"
  "Type=s\n"
  "Default=fast\n"
  "Choices=fast;small\n"
  "\n"
  "[Option a passes]\n"
  "Type=as\n"
  "Default=fold,cse\n"
  "Choices=fold;cse;dce\n"
  "\n"
  "[Backend b]\n"
  "Options=\n"
  "\n"
  "[Backend c]\n"
  "Version=\n";

static RegRegistry *
registry_for_dir (const char *dir)
{
  RegRegistry *registry = reg_registry_new ();

  reg_registry_add_search_path (registry, dir);
  return registry;
}

static RegOption *
nth_option (GListModel *options,
            guint       n)
{
  RegOption *option = g_list_model_get_item (options, n);

  /* The list holds a reference: the borrowed one stays valid. */
  g_object_unref (option);
  return option;
}

/* What a manifest declares is what its backend's info shows, module not
 * loaded (there is none). */
static void
test_manifest_declared (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autoptr(RegRegistry) registry = NULL;
  g_autoptr(RegBackendInfo) a = NULL;
  g_autoptr(RegBackendInfo) b = NULL;
  g_autoptr(RegBackendInfo) c = NULL;
  const char * const authors[] = { "Ada Lovelace <ada@example.org>", "Grace Hopper", NULL };
  const char * const modes[] = { "fast", "small", NULL };
  const char * const passes[] = { "fold", "cse", NULL };
  g_autofree const char **default_passes = NULL;
  GListModel *options;
  RegOption *option;

  write_file (dir, "x.backend", manifest_with_options, -1);
  registry = registry_for_dir (dir);
  a = reg_registry_get_backend_info (registry, "a");
  b = reg_registry_get_backend_info (registry, "b");
  c = reg_registry_get_backend_info (registry, "c");
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_nonnull (c);

  g_assert_cmpstr (reg_backend_info_get_version (a), ==, "2.1.0-rc1");
  g_assert_cmpstrv (reg_backend_info_get_authors (a), authors);
  g_assert_cmpstr (reg_backend_info_get_website (a), ==, "https://example.org/backends/a");
  g_assert_cmpstr (reg_backend_info_get_license (a), ==, "MIT OR Apache-2.0");
  g_assert_false (reg_backend_info_get_loaded (a));

  options = reg_backend_info_get_options (a);
  g_assert_nonnull (options);
  g_assert_true (g_list_model_get_item_type (options) == REG_TYPE_OPTION);
  g_assert_cmpuint (g_list_model_get_n_items (options), ==, 5);

  option = nth_option (options, 0);
  g_assert_cmpstr (reg_option_get_name (option), ==, "on");
  g_assert_cmpstr (reg_option_get_type_string (option), ==, "b");
  g_assert_false (g_variant_get_boolean (reg_option_get_default_value (option)));
  g_assert_cmpstr (reg_option_get_description (option), ==, "A switch");

  option = nth_option (options, 1);
  g_assert_cmpstr (reg_option_get_name (option), ==, "count");
  g_assert_cmpuint (g_variant_get_uint32 (reg_option_get_default_value (option)), ==, 4);
  g_assert_cmpuint (g_variant_get_uint32 (reg_option_get_minimum (option)), ==, 1);
  g_assert_cmpuint (g_variant_get_uint32 (reg_option_get_maximum (option)), ==, 64);
  g_assert_null (reg_option_get_description (option));

  option = nth_option (options, 2);
  g_assert_cmpstr (reg_option_get_name (option), ==, "ratio");
  g_assert_null (reg_option_get_default_value (option));
  g_assert_cmpfloat (g_variant_get_double (reg_option_get_minimum (option)), ==, 0.0);
  g_assert_null (reg_option_get_maximum (option));

  option = nth_option (options, 3);
  g_assert_cmpstr (reg_option_get_name (option), ==, "mode");
  g_assert_cmpstr (g_variant_get_string (reg_option_get_default_value (option), NULL), ==, "fast");
  g_assert_cmpstrv (reg_option_get_choices (option), modes);

  option = nth_option (options, 4);
  g_assert_cmpstr (reg_option_get_name (option), ==, "passes");
  default_passes = g_variant_get_strv (reg_option_get_default_value (option), NULL);
  g_assert_cmpstrv (default_passes, passes);

  /* Options= empty: a schema of no option.  No Options=: no schema. */
  g_assert_nonnull (reg_backend_info_get_options (b));
  g_assert_cmpuint (g_list_model_get_n_items (reg_backend_info_get_options (b)), ==, 0);
  g_assert_null (reg_backend_info_get_options (c));
  g_assert_null (reg_backend_info_get_version (c));
  g_assert_null (reg_backend_info_get_authors (c));
  g_assert_null (reg_backend_info_get_website (c));
  g_assert_null (reg_backend_info_get_license (c));

  /* The properties say the same. */
  {
    g_autoptr(GListModel) by_property = NULL;
    g_autofree char *license = NULL;

    g_object_get (a, "options", &by_property, "license", &license, NULL);
    g_assert_true (by_property == options);
    g_assert_cmpstr (license, ==, "MIT OR Apache-2.0");
  }

  remove_tmp_dir (dir);
}

/* A module backend's compiler has its manifest's schema, the very list its
 * info shows, and reg_compiler_compile() checks it (not only
 * reg_registry_compile()). */
static void
test_manifest_module_schema (void)
{
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(RegBackendInfo) before = reg_registry_get_backend_info (registry, "inductor");
  g_autoptr(RegBackendInfo) after = NULL;
  g_autoptr(RegCompiler) inductor = NULL;
  g_autoptr(RegCompiler) eager = NULL;
  g_autoptr(RegCompiler) testing = NULL;
  g_autoptr(RegGraph) graph = graph_new_from_string ("graph(x):\n  y = neg(x)\n  return (y,)\n");
  g_autoptr(GPtrArray) inputs = tensor_array_new ();
  g_autoptr(GVariant) options = g_variant_ref_sink (g_variant_new_parsed ("{'thread': <uint32 2>}"));
  g_autoptr(RegCompiledFn) fn = NULL;
  g_autoptr(GError) error = NULL;
  const char * const names[] = { "fuse", "block-size", "threads", "vector-math", "passes", "matmul", NULL };
  const gint64 shape[] = { 3 };
  GListModel *schema;

  g_assert_nonnull (before);
  g_assert_false (reg_backend_info_get_loaded (before));
  schema = reg_backend_info_get_options (before);
  g_assert_nonnull (schema);
  g_assert_cmpuint (g_list_model_get_n_items (schema), ==, g_strv_length ((char **) names));
  for (guint i = 0; names[i] != NULL; i++)
    g_assert_cmpstr (reg_option_get_name (nth_option (schema, i)), ==, names[i]);

  inductor = reg_registry_lookup_backend (registry, "inductor", &error);
  g_assert_no_error (error);
  g_assert_true (reg_compiler_get_options (inductor) == schema);
  after = reg_registry_get_backend_info (registry, "inductor");
  g_assert_true (reg_backend_info_get_loaded (after));
  g_assert_true (reg_backend_info_get_options (after) == schema);

  g_ptr_array_add (inputs, reg_tensor_new (shape, 1));
  fn = reg_compiler_compile (inductor, graph, inputs, options, &error);
  g_assert_null (fn);
  g_assert_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_OPTION);
  g_assert_cmpstr (error->message, ==,
                   "unknown option 'thread' for backend 'inductor', did you mean 'threads'?");
  g_clear_error (&error);

  eager = reg_registry_lookup_backend (registry, "eager", &error);
  g_assert_no_error (error);
  g_assert_nonnull (reg_compiler_get_options (eager));
  g_assert_cmpuint (g_list_model_get_n_items (reg_compiler_get_options (eager)), ==, 0);

  /* No Options= in its manifest: no schema, the backend checks itself. */
  testing = reg_registry_lookup_backend (registry, "relu_compile_error_TESTING_ONLY", &error);
  g_assert_no_error (error);
  g_assert_null (reg_compiler_get_options (testing));
}

/* A runtime backend's info shows its compiler's schema. */
static void
test_info_runtime_options (void)
{
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(TestSchemaCompiler) compiler = schema_compiler_new (inductor_like_schema ());
  g_autoptr(RegBackendInfo) info = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (reg_registry_register_backend (registry, "mine", REG_COMPILER (compiler), NULL, &error));
  g_assert_no_error (error);
  info = reg_registry_get_backend_info (registry, "mine");
  g_assert_true (reg_backend_info_get_options (info) == reg_compiler_get_options (REG_COMPILER (compiler)));
  g_assert_cmpuint (g_list_model_get_n_items (reg_backend_info_get_options (info)), ==, 6);
  g_assert_null (reg_backend_info_get_version (info));
}

/* is-default follows the registry's default backend name. */
static void
test_info_is_default (void)
{
  g_autoptr(RegRegistry) registry = reg_registry_new ();
  g_autoptr(RegCompiler) one = reg_func_compiler_new ("one", refuse_compile, NULL, NULL);
  g_autoptr(RegBackendInfo) info = NULL;

  g_assert_true (reg_registry_register_backend (registry, "one", one, NULL, NULL));

  info = reg_registry_get_backend_info (registry, "one");
  g_assert_false (reg_backend_info_get_is_default (info));
  g_clear_object (&info);

  reg_registry_set_default_backend (registry, "one");
  info = reg_registry_get_backend_info (registry, "one");
  g_assert_true (reg_backend_info_get_is_default (info));
  g_clear_object (&info);

  /* A compiler object as the default: no name is. */
  reg_registry_set_default_compiler (registry, one);
  info = reg_registry_get_backend_info (registry, "one");
  g_assert_false (reg_backend_info_get_is_default (info));
  g_clear_object (&info);

  reg_registry_set_default_backend (registry, NULL);
  info = reg_registry_get_backend_info (registry, "inductor");
  g_assert_true (reg_backend_info_get_is_default (info));
}

static void
count_name (RegRegistry *registry,
            const char  *name,
            gpointer     user_data)
{
  GPtrArray *heard = user_data;

  g_ptr_array_add (heard, g_strdup (name));
}

/* A rescan announces a declaration whose options (or other details)
 * changed, and only then. */
static void
test_manifest_rescan_changed (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autoptr(RegRegistry) registry = NULL;
  g_autoptr(GPtrArray) heard = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(RegBackendInfo) info = NULL;
  const char *first =
    "[Reg Module]\nModule=libx.so\nAbiVersion=2\n\n"
    "[Backend a]\nOptions=n\n\n[Option a n]\nType=u\nDefault=1\n\n"
    "[Backend b]\n";
  const char *second =
    "[Reg Module]\nModule=libx.so\nAbiVersion=2\n\n"
    "[Backend a]\nOptions=n\n\n[Option a n]\nType=u\nDefault=2\n\n"
    "[Backend b]\nVersion=1.0\n";

  write_file (dir, "x.backend", first, -1);
  registry = registry_for_dir (dir);
  g_signal_connect (registry, "backend-declared", G_CALLBACK (count_name), heard);
  g_strfreev (reg_registry_list_backends (registry, NULL));
  g_ptr_array_set_size (heard, 0);

  /* Nothing changed: nothing to announce. */
  reg_registry_rescan (registry);
  g_assert_cmpuint (heard->len, ==, 0);

  write_file (dir, "x.backend", second, -1);
  reg_registry_rescan (registry);
  g_assert_cmpuint (heard->len, ==, 2);
  g_assert_true (g_ptr_array_find_with_equal_func (heard, "a", g_str_equal, NULL));
  g_assert_true (g_ptr_array_find_with_equal_func (heard, "b", g_str_equal, NULL));

  info = reg_registry_get_backend_info (registry, "a");
  g_assert_cmpuint (g_variant_get_uint32 (reg_option_get_default_value (
                      nth_option (reg_backend_info_get_options (info), 0))), ==, 2);

  remove_tmp_dir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/option/new/plain", test_new_plain);
  g_test_add_func ("/option/new/range-and-choices", test_new_range_and_choices);
  g_test_add_func ("/option/new/invalid", test_new_invalid);
  g_test_add_func ("/option/new/description-limit", test_new_description_limit);
  g_test_add_func ("/option/new/unmade", test_unmade_option);
  g_test_add_func ("/option/value/parse", test_parse_value);
  g_test_add_func ("/option/value/parse-messages", test_parse_value_messages);
  g_test_add_func ("/option/value/to-string", test_value_to_string);
  g_test_add_func ("/option/value/check", test_check_value);
  g_test_add_func ("/option/schema/checks", test_schema_checks);
  g_test_add_func ("/option/schema/copied", test_schema_copied);
  g_test_add_func ("/option/schema/none", test_schema_none);
  g_test_add_func ("/option/schema/empty", test_schema_empty);
  g_test_add_func ("/option/schema/refused", test_schema_refused);
  g_test_add_func ("/option/schema/threads", test_schema_threads);
  g_test_add_func ("/option/schema/registered-name", test_schema_registered_name);
  g_test_add_func ("/option/parse-options/read", test_parse_options);
  g_test_add_func ("/option/parse-options/errors", test_parse_options_errors);
  g_test_add_func ("/option/manifest/declared", test_manifest_declared);
  g_test_add_func ("/option/manifest/module-schema", test_manifest_module_schema);
  g_test_add_func ("/option/manifest/rescan-changed", test_manifest_rescan_changed);
  g_test_add_func ("/option/info/runtime-options", test_info_runtime_options);
  g_test_add_func ("/option/info/is-default", test_info_is_default);

  return g_test_run ();
}
