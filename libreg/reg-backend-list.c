/* reg-backend-list.c: a list model of a registry's backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The model is a copy of what the registry holds, made again whenever the
 * registry says something changed, and compared with the previous copy:
 * the differences become items-changed signals at their exact positions.
 * The registry emits its signals in whichever thread made the change; the
 * model's copy is only ever read and written in the thread that runs its
 * GMainContext (see Link), so it needs no lock of its own.
 */

#include <string.h>

#include "reg-backend-info-private.h"
#include "reg-backend-list.h"
#include "reg-registry-private.h"

/**
 * RegBackendList:
 *
 * A [iface@Gio.ListModel] of [class@Reg.BackendInfo] that follows a
 * [class@Reg.Registry]: what a backend chooser binds to (a `GtkDropDown`,
 * a `GtkListView`).
 *
 * It lists the backends [method@Reg.Registry.list_backends] lists with
 * the same excluded tags, in the same order (byte order of names), and
 * changes with the registry: registrations, declarations, loads and
 * failed loads, recorded verdicts, unregistrations, rescans and changes of
 * the default backend (each info says whether it is the default, and its
 * [property@Reg.BackendInfo:state]).  An item whose backend changed is
 * replaced by a new info (infos are immutable snapshots); the others stay
 * the same objects.  Each change is signalled with
 * [signal@Gio.ListModel::items-changed] at its exact position.
 *
 * ## Threads
 *
 * The model belongs to the [struct@GLib.MainContext] that was the
 * thread-default context when it was made, and is used from the thread
 * that runs that context.  Changes made to the registry in that thread
 * show in the model at once; changes made in other threads show from an
 * idle callback of that context, so `items-changed` is always emitted
 * there.  The model keeps its registry alive; the registry does not keep
 * the model alive.
 *
 * ```python
 * backends = Reg.BackendList.new(Reg.Registry.get_default(), None)
 * for info in backends:
 *     print(info.props.name, "(default)" if info.props.is_default else "")
 * ```
 */

/* What the registry's signal handlers hold: the handlers may run in any
 * thread, at any time until they are disconnected (even while the model is
 * being disposed in another thread), so they reach the model only through
 * a weak reference, and only in the model's context. */
typedef struct
{
  GWeakRef         model;
  GMainContext    *context;
  GThread         *home;      /* the thread that made the model */
  GMutex           mutex;     /* guards pending */
  GSource         *pending;   /* an update scheduled in context, or NULL */
} Link;

struct _RegBackendList
{
  GObject      parent_instance;

  RegRegistry *registry;      /* NULL once disposed */
  char       **exclude_tags;
  GPtrArray   *items;         /* RegBackendInfo, read in the context's thread only */
  Link        *link;
  gulong       handlers[6];

  /* An update in progress (items-changed handlers may change the registry
   * again), and a change heard meanwhile. */
  gboolean     updating;
  gboolean     dirty;
};

enum {
  PROP_0,
  PROP_REGISTRY,
  PROP_EXCLUDE_TAGS,
  PROP_ITEM_TYPE,
  PROP_N_ITEMS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void reg_backend_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (RegBackendList, reg_backend_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      reg_backend_list_model_init))

/* Link */

static Link *
link_new (RegBackendList *model)
{
  Link *link = g_atomic_rc_box_new0 (Link);

  g_weak_ref_init (&link->model, model);
  link->context = g_main_context_ref_thread_default ();
  link->home = g_thread_self ();
  g_mutex_init (&link->mutex);

  return link;
}

static void
link_clear (Link *link)
{
  g_assert (link->pending == NULL);
  g_weak_ref_clear (&link->model);
  g_main_context_unref (link->context);
  g_mutex_clear (&link->mutex);
}

static void
link_unref (Link *link)
{
  g_atomic_rc_box_release_full (link, (GDestroyNotify) link_clear);
}

static void
link_closure_notify (gpointer  data,
                     GClosure *closure)
{
  link_unref (data);
}

/* Takes the scheduled update, if any: a change from now on schedules
 * another. */
static GSource *
link_steal_pending (Link *link)
{
  GSource *pending;

  g_mutex_lock (&link->mutex);
  pending = g_steal_pointer (&link->pending);
  g_mutex_unlock (&link->mutex);

  return pending;
}

static void update (RegBackendList *self);

static gboolean
link_dispatch (gpointer data)
{
  Link *link = data;
  g_autoptr(GSource) pending = link_steal_pending (link);
  g_autoptr(RegBackendList) model = g_weak_ref_get (&link->model);

  if (model != NULL)
    update (model);

  return G_SOURCE_REMOVE;
}

/* Any signal of the registry: the model is updated now if this is its
 * thread and nobody else runs its context, from an idle callback of its
 * context otherwise. */
