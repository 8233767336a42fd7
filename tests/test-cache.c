/* test-cache.c: the discovery cache (reg_backend_cache_write(), and
 * discovery reading backends.cache)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each case writes manifests into a temporary directory, writes its cache,
 * changes something and checks two things: what discovery then finds (the
 * declarations as they are on disk, whatever the cache says), and whether
 * it used the cache, from the debug message discovery logs when it ignores
 * one ("discovery cache PATH not used: REASON").  Registries are private
 * ones with only the test's directories in their search path.
 *
 * Some cases build damaged caches on purpose, a few of them with a valid
 * checksum so that the checks behind it are reached: they know the file
 * format of libreg/reg-manifest-cache.c (a 32-byte header, then a GVariant)
 * and must change with it.
 */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <reg.h>

#include "test-files.h"

#define CACHE_NAME "backends.cache"
#define FIXTURE_BUILDDIR TEST_BUILDDIR G_DIR_SEPARATOR_S "modules"
#define LOG_DOMAIN "Reg"

/* The format, as libreg/reg-manifest-cache.c writes it. */
#define CACHE_HEADER_SIZE 32
#define CACHE_VERSION 5
#define CACHE_ONE_DETAILS_TYPE "(msmasmsmsma(ssmvmsmvmvmas)u)"
#define CACHE_DETAILS_TYPE "a(u" CACHE_ONE_DETAILS_TYPE ")"
/* A manifest's record: its stamp (device, inode, size, mtime, ctime), its
 * file name and Module= as (offset, length) in the string table, and its
 * number of backends; 60 bytes, padded to 64. */
#define CACHE_MANIFEST_TYPE "(xxxxxuuuuu)"
#define CACHE_MANIFEST_FIELDS 10
#define CACHE_MANIFEST_SIZE 64
#define CACHE_BODY_TYPE "(uxxsa" CACHE_MANIFEST_TYPE "a(uuuuu)a(uu)" CACHE_DETAILS_TYPE ")"

/* Coarse time stamps
 *
 * A file system dates files by a clock of its own granularity: a whole
 * second on ext2 and ext3, two seconds on FAT.  Two changes of a file
 * within one tick, at the same size, leave the same stamp.  This test
 * program interposes the stat functions that libreg and GLib call (the
 * executable's definitions come first in symbol lookup) and, while
 * coarse_ns is not 0, rounds every file time they return down to a
 * multiple of it: the view a program has of such a file system, on any
 * file system. */

static gint64 coarse_ns;

static void
coarsen (struct stat64 *st)
{
  struct timespec *times[] = { &st->st_atim, &st->st_mtim, &st->st_ctim };

  if (coarse_ns == 0)
    return;

  for (guint i = 0; i < G_N_ELEMENTS (times); i++)
    {
      gint64 ns = (gint64) times[i]->tv_sec * G_GINT64_CONSTANT (1000000000) + times[i]->tv_nsec;

      ns -= ns % coarse_ns;
      times[i]->tv_sec = ns / G_GINT64_CONSTANT (1000000000);
      times[i]->tv_nsec = ns % G_GINT64_CONSTANT (1000000000);
    }
}

typedef int (*FstatatFunc) (int, const char *, struct stat64 *, int);
typedef int (*FstatFunc) (int, struct stat64 *);
typedef int (*StatFunc) (const char *, struct stat64 *);

/* The next definition of @name: the C library's. */
#define REAL(name, type) \
  static type real_##name; \
  if (real_##name == NULL) \
    real_##name = (type) dlsym (RTLD_NEXT, #name)

int
fstatat64 (int            dir_fd,
           const char    *path,
           struct stat64 *st,
           int            flags)
{
  int result;
  REAL (fstatat64, FstatatFunc);

  result = real_fstatat64 (dir_fd, path, st, flags);
  if (result == 0)
    coarsen (st);
  return result;
}

int
fstat64 (int            fd,
         struct stat64 *st)
{
  int result;
  REAL (fstat64, FstatFunc);

  result = real_fstat64 (fd, st);
  if (result == 0)
    coarsen (st);
  return result;
}

int
stat64 (const char    *path,
        struct stat64 *st)
{
  int result;
  REAL (stat64, StatFunc);

  result = real_stat64 (path, st);
  if (result == 0)
    coarsen (st);
  return result;
}

int
lstat64 (const char    *path,
         struct stat64 *st)
{
  int result;
  REAL (lstat64, StatFunc);

  result = real_lstat64 (path, st);
  if (result == 0)
    coarsen (st);
  return result;
}

/* Makes file times coarse (a tick of @granularity_ns), and waits for the
 * start of a tick, so that what the test does next falls within one. */
static void
start_coarse_time (gint64 granularity_ns)
{
  /* The kernel's file clock may lag the system clock by a tick of its own
   * (a few milliseconds): 50 ms into the tick is safely in it. */
  gint64 margin_ns = 50 * G_GINT64_CONSTANT (1000000);
  gint64 now_ns = g_get_real_time () * 1000;
  gint64 into = now_ns % granularity_ns;

  coarse_ns = granularity_ns;
  if (into > margin_ns)
    g_usleep ((granularity_ns - into + margin_ns) / 1000);
}

static void
stop_coarse_time (void)
{
  coarse_ns = 0;
}

/* Debug messages of the "Reg" domain, captured: discovery says there why
 * it does not use a cache. */
static GPtrArray *debug_messages;

static void
capture_debug (const char     *log_domain,
               GLogLevelFlags  log_level,
               const char     *message,
               gpointer        user_data)
{
  g_ptr_array_add (debug_messages, g_strdup (message));
}

/* The message saying why a cache was not used, or NULL if none was
 * logged since the last call. */
static char *
take_cache_rejection (void)
{
  char *found = NULL;

  for (guint i = 0; i < debug_messages->len; i++)
    {
      const char *message = g_ptr_array_index (debug_messages, i);

      if (found == NULL && g_str_has_prefix (message, "discovery cache ") &&
          strstr (message, " not used: ") != NULL)
        found = g_strdup (message);
    }
  g_ptr_array_set_size (debug_messages, 0);

  return found;
}

/* Files and directories */

/* Writes the file in place, without the fsync() that g_file_set_contents()
 * does when it replaces a file: for the many damaged caches. */
static void
write_file_in_place (const char *dir,
                     const char *name,
                     const char *contents,
                     gsize       length)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  FILE *file = g_fopen (path, "wb");

  g_assert_nonnull (file);
  g_assert_cmpuint (fwrite (contents, 1, length, file), ==, length);
  g_assert_no_errno (fclose (file));
}

/* Rewrites the file in place (same inode), as an editor saving over it
 * might: the directory does not change. */
static void
overwrite_file (const char *dir,
                const char *name,
                const char *contents)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  FILE *file = fopen (path, "r+");

  g_assert_nonnull (file);
  g_assert_cmpint (fputs (contents, file), >=, 0);
  g_assert_no_errno (ftruncate (fileno (file), strlen (contents)));
  g_assert_no_errno (fclose (file));
}

static char *
read_file (const char *dir,
           const char *name,
           gsize      *length)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, length, &error);
  g_assert_no_error (error);
  return contents;
}

static void
remove_file (const char *dir,
             const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_no_errno (g_unlink (path));
}

static struct stat
stat_file (const char *dir,
           const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  struct stat st;

  g_assert_no_errno (stat (path, &st));
  return st;
}

/* Sets the modification time of a file (its change time becomes now). */
static void
set_mtime (const char            *dir,
           const char            *name,
           const struct timespec *mtime)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  struct timespec times[2] = { { 0, UTIME_OMIT }, *mtime };

  g_assert_no_errno (utimensat (AT_FDCWD, path, times, 0));
}

/* Writes a manifest declaring the backends of @backends, a string of
 * "[Backend NAME]" groups. */
static void
write_manifest (const char *dir,
                const char *file,
                const char *module,
                const char *backends)
{
  g_autofree char *text = g_strdup_printf ("[Reg Module]\nModule=%s\nAbiVersion=%d\n\n%s",
                                           module, REG_MODULE_ABI_VERSION, backends);

  write_file (dir, file, text, -1);
}

/* Two manifests: alpha.backend (backends a1 and a2, module libalpha.so,
 * present) and beta.backend (backend b1, module libbeta.so, absent). */
static void
write_two_manifests (const char *dir)
{
  write_manifest (dir, "alpha.backend", "libalpha.so",
                  "[Backend a1]\nTags=gpu;fast\nDescription=First of alpha\n"
                  "Options=threads;mode;passes\nVersion=1.0\nAuthors=Ada;Grace\n"
                  "Website=https://example.org/a\nLicense=MIT\n\n"
                  "[Option a1 threads]\nType=u\nDefault=2\nMinimum=1\nMaximum=8\n"
                  "Description=How many\n\n"
                  "[Option a1 mode]\nType=s\nChoices=fast;small\n\n"
                  "[Option a1 passes]\nType=as\nDefault=x,y\n\n"
                  "[Backend a2]\nTags=debug\n");
  write_manifest (dir, "beta.backend", "libbeta.so",
                  "[Backend b1]\nDescription=\nOptions=\n");
  write_file (dir, "libalpha.so", "not really a module", -1);
}

/* The process's umask, which new files' permissions go through. */
static mode_t
get_umask (void)
{
  mode_t mask = umask (022);

  umask (mask);
  return mask;
}

static void
write_cache (const char *dir)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (reg_backend_cache_write (dir, &error));
  g_assert_no_error (error);
}

/* Registries and what they found */

static RegRegistry *
registry_for_dirs (const char * const *dirs)
{
  RegRegistry *registry = reg_registry_new ();
  guint n = g_strv_length ((char **) dirs);

  /* add_search_path() puts a directory first: add the last first. */
  for (guint i = n; i > 0; i--)
    reg_registry_add_search_path (registry, dirs[i - 1]);

  return registry;
}

static void
append_variant (GString  *out,
                GVariant *value)
{
  g_autofree char *text = NULL;

  if (value == NULL)
    {
      g_string_append (out, "-");
      return;
    }
  text = g_variant_print (value, TRUE);
  g_string_append (out, text);
}

