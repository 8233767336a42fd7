/* test-bad-input.c: malformed and hostile input, refused with clear errors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Everything libreg reads from outside the program: module manifests (from
 * any directory in the search path), graph texts, tensor shapes, backend
 * names.  Each bad input must give an error that says what is wrong and
 * where, on one bounded line of text, and leave nothing behind (tools/check
 * runs this under valgrind and AddressSanitizer, which catch the leaks).
 *
 * The small inputs are files under tests/data/bad/ whose first line is
 * `# expect: GLOB`, a g_pattern_match_simple() pattern of the message; the
 * big ones (huge lines, 10k groups, 100k nodes, more than 1 MiB) are made
 * here at run time.
 *
 * This test links the internal static library, so it reaches the manifest
 * parser directly, and so it depends on no libreg-1.so: a copy of it can
 * run setuid, which the /bad-input/secure-environment tests use to check
 * that the environment is ignored then (the dynamic linker of a setuid
 * program would not find libreg-1.so through the build tree's RUNPATH).
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "reg-file-private.h"
#include "reg-graph.h"
#include "reg-manifest-private.h"
#include "reg-registry.h"
#include "reg-tensor.h"

#include "test-files.h"

#define LOG_DOMAIN "Reg"

/* An error message longer than this is no longer a clear one. */
#define MAX_MESSAGE 1024

/* Messages are one line of bounded, valid, visible text: no control or
 * format character and no line or paragraph separator (a line break, a
 * terminal escape or a direction override would let input forge log lines,
 * drive the terminal or hide what the message says), as libreg's own
 * messages about names promise (reg-name.c).  Returns why @message is not
 * clear, or NULL. */
static char *
message_problem (const char *message)
{
  if (!g_utf8_validate (message, -1, NULL))
    return g_strdup ("not valid UTF-8");
  if (strlen (message) > MAX_MESSAGE)
    return g_strdup_printf ("%" G_GSIZE_FORMAT " bytes long", strlen (message));

  for (const char *p = message; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      switch (g_unichar_type (c))
        {
        case G_UNICODE_CONTROL:
        case G_UNICODE_FORMAT:
        case G_UNICODE_LINE_SEPARATOR:
        case G_UNICODE_PARAGRAPH_SEPARATOR:
          return g_strdup_printf ("invisible character U+%04X at byte %d",
                                  c, (int) (p - message));
        default:
          break;
        }
    }

  return NULL;
}

static void
show_message (const char *message)
{
  g_autofree char *shown = g_strescape (message, "\xe2\x80\x9c\xe2\x80\x9d\xc3\xa9");

  if (strlen (shown) > 200)
    strcpy (shown + 197, "...");
  g_test_message ("message: %s", shown);
}

static void
assert_message_clear (const char *message)
{
  g_autofree char *problem = message_problem (message);

  show_message (message);
  if (problem != NULL)
    g_error ("message not clear (%s): %.200s", problem, message);
}

/* Reads a corpus file: its text, and the glob of its first line. */
static char *
read_corpus_file (const char  *path,
                  gsize       *length,
                  char       **glob)
{
  g_autoptr(GError) error = NULL;
  char *text = NULL;
  const char *newline;

  g_file_get_contents (path, &text, length, &error);
  g_assert_no_error (error);

  g_assert_true (g_str_has_prefix (text, "# expect: "));
  newline = memchr (text, '\n', *length);
  g_assert_nonnull (newline);
  *glob = g_strndup (text + strlen ("# expect: "), newline - text - strlen ("# expect: "));

  return text;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The files of @dir ending in @suffix, sorted in byte order (the order in
 * which discovery reads manifests). */
static GPtrArray *
list_files (const char *dir,
            const char *suffix)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) gdir = g_dir_open (dir, 0, &error);
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_no_error (error);
  while ((name = g_dir_read_name (gdir)) != NULL)
    if (g_str_has_suffix (name, suffix))
      g_ptr_array_add (paths, g_strdup (name));
  g_ptr_array_sort (paths, compare_strings);

  for (guint i = 0; i < paths->len; i++)
    {
      char *full = g_build_filename (dir, g_ptr_array_index (paths, i), NULL);

      g_free (g_ptr_array_index (paths, i));
      g_ptr_array_index (paths, i) = full;
    }

  return paths;
}

#define GOOD_HEADER "[Reg Module]\nModule=libgood.so\nAbiVersion=2\n\n"

/* A registry that searches @dir only (main() clears the environment's
 * directories). */
static RegRegistry *
registry_for (const char *dir)
{
  RegRegistry *reg = reg_registry_new ();

  reg_registry_add_search_path (reg, dir);
  return reg;
}

static gboolean
listed (RegRegistry *reg,
        const char  *name)
{
  g_auto(GStrv) names = reg_registry_list_backends (reg, (const char * const[]) { NULL });

  return g_strv_contains ((const char * const *) names, name);
}

/* ---- Manifests: the corpus -------------------------------------------- */

/* Each file of tests/data/bad/manifests is refused by the parser with the
 * message its first line describes. */
static void
test_manifest_corpus_parse (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "bad", "manifests", NULL);
  g_autoptr(GPtrArray) paths = list_files (dir, ".backend");

  g_assert_cmpuint (paths->len, >=, 20);

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(RegManifest) manifest = NULL;
      g_autofree char *glob = NULL;
      g_autofree char *text = NULL;
      gsize length;

      g_test_message ("%s", path);
      text = read_corpus_file (path, &length, &glob);

      /* From memory, with no terminating NUL: a parser that reads past
       * the end shows under valgrind and ASan. */
      {
        g_autofree char *exact = g_memdup2 (text, length);

        manifest = _reg_manifest_parse (path, exact, length, &error);
      }
      g_assert_null (manifest);
      g_assert_nonnull (error);
      /* GKeyFile's domain for the key file syntax only; the manifest
       * format's rules have a domain of their own. */
      if (error->domain != REG_MANIFEST_ERROR &&
          !g_error_matches (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE))
        g_error ("%s: error in domain %s, code %d", path,
                 g_quark_to_string (error->domain), error->code);
      if (!g_pattern_match_simple (glob, error->message))
        g_error ("%s: message '%s' does not match '%s'", path, error->message, glob);
      assert_message_clear (error->message);

      /* From the file, the same */
      g_clear_error (&error);
      manifest = _reg_manifest_load (path, &error);
      g_assert_null (manifest);
      g_assert_true (g_pattern_match_simple (glob, error->message));
    }
}

/* Discovery over the whole corpus: one warning per file, naming it and
 * saying what to do, in file name order, and no backend declared. */
