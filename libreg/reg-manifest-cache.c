/* reg-manifest-cache.c: the discovery cache of a module directory
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A module directory may hold `backends.cache`, written by
 * reg_backend_cache_write() (`regctl cache`): every good manifest's
 * declarations and the stat data of each manifest, so that discovery
 * opens one file instead of every manifest.  Module files are named (by
 * Module=) but not stamped: discovery never reads them (a lookup opens
 * the module when it loads it, and the verdict store identifies the
 * module file itself then).  It is the counterpart of GIO's
 * giomodule.cache and GStreamer's registry cache, in a form that needs no
 * parsing: the file is read into memory whole (by _reg_file_read():
 * copied, not mapped, so that another process rewriting it cannot make a
 * reader fault) and used in place.
 *
 * The file is a 32-byte header (CacheHeader) followed by one serialised
 * GVariant of type CACHE_BODY_TYPE in normal form:
 *
 *   ( u                    REG_MODULE_ABI_VERSION of every manifest held
 *     x                    the reference time: the change time the file
 *                          system gave the new cache file just before the
 *                          writer read the manifests (see "Freshness")
 *     x                    the device of that file, as a 64-bit pattern
 *     s                    a string table: every string, back to back,
 *                          without separators; everything below refers to
 *                          strings by (offset, length) in it
 *     a(xxxxxuuuuu)        one CacheManifest per manifest, sorted by file
 *                          name in byte order (as discovery reads them)
 *     a(uuuuu)             one CacheBackend per declared backend, those of
 *                          each manifest together and in manifest order
 *     a(uu)                the tags of the backends, likewise
 *     a(u(...)) )          the details of the few backends whose manifest
 *                          declares options, a version, authors, a website,
 *                          a license or Shareable=true: the index of the
 *                          backend (in the array above, ascending) and the
 *                          details as REG_BACKEND_DETAILS_TYPE (reg-
 *                          backend-details-private.h), read back through
 *                          the checks the manifest reader makes
 *
 * The arrays have fixed-size elements, so g_variant_get_fixed_array()
 * hands out C arrays pointing into the file's contents: opening a cache of
 * 10,000 manifests makes a handful of GVariant instances, not 100,000.
 * The strings are one GVariant string rather than an array of them or of
 * bytes: g_variant_is_normal_form() checks an `s` (UTF-8, no NUL) in one
 * pass, where it would visit every element of an `as` or `ay` one call at
 * a time (16 ms for the 770 kB of 10,000 manifests' strings as `ay`).
 *
 * Nothing in the file is trusted before it is checked: the header's magic,
 * format version and body size (a truncated file fails here), a checksum
 * of the body (a flipped byte fails here, even where the GVariant would
 * still be well-formed), the normal form of its members, then every offset
 * and index against the array it points into, every string for UTF-8, every
 * manifest name and Module= for the rules the manifest reader applies (the
 * details member, whose elements are not of a fixed size, is checked for
 * normal form as a whole).
 * Then the cache is compared with the directory: the same set of
 * `*.backend` names, and for each manifest the same device and inode
 * (what the name leads to, symbolic links followed: a link switched to
 * another file of the same size and times is another file), size, mtime
 * and ctime (in nanoseconds).  Last, as the manifests
 * are made from it, every backend name and tag is checked against the
 * naming rules, and for repeats.  Any difference and the cache is ignored,
 * with a g_debug() saying why, and discovery reads the manifests as if
 * there were no cache.
 *
 * Freshness: a file system stamps files from a clock of its own
 * granularity (nanoseconds on ext4, but ticks of a few milliseconds in
 * practice; whole seconds on ext3, two on FAT), so a file changed twice
 * within one tick, at the same size, keeps its stamp.  A stamp recorded
 * in the cache is only worth something if any later change must give
 * another one: if the file's change time is earlier than a moment that
 * came before the writer read it, as the same file system's clock tells
 * (the reference time, from the cache's own new file).  That is the
 * "racy" check of Git's index, and both sides make it: the writer waits
 * until every stamp it records is settled so, and the reader refuses a
 * cache holding one that is not.  A file on another device (a manifest
 * that is a symbolic link elsewhere) may have a coarser clock: its change
 * time must be OTHER_DEVICE_MARGIN_NS before the reference time.
 *
 * Integers are in the writer's byte order: a cache read on a machine of
 * the other order has a version number that does not match, and is
 * ignored.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "reg-backend-cache.h"
#include "reg-backend-details-private.h"
#include "reg-file-private.h"
#include "reg-manifest-cache-private.h"
#include "reg-manifest-private.h"
#include "reg-message-private.h"
#include "reg-module.h"
#include "reg-name-private.h"

#define CACHE_MAGIC "RegBkCch"
#define CACHE_VERSION 5
#define CACHE_DETAILS_TYPE "a(u" REG_BACKEND_DETAILS_TYPE ")"
#define CACHE_MANIFEST_TYPE "(xxxxxuuuuu)"
#define CACHE_BODY_TYPE "(uxxsa" CACHE_MANIFEST_TYPE "a(uuuuu)a(uu)" CACHE_DETAILS_TYPE ")"
#define MANIFEST_SUFFIX ".backend"

/* The offset of "no string" (a backend without Description=). */
#define NO_STRING G_MAXUINT32

/* The coarsest time stamps of a file system Linux mounts: FAT's two
 * seconds.  A file on another device than the cache must have settled for
 * this long before the reference time (see "Freshness" above). */
#define OTHER_DEVICE_MARGIN_NS (G_GINT64_CONSTANT (2) * G_TIME_SPAN_SECOND * 1000)

/* How long the writer waits, at most, for recently changed files to
 * settle, doubling its pauses from the first: enough for two ticks of the
 * coarsest clock. */
#define SETTLE_FIRST_PAUSE_US (5 * G_TIME_SPAN_MILLISECOND)
#define SETTLE_MAX_PAUSE_US   (500 * G_TIME_SPAN_MILLISECOND)
#define SETTLE_BUDGET_US      (5 * G_TIME_SPAN_SECOND)

