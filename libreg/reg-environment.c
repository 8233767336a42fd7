/* reg-environment.c: whether the environment may choose code to run
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-config.h"

#include <unistd.h>
#if HAVE_GETAUXVAL
#include <sys/auxv.h>
#endif

#include "reg-environment-private.h"

gboolean
_reg_environment_is_trusted (void)
{
#if HAVE_GETAUXVAL
  /* The kernel's own answer: also set for file capabilities and security
   * modules' transitions, which the ids do not show. */
  return getauxval (AT_SECURE) == 0;
#else
  /* POSIX: the ids differ while a setuid or setgid program runs (until it
   * drops them, after which the environment no longer gains it
   * anything). */
  return getuid () == geteuid () && getgid () == getegid ();
#endif
}