/* Every field of every option of @options, or "(no schema)". */
static void
append_options (GString    *out,
                GListModel *options)
{
  if (options == NULL)
    {
      g_string_append (out, "(no schema)");
      return;
    }

  g_string_append_c (out, '[');
  for (guint i = 0; i < g_list_model_get_n_items (options); i++)
    {
      g_autoptr(RegOption) option = g_list_model_get_item (options, i);
      const char * const *choices = reg_option_get_choices (option);

      g_string_append_printf (out, "%s%s:%s=", i > 0 ? "," : "",
                              reg_option_get_name (option), reg_option_get_type_string (option));
      append_variant (out, reg_option_get_default_value (option));
      g_string_append_c (out, '<');
      append_variant (out, reg_option_get_minimum (option));
      g_string_append (out, "..");
      append_variant (out, reg_option_get_maximum (option));
      g_string_append (out, ">{");
      for (guint j = 0; choices != NULL && choices[j] != NULL; j++)
        g_string_append_printf (out, "%s%s", j > 0 ? "/" : "", choices[j]);
      g_string_append_printf (out, "}'%s'", reg_option_get_description (option) != NULL
                                              ? reg_option_get_description (option) : "(null)");
    }
  g_string_append_c (out, ']');
}

/* Everything a registry of @dirs shows: every name, in order, with every
 * field of its info.  Runs discovery. */
static char *
describe_dirs (const char * const *dirs)
{
  g_autoptr(RegRegistry) registry = registry_for_dirs (dirs);
  const char * const no_exclusion[] = { NULL };
  g_auto(GStrv) names = reg_registry_list_backends (registry, no_exclusion);
  GString *out = g_string_new (NULL);

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, names[i]);
      g_autofree char *tags = NULL;
      const char *description;

      g_assert_nonnull (info);
      tags = g_strjoinv (",", (char **) reg_backend_info_get_tags (info));
      description = reg_backend_info_get_description (info);
      g_string_append_printf (out, "%s|%s|%s%s%s|%s|%d|%d",
                              reg_backend_info_get_name (info), tags,
                              description != NULL ? "'" : "",
                              description != NULL ? description : "(null)",
                              description != NULL ? "'" : "",
                              reg_backend_info_get_module_path (info),
                              reg_backend_info_get_loaded (info),
                              reg_backend_info_get_origin (info));

      /* What only some manifests say: their options and who made them. */
      if (reg_backend_info_get_options (info) != NULL || reg_backend_info_get_version (info) != NULL ||
          reg_backend_info_get_authors (info) != NULL || reg_backend_info_get_website (info) != NULL ||
          reg_backend_info_get_license (info) != NULL)
        {
          g_autofree char *authors = reg_backend_info_get_authors (info) != NULL
            ? g_strjoinv (";", (char **) reg_backend_info_get_authors (info))
            : g_strdup ("-");

          g_string_append_c (out, '|');
          append_options (out, reg_backend_info_get_options (info));
          g_string_append_printf (out, "|%s|%s|%s|%s",
                                  reg_backend_info_get_version (info) != NULL ? reg_backend_info_get_version (info) : "-",
                                  authors,
                                  reg_backend_info_get_website (info) != NULL ? reg_backend_info_get_website (info) : "-",
                                  reg_backend_info_get_license (info) != NULL ? reg_backend_info_get_license (info) : "-");
        }
      /* What its manifest promises of its compiler (Shareable=). */
      if (reg_backend_info_get_compiler_flags (info) != REG_COMPILER_FLAGS_NONE)
        g_string_append_printf (out, "|flags=%u", (guint) reg_backend_info_get_compiler_flags (info));
      g_string_append_c (out, '\n');
    }

  return g_string_free (out, FALSE);
}

static char *
describe_dir (const char *dir)
{
  const char *dirs[] = { dir, NULL };

  return describe_dirs (dirs);
}

/* Describes @dir as discovery finds it now, and checks that it used the
 * cache: no rejection logged. */
static char *
describe_with_cache (const char *dir)
{
  char *description = describe_dir (dir);
  g_autofree char *rejection = take_cache_rejection ();

  g_assert_null (rejection);
  return description;
}

/* Describes @dir as discovery finds it now, and checks that it ignored the
 * cache with a message holding @reason. */
static char *
describe_without_cache (const char *dir,
                        const char *reason)
{
  char *description = describe_dir (dir);
  g_autofree char *rejection = take_cache_rejection ();

  g_assert_nonnull (rejection);
  if (strstr (rejection, reason) == NULL)
    g_error ("cache rejected as \"%s\", expected a message with \"%s\"", rejection, reason);
  return description;
}

/* Describes @dir read from its manifests alone: the cache moved away. */
static char *
describe_from_manifests (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, CACHE_NAME, NULL);
  g_autofree char *aside = g_build_filename (dir, "cache.aside", NULL);
  gboolean had_cache = g_file_test (path, G_FILE_TEST_EXISTS);
  char *description;

  if (had_cache)
    g_assert_no_errno (g_rename (path, aside));
  description = describe_dir (dir);
  if (had_cache)
    g_assert_no_errno (g_rename (aside, path));
  g_ptr_array_set_size (debug_messages, 0);

  return description;
}

/* Writing */

static void
test_write_basic (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *alpha = NULL;
  g_autofree char *beta = NULL;
  g_autofree char *want = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *found = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  write_two_manifests (dir);
  expected = describe_from_manifests (dir);
  alpha = g_build_filename (dir, "libalpha.so", NULL);
  beta = g_build_filename (dir, "libbeta.so", NULL);
  want = g_strdup_printf ("a1|gpu,fast|'First of alpha'|%s|0|%d|"
                          "[threads:u=uint32 2<uint32 1..uint32 8>{}'How many',"
                          "mode:s=-<-..->{fast/small}'(null)',"
                          "passes:as=['x', 'y']<-..->{}'(null)']|1.0|Ada;Grace|https://example.org/a|MIT\n"
                          "a2|debug|(null)|%s|0|%d\n"
                          "b1||''|%s|0|%d|[]|-|-|-|-\n",
                          alpha, REG_BACKEND_ORIGIN_MODULE, alpha, REG_BACKEND_ORIGIN_MODULE,
                          beta, REG_BACKEND_ORIGIN_MODULE);
  g_assert_cmpstr (expected, ==, want);

  write_cache (dir);
  contents = read_file (dir, CACHE_NAME, &length);
  g_assert_cmpuint (length, >, CACHE_HEADER_SIZE);
  g_assert_cmpmem (contents, 8, "RegBkCch", 8);

  found = describe_with_cache (dir);
  g_assert_cmpstr (found, ==, expected);

  remove_tmp_dir (dir);
}

/* The fields themselves, so that a cache and manifests agreeing on the
 * wrong thing would not pass. */
static void
test_write_fields (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autoptr(RegRegistry) registry = NULL;
  g_autoptr(RegBackendInfo) a1 = NULL;
  g_autoptr(RegBackendInfo) a2 = NULL;
  g_autoptr(RegBackendInfo) b1 = NULL;
  g_autofree char *alpha_module = NULL;
  g_autofree char *beta_module = NULL;
  g_autofree char *rejection = NULL;
  const char * const gpu_fast[] = { "gpu", "fast", NULL };
  const char * const debug[] = { "debug", NULL };
  const char * const none[] = { NULL };

  write_two_manifests (dir);
  write_cache (dir);

  registry = reg_registry_new ();
  reg_registry_add_search_path (registry, dir);
  a1 = reg_registry_get_backend_info (registry, "a1");
  a2 = reg_registry_get_backend_info (registry, "a2");
  b1 = reg_registry_get_backend_info (registry, "b1");
  rejection = take_cache_rejection ();
  g_assert_null (rejection);

  alpha_module = g_build_filename (dir, "libalpha.so", NULL);
  beta_module = g_build_filename (dir, "libbeta.so", NULL);

  g_assert_nonnull (a1);
  g_assert_cmpstrv (reg_backend_info_get_tags (a1), gpu_fast);
  g_assert_cmpstr (reg_backend_info_get_description (a1), ==, "First of alpha");
  g_assert_cmpstr (reg_backend_info_get_module_path (a1), ==, alpha_module);
  g_assert_false (reg_backend_info_get_loaded (a1));
  g_assert_cmpint (reg_backend_info_get_origin (a1), ==, REG_BACKEND_ORIGIN_MODULE);

  g_assert_nonnull (a2);
  g_assert_cmpstrv (reg_backend_info_get_tags (a2), debug);
  g_assert_null (reg_backend_info_get_description (a2));
  g_assert_cmpstr (reg_backend_info_get_module_path (a2), ==, alpha_module);

  g_assert_nonnull (b1);
  g_assert_cmpstrv (reg_backend_info_get_tags (b1), none);
  g_assert_cmpstr (reg_backend_info_get_description (b1), ==, "");
  g_assert_cmpstr (reg_backend_info_get_module_path (b1), ==, beta_module);

  remove_tmp_dir (dir);
}

/* A backend declared by a cached manifest loads its module from the path
 * the cache gives. */
static void
test_write_load_module (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *manifest = NULL;
  g_autofree char *module = NULL;
  g_autofree char *rejection = NULL;
  g_autoptr(RegRegistry) registry = NULL;
  g_autoptr(RegCompiler) compiler = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  manifest = read_file (FIXTURE_BUILDDIR, "good.backend", &length);
  write_file (dir, "good.backend", manifest, length);
  module = read_file (FIXTURE_BUILDDIR, "libfixture-good.so", &length);
  write_file (dir, "libfixture-good.so", module, length);
  write_cache (dir);

  registry = reg_registry_new ();
  reg_registry_add_search_path (registry, dir);
  compiler = reg_registry_lookup_backend (registry, "fixture_a", &error);
  g_assert_no_error (error);
  g_assert_true (REG_IS_COMPILER (compiler));
  rejection = take_cache_rejection ();
  g_assert_null (rejection);

  remove_tmp_dir (dir);
}

/* Shareable= goes through the cache: true, alone or with other details,
 * and false or absent, which are the same. */
