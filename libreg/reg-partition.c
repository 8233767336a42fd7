/* reg-partition.c: a graph run as groups of nodes on several backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The registry cuts a graph that a backend does not wholly take into
 * groups (reg-compile.c compiles each one); the function made of them runs
 * the groups in order.  Tensors live in slots: the graph's inputs first,
 * then every tensor a group hands on, then the graph's constant outputs.
 */

#include <string.h>

#include "reg-compiled-fn-private.h"
#include "reg-message-private.h"
#include "reg-partition-private.h"
#include "reg-tensor.h"

typedef struct
{
  RegGraph  *graph;           /* until _reg_partition_finish() */
  GPtrArray *example_inputs;  /* the same */
  gboolean   taken;
  GArray    *nodes;           /* guint: its nodes, as ids of the whole graph */
  GArray    *in_slots;        /* guint: where each of its inputs is */
  GArray    *out_slots;       /* guint: where each of its outputs goes */
} Group;

struct _RegPartition
{
  GArray     *groups;     /* Group, in the order they run */
  guint       n_slots;
  GArray     *out_slots;  /* guint: one per output of the whole graph */
  GPtrArray  *fixed;      /* n_slots: the constant outputs, NULL elsewhere */
};

/* For arrays of tensors with holes. */
static void
unref_nullable (gpointer object)
{
  if (object != NULL)
    g_object_unref (object);
}

static void
group_clear (gpointer data)
{
  Group *group = data;

  g_clear_object (&group->graph);
  g_clear_pointer (&group->example_inputs, g_ptr_array_unref);
  g_clear_pointer (&group->nodes, g_array_unref);
  g_clear_pointer (&group->in_slots, g_array_unref);
  g_clear_pointer (&group->out_slots, g_array_unref);
}

void
_reg_partition_free (RegPartition *partition)
{
  g_array_unref (partition->groups);
  g_array_unref (partition->out_slots);
  g_clear_pointer (&partition->fixed, g_ptr_array_unref);
  g_free (partition);
}

/* The stage of every operator node: groups are the nodes of one stage,
 * and run in the order of stages.  Taken nodes have even stages, the
 * others odd ones, and a node's stage is at least that of each argument,
 * one more when the argument is of the other kind: so every edge goes
 * forward, and no group can depend on itself through another.  Stages are
 * first as early as that allows, then each node is moved as late as its
 * consumers allow (a node that only feeds the outputs joins the last group
 * of its kind), which empties stages that need not be. */
static guint *
assign_stages (RegGraph     *graph,
               const guint8 *taken,
               guint        *n_stages)
{
  guint n_nodes = reg_graph_get_n_nodes (graph);
  guint *stage = g_new0 (guint, MAX (n_nodes, 1));
  guint top[2] = { 0, 0 };  /* the last stage of taken nodes, of the others */

  for (guint i = 0; i < n_nodes; i++)
    {
      const RegNode *node = _reg_graph_get_node (graph, i);

      if (node->kind != REG_NODE_OP)
        continue;

      stage[i] = taken[i] ? 0 : 1;
      for (guint j = 0; j < node->n_args; j++)
        if (_reg_graph_get_node (graph, node->args[j])->kind == REG_NODE_OP)
          stage[i] = MAX (stage[i], stage[node->args[j]] + (!taken[node->args[j]] != !taken[i]));
      top[!taken[i]] = MAX (top[!taken[i]], stage[i]);
    }

  /* Backwards, each node's consumers are final before it is: its latest
   * stage is the least they allow, or the last of its kind. */
  {
    g_autofree guint *latest = g_new (guint, MAX (n_nodes, 1));

    for (guint i = 0; i < n_nodes; i++)
      latest[i] = top[!taken[i]];
    for (guint i = n_nodes; i-- > 0;)
      {
        const RegNode *node = _reg_graph_get_node (graph, i);

        if (node->kind != REG_NODE_OP)
          continue;

        stage[i] = latest[i];
        for (guint j = 0; j < node->n_args; j++)
          {
            guint a = node->args[j];

            if (_reg_graph_get_node (graph, a)->kind == REG_NODE_OP)
              latest[a] = MIN (latest[a], stage[i] - (!taken[a] != !taken[i]));
          }
      }
  }

  *n_stages = MAX (top[0], top[1]) + 1;
  return stage;
}

