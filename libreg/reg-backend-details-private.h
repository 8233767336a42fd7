/* reg-backend-details-private.h: what a manifest says of a backend beyond
 * its name, tags and description: its options, who made it and what its
 * compiler promises
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "reg-compiler.h"

G_BEGIN_DECLS

/* Bounds of the optional manifest fields, in bytes (and authors). */
#define REG_BACKEND_VERSION_MAX  64
#define REG_BACKEND_AUTHOR_MAX   256
#define REG_BACKEND_AUTHORS_MAX  32
#define REG_BACKEND_WEBSITE_MAX  2048
#define REG_BACKEND_LICENSE_MAX  256

/* The compiler flags a manifest can declare (Shareable=). */
#define REG_BACKEND_MANIFEST_FLAGS REG_COMPILER_FLAGS_SHAREABLE

/* Immutable once made, shared by the manifest that read it and the registry's
 * backend.  A backend whose manifest says none of it
 * has no details at all (NULL), the common case. */
typedef struct
{
  gint              ref_count;  /* atomic (see reg-backend-details.c) */
  GListModel       *options;   /* an option list; NULL: no Options= (no schema) */
  char             *version;   /* each NULL when not given */
  char            **authors;
  char             *website;
  char             *license;
  RegCompilerFlags  compiler_flags;  /* within REG_BACKEND_MANIFEST_FLAGS */
} RegBackendDetails;

RegBackendDetails *_reg_backend_details_ref          (RegBackendDetails  *details);
void               _reg_backend_details_unref        (RegBackendDetails  *details);

/* Reads Options= and the [Option BACKEND KEY] groups it names, Version=,
 * Authors=, Website=, License= and Shareable= of the group @group
 * (declaring the backend @backend) of @keyfile.  Sets @details to NULL when the group has
 * none of them.  Errors name the group and key. */
gboolean           _reg_backend_details_parse        (GKeyFile           *keyfile,
                                                      const char         *group,
                                                      const char         *backend,
                                                      RegBackendDetails **details,
                                                      GError            **error);

/* Checks that every [Option BACKEND KEY] group of @groups belongs to a
 * backend of @backends (its names, @n of them, with their @details) that
 * lists KEY in Options=: a stray group is a typo worth reporting. */
gboolean           _reg_backend_details_check_groups (const char * const *groups,
                                                      const char * const *backends,
                                                      RegBackendDetails * const *details,
                                                      guint               n,
                                                      GError            **error);

/* Both nullable. */
gboolean           _reg_backend_details_equal        (RegBackendDetails  *a,
                                                      RegBackendDetails  *b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RegBackendDetails, _reg_backend_details_unref)

G_END_DECLS
