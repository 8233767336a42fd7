/* reg-loader-gjs-engine.h: what the loader asks of SpiderMonkey itself
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gjs/gjs.h>

G_BEGIN_DECLS

/* Whether the calling thread is the one of @context's JavaScript engine,
 * the thread that made it: asked of SpiderMonkey, which binds an engine
 * context to its thread.  Safe from any thread. */
gboolean reg_gjs_engine_is_own_thread  (GjsContext  *context);

/* Whether JavaScript of @context runs in this thread now, lower on the
 * stack (the lookup was made from JavaScript).  In its thread only. */
gboolean reg_gjs_engine_is_running     (GjsContext  *context);

/* Imports the ES module @uri into @context's global and hands its
 * namespace to the loader's script (handoff.js), which makes the
 * RegGjsHandoff of the innermost request.  JavaScript must be running
 * (reg_gjs_engine_is_running ()).  On failure, *@error gets what was
 * thrown, described, and *@compiled whether the module was compiled
 * (GJS keeps a compiled module, and its failure, under its URI).
 * Synchronous: the module is read, compiled and evaluated before it
 * returns, with GJS's module loader (its resolve hook), whatever runs
 * lower on the stack, a promise's job included. */
gboolean reg_gjs_engine_import         (GjsContext  *context,
                                        const char  *uri,
                                        char       **error,
                                        gboolean    *compiled);

G_END_DECLS