/* A name for the input of @group that node @id, named @name (nullable),
 * of the whole graph feeds: its own when it has one, else `vN` as
 * reg_graph_to_string() calls it, with `_` appended while another input
 * of the group has it. */
static char *
input_name (RegGraph   *group,
            const char *name,
            guint       id)
{
  GString *candidate = g_string_new (name);

  if (name == NULL)
    g_string_printf (candidate, "v%u", id);
  while (g_hash_table_contains (group->names, candidate->str))
    g_string_append_c (candidate, '_');

  return g_string_free (candidate, FALSE);
}

RegPartition *
_reg_partition_new (RegGraph        *graph,
                    GPtrArray       *example_inputs,
                    const RegShape  *shapes,
                    const guint8    *taken,
                    GError         **error)
{
  g_autoptr(RegPartition) partition = g_new0 (RegPartition, 1);
  guint n_nodes = reg_graph_get_n_nodes (graph);
  guint n_inputs, n_outputs, n_stages;
  const guint *inputs = reg_graph_get_inputs (graph, &n_inputs);
  const guint *outputs = reg_graph_get_outputs (graph, &n_outputs);
  g_autofree guint *stage = assign_stages (graph, taken, &n_stages);
  g_autofree guint *group_of_stage = g_new (guint, n_stages);
  g_autofree guint *group_of = g_new (guint, MAX (n_nodes, 1));   /* G_MAXUINT: no group */
  g_autofree guint *slot_of = g_new (guint, MAX (n_nodes, 1));    /* G_MAXUINT: no slot */
  g_autofree guint *sub_id = g_new (guint, MAX (n_nodes, 1));     /* in the group of seen_by */
  g_autofree guint *seen_by = g_new (guint, MAX (n_nodes, 1));    /* the group that last mapped it */
  g_autofree guint8 *leaves = g_new0 (guint8, MAX (n_nodes, 1));  /* needed outside its group */
  g_autoptr(GPtrArray) examples = g_ptr_array_new_full (n_nodes, unref_nullable);

  partition->groups = g_array_new (FALSE, TRUE, sizeof (Group));
  g_array_set_clear_func (partition->groups, group_clear);
  partition->out_slots = g_array_sized_new (FALSE, FALSE, sizeof (guint), n_outputs);
  g_ptr_array_set_size (examples, n_nodes);
  memset (group_of_stage, 0xff, n_stages * sizeof (guint));
  memset (group_of, 0xff, MAX (n_nodes, 1) * sizeof (guint));
  memset (slot_of, 0xff, MAX (n_nodes, 1) * sizeof (guint));
  memset (seen_by, 0xff, MAX (n_nodes, 1) * sizeof (guint));

  /* The groups, in the order of their stages, and what leaves each. */
  for (guint i = 0; i < n_nodes; i++)
    if (_reg_graph_get_node (graph, i)->kind == REG_NODE_OP)
      group_of_stage[stage[i]] = 0;
  for (guint s = 0; s < n_stages; s++)
    if (group_of_stage[s] == 0)
      {
        Group group = { 0 };

        group_of_stage[s] = partition->groups->len;
        group.graph = reg_graph_new ();
        group.example_inputs = g_ptr_array_new_with_free_func (g_object_unref);
        group.taken = s % 2 == 0;
        group.nodes = g_array_new (FALSE, FALSE, sizeof (guint));
        group.in_slots = g_array_new (FALSE, FALSE, sizeof (guint));
        group.out_slots = g_array_new (FALSE, FALSE, sizeof (guint));
        g_array_append_val (partition->groups, group);
      }
  for (guint i = 0; i < n_nodes; i++)
    {
      const RegNode *node = _reg_graph_get_node (graph, i);

      if (node->kind != REG_NODE_OP)
        continue;
      group_of[i] = group_of_stage[stage[i]];
      g_array_append_val (g_array_index (partition->groups, Group, group_of[i]).nodes, i);
      for (guint j = 0; j < node->n_args; j++)
        if (group_of[node->args[j]] != group_of[i])
          leaves[node->args[j]] = 1;
    }
  for (guint k = 0; k < n_outputs; k++)
    leaves[outputs[k]] = 1;

  for (guint k = 0; k < n_inputs; k++)
    {
      slot_of[inputs[k]] = k;
      examples->pdata[inputs[k]] = g_object_ref (g_ptr_array_index (example_inputs, k));
    }
  partition->n_slots = n_inputs;

  /* Each group's graph: its nodes in order, with the constants they use,
   * an input for every other argument, an output for every node that
   * leaves it.  Built as the parser builds (what it appends is valid by
   * construction) and frozen: a backend keeps it as it is (see
   * _reg_graph_dup_frozen()). */
  for (guint g = 0; g < partition->groups->len; g++)
    {
      Group *group = &g_array_index (partition->groups, Group, g);
      g_autoptr(GArray) results = g_array_new (FALSE, FALSE, sizeof (guint));

      for (guint n = 0; n < group->nodes->len; n++)
        {
          guint i = g_array_index (group->nodes, guint, n);
          const RegNode *node = _reg_graph_get_node (graph, i);
          guint mapped[REG_GRAPH_MAX_ARITY];

          for (guint j = 0; j < node->n_args; j++)
            {
              guint a = node->args[j];
              const RegNode *arg = _reg_graph_get_node (graph, a);

              if (seen_by[a] != g && arg->kind == REG_NODE_CONSTANT)
                {
                  sub_id[a] = _reg_graph_append (group->graph, REG_NODE_CONSTANT, 0, NULL,
                                                 arg->value, NULL);
                }
              else if (seen_by[a] != g)
                {
                  g_assert (group_of[a] != g && slot_of[a] != G_MAXUINT);
                  if (examples->pdata[a] == NULL)
                    {
                      examples->pdata[a] = reg_tensor_try_new (shapes[a].dims, shapes[a].n_dims, error);
                      if (examples->pdata[a] == NULL)
                        return NULL;
                    }
                  sub_id[a] = _reg_graph_append (group->graph, REG_NODE_INPUT, 0, NULL, 0,
                                                 input_name (group->graph, arg->name, a));
                  g_array_append_val (group->in_slots, slot_of[a]);
                  g_ptr_array_add (group->example_inputs, g_object_ref (examples->pdata[a]));
                }
              seen_by[a] = g;
              mapped[j] = sub_id[a];
            }

          sub_id[i] = _reg_graph_append (group->graph, REG_NODE_OP, node->op, mapped, 0, NULL);
          seen_by[i] = g;
          if (leaves[i])
            {
              slot_of[i] = partition->n_slots++;
              g_array_append_val (group->out_slots, slot_of[i]);
              g_array_append_val (results, sub_id[i]);
            }
        }
      _reg_graph_set_outputs (group->graph, (const guint *) results->data, results->len);
      group->graph->frozen = TRUE;
    }

  /* The outputs of the whole graph: inputs, results of groups, and
   * constants, which get tensors of their own. */
  partition->fixed = g_ptr_array_new_with_free_func (unref_nullable);
  g_ptr_array_set_size (partition->fixed, partition->n_slots);
  for (guint k = 0; k < n_outputs; k++)
    {
      guint slot = slot_of[outputs[k]];

      if (slot == G_MAXUINT)
        {
          float value = (float) _reg_graph_get_node (graph, outputs[k])->value;

          slot = partition->n_slots++;
          g_ptr_array_add (partition->fixed, reg_tensor_new_from_data (&value, 1, NULL, 0, NULL));
          slot_of[outputs[k]] = slot;
        }
      g_array_append_val (partition->out_slots, slot);
    }

  return g_steal_pointer (&partition);
}

