/* reg-loader.c: the loaders this libreg has
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "reg-loader-private.h"
#include "reg-module-private.h"

static const RegLoader * const loaders[] = {
  &_reg_module_loader,
};

const RegLoader *
_reg_loader_find (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (loaders); i++)
    if (strcmp (loaders[i]->name, name) == 0)
      return loaders[i];

  return NULL;
}

const char *
_reg_loader_get_names (void)
{
  return "c";
}