static void
test_manifest_corpus_discovery (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", "bad", "manifests", NULL);
  g_autoptr(GPtrArray) paths = list_files (dir, ".backend");
  g_autoptr(RegRegistry) reg = registry_for (dir);
  g_auto(GStrv) names = NULL;

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autofree char *glob = NULL;
      g_autofree char *text = NULL;
      g_autofree char *pattern = NULL;
      gsize length;

      text = read_corpus_file (path, &length, &glob);
      /* the reason, then what to do about it */
      pattern = g_strdup_printf ("manifest %s skipped: %s. *", path, glob);
      g_test_expect_message (LOG_DOMAIN, G_LOG_LEVEL_WARNING, pattern);
    }

  names = reg_registry_list_backends (reg, (const char * const[]) { NULL });
  g_test_assert_expected_messages ();
  g_assert_cmpuint (g_strv_length (names), ==, 0);
}

/* ---- Manifests: made at run time --------------------------------------- */

/* A line of 900 KB that is not a key file line: refused, and the message
 * does not carry the line. */
static void
test_manifest_huge_line (void)
{
  g_autoptr(GString) text = g_string_new (GOOD_HEADER "[Backend huge]\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(RegManifest) manifest = NULL;

  for (guint i = 0; i < 900 * 1024; i++)
    g_string_append_c (text, 'x');
  g_string_append_c (text, '\n');

  manifest = _reg_manifest_parse ("/bad/huge-line.backend", text->str, text->len, &error);
  g_assert_null (manifest);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, "not a key file"));
  assert_message_clear (error->message);
}

/* A value of 900 KB on one line is fine: manifests may be long, up to the
 * bound. */
static void
test_manifest_huge_value (void)
{
  g_autoptr(GString) text = g_string_new (GOOD_HEADER "[Backend huge]\nDescription=");
  g_autoptr(GError) error = NULL;
  g_autoptr(RegManifest) manifest = NULL;

  for (guint i = 0; i < 900 * 1024; i++)
    g_string_append_c (text, 'd');
  g_string_append_c (text, '\n');

  manifest = _reg_manifest_parse ("/bad/huge-value.backend", text->str, text->len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (manifest->n_backends, ==, 1);
  g_assert_cmpuint (strlen (manifest->backends[0].description), ==, 900 * 1024);
}

/* 10k backend groups: all declared, in a reasonable time; one bad group
 * among them fails the manifest, naming the group. */
static void
test_manifest_10k_groups (void)
{
  g_autoptr(GString) text = g_string_new (GOOD_HEADER);
  g_autofree char *dir = make_tmp_dir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RegManifest) manifest = NULL;
  g_auto(GStrv) names = NULL;
  gint64 start;

  for (guint i = 0; i < 10000; i++)
    g_string_append_printf (text, "[Backend b%05u]\nTags=t%u;shared\nDescription=number %u\n\n",
                            i, i % 7, i);

  start = g_get_monotonic_time ();
  manifest = _reg_manifest_parse ("/bad/10k.backend", text->str, text->len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (manifest->n_backends, ==, 10000);
  g_assert_cmpstr (manifest->backends[9999].name, ==, "b09999");
  g_clear_pointer (&manifest, _reg_manifest_unref);

  /* Through discovery */
  write_file (dir, "10k.backend", text->str, text->len);
  {
    g_autoptr(RegRegistry) reg = registry_for (dir);

    names = reg_registry_list_backends (reg, (const char * const[]) { NULL });
    g_assert_cmpuint (g_strv_length (names), ==, 10000);
    g_assert_cmpstr (names[0], ==, "b00000");
  }
  g_test_message ("10k groups: %.3f s", (g_get_monotonic_time () - start) / 1e6);

  /* One bad group at the end spoils the manifest, and says which. */
  g_string_append (text, "[Backend bad/name]\n");
  manifest = _reg_manifest_parse ("/bad/10k.backend", text->str, text->len, &error);
  g_assert_null (manifest);
  g_assert_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "'bad/name'"));
  g_assert_nonnull (strstr (error->message, "'/'"));
  assert_message_clear (error->message);

  remove_tmp_dir (dir);
}

/* A manifest is read up to the size it states, but a file that states 0
 * bytes is read to its end, as files of /proc need: /proc/self/status
 * read that way is no key file, where 0 bytes would be a manifest without
 * its [Reg Module] group. */
static void
test_manifest_size_zero_file (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "proc.backend", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RegManifest) manifest = NULL;
  GStatBuf st;

  if (g_stat ("/proc/self/status", &st) != 0)
    {
      g_test_skip ("needs /proc mounted (/proc/self/status cannot be read)");
      return;
    }
  g_assert_cmpint (st.st_size, ==, 0);
  g_assert_no_errno (symlink ("/proc/self/status", path));

  manifest = _reg_manifest_load (path, &error);
  g_assert_null (manifest);
  g_assert_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE);
  g_assert_true (g_str_has_prefix (error->message, "not a key file: "));
  assert_message_clear (error->message);

  g_unlink (path);
  remove_tmp_dir (dir);
}

/* REG_MANIFEST_MAX_SIZE: a manifest of exactly that size is read, one byte
 * more is refused unread, with a warning, and its neighbours still count. */
static void
test_manifest_size_bound (void)
{
  g_autoptr(GString) text = g_string_new (GOOD_HEADER "[Backend big]\n");
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "big.backend", NULL);
  g_autofree char *pattern = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RegManifest) manifest = NULL;

  /* Comment lines up to exactly the bound */
  while (text->len < REG_MANIFEST_MAX_SIZE)
    {
      gsize left = REG_MANIFEST_MAX_SIZE - text->len;

      if (left == 1)
        g_string_append_c (text, '\n');
      else
        {
          g_string_append_c (text, '#');
          for (gsize i = 0; i < MIN (left, 64) - 2; i++)
            g_string_append_c (text, 'p');
          g_string_append_c (text, '\n');
        }
    }
  g_assert_cmpuint (text->len, ==, REG_MANIFEST_MAX_SIZE);

  write_file (dir, "big.backend", text->str, text->len);
  manifest = _reg_manifest_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (manifest->backends[0].name, ==, "big");
  g_clear_pointer (&manifest, _reg_manifest_unref);

  g_string_append_c (text, '\n');
  write_file (dir, "big.backend", text->str, text->len);
  write_file (dir, "small.backend", GOOD_HEADER "[Backend small]\n", -1);
  manifest = _reg_manifest_load (path, &error);
  g_assert_null (manifest);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_assert_nonnull (strstr (error->message, "1048577 bytes"));
  g_assert_nonnull (strstr (error->message, "1048576"));
  assert_message_clear (error->message);

  {
    g_autoptr(RegRegistry) reg = registry_for (dir);

    pattern = g_strdup_printf ("manifest %s skipped: 1048577 bytes, larger than*", path);
    g_test_expect_message (LOG_DOMAIN, G_LOG_LEVEL_WARNING, pattern);
    g_assert_true (listed (reg, "small"));
    g_test_assert_expected_messages ();
    g_assert_false (listed (reg, "big"));
  }

  remove_tmp_dir (dir);
}

/* The Module= key: only the untranslated key of [Reg Module] counts, the
 * last of repeated keys wins (GKeyFile's rule), and the module is always
 * looked for beside the manifest. */