static void
test_write_shareable (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *module = NULL;
  g_autofree char *want = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *found = NULL;
  g_autofree char *rejection = NULL;
  g_autoptr(RegRegistry) registry = NULL;
  const char *names[] = { "absent", "false", "true", "with_version" };
  const RegCompilerFlags flags[] = {
    REG_COMPILER_FLAGS_NONE, REG_COMPILER_FLAGS_NONE,
    REG_COMPILER_FLAGS_SHAREABLE, REG_COMPILER_FLAGS_SHAREABLE,
  };

  write_manifest (dir, "s.backend", "libs.so",
                  "[Backend true]\nShareable=true\n\n"
                  "[Backend false]\nShareable=false\n\n"
                  "[Backend absent]\nTags=x\n\n"
                  "[Backend with_version]\nVersion=2\nShareable=1\n");
  module = g_build_filename (dir, "libs.so", NULL);
  expected = describe_from_manifests (dir);
  want = g_strdup_printf ("absent|x|(null)|%s|0|%d\n"
                          "false||(null)|%s|0|%d\n"
                          "true||(null)|%s|0|%d|flags=%u\n"
                          "with_version||(null)|%s|0|%d|(no schema)|2|-|-|-|flags=%u\n",
                          module, REG_BACKEND_ORIGIN_MODULE, module, REG_BACKEND_ORIGIN_MODULE,
                          module, REG_BACKEND_ORIGIN_MODULE, REG_COMPILER_FLAGS_SHAREABLE,
                          module, REG_BACKEND_ORIGIN_MODULE, REG_COMPILER_FLAGS_SHAREABLE);
  g_assert_cmpstr (expected, ==, want);

  write_cache (dir);
  found = describe_with_cache (dir);
  g_assert_cmpstr (found, ==, expected);

  /* Read from the cache, the flag itself. */
  registry = registry_for_dirs ((const char * const[]) { dir, NULL });
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(RegBackendInfo) info = reg_registry_get_backend_info (registry, names[i]);

      g_assert_nonnull (info);
      g_assert_cmpint (reg_backend_info_get_compiler_flags (info), ==, flags[i]);
    }
  rejection = take_cache_rejection ();
  g_assert_null (rejection);

  remove_tmp_dir (dir);
}

static void
test_write_empty_dir (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *found = NULL;

  write_cache (dir);
  found = describe_with_cache (dir);
  g_assert_cmpstr (found, ==, "");

  remove_tmp_dir (dir);
}