RegGraph *
_reg_partition_get_group (RegPartition  *partition,
                          guint          group,
                          GPtrArray    **example_inputs,
                          gboolean      *taken)
{
  Group *g;

  if (group == partition->groups->len)
    return NULL;

  g = &g_array_index (partition->groups, Group, group);
  *example_inputs = g->example_inputs;
  *taken = g->taken;

  return g->graph;
}

/* The function */

/* The outputs of a run: a list model of an array of tensors, what every
 * call makes and drops, lighter than a GListStore. */
#define REG_TYPE_PARTITION_OUTPUTS (reg_partition_outputs_get_type ())
G_DECLARE_FINAL_TYPE (RegPartitionOutputs, reg_partition_outputs, REG, PARTITION_OUTPUTS, GObject)

struct _RegPartitionOutputs
{
  GObject     parent_instance;
  GPtrArray  *tensors;
};

static GType
reg_partition_outputs_get_item_type (GListModel *model)
{
  return REG_TYPE_TENSOR;
}

static guint
reg_partition_outputs_get_n_items (GListModel *model)
{
  return REG_PARTITION_OUTPUTS (model)->tensors->len;
}

static gpointer
reg_partition_outputs_get_item (GListModel *model,
                                guint       position)
{
  GPtrArray *tensors = REG_PARTITION_OUTPUTS (model)->tensors;

  return position < tensors->len ? g_object_ref (tensors->pdata[position]) : NULL;
}

