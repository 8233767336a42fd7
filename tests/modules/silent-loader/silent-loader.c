/* silent-loader.c: a loader module that fails without saying why
 *
 * Built as libreg-loader-python.so, it stands in for the Python loader
 * when REG_LOADER_DIR names this directory (tests/test-module.c).  For the
 * source "silent_load" its load() returns nothing and sets no error; for
 * any other it loads an object whose make() returns nothing and sets no
 * error.  libreg must give a reason anyway.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include <reg.h>

#include "reg-language-loader-private.h"

static GObject *
load (const char  *dir,
      const char  *source,
      GError     **error)
{
  static GObject *loaded;

  if (strcmp (source, "silent_load") == 0)
    return NULL;

  /* What a loader loads is its own, for the life of the process. */
  if (g_once_init_enter (&loaded))
    g_once_init_leave (&loaded, g_object_new (G_TYPE_OBJECT, NULL));

  return loaded;
}

static RegCompiler *
make (GObject     *loaded,
      const char  *name,
      const char  *entry,
      GError     **error)
{
  return NULL;
}

static const RegLoader silent_loader = {
  .name = "python",
  .load = load,
  .make = make,
};

G_MODULE_EXPORT const RegLoaderModule reg_loader_module = {
  REG_VERSION_S,
  &silent_loader,
  NULL,
  NULL,
};
