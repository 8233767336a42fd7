/* reg-snapshot.c: an immutable name -> compiler table
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "reg-snapshot-private.h"

typedef struct
{
  guint        hash;
  const char  *name;      /* in the snapshot's arena */
  RegCompiler *compiler;  /* NULL: an empty slot */
} Entry;

struct _RegSnapshot
{
  guint  mask;     /* n_slots - 1, n_slots a power of two */
  guint  shift;    /* 32 - log2 (n_slots) */
  char  *arena;    /* every name, NUL-terminated, back to back */
  Entry  slots[];  /* open addressing, linear probing */
};

/* Fibonacci hashing: g_str_hash() of names that differ only in their last
 * characters (backend_0001, backend_0002, ...) differ only in their low
 * bits, which masking would keep together in one run of slots. */
static inline guint
first_slot (const RegSnapshot *snapshot,
            guint              hash)
{
  return (guint) (((guint32) hash * 0x9E3779B1u) >> snapshot->shift);
}

RegSnapshot *
_reg_snapshot_new (const char * const  *names,
                   RegCompiler * const *compilers,
                   guint                n)
{
  RegSnapshot *snapshot;
  guint n_slots = 8, shift = 29;
  gsize arena_size = 0;
  char *cursor;

  /* At most half full, so that probes stay short. */
  while (n_slots < 2 * n)
    {
      n_slots *= 2;
      shift--;
    }

  for (guint i = 0; i < n; i++)
    arena_size += strlen (names[i]) + 1;

  snapshot = g_malloc0 (sizeof (RegSnapshot) + n_slots * sizeof (Entry));
  snapshot->mask = n_slots - 1;
  snapshot->shift = shift;
  snapshot->arena = cursor = g_malloc (MAX (arena_size, 1));

  for (guint i = 0; i < n; i++)
    {
      gsize len = strlen (names[i]) + 1;
      guint hash = g_str_hash (names[i]);
      guint slot = first_slot (snapshot, hash);

      while (snapshot->slots[slot].compiler != NULL)
        slot = (slot + 1) & snapshot->mask;

      memcpy (cursor, names[i], len);
      snapshot->slots[slot].hash = hash;
      snapshot->slots[slot].name = cursor;
      snapshot->slots[slot].compiler = g_object_ref (compilers[i]);
      cursor += len;
    }

  return snapshot;
}

RegCompiler *
_reg_snapshot_lookup (const RegSnapshot *snapshot,
                      const char        *name)
{
  guint hash = g_str_hash (name);

  for (guint slot = first_slot (snapshot, hash); ; slot = (slot + 1) & snapshot->mask)
    {
      const Entry *entry = &snapshot->slots[slot];

      if (entry->compiler == NULL)
        return NULL;
      if (entry->hash == hash && strcmp (entry->name, name) == 0)
        return entry->compiler;
    }
}

void
_reg_snapshot_free (RegSnapshot *snapshot)
{
  if (snapshot == NULL)
    return;

  for (guint slot = 0; slot <= snapshot->mask; slot++)
    g_clear_object (&snapshot->slots[slot].compiler);
  g_free (snapshot->arena);
  g_free (snapshot);
}