typedef struct
{
  char    magic[8];     /* CACHE_MAGIC, no NUL */
  guint32 version;      /* CACHE_VERSION */
  guint32 header_size;  /* sizeof (CacheHeader) */
  guint64 body_size;    /* bytes after the header */
  guint64 checksum;     /* body_checksum() of those bytes */
} CacheHeader;

/* A file's stat data is a RegFileStamp (dev, ino, size, mtime, ctime),
 * recorded as five x; all -1 when the file could not be stat'ed. */
typedef RegFileStamp FileStamp;

/* A string of the string table. */
typedef struct
{
  guint32 offset;  /* NO_STRING: none */
  guint32 length;  /* in bytes */
} StringRef;

/* One element of a(xxxxxuuuuu), laid out as GVariant lays out that
 * fixed-size tuple: 5 * 8 + 5 * 4 bytes, padded with zeros to 64. */
typedef struct
{
  FileStamp manifest;
  StringRef file_name;    /* the manifest's file name */
  StringRef module_name;  /* its Module= (a bare file name) */
  guint32   n_backends;   /* its backends follow those of the manifest before */
  guint32   padding;      /* zero: GVariant's padding of the tuple */
} CacheManifest;

/* One element of a(uuuuu). */
typedef struct
{
  StringRef name;
  StringRef description;  /* offset NO_STRING: no Description= */
  guint32   n_tags;       /* its tags follow those of the backend before */
} CacheBackend;

G_STATIC_ASSERT (sizeof (CacheHeader) == 32);
G_STATIC_ASSERT (sizeof (FileStamp) == 40);
G_STATIC_ASSERT (G_STRUCT_OFFSET (FileStamp, dev) == 0 && G_STRUCT_OFFSET (FileStamp, ino) == 8 &&
                 G_STRUCT_OFFSET (FileStamp, size) == 16 && G_STRUCT_OFFSET (FileStamp, mtime_ns) == 24 &&
                 G_STRUCT_OFFSET (FileStamp, ctime_ns) == 32);
G_STATIC_ASSERT (sizeof (CacheManifest) == 64);
G_STATIC_ASSERT (sizeof (CacheBackend) == 20);
G_STATIC_ASSERT (sizeof (StringRef) == 8);

/* A 64-bit checksum of @length bytes, eight at a time.  Every step is a
 * bijection of the running value for a given input word, so any change of
 * a single word is always detected, and random damage almost surely.  It
 * guards against damage, not forgery: whoever may write the cache may also
 * write a module into the same directory, which runs code. */
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

  /* Spread the last words' bits over the whole value. */
  h ^= h >> 33;
  h *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  h ^= h >> 33;

  return h;
}

/* Stamps the file @name of the directory @dir_fd (following symbolic
 * links, as reading it does).  A file that cannot be stat'ed stamps as
 * missing: if it appears or becomes readable later, its stamp changes. */
static void
file_stamp (int         dir_fd,
            const char *name,
            FileStamp  *stamp)
{
  struct stat st;

  if (fstatat (dir_fd, name, &st, 0) != 0)
    {
      stamp->dev = stamp->ino = G_MAXUINT64;
      stamp->mtime_ns = stamp->ctime_ns = stamp->size = -1;
      return;
    }

  _reg_file_stamp_from_stat (&st, stamp);
}

/* Whether any change of the file after the reference moment is sure to
 * change @stamp: its change time is earlier than the reference time, by
 * a clock of the same granularity (same device) or by more than the
 * coarsest granularity (another device).  A missing file is settled:
 * appearing changes its stamp. */
static gboolean
file_stamp_is_settled (const FileStamp *stamp,
                       gint64           reference_ns,
                       guint64          reference_dev)
{
  if (stamp->size < 0)
    return TRUE;

  if (stamp->dev == reference_dev)
    return stamp->ctime_ns < reference_ns;

  return stamp->ctime_ns <= reference_ns - OTHER_DEVICE_MARGIN_NS;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The `*.backend` names of @dir_stream, unsorted. */
static GPtrArray *
list_manifest_names (DIR *dir_stream)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  struct dirent *entry;

  while ((entry = readdir (dir_stream)) != NULL)
    if (g_str_has_suffix (entry->d_name, MANIFEST_SUFFIX))
      g_ptr_array_add (names, g_strdup (entry->d_name));

  return names;
}

/* Writing */

typedef struct
{
  GString    *strings;
  GHashTable *refs;       /* string -> StringRef *, so that repeats (tags,
                           * mostly) are stored once */
  GArray     *manifests;  /* CacheManifest */
  GArray     *backends;   /* CacheBackend */
  GArray     *tags;       /* StringRef */
  GPtrArray  *details;    /* (u REG_BACKEND_DETAILS_TYPE) GVariants */
} CacheBuilder;

static void
cache_builder_init (CacheBuilder *builder)
{
  builder->strings = g_string_new (NULL);
  builder->refs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  builder->manifests = g_array_new (FALSE, TRUE, sizeof (CacheManifest));
  builder->backends = g_array_new (FALSE, TRUE, sizeof (CacheBackend));
  builder->tags = g_array_new (FALSE, TRUE, sizeof (StringRef));
  builder->details = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
}