static void
test_write_errors (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *missing = g_build_filename (dir, "missing", NULL);
  g_autofree char *file = g_build_filename (dir, "file", NULL);
  g_autofree char *cache_dir = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_false (reg_backend_cache_write (missing, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);

  write_file (dir, "file", "", 0);
  g_assert_false (reg_backend_cache_write (file, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR);
  g_clear_error (&error);

  /* The cache's own name taken by a directory: the rename fails. */
  cache_dir = g_build_filename (dir, "sub", NULL);
  g_assert_no_errno (g_mkdir (cache_dir, 0755));
  write_two_manifests (cache_dir);
  {
    g_autofree char *in_the_way = g_build_filename (cache_dir, CACHE_NAME, NULL);

    g_assert_no_errno (g_mkdir (in_the_way, 0755));
  }
  g_assert_false (reg_backend_cache_write (cache_dir, &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == G_FILE_ERROR);
  g_clear_error (&error);

  remove_tmp_dir (dir);
}

/* Writing again replaces the cache, and the new one is used. */
static void
test_write_again (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *stale = NULL;
  g_autofree char *fresh = NULL;

  write_two_manifests (dir);
  write_cache (dir);
  write_manifest (dir, "gamma.backend", "libgamma.so", "[Backend g1]\n");
  stale = describe_without_cache (dir, "gamma.backend is not in the cache");
  g_assert_nonnull (strstr (stale, "g1|"));

  write_cache (dir);
  fresh = describe_with_cache (dir);
  g_assert_cmpstr (fresh, ==, stale);

  remove_tmp_dir (dir);
}

/* Freshness, rule by rule */

/* Only the modification time of a manifest changes. */
static void
test_fresh_manifest_mtime (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *expected = NULL;
  g_autofree char *found = NULL;
  struct stat st;
  struct timespec later;

  write_two_manifests (dir);
  expected = describe_from_manifests (dir);
  write_cache (dir);

  st = stat_file (dir, "beta.backend");
  later = st.st_mtim;
  later.tv_sec += 1;
  set_mtime (dir, "beta.backend", &later);

  found = describe_without_cache (dir, "stale: beta.backend changed");
  g_assert_cmpstr (found, ==, expected);

  remove_tmp_dir (dir);
}

/* A manifest rewritten in place with new contents of the same size, its
 * modification time put back: only its change time tells, and the
 * registry must see the new contents. */
static void
test_fresh_manifest_ctime (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *found = NULL;
  g_autofree char *old_text = NULL;
  g_autofree char *new_text = NULL;
  struct stat before, after;
  gsize length;

  write_two_manifests (dir);
  write_cache (dir);

  old_text = read_file (dir, "alpha.backend", &length);
  new_text = g_strdup (old_text);
  memcpy (strstr (new_text, "First of alpha"), "Fresh of alpha", strlen ("Fresh of alpha"));
  before = stat_file (dir, "alpha.backend");
  overwrite_file (dir, "alpha.backend", new_text);
  set_mtime (dir, "alpha.backend", &before.st_mtim);
  after = stat_file (dir, "alpha.backend");
  g_assert_cmpint (after.st_size, ==, before.st_size);
  g_assert_cmpint (after.st_mtim.tv_sec, ==, before.st_mtim.tv_sec);
  g_assert_cmpint (after.st_mtim.tv_nsec, ==, before.st_mtim.tv_nsec);

  found = describe_without_cache (dir, "stale: alpha.backend changed");
  g_assert_nonnull (strstr (found, "'Fresh of alpha'"));
  g_assert_null (strstr (found, "'First of alpha'"));

  remove_tmp_dir (dir);
}

/* A manifest rewritten with other contents (size changes). */
static void
test_fresh_manifest_contents (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *found = NULL;

  write_two_manifests (dir);
  write_cache (dir);
  overwrite_file (dir, "beta.backend",
                  "[Reg Module]\nModule=libbeta.so\nAbiVersion=2\n\n[Backend b2]\nTags=new\n");

  found = describe_without_cache (dir, "stale: beta.backend changed");
  g_assert_nonnull (strstr (found, "b2|new|"));
  g_assert_null (strstr (found, "b1|"));

  remove_tmp_dir (dir);
}

static void
test_fresh_manifest_added (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *found = NULL;

  write_two_manifests (dir);
  write_cache (dir);
  write_manifest (dir, "aardvark.backend", "libaardvark.so", "[Backend first]\n");

  found = describe_without_cache (dir, "stale: aardvark.backend is not in the cache");
  g_assert_true (g_str_has_prefix (found, "a1|"));
  g_assert_nonnull (strstr (found, "first||(null)|"));

  remove_tmp_dir (dir);
}

static void
test_fresh_manifest_removed (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *found = NULL;

  write_two_manifests (dir);
  write_cache (dir);
  remove_file (dir, "beta.backend");

  found = describe_without_cache (dir, "stale: beta.backend was removed");
  g_assert_null (strstr (found, "b1|"));
  g_assert_nonnull (strstr (found, "a1|"));

  remove_tmp_dir (dir);
}

/* A manifest replaced by another file of the same name (rename over it),
 * as package managers do. */
static void
test_fresh_manifest_replaced (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *found = NULL;

  write_two_manifests (dir);
  write_cache (dir);
  write_manifest (dir, "beta.backend", "libbeta.so", "[Backend b9]\n");

  found = describe_without_cache (dir, "stale: beta.backend changed");
  g_assert_nonnull (strstr (found, "b9|"));

  remove_tmp_dir (dir);
}

/* Module files are not part of the cache: discovery never reads them, and
 * a lookup opens the module file that is there when it loads it.  So a
 * module file replaced, rewritten, added or removed leaves the cache
 * fresh. */

/* Copies the fixture module @fixture (built into FIXTURE_BUILDDIR) into
 * @dir as @name, replacing what is there (a new file, of another size than
 * another fixture's). */
static void
copy_fixture_module (const char *dir,
                     const char *fixture,
                     const char *name)
{
  g_autofree char *contents = NULL;
  gsize length;

  contents = read_file (FIXTURE_BUILDDIR, fixture, &length);
  write_file (dir, name, contents, length);
}

/* Looks up @name in a new registry of @dir, which must use its cache;
 * returns the error, or NULL when the lookup gave a compiler. */
static GError *
lookup_with_cache (const char *dir,
                   const char *name)
{
  g_autoptr(RegRegistry) registry = registry_for_dirs ((const char * const[]) { dir, NULL });
  g_autoptr(RegCompiler) compiler = NULL;
  g_autofree char *rejection = NULL;
  GError *error = NULL;

  compiler = reg_registry_lookup_backend (registry, name, &error);
  g_assert_true ((compiler == NULL) == (error != NULL));
  if (compiler != NULL)
    g_assert_cmpstr (reg_compiler_get_name (compiler), ==, name);
  rejection = take_cache_rejection ();
  g_assert_null (rejection);

  return error;
}

/* A module file replaced (another file, another size) after the cache was
 * written: the cache is used, and the lookup loads the new file. */
static void
test_fresh_module_replaced (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *manifest = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *found = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  /* Under the good module's name, a module this libreg refuses: built for
   * another ABI (refused before any of its code runs, and closed). */
  manifest = read_file (FIXTURE_BUILDDIR, "good.backend", &length);
  write_file (dir, "good.backend", manifest, length);
  copy_fixture_module (dir, "libfixture-abi-mismatch.so", "libfixture-good.so");
  expected = describe_from_manifests (dir);
  write_cache (dir);

  error = lookup_with_cache (dir, "fixture_a");
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
  g_assert_nonnull (strstr (error->message, "has ABI version"));
  g_clear_error (&error);

  /* The module rebuilt right. */
  copy_fixture_module (dir, "libfixture-good.so", "libfixture-good.so");
  found = describe_with_cache (dir);
  g_assert_cmpstr (found, ==, expected);
  error = lookup_with_cache (dir, "fixture_a");
  g_assert_no_error (error);

  remove_tmp_dir (dir);
}

/* A module file rewritten in place, same size, modification time put
 * back (only its change time differs): the cache is used. */
static void
test_fresh_module_rewritten (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *expected = NULL;
  g_autofree char *found = NULL;
  struct stat before, after;

  write_two_manifests (dir);
  expected = describe_from_manifests (dir);
  write_cache (dir);
  before = stat_file (dir, "libalpha.so");
  overwrite_file (dir, "libalpha.so", "NOT really a module");
  set_mtime (dir, "libalpha.so", &before.st_mtim);
  after = stat_file (dir, "libalpha.so");
  g_assert_cmpint (after.st_ino, ==, before.st_ino);
  g_assert_cmpint (after.st_size, ==, before.st_size);

  found = describe_with_cache (dir);
  g_assert_cmpstr (found, ==, expected);

  remove_tmp_dir (dir);
}

/* A module file that was missing when the cache was written appears (the
 * lookup that failed then loads it), and one that was there goes: the
 * cache is used throughout. */
static void
test_fresh_module_appears_and_goes (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *manifest = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *found = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  manifest = read_file (FIXTURE_BUILDDIR, "good.backend", &length);
  write_file (dir, "good.backend", manifest, length);
  write_two_manifests (dir);
  expected = describe_from_manifests (dir);
  write_cache (dir);

  remove_file (dir, "libalpha.so");
  found = describe_with_cache (dir);
  g_assert_cmpstr (found, ==, expected);

  error = lookup_with_cache (dir, "fixture_b");
  g_assert_error (error, REG_REGISTRY_ERROR, REG_REGISTRY_ERROR_LOAD_FAILED);
  g_assert_nonnull (strstr (error->message, "Install the module file"));
  g_clear_error (&error);

  copy_fixture_module (dir, "libfixture-good.so", "libfixture-good.so");
  error = lookup_with_cache (dir, "fixture_b");
  g_assert_no_error (error);

  remove_tmp_dir (dir);
}

/* Files that are not manifests may come and go. */
static void
test_fresh_other_files (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *expected = NULL;
  g_autofree char *found = NULL;

  write_two_manifests (dir);
  expected = describe_from_manifests (dir);
  write_cache (dir);
  write_file (dir, "README", "not a manifest", -1);
  write_file (dir, "alpha.backend~", "an editor's backup", -1);

  found = describe_with_cache (dir);
  g_assert_cmpstr (found, ==, expected);

  remove_tmp_dir (dir);
}

/* A cache copied to another directory with the same files is stale there:
 * the files' times differ. */
static void
test_fresh_copied_cache (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *other = make_tmp_dir ();
  g_autofree char *cache = NULL;
  g_autofree char *found = NULL;
  gsize length;

  write_two_manifests (dir);
  write_cache (dir);
  g_usleep (20000);
  write_two_manifests (other);
  cache = read_file (dir, CACHE_NAME, &length);
  write_file (other, CACHE_NAME, cache, length);

  found = describe_without_cache (other, "changed");
  g_assert_nonnull (strstr (found, "a1|"));

  remove_tmp_dir (other);
  remove_tmp_dir (dir);
}

/* A broken manifest is left out of the cache with a warning, and keeps
 * the cache from being used (so that it is reported at every discovery,
 * as without a cache). */
static void
test_fresh_broken_manifest (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *found = NULL;

  write_two_manifests (dir);
  write_file (dir, "broken.backend", "[Reg Module]\nModule=libbroken.so\n", -1);

  g_test_expect_message (LOG_DOMAIN, G_LOG_LEVEL_WARNING, "manifest */broken.backend skipped: AbiVersion*");
  write_cache (dir);
  g_test_assert_expected_messages ();

  g_test_expect_message (LOG_DOMAIN, G_LOG_LEVEL_WARNING, "manifest */broken.backend skipped: AbiVersion*");
  found = describe_without_cache (dir, "stale: broken.backend is not in the cache");
  g_test_assert_expected_messages ();
  g_assert_nonnull (strstr (found, "a1|"));
  g_assert_nonnull (strstr (found, "b1|"));

  /* Fixed, and the cache written again: used. */
  remove_file (dir, "broken.backend");
  write_cache (dir);
  g_free (describe_with_cache (dir));

  remove_tmp_dir (dir);
}

/* A manifest whose file name is not UTF-8 cannot be held by the cache: it
 * is left out, so the cache is not used and the manifest is read. */
static void
test_fresh_non_utf8_name (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *found = NULL;

  write_two_manifests (dir);
  write_manifest (dir, "caf\xe9.backend", "libcafe.so", "[Backend cafe]\n");
  write_cache (dir);

  found = describe_without_cache (dir, "is not in the cache");
  g_assert_nonnull (strstr (found, "cafe|"));

  remove_tmp_dir (dir);
}

/* Several directories: the first declaration of a name wins, with caches
 * or without. */
static void
test_fresh_search_order (void)
{
  g_autofree char *first = make_tmp_dir ();
  g_autofree char *second = make_tmp_dir ();
  const char *dirs[] = { first, second, NULL };
  g_autofree char *expected = NULL;
  g_autofree char *found = NULL;
  g_autofree char *rejection = NULL;

  write_manifest (first, "x.backend", "libx.so", "[Backend shared]\nDescription=from first\n");
  write_manifest (second, "y.backend", "liby.so",
                  "[Backend shared]\nDescription=from second\n\n[Backend only_second]\n");
  expected = describe_dirs (dirs);
  g_ptr_array_set_size (debug_messages, 0);
  g_assert_nonnull (strstr (expected, "'from first'"));

  write_cache (first);
  write_cache (second);
  found = describe_dirs (dirs);
  rejection = take_cache_rejection ();
  g_assert_null (rejection);
  g_assert_cmpstr (found, ==, expected);

  remove_tmp_dir (second);
  remove_tmp_dir (first);
}

/* On a file system of one-second time stamps, a manifest rewritten in
 * place at the same size within the second in which the cache was
 * written kept its stamp: the cache was served stale.  The writer now
 * waits until the stamps it records are older than the cache itself, as
 * the file system dates it, so that any later change shows. */
static void
test_fresh_coarse_time_stamps (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *found = NULL;
  g_autofree char *old_text = NULL;
  g_autofree char *new_text = NULL;
  struct stat before, after;
  gsize length;

  start_coarse_time (G_GINT64_CONSTANT (1000000000));

  write_two_manifests (dir);
  write_cache (dir);

  old_text = read_file (dir, "alpha.backend", &length);
  new_text = g_strdup (old_text);
  memcpy (strstr (new_text, "First of alpha"), "Fresh of alpha", strlen ("Fresh of alpha"));
  before = stat_file (dir, "alpha.backend");
  overwrite_file (dir, "alpha.backend", new_text);
  after = stat_file (dir, "alpha.backend");
  g_assert_cmpint (after.st_size, ==, before.st_size);
  g_assert_cmpint (after.st_ino, ==, before.st_ino);

  found = describe_without_cache (dir, "stale: alpha.backend changed");
  g_assert_nonnull (strstr (found, "'Fresh of alpha'"));
  g_assert_null (strstr (found, "'First of alpha'"));

  stop_coarse_time ();
  remove_tmp_dir (dir);
}

/* A manifest that is a symbolic link, switched to another file of the
 * same size and the same times (within one tick of a coarse clock): the
 * cache records what the name leads to, device and inode, and sees
 * another file. */
static void
test_fresh_symlink_switched (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *link = g_build_filename (dir, "switch.backend", NULL);
  g_autofree char *found = NULL;
  struct stat a, b;

  start_coarse_time (G_GINT64_CONSTANT (1000000000));

  write_manifest (dir, "a.manifest", "libswitch.so", "[Backend aaaa]\n");
  write_manifest (dir, "b.manifest", "libswitch.so", "[Backend bbbb]\n");
  a = stat_file (dir, "a.manifest");
  b = stat_file (dir, "b.manifest");
  g_assert_cmpint (a.st_size, ==, b.st_size);
  g_assert_no_errno (symlink ("a.manifest", link));

  write_cache (dir);
  found = describe_with_cache (dir);
  g_assert_nonnull (strstr (found, "aaaa|"));
  g_clear_pointer (&found, g_free);

  /* Both files now dated alike, as a copy of both in one go would be. */
  b = stat_file (dir, "b.manifest");
  set_mtime (dir, "a.manifest", &b.st_mtim);
  g_assert_no_errno (g_unlink (link));
  g_assert_no_errno (symlink ("b.manifest", link));

  found = describe_without_cache (dir, "stale: switch.backend changed");
  g_assert_nonnull (strstr (found, "bbbb|"));
  g_assert_null (strstr (found, "aaaa|"));

  stop_coarse_time ();
  remove_tmp_dir (dir);
}

/* A sparse file of 4 GiB in the cache's place, its header claiming a body
 * of that size: refused from its size, unread (it took 11 s and 4 GB of
 * memory to checksum). */
static void
test_corrupt_sparse_huge (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, CACHE_NAME, NULL);
  g_autofree char *expected = NULL;
  g_autofree char *found = NULL;
  g_autofree char *good = NULL;
  guint64 body_size = (G_GUINT64_CONSTANT (4) << 30) - CACHE_HEADER_SIZE;
  gsize length;
  int fd;

  write_two_manifests (dir);
  expected = describe_from_manifests (dir);
  write_cache (dir);
  good = read_file (dir, CACHE_NAME, &length);
  memcpy (good + 16, &body_size, sizeof body_size);

  fd = g_open (path, O_WRONLY | O_TRUNC | O_CLOEXEC, 0);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, good, CACHE_HEADER_SIZE), ==, CACHE_HEADER_SIZE);
  g_assert_no_errno (ftruncate (fd, G_GINT64_CONSTANT (4) << 30));
  g_assert_no_errno (g_close (fd, NULL) ? 0 : -1);

  found = describe_without_cache (dir, "4294967296 bytes, larger than the 67108864 bytes "
                                       "a discovery cache may have");
  g_assert_cmpstr (found, ==, expected);

  remove_tmp_dir (dir);
}

