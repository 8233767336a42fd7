/* reg-manifest-private.h: `.backend` manifests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A manifest larger than this is refused unread: it cannot be a real one,
 * and reading it would let a stray file cost the host memory. */
#define REG_MANIFEST_MAX_SIZE (1024 * 1024)

typedef struct
{
  char  *name;
  char **tags;         /* validated, repeats dropped */
  char  *description;  /* nullable */
} RegManifestBackend;

typedef struct
{
  char               *path;         /* the manifest file */
  char               *module_path;  /* the module file beside it */
  guint               n_backends;
  RegManifestBackend *backends;     /* in the order of the file's groups */
} RegManifest;

/* Parses manifest text; @path names the file in messages and locates the
 * module.  Any problem fails the whole manifest with a message saying what
 * is wrong (the caller prefixes the file name). */
RegManifest *_reg_manifest_parse    (const char  *path,
                                     const char  *data,
                                     gsize        length,
                                     GError     **error);
RegManifest *_reg_manifest_load     (const char  *path,
                                     GError     **error);
void         _reg_manifest_free     (RegManifest *manifest);

/* Reads every `*.backend` file of @dir in byte order of their names and
 * returns the good ones (element free function _reg_manifest_free).  A
 * broken manifest is skipped with one g_warning() naming the file and the
 * reason; a missing directory is no manifest, silently.  Touches no module
 * file. */
GPtrArray   *_reg_manifest_scan_dir (const char  *dir);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RegManifest, _reg_manifest_free)

G_END_DECLS