static void
cache_builder_clear (CacheBuilder *builder)
{
  if (builder->strings != NULL)
    g_string_free (g_steal_pointer (&builder->strings), TRUE);
  g_clear_pointer (&builder->refs, g_hash_table_unref);
  g_clear_pointer (&builder->manifests, g_array_unref);
  g_clear_pointer (&builder->backends, g_array_unref);
  g_clear_pointer (&builder->tags, g_array_unref);
  g_clear_pointer (&builder->details, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CacheBuilder, cache_builder_clear)

static StringRef
cache_builder_add_string (CacheBuilder *builder,
                          const char   *string)
{
  StringRef *stored = g_hash_table_lookup (builder->refs, string);
  StringRef ref;

  if (stored != NULL)
    return *stored;

  ref.offset = builder->strings->len;
  ref.length = strlen (string);
  g_string_append_len (builder->strings, string, ref.length);
  g_hash_table_insert (builder->refs, g_strdup (string), g_memdup2 (&ref, sizeof ref));

  return ref;
}

static void
cache_builder_add_manifest (CacheBuilder      *builder,
                            const char        *file_name,
                            const FileStamp   *manifest_stamp,
                            const char        *module_name,
                            const RegManifest *manifest)
{
  CacheManifest record = { { 0, }, };

  record.manifest = *manifest_stamp;
  record.file_name = cache_builder_add_string (builder, file_name);
  record.module_name = cache_builder_add_string (builder, module_name);
  record.n_backends = manifest->n_backends;

  for (guint i = 0; i < manifest->n_backends; i++)
    {
      const RegManifestBackend *mb = &manifest->backends[i];
      CacheBackend backend;

      backend.name = cache_builder_add_string (builder, mb->name);
      if (mb->description != NULL)
        backend.description = cache_builder_add_string (builder, mb->description);
      else
        backend.description = (StringRef) { NO_STRING, 0 };
      backend.n_tags = g_strv_length (mb->tags);
      for (guint j = 0; j < backend.n_tags; j++)
        {
          StringRef tag = cache_builder_add_string (builder, mb->tags[j]);

          g_array_append_val (builder->tags, tag);
        }
      if (mb->details != NULL)
        g_ptr_array_add (builder->details,
                         g_variant_ref_sink (g_variant_new ("(u@" REG_BACKEND_DETAILS_TYPE ")",
                                                            builder->backends->len,
                                                            _reg_backend_details_to_variant (mb->details))));
      g_array_append_val (builder->backends, backend);
    }

  g_array_append_val (builder->manifests, record);
}

/* The whole file: header and body. */
static GBytes *
cache_builder_end (CacheBuilder *builder,
                   gint64        reference_ns,
                   guint64       reference_dev)
{
  g_autoptr(GVariant) body = NULL;
  CacheHeader header = { { 0, }, };
  guint8 *data;
  gsize body_size;

  body = g_variant_ref_sink (g_variant_new ("(uxxs@a" CACHE_MANIFEST_TYPE "@a(uuuuu)@a(uu)@" CACHE_DETAILS_TYPE ")",
    (guint32) REG_MODULE_ABI_VERSION,
    reference_ns,
    (gint64) reference_dev,
    builder->strings->str,
    g_variant_new_fixed_array (G_VARIANT_TYPE (CACHE_MANIFEST_TYPE), builder->manifests->data,
                               builder->manifests->len, sizeof (CacheManifest)),
    g_variant_new_fixed_array (G_VARIANT_TYPE ("(uuuuu)"), builder->backends->data,
                               builder->backends->len, sizeof (CacheBackend)),
    g_variant_new_fixed_array (G_VARIANT_TYPE ("(uu)"), builder->tags->data,
                               builder->tags->len, sizeof (StringRef)),
    g_variant_new_array (G_VARIANT_TYPE ("(u" REG_BACKEND_DETAILS_TYPE ")"),
                         (GVariant * const *) builder->details->pdata, builder->details->len)));
  g_assert (g_variant_is_of_type (body, G_VARIANT_TYPE (CACHE_BODY_TYPE)));

  body_size = g_variant_get_size (body);
  data = g_malloc0 (sizeof header + body_size);
  g_variant_store (body, data + sizeof header);

  memcpy (header.magic, CACHE_MAGIC, sizeof header.magic);
  header.version = CACHE_VERSION;
  header.header_size = sizeof header;
  header.body_size = body_size;
  header.checksum = body_checksum (data + sizeof header, body_size);
  memcpy (data, &header, sizeof header);

  return g_bytes_new_take (data, sizeof header + body_size);
}

/* Reads the manifests of @dir and returns the cache file's contents.
 * Sets @unsettled (to a file's name) when a manifest changed so recently,
 * against the reference time, that a change made after reading it might
 * not show in its stamp; the contents are then not to be written.  The
 * warnings about broken manifests go to @warnings, for the caller to log
 * once, whichever read is the last. */
static GBytes *
build_cache (const char  *dir,
             gint64       reference_ns,
             guint64      reference_dev,
             char       **unsettled,
             GPtrArray   *warnings,
             GError     **error)
{
  g_auto(CacheBuilder) builder = { NULL, };
  g_autoptr(GPtrArray) names = NULL;
  DIR *dir_stream;
  int saved_errno;

  cache_builder_init (&builder);

  dir_stream = opendir (dir);
  if (dir_stream == NULL)
    {
      g_autofree char *display = _reg_escape (dir);

      saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "Could not open backend directory %s: %s", display, g_strerror (saved_errno));
      return NULL;
    }

  names = list_manifest_names (dir_stream);
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr(RegManifest) manifest = NULL;
      g_autoptr(GError) local_error = NULL;
      g_autofree char *module_name = NULL;
      FileStamp manifest_stamp;

      /* The cache holds names as UTF-8 text.  A manifest whose file name
       * is not is left out like a broken one: it is read, not cached. */
      if (!g_utf8_validate (name, -1, NULL))
        {
          g_autofree char *shown = _reg_escape (path);

          g_debug ("manifest %s left out of the cache: its file name is not UTF-8", shown);
          continue;
        }

      /* Stamp first, then read: a change in between makes the stamp older
       * than what was read, so the cache only ever looks stale, never
       * fresher than it is. */
      file_stamp (dirfd (dir_stream), name, &manifest_stamp);
      if (manifest_stamp.size < 0)
        {
          /* Gone since the listing: not in the directory any more. */
          continue;
        }
      if (*unsettled == NULL && !file_stamp_is_settled (&manifest_stamp, reference_ns, reference_dev))
        *unsettled = g_strdup (name);

      /* Broken manifests are reported as discovery reports them, and left
       * out: the directory then lists a manifest the cache does not hold,
       * so discovery reads the manifests (and warns again) until the
       * manifest is fixed and the cache written again. */
      manifest = _reg_manifest_load (path, &local_error);
      if (manifest == NULL)
        {
          g_autofree char *shown_path = _reg_escape (path);
          g_autofree char *why = _reg_escape (local_error->message);

          g_ptr_array_add (warnings, g_strdup_printf ("manifest %s skipped: %s", shown_path, why));
          continue;
        }

      /* The module file is not stamped: discovery never reads it. */
      module_name = g_path_get_basename (manifest->module_path);
      cache_builder_add_manifest (&builder, name, &manifest_stamp, module_name, manifest);
    }

  closedir (dir_stream);

  return cache_builder_end (&builder, reference_ns, reference_dev);
}