/* Writing replaces the file by a rename: a reader that opened the old one
 * keeps reading it whole, and no temporary file is left behind. */
static void
test_write_atomic (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, CACHE_NAME, NULL);
  g_autofree char *old_contents = NULL;
  g_autofree char *read_back = NULL;
  g_autoptr(GDir) gdir = NULL;
  struct stat old_st, new_st;
  const char *name;
  gsize length;
  int fd;

  write_two_manifests (dir);
  write_cache (dir);
  old_contents = read_file (dir, CACHE_NAME, &length);
  old_st = stat_file (dir, CACHE_NAME);
  fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  g_assert_cmpint (fd, >=, 0);

  write_manifest (dir, "gamma.backend", "libgamma.so", "[Backend g1]\n");
  write_cache (dir);
  new_st = stat_file (dir, CACHE_NAME);
  g_assert_cmpuint (new_st.st_ino, !=, old_st.st_ino);
  g_assert_cmpint (new_st.st_mode & 0777, ==, 0644 & ~get_umask ());

  read_back = g_malloc (length + 1);
  g_assert_cmpint (read (fd, read_back, length + 1), ==, (gssize) length);
  g_assert_cmpmem (read_back, length, old_contents, length);
  g_close (fd, NULL);

  gdir = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (gdir)) != NULL)
    g_assert_false (g_str_has_prefix (name, ".backends.cache"));

  g_free (describe_with_cache (dir));

  remove_tmp_dir (dir);
}

/* Damaged caches */

/* Checks that discovery of @dir, whose cache @contents replaces, ignores
 * it with a message holding @reason, and finds @expected. */
static void
assert_cache_rejected (const char *dir,
                       const char *contents,
                       gsize       length,
                       const char *reason,
                       const char *expected)
{
  g_autofree char *found = NULL;

  write_file_in_place (dir, CACHE_NAME, contents, length);
  found = describe_without_cache (dir, reason);
  g_assert_cmpstr (found, ==, expected);
}

/* Every byte of the file flipped, one at a time: the header's fields and
 * the checksum catch each. */
static void
test_corrupt_flip_bytes (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *expected = NULL;
  g_autofree char *good = NULL;
  gsize length;

  write_two_manifests (dir);
  expected = describe_from_manifests (dir);
  write_cache (dir);
  good = read_file (dir, CACHE_NAME, &length);

  for (gsize i = 0; i < length; i++)
    {
      g_autofree char *bad = g_memdup2 (good, length);

      bad[i] ^= (i % 8 == 0) ? 0x01 : 0x80;
      assert_cache_rejected (dir, bad, length, " not used: ", expected);
    }

  /* The good one is used again. */
  write_file (dir, CACHE_NAME, good, length);
  g_free (describe_with_cache (dir));

  remove_tmp_dir (dir);
}

static void
test_corrupt_truncated (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *expected = NULL;
  g_autofree char *good = NULL;
  gsize length;

  write_two_manifests (dir);
  expected = describe_from_manifests (dir);
  write_cache (dir);
  good = read_file (dir, CACHE_NAME, &length);

  assert_cache_rejected (dir, good, 0, "shorter than a cache header", expected);
  assert_cache_rejected (dir, good, 8, "shorter than a cache header", expected);
  assert_cache_rejected (dir, good, CACHE_HEADER_SIZE - 1, "shorter than a cache header", expected);
  assert_cache_rejected (dir, good, CACHE_HEADER_SIZE, "truncated", expected);
  assert_cache_rejected (dir, good, length / 2, "truncated", expected);
  assert_cache_rejected (dir, good, length - 1, "truncated", expected);

  /* And extended. */
  {
    g_autofree char *longer = g_malloc0 (length + 8);

    memcpy (longer, good, length);
    assert_cache_rejected (dir, longer, length + 8, "truncated or extended", expected);
  }

  remove_tmp_dir (dir);
}

static void
test_corrupt_empty_file (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *expected = NULL;

  write_two_manifests (dir);
  expected = describe_from_manifests (dir);
  assert_cache_rejected (dir, "", 0, "shorter than a cache header", expected);

  remove_tmp_dir (dir);
}

/* Something else than a file in the cache's place: never opened in a
 * way that could block (a FIFO would hang a plain open()). */
static void
test_corrupt_not_a_file (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, CACHE_NAME, NULL);
  g_autofree char *expected = NULL;
  g_autofree char *found = NULL;

  write_two_manifests (dir);
  expected = describe_from_manifests (dir);

  g_assert_no_errno (mkfifo (path, 0644));
  found = describe_without_cache (dir, "not a regular file");
  g_assert_cmpstr (found, ==, expected);

  /* Writing the cache replaces it. */
  write_cache (dir);
  g_free (describe_with_cache (dir));

  g_assert_no_errno (g_unlink (path));
  g_assert_no_errno (g_mkdir (path, 0755));
  g_clear_pointer (&found, g_free);
  found = describe_without_cache (dir, "not a regular file");
  g_assert_cmpstr (found, ==, expected);

  remove_tmp_dir (dir);
}

static void
test_corrupt_wrong_magic_and_version (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *expected = NULL;
  g_autofree char *good = NULL;
  g_autofree char *bad = NULL;
  guint32 version;
  gsize length;

  write_two_manifests (dir);
  expected = describe_from_manifests (dir);
  write_cache (dir);
  good = read_file (dir, CACHE_NAME, &length);

  bad = g_memdup2 (good, length);
  memcpy (bad, "GVariant", 8);
  assert_cache_rejected (dir, bad, length, "bad magic", expected);

  /* A later format version, and the same version in the other byte
   * order (a cache written on a machine of the other endianness). */
  for (guint i = 0; i < 2; i++)
    {
      memcpy (bad, good, length);
      version = i == 0 ? CACHE_VERSION + 1 : GUINT32_SWAP_LE_BE (CACHE_VERSION);
      memcpy (bad + 8, &version, sizeof version);
      assert_cache_rejected (dir, bad, length, "format version", expected);
    }

  /* Not a cache at all. */
  assert_cache_rejected (dir, "[Reg Module]\nModule=libx.so\nAbiVersion=2\n", 40,
                         " not used: ", expected);

  remove_tmp_dir (dir);
}

/* Damage that keeps the checksum right, to reach the checks behind it.
 * This mirrors body_checksum() of reg-manifest-cache.c. */
static guint64
body_checksum (const guint8 *data,
               gsize         length)
{
  const guint64 k1 = G_GUINT64_CONSTANT (0x87c37b91114253d5);
  const guint64 k2 = G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  guint64 h = k2 ^ length;
  gsize i;

  for (i = 0; i + 8 <= length; i += 8)
    {
      guint64 word;

      memcpy (&word, data + i, 8);
      h ^= word * k1;
      h = ((h << 27) | (h >> 37)) * k2 + G_GUINT64_CONSTANT (0x52dce729);
    }
  if (i < length)
    {
      guint64 word = 0;

      memcpy (&word, data + i, length - i);
      h ^= word * k1;
      h = ((h << 27) | (h >> 37)) * k2 + G_GUINT64_CONSTANT (0x52dce729);
    }
  h ^= h >> 33;
  h *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  h ^= h >> 33;

  return h;
}

/* A cache file made of the header of @good and the @body_size bytes at
 * @body, stored as they are, with the header's size and checksum fixed. */
static char *
cache_with_raw_body (const char   *good,
                     const guint8 *body,
                     gsize         body_size)
{
  char *file = g_malloc (CACHE_HEADER_SIZE + body_size);
  guint64 size64 = body_size;
  guint64 checksum = body_checksum (body, body_size);

  memcpy (file, good, CACHE_HEADER_SIZE);
  memcpy (file + 16, &size64, 8);
  memcpy (file + 24, &checksum, 8);
  memcpy (file + CACHE_HEADER_SIZE, body, body_size);

  return file;
}

/* The same with the serialised @body. */
static char *
make_cache_with_body (const char *good,
                      GVariant   *body,
                      gsize      *length)
{
  gsize body_size = g_variant_get_size (body);
  g_autofree guint8 *data = g_malloc0 (MAX (body_size, 1));

  g_variant_store (body, data);
  *length = CACHE_HEADER_SIZE + body_size;

  return cache_with_raw_body (good, data, body_size);
}

static GVariant *
good_body (const char *good,
           gsize       length)
{
  g_autoptr(GBytes) bytes = g_bytes_new (good + CACHE_HEADER_SIZE, length - CACHE_HEADER_SIZE);
  GVariant *body = g_variant_new_from_bytes (G_VARIANT_TYPE (CACHE_BODY_TYPE), bytes, FALSE);

  g_assert_true (g_variant_is_normal_form (body));
  return g_variant_ref_sink (body);
}

/* Checks that a cache of the header of @good and the body @raw (stored as
 * it is, with its size and checksum right) is rejected for @reason. */
static void
assert_raw_body_rejected (const char   *dir,
                          const char   *good,
                          const guint8 *raw,
                          gsize         body_size,
                          const char   *reason,
                          const char   *expected)
{
  g_autoptr(GBytes) bytes = g_bytes_new (raw, body_size);
  g_autoptr(GVariant) bad = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE (CACHE_BODY_TYPE),
                                                                          bytes, FALSE));
  g_autofree char *file = cache_with_raw_body (good, raw, body_size);

  /* This checks the test: the body is what it should be, not normal. */
  g_assert_false (g_variant_is_normal_form (bad));

  assert_cache_rejected (dir, file, CACHE_HEADER_SIZE + body_size, reason, expected);
}