static void
reg_partition_outputs_model_init (GListModelInterface *iface)
{
  iface->get_item_type = reg_partition_outputs_get_item_type;
  iface->get_n_items = reg_partition_outputs_get_n_items;
  iface->get_item = reg_partition_outputs_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (RegPartitionOutputs, reg_partition_outputs, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      reg_partition_outputs_model_init))

static void
reg_partition_outputs_finalize (GObject *object)
{
  g_ptr_array_unref (REG_PARTITION_OUTPUTS (object)->tensors);

  G_OBJECT_CLASS (reg_partition_outputs_parent_class)->finalize (object);
}

static void
reg_partition_outputs_class_init (RegPartitionOutputsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = reg_partition_outputs_finalize;
}

static void
reg_partition_outputs_init (RegPartitionOutputs *self)
{
}

#define REG_TYPE_PARTITIONED_FN (reg_partitioned_fn_get_type ())
G_DECLARE_FINAL_TYPE (RegPartitionedFn, reg_partitioned_fn, REG, PARTITIONED_FN, GObject)

struct _RegPartitionedFn
{
  GObject         parent_instance;

  RegPartition   *partition;
  RegCompiledFn **fns;        /* one per group */
  char          **backends;   /* the name of the backend of each */
};

/* One run: the tensor in each slot (a reference, or NULL). */
typedef struct
{
  RegPartitionedFn *fn;
  RegTensor       **slots;
  guint             next;    /* the group to run next */
  GPtrArray        *args;    /* the inputs of the group that runs, borrowed */
} Run;

static Run *
run_new (RegPartitionedFn *fn,
         GPtrArray        *inputs)
{
  RegPartition *partition = fn->partition;
  Run *run = g_new0 (Run, 1);

  run->fn = g_object_ref (fn);
  run->slots = g_new0 (RegTensor *, partition->n_slots);
  run->args = g_ptr_array_new ();
  for (guint k = 0; k < inputs->len; k++)
    run->slots[k] = g_object_ref (g_ptr_array_index (inputs, k));
  for (guint k = 0; k < partition->n_slots; k++)
    if (partition->fixed->pdata[k] != NULL)
      run->slots[k] = g_object_ref (partition->fixed->pdata[k]);

  return run;
}

static void
run_free (Run *run)
{
  for (guint k = 0; k < run->fn->partition->n_slots; k++)
    g_clear_object (&run->slots[k]);
  g_free (run->slots);
  g_ptr_array_unref (run->args);
  g_object_unref (run->fn);
  g_free (run);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Run, run_free)

/* The inputs of the next group (run->args), borrowed from the slots. */
static GPtrArray *
run_group_inputs (Run *run)
{
  Group *group = &g_array_index (run->fn->partition->groups, Group, run->next);

  g_ptr_array_set_size (run->args, group->in_slots->len);
  for (guint k = 0; k < group->in_slots->len; k++)
    run->args->pdata[k] = run->slots[g_array_index (group->in_slots, guint, k)];

  return run->args;
}