/* Marks the new cache file @fd with the file system's present time and
 * returns that as the reference time, with the file's device. */
static gboolean
take_reference (int       fd,
                gint64   *reference_ns,
                guint64  *reference_dev,
                GError  **error)
{
  FileStamp stamp;
  struct stat st;

  if (futimens (fd, NULL) != 0 || fstat (fd, &st) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "Could not date the new cache file: %s", g_strerror (saved_errno));
      return FALSE;
    }

  _reg_file_stamp_from_stat (&st, &stamp);
  *reference_ns = stamp.ctime_ns;
  *reference_dev = stamp.dev;
  return TRUE;
}

/* Writes @contents to @fd and makes sure they reached the disk before the
 * file is renamed over the old cache. */
static gboolean
write_all (int      fd,
           GBytes  *contents,
           GError **error)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (contents, &size);
  int saved_errno;

  while (size > 0)
    {
      gssize n = write (fd, data, size);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        goto fail;
      data += n;
      size -= n;
    }

  if (fsync (fd) == 0)
    return TRUE;

fail:
  saved_errno = errno;
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               "Could not write the cache: %s", g_strerror (saved_errno));
  return FALSE;
}

/**
 * reg_backend_cache_write:
 * @dir: (type filename): a directory of backend modules and their
 *   `.backend` manifests
 * @error: return location for a #GError
 *
 * Writes the discovery cache of @dir, the file `backends.cache` in @dir:
 * the declarations of every manifest of @dir with what identifies each
 * manifest (device and inode) and dates it (modification time, change
 * time, size).  Discovery (see [class@Reg.Registry]) then reads that one
 * file instead of every manifest, for as long as the cache is fresh: as
 * soon as a manifest changes or is replaced, or a manifest is added or
 * removed, discovery ignores the cache and reads the manifests again,
 * until the cache is written anew.  Module files play no part: discovery
 * never reads them, so a module file rebuilt, replaced, added or removed
 * leaves the cache fresh (the module is opened, as it is then, when a
 * lookup first loads it).  `regctl cache` calls this function, and
 * `meson install` runs `regctl cache` on the installed backend directory.
 *
 * The manifests are read as discovery reads them: a broken one is skipped
 * with a warning naming it and the reason, and left out of the cache; as
 * the directory then holds a manifest that the cache does not, discovery
 * does not use the cache until the manifest is fixed (or removed) and the
 * cache written again.  No module file is opened or stat'ed.
 *
 * The file is replaced atomically (written under another name in @dir,
 * then renamed), so a reader sees the old cache or the new one, never a
 * part.  A file system dates files by a clock of limited granularity (a
 * whole second on ext3), and a file changed twice within one of its ticks
 * may keep its dates: a manifest changed within the tick in which it is
 * read delays the writing until that tick has passed (a few milliseconds
 * on most file systems, up to two seconds on the coarsest), so that any
 * later change is sure to show.
 *
 * Fails with a %G_FILE_ERROR when @dir cannot be listed or the file cannot
 * be written (a directory that is not writable, say), with
 * %G_FILE_ERROR_AGAIN when files keep changing for seconds (or are dated
 * in the future), and with %G_FILE_ERROR_FAILED when the cache would be
 * larger than the 64 MiB a cache may have (discovery then reads the
 * manifests).  This function is thread-safe.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 */
gboolean
reg_backend_cache_write (const char  *dir,
                         GError     **error)
{
  g_autoptr(GBytes) contents = NULL;
  g_autofree char *path = NULL;
  g_autofree char *tmp_path = NULL;
  g_autofree char *display = NULL;
  g_autofree char *unsettled = NULL;
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  gulong pause_us = SETTLE_FIRST_PAUSE_US;
  gint64 deadline;
  int fd, saved_errno;

  g_return_val_if_fail (dir != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  display = _reg_escape (dir);
  path = g_build_filename (dir, REG_MANIFEST_CACHE_NAME, NULL);

  /* The new file, in @dir so that the rename is atomic and so that its
   * dates come from the same file system as the manifests'.  Its name
   * does not end in ".backend": discovery does not see it. */
  tmp_path = g_build_filename (dir, "." REG_MANIFEST_CACHE_NAME ".XXXXXX", NULL);
  fd = g_mkstemp_full (tmp_path, O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "Could not write the cache of %s: %s", display, g_strerror (saved_errno));
      return FALSE;
    }

  /* Read the manifests against a reference time taken just before, until
   * every stamp recorded is older than it (see "Freshness" above). */
  deadline = g_get_monotonic_time () + SETTLE_BUDGET_US;
  for (;;)
    {
      gint64 reference_ns;
      guint64 reference_dev;

      g_clear_pointer (&contents, g_bytes_unref);
      g_clear_pointer (&unsettled, g_free);
      g_ptr_array_set_size (warnings, 0);
      if (!take_reference (fd, &reference_ns, &reference_dev, error))
        goto fail;
      contents = build_cache (dir, reference_ns, reference_dev, &unsettled, warnings, error);
      if (contents == NULL)
        goto fail;
      if (unsettled == NULL || g_get_monotonic_time () + (gint64) pause_us > deadline)
        break;

      g_usleep (pause_us);
      pause_us = MIN (pause_us * 2, SETTLE_MAX_PAUSE_US);
    }

  for (guint i = 0; i < warnings->len; i++)
    g_warning ("%s", (const char *) g_ptr_array_index (warnings, i));

  if (unsettled != NULL)
    {
      g_autofree char *shown = _reg_escape (unsettled);

      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_AGAIN,
                   "Files of %s keep changing (%s, or it is dated in the future): "
                   "no cache written, try again", display, shown);
      goto fail;
    }

  if (g_bytes_get_size (contents) > REG_MANIFEST_CACHE_MAX_SIZE)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   "The cache of %s would be %" G_GSIZE_FORMAT " bytes, larger than the %d "
                   "bytes a cache may have: no cache written", display,
                   g_bytes_get_size (contents), REG_MANIFEST_CACHE_MAX_SIZE);
      goto fail;
    }

  if (!write_all (fd, contents, error))
    goto fail;

  if (g_rename (tmp_path, path) != 0)
    {
      saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "Could not write the cache of %s: %s", display, g_strerror (saved_errno));
      goto fail;
    }

  g_close (fd, NULL);
  return TRUE;