static void
test_manifest_module_key (void)
{
  static const char text[] =
    "[Reg Module]\n"
    "Module=libreal.so\n"
    "Module[fr]=../../../../usr/lib/libevil.so\n"
    "AbiVersion=2\n"
    "\n"
    "[Backend one]\n"
    "Module=/usr/lib/libevil.so\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(RegManifest) manifest = NULL;

  manifest = _reg_manifest_parse ("/some/dir/one.backend", text, sizeof text - 1, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (manifest->dir, ==, "/some/dir");
  g_assert_cmpstr (manifest->source, ==, "libreal.so");
}

/* GLib 2.74's g_key_file_parse_value_as_string() sets its GError twice for
 * a value holding an invalid escape and ending with a backslash, and warns
 * "GError set over the top of a previous GError".  Whatever libreg makes of
 * such a manifest, reading it must not warn: in a program run with
 * G_DEBUG=fatal-warnings, or a GTest program like this one, the warning
 * aborts. */
static void
test_manifest_escape_at_end (void)
{
  static const char * const texts[] = {
    GOOD_HEADER "[Backend a]\nDescription=\\q\\\n",
    GOOD_HEADER "[Backend a]\nTags=t\\q\\\n",
    "[Reg Module]\nModule=lib\\q\\\nAbiVersion=2\n\n[Backend a]\n",
  };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegManifest) manifest = NULL;

      manifest = _reg_manifest_parse ("/bad/escape.backend", texts[i], strlen (texts[i]), &error);
      if (manifest == NULL)
        assert_message_clear (error->message);
    }
}

/* The escapes GKeyFile knows are undone in Module=, Tags= and Description=
 * (the reader takes a value without a backslash as it is, and looks a
 * value with one up again to unescape it); an empty Tags= is no tag. */
static void
test_manifest_good_escapes (void)
{
  static const char text[] =
    "[Reg Module]\nModule=lib\\sspace.so\nAbiVersion=2\n\n"
    "[Backend a]\nTags=x_1;y;\nDescription=one\\ntwo\\tthree\\\\four\\sfive\n\n"
    "[Backend b]\nTags=\nDescription=plain text\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(RegManifest) manifest = NULL;

  manifest = _reg_manifest_parse ("/some/dir/esc.backend", text, sizeof text - 1, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (manifest->source, ==, "lib space.so");
  g_assert_cmpuint (manifest->n_backends, ==, 2);
  g_assert_cmpstr (manifest->backends[0].description, ==, "one\ntwo\tthree\\four five");
  g_assert_cmpuint (g_strv_length ((char **) manifest->backends[0].tags), ==, 2);
  g_assert_cmpstr (manifest->backends[0].tags[0], ==, "x_1");
  g_assert_cmpstr (manifest->backends[0].tags[1], ==, "y");
  g_assert_cmpstr (manifest->backends[1].description, ==, "plain text");
  g_assert_cmpuint (g_strv_length ((char **) manifest->backends[1].tags), ==, 0);
}

/* Shareable= is a GKeyFile boolean: true and 1 declare
 * REG_COMPILER_FLAGS_SHAREABLE; false, 0 and no key declare nothing, and
 * give no details of their own. */
static void
test_manifest_shareable (void)
{
  static const char text[] =
    GOOD_HEADER
    "[Backend t]\nShareable=true\n\n"
    "[Backend one]\nShareable=1\n\n"
    "[Backend f]\nShareable=false\n\n"
    "[Backend zero]\nShareable=0\n\n"
    "[Backend absent]\nDescription=says nothing of it\n\n"
    "[Backend licensed]\nLicense=MIT\nShareable=false\n\n"
    "[Backend licensed_shareable]\nLicense=MIT\nShareable=true\n";
  const struct { const char *name; gboolean has_details; RegCompilerFlags flags; } expected[] = {
    { "t", TRUE, REG_COMPILER_FLAGS_SHAREABLE },
    { "one", TRUE, REG_COMPILER_FLAGS_SHAREABLE },
    { "f", FALSE, REG_COMPILER_FLAGS_NONE },
    { "zero", FALSE, REG_COMPILER_FLAGS_NONE },
    { "absent", FALSE, REG_COMPILER_FLAGS_NONE },
    { "licensed", TRUE, REG_COMPILER_FLAGS_NONE },
    { "licensed_shareable", TRUE, REG_COMPILER_FLAGS_SHAREABLE },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(RegManifest) manifest = NULL;

  manifest = _reg_manifest_parse ("/some/dir/shareable.backend", text, sizeof text - 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (manifest->n_backends, ==, G_N_ELEMENTS (expected));

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      const RegManifestBackend *backend = &manifest->backends[i];

      g_test_message ("backend %s", expected[i].name);
      g_assert_cmpstr (backend->name, ==, expected[i].name);
      g_assert_cmpint (backend->details != NULL, ==, expected[i].has_details);
      if (backend->details != NULL)
        g_assert_cmpint (backend->details->compiler_flags, ==, expected[i].flags);
    }

  /* A value that is not a boolean names the group and the key, in the
   * manifest's own domain (the corpus has more of them). */
  {
    static const char bad[] = GOOD_HEADER "[Backend fine]\n\n[Backend b]\nShareable=True\n";

    g_clear_pointer (&manifest, _reg_manifest_unref);
    manifest = _reg_manifest_parse ("/some/dir/bad.backend", bad, sizeof bad - 1, &error);
    g_assert_null (manifest);
    g_assert_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID);
    g_assert_cmpstr (error->message, ==,
                     "[Backend b] Shareable: 'True' is not a boolean (true or false is expected)");
  }
}

/* Operators= names the operators a backend takes, each once: absent, every
 * operator (no details of its own); empty, none.  RegBackendInfo gives
 * them as the manifest does. */
static void
test_manifest_operators (void)
{
  static const char text[] =
    GOOD_HEADER
    "[Backend dsp]\nOperators=matmul;add\n\n"
    "[Backend nothing]\nOperators=\n\n"
    "[Backend all]\nDescription=says nothing of it\n";
  static const struct { const char *text; const char *message; } bad[] = {
    { GOOD_HEADER "[Backend b]\nOperators=add;relu2\n",
      "[Backend b] Operators: 'relu2' is not an operator libreg knows" },
    { GOOD_HEADER "[Backend b]\nOperators=add;matmul;add\n",
      "[Backend b] Operators: 'add' is listed twice" },
    { GOOD_HEADER "[Backend b]\nOperators=add;\\tab\n",
      "[Backend b] Operators: '<U+0009>ab' is not an operator libreg knows" },
  };
  g_autofree char *dir = make_tmp_dir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RegManifest) manifest = NULL;
  g_autoptr(RegRegistry) reg = NULL;
  g_autoptr(RegBackendInfo) dsp = NULL;
  g_autoptr(RegBackendInfo) nothing = NULL;
  g_autoptr(RegBackendInfo) all = NULL;

  manifest = _reg_manifest_parse ("/some/dir/ops.backend", text, sizeof text - 1, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (manifest->backends[0].details->operators,
                    ((const char *[]) { "matmul", "add", NULL }));
  g_assert_cmpstrv (manifest->backends[1].details->operators, ((const char *[]) { NULL }));
  g_assert_null (manifest->backends[2].details);

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(RegManifest) refused = _reg_manifest_parse ("/some/dir/bad.backend", bad[i].text,
                                                            strlen (bad[i].text), &error);

      g_assert_null (refused);
      g_assert_error (error, REG_MANIFEST_ERROR, REG_MANIFEST_ERROR_INVALID);
      g_assert_cmpstr (error->message, ==, bad[i].message);
      g_clear_error (&error);
    }

  write_file (dir, "ops.backend", text, -1);
  reg = registry_for (dir);
  dsp = reg_registry_get_backend_info (reg, "dsp");
  nothing = reg_registry_get_backend_info (reg, "nothing");
  all = reg_registry_get_backend_info (reg, "all");
  g_assert_cmpstrv (reg_backend_info_get_operators (dsp), ((const char *[]) { "matmul", "add", NULL }));
  g_assert_cmpstrv (reg_backend_info_get_operators (nothing), ((const char *[]) { NULL }));
  g_assert_null (reg_backend_info_get_operators (all));
  remove_tmp_dir (dir);
}

