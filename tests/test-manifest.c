/* test-manifest.c: reading `.backend` manifests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The manifest reader on its own, through the internal library: the key
 * file layer (values found where GKeyFile finds them), the loader a
 * manifest names, and what a manifest keeps.  What discovery makes of
 * manifests in directories is in test-module.c; broken manifests of every
 * kind are in test-bad-input.c's corpus.
 */

#include <string.h>

#include "fuzz/fuzz-manifest-check.h"

/* Texts whose lines GKeyFile reads in ways a reader of its own could
 * easily miss: white space where it is dropped and where it is kept, line
 * ends, groups and keys given twice, keys with a locale, comments. */
static const char * const tricky_texts[] = {
  "  [A]\nk=v\n",
  "[A]  \nk=v\n",
  "[A]\t\nk=v\n",
  "[ A ]\nk=v\n",
  "[A]\nKey = value\n",
  "[A]\nk=value  \n",
  "[A]\nk =  v \n",
  "[A]\r\nk=v\r\n",
  "[A]\nk=v\r",
  "[A]\nk=v\r\r\n",
  "[A]\nk=v\rw\n",
  "[A]\n   # c\nk=v\n",
  "[A]\n#k=v\n",
  "[A]\n  \n\n",
  "\n\n[A]\n",
  "[A]\nk=1\nk=2\n",
  "[A]\nk=1\n[B]\nx=1\n[A]\nj=2\nk=3\n",
  "[A]\nk[de]=x\nk=y\n",
  "[A]\nk[de_DE.UTF-8@euro]=x\n",
  "[A]\n k=v\n",
  "[A]\n\tk=v\n",
  "[A]\nk\t=v\n",
  "[A]\n\vk=v\n",
  "[A]\nk=\vv\n",
  "[A]\nk\v=v\n",
  "[A]\nk=\f v\n",
  "[A]\na b=c\n",
  "[A]\nk==v\n",
  "[A]\nk= v=w\n",
  "[A]\nk=\n",
  "[A]\nk=\tv\n",
  "[A]\nk= \\sv\n",
  "[A]\nk=v\\\n",
  "[A]\nk=a;b;\\;c\n",
  "[A]\nk=v",
  "[A]",
  "",
  "[A]\nk=v\n[B]\n[C]\n[D]\n[E]\n[F]\n[G]\n[H]\n[I]\n[A]\nj=w\n[J]\nx=y\n[B]\nz=1\n",
  "[A]\nEncoding=UTF-8\n",
  "[A]\nEncoding=ISO-8859-1\n",
  "[A]\nk=v\n[B]\nEncoding=ISO-8859-1\n",
  "[A]\nk.x-y_Z9=v\n",
  "[A]\n  k \t=  v\t\n",
  "[A]\r\n\r\nk=v\r\n",
  "[A]\n\r\n",
  "[A]\n#\tc\n",
  "[A]\nk=v\x7f\n",
  "[A\x7f]\nk=v\n",
  "[A]\nk=caf\xc3\xa9\n",
  "[A]\nk=\xff\n",
};

static void
test_keyfile_like_gkeyfile (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (tricky_texts); i++)
    {
      g_autofree char *shown = g_strescape (tricky_texts[i], NULL);

      g_test_message ("text %" G_GSIZE_FORMAT ": %s", i, shown);
      fuzz_check_key_file (tricky_texts[i], strlen (tricky_texts[i]));
    }
}

/* A NUL byte ends its line for GKeyFile, not the text: the lines after
 * it are read. */
static void
test_keyfile_nul_ends_a_line (void)
{
  static const char text[] = "# a comment\0[B]\n[A]\nk=v\0w\nl=x\n";
  g_autoptr(RegKeyFile) keyfile = _reg_key_file_new (text, sizeof text - 1, NULL);
  RegKeyGroup group;

  fuzz_check_key_file (text, sizeof text - 1);
  g_assert_nonnull (keyfile);
  g_assert_true (_reg_key_file_has_group (keyfile, "A"));
  _reg_key_group_init (&group, keyfile, "A");
  g_assert_cmpstr (_reg_key_group_get_value (&group, "l"), ==, "x");
}