static void
on_registry_changed (gpointer  registry,
                     gpointer  arg,
                     gpointer  data)
{
  Link *link = data;
  GSource *source;

  if (g_thread_self () == link->home && g_main_context_acquire (link->context))
    {
      g_autoptr(RegBackendList) model = g_weak_ref_get (&link->model);

      if (model != NULL)
        update (model);
      g_main_context_release (link->context);
      return;
    }

  g_mutex_lock (&link->mutex);
  if (link->pending == NULL)
    {
      source = g_idle_source_new ();
      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_static_name (source, "[libreg] RegBackendList update");
      g_source_set_callback (source, link_dispatch, g_atomic_rc_box_acquire (link),
                             (GDestroyNotify) link_unref);
      link->pending = source;
      g_source_attach (source, link->context);
    }
  g_mutex_unlock (&link->mutex);
}

/* Updating */

static void
update_once (RegBackendList *self)
{
  g_autoptr(GPtrArray) fresh = NULL;
  guint n_before = self->items->len;
  guint i = 0, j = 0;
  gint shift = 0;

  if (self->registry == NULL)
    return;

  fresh = _reg_registry_dup_infos (self->registry, (const char * const *) self->exclude_tags);

  /* Both lists are in byte order of names: one merge finds the runs of
   * differences.  Items are spliced run by run, in order, so that each
   * items-changed describes the model as it is when emitted: the old item
   * i is then at i + shift. */
  while (i < n_before || j < fresh->len)
    {
      guint run_old = i, run_fresh = j;

      /* A run of differences, up to the next item that stays or the end. */
      while (i < n_before || j < fresh->len)
        {
          RegBackendInfo *a = i < n_before ? g_ptr_array_index (self->items, i + shift) : NULL;
          RegBackendInfo *b = j < fresh->len ? g_ptr_array_index (fresh, j) : NULL;
          int cmp = a == NULL ? 1 : b == NULL ? -1
                    : strcmp (reg_backend_info_get_name (a), reg_backend_info_get_name (b));

          if (cmp == 0 && _reg_backend_info_equal (a, b))
            break;
          if (cmp <= 0)
            i++;
          if (cmp >= 0)
            j++;
        }

      if (i > run_old || j > run_fresh)
        {
          guint position = run_old + shift;

          g_ptr_array_remove_range (self->items, position, i - run_old);
          for (guint k = run_fresh; k < j; k++)
            g_ptr_array_insert (self->items, position + k - run_fresh,
                                g_object_ref (g_ptr_array_index (fresh, k)));
          g_list_model_items_changed (G_LIST_MODEL (self), position, i - run_old, j - run_fresh);
        }
      shift += (gint) (j - run_fresh) - (gint) (i - run_old);
      /* Past the item that stays (past the end when there is none). */
      i++;
      j++;
    }

  if (self->items->len != n_before)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ITEMS]);
}

/* Call in the model's context.  A change heard while updating (an
 * items-changed handler that changes the registry) makes another pass. */
static void
update (RegBackendList *self)
{
  if (self->updating)
    {
      self->dirty = TRUE;
      return;
    }

  self->updating = TRUE;
  do
    {
      self->dirty = FALSE;
      update_once (self);
    }
  while (self->dirty);
  self->updating = FALSE;
}

/* GListModel */

static GType
reg_backend_list_get_item_type (GListModel *model)
{
  return REG_TYPE_BACKEND_INFO;
}

static guint
reg_backend_list_get_n_items (GListModel *model)
{
  return REG_BACKEND_LIST (model)->items->len;
}

static gpointer
reg_backend_list_get_item (GListModel *model,
                           guint       position)
{
  RegBackendList *self = REG_BACKEND_LIST (model);

  if (position >= self->items->len)
    return NULL;

  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
reg_backend_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = reg_backend_list_get_item_type;
  iface->get_n_items = reg_backend_list_get_n_items;
  iface->get_item = reg_backend_list_get_item;
}

/* GObject */

static void
reg_backend_list_constructed (GObject *object)
{
  RegBackendList *self = REG_BACKEND_LIST (object);
  static const char * const signal_names[] = {
    "backend-registered",
    "backend-declared",
    "backend-unregistered",
    "module-loaded",
    "backend-changed",
    "notify::default-backend",
  };

  G_OBJECT_CLASS (reg_backend_list_parent_class)->constructed (object);

  if (self->registry == NULL)
    self->registry = g_object_ref (reg_registry_get_default ());
  if (self->exclude_tags == NULL)
    self->exclude_tags = g_strdupv ((char **) (const char * const[]) {
                                      REG_TAG_DEBUG, REG_TAG_EXPERIMENTAL, NULL });

  self->link = link_new (self);

  /* Connected before the first copy, so that no change can fall between
   * the two; a change heard during the first copy makes a second.  The
   * first copy's signals reach no handler: nobody has the model yet. */
  G_STATIC_ASSERT (G_N_ELEMENTS (signal_names) == G_N_ELEMENTS (self->handlers));
  for (guint i = 0; i < G_N_ELEMENTS (signal_names); i++)
    self->handlers[i] = g_signal_connect_data (self->registry, signal_names[i],
                                               G_CALLBACK (on_registry_changed),
                                               g_atomic_rc_box_acquire (self->link),
                                               link_closure_notify, 0);
  update (self);
}