/* Puts the outputs of the group that ran (checked against its signature,
 * taken over) in their slots, and moves to the next. */
static void
run_group_done (Run       *run,
                GPtrArray *outputs)
{
  Group *group = &g_array_index (run->fn->partition->groups, Group, run->next);
  gsize n;
  g_autofree gpointer *tensors = g_ptr_array_steal (outputs, &n);

  for (gsize k = 0; k < n; k++)
    run->slots[g_array_index (group->out_slots, guint, k)] = tensors[k];
  g_ptr_array_unref (outputs);
  run->next++;
}

static GListModel *
run_outputs (Run *run)
{
  GArray *out_slots = run->fn->partition->out_slots;
  RegPartitionOutputs *outputs = g_object_new (REG_TYPE_PARTITION_OUTPUTS, NULL);

  outputs->tensors = g_ptr_array_new_full (out_slots->len, g_object_unref);
  for (guint k = 0; k < out_slots->len; k++)
    g_ptr_array_add (outputs->tensors, g_object_ref (run->slots[g_array_index (out_slots, guint, k)]));

  return G_LIST_MODEL (outputs);
}

static GListModel *
reg_partitioned_fn_run (RegCompiledFn  *fn,
                        GPtrArray      *inputs,
                        GError        **error)
{
  RegPartitionedFn *self = REG_PARTITIONED_FN (fn);
  g_autoptr(Run) run = run_new (self, inputs);

  while (run->next < self->partition->groups->len)
    {
      GPtrArray *outputs = _reg_compiled_fn_call_trusted (self->fns[run->next],
                                                          run_group_inputs (run), error);

      if (outputs == NULL)
        return NULL;
      run_group_done (run, outputs);
    }

  return run_outputs (run);
}

/* Asynchronously, each group as its function runs asynchronously (a
 * group compiled by a JavaScript backend in the caller's context, say). */
static void run_next_async (GTask *task);