static void
test_corrupt_checked_content (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *expected = NULL;
  g_autofree char *good = NULL;
  g_autoptr(GVariant) body = NULL;
  g_autoptr(GVariant) manifests = NULL;
  g_autoptr(GVariant) backends = NULL;
  g_autoptr(GVariant) tags = NULL;
  g_autoptr(GVariant) details = NULL;
  const char *strings;
  guint32 abi;
  gint64 reference_ns, reference_dev;
  gsize length;

  write_two_manifests (dir);
  expected = describe_from_manifests (dir);
  write_cache (dir);
  good = read_file (dir, CACHE_NAME, &length);
  body = good_body (good, length);
  g_variant_get (body, "(uxx&s@a" CACHE_MANIFEST_TYPE "@a(uuuuu)@a(uu)@" CACHE_DETAILS_TYPE ")", &abi, &reference_ns, &reference_dev,
                 &strings, &manifests, &backends, &tags, &details);
  g_assert_cmpuint (abi, ==, REG_MODULE_ABI_VERSION);
  g_assert_cmpuint (g_variant_n_children (manifests), ==, 2);
  g_assert_cmpuint (g_variant_n_children (backends), ==, 3);

  /* The body rebuilt as it is: accepted (this checks the test). */
  {
    g_autoptr(GVariant) same = g_variant_ref_sink (g_variant_new ("(uxxs@a" CACHE_MANIFEST_TYPE "@a(uuuuu)@a(uu)@" CACHE_DETAILS_TYPE ")",
                                                                  abi, reference_ns, reference_dev, strings, manifests, backends, tags, details));
    g_autofree char *file = make_cache_with_body (good, same, &length);
    g_autofree char *found = NULL;

    write_file (dir, CACHE_NAME, file, length);
    found = describe_with_cache (dir);
    g_assert_cmpstr (found, ==, expected);
  }

  /* Another ABI. */
  {
    g_autoptr(GVariant) other = g_variant_ref_sink (g_variant_new ("(uxxs@a" CACHE_MANIFEST_TYPE "@a(uuuuu)@a(uu)@" CACHE_DETAILS_TYPE ")",
                                                                   abi + 1, reference_ns, reference_dev, strings, manifests, backends, tags, details));
    g_autofree char *file = make_cache_with_body (good, other, &length);

    assert_cache_rejected (dir, file, length, "AbiVersion=3", expected);
  }

  /* A reference time before the files' changes: their stamps are worth
   * nothing (a change within the same tick would keep them), on the same
   * device or another. */
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GVariant) racy = g_variant_ref_sink (g_variant_new ("(uxxs@a" CACHE_MANIFEST_TYPE "@a(uuuuu)@a(uu)@" CACHE_DETAILS_TYPE ")",
                                                                    abi,
                                                                    i == 0 ? (gint64) 0 : reference_ns,
                                                                    i == 0 ? reference_dev : reference_dev + 1,
                                                                    strings, manifests, backends, tags, details));
      g_autofree char *file = make_cache_with_body (good, racy, &length);

      assert_cache_rejected (dir, file, length, "record 0 holds a stamp not older than the cache (racy)",
                             expected);
    }

  /* Not in normal form, each way its members can break it: the padding
   * of a record, the string table's UTF-8, an array that is not a whole
   * number of records (its end moved by the tuple's framing offset), a
   * version that does not fit. */
  {
    gsize body_size = g_variant_get_size (body);
    gsize manifests_at = (const guint8 *) g_variant_get_data (manifests) -
                         (const guint8 *) g_variant_get_data (body);
    gsize strings_at = (const guint8 *) strings - (const guint8 *) g_variant_get_data (body);
    gsize manifests_end = manifests_at + g_variant_get_size (manifests);
    guint offset_size = body_size > G_MAXUINT16 ? 4 : body_size > G_MAXUINT8 ? 2 : 1;
    /* The framing offsets of (u x x s a a a a), last to first at the end:
     * the end of the s, then the end of the first array before it. */
    gsize framing_at = body_size - 2 * offset_size;
    guint64 framed = 0;
    g_autofree guint8 *raw = NULL;

    memcpy (&framed, good + CACHE_HEADER_SIZE + framing_at, offset_size);
    g_assert_cmpuint (GUINT64_FROM_LE (framed), ==, manifests_end);

    /* The last 4 bytes of the first manifest record are its padding. */
    raw = g_memdup2 (good + CACHE_HEADER_SIZE, body_size);
    g_assert_cmpuint (g_variant_get_size (manifests), ==, 2 * CACHE_MANIFEST_SIZE);
    raw[manifests_at + CACHE_MANIFEST_SIZE - 4] = 0xff;
    assert_raw_body_rejected (dir, good, raw, body_size, "(the padding of record 0)", expected);

    g_free (raw);
    raw = g_memdup2 (good + CACHE_HEADER_SIZE, body_size);
    raw[strings_at] = 0xff;
    assert_raw_body_rejected (dir, good, raw, body_size, "(the string table)", expected);

    g_free (raw);
    raw = g_memdup2 (good + CACHE_HEADER_SIZE, body_size);
    framed = GUINT64_TO_LE (manifests_end - 4);
    memcpy (raw + framing_at, &framed, offset_size);
    assert_raw_body_rejected (dir, good, raw, body_size, "(the manifest records)", expected);

    /* A body too short to hold even the ABI version. */
    assert_raw_body_rejected (dir, good, raw, 3, "(the ABI version)", expected);
  }

  /* Records pointing outside the string table, or at a name that breaks
   * the rules, or not sorted; counts that do not add up. */
  {
    struct { const char *what; guint field; guint32 value; const char *reason; } cases[] = {
      { "file name offset out of bounds", 5, G_MAXUINT32 - 2, "bad manifest name" },
      { "file name length out of bounds", 6, G_MAXUINT32, "bad manifest name" },
      { "module name offset out of bounds", 7, 100000, "bad module name" },
      { "module name empty", 8, 0, "bad module name" },
      { "no backend", 9, 0, "bad backend count" },
      { "too many backends", 9, 3, "bad backend count" },
    };

    for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
      {
        g_autoptr(GVariantBuilder) builder = g_variant_builder_new (G_VARIANT_TYPE ("a" CACHE_MANIFEST_TYPE));
        g_autoptr(GVariant) bad_body = NULL;
        g_autofree char *file = NULL;

        for (gsize m = 0; m < g_variant_n_children (manifests); m++)
          {
            g_autoptr(GVariant) record = g_variant_get_child_value (manifests, m);
            GVariant *fields[CACHE_MANIFEST_FIELDS];

            for (guint f = 0; f < CACHE_MANIFEST_FIELDS; f++)
              fields[f] = g_variant_get_child_value (record, f);
            if (m == 0)
              {
                g_variant_unref (fields[cases[c].field]);
                fields[cases[c].field] = g_variant_ref_sink (g_variant_new_uint32 (cases[c].value));
              }
            g_variant_builder_add_value (builder, g_variant_new_tuple (fields, CACHE_MANIFEST_FIELDS));
            for (guint f = 0; f < CACHE_MANIFEST_FIELDS; f++)
              g_variant_unref (fields[f]);
          }

        bad_body = g_variant_ref_sink (g_variant_new ("(uxxsa" CACHE_MANIFEST_TYPE "@a(uuuuu)@a(uu)@" CACHE_DETAILS_TYPE ")",
                                                      abi, reference_ns, reference_dev, strings,
                                                      builder, backends, tags, details));
        file = make_cache_with_body (good, bad_body, &length);
        g_test_message ("%s", cases[c].what);
        assert_cache_rejected (dir, file, length, cases[c].reason, expected);
      }
  }

  /* A backend name or a tag that breaks the naming rules, a tag twice, a
   * name twice in a manifest: a1's name "a1" becomes "a ", its tag "gpu"
   * becomes "g u", its second tag's record points at its first, or a2's
   * name becomes "a1". */
  {
    guint32 name_offset, tag_offset, tag_length;
    g_autofree char *bad_name = g_strdup (strings);
    g_autofree char *bad_tag = g_strdup (strings);
    g_autoptr(GVariantBuilder) twice = g_variant_builder_new (G_VARIANT_TYPE ("a(uu)"));
    const char *tables[] = { bad_name, bad_tag };

    g_variant_get_child (backends, 0, "(uuuuu)", &name_offset, NULL, NULL, NULL, NULL);
    g_variant_get_child (tags, 0, "(uu)", &tag_offset, &tag_length);
    g_assert_cmpmem (strings + name_offset, 2, "a1", 2);
    g_assert_cmpmem (strings + tag_offset, tag_length, "gpu", 3);
    bad_name[name_offset + 1] = ' ';
    bad_tag[tag_offset + 1] = ' ';

    for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
      {
        g_autoptr(GVariant) bad_body = g_variant_ref_sink (g_variant_new ("(uxxs@a" CACHE_MANIFEST_TYPE "@a(uuuuu)@a(uu)@" CACHE_DETAILS_TYPE ")",
                                                                          abi, reference_ns, reference_dev,
                                                                          tables[t], manifests, backends, tags, details));
        g_autofree char *file = make_cache_with_body (good, bad_body, &length);

        assert_cache_rejected (dir, file, length,
                               t == 0 ? "backend 0 has a bad name" : "backend 0 has a bad or repeated tag",
                               expected);
      }

    for (gsize t = 0; t < g_variant_n_children (tags); t++)
      {
        g_autoptr(GVariant) tag = g_variant_get_child_value (tags, t == 1 ? 0 : t);

        g_variant_builder_add_value (twice, tag);
      }
    {
      g_autoptr(GVariant) bad_body = g_variant_ref_sink (g_variant_new ("(uxxs@a" CACHE_MANIFEST_TYPE "@a(uuuuu)a(uu)@" CACHE_DETAILS_TYPE ")",
                                                                        abi, reference_ns, reference_dev,
                                                                        strings, manifests, backends, twice, details));
      g_autofree char *file = make_cache_with_body (good, bad_body, &length);

      assert_cache_rejected (dir, file, length, "backend 0 has a bad or repeated tag", expected);
    }

    /* a2 named a1 too: the string table's "a2" made "a1". */
    {
      g_autofree char *same_name = g_strdup (strings);
      g_autoptr(GVariant) bad_body = NULL;
      g_autofree char *file = NULL;
      guint32 a2_offset;

      g_variant_get_child (backends, 1, "(uuuuu)", &a2_offset, NULL, NULL, NULL, NULL);
      g_assert_cmpmem (strings + a2_offset, 2, "a2", 2);
      same_name[a2_offset + 1] = '1';
      bad_body = g_variant_ref_sink (g_variant_new ("(uxxs@a" CACHE_MANIFEST_TYPE "@a(uuuuu)@a(uu)@" CACHE_DETAILS_TYPE ")",
                                                    abi, reference_ns, reference_dev,
                                                    same_name, manifests, backends, tags, details));
      file = make_cache_with_body (good, bad_body, &length);
      assert_cache_rejected (dir, file, length, "backend 1 has a name its manifest declares twice", expected);
    }
  }

  /* Details out of order, naming no backend, or saying what no manifest
   * could. */
  {
    const char *a1_threads_9 =
      "(@ms nothing, @mas nothing, @ms nothing, @ms nothing, "
      "@ma(ssmvmsmvmvmas) [('threads', 'u', just <uint32 9>, nothing, just <uint32 1>, "
      "just <uint32 8>, nothing)], uint32 0)";
    const char *says_nothing = "(@ms nothing, @mas nothing, @ms nothing, @ms nothing, "
                               "@ma(ssmvmsmvmvmas) nothing, uint32 0)";
    const char *ftp_website = "(@ms nothing, @mas nothing, just 'ftp://example.org/', @ms nothing, "
                              "@ma(ssmvmsmvmvmas) nothing, uint32 0)";
    /* Flags no manifest can declare (only Shareable=, 1, can). */
    const char *unknown_flags = "(@ms nothing, @mas nothing, @ms nothing, @ms nothing, "
                                "@ma(ssmvmsmvmvmas) nothing, uint32 3)";
    g_autoptr(GVariant) first = g_variant_get_child_value (details, 0);
    g_autoptr(GVariant) second = g_variant_get_child_value (details, 1);
    struct { const char *what; guint32 index; const char *text; const char *reason; } cases[] = {
      { "an option's default out of its range", 0, a1_threads_9,
        "backend 0 has bad details: option 'threads': default must be between 1 and 8, not 9" },
      { "details that say nothing", 0, says_nothing, "backend 0 has bad details: details that say nothing" },
      { "flags no manifest can declare", 0, unknown_flags,
        "backend 0 has bad details: compiler flags 0x3: only 0x1 (Shareable=) can be declared" },
      { "a website that is not http", 1, ftp_website,
        "backend 1 has bad details: Website=ftp://example.org/ is not an http or https URI" },
      { "no such backend", 3, says_nothing, "bad backend index in details 0" },
    };
    guint32 first_index, second_index;

    g_assert_cmpuint (g_variant_n_children (details), ==, 2);
    g_variant_get (first, "(u@" CACHE_ONE_DETAILS_TYPE ")", &first_index, NULL);
    g_variant_get (second, "(u@" CACHE_ONE_DETAILS_TYPE ")", &second_index, NULL);
    g_assert_cmpuint (first_index, ==, 0);
    g_assert_cmpuint (second_index, ==, 2);

    for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
      {
        g_autoptr(GVariant) one = g_variant_parse (G_VARIANT_TYPE (CACHE_ONE_DETAILS_TYPE),
                                                   cases[c].text, NULL, NULL, NULL);
        GVariant *element;
        g_autoptr(GVariant) bad_body = NULL;
        g_autofree char *file = NULL;

        g_assert_nonnull (one);
        element = g_variant_new ("(u@" CACHE_ONE_DETAILS_TYPE ")", cases[c].index, one);
        bad_body = g_variant_ref_sink (g_variant_new ("(uxxs@a" CACHE_MANIFEST_TYPE "@a(uuuuu)@a(uu)@" CACHE_DETAILS_TYPE ")",
                                                      abi, reference_ns, reference_dev, strings, manifests, backends, tags,
                                                      g_variant_new_array (NULL, &element, 1)));
        file = make_cache_with_body (good, bad_body, &length);
        g_test_message ("%s", cases[c].what);
        assert_cache_rejected (dir, file, length, cases[c].reason, expected);
      }

    /* The two in the wrong order. */
    {
      GVariant *swapped[2] = { second, first };
      g_autoptr(GVariant) bad_body = g_variant_ref_sink (g_variant_new ("(uxxs@a" CACHE_MANIFEST_TYPE "@a(uuuuu)@a(uu)@" CACHE_DETAILS_TYPE ")",
        abi, reference_ns, reference_dev, strings, manifests, backends, tags, g_variant_new_array (NULL, swapped, 2)));
      g_autofree char *file = make_cache_with_body (good, bad_body, &length);

      assert_cache_rejected (dir, file, length, "bad backend index in details 1", expected);
    }
  }

  /* Manifests out of order. */
  {
    g_autoptr(GVariant) first = g_variant_get_child_value (manifests, 0);
    g_autoptr(GVariant) second = g_variant_get_child_value (manifests, 1);
    GVariant *swapped[2] = { second, first };
    g_autoptr(GVariant) bad_body = g_variant_ref_sink (g_variant_new ("(uxxs@a" CACHE_MANIFEST_TYPE "@a(uuuuu)@a(uu)@" CACHE_DETAILS_TYPE ")",
      abi, reference_ns, reference_dev, strings, g_variant_new_array (NULL, swapped, 2), backends, tags, details));
    g_autofree char *file = make_cache_with_body (good, bad_body, &length);

    assert_cache_rejected (dir, file, length, "bad manifest name", expected);
  }

  /* A tag too many, and a string table that lost its last bytes. */
  {
    g_autoptr(GVariantBuilder) builder = g_variant_builder_new (G_VARIANT_TYPE ("a(uu)"));
    g_autoptr(GVariant) bad_body = NULL;
    g_autofree char *file = NULL;
    g_autofree char *short_strings = g_strndup (strings, strlen (strings) - 3);

    for (gsize t = 0; t < g_variant_n_children (tags); t++)
      {
        g_autoptr(GVariant) tag = g_variant_get_child_value (tags, t);

        g_variant_builder_add_value (builder, tag);
      }
    g_variant_builder_add (builder, "(uu)", 0, 1);
    bad_body = g_variant_ref_sink (g_variant_new ("(uxxs@a" CACHE_MANIFEST_TYPE "@a(uuuuu)a(uu)@" CACHE_DETAILS_TYPE ")",
                                                  abi, reference_ns, reference_dev,
                                                  strings, manifests, backends, builder, details));
    file = make_cache_with_body (good, bad_body, &length);
    assert_cache_rejected (dir, file, length, "tags no backend carries", expected);

    g_clear_pointer (&bad_body, g_variant_unref);
    g_clear_pointer (&file, g_free);
    bad_body = g_variant_ref_sink (g_variant_new ("(uxxs@a" CACHE_MANIFEST_TYPE "@a(uuuuu)@a(uu)@" CACHE_DETAILS_TYPE ")",
                                                  abi, reference_ns, reference_dev,
                                                  short_strings, manifests, backends, tags, details));
    file = make_cache_with_body (good, bad_body, &length);
    assert_cache_rejected (dir, file, length, " not used: ", expected);
  }

  remove_tmp_dir (dir);
}

