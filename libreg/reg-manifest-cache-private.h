/* reg-manifest-cache-private.h: the discovery cache of a module directory
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The file, in the module directory itself, that reg_backend_cache_write()
 * writes and discovery reads. */
#define REG_MANIFEST_CACHE_NAME "backends.cache"

/* A cache larger than this is not written, and not read: 10,000 manifests
 * make about 2 MiB, and a larger file (a sparse one of gigabytes costs
 * nothing to make) would cost the host memory and time at each
 * discovery. */
#define REG_MANIFEST_CACHE_MAX_SIZE (64 * 1024 * 1024)

/* Returns what _reg_manifest_scan_dir() would return for @dir, read from
 * @dir's cache file, or NULL (with a g_debug() saying why) when there is
 * no cache or it is not usable: unreadable, truncated, corrupt, of another
 * format version or ABI, or stale (a manifest changed, added or
 * removed).  Never warns: the caller falls back to reading the manifests,
 * which reports what is wrong with them. */
GPtrArray *_reg_manifest_cache_load   (const char  *dir);

/* Checks @contents as the cache file of @dir, everything but whether it is
 * fresh, and returns the manifests it holds, or NULL and sets @why.  For
 * the fuzzer, which reaches the checks through this. */
GPtrArray *_reg_manifest_cache_decode (GBytes      *contents,
                                       const char  *dir,
                                       char       **why);

/* Rewrites the body size and the checksum in the header of the cache file
 * @contents of @size bytes (at least a header) to match its body, so that
 * the fuzzer's changes to a body reach the checks after the checksum. */
void       _reg_manifest_cache_seal   (guint8      *contents,
                                       gsize        size);

G_END_DECLS