static void
group_called (GObject      *source_object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  GPtrArray *outputs;

  outputs = reg_compiled_fn_call_finish (REG_COMPILED_FN (source_object), result, &error);
  if (outputs == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  run_group_done (g_task_get_task_data (task), outputs);
  run_next_async (task);
}

static void
run_next_async (GTask *task)
{
  Run *run = g_task_get_task_data (task);

  if (run->next == run->fn->partition->groups->len)
    {
      g_task_return_pointer (task, run_outputs (run), g_object_unref);
      return;
    }

  reg_compiled_fn_call_async (run->fn->fns[run->next], run_group_inputs (run),
                              g_task_get_cancellable (task), group_called, g_object_ref (task));
}

static void
reg_partitioned_fn_run_async (RegCompiledFn       *fn,
                              GPtrArray           *inputs,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (fn, cancellable, callback, user_data);

  g_task_set_source_tag (task, reg_partitioned_fn_run_async);
  g_task_set_task_data (task, run_new (REG_PARTITIONED_FN (fn), inputs), (GDestroyNotify) run_free);
  run_next_async (task);
}

static GListModel *
reg_partitioned_fn_run_finish (RegCompiledFn  *fn,
                               GAsyncResult   *result,
                               GError        **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
reg_partitioned_fn_iface_init (RegCompiledFnInterface *iface)
{
  iface->run = reg_partitioned_fn_run;
  iface->run_async = reg_partitioned_fn_run_async;
  iface->run_finish = reg_partitioned_fn_run_finish;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (RegPartitionedFn, reg_partitioned_fn, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (REG_TYPE_COMPILED_FN,
                                                      reg_partitioned_fn_iface_init))

static void
reg_partitioned_fn_finalize (GObject *object)
{
  RegPartitionedFn *self = REG_PARTITIONED_FN (object);

  for (guint g = 0; g < self->partition->groups->len; g++)
    g_object_unref (self->fns[g]);
  g_free (self->fns);
  g_strfreev (self->backends);
  _reg_partition_free (self->partition);

  G_OBJECT_CLASS (reg_partitioned_fn_parent_class)->finalize (object);
}

static void
reg_partitioned_fn_class_init (RegPartitionedFnClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = reg_partitioned_fn_finalize;
}

static void
reg_partitioned_fn_init (RegPartitionedFn *self)
{
}

/* "5 of 7 nodes on 'dsp': matmul, add; 2 on 'inductor': relu, sum": the
 * nodes of each backend, in the order the backends first run, with the
 * operators they call in the order they first run. */
static char *
describe_placement (RegPartitionedFn *self,
                    RegGraph         *graph)
{
  GString *out = g_string_new (NULL);
  g_autoptr(GPtrArray) backends = g_ptr_array_new ();
  guint n_total = 0;

  for (guint g = 0; g < self->partition->groups->len; g++)
    {
      const char *backend = self->backends[g];

      n_total += g_array_index (self->partition->groups, Group, g).nodes->len;
      if (!g_ptr_array_find_with_equal_func (backends, backend, g_str_equal, NULL))
        g_ptr_array_add (backends, (gpointer) backend);
    }

  for (guint b = 0; b < backends->len; b++)
    {
      g_autofree char *shown = _reg_escape (backends->pdata[b]);
      g_autoptr(GPtrArray) ops = g_ptr_array_new_null_terminated (1, NULL, TRUE);
      g_autofree char *names = NULL;
      guint n = 0;

      for (guint g = 0; g < self->partition->groups->len; g++)
        {
          GArray *nodes = g_array_index (self->partition->groups, Group, g).nodes;

          if (!g_str_equal (self->backends[g], backends->pdata[b]))
            continue;
          n += nodes->len;
          for (guint k = 0; k < nodes->len; k++)
            {
              /* Interned (reg_op_get_name()). */
              const char *op = reg_op_get_name (_reg_graph_get_node (graph, g_array_index (nodes, guint, k))->op);

              if (!g_ptr_array_find (ops, op, NULL))
                g_ptr_array_add (ops, (gpointer) op);
            }
        }
      names = g_strjoinv (", ", (char **) ops->pdata);

      if (b == 0)
        g_string_append_printf (out, "%u of %u nodes on '%s': %s", n, n_total, shown, names);
      else
        g_string_append_printf (out, "; %u on '%s': %s", n, shown, names);
    }

  return g_string_free (out, FALSE);
}

RegCompiledFn *
_reg_partition_finish (RegPartition   *partition,
                       RegGraph       *graph,
                       RegCompiledFn **fns,
                       char          **backends)
{
  RegPartitionedFn *self = g_object_new (REG_TYPE_PARTITIONED_FN, NULL);
  guint n_groups = partition->groups->len;

  self->partition = partition;
  self->fns = fns;
  self->backends = backends;

  /* What compiled is no longer needed. */
  for (guint g = 0; g < n_groups; g++)
    {
      Group *group = &g_array_index (partition->groups, Group, g);

      g_clear_object (&group->graph);
      g_clear_pointer (&group->example_inputs, g_ptr_array_unref);
    }

  if (!g_log_writer_default_would_drop (G_LOG_LEVEL_DEBUG, G_LOG_DOMAIN))
    {
      g_autofree char *summary = describe_placement (self, graph);

      g_debug ("partitioned a graph in %u groups: %s", n_groups, summary);
    }

  return REG_COMPILED_FN (self);
}

/* Made when asked for: most callers never ask. */
GVariant *
_reg_partition_dup_placement (RegCompiledFn *fn)
{
  RegPartitionedFn *self = REG_PARTITIONED_FN (fn);
  guint n_groups = self->partition->groups->len;
  g_autofree GVariant **entries = g_new (GVariant *, n_groups);

  for (guint g = 0; g < n_groups; g++)
    {
      GArray *nodes = g_array_index (self->partition->groups, Group, g).nodes;
      GVariant *entry[2];

      entry[0] = g_variant_new_string (self->backends[g]);
      entry[1] = g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, nodes->data, nodes->len,
                                            sizeof (guint32));
      entries[g] = g_variant_new_tuple (entry, 2);
    }

  return g_variant_ref_sink (g_variant_new_array (G_VARIANT_TYPE ("(sau)"), entries, n_groups));
}
