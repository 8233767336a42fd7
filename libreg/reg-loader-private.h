/* reg-loader-private.h: the seam between a declared backend and its code
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-compiler.h"
#include "reg-keyfile-private.h"

G_BEGIN_DECLS

/* A loader turns what a manifest declares into compilers.  Which one a
 * manifest uses is its `Loader=` (absent: "c", a GModule).  A loader is a
 * table of functions, called at three moments:
 *
 *  - discovery (reg-manifest.c): read_source() reads the keys of the
 *    [Reg Module] group it needs and returns what it will load, its
 *    *source* (for "c", Module=, the module's file name in the manifest's
 *    directory); when entry_key is set, each [Backend NAME] group must give
 *    that key, whose value is the backend's *entry* (the object to make).
 *    Nothing is opened and no code runs: listing and describing backends
 *    never starts anything.  check_entry(), when set, checks each entry.
 *    locate() gives the file of a source, for infos and messages; a
 *    loader without one (Python, whose interpreter finds its modules)
 *    has the manifest stand for its source.
 *  - the first lookup of one of the manifest's backends (reg-loading.c):
 *    load() loads the source (once per process, however many registries
 *    and paths lead to it) and returns what it loaded; offers(), when
 *    set, lists the backend names its code offers (NULL for none), which
 *    may include names no manifest declares; make() makes the compiler
 *    of one declared backend.  load() and make() run the source's code:
 *    the caller holds the loading lock and its registry's load lock,
 *    never a registry's contents lock (the lock order is at the top of
 *    reg-loading.c); or, for a loader that sets unlocked (one that runs
 *    an interpreter, whose own locks must never be waited for under one
 *    of libreg's), no lock of libreg at all.
 *  - verification (reg-verify.c): a check looks the backend up in a child
 *    process, which loads it through the same loader; its verdict is
 *    recorded against the identity of the file locate() gives.
 *
 * load() and make() fail with REG_REGISTRY_ERROR_LOAD_FAILED, saying why
 * and what to do; the caller prefixes the backend and its manifest (and
 * says so when a loader failed without a GError). */
typedef struct
{
  const char *name;       /* its Loader= value */
  const char *entry_key;  /* the [Backend NAME] key each backend gives, or NULL */
  const char *hint;       /* what to do about a [Reg Module] group read_source()
                           * refused: a sentence */
  gboolean    unlocked;   /* load() and make() run with no lock of libreg held */

  char        *(*read_source) (RegKeyGroup  *group,
                               GError      **error);
  gboolean     (*check_entry) (const char   *entry,
                               GError      **error);
  char        *(*locate)      (const char   *dir,
                               const char   *source);
  GObject     *(*load)        (const char   *dir,
                               const char   *source,
                               GError      **error);
  char       **(*offers)      (GObject      *loaded);
  RegCompiler *(*make)        (GObject      *loaded,
                               const char   *name,
                               const char   *entry,
                               GError      **error);
} RegLoader;

G_END_DECLS
