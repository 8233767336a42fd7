/* reg-compiled-fn-private.h: the call signature a compiled function carries
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-compiled-fn.h"
#include "reg-graph.h"

G_BEGIN_DECLS

/* Records on @fn the input names of @graph and the shapes of
 * @example_inputs, against which reg_compiled_fn_call() checks every call,
 * whichever backend made @fn. */
void _reg_compiled_fn_set_signature (RegCompiledFn *fn,
                                     RegGraph      *graph,
                                     GPtrArray     *example_inputs);

G_END_DECLS