/* ---- Manifests that are not regular files ------------------------------ */

/* A FIFO named like a manifest: reading it would wait for a writer that
 * never comes.  Discovery must skip it with a warning, not hang: run in a
 * subprocess with a timeout. */
static void
test_manifest_fifo (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *dir = make_tmp_dir ();
      g_autofree char *fifo = g_build_filename (dir, "fifo.backend", NULL);
      g_autoptr(RegRegistry) reg = NULL;

      g_assert_no_errno (mkfifo (fifo, 0644));
      write_file (dir, "good.backend", GOOD_HEADER "[Backend good]\n", -1);
      reg = registry_for (dir);

      g_test_expect_message (LOG_DOMAIN, G_LOG_LEVEL_WARNING, "manifest *fifo.backend skipped: *");
      g_assert_true (listed (reg, "good"));
      g_test_assert_expected_messages ();

      remove_tmp_dir (dir);
      return;
    }

  /* A subprocess still running at the timeout is killed, and fails. */
  g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static gboolean
running_under_a_checker (void)
{
#if defined (__SANITIZE_ADDRESS__) || defined (__SANITIZE_THREAD__)
  return TRUE;
#elif defined (__has_feature)
# if __has_feature (address_sanitizer) || __has_feature (thread_sanitizer)
  return TRUE;
# endif
#endif
  {
    const char *preload = g_getenv ("LD_PRELOAD");

    return preload != NULL && strstr (preload, "vgpreload") != NULL;
  }
}

/* A manifest that is a symbolic link to /dev/zero: its size is 0 to
 * stat(), and reading it never ends.  It must be refused without reading
 * more than the bound.  The subprocess runs with its address space
 * limited, so that a failure costs the host nothing; sanitizers and
 * valgrind need the address space, so this only runs in plain builds. */
static void
test_manifest_dev_zero (void)
{
  GStatBuf st;

  if (running_under_a_checker ())
    {
      g_test_skip ("needs a plain build: the subprocess limits its address space");
      return;
    }
  /* Without the device, the link would dangle and the test prove nothing. */
  if (g_stat ("/dev/zero", &st) != 0 || !S_ISCHR (st.st_mode))
    {
      g_test_skip ("needs the character device /dev/zero");
      return;
    }

  if (g_test_subprocess ())
    {
      g_autofree char *dir = make_tmp_dir ();
      g_autofree char *zero = g_build_filename (dir, "zero.backend", NULL);
      g_autoptr(RegRegistry) reg = NULL;
      g_autoptr(RegManifest) manifest = NULL;
      g_autoptr(GError) error = NULL;
      struct rlimit limit = { 512 * 1024 * 1024, 512 * 1024 * 1024 };

      g_assert_no_errno (setrlimit (RLIMIT_AS, &limit));
      g_assert_no_errno (symlink ("/dev/zero", zero));
      write_file (dir, "good.backend", GOOD_HEADER "[Backend good]\n", -1);

      /* Refused for what it is (or for its size), not because memory ran
       * out while reading it. */
      manifest = _reg_manifest_load (zero, &error);
      g_assert_null (manifest);
      g_test_message ("%s", error->message);
      g_assert_false (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM));
      assert_message_clear (error->message);

      reg = registry_for (dir);
      g_test_expect_message (LOG_DOMAIN, G_LOG_LEVEL_WARNING,
                             "manifest *zero.backend skipped: *");
      g_assert_true (listed (reg, "good"));
      g_test_assert_expected_messages ();

      remove_tmp_dir (dir);
      return;
    }

  g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* ---- Graph texts -------------------------------------------------------- */

/* A chain of 100k nodes (and 100k constants): parsed without recursion,
 * printed, parsed again to the same text, and its shapes inferred. */
