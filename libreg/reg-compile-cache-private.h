/* reg-compile-cache-private.h: the functions a registry compiled, kept
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-compiler.h"
#include "reg-graph-private.h"

G_BEGIN_DECLS

/* The estimated memory of the entries a cache keeps, at most: beyond it
 * the least recently used are evicted, as beyond the entry count. */
#define REG_COMPILE_CACHE_MAX_BYTES ((gsize) 256 * 1024 * 1024)

typedef struct _RegCompileCache RegCompileCache;

RegCompileCache *_reg_compile_cache_new              (guint             max_entries);
void             _reg_compile_cache_free             (RegCompileCache  *cache);

void             _reg_compile_cache_set_max_entries  (RegCompileCache  *cache,
                                                      guint             max_entries);
guint            _reg_compile_cache_get_max_entries  (RegCompileCache  *cache);
void             _reg_compile_cache_get_counters     (RegCompileCache  *cache,
                                                      guint64          *hits,
                                                      guint64          *misses,
                                                      guint64          *evictions);

/* The key of a compile: the graph as the backend receives it (its nodes
 * in order, names and constants' bits included, and its outputs), the
 * shapes of the example inputs, and every entry of the options in key
 * order (so that two dictionaries of the same entries are one key), @size
 * bytes.  @graph must be valid.  The bytes are the calling thread's, valid
 * until its next call.  NULL for a key longer than
 * REG_COMPILE_CACHE_MAX_BYTES: an entry of it could never be kept, and its
 * compile is not cached. */
const guint8    *_reg_compile_cache_key              (RegGraph         *graph,
                                                      GPtrArray        *example_inputs,
                                                      GVariant         *options,
                                                      gsize            *size);

/* The estimated memory of a function compiled for @graph: the bytes of
 * every node's value (@shapes, one per node) and of its key. */
gsize            _reg_compile_cache_cost             (RegGraph         *graph,
                                                      const RegShape   *shapes,
                                                      gsize             key_size);

/* What a miss leaves its caller to settle. */
typedef struct _RegCompileCacheMiss RegCompileCacheMiss;

/* Starts a compile of @key (@key_size bytes) by @compiler.  A hit
 * returns the cached function (a new reference).  A miss returns NULL and
 * sets *@miss: the caller compiles, then calls _reg_compile_cache_settle()
 * with *@miss and the result, whatever the outcome (also when the compile
 * failed or never ran).
 *
 * Pass @compiles_here when the caller compiles in this thread, to the
 * end, with nothing else to wait for (a synchronous compile): then a miss
 * claims the key, and the other callers of the key wait for its result
 * (and compile themselves if it fails).  Any other compile (one that a
 * main context finishes: a backend's own compile_async, a thread-bound
 * backend's) is never waited for, so no caller ever blocks on work that
 * needs its own thread.  Nor does a caller wait for a claim of its own
 * thread, or of a thread that waits (through others) for it: it compiles
 * itself.
 *
 * A wait ends early, as a miss that leaves nothing to settle (*@miss
 * NULL), when @cancellable is cancelled.  With the cache disabled (0
 * entries) every call is such a miss.  @by_default marks compiles of the
 * default backend, which _reg_compile_cache_drop_default() drops. */
RegCompiledFn   *_reg_compile_cache_begin            (RegCompileCache      *cache,
                                                      RegCompiler          *compiler,
                                                      const guint8         *key,
                                                      gsize                 key_size,
                                                      gboolean              by_default,
                                                      gboolean              compiles_here,
                                                      GCancellable         *cancellable,
                                                      RegCompileCacheMiss **miss);
/* Gives up the claim of @miss, which stays the caller's to settle: its
 * compile turned out to go on where a waiter could block it (the groups
 * of a partitioned compile_async, which the caller's main context
 * compiles).  The waiters compile themselves. */
void             _reg_compile_cache_disown           (RegCompileCache      *cache,
                                                      RegCompileCacheMiss  *miss);
/* Ends the compile of @miss with its function (@fn, nullable) of the
 * estimated memory @cost; @miss is no longer the caller's.  The function
 * is kept unless the compile was dropped meanwhile (see below) or @cost
 * alone passes REG_COMPILE_CACHE_MAX_BYTES, which leaves the cache as it
 * was. */
void             _reg_compile_cache_settle           (RegCompileCache      *cache,
                                                      RegCompileCacheMiss  *miss,
                                                      RegCompiledFn        *fn,
                                                      gsize                 cost);

/* Drop entries: those of @compiler (unregistered), those compiled as the
 * default backend (the default changed), or all (a rescan). */
void             _reg_compile_cache_drop_compiler    (RegCompileCache  *cache,
                                                      RegCompiler      *compiler);
void             _reg_compile_cache_drop_default     (RegCompileCache  *cache);
void             _reg_compile_cache_clear            (RegCompileCache  *cache);

G_END_DECLS