fail:
  g_close (fd, NULL);
  g_unlink (tmp_path);
  return FALSE;
}

/* Reading */

/* A cache checked: arrays pointing into the file's contents, valid while
 * `body` lives. */
typedef struct
{
  GVariant            *body;
  GVariant            *children[8];
  gint64               reference_ns;
  guint64              reference_dev;
  const char          *strings;
  gsize                strings_len;
  const CacheManifest *manifests;
  gsize                n_manifests;
  const CacheBackend  *backends;
  gsize                n_backends;
  const StringRef     *tags;
  gsize                n_tags;
} Cache;

static void
cache_clear (Cache *cache)
{
  for (guint i = 0; i < G_N_ELEMENTS (cache->children); i++)
    g_clear_pointer (&cache->children[i], g_variant_unref);
  g_clear_pointer (&cache->body, g_variant_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Cache, cache_clear)

static gboolean
is_utf8_continuation (char c)
{
  return ((guchar) c & 0xC0) == 0x80;
}

/* Whether @ref lies in the string table and on character boundaries: the
 * table is valid UTF-8 (normal form of an `s`), so such a slice is too. */
static gboolean
cache_ref_is_valid (const Cache *cache,
                    StringRef    ref)
{
  gsize end;

  if (ref.offset > cache->strings_len || ref.length > cache->strings_len - ref.offset)
    return FALSE;

  end = (gsize) ref.offset + ref.length;
  return (ref.offset == cache->strings_len || !is_utf8_continuation (cache->strings[ref.offset])) &&
         (end == cache->strings_len || !is_utf8_continuation (cache->strings[end]));
}

static gboolean
cache_ref_has_char (const Cache *cache,
                    StringRef    ref,
                    char         c)
{
  return memchr (cache->strings + ref.offset, c, ref.length) != NULL;
}

static gboolean
cache_ref_equal (const Cache *cache,
                 StringRef    ref,
                 const char  *string)
{
  return ref.length == strlen (string) && memcmp (cache->strings + ref.offset, string, ref.length) == 0;
}

/* Byte order of the string @ref and the @length bytes at @string, as
 * strcmp() orders strings without NUL. */
static int
cache_ref_compare (const Cache *cache,
                   StringRef    ref,
                   const char  *string,
                   gsize        length)
{
  int cmp = memcmp (cache->strings + ref.offset, string, MIN (ref.length, length));

  if (cmp != 0)
    return cmp;

  return ref.length < length ? -1 : ref.length > length ? 1 : 0;
}

static char *
cache_ref_dup (const Cache *cache,
               StringRef    ref)
{
  return g_strndup (cache->strings + ref.offset, ref.length);
}

/* Whether the members of the body are in normal form, checked member by
 * member: g_variant_is_normal_form() on the whole body visits each field
 * of each record one call at a time (6 ms for 10,000 manifests).  For
 * these members, normal form asks that the string table be a valid `s`,
 * that each array of records be a whole number of records, and that the
 * padding of the manifest records be zero (checked record by record in
 * cache_check()).  The tuple's framing offsets are not checked: whatever
 * they say, g_variant_get_child_value() hands out members that lie within
 * the body, and a member they misplace fails the checks on its contents
 * (and could only be made on purpose: the checksum covers every byte). */
static gboolean
cache_body_is_normal (const Cache  *cache,
                      char        **why)
{
  const char *member = NULL;

  /* A fixed-size member that its framing does not fit has no data (its
   * size is still the type's). */
  if (g_variant_get_data (cache->children[0]) == NULL)
    member = "the ABI version";
  else if (g_variant_get_data (cache->children[1]) == NULL ||
           g_variant_get_data (cache->children[2]) == NULL)
    member = "the reference time";
  else if (!g_variant_is_normal_form (cache->children[3]))
    member = "the string table";
  else if (g_variant_get_size (cache->children[4]) % sizeof (CacheManifest) != 0)
    member = "the manifest records";
  else if (g_variant_get_size (cache->children[5]) % sizeof (CacheBackend) != 0)
    member = "the backend records";
  else if (g_variant_get_size (cache->children[6]) % sizeof (StringRef) != 0)
    member = "the tag records";
  else if (!g_variant_is_normal_form (cache->children[7]))
    member = "the details";
  else
    return TRUE;

  *why = g_strdup_printf ("not a GVariant in normal form (%s)", member);
  return FALSE;
}

/* Checks the cache file's @contents, everything but its freshness, and
 * fills @cache from it.  On failure returns FALSE and sets @why. */
static gboolean
cache_check (GBytes  *contents,
             Cache   *cache,
             char   **why)
{
  g_autoptr(GBytes) body_bytes = NULL;
  const CacheManifest *previous = NULL;
  CacheHeader header;
  const guint8 *data;
  gsize next_backend = 0, next_tag = 0;
  gsize n_details;
  guint32 previous_index = 0;
  gsize size;

  data = g_bytes_get_data (contents, &size);

  if (size < sizeof header)
    {
      *why = g_strdup_printf ("%" G_GSIZE_FORMAT " bytes, shorter than a cache header", size);
      return FALSE;
    }
  memcpy (&header, data, sizeof header);
  if (memcmp (header.magic, CACHE_MAGIC, sizeof header.magic) != 0)
    {
      *why = g_strdup ("not a backend cache (bad magic)");
      return FALSE;
    }
  if (header.version != CACHE_VERSION || header.header_size != sizeof header)
    {
      *why = g_strdup_printf ("format version %" G_GUINT32_FORMAT ", this libreg reads %d",
                              header.version, CACHE_VERSION);
      return FALSE;
    }
  if (header.body_size != size - sizeof header)
    {
      *why = g_strdup_printf ("%" G_GSIZE_FORMAT " bytes, the header says %" G_GUINT64_FORMAT
                              " (truncated or extended)",
                              size, (guint64) (header.body_size + sizeof header));
      return FALSE;
    }
  if (body_checksum (data + sizeof header, size - sizeof header) != header.checksum)
    {
      *why = g_strdup ("checksum mismatch (damaged)");
      return FALSE;
    }

  /* The body starts 32 bytes into memory from g_malloc(): aligned for
   * GVariant, which reads it in place (and copies other contents). */
  body_bytes = g_bytes_new_from_bytes (contents, sizeof header, size - sizeof header);
  cache->body = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE (CACHE_BODY_TYPE),
                                                              body_bytes, FALSE));
  for (guint i = 0; i < G_N_ELEMENTS (cache->children); i++)
    cache->children[i] = g_variant_get_child_value (cache->body, i);

  if (!cache_body_is_normal (cache, why))
    return FALSE;

  if (g_variant_get_uint32 (cache->children[0]) != REG_MODULE_ABI_VERSION)
    {
      *why = g_strdup_printf ("manifests of AbiVersion=%" G_GUINT32_FORMAT
                              ", this libreg supports %d",
                              g_variant_get_uint32 (cache->children[0]), REG_MODULE_ABI_VERSION);
      return FALSE;
    }

  cache->reference_ns = g_variant_get_int64 (cache->children[1]);
  cache->reference_dev = (guint64) g_variant_get_int64 (cache->children[2]);
  cache->strings = g_variant_get_string (cache->children[3], &cache->strings_len);
  cache->manifests = g_variant_get_fixed_array (cache->children[4], &cache->n_manifests,
                                                sizeof (CacheManifest));
  cache->backends = g_variant_get_fixed_array (cache->children[5], &cache->n_backends,
                                               sizeof (CacheBackend));
  cache->tags = g_variant_get_fixed_array (cache->children[6], &cache->n_tags,
                                           sizeof (StringRef));

  /* Every manifest's backends, and every backend's tags, follow those of
   * the one before: each is used once and none is out of bounds. */
  for (gsize i = 0; i < cache->n_manifests; i++)
    {
      const CacheManifest *record = &cache->manifests[i];
      StringRef name = record->file_name, module = record->module_name;

      if (!cache_ref_is_valid (cache, name) || cache_ref_has_char (cache, name, '/') ||
          name.length < strlen (MANIFEST_SUFFIX) ||
          memcmp (cache->strings + name.offset + name.length - strlen (MANIFEST_SUFFIX),
                  MANIFEST_SUFFIX, strlen (MANIFEST_SUFFIX)) != 0 ||
          (previous != NULL &&
           cache_ref_compare (cache, previous->file_name,
                              cache->strings + name.offset, name.length) >= 0))
        {
          *why = g_strdup_printf ("bad manifest name in record %" G_GSIZE_FORMAT, i);
          return FALSE;
        }
      /* Module= as the manifest reader accepts it: a bare file name. */
      if (!cache_ref_is_valid (cache, module) || module.length == 0 ||
          cache_ref_has_char (cache, module, '/') ||
          cache_ref_equal (cache, module, ".") || cache_ref_equal (cache, module, ".."))
        {
          *why = g_strdup_printf ("bad module name in record %" G_GSIZE_FORMAT, i);
          return FALSE;
        }
      if (record->padding != 0)
        {
          *why = g_strdup_printf ("not a GVariant in normal form (the padding of record %" G_GSIZE_FORMAT ")", i);
          return FALSE;
        }
      /* Stamps a change could leave as they are are worth nothing: the
       * writer never records them (see "Freshness"). */
      if (!file_stamp_is_settled (&record->manifest, cache->reference_ns, cache->reference_dev))
        {
          *why = g_strdup_printf ("record %" G_GSIZE_FORMAT " holds a stamp not older than "
                                  "the cache (racy)", i);
          return FALSE;
        }
      if (record->n_backends == 0 || record->n_backends > cache->n_backends - next_backend)
        {
          *why = g_strdup_printf ("bad backend count in record %" G_GSIZE_FORMAT, i);
          return FALSE;
        }
      next_backend += record->n_backends;
      previous = record;
    }
  if (next_backend != cache->n_backends)
    {
      *why = g_strdup ("backends no manifest declares");
      return FALSE;
    }

  for (gsize i = 0; i < cache->n_backends; i++)
    {
      const CacheBackend *backend = &cache->backends[i];

      if (!cache_ref_is_valid (cache, backend->name) || backend->name.length == 0 ||
          (backend->description.offset != NO_STRING &&
           !cache_ref_is_valid (cache, backend->description)))
        {
          *why = g_strdup_printf ("bad string in backend %" G_GSIZE_FORMAT, i);
          return FALSE;
        }
      if (backend->n_tags > cache->n_tags - next_tag)
        {
          *why = g_strdup_printf ("bad tag count in backend %" G_GSIZE_FORMAT, i);
          return FALSE;
        }
      for (guint32 j = 0; j < backend->n_tags; j++)
        if (!cache_ref_is_valid (cache, cache->tags[next_tag + j]) ||
            cache->tags[next_tag + j].length == 0)
          {
            *why = g_strdup_printf ("bad tag in backend %" G_GSIZE_FORMAT, i);
            return FALSE;
          }
      next_tag += backend->n_tags;
    }
  if (next_tag != cache->n_tags)
    {
      *why = g_strdup ("tags no backend carries");
      return FALSE;
    }

  /* Details name their backends in ascending order, each once. */
  n_details = g_variant_n_children (cache->children[7]);
  for (gsize i = 0; i < n_details; i++)
    {
      guint32 index;

      g_variant_get_child (cache->children[7], i, "(u@" REG_BACKEND_DETAILS_TYPE ")", &index, NULL);
      if (index >= cache->n_backends || (i > 0 && index <= previous_index))
        {
          *why = g_strdup_printf ("bad backend index in details %" G_GSIZE_FORMAT, i);
          return FALSE;
        }
      previous_index = index;
    }

  return TRUE;
}