static void
test_graph_100k_nodes (void)
{
  g_autoptr(GString) text = g_string_new ("graph(x):\n  n0 = relu(x)\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(RegGraph) again = NULL;
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(RegShapeList) shapes = NULL;
  g_autofree char *printed = NULL;
  g_autofree char *printed_again = NULL;
  const gint64 shape[] = { 3 };
  const guint n = 100000;
  gint64 start = g_get_monotonic_time ();

  for (guint i = 1; i < n; i++)
    g_string_append_printf (text, "  n%u = %s(n%u, %u.5)\n", i, i % 2 ? "add" : "mul", i - 1, i % 10);
  g_string_append_printf (text, "  return (n%u,)\n", n - 1);

  graph = reg_graph_new_from_string (text->str, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (reg_graph_get_n_nodes (graph), ==, 1 + 1 + 2 * (n - 1));
  g_assert_true (reg_graph_validate (graph, &error));

  printed = reg_graph_to_string (graph);
  again = reg_graph_new_from_string (printed, &error);
  g_assert_no_error (error);
  printed_again = reg_graph_to_string (again);
  g_assert_cmpstr (printed, ==, printed_again);

  g_ptr_array_add (inputs, reg_tensor_new (shape, 1));
  shapes = reg_graph_infer_shapes (graph, inputs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (reg_shape_list_get_n_shapes (shapes), ==, reg_graph_get_n_nodes (graph));
  g_test_message ("100k nodes: %.2f s", (g_get_monotonic_time () - start) / 1e6);
}

/* 100k inputs in the header */
static void
test_graph_100k_inputs (void)
{
  g_autoptr(GString) text = g_string_new ("graph(");
  g_autoptr(GError) error = NULL;
  g_autoptr(RegGraph) graph = NULL;
  guint n_inputs;

  for (guint i = 0; i < 100000; i++)
    g_string_append_printf (text, "%si%u", i > 0 ? ", " : "", i);
  g_string_append (text, "):\n  return (i99999, i0)\n");

  graph = reg_graph_new_from_string (text->str, &error);
  g_assert_no_error (error);
  reg_graph_get_inputs (graph, &n_inputs);
  g_assert_cmpuint (n_inputs, ==, 100000);
}

typedef struct
{
  const char    *name;
  RegGraphError  code;
  const char    *glob;   /* of the message */
} GraphCase;

static void
check_graph_error (const char      *text,
                   const GraphCase *c)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RegGraph) graph = NULL;
  gint64 start = g_get_monotonic_time ();

  graph = reg_graph_new_from_string (text, &error);
  g_assert_null (graph);
  g_assert_error (error, REG_GRAPH_ERROR, (gint) c->code);
  if (!g_pattern_match_simple (c->glob, error->message))
    g_error ("%s: message '%.200s' does not match '%s'", c->name, error->message, c->glob);
  assert_message_clear (error->message);
  g_test_message ("%s: %.3f s", c->name, (g_get_monotonic_time () - start) / 1e6);
}

#define DEEP 100000

/* Deep nesting of calls and parentheses is an error found at once, in
 * constant stack: calls do not nest. */
static void
test_graph_deep_nesting (void)
{
  static const GraphCase calls = {
    "calls", REG_GRAPH_ERROR_PARSE,
    "2:12: calls do not nest: assign the call of 'relu' to a name first" };
  static const GraphCase parens = {
    "parens", REG_GRAPH_ERROR_PARSE, "2:12: expected a name or a number, got '('" };
  static const GraphCase header = {
    "header", REG_GRAPH_ERROR_PARSE, "1:7: expected an input name, got '('" };
  g_autoptr(GString) text = g_string_new ("graph(x):\n  a = ");

  for (guint i = 0; i < DEEP; i++)
    g_string_append (text, "relu(");
  g_string_append_c (text, 'x');
  for (guint i = 0; i < DEEP; i++)
    g_string_append_c (text, ')');
  g_string_append (text, "\n  return (a,)\n");
  check_graph_error (text->str, &calls);

  g_string_assign (text, "graph(x):\n  a = relu");
  for (guint i = 0; i < DEEP; i++)
    g_string_append_c (text, '(');
  g_string_append (text, "x\n  return (a,)\n");
  check_graph_error (text->str, &parens);

  g_string_assign (text, "graph");
  for (guint i = 0; i < DEEP; i++)
    g_string_append_c (text, '(');
  g_string_append (text, "x):\n  return (x,)\n");
  check_graph_error (text->str, &header);
}

/* Names and numbers of a megabyte: the message quotes them shortened. */
static void
test_graph_huge_tokens (void)
{
  static const GraphCase cases[] = {
    { "undefined", REG_GRAPH_ERROR_UNDEFINED, "2:12: undefined name 'nnnnnnnn*'" },
    { "defined-twice", REG_GRAPH_ERROR_REDEFINED, "1:*: input 'nnnnnnnn*' is defined twice" },
    { "redefined", REG_GRAPH_ERROR_REDEFINED, "3:3: 'nnnnnnnn*' is already defined" },
    { "unknown-op", REG_GRAPH_ERROR_UNKNOWN_OP, "2:7: unknown operator 'nnnnnnnn*...'" },
    { "digits", REG_GRAPH_ERROR_PARSE, "2:14: number out of range: '1000000*...'" },
  };
  g_autoptr(GString) name = g_string_new (NULL);
  g_autoptr(GString) digits = g_string_new ("1");
  g_autofree char *t0 = NULL, *t1 = NULL, *t2 = NULL, *t3 = NULL, *t4 = NULL;
  g_autofree char *ok = NULL;
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 1000000; i++)
    g_string_append_c (name, 'n');
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (digits, '0');

  /* A long name is a name like another. */
  ok = g_strdup_printf ("graph(x):\n  %s = relu(x)\n  return (%s,)\n", name->str, name->str);
  graph = reg_graph_new_from_string (ok, &error);
  g_assert_no_error (error);

  t4 = g_strdup_printf ("graph(x):\n  a = add(x, %s)\n  return (a,)\n", digits->str);
  check_graph_error (t4, &cases[4]);
  t3 = g_strdup_printf ("graph(x):\n  a = %s(x)\n  return (a,)\n", name->str);
  check_graph_error (t3, &cases[3]);
  t0 = g_strdup_printf ("graph(x):\n  a = relu(%s)\n  return (a,)\n", name->str);
  check_graph_error (t0, &cases[0]);
  t1 = g_strdup_printf ("graph(%s, %s):\n  return ()\n", name->str, name->str);
  check_graph_error (t1, &cases[1]);
  t2 = g_strdup_printf ("graph(x):\n  %s = relu(x)\n  %s = neg(x)\n  return ()\n",
                        name->str, name->str);
  check_graph_error (t2, &cases[2]);
}

/* NaN, infinities, signed zero and the edges of the double range as
 * constants: kept exactly, printed in a form that reads back the same. */
static void
test_graph_special_numbers (void)
{
  static const char text[] =
    "graph(x):\n"
    "  a = add(x, nan)\n"
    "  b = add(a, -nan)\n"
    "  c = add(b, inf)\n"
    "  d = add(c, -inf)\n"
    "  e = add(d, +inf)\n"
    "  f = mul(e, -0.0)\n"
    "  g = mul(f, 1.7976931348623157e308)\n"
    "  h = mul(g, 4.9e-324)\n"
    "  i = mul(h, 1e-400)\n"
    "  return (i,)\n";
  static const char canonical[] =
    "graph(x):\n"
    "  a = add(x, nan)\n"
    "  b = add(a, nan)\n"
    "  c = add(b, inf)\n"
    "  d = add(c, -inf)\n"
    "  e = add(d, inf)\n"
    "  f = mul(e, -0.0)\n"
    "  g = mul(f, 1.7976931348623157e+308)\n"
    "  h = mul(g, 5e-324)\n"
    "  i = mul(h, 0.0)\n"
    "  return (i,)\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(RegGraph) graph = reg_graph_new_from_string (text, &error);
  g_autoptr(RegGraph) again = NULL;
  g_autofree char *printed = NULL;
  g_autofree char *printed_again = NULL;

  g_assert_no_error (error);
  printed = reg_graph_to_string (graph);
  g_assert_cmpstr (printed, ==, canonical);
  again = reg_graph_new_from_string (printed, &error);
  g_assert_no_error (error);
  printed_again = reg_graph_to_string (again);
  g_assert_cmpstr (printed_again, ==, canonical);
}

/* ---- Tensor shapes ----------------------------------------------------- */