/* Scale */

/* Writes @n manifests with a variety of declarations: one or two
 * backends, tags or none, a description or none, a module file or none. */
static void
write_many_manifests (const char *dir,
                      guint       n)
{
  static const char * const tag_sets[] = { "", "debug", "gpu;fast", "experimental;gpu", "x;y;z" };

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *file = g_strdup_printf ("m%05u.backend", i);
      g_autofree char *module = g_strdup_printf ("libm%05u.so", i);
      g_autoptr(GString) backends = g_string_new (NULL);
      guint n_backends = i % 7 == 0 ? 2 : 1;

      for (guint b = 0; b < n_backends; b++)
        {
          g_string_append_printf (backends, "[Backend be_%05u_%u]\nTags=%s\n", i, b,
                                  tag_sets[(i + b) % G_N_ELEMENTS (tag_sets)]);
          if (i % 5 != 0)
            g_string_append_printf (backends, "Description=Backend %u/%u, caf\xc3\xa9 \\\\ \\t tab\n", i, b);
          if (i % 15 == 0)
            g_string_append_printf (backends, "Version=%u.%u\nAuthors=A %u;B\n", i, b, i);
          if (i % 10 == 0)
            g_string_append_printf (backends,
                                    "Options=n;mode\n\n"
                                    "[Option be_%05u_%u n]\nType=u\nDefault=%u\nMaximum=%u\n\n"
                                    "[Option be_%05u_%u mode]\nType=s\nChoices=a;b\nDescription=%u\n",
                                    i, b, i, i + b, i, b, i);
          g_string_append_c (backends, '\n');
        }
      write_manifest (dir, file, module, backends->str);
      if (i % 3 != 0)
        write_file (dir, module, "", 0);
    }
}

/* The same results with and without the cache over 1,000 manifests. */
static void
test_scale_identical (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *expected = NULL;
  g_autofree char *found = NULL;

  write_many_manifests (dir, 1000);
  expected = describe_from_manifests (dir);
  g_assert_cmpuint (strlen (expected), >, 1000 * 40);

  write_cache (dir);
  found = describe_with_cache (dir);
  g_assert_cmpstr (found, ==, expected);

  remove_tmp_dir (dir);
}

/* Large enough for discovery to check files in two threads: a change
 * anywhere is still found. */
static void
test_scale_large_changes (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *expected = NULL;
  g_autofree char *found = NULL;
  struct timespec later;
  struct stat st;

  write_many_manifests (dir, 2600);
  expected = describe_from_manifests (dir);
  write_cache (dir);
  found = describe_with_cache (dir);
  g_assert_cmpstr (found, ==, expected);

  st = stat_file (dir, "m02345.backend");
  later = st.st_mtim;
  later.tv_sec -= 10;
  set_mtime (dir, "m02345.backend", &later);
  g_free (describe_without_cache (dir, "stale: m02345.backend changed"));

  /* Module files are not the cache's business. */
  write_cache (dir);
  write_file (dir, "libm01001.so", "rebuilt", -1);
  remove_file (dir, "libm01004.so");
  g_clear_pointer (&found, g_free);
  found = describe_with_cache (dir);
  g_assert_cmpstr (found, ==, expected);

  remove_file (dir, "m00000.backend");
  g_free (describe_without_cache (dir, "stale: m00000.backend was removed"));

  remove_tmp_dir (dir);
}