/* Booleans are read as g_key_file_get_boolean() reads them. */
static void
test_keyfile_booleans (void)
{
  static const char * const values[] = {
    "true", "false", "1", "0", "true ", "false\t", "0  ", "True", "TRUE", "yes", "no", "01", "10",
    "truex", "tru", "t", "", "2", "-1", "true false",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *text = g_strdup_printf ("[A]\nk=%s\n", values[i]);
      g_autoptr(RegKeyFile) keyfile = _reg_key_file_new (text, strlen (text), NULL);
      g_autoptr(GKeyFile) reference = g_key_file_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(GError) reference_error = NULL;
      gboolean ours = 2, theirs;
      RegKeyGroup group;

      g_test_message ("k=%s", values[i]);
      g_assert_nonnull (keyfile);
      g_assert_true (g_key_file_load_from_data (reference, text, strlen (text), G_KEY_FILE_NONE, NULL));
      _reg_key_group_init (&group, keyfile, "A");
      theirs = g_key_file_get_boolean (reference, "A", "k", &reference_error);
      g_assert_cmpint (_reg_key_group_get_boolean (&group, "k", &ours, &error), ==, reference_error == NULL);
      if (reference_error == NULL)
        g_assert_cmpint (ours, ==, theirs);
      else
        g_assert_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE);
    }
}

/* GKeyFile refuses these, and so does the reader, with GKeyFile's error. */
static void
test_keyfile_refused (void)
{
  static const char * const refused[] = {
    "k=v\n[A]\n", "[A]\nk\n", "[A] x\n", "[A\n", "[]\n", "[A]]\n", "[A]\n=v\n",
    "[A]\nk[=v\n", "[A]\rk=v\n", "\xef\xbb\xbf[A]\nk=v\n",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegKeyFile) keyfile = _reg_key_file_new (refused[i], strlen (refused[i]), &error);

      g_assert_null (keyfile);
      g_assert_true (error != NULL && error->domain == G_KEY_FILE_ERROR);
      fuzz_check_key_file (refused[i], strlen (refused[i]));
    }
}

/* A value with escapes is GKeyFile's to read; the others are read as
 * they are.  A list's empty last piece is dropped, as GKeyFile drops
 * it. */
static void
test_keyfile_values (void)
{
  static const char text[] =
    "[A]\n"
    "plain=one two\\\\three\n"
    "escaped=a\\sb\\tc\\nd\n"
    "list=x;;y;\n"
    "escaped-list=x\\;y;z\n"
    "empty-list=\n"
    "yes=true\n"
    "no=0\n"
    "bad-bool=yes\n"
    "number=-12\n"
    "bad-number=0x12\n"
    "bad-escape=a\\qb\n";
  g_autoptr(RegKeyFile) keyfile = _reg_key_file_new (text, sizeof text - 1, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  g_auto(GStrv) list = NULL;
  gboolean boolean = FALSE;
  gint64 number = 0;
  RegKeyGroup group;

  g_assert_nonnull (keyfile);
  _reg_key_group_init (&group, keyfile, "A");

  g_assert_true (_reg_key_group_get_string (&group, "plain", &value, &error));
  g_assert_cmpstr (value, ==, "one two\\three");
  g_clear_pointer (&value, g_free);
  g_assert_true (_reg_key_group_get_string (&group, "escaped", &value, &error));
  g_assert_cmpstr (value, ==, "a b\tc\nd");
  g_clear_pointer (&value, g_free);
  g_assert_true (_reg_key_group_get_string (&group, "missing", &value, &error));
  g_assert_null (value);

  g_assert_true (_reg_key_group_get_string_list (&group, "list", &list, &error));
  g_assert_cmpstrv (list, ((const char * const[]) { "x", "", "y", NULL }));
  g_clear_pointer (&list, g_strfreev);
  g_assert_true (_reg_key_group_get_string_list (&group, "escaped-list", &list, &error));
  g_assert_cmpstrv (list, ((const char * const[]) { "x;y", "z", NULL }));
  g_clear_pointer (&list, g_strfreev);
  g_assert_true (_reg_key_group_get_string_list (&group, "empty-list", &list, &error));
  g_assert_cmpstrv (list, ((const char * const[]) { NULL }));
  g_clear_pointer (&list, g_strfreev);

  g_assert_true (_reg_key_group_get_boolean (&group, "yes", &boolean, &error));
  g_assert_true (boolean);
  g_assert_true (_reg_key_group_get_boolean (&group, "no", &boolean, &error));
  g_assert_false (boolean);
  g_assert_false (_reg_key_group_get_boolean (&group, "bad-bool", &boolean, &error));
  g_assert_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE);
  g_assert_cmpstr (error->message, ==, "[A] bad-bool: 'yes' is not a boolean (true or false is expected)");
  g_clear_error (&error);

  g_assert_true (_reg_key_group_get_int64 (&group, "number", &number, &error));
  g_assert_cmpint (number, ==, -12);
  g_assert_false (_reg_key_group_get_int64 (&group, "bad-number", &number, &error));
  g_assert_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE);
  g_clear_error (&error);

  g_assert_false (_reg_key_group_get_string (&group, "bad-escape", &value, &error));
  g_assert_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE);
  g_assert_cmpstr (error->message, ==, "[A] bad-escape: invalid escape sequence");
}

