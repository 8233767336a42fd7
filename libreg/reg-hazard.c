/* reg-hazard.c: hazard pointers, for reading shared data lock-free
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "reg-config.h"

#include "reg-hazard-private.h"

/* One per thread that ever read; kept on a list that only grows, and
 * reused by later threads once their owner has exited.  A cache line each:
 * slots of two threads sharing a line would make every lookup of one
 * thread invalidate the other's cache. */
typedef struct _Slot Slot;
struct _Slot
{
  gpointer  pointer;   /* what the owner reads through, or NULL */
  gint      in_use;    /* owned by a live thread */
  Slot     *next;
} __attribute__ ((aligned (64)));

static Slot *slots;  /* head of the list, pushed with compare-and-exchange */

static void
slot_release_owner (gpointer data)
{
  Slot *slot = data;

  g_atomic_pointer_set (&slot->pointer, NULL);
  g_atomic_int_set (&slot->in_use, 0);
}

/* The GPrivate gives the slot back when its thread exits; a thread-local
 * variable, where the compiler has them, is the fast way to find it. */
static GPrivate current_slot = G_PRIVATE_INIT (slot_release_owner);
#if HAVE_THREAD_LOCAL
static __thread Slot *current;
# define CURRENT_SLOT() (current)
#else
# define CURRENT_SLOT() ((Slot *) g_private_get (&current_slot))
#endif

static Slot *
get_slot (void)
{
  Slot *slot = CURRENT_SLOT ();

  if G_LIKELY (slot != NULL)
    return slot;

  /* Adopt the slot of a thread that has exited, or add one. */
  for (slot = g_atomic_pointer_get (&slots); slot != NULL; slot = slot->next)
    if (g_atomic_int_compare_and_exchange (&slot->in_use, 0, 1))
      break;

  if (slot == NULL)
    {
      slot = g_aligned_alloc0 (1, sizeof (Slot), G_ALIGNOF (Slot));
      slot->in_use = 1;
      do
        slot->next = g_atomic_pointer_get (&slots);
      while (!g_atomic_pointer_compare_and_exchange (&slots, slot->next, slot));
    }

  g_private_set (&current_slot, slot);
#if HAVE_THREAD_LOCAL
  current = slot;
#endif
  return slot;
}

gpointer
_reg_hazard_protect (gpointer *location)
{
  Slot *slot = get_slot ();
  gpointer pointer;

  /* Publish, then check that the pointer is still the current one: a
   * writer that replaced it before our publication became visible would
   * otherwise free it under us.  Both are sequentially consistent, so the
   * writer's scan after its own replacement sees our slot or we see its
   * replacement. */
  do
    {
      pointer = g_atomic_pointer_get (location);
      g_atomic_pointer_set (&slot->pointer, pointer);
    }
  while (pointer != g_atomic_pointer_get (location));

  return pointer;
}

void
_reg_hazard_release (void)
{
  /* A release store is enough: what matters is that the reads made under
   * protection happen before a writer may see the slot empty. */
  __atomic_store_n (&CURRENT_SLOT ()->pointer, NULL, __ATOMIC_RELEASE);
}

gboolean
_reg_hazard_is_protected (gconstpointer pointer)
{
  for (Slot *slot = g_atomic_pointer_get (&slots); slot != NULL; slot = slot->next)
    if (g_atomic_pointer_get (&slot->pointer) == pointer)
      return TRUE;

  return FALSE;
}
