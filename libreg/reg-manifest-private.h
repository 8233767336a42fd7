/* reg-manifest-private.h: `.backend` manifests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

#include "reg-backend-details-private.h"

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

typedef struct
{
  char              *name;
  char             **tags;         /* validated, repeats dropped */
  char              *description;  /* nullable */
  RegBackendDetails *details;      /* nullable: see reg-backend-details-private.h */
} RegManifestBackend;

typedef struct
{
  char               *path;         /* the manifest file */
  char               *module_path;  /* the module file beside it */
  guint               n_backends;
  RegManifestBackend *backends;     /* in the order of the file's groups */
} RegManifest;

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

void         _reg_manifest_skip_free (RegManifestSkip *skip);

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
 * broken manifest is skipped with one g_warning() naming the file, the
 * reason and what to do, and added to @skipped (nullable) as a
 * RegManifestSkip; a missing directory is no manifest, silently.  Touches
 * no module file. */
GPtrArray   *_reg_manifest_scan_dir (const char  *dir,
                                     GPtrArray   *skipped);

/* The string value of @key of @group, NULL when the key is missing, after
 * checking its escape sequences (GLib 2.74 mishandles some).  Errors name
 * the group and key. */
gboolean     _reg_manifest_get_string      (GKeyFile     *keyfile,
                                            const char   *group,
                                            const char   *key,
                                            char        **value,
                                            GError      **error);
/* The same for a list (`a;b;c`): NULL when missing, empty when empty. */
gboolean     _reg_manifest_get_string_list (GKeyFile     *keyfile,
                                            const char   *group,
                                            const char   *key,
                                            char       ***value,
                                            GError      **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RegManifest, _reg_manifest_free)

G_END_DECLS