/* Several processes discovering while another rewrites the cache and the
 * manifests in place, as `cp` over them does (truncate, then write), for
 * a fixed number of rounds: no process may die.  A cache read through a
 * memory map killed its reader with SIGBUS when it was truncated under
 * it.  The names are the same in every version of the files, so each
 * discovery must find exactly them, or fewer (a manifest caught empty or
 * half written is skipped with a warning, which the children do not
 * count as a failure). */

#define STRESS_CHILDREN 3
#define STRESS_MANIFESTS 12
#define DEFAULT_STRESS_ROUNDS 500

static guint
stress_rounds (void)
{
  const char *text = g_getenv ("CACHE_STRESS_ROUNDS");

  return text != NULL ? (guint) g_ascii_strtoull (text, NULL, 10) : DEFAULT_STRESS_ROUNDS;
}

/* Version @version (0 or 1) of manifest @i: the same names, another
 * description, another size. */
static char *
stress_manifest_text (guint i,
                      guint version)
{
  return g_strdup_printf ("[Reg Module]\nModule=libs%02u.so\nAbiVersion=%d\n\n"
                          "[Backend s%02u]\nDescription=%s\n",
                          i, REG_MODULE_ABI_VERSION, i,
                          version == 0 ? "first" : "the second version, longer");
}

static void
count_message (const char     *log_domain,
               GLogLevelFlags  log_level,
               const char     *message,
               gpointer        user_data)
{
  (*(guint *) user_data)++;
}

/* The child: @rounds discoveries of @dir in new registries, each finding
 * only names of the manifests. */
static int
stress_discover (const char *dir,
                 guint       rounds)
{
  const char * const no_exclusion[] = { NULL };
  guint n_warnings = 0;

  /* Torn manifests are skipped with a warning: expected here, counted. */
  g_log_set_handler (LOG_DOMAIN, G_LOG_LEVEL_WARNING, count_message, &n_warnings);

  for (guint r = 0; r < rounds; r++)
    {
      g_autoptr(RegRegistry) registry = reg_registry_new ();
      g_auto(GStrv) names = NULL;

      reg_registry_add_search_path (registry, dir);
      names = reg_registry_list_backends (registry, no_exclusion);
      for (guint i = 0; names[i] != NULL; i++)
        if (strlen (names[i]) != 3 || names[i][0] != 's' ||
            g_ascii_strtoull (names[i] + 1, NULL, 10) >= STRESS_MANIFESTS)
          {
            g_printerr ("round %u: unexpected backend '%s'\n", r, names[i]);
            return 2;
          }
    }

  g_printerr ("%u discoveries, %u manifests skipped as torn\n", rounds, n_warnings);
  return 0;
}

/* Truncates @path and writes @contents, in two halves with a pause between
 * them, as a copy of a larger file would. */
static void
rewrite_in_place (const char *path,
                  const char *contents,
                  gsize       length)
{
  int fd = g_open (path, O_WRONLY | O_TRUNC | O_CLOEXEC, 0);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, contents, length / 2), ==, (gssize) (length / 2));
  g_usleep (50);
  g_assert_cmpint (write (fd, contents + length / 2, length - length / 2), ==,
                   (gssize) (length - length / 2));
  g_assert_no_errno (g_close (fd, NULL) ? 0 : -1);
}

static void
test_stress_rewrite_in_place (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *cache_path = g_build_filename (dir, CACHE_NAME, NULL);
  g_autofree char *rounds_text = g_strdup_printf ("%u", stress_rounds ());
  char *caches[2] = { NULL, NULL };
  gsize cache_lengths[2];
  GPid children[STRESS_CHILDREN];
  guint n_running = STRESS_CHILDREN, n_rewrites = 0;

  g_assert_nonnull (self);

  /* Two versions of everything, each with its cache. */
  for (guint version = 0; version < 2; version++)
    {
      for (guint i = 0; i < STRESS_MANIFESTS; i++)
        {
          g_autofree char *name = g_strdup_printf ("s%02u.backend", i);
          g_autofree char *text = stress_manifest_text (i, version);

          write_file (dir, name, text, -1);
        }
      write_cache (dir);
      caches[version] = read_file (dir, CACHE_NAME, &cache_lengths[version]);
    }

  for (guint c = 0; c < STRESS_CHILDREN; c++)
    {
      const char *child_argv[] = { self, "--discover-loop", dir, rounds_text, NULL };
      g_autoptr(GError) error = NULL;

      g_spawn_async (NULL, (char **) child_argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                     NULL, NULL, &children[c], &error);
      g_assert_no_error (error);
    }

  /* Rewrite until every child is done. */
  while (n_running > 0)
    {
      guint version = n_rewrites % 2;
      guint i = n_rewrites % STRESS_MANIFESTS;
      g_autofree char *name = g_strdup_printf ("s%02u.backend", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *text = stress_manifest_text (i, version);

      rewrite_in_place (cache_path, caches[version], cache_lengths[version]);
      rewrite_in_place (path, text, strlen (text));
      n_rewrites++;

      for (guint c = 0; c < STRESS_CHILDREN; c++)
        {
          int status;

          if (children[c] == 0 || waitpid (children[c], &status, WNOHANG) == 0)
            continue;

          if (WIFSIGNALED (status))
            g_error ("a discovering process died of signal %d (%s) after %u rewrites",
                     WTERMSIG (status), g_strsignal (WTERMSIG (status)), n_rewrites);
          g_assert_true (WIFEXITED (status));
          g_assert_cmpint (WEXITSTATUS (status), ==, 0);
          g_spawn_close_pid (children[c]);
          children[c] = 0;
          n_running--;
        }
    }

  g_test_message ("%u processes discovered %s times each during %u rewrites",
                  STRESS_CHILDREN, rounds_text, n_rewrites);

  g_free (caches[0]);
  g_free (caches[1]);
  remove_tmp_dir (dir);
}

int
main (int    argc,
      char **argv)
{
  int status;

  /* A child of /cache/stress/rewrite-in-place */
  if (argc == 4 && g_str_equal (argv[1], "--discover-loop"))
    return stress_discover (argv[2], (guint) g_ascii_strtoull (argv[3], NULL, 10));

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  /* Only the directories the tests add. */
  g_setenv ("REG_BACKEND_PATH", "", TRUE);
  g_setenv ("REG_BACKEND_SYSTEM_DIR", "", TRUE);

  debug_messages = g_ptr_array_new_with_free_func (g_free);
  g_log_set_handler (LOG_DOMAIN, G_LOG_LEVEL_DEBUG, capture_debug, NULL);

  g_test_add_func ("/cache/write/basic", test_write_basic);
  g_test_add_func ("/cache/write/fields", test_write_fields);
  g_test_add_func ("/cache/write/load-module", test_write_load_module);
  g_test_add_func ("/cache/write/shareable", test_write_shareable);
  g_test_add_func ("/cache/write/empty-dir", test_write_empty_dir);
  g_test_add_func ("/cache/write/errors", test_write_errors);
  g_test_add_func ("/cache/write/again", test_write_again);
  g_test_add_func ("/cache/write/atomic", test_write_atomic);
  g_test_add_func ("/cache/fresh/manifest-mtime", test_fresh_manifest_mtime);
  g_test_add_func ("/cache/fresh/manifest-ctime", test_fresh_manifest_ctime);
  g_test_add_func ("/cache/fresh/manifest-contents", test_fresh_manifest_contents);
  g_test_add_func ("/cache/fresh/manifest-added", test_fresh_manifest_added);
  g_test_add_func ("/cache/fresh/manifest-removed", test_fresh_manifest_removed);
  g_test_add_func ("/cache/fresh/manifest-replaced", test_fresh_manifest_replaced);
  g_test_add_func ("/cache/fresh/module-replaced", test_fresh_module_replaced);
  g_test_add_func ("/cache/fresh/module-rewritten", test_fresh_module_rewritten);
  g_test_add_func ("/cache/fresh/module-appears-and-goes", test_fresh_module_appears_and_goes);
  g_test_add_func ("/cache/fresh/other-files", test_fresh_other_files);
  g_test_add_func ("/cache/fresh/copied-cache", test_fresh_copied_cache);
  g_test_add_func ("/cache/fresh/broken-manifest", test_fresh_broken_manifest);
  g_test_add_func ("/cache/fresh/non-utf8-name", test_fresh_non_utf8_name);
  g_test_add_func ("/cache/fresh/search-order", test_fresh_search_order);
  g_test_add_func ("/cache/fresh/coarse-time-stamps", test_fresh_coarse_time_stamps);
  g_test_add_func ("/cache/fresh/symlink-switched", test_fresh_symlink_switched);
  g_test_add_func ("/cache/corrupt/flip-bytes", test_corrupt_flip_bytes);
  g_test_add_func ("/cache/corrupt/truncated", test_corrupt_truncated);
  g_test_add_func ("/cache/corrupt/empty-file", test_corrupt_empty_file);
  g_test_add_func ("/cache/corrupt/not-a-file", test_corrupt_not_a_file);
  g_test_add_func ("/cache/corrupt/wrong-magic-and-version", test_corrupt_wrong_magic_and_version);
  g_test_add_func ("/cache/corrupt/checked-content", test_corrupt_checked_content);
  g_test_add_func ("/cache/corrupt/sparse-huge", test_corrupt_sparse_huge);
  g_test_add_func ("/cache/stress/rewrite-in-place", test_stress_rewrite_in_place);
  g_test_add_func ("/cache/scale/identical-1000", test_scale_identical);
  g_test_add_func ("/cache/scale/large-changes", test_scale_large_changes);

  status = g_test_run ();
  g_ptr_array_unref (debug_messages);

  return status;
}