/* The index of the manifest named @name, or -1. */
static gssize
cache_find_manifest (const Cache *cache,
                     const char  *name)
{
  gsize length = strlen (name);
  gsize low = 0, high = cache->n_manifests;

  while (low < high)
    {
      gsize middle = low + (high - low) / 2;
      int cmp = cache_ref_compare (cache, cache->manifests[middle].file_name, name, length);

      if (cmp == 0)
        return middle;
      if (cmp > 0)
        high = middle;
      else
        low = middle + 1;
    }

  return -1;
}

/* Stamping the manifests of a cache, by the calling thread and, for
 * large directories, a helper thread: stat() is a system call with a path
 * lookup, about a microsecond each on a virtual machine, and a cache of
 * 10,000 manifests has 10,000 files to stamp.  The threads take chunks of
 * manifests from a shared counter until all are done or one finds a
 * difference. */
#define STAMP_CHUNK 256
#define STAMP_PARALLEL_MIN 2048  /* manifests; fewer are not worth a thread */

typedef struct
{
  const Cache *cache;
  int          dir_fd;
  gint         next;     /* atomic: the first manifest no thread has taken */
  gint         stale;    /* atomic: index + 1 of a manifest that differs */
} StampWork;

static void
stamp_work_run (StampWork *work)
{
  const Cache *cache = work->cache;

  while (g_atomic_int_get (&work->stale) == 0)
    {
      gsize start = (guint) g_atomic_int_add (&work->next, STAMP_CHUNK);
      gsize end = MIN (start + STAMP_CHUNK, cache->n_manifests);

      if (start >= cache->n_manifests)
        return;

      for (gsize i = start; i < end; i++)
        {
          const CacheManifest *record = &cache->manifests[i];
          char name[256 + 1];
          FileStamp stamp;

          /* Names in the table have no NUL; a file name has at most 255
           * bytes (a longer one cannot name a file, so it differs). */
          if (record->file_name.length > 255)
            {
              g_atomic_int_compare_and_exchange (&work->stale, 0, (gint) i + 1);
              return;
            }

          memcpy (name, cache->strings + record->file_name.offset, record->file_name.length);
          name[record->file_name.length] = '\0';
          file_stamp (work->dir_fd, name, &stamp);
          if (!_reg_file_stamp_equal (&stamp, &record->manifest))
            {
              g_atomic_int_compare_and_exchange (&work->stale, 0, (gint) i + 1);
              return;
            }
        }
    }
}