static void
check_shape_error (const char   *what,
                   GError       *error,
                   const char   *glob)
{
  g_assert_nonnull (error);
  g_assert_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE);
  if (!g_pattern_match_simple (glob, error->message))
    g_error ("%s: message '%s' does not match '%s'", what, error->message, glob);
  assert_message_clear (error->message);
}

static void
test_tensor_bad_shapes (void)
{
  static const struct
  {
    const char *name;
    gint64      shape[10];
    guint       n_dims;
    gsize       n_elements;
    const char *glob;
  } cases[] = {
    { "nine-dims", { 1, 1, 1, 1, 1, 1, 1, 1, 1 }, 9, 1,
      "a tensor has at most 8 dimensions, 9 given" },
    { "negative", { 2, -3 }, 2, 6, "shape [2, -3]: dimension 1 is negative" },
    { "most-negative", { G_MININT64 }, 1, 0, "shape [*]: dimension 0 is negative" },
    { "overflow", { G_MAXINT64, G_MAXINT64 }, 2, 1, "shape [*] has more elements than memory can address" },
    { "overflow-bytes", { G_MAXSIZE / 2 }, 1, 1, "shape [*] has more elements than memory can address" },
    { "count", { 2, 3 }, 2, 5, "*6*5*" },
    { "count-empty", { 0, 7 }, 2, 1, "*0*1*" },
    { "count-scalar", { 0 }, 0, 2, "*1*2*" },
  };
  float data[8] = { 0, };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegTensor) tensor = NULL;

      g_test_message ("%s", cases[i].name);
      tensor = reg_tensor_new_from_data (cases[i].n_elements <= G_N_ELEMENTS (data) ? data : NULL,
                                         cases[i].n_elements, cases[i].shape, cases[i].n_dims,
                                         &error);
      g_assert_null (tensor);
      check_shape_error (cases[i].name, error, cases[i].glob);
    }

  /* Bytes that are not whole float32 values, or not as many as the shape */
  {
    g_autoptr(GBytes) seven = g_bytes_new (data, 7);
    g_autoptr(GBytes) eight = g_bytes_new (data, 8);
    const gint64 shape[] = { 3 };
    g_autoptr(GError) error = NULL;
    g_autoptr(RegTensor) tensor = NULL;

    tensor = reg_tensor_new_from_bytes (seven, shape, 1, &error);
    g_assert_null (tensor);
    check_shape_error ("seven-bytes", error, "7 bytes of data are not a whole number*");
    g_clear_error (&error);
    tensor = reg_tensor_new_from_bytes (eight, shape, 1, &error);
    g_assert_null (tensor);
    check_shape_error ("eight-bytes", error, "*");
  }
}

/* Shapes that do not fit a graph: the message names the node, the
 * operator and the shapes. */
static void
test_graph_bad_shapes (void)
{
  static const struct
  {
    const char *name;
    const char *text;
    gint64      shapes[2][3];
    guint       n_dims[2];
    guint       n_inputs;
    const char *glob;
  } cases[] = {
    { "add-differ", "graph(x, y):\n  a = add(x, y)\n  return (a,)\n",
      { { 2, 3 }, { 3, 2 } }, { 2, 2 }, 2, "*'a'*add*[2, 3]*[3, 2]*" },
    { "matmul-1d", "graph(x, y):\n  m = matmul(x, y)\n  return (m,)\n",
      { { 3 }, { 3 } }, { 1, 1 }, 2, "*'m'*matmul*2 dimensions*" },
    { "matmul-inner", "graph(x, y):\n  m = matmul(x, y)\n  return (m,)\n",
      { { 2, 3 }, { 4, 5 } }, { 2, 2 }, 2, "*'m'*matmul*inner dimensions differ (3 and 4)*" },
    { "too-few-inputs", "graph(x, y):\n  a = add(x, y)\n  return (a,)\n",
      { { 2 } }, { 1 }, 1, "graph has 2 inputs, 1 example input given" },
    { "too-many-inputs", "graph(x):\n  return (x,)\n",
      { { 2 }, { 2 } }, { 1, 1 }, 2, "graph has 1 input, 2 example inputs given" },
    { "scalar-vs-vector", "graph(x, y):\n  s = sum(x)\n  a = add(s, y)\n  return (a,)\n",
      { { 4 }, { 4 } }, { 1, 1 }, 2, "*'a'*add*[]*[4]*" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegGraph) graph = reg_graph_new_from_string (cases[i].text, &error);
      g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
      g_autoptr(RegShapeList) shapes = NULL;

      g_test_message ("%s", cases[i].name);
      g_assert_no_error (error);
      for (guint j = 0; j < cases[i].n_inputs; j++)
        g_ptr_array_add (inputs, reg_tensor_new (cases[i].shapes[j], cases[i].n_dims[j]));

      shapes = reg_graph_infer_shapes (graph, inputs, &error);
      g_assert_null (shapes);
      check_shape_error (cases[i].name, error, cases[i].glob);
    }
}

/* ---- Hostile backend names -------------------------------------------- */

/* Names that no backend can have, looked up or removed: the error says
 * so without echoing line breaks, terminal escapes or a megabyte. */
static void
test_registry_hostile_names (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_autoptr(GString) long_name = g_string_new (NULL);
  const char *names[] = {
    "fake\nReg-WARNING **: forged log line",
    "\x1b[2J\x1b[31mred",
    "right\xe2\x80\x8eleft\xe2\x80\xaeoverride",
    NULL,  /* the long name */
  };

  for (guint i = 0; i < 1000000; i++)
    g_string_append_c (long_name, 'l');
  names[G_N_ELEMENTS (names) - 1] = long_name->str;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RegCompiler) compiler = NULL;
      g_auto(GStrv) tags = NULL;

      compiler = reg_registry_lookup_backend (reg, names[i], &error);
      g_assert_null (compiler);
      g_assert_true (g_error_matches (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_BACKEND) ||
                     g_error_matches (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_INVALID_NAME));
      assert_message_clear (error->message);
      g_clear_error (&error);

      g_assert_false (reg_registry_unregister_backend (reg, names[i], &error));
      assert_message_clear (error->message);
      g_clear_error (&error);

      tags = reg_registry_get_backend_tags (reg, names[i], &error);
      g_assert_null (tags);
      assert_message_clear (error->message);
    }
}

/* ---- The environment of setuid and setgid programs --------------------- */

/* In helper mode (a copy of this program made setuid or setgid), prints
 * whether the kernel marked the process secure, whether a new registry is
 * strict (REG_STRICT), then its search path, one directory a line. */
static int
print_search_paths (void)
{
  g_autoptr(RegRegistry) reg = reg_registry_new ();
  g_auto(GStrv) dirs = reg_registry_get_search_paths (reg);

  g_print ("secure=%lu\n", getauxval (AT_SECURE));
  g_print ("strict=%d\n", reg_registry_get_strict (reg));
  for (guint i = 0; dirs[i] != NULL; i++)
    g_print ("%s\n", dirs[i]);

  return 0;
}