#define GOOD_MODULE_GROUP "[Reg Module]\nModule=libx.so\nAbiVersion=2\n"

static RegManifest *
parse (const char  *text,
       GError     **error)
{
  return _reg_manifest_parse ("/some/dir/x.backend", text, strlen (text), error);
}

/* Loader= absent or "c" is the C loader, whose source is Module=. */
static void
test_loader_c (void)
{
  static const char * const texts[] = {
    GOOD_MODULE_GROUP "\n[Backend a]\n",
    GOOD_MODULE_GROUP "Loader=c\n\n[Backend a]\n",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegManifest) manifest = parse (texts[i], &error);
      g_autofree char *source = NULL;
      g_autofree char *path = NULL;

      g_assert_no_error (error);
      g_assert_cmpstr (manifest->loader->name, ==, "c");
      g_assert_cmpstr (manifest->source, ==, "libx.so");
      g_assert_null (manifest->backends[0].entry);
      source = _reg_manifest_dup_source_path (manifest);
      g_assert_cmpstr (source, ==, "/some/dir/libx.so");
      path = _reg_manifest_dup_path (manifest);
      g_assert_cmpstr (path, ==, "/some/dir/x.backend");
    }
}

/* An unknown loader is a manifest of another libreg: refused, saying
 * which loaders this one has, and never read as a C module. */
static void
test_loader_unknown (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegManifest) manifest =
    parse ("[Reg Module]\nLoader=cobol\nImport=acme\nAbiVersion=2\n\n[Backend a]\nObject=A\n", &error);

  g_assert_null (manifest);
  g_assert_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==, "Loader='cobol' is not a loader this libreg has (it has: c, python, gjs)");
}

/* Loader=python: Import= is a dotted module name, found by Python (the
 * manifest stands for it as a file), and each backend's Object= names
 * what makes its compiler; read without any interpreter. */
static void
test_loader_python (void)
{
  const char *text = "[Reg Module]\nAbiVersion=2\nLoader=python\nImport=acme_reg.compiler\n\n"
                     "[Backend acme]\nObject=AcmeCompiler\n\n[Backend acme_fn]\nObject=factories.make\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(RegManifest) manifest = parse (text, &error);
  g_autofree char *source = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (manifest->loader->name, ==, "python");
  g_assert_true (manifest->loader->unlocked);
  g_assert_cmpstr (manifest->source, ==, "acme_reg.compiler");
  g_assert_cmpstr (manifest->backends[0].entry, ==, "AcmeCompiler");
  g_assert_cmpstr (manifest->backends[1].entry, ==, "factories.make");
  source = _reg_manifest_dup_source_path (manifest);
  g_assert_cmpstr (source, ==, "/some/dir/x.backend");
}

/* Loader=gjs: Import= is an ES module file beside the manifest. */
static void
test_loader_gjs (void)
{
  const char *text = "[Reg Module]\nAbiVersion=2\nLoader=gjs\nImport=acme.js\n\n"
                     "[Backend acme]\nObject=$Acme_2\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(RegManifest) manifest = parse (text, &error);
  g_autofree char *source = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (manifest->loader->name, ==, "gjs");
  g_assert_true (manifest->loader->unlocked);
  g_assert_cmpstr (manifest->source, ==, "acme.js");
  g_assert_cmpstr (manifest->backends[0].entry, ==, "$Acme_2");
  source = _reg_manifest_dup_source_path (manifest);
  g_assert_cmpstr (source, ==, "/some/dir/acme.js");
}

/* Each way a Python or JavaScript manifest can be wrong, and what is said
 * of it. */