static gpointer
stamp_thread_run (gpointer data)
{
  stamp_work_run (data);
  return NULL;
}

/* Whether @dir holds the same manifests as @cache, with the stamps the
 * cache recorded.  Otherwise sets @why. */
static gboolean
cache_is_fresh (const char   *dir,
                const Cache  *cache,
                char        **why)
{
  g_autofree guint8 *listed = NULL;
  StampWork work = { cache, -1, 0, 0 };
  GThread *helper = NULL;
  struct dirent *entry;
  gsize n_listed = 0;
  DIR *dir_stream;
  gboolean fresh = TRUE;

  if (cache->n_manifests > G_MAXINT - STAMP_CHUNK)
    {
      *why = g_strdup ("too many manifests");
      return FALSE;
    }

  dir_stream = opendir (dir);
  if (dir_stream == NULL)
    {
      *why = g_strdup_printf ("cannot list the directory: %s", g_strerror (errno));
      return FALSE;
    }
  work.dir_fd = dirfd (dir_stream);

  /* The helper stamps files while this thread lists the directory. */
  if (cache->n_manifests >= STAMP_PARALLEL_MIN && g_get_num_processors () > 1)
    helper = g_thread_try_new ("reg-cache-stat", stamp_thread_run, &work, NULL);

  /* The listing is the truth: a manifest added or removed within the
   * directory's time stamp granularity leaves no other trace. */
  listed = g_malloc0 (MAX (cache->n_manifests, 1));
  while (fresh && (entry = readdir (dir_stream)) != NULL)
    {
      gssize index;

      if (!g_str_has_suffix (entry->d_name, MANIFEST_SUFFIX))
        continue;

      index = cache_find_manifest (cache, entry->d_name);
      if (index < 0)
        {
          g_autofree char *shown = _reg_escape (entry->d_name);

          *why = g_strdup_printf ("%s is not in the cache (added, or broken when the cache was written)",
                                  shown);
          fresh = FALSE;
        }
      else
        {
          listed[index] = 1;
          n_listed++;
        }
    }

  if (fresh && n_listed != cache->n_manifests)
    {
      for (gsize i = 0; i < cache->n_manifests; i++)
        if (!listed[i])
          {
            g_autofree char *shown = _reg_text_for_message (cache->strings + cache->manifests[i].file_name.offset,
                                                            cache->manifests[i].file_name.length,
                                                            REG_MESSAGE_TEXT_MAX);

            *why = g_strdup_printf ("%s was removed", shown);
            break;
          }
      fresh = FALSE;
    }

  if (!fresh)
    g_atomic_int_compare_and_exchange (&work.stale, 0, G_MAXINT);

  stamp_work_run (&work);
  if (helper != NULL)
    g_thread_join (helper);

  if (fresh && work.stale != 0)
    {
      StringRef ref = cache->manifests[work.stale - 1].file_name;
      g_autofree char *shown = _reg_text_for_message (cache->strings + ref.offset, ref.length,
                                                      REG_MESSAGE_TEXT_MAX);

      *why = g_strdup_printf ("%s changed", shown);
      fresh = FALSE;
    }

  closedir (dir_stream);

  return fresh;
}

/* The manifests @cache holds, as the manifest reader would have made them
 * in @dir; NULL and @why when a backend name or a tag breaks the rules the
 * reader applies, or a manifest declares a name twice (its groups would
 * have been one). */