#define EVIL_PATH "/nonexistent/evil-path"
#define EVIL_SYSTEM_DIR "/nonexistent/evil-system-dir"

/* Runs @argv with REG_BACKEND_PATH and REG_BACKEND_SYSTEM_DIR pointing at
 * directories nobody should load code from, and REG_STRICT=1; returns the helper's output
 * lines, or NULL with @error set (its message ends with the helper's
 * stderr) when it cannot be run or fails. */
static GStrv
try_helper (const char * const  *argv,
            GError             **error)
{
  g_auto(GStrv) envp = g_get_environ ();
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status;

  envp = g_environ_setenv (envp, "REG_BACKEND_PATH", EVIL_PATH, TRUE);
  envp = g_environ_setenv (envp, "REG_BACKEND_SYSTEM_DIR", EVIL_SYSTEM_DIR, TRUE);
  envp = g_environ_setenv (envp, "REG_STRICT", "1", TRUE);
  /* LeakSanitizer cannot stop the threads of a process that changed
   * credentials; the helper's leaks do not matter. */
  envp = g_environ_setenv (envp, "ASAN_OPTIONS", "detect_leaks=0", TRUE);
  envp = g_environ_unsetenv (envp, "G_DEBUG");

  if (!g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL,
                     &out, &err, &status, error))
    return NULL;
  if (!g_spawn_check_wait_status (status, error))
    {
      g_prefix_error (error, "%s: ", argv[0]);
      g_strstrip (err);
      if (err[0] != '\0')
        {
          g_autofree char *message = g_strdup_printf ("%s: %s", (*error)->message, err);

          g_free ((*error)->message);
          (*error)->message = g_steal_pointer (&message);
        }
      return NULL;
    }

  return g_strsplit (out, "\n", -1);
}

static GStrv
run_helper (const char * const *argv)
{
  g_autoptr(GError) error = NULL;
  GStrv lines = try_helper (argv, &error);

  g_assert_no_error (error);
  return lines;
}

static gboolean
mentions_evil (const char * const *lines)
{
  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], "evil") != NULL)
      return TRUE;

  return FALSE;
}

typedef enum { SETUID, SETGID } SecureKind;

/* Makes a copy of this program setuid root (run as nobody through
 * setpriv) or setgid nogroup (run as root): the kernel then sets
 * AT_SECURE, and the copy must take neither its search path nor
 * REG_STRICT from the environment.  The same copy run without a change of
 * credentials takes both, which shows the environment does reach it. */
static void
test_secure_environment (gconstpointer data)
{
  SecureKind kind = GPOINTER_TO_INT (data);
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = NULL;
  g_autofree char *helper = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *setpriv = g_find_program_in_path ("setpriv");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) plain = NULL;
  g_auto(GStrv) secure = NULL;
  gsize length;

  if (self == NULL)
    {
      g_test_skip ("needs /proc mounted, to find the test program (/proc/self/exe)");
      return;
    }
  if (geteuid () != 0)
    {
      g_test_skip ("needs root, to make a setuid or setgid copy of the test program");
      return;
    }
  if (kind == SETUID && setpriv == NULL)
    {
      g_test_skip ("needs setpriv (util-linux) to run the setuid copy as another user");
      return;
    }

  /* A directory that the user nobody may enter, and a copy of this
   * program in it. */
  dir = make_tmp_dir ();
  g_assert_no_errno (g_chmod (dir, 0755));
  helper = g_build_filename (dir, "helper", NULL);
  g_file_get_contents (self, &contents, &length, &error);
  g_assert_no_error (error);
  write_file (dir, "helper", contents, length);
  g_assert_no_errno (g_chmod (helper, 0755));

  /* Without a change of credentials: the environment is honoured. */
  plain = run_helper ((const char * const[]) { helper, "--print-search-paths", NULL });
  g_assert_cmpstr (plain[0], ==, "secure=0");
  g_assert_cmpstr (plain[1], ==, "strict=1");
  g_assert_true (g_strv_contains ((const char * const *) plain, EVIL_PATH));
  g_assert_true (g_strv_contains ((const char * const *) plain, EVIL_SYSTEM_DIR));

  /* What the secure runs need, tried on the plain copy: a container may
   * forbid changing credentials, or have no user or group 65534 mapped. */
  if (kind == SETUID)
    {
      g_auto(GStrv) as_nobody = try_helper ((const char * const[]) {
        setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--",
        helper, "--print-search-paths", NULL }, &error);

      if (as_nobody == NULL)
        {
          g_autofree char *reason = g_strdup_printf ("setpriv cannot run a program as user 65534 here (%s)",
                                                     error->message);

          remove_tmp_dir (dir);
          g_test_skip (reason);
          return;
        }
      g_assert_no_errno (chown (helper, 0, 0));
      g_assert_no_errno (g_chmod (helper, 04755));
    }
  else
    {
      if (chown (helper, 0, 65534) != 0)
        {
          int saved_errno = errno;
          g_autofree char *reason = g_strdup_printf ("group 65534 cannot own a file here (%s)",
                                                     g_strerror (saved_errno));

          remove_tmp_dir (dir);
          g_test_skip (reason);
          return;
        }
      g_assert_no_errno (g_chmod (helper, 02755));
    }

  if (kind == SETUID)
    secure = run_helper ((const char * const[]) {
      setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--",
      helper, "--print-search-paths", NULL });
  else
    secure = run_helper ((const char * const[]) { helper, "--print-search-paths", NULL });

  remove_tmp_dir (dir);

  if (g_strcmp0 (secure[0], "secure=1") != 0)
    {
      g_test_skip ("the kernel did not mark the copy secure (a file system mounted nosuid?)");
      return;
    }
  g_assert_cmpstr (secure[1], ==, "strict=0");
  for (guint i = 2; secure[i] != NULL && secure[i][0] != '\0'; i++)
    g_test_message ("secure search path: %s", secure[i]);
  g_assert_false (mentions_evil ((const char * const *) secure));
  /* Only the installed directory is left. */
  g_assert_cmpuint (g_strv_length (secure), ==, 4);
  g_assert_cmpstr (secure[3], ==, "");
}

/* Files that change while they are read (reg-file.c) */

typedef struct
{
  const char *path;
  guint       n_calls;
  guint       n_changes;  /* rewrite the file at this many calls */
} ChangeHook;

/* After each chunk, rewrites the file in place (truncated, then a new
 * text), as `cp` over it would.  The file shrinks each time, so that its
 * stamp changes even within one tick of the file system's clock, and the
 * reader reaches its end. */
static void
rewrite_in_place (int      fd,
                  gsize    offset,
                  gpointer user_data)
{
  ChangeHook *hook = user_data;
  g_autofree char *text = NULL;
  int out;

  if (hook->n_calls++ >= hook->n_changes)
    return;

  if (hook->n_calls == 1)
    text = g_strdup ("rewritten once\n");
  else
    text = g_strnfill (1000 - hook->n_calls, 'x');
  out = g_open (hook->path, O_WRONLY | O_TRUNC | O_CLOEXEC, 0);
  g_assert_cmpint (out, >=, 0);
  g_assert_cmpint (write (out, text, strlen (text)), ==, (gssize) strlen (text));
  g_assert_no_errno (g_close (out, NULL) ? 0 : -1);
}

