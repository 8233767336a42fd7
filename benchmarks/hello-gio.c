/* hello-gio.c: the floor of the registry benchmark's whole-process row
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A GIO hello-world program: it links GIO, makes one of its objects (which
 * sets up the type system, as any GObject program does; a GCancellable
 * rather than a GFile, whose first use loads GIO's modules) and prints a
 * line.  The registry benchmark runs it, and a program that finds eager
 * through a registry, each as a fresh process, and compares their times.
 */

#include <gio/gio.h>

int
main (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  g_print ("hello, %s\n", G_OBJECT_TYPE_NAME (cancellable));
  return 0;
}