static void
reg_backend_list_dispose (GObject *object)
{
  RegBackendList *self = REG_BACKEND_LIST (object);

  if (self->registry != NULL)
    {
      for (guint i = 0; i < G_N_ELEMENTS (self->handlers); i++)
        g_clear_signal_handler (&self->handlers[i], self->registry);
      g_clear_object (&self->registry);
    }
  if (self->link != NULL)
    {
      g_autoptr(GSource) pending = link_steal_pending (self->link);

      if (pending != NULL)
        g_source_destroy (pending);
      g_clear_pointer (&self->link, link_unref);
    }

  G_OBJECT_CLASS (reg_backend_list_parent_class)->dispose (object);
}

static void
reg_backend_list_finalize (GObject *object)
{
  RegBackendList *self = REG_BACKEND_LIST (object);

  g_ptr_array_unref (self->items);
  g_strfreev (self->exclude_tags);

  G_OBJECT_CLASS (reg_backend_list_parent_class)->finalize (object);
}

static void
reg_backend_list_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  RegBackendList *self = REG_BACKEND_LIST (object);

  switch (prop_id)
    {
    case PROP_REGISTRY:
      g_value_set_object (value, self->registry);
      break;
    case PROP_EXCLUDE_TAGS:
      g_value_set_boxed (value, self->exclude_tags);
      break;
    case PROP_ITEM_TYPE:
      g_value_set_gtype (value, REG_TYPE_BACKEND_INFO);
      break;
    case PROP_N_ITEMS:
      g_value_set_uint (value, self->items->len);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reg_backend_list_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  RegBackendList *self = REG_BACKEND_LIST (object);

  switch (prop_id)
    {
    case PROP_REGISTRY:
      self->registry = g_value_dup_object (value);
      break;
    case PROP_EXCLUDE_TAGS:
      self->exclude_tags = g_value_dup_boxed (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reg_backend_list_class_init (RegBackendListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags construct = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

  object_class->constructed = reg_backend_list_constructed;
  object_class->dispose = reg_backend_list_dispose;
  object_class->finalize = reg_backend_list_finalize;
  object_class->get_property = reg_backend_list_get_property;
  object_class->set_property = reg_backend_list_set_property;

  /**
   * RegBackendList:registry:
   *
   * The registry the list follows; the default one when none is given.
   */
  properties[PROP_REGISTRY] =
    g_param_spec_object ("registry", NULL, NULL, REG_TYPE_REGISTRY, construct);

  /**
   * RegBackendList:exclude-tags:
   *
   * Backends carrying any of these tags are left out, as
   * [method@Reg.Registry.list_backends] leaves them out; when none are
   * given, `debug` and `experimental`.  An empty array leaves out nothing.
   */
  properties[PROP_EXCLUDE_TAGS] = g_param_spec_boxed ("exclude-tags", NULL, NULL, G_TYPE_STRV, construct);

  /**
   * RegBackendList:item-type:
   *
   * The type of the items, [class@Reg.BackendInfo].
   */
  properties[PROP_ITEM_TYPE] =
    g_param_spec_gtype ("item-type", NULL, NULL, G_TYPE_OBJECT,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * RegBackendList:n-items:
   *
   * The number of items, notified when it changes.
   */
  properties[PROP_N_ITEMS] =
    g_param_spec_uint ("n-items", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
reg_backend_list_init (RegBackendList *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * reg_backend_list_new:
 * @registry: a [class@Reg.Registry]
 * @exclude_tags: (array zero-terminated=1) (nullable): leave out backends
 *   carrying any of these tags; %NULL means `{ "debug", "experimental" }`,
 *   an empty array leaves out nothing
 *
 * Makes a list of the backends of @registry that follows it, in the
 * thread-default main context of the calling thread (see
 * [class@Reg.BackendList]).  Runs discovery first, as
 * [method@Reg.Registry.list_backends] does.
 *
 * Returns: (transfer full): the list
 */
RegBackendList *
reg_backend_list_new (RegRegistry        *registry,
                      const char * const *exclude_tags)
{
  g_return_val_if_fail (REG_IS_REGISTRY (registry), NULL);

  return g_object_new (REG_TYPE_BACKEND_LIST,
                       "registry", registry,
                       "exclude-tags", exclude_tags,
                       NULL);
}

/**
 * reg_backend_list_get_registry:
 * @self: a [class@Reg.BackendList]
 *
 * Gets the registry the list follows.
 *
 * Returns: (transfer none): the registry
 */
RegRegistry *
reg_backend_list_get_registry (RegBackendList *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_LIST (self), NULL);

  return self->registry;
}

/**
 * reg_backend_list_get_exclude_tags:
 * @self: a [class@Reg.BackendList]
 *
 * Gets the tags whose backends the list leaves out.
 *
 * Returns: (transfer none) (array zero-terminated=1): the tags
 */
const char * const *
reg_backend_list_get_exclude_tags (RegBackendList *self)
{
  g_return_val_if_fail (REG_IS_BACKEND_LIST (self), NULL);

  return (const char * const *) self->exclude_tags;
}
