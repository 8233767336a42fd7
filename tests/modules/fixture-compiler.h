/* fixture-compiler.h: compiler types for the fixture modules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <reg.h>

G_BEGIN_DECLS

/* What a fixture compiler type is made of: the name it reports and an
 * optional counter of its instances, bumped atomically by every
 * construction. */
typedef struct
{
  const char *backend_name;
  gint       *n_constructed;
} FixtureCompilerSpec;

GType fixture_compiler_register (GTypeModule               *module,
                                 const FixtureCompilerSpec *spec);

G_END_DECLS