static GPtrArray *
cache_to_manifests (const char   *dir,
                    const Cache  *cache,
                    char        **why)
{
  g_autoptr(GPtrArray) manifests = g_ptr_array_new_full (cache->n_manifests,
                                                         (GDestroyNotify) _reg_manifest_free);
  /* What g_build_filename() puts before a bare file name in @dir. */
  g_autofree char *probe = g_build_filename (dir, "x", NULL);
  gsize prefix_len = strlen (probe) - 1;
  const CacheBackend *backend = cache->backends;
  const StringRef *tag = cache->tags;
  gsize n_details = g_variant_n_children (cache->children[7]);
  gsize next_detail = 0;

  for (gsize i = 0; i < cache->n_manifests; i++)
    {
      const CacheManifest *record = &cache->manifests[i];
      RegManifest *manifest = g_new0 (RegManifest, 1);
      g_autoptr(GHashTable) names = NULL;

      g_ptr_array_add (manifests, manifest);

      manifest->path = g_malloc (prefix_len + record->file_name.length + 1);
      memcpy (manifest->path, probe, prefix_len);
      memcpy (manifest->path + prefix_len, cache->strings + record->file_name.offset,
              record->file_name.length);
      manifest->path[prefix_len + record->file_name.length] = '\0';

      manifest->module_path = g_malloc (prefix_len + record->module_name.length + 1);
      memcpy (manifest->module_path, probe, prefix_len);
      memcpy (manifest->module_path + prefix_len, cache->strings + record->module_name.offset,
              record->module_name.length);
      manifest->module_path[prefix_len + record->module_name.length] = '\0';

      manifest->backends = g_new0 (RegManifestBackend, record->n_backends);
      if (record->n_backends > 1)
        names = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint32 j = 0; j < record->n_backends; j++, backend++)
        {
          RegManifestBackend *mb = &manifest->backends[j];
          g_auto(GStrv) tags = NULL;
          const char *problem = NULL;

          manifest->n_backends++;
          mb->name = cache_ref_dup (cache, backend->name);
          mb->description = backend->description.offset != NO_STRING
            ? cache_ref_dup (cache, backend->description)
            : NULL;
          tags = g_new (char *, backend->n_tags + 1);
          for (guint32 k = 0; k < backend->n_tags; k++, tag++)
            tags[k] = cache_ref_dup (cache, *tag);
          tags[backend->n_tags] = NULL;
          /* As the manifest reader leaves them: each valid, none twice. */
          mb->tags = _reg_tags_normalize ((const char * const *) tags, NULL);

          if (!_reg_name_validate (mb->name, "backend name", NULL))
            problem = "a bad name";
          else if (mb->tags == NULL || g_strv_length (mb->tags) != backend->n_tags)
            problem = "a bad or repeated tag";
          else if (names != NULL && !g_hash_table_add (names, mb->name))
            problem = "a name its manifest declares twice";

          if (problem != NULL)
            {
              *why = g_strdup_printf ("backend %" G_GSIZE_FORMAT " has %s",
                                      (gsize) (backend - cache->backends), problem);
              return NULL;
            }

          /* Its details, if the next ones are its (cache_check() found
           * them in ascending order of backends). */
          if (next_detail < n_details)
            {
              g_autoptr(GVariant) details = NULL;
              g_autoptr(GError) error = NULL;
              guint32 index;

              g_variant_get_child (cache->children[7], next_detail,
                                   "(u@" REG_BACKEND_DETAILS_TYPE ")", &index, &details);
              if (index == (gsize) (backend - cache->backends))
                {
                  mb->details = _reg_backend_details_from_variant (details, &error);
                  if (mb->details == NULL)
                    {
                      g_autofree char *reason = _reg_text_for_message (error->message, -1, 300);

                      *why = g_strdup_printf ("backend %" G_GSIZE_FORMAT " has bad details: %s",
                                              (gsize) index, reason);
                      return NULL;
                    }
                  next_detail++;
                }
            }
        }
    }

  return g_steal_pointer (&manifests);
}

G_GNUC_PRINTF (2, 3)
static void
log_not_used (const char *path,
              const char *format,
              ...)
{
  g_autofree char *shown = _reg_escape (path);
  g_autofree char *why = NULL;
  g_autofree char *shown_why = NULL;
  va_list args;

  va_start (args, format);
  why = g_strdup_vprintf (format, args);
  va_end (args);
  shown_why = _reg_escape (why);

  g_debug ("discovery cache %s not used: %s", shown, shown_why);
}

GPtrArray *
_reg_manifest_cache_load (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, REG_MANIFEST_CACHE_NAME, NULL);
  g_autofree char *why = NULL;
  g_autoptr(GBytes) contents = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(Cache) cache = { NULL, };
  GPtrArray *manifests;

  /* Copied, not mapped: another process may rewrite the file meanwhile
   * (the checks below then refuse what was read). */
  contents = _reg_file_read (path, REG_MANIFEST_CACHE_MAX_SIZE, "a discovery cache", NULL, &error);
  if (contents == NULL)
    {
      log_not_used (path, "%s", error->message);
      return NULL;
    }

  if (!cache_check (contents, &cache, &why))
    {
      log_not_used (path, "%s", why);
      return NULL;
    }

  if (!cache_is_fresh (dir, &cache, &why))
    {
      log_not_used (path, "stale: %s", why);
      return NULL;
    }

  manifests = cache_to_manifests (dir, &cache, &why);
  if (manifests == NULL)
    log_not_used (path, "%s", why);

  return manifests;
}

GPtrArray *
_reg_manifest_cache_decode (GBytes      *contents,
                            const char  *dir,
                            char       **why)
{
  g_auto(Cache) cache = { NULL, };

  if (!cache_check (contents, &cache, why))
    return NULL;

  return cache_to_manifests (dir, &cache, why);
}

void
_reg_manifest_cache_seal (guint8 *contents,
                          gsize   size)
{
  CacheHeader header;

  g_return_if_fail (size >= sizeof header);

  memcpy (&header, contents, sizeof header);
  header.body_size = size - sizeof header;
  header.checksum = body_checksum (contents + sizeof header, size - sizeof header);
  memcpy (contents, &header, sizeof header);
}
