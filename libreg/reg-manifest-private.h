/* reg-manifest-private.h: `.backend` manifests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "reg-compiler.h"
#include "reg-loader-private.h"

G_BEGIN_DECLS

/* What is wrong with a manifest whose key file syntax is right (a syntax
 * error is GKeyFile's G_KEY_FILE_ERROR_PARSE).  Never seen by callers:
 * discovery turns a broken manifest into a warning and a skipped entry
 * (RegManifestSkip) whose reason is the message. */
#define REG_MANIFEST_ERROR (_reg_manifest_error_quark ())

typedef enum
{
  REG_MANIFEST_ERROR_INVALID,   /* a value breaks the manifest format's rules */
  REG_MANIFEST_ERROR_MISSING,   /* a required group or key is absent */
  REG_MANIFEST_ERROR_ENCODING,  /* the text is not UTF-8 */
} RegManifestError;

GQuark _reg_manifest_error_quark (void);

/* A manifest larger than this is refused unread: it cannot be a real one,
 * and reading it would let a stray file cost the host memory. */
#define REG_MANIFEST_MAX_SIZE (1024 * 1024)

/* Bounds of the optional manifest fields, in bytes (and authors). */
#define REG_BACKEND_VERSION_MAX  64
#define REG_BACKEND_AUTHOR_MAX   256
#define REG_BACKEND_AUTHORS_MAX  32
#define REG_BACKEND_WEBSITE_MAX  2048
#define REG_BACKEND_LICENSE_MAX  256

/* The compiler flags a manifest can declare (Shareable=). */
#define REG_BACKEND_MANIFEST_FLAGS REG_COMPILER_FLAGS_SHAREABLE

/* What a manifest says of a backend beyond its name, tags and
 * description.  Immutable once made, shared by the manifest and the infos
 * of the backend.  A backend whose manifest says none of it has no
 * details at all (NULL), the common case. */
typedef struct
{
  gint              ref_count;  /* atomic (see reg-manifest.c) */
  GListModel       *options;   /* an option list; NULL: no Options= (no schema) */
  char             *version;   /* each NULL when not given */
  char            **authors;
  char             *website;
  char             *license;
  RegCompilerFlags  compiler_flags;  /* within REG_BACKEND_MANIFEST_FLAGS */
  char            **operators;       /* Operators=, names of RegOp; NULL when not given */
} RegBackendDetails;

RegBackendDetails *_reg_backend_details_ref          (RegBackendDetails  *details);
void               _reg_backend_details_unref        (RegBackendDetails  *details);

/* Both nullable. */
gboolean           _reg_backend_details_equal        (RegBackendDetails  *a,
                                                      RegBackendDetails  *b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RegBackendDetails, _reg_backend_details_unref)

typedef struct
{
  const char         *name;
  const char * const *tags;         /* validated, repeats dropped */
  const char         *description;  /* nullable */
  const char         *entry;        /* the loader's entry key, or NULL */
  RegBackendDetails  *details;      /* nullable: see above */
} RegManifestBackend;

/* A manifest as discovery read it: immutable and shared (atomic
 * reference count).  One block of memory holds the struct, its backends
 * and every string but the directory, which the manifests of a directory
 * share (an interned GRefString): a declared backend costs a few hundred
 * bytes, whatever the number of manifests. */
typedef struct
{
  gint                ref_count;
  guint               n_backends;
  const char         *dir;          /* the directory it is in (GRefString) */
  const char         *file;         /* its file name in dir */
  const RegLoader    *loader;
  const char         *source;       /* what the loader loads (see reg-loader-private.h) */
  RegManifestBackend  backends[];   /* in the order of the file's groups */
} RegManifest;

RegManifest *_reg_manifest_ref             (RegManifest       *manifest);
void         _reg_manifest_unref           (RegManifest       *manifest);

/* The manifest's full path, and the file its source is (for "c", the
 * module file); both newly allocated. */
char        *_reg_manifest_dup_path        (const RegManifest *manifest);
char        *_reg_manifest_dup_source_path (const RegManifest *manifest);

/* The index of the backend @name in @manifest, or -1. */
int          _reg_manifest_find_backend    (const RegManifest *manifest,
                                            const char        *name);

/* Parses manifest text; @path names the file in messages and gives its
 * directory.  Any problem fails the whole manifest with a message saying
 * what is wrong (the caller prefixes the file name). */
RegManifest *_reg_manifest_parse           (const char        *path,
                                            const char        *data,
                                            gsize              length,
                                            GError           **error);
RegManifest *_reg_manifest_load            (const char        *path,
                                            GError           **error);

/* A manifest discovery could not use. */
typedef struct
{
  char        *path;    /* the manifest file */
  char        *reason;  /* what is wrong, escaped for messages */
  const char  *hint;    /* what to do about it: a sentence, static */
  char       **names;   /* the backend names its group lines give, if
                         * any could be read: a lookup of one of them
                         * says the manifest was skipped */
} RegManifestSkip;

void         _reg_manifest_skip_free       (RegManifestSkip   *skip);

/* Reads every `*.backend` file of @dir in byte order of their names and
 * adds the good ones to @manifests (element free function
 * _reg_manifest_unref).  A broken manifest is skipped with one
 * g_warning() naming the file, the reason and what to do, and added to
 * @skipped as a RegManifestSkip; a missing directory holds no manifest,
 * silently.  Touches no other file. */
void         _reg_manifest_scan_dir        (const char        *dir,
                                            GPtrArray         *manifests,
                                            GPtrArray         *skipped);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RegManifest, _reg_manifest_unref)

G_END_DECLS