static void
test_loader_language_refused (void)
{
  static const struct { const char *text; const char *message; } cases[] = {
    { "[Reg Module]\nAbiVersion=2\nLoader=python\n\n[Backend a]\nObject=A\n",
      "Import: missing (Loader=python imports what it names: Import=acme_reg.compiler, "
      "a module on Python's path)" },
    { "[Reg Module]\nAbiVersion=2\nLoader=python\nModule=acme.py\nImport=acme\n\n[Backend a]\nObject=A\n",
      "Module= is for backends written in C; Loader=python reads Import= (Import=acme_reg.compiler, "
      "a module on Python's path)" },
    { "[Reg Module]\nAbiVersion=2\nLoader=python\nImport=acme/compiler.py\n\n[Backend a]\nObject=A\n",
      "Import=acme/compiler.py is not a dotted Python module name: byte 4 does not fit: names of "
      "ASCII letters, digits and '_' are expected, joined by '.' (acme_reg.compiler)" },
    { "[Reg Module]\nAbiVersion=2\nLoader=python\nImport=acme.\n\n[Backend a]\nObject=A\n",
      "Import=acme. is not a dotted Python module name: byte 4 does not fit: names of "
      "ASCII letters, digits and '_' are expected, joined by '.' (acme_reg.compiler)" },
    { "[Reg Module]\nAbiVersion=2\nLoader=python\nImport=2acme\n\n[Backend a]\nObject=A\n",
      "Import=2acme is not a dotted Python module name: byte 0 does not fit: names of "
      "ASCII letters, digits and '_' are expected, joined by '.' (acme_reg.compiler)" },
    { "[Reg Module]\nAbiVersion=2\nLoader=python\nImport=acme\n\n[Backend a]\nTags=x\n",
      "[Backend a] has no Object= (Loader=python needs it)" },
    { "[Reg Module]\nAbiVersion=2\nLoader=python\nImport=acme\n\n[Backend a]\nObject=A()\n",
      "[Backend a] Object=A(): byte 1 does not fit: names of ASCII letters, digits and '_' are "
      "expected, joined by '.' (acme_reg.compiler)" },
    { "[Reg Module]\nAbiVersion=2\nLoader=gjs\nImport=../acme.js\n\n[Backend a]\nObject=A\n",
      "Import=../acme.js is not the name of a file beside the manifest" },
    { "[Reg Module]\nAbiVersion=2\nLoader=gjs\nImport=\n\n[Backend a]\nObject=A\n",
      "Import= is not the name of a file beside the manifest" },
    { "[Reg Module]\nAbiVersion=2\nLoader=gjs\nImport=acme.js\n\n[Backend a]\nObject=a.b\n",
      "[Backend a] Object=a.b: byte 1 does not fit: a name of ASCII letters, digits, '_' and '$' "
      "is expected" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegManifest) manifest = parse (cases[i].text, &error);

      g_assert_null (manifest);
      g_assert_nonnull (error);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }
}

/* The manifests of one directory share its name; what a manifest says is
 * in one block with it. */
static void
test_shared_directory (void)
{
  g_autoptr(RegManifest) a = parse (GOOD_MODULE_GROUP "\n[Backend a]\nTags=x;y;x\nDescription=A\n", NULL);
  g_autoptr(RegManifest) b = _reg_manifest_parse ("/some/dir/y.backend",
                                                  GOOD_MODULE_GROUP "\n[Backend b]\n",
                                                  strlen (GOOD_MODULE_GROUP "\n[Backend b]\n"), NULL);

  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_true (a->dir == b->dir);
  g_assert_cmpstr (a->dir, ==, "/some/dir");
  g_assert_cmpstr (a->file, ==, "x.backend");
  g_assert_cmpstrv (a->backends[0].tags, ((const char * const[]) { "x", "y", NULL }));
  g_assert_cmpstr (a->backends[0].description, ==, "A");
  g_assert_cmpint (_reg_manifest_find_backend (a, "a"), ==, 0);
  g_assert_cmpint (_reg_manifest_find_backend (a, "b"), ==, -1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/manifest/keyfile/like-gkeyfile", test_keyfile_like_gkeyfile);
  g_test_add_func ("/manifest/keyfile/booleans", test_keyfile_booleans);
  g_test_add_func ("/manifest/keyfile/refused", test_keyfile_refused);
  g_test_add_func ("/manifest/keyfile/nul-ends-a-line", test_keyfile_nul_ends_a_line);
  g_test_add_func ("/manifest/keyfile/values", test_keyfile_values);
  g_test_add_func ("/manifest/loader/c", test_loader_c);
  g_test_add_func ("/manifest/loader/unknown", test_loader_unknown);
  g_test_add_func ("/manifest/loader/python", test_loader_python);
  g_test_add_func ("/manifest/loader/gjs", test_loader_gjs);
  g_test_add_func ("/manifest/loader/language-refused", test_loader_language_refused);
  g_test_add_func ("/manifest/shared-directory", test_shared_directory);

  return g_test_run ();
}
