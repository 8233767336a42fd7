/* test-files.h: temporary directories and files for the test programs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each test case that writes files makes a directory of its own with
 * make_tmp_dir() and removes it, with whatever it put there, with
 * remove_tmp_dir().  Every helper asserts that what it does works.
 */

#pragma once

#include <glib.h>
#include <glib/gstdio.h>

/* A new directory under the temporary directory, named after the test
 * program. */
static inline char *
make_tmp_dir (void)
{
  g_autofree char *program = g_path_get_basename (g_get_prgname ());
  g_autofree char *template = g_strdup_printf ("%s-XXXXXX", program);
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp (template, &error);

  g_assert_no_error (error);
  return dir;
}

/* Removes @dir and everything in it: files, FIFOs, symbolic links (not
 * what they point to) and directories. */
static inline void
remove_tmp_dir (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) gdir = g_dir_open (dir, 0, &error);
  const char *name;

  g_assert_no_error (error);
  while ((name = g_dir_read_name (gdir)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        remove_tmp_dir (path);
      else
        g_assert_no_errno (g_unlink (path));
    }
  g_assert_no_errno (g_rmdir (dir));
}

/* Writes @length bytes of @contents (-1: a string) to @name in @dir,
 * replacing any file there atomically, with permissions @mode.  Only a
 * replaced file is synced to disk: tests write thousands of new files,
 * and a sync each took most of their time. */
static inline void
write_file_mode (const char *dir,
                 const char *name,
                 const char *contents,
                 gssize      length,
                 int         mode)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents_full (path, contents, length,
                            G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_ONLY_EXISTING,
                            mode, &error);
  g_assert_no_error (error);
}

/* The same, readable by all and writable by the owner. */
static inline void
write_file (const char *dir,
            const char *name,
            const char *contents,
            gssize      length)
{
  write_file_mode (dir, name, contents, length, 0644);
}

/* Copies the file @source to @name in @dir, executable. */
static inline void
copy_file (const char *source,
           const char *dir,
           const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  g_file_get_contents (source, &contents, &length, &error);
  g_assert_no_error (error);
  write_file_mode (dir, name, contents, length, 0755);
}

#ifdef TEST_BUILDDIR
#define FIXTURE_BUILDDIR TEST_BUILDDIR G_DIR_SEPARATOR_S "modules"

/* Copies the fixture module @fixture of tests/modules into @dir: its
 * manifest FIXTURE.backend, and the module file the manifest names when
 * the build made one.  Returns the full path of the module in @dir (which
 * may not exist). */
static inline char *
install_fixture (const char *dir,
                 const char *fixture)
{
  g_autofree char *manifest_name = g_strconcat (fixture, ".backend", NULL);
  g_autofree char *manifest = g_build_filename (FIXTURE_BUILDDIR, manifest_name, NULL);
  g_autoptr(GKeyFile) keyfile = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *module = NULL;
  g_autofree char *module_source = NULL;

  g_key_file_load_from_file (keyfile, manifest, G_KEY_FILE_NONE, &error);
  g_assert_no_error (error);
  module = g_key_file_get_string (keyfile, "Reg Module", "Module", &error);
  g_assert_no_error (error);

  copy_file (manifest, dir, manifest_name);

  module_source = g_build_filename (FIXTURE_BUILDDIR, module, NULL);
  if (g_file_test (module_source, G_FILE_TEST_EXISTS))
    copy_file (module_source, dir, module);

  return g_build_filename (dir, module, NULL);
}

/* The same, when the test needs no module path. */
static inline void
copy_fixture (const char *dir,
              const char *fixture)
{
  g_free (install_fixture (dir, fixture));
}
#endif