/* What is read is the file at one moment, never a mix of its old and its
 * new contents: a read that saw the file change is done again. */
static void
test_file_changed_while_read (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "file", NULL);
  g_autofree char *old_text = g_strnfill (4096, 'o');
  ChangeHook hook = { path, 0, 1 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) contents = NULL;
  RegFileStamp stamp;
  struct stat st;

  write_file (dir, "file", old_text, -1);
  _reg_file_set_read_hook (rewrite_in_place, 1000, &hook);
  contents = _reg_file_read (path, 1 << 20, "a test file", &stamp, &error);
  _reg_file_set_read_hook (NULL, 0, NULL);

  g_assert_no_error (error);
  g_assert_cmpstr (g_bytes_get_data (contents, NULL), ==, "rewritten once\n");
  g_assert_cmpuint (g_bytes_get_size (contents), ==, strlen ("rewritten once\n"));
  g_assert_no_errno (g_stat (path, &st));
  g_assert_cmpuint (stamp.ino, ==, st.st_ino);
  g_assert_cmpint (stamp.size, ==, st.st_size);

  remove_tmp_dir (dir);
}

/* A file rewritten at every read is an error, not an endless loop. */
static void
test_file_keeps_changing (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "file", NULL);
  g_autofree char *old_text = g_strnfill (2000, 'o');
  ChangeHook hook = { path, 0, 500 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) contents = NULL;

  write_file (dir, "file", old_text, -1);
  _reg_file_set_read_hook (rewrite_in_place, 64, &hook);
  contents = _reg_file_read (path, 1 << 20, "a test file", NULL, &error);
  _reg_file_set_read_hook (NULL, 0, NULL);

  g_assert_null (contents);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_AGAIN);
  g_assert_cmpstr (error->message, ==, "changed each of the 3 times it was read");

  remove_tmp_dir (dir);
}

/* A sparse file of 4 GiB costs nothing to make: it is refused from its
 * stated size, unread (reading it took seconds and gigabytes). */
static void
test_file_sparse_huge (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "sparse", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) contents = NULL;
  int fd;

  fd = g_open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_no_errno (ftruncate (fd, G_GINT64_CONSTANT (4) << 30));
  g_assert_no_errno (g_close (fd, NULL) ? 0 : -1);

  contents = _reg_file_read (path, 1 << 20, "a test file", NULL, &error);
  g_assert_null (contents);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_assert_cmpstr (error->message, ==, "4294967296 bytes, larger than the 1048576 bytes a test file may have");

  remove_tmp_dir (dir);
}

/* A pipe is read to its end within bounds: /dev/zero behind one never
 * ends. */
static void
test_file_endless_pipe (void)
{
  int fds[2];
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) contents = NULL;
  int zero;

  zero = g_open ("/dev/zero", O_RDONLY | O_CLOEXEC, 0);
  g_assert_cmpint (zero, >=, 0);
  contents = _reg_file_read_fd (zero, 1 << 16, "a test file", NULL, &error);
  g_assert_null (contents);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_assert_cmpstr (error->message, ==, "larger than the 65536 bytes a test file may have");
  g_clear_error (&error);
  g_close (zero, NULL);

  g_assert_no_errno (pipe (fds));
  g_assert_cmpint (write (fds[1], "abc", 3), ==, 3);
  g_close (fds[1], NULL);
  contents = _reg_file_read_fd (fds[0], 3, "a test file", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (g_bytes_get_data (contents, NULL), ==, "abc");
  g_close (fds[0], NULL);
}

int
main (int   argc,
      char *argv[])
{
  if (argc == 2 && g_str_equal (argv[1], "--print-search-paths"))
    return print_search_paths ();

  /* Registries here search only the directories each test adds. */
  g_unsetenv ("REG_BACKEND_PATH");
  g_setenv ("REG_BACKEND_SYSTEM_DIR", "", TRUE);

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/bad-input/manifest/corpus/parse", test_manifest_corpus_parse);
  g_test_add_func ("/bad-input/manifest/corpus/discovery", test_manifest_corpus_discovery);
  g_test_add_func ("/bad-input/manifest/huge-line", test_manifest_huge_line);
  g_test_add_func ("/bad-input/manifest/huge-value", test_manifest_huge_value);
  g_test_add_func ("/bad-input/manifest/10k-groups", test_manifest_10k_groups);
  g_test_add_func ("/bad-input/manifest/size-bound", test_manifest_size_bound);
  g_test_add_func ("/bad-input/manifest/size-zero-file", test_manifest_size_zero_file);
  g_test_add_func ("/bad-input/manifest/module-key", test_manifest_module_key);
  g_test_add_func ("/bad-input/manifest/escape-at-end", test_manifest_escape_at_end);
  g_test_add_func ("/bad-input/manifest/good-escapes", test_manifest_good_escapes);
  g_test_add_func ("/bad-input/manifest/shareable", test_manifest_shareable);
  g_test_add_func ("/bad-input/manifest/operators", test_manifest_operators);
  g_test_add_func ("/bad-input/manifest/not-regular/fifo", test_manifest_fifo);
  g_test_add_func ("/bad-input/manifest/not-regular/dev-zero", test_manifest_dev_zero);
  g_test_add_func ("/bad-input/file/changed-while-read", test_file_changed_while_read);
  g_test_add_func ("/bad-input/file/keeps-changing", test_file_keeps_changing);
  g_test_add_func ("/bad-input/file/sparse-huge", test_file_sparse_huge);
  g_test_add_func ("/bad-input/file/endless-pipe", test_file_endless_pipe);
  g_test_add_func ("/bad-input/graph/100k-nodes", test_graph_100k_nodes);
  g_test_add_func ("/bad-input/graph/100k-inputs", test_graph_100k_inputs);
  g_test_add_func ("/bad-input/graph/deep-nesting", test_graph_deep_nesting);
  g_test_add_func ("/bad-input/graph/huge-tokens", test_graph_huge_tokens);
  g_test_add_func ("/bad-input/graph/special-numbers", test_graph_special_numbers);
  g_test_add_func ("/bad-input/shape/tensor", test_tensor_bad_shapes);
  g_test_add_func ("/bad-input/shape/graph", test_graph_bad_shapes);
  g_test_add_func ("/bad-input/registry/hostile-names", test_registry_hostile_names);
  g_test_add_data_func ("/bad-input/secure-environment/setuid",
                        GINT_TO_POINTER (SETUID), test_secure_environment);
  g_test_add_data_func ("/bad-input/secure-environment/setgid",
                        GINT_TO_POINTER (SETGID), test_secure_environment);

  return g_test_run ();
}
