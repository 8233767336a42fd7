/* fixture-compiler.h: compiler types for the fixture modules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <reg.h>

G_BEGIN_DECLS

/* How a fixture compiler compiles; NULL: it refuses every graph with
 * REG_COMPILER_ERROR_UNSUPPORTED_OP. */
typedef RegCompiledFn *(*FixtureCompileFunc) (RegGraph   *graph,
                                              GPtrArray  *example_inputs,
                                              GVariant   *options,
                                              GError    **error);

/* What a fixture compiler type is made of: the name it reports, an
 * optional counter of its instances, bumped atomically by every
 * construction, and an optional compile function. */
typedef struct
{
  const char         *backend_name;
  gint               *n_constructed;
  FixtureCompileFunc  compile;
} FixtureCompilerSpec;

GType          fixture_compiler_register (GTypeModule               *module,
                                          const FixtureCompilerSpec *spec);

/* fixture-eager.c, for the fixtures that compute (those of `regctl
 * verify`): registers the eager interpreter's function type on @module
 * under a name no other copy of a fixture took, and compiles with it. */
void           fixture_eager_register    (GTypeModule               *module);
RegCompiledFn *fixture_eager_compile     (const char                *backend,
                                          RegGraph                  *graph,
                                          GVariant                  *options,
                                          GError                   **error);

G_END_DECLS
