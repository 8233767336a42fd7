/* reg-inductor-plan.c: graph passes, kernel plans and their execution
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See reg-inductor-plan.h for the three steps and docs/inductor.md for the
 * design.
 */

#include <math.h>
#include <string.h>

#include "reg-inductor-plan.h"

/* A kernel is split over threads only when every thread gets at least this
 * many elements (or multiply-adds, for matmul): below, waking a thread
 * costs more than it saves. */
#define MIN_ELEMENTS_PER_THREAD 32768
#define MIN_FLOPS_PER_THREAD    (1 << 18)

/* Floats in a cache line (64 bytes), the unit of prefetching. */
#define FLOATS_PER_LINE 16

/* Operators ----------------------------------------------------------- */

static const char * const op_names[REG_IND_N_OPS] = {
  [REG_IND_OP_ADD] = "add",
  [REG_IND_OP_SUB] = "sub",
  [REG_IND_OP_MUL] = "mul",
  [REG_IND_OP_DIV] = "div",
  [REG_IND_OP_MAXIMUM] = "maximum",
  [REG_IND_OP_MINIMUM] = "minimum",
  [REG_IND_OP_NEG] = "neg",
  [REG_IND_OP_RELU] = "relu",
  [REG_IND_OP_EXP] = "exp",
  [REG_IND_OP_LOG] = "log",
  [REG_IND_OP_SQRT] = "sqrt",
  [REG_IND_OP_TANH] = "tanh",
  [REG_IND_OP_SIGMOID] = "sigmoid",
  [REG_IND_OP_ABS] = "abs",
  [REG_IND_OP_SUM] = "sum",
  [REG_IND_OP_MATMUL] = "matmul",
};

gboolean
_reg_ind_op_from_name (const char *name,
                       RegIndOp   *op)
{
  for (guint i = 0; i < REG_IND_N_OPS; i++)
    if (g_str_equal (op_names[i], name))
      {
        *op = i;
        return TRUE;
      }

  return FALSE;
}

const char *
_reg_ind_op_name (RegIndOp op)
{
  g_assert (op < REG_IND_N_OPS);
  return op_names[op];
}

static gboolean
op_is_commutative (RegIndOp op)
{
  return op == REG_IND_OP_ADD || op == REG_IND_OP_MUL ||
         op == REG_IND_OP_MAXIMUM || op == REG_IND_OP_MINIMUM;
}

static guint32
float_bits (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  return u;
}

/* The graph after the passes ------------------------------------------ */

typedef struct
{
  RegNodeKind kind;
  RegIndOp    op;
  guint       n_args;
  guint       args[2];
  float       value;        /* constants: the float eager computes with */
  guint       input_index;  /* inputs: position among the graph's inputs */
  guint       orig;         /* the node of the source graph it came from */
  char       *name;         /* nullable: the source node's name */
  guint       n_dims;
  gint64      dims[REG_TENSOR_MAX_DIMS];
  gsize       n_elements;
} IndNode;

struct _IndGraph
{
  GArray *nodes;            /* IndNode, arguments before their users */
  guint   n_inputs;
  guint  *outputs;
  guint   n_outputs;
};

static IndNode *
graph_node (IndGraph *graph,
            guint     id)
{
  g_assert (id < graph->nodes->len);
  return &g_array_index (graph->nodes, IndNode, id);
}

static void
ind_node_clear (gpointer data)
{
  IndNode *node = data;

  g_clear_pointer (&node->name, g_free);
}

static IndGraph *
ind_graph_alloc (void)
{
  IndGraph *graph = g_new0 (IndGraph, 1);

  graph->nodes = g_array_new (FALSE, TRUE, sizeof (IndNode));
  g_array_set_clear_func (graph->nodes, ind_node_clear);

  return graph;
}

void
_reg_ind_graph_free (IndGraph *graph)
{
  if (graph == NULL)
    return;

  g_array_unref (graph->nodes);
  g_free (graph->outputs);
  g_free (graph);
}

guint
_reg_ind_graph_get_n_ops (IndGraph *graph)
{
  guint n = 0;

  for (guint i = 0; i < graph->nodes->len; i++)
    n += graph_node (graph, i)->kind == REG_NODE_OP;

  return n;
}

/* The key of a node for common subexpression elimination: operators with
 * their (sorted, if commutative) arguments, constants by their bits (so
 * -0 and +0 stay apart, NaNs of one payload merge). */
typedef struct
{
  guint   kind;
  guint   op;
  guint   args[2];
  guint32 bits;
} NodeKey;

static guint
node_key_hash (gconstpointer p)
{
  const NodeKey *key = p;
  guint h = key->kind * 31u + key->op;

  h = h * 1000003u ^ key->args[0];
  h = h * 1000003u ^ key->args[1];
  h = h * 1000003u ^ key->bits;

  return h;
}

static gboolean
node_key_equal (gconstpointer a,
                gconstpointer b)
{
  return memcmp (a, b, sizeof (NodeKey)) == 0;
}

typedef struct
{
  RegGraph   *source;
  IndGraph   *graph;
  guint       passes;
  GHashTable *cse;          /* NodeKey -> node id + 1 */
} Builder;

static guint
builder_append (Builder       *b,
                const IndNode *node)
{
  g_array_append_vals (b->graph->nodes, node, 1);
  return b->graph->nodes->len - 1;
}

static guint
builder_constant (Builder *b,
                  float    value,
                  guint    orig)
{
  IndNode node = { 0 };
  NodeKey key = { 0 };
  gpointer found;
  guint id;

  key.kind = REG_NODE_CONSTANT;
  key.bits = float_bits (value);
  if ((b->passes & REG_IND_PASS_CSE) &&
      (found = g_hash_table_lookup (b->cse, &key)) != NULL)
    return GPOINTER_TO_UINT (found) - 1;

  node.kind = REG_NODE_CONSTANT;
  node.value = value;
  node.orig = orig;
  node.n_elements = 1;
  id = builder_append (b, &node);

  if (b->passes & REG_IND_PASS_CSE)
    g_hash_table_insert (b->cse, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (id + 1));

  return id;
}

static gboolean
is_constant (Builder *b,
             guint    id,
             guint32  bits)
{
  const IndNode *node = graph_node (b->graph, id);

  return node->kind == REG_NODE_CONSTANT && float_bits (node->value) == bits;
}

static gboolean
is_op (Builder  *b,
       guint     id,
       RegIndOp  op)
{
  const IndNode *node = graph_node (b->graph, id);

  return node->kind == REG_NODE_OP && node->op == op;
}

#define BITS_ONE      0x3f800000u
#define BITS_PLUS_0   0x00000000u
#define BITS_MINUS_0  0x80000000u

static guint builder_op (Builder       *b,
                         RegIndOp       op,
                         const guint   *args,
                         const IndNode *like);

/* Algebraic simplifications that give the same float for every input,
 * NaN, infinities and signed zeros included (docs/inductor.md lists those
 * left out on purpose, such as x + 0, x * 0 and x - x).  Returns the node
 * that replaces op(args), or G_MAXUINT. */
static guint
simplify (Builder       *b,
          RegIndOp       op,
          const guint   *args,
          const IndNode *like)
{
  guint x = args[0], y = args[1];

  switch (op)
    {
    case REG_IND_OP_NEG:
      /* -(-x) flips the sign bit twice */
      if (is_op (b, x, REG_IND_OP_NEG))
        return graph_node (b->graph, x)->args[0];
      break;

    case REG_IND_OP_ABS:
      if (is_op (b, x, REG_IND_OP_ABS))
        return x;
      /* |-x| = |x|: both clear the sign bit */
      if (is_op (b, x, REG_IND_OP_NEG))
        return builder_op (b, REG_IND_OP_ABS,
                           (guint[]) { graph_node (b->graph, x)->args[0], 0 }, like);
      break;

    case REG_IND_OP_RELU:
      if (is_op (b, x, REG_IND_OP_RELU))
        return x;
      break;

    case REG_IND_OP_MUL:
      /* x * 1 = x for every x (a NaN stays NaN) */
      if (is_constant (b, y, BITS_ONE))
        return x;
      if (is_constant (b, x, BITS_ONE))
        return y;
      break;

    case REG_IND_OP_DIV:
      if (is_constant (b, y, BITS_ONE))
        return x;
      break;

    case REG_IND_OP_ADD:
      /* x + (-0) = x, even for x = +0 or -0; x + (+0) is not (-0 + 0 = +0) */
      if (is_constant (b, y, BITS_MINUS_0))
        return x;
      if (is_constant (b, x, BITS_MINUS_0))
        return y;
      break;

    case REG_IND_OP_SUB:
      /* x - (+0) = x + (-0) = x */
      if (is_constant (b, y, BITS_PLUS_0))
        return x;
      break;

    case REG_IND_OP_MAXIMUM:
    case REG_IND_OP_MINIMUM:
      if (x == y)
        return x;
      break;

    default:
      break;
    }

  return G_MAXUINT;
}

/* Adds op(args) to the graph being built, shaped like @like (whose name it
 * takes), through folding, simplification and CSE as enabled. */
static guint
builder_op (Builder       *b,
            RegIndOp       op,
            const guint   *args,
            const IndNode *like)
{
  guint n_args = REG_IND_OP_IS_UNARY (op) || op == REG_IND_OP_SUM ? 1 : 2;
  IndNode node = { 0 };
  NodeKey key = { 0 };
  gpointer found;
  guint id;

  if (b->passes & REG_IND_PASS_FOLD)
    {
      gboolean all_constant = TRUE;

      for (guint i = 0; i < n_args; i++)
        all_constant &= graph_node (b->graph, args[i])->kind == REG_NODE_CONSTANT;

      /* matmul never has constant operands (they are 0-d) */
      if (all_constant && op != REG_IND_OP_MATMUL)
        {
          float x = graph_node (b->graph, args[0])->value;
          float y = n_args > 1 ? graph_node (b->graph, args[1])->value : 0.0f;

          return builder_constant (b, _reg_ind_eval_scalar (op, x, y), like->orig);
        }
    }

  if (b->passes & REG_IND_PASS_SIMPLIFY)
    {
      id = simplify (b, op, args, like);
      if (id != G_MAXUINT)
        return id;
    }

  key.kind = REG_NODE_OP;
  key.op = op;
  key.args[0] = args[0];
  key.args[1] = n_args > 1 ? args[1] : G_MAXUINT;
  if (n_args > 1 && op_is_commutative (op) && key.args[0] > key.args[1])
    {
      key.args[0] = args[1];
      key.args[1] = args[0];
    }
  if ((b->passes & REG_IND_PASS_CSE) &&
      (found = g_hash_table_lookup (b->cse, &key)) != NULL)
    return GPOINTER_TO_UINT (found) - 1;

  node = *like;
  node.kind = REG_NODE_OP;
  node.op = op;
  node.n_args = n_args;
  node.args[0] = args[0];
  node.args[1] = n_args > 1 ? args[1] : 0;
  node.name = g_strdup (like->name);
  id = builder_append (b, &node);

  if (b->passes & REG_IND_PASS_CSE)
    g_hash_table_insert (b->cse, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (id + 1));

  return id;
}

/* Dead code elimination: keeps the inputs (they are the call's signature)
 * and what the outputs need. */
static IndGraph *
eliminate_dead_code (IndGraph *graph)
{
  guint n = graph->nodes->len;
  g_autofree gboolean *live = g_new0 (gboolean, n);
  g_autofree guint *remap = g_new (guint, n);
  IndGraph *out = ind_graph_alloc ();

  for (guint i = 0; i < graph->n_outputs; i++)
    live[graph->outputs[i]] = TRUE;
  for (guint i = n; i-- > 0;)
    {
      const IndNode *node = graph_node (graph, i);

      if (node->kind == REG_NODE_INPUT)
        live[i] = TRUE;
      if (live[i])
        for (guint j = 0; j < node->n_args; j++)
          live[node->args[j]] = TRUE;
    }

  for (guint i = 0; i < n; i++)
    {
      IndNode *node = graph_node (graph, i);

      remap[i] = G_MAXUINT;
      if (!live[i])
        continue;

      for (guint j = 0; j < node->n_args; j++)
        node->args[j] = remap[node->args[j]];
      g_array_append_vals (out->nodes, node, 1);
      node->name = NULL;  /* moved */
      remap[i] = out->nodes->len - 1;
    }

  out->n_inputs = graph->n_inputs;
  out->n_outputs = graph->n_outputs;
  out->outputs = g_new (guint, MAX (graph->n_outputs, 1));
  for (guint i = 0; i < graph->n_outputs; i++)
    out->outputs[i] = remap[graph->outputs[i]];

  _reg_ind_graph_free (graph);
  return out;
}

IndGraph *
_reg_ind_graph_new (RegGraph  *source,
                    GVariant  *shapes,
                    guint      passes,
                    GError   **error)
{
  guint n = reg_graph_get_n_nodes (source);
  g_autofree guint *map = g_new (guint, MAX (n, 1));
  g_autofree guint *input_index = g_new (guint, MAX (n, 1));
  const guint *inputs, *outputs;
  guint n_inputs, n_outputs;
  Builder b = { 0 };

  g_return_val_if_fail (g_variant_is_of_type (shapes, G_VARIANT_TYPE ("aax")), NULL);
  g_return_val_if_fail (g_variant_n_children (shapes) == n, NULL);

  b.source = source;
  b.graph = ind_graph_alloc ();
  b.passes = passes;
  b.cse = g_hash_table_new_full (node_key_hash, node_key_equal, g_free, NULL);

  inputs = reg_graph_get_inputs (source, &n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    input_index[inputs[i]] = i;
  b.graph->n_inputs = n_inputs;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GVariant) shape = g_variant_get_child_value (shapes, i);
      const gint64 *dims;
      gsize n_dims;
      IndNode like = { 0 };

      dims = g_variant_get_fixed_array (shape, &n_dims, sizeof (gint64));
      g_assert (n_dims <= REG_TENSOR_MAX_DIMS);
      like.orig = i;
      like.name = (char *) reg_graph_get_node_name (source, i);
      like.n_dims = n_dims;
      like.n_elements = 1;
      for (gsize d = 0; d < n_dims; d++)
        like.dims[d] = dims[d];
      /* Shape inference refuses results no tensor can hold, and a zero
       * dimension empties the rest, but the count that sizes every loop
       * and buffer is checked here all the same. */
      for (gsize d = 0; d < n_dims && like.n_elements > 0; d++)
        if (dims[d] < 0 || !g_size_checked_mul (&like.n_elements, like.n_elements, (gsize) dims[d]))
          {
            g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE,
                         "inductor: node %u: its shape has more elements than memory can address", i);
            g_hash_table_unref (b.cse);
            _reg_ind_graph_free (b.graph);
            return NULL;
          }

      switch (reg_graph_get_node_kind (source, i))
        {
        case REG_NODE_INPUT:
          like.kind = REG_NODE_INPUT;
          like.input_index = input_index[i];
          like.name = g_strdup (like.name);
          map[i] = builder_append (&b, &like);
          break;

        case REG_NODE_CONSTANT:
          map[i] = builder_constant (&b, (float) reg_graph_get_node_value (source, i), i);
          break;

        case REG_NODE_OP:
          {
            const char *op_name = reg_graph_get_node_op (source, i);
            const guint *args;
            guint n_args, mapped[2] = { 0, 0 };
            RegIndOp op;

            if (!_reg_ind_op_from_name (op_name, &op))
              {
                g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP,
                             "inductor: node %u calls '%s', which this backend does not support",
                             i, op_name);
                g_hash_table_unref (b.cse);
                _reg_ind_graph_free (b.graph);
                return NULL;
              }

            args = reg_graph_get_node_args (source, i, &n_args);
            g_assert (n_args >= 1 && n_args <= 2);
            for (guint j = 0; j < n_args; j++)
              mapped[j] = map[args[j]];

            map[i] = builder_op (&b, op, mapped, &like);
          }
          break;

        default:
          g_assert_not_reached ();
        }
    }

  outputs = reg_graph_get_outputs (source, &n_outputs);
  b.graph->n_outputs = n_outputs;
  b.graph->outputs = g_new (guint, MAX (n_outputs, 1));
  for (guint i = 0; i < n_outputs; i++)
    b.graph->outputs[i] = map[outputs[i]];

  g_hash_table_unref (b.cse);

  if (passes & REG_IND_PASS_DCE)
    return eliminate_dead_code (b.graph);

  return b.graph;
}

static void
append_constant (GString *out,
                 float    value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (value))
    g_string_append (out, "nan");
  else if (isinf (value))
    g_string_append (out, value > 0 ? "inf" : "-inf");
  else
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.17g", value));
}

/* Node names for the text form: the source's where it had one (inputs
 * always do), `_N` otherwise, made unique. */
static char **
name_nodes (IndGraph *graph)
{
  guint n = graph->nodes->len;
  char **names = g_new0 (char *, n + 1);
  g_autoptr(GHashTable) used = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < n; i++)
    {
      IndNode *node = graph_node (graph, i);

      if (node->kind == REG_NODE_INPUT)
        {
          names[i] = g_strdup (node->name);
          g_hash_table_add (used, names[i]);
        }
    }

  for (guint i = 0; i < n; i++)
    {
      IndNode *node = graph_node (graph, i);

      if (node->kind != REG_NODE_OP)
        continue;

      if (node->name != NULL && !g_hash_table_contains (used, node->name))
        names[i] = g_strdup (node->name);
      else
        {
          names[i] = g_strdup_printf ("_%u", node->orig);
          while (g_hash_table_contains (used, names[i]))
            {
              char *longer = g_strconcat (names[i], "_", NULL);

              g_free (names[i]);
              names[i] = longer;
            }
        }
      g_hash_table_add (used, names[i]);
    }

  /* constants are printed inline: their slots stay empty strings */
  for (guint i = 0; i < n; i++)
    if (names[i] == NULL)
      names[i] = g_strdup ("");

  return names;
}

static void
append_operand (GString  *out,
                IndGraph *graph,
                char    **names,
                guint     id)
{
  const IndNode *node = graph_node (graph, id);

  if (node->kind == REG_NODE_CONSTANT)
    append_constant (out, node->value);
  else
    g_string_append (out, names[id]);
}

char *
_reg_ind_graph_to_text (IndGraph *graph)
{
  g_auto(GStrv) names = name_nodes (graph);
  GString *out = g_string_new ("graph(");
  gboolean first = TRUE;

  for (guint i = 0; i < graph->nodes->len; i++)
    if (graph_node (graph, i)->kind == REG_NODE_INPUT)
      {
        g_string_append_printf (out, "%s%s", first ? "" : ", ", names[i]);
        first = FALSE;
      }
  g_string_append (out, "):\n");

  for (guint i = 0; i < graph->nodes->len; i++)
    {
      const IndNode *node = graph_node (graph, i);

      if (node->kind != REG_NODE_OP)
        continue;

      g_string_append_printf (out, "  %s = %s(", names[i], _reg_ind_op_name (node->op));
      for (guint j = 0; j < node->n_args; j++)
        {
          if (j > 0)
            g_string_append (out, ", ");
          append_operand (out, graph, names, node->args[j]);
        }
      g_string_append (out, ")\n");
    }

  g_string_append (out, "  return (");
  for (guint i = 0; i < graph->n_outputs; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      append_operand (out, graph, names, graph->outputs[i]);
    }
  g_string_append (out, graph->n_outputs == 1 ? ",)\n" : ")\n");

  return g_string_free (out, FALSE);
}

/* Plans --------------------------------------------------------------- */

/* Where an instruction's operand lives during a block: a value in memory
 * (an input, an output or a temporary, read at the block's offset), a
 * block buffer, or a constant's block-long broadcast buffer. */
typedef enum {
  LOC_STORAGE,
  LOC_SLOT,
  LOC_CONST,
} LocKind;

typedef struct
{
  LocKind kind;
  guint   index;
} Loc;

typedef enum {
  INSTR_UNARY,
  INSTR_BINARY,
  INSTR_REDUCE,
  INSTR_MATMUL,
} InstrKind;

typedef struct
{
  InstrKind      kind;
  RegIndOp       op;
  Loc            dst, a, b;
  RegIndUnaryFn  unary;
  RegIndBinaryFn binary;
  guint          reduce;     /* INSTR_REDUCE: index into the kernel's sums */
  /* INSTR_MATMUL: dst = a [m, k] x b [k, n], the rows of the block (a and b
   * are in memory, dst in memory or a block buffer) */
} Instr;

typedef enum {
  KERNEL_BLOCKS,
  KERNEL_MATMUL,
} KernelKind;

typedef struct
{
  KernelKind kind;
  guint      stage;
  guint      first_node;
  GArray    *nodes;           /* guint: the graph nodes it computes */

  /* KERNEL_BLOCKS */
  gsize      n_elements;
  gsize      block_len;       /* elements per block: block-size, or whole
                               * rows of a matmul it begins with */
  Instr     *instrs;
  guint      n_instrs;
  guint      n_slots;
  guint     *sum_storage;     /* where each sum goes */
  guint      n_sums;
  guint     *streams;         /* the storage it reads or writes, to prefetch */
  gboolean  *stream_written;
  guint      n_streams;
  gsize     *prefetch_from;   /* n_instrs + 1: the slice of the next block's
                               * lines to prefetch before each instruction */

  /* KERNEL_MATMUL, and KERNEL_BLOCKS that begin with a matmul */
  guint      mm_a, mm_b, mm_c;
  gsize      m, k, n;
  guint      mm_node;         /* G_MAXUINT: none */
} Kernel;

typedef enum {
  STORAGE_INPUT,
  STORAGE_OUTPUT,
  STORAGE_TEMP,
} StorageKind;

typedef struct
{
  StorageKind kind;
  guint       node;
  gsize       n_elements;
} Storage;

struct _IndPlan
{
  IndGraph      *graph;
  RegIndOptions  options;

  GArray        *kernels;      /* Kernel, in execution order */
  GArray        *storage;      /* Storage */
  guint         *node_storage; /* per graph node: storage index or G_MAXUINT */
  guint         *node_kernel;  /* per graph node: kernel index or G_MAXUINT */

  float         *consts;       /* n_consts * block_size floats */
  guint          n_consts;

  guint          max_slots;

  /* Block buffers of finished calls, reused by later ones (each holds
   * max_slots * block_size floats). */
  GMutex         pool_mutex;
  GPtrArray     *scratch_pool;
};

static void
kernel_clear (gpointer data)
{
  Kernel *kernel = data;

  g_clear_pointer (&kernel->nodes, g_array_unref);
  g_clear_pointer (&kernel->instrs, g_free);
  g_clear_pointer (&kernel->sum_storage, g_free);
  g_clear_pointer (&kernel->streams, g_free);
  g_clear_pointer (&kernel->stream_written, g_free);
  g_clear_pointer (&kernel->prefetch_from, g_free);
}

static gint
kernel_compare (gconstpointer a,
                gconstpointer b)
{
  const Kernel *ka = a, *kb = b;

  if (ka->stage != kb->stage)
    return ka->stage < kb->stage ? -1 : 1;
  /* within a stage, matmuls first: fused kernels of the stage read them */
  if (ka->kind != kb->kind)
    return ka->kind == KERNEL_MATMUL ? -1 : 1;
  if (ka->first_node != kb->first_node)
    return ka->first_node < kb->first_node ? -1 : 1;

  return 0;
}

static guint
plan_add_storage (IndPlan     *plan,
                  StorageKind  kind,
                  guint        node)
{
  Storage s = { kind, node, graph_node (plan->graph, node)->n_elements };

  g_array_append_val (plan->storage, s);
  plan->node_storage[node] = plan->storage->len - 1;

  return plan->storage->len - 1;
}

/* The rows of a matmul that a fused kernel computes per block, for a
 * result of @n columns: whole 4-row tiles within a block of block-size
 * elements, or 0 if not even one fits (the matmul then stays a kernel of
 * its own, which works on whole tiles). */
static gsize
epilogue_rows (const IndPlan *plan,
               gsize          n)
{
  gsize rows = n > 0 ? plan->options.block_size / n : 0;

  return rows >= 4 ? rows & ~(gsize) 3 : 0;
}

/* Epilogue fusion.  The elementwise kernel that reads a matmul's result
 * (same stage, same element count: the bias, the activation, a sum...)
 * takes the matmul in as its first instruction, and its blocks become
 * groups of whole rows: each block computes its rows of the product,
 * then the kernel's other instructions on them, while they are in L1.
 * The product then lives in memory only if something else needs it.
 * Runs on the kernels in the order they were made; a kernel takes one
 * matmul (any others it reads, of the same stage, run before it). */
static void
plan_fuse_epilogues (IndPlan *plan)
{
  IndGraph *graph = plan->graph;

  for (guint k = 0; k < plan->kernels->len; k++)
    {
      Kernel *mm = &g_array_index (plan->kernels, Kernel, k);
      guint id;
      const IndNode *node;

      if (mm->kind != KERNEL_MATMUL)
        continue;
      id = g_array_index (mm->nodes, guint, 0);
      node = graph_node (graph, id);
      if (epilogue_rows (plan, (gsize) node->dims[1]) == 0)
        continue;

      for (guint e = 0; e < plan->kernels->len; e++)
        {
          Kernel *epi = &g_array_index (plan->kernels, Kernel, e);
          gboolean reads = FALSE;

          if (epi->kind != KERNEL_BLOCKS || epi->mm_node != G_MAXUINT ||
              epi->stage != mm->stage || epi->n_elements != node->n_elements)
            continue;
          for (guint j = 0; j < epi->nodes->len; j++)
            {
              const IndNode *user = graph_node (graph, g_array_index (epi->nodes, guint, j));

              for (guint a = 0; a < user->n_args; a++)
                reads |= user->args[a] == id;
            }
          if (!reads)
            continue;

          epi->mm_node = id;
          g_array_prepend_val (epi->nodes, id);
          g_array_remove_index (plan->kernels, k);
          k--;
          break;
        }
    }
}

/* Kernel assignment.  With fusion, each node gets a stage: inputs and
 * constants 0, an elementwise operator the largest stage of its
 * arguments, sum and matmul one more than theirs (their value exists only
 * after the kernels of that stage).  All elementwise operators of one
 * stage and one element count form one kernel, which also computes the
 * sums of its values; a sum of anything else joins the kernel of its
 * argument's stage and count.  Kernels run by stage, the matmuls of a
 * stage first; nothing in a kernel then reads a value that a later kernel
 * makes.  Without fusion every operator is its own kernel, in node order. */
static void
plan_assign_kernels (IndPlan *plan)
{
  IndGraph *graph = plan->graph;
  guint n = graph->nodes->len;
  g_autofree guint *stage = g_new0 (guint, MAX (n, 1));
  g_autoptr(GHashTable) groups = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                        (GDestroyNotify) g_bytes_unref, NULL);

  for (guint i = 0; i < n; i++)
    {
      const IndNode *node = graph_node (graph, i);
      guint max_stage = 0;
      Kernel kernel = { 0 };
      guint64 key[2];
      gpointer found;

      plan->node_kernel[i] = G_MAXUINT;
      if (node->kind != REG_NODE_OP)
        continue;

      for (guint j = 0; j < node->n_args; j++)
        max_stage = MAX (max_stage, stage[node->args[j]]);

      if (!plan->options.fuse)
        {
          kernel.kind = node->op == REG_IND_OP_MATMUL ? KERNEL_MATMUL : KERNEL_BLOCKS;
          kernel.stage = i;
          kernel.first_node = i;
          kernel.n_elements = node->op == REG_IND_OP_SUM
                              ? graph_node (graph, node->args[0])->n_elements
                              : node->n_elements;
          kernel.nodes = g_array_new (FALSE, FALSE, sizeof (guint));
          g_array_append_val (kernel.nodes, i);
          g_array_append_val (plan->kernels, kernel);
          plan->node_kernel[i] = plan->kernels->len - 1;
          stage[i] = i;
          continue;
        }

      if (node->op == REG_IND_OP_MATMUL)
        {
          stage[i] = max_stage + 1;
          kernel.kind = KERNEL_MATMUL;
          kernel.stage = stage[i];
          kernel.first_node = i;
          kernel.nodes = g_array_new (FALSE, FALSE, sizeof (guint));
          g_array_append_val (kernel.nodes, i);
          g_array_append_val (plan->kernels, kernel);
          plan->node_kernel[i] = plan->kernels->len - 1;
          continue;
        }

      if (node->op == REG_IND_OP_SUM)
        {
          const IndNode *arg = graph_node (graph, node->args[0]);

          stage[i] = max_stage + 1;
          key[0] = max_stage;
          key[1] = arg->n_elements;
        }
      else
        {
          stage[i] = max_stage;
          key[0] = max_stage;
          key[1] = node->n_elements;
        }

      {
        g_autoptr(GBytes) bytes = g_bytes_new (key, sizeof key);

        found = g_hash_table_lookup (groups, bytes);
        if (found == NULL)
          {
            kernel.kind = KERNEL_BLOCKS;
            kernel.stage = (guint) key[0];
            kernel.first_node = i;
            kernel.n_elements = key[1];
            kernel.nodes = g_array_new (FALSE, FALSE, sizeof (guint));
            g_array_append_val (plan->kernels, kernel);
            found = GUINT_TO_POINTER (plan->kernels->len);
            g_hash_table_insert (groups, g_bytes_ref (bytes), found);
          }
      }

      plan->node_kernel[i] = GPOINTER_TO_UINT (found) - 1;
      g_array_append_val (g_array_index (plan->kernels, Kernel,
                                         plan->node_kernel[i]).nodes, i);
    }

  for (guint k = 0; k < plan->kernels->len; k++)
    g_array_index (plan->kernels, Kernel, k).mm_node = G_MAXUINT;
  if (plan->options.fuse)
    plan_fuse_epilogues (plan);

  g_array_sort (plan->kernels, kernel_compare);
  for (guint k = 0; k < plan->kernels->len; k++)
    {
      Kernel *kernel = &g_array_index (plan->kernels, Kernel, k);

      for (guint j = 0; j < kernel->nodes->len; j++)
        plan->node_kernel[g_array_index (kernel->nodes, guint, j)] = k;
    }
}

/* A value lives in memory when it is an output, when a matmul or another
 * kernel reads it, and when it is a sum or a matmul that is a kernel of
 * its own; the rest live only in block buffers. */
static void
plan_assign_storage (IndPlan *plan)
{
  IndGraph *graph = plan->graph;
  guint n = graph->nodes->len;
  g_autofree gboolean *is_output = g_new0 (gboolean, MAX (n, 1));
  g_autofree gboolean *in_memory = g_new0 (gboolean, MAX (n, 1));

  for (guint i = 0; i < graph->n_outputs; i++)
    is_output[graph->outputs[i]] = TRUE;

  for (guint i = 0; i < n; i++)
    {
      const IndNode *node = graph_node (graph, i);

      plan->node_storage[i] = G_MAXUINT;
      if (node->kind != REG_NODE_OP)
        continue;

      if (is_output[i] || node->op == REG_IND_OP_SUM ||
          (node->op == REG_IND_OP_MATMUL &&
           g_array_index (plan->kernels, Kernel, plan->node_kernel[i]).kind == KERNEL_MATMUL))
        in_memory[i] = TRUE;

      for (guint j = 0; j < node->n_args; j++)
        {
          guint arg = node->args[j];

          if (graph_node (graph, arg)->kind == REG_NODE_OP &&
              (node->op == REG_IND_OP_MATMUL ||
               plan->node_kernel[arg] != plan->node_kernel[i]))
            in_memory[arg] = TRUE;
        }
    }

  for (guint i = 0; i < n; i++)
    {
      const IndNode *node = graph_node (graph, i);

      if (node->kind == REG_NODE_INPUT)
        plan_add_storage (plan, STORAGE_INPUT, i);
      else if (in_memory[i])
        plan_add_storage (plan, is_output[i] ? STORAGE_OUTPUT : STORAGE_TEMP, i);
    }
}

static guint
plan_const_index (IndPlan    *plan,
                  GHashTable *const_index,
                  guint       node)
{
  gpointer found = g_hash_table_lookup (const_index, GUINT_TO_POINTER (node));
  guint b = plan->options.block_size;
  float value;

  if (found != NULL)
    return GPOINTER_TO_UINT (found) - 1;

  value = graph_node (plan->graph, node)->value;
  plan->consts = g_realloc_n (plan->consts, (gsize) (plan->n_consts + 1) * b, sizeof (float));
  for (guint i = 0; i < b; i++)
    plan->consts[(gsize) plan->n_consts * b + i] = value;
  g_hash_table_insert (const_index, GUINT_TO_POINTER (node),
                       GUINT_TO_POINTER (plan->n_consts + 1));

  return plan->n_consts++;
}

static guint
slot_alloc (GArray *free_slots,
            guint  *n_slots)
{
  guint slot;

  if (free_slots->len == 0)
    return (*n_slots)++;

  slot = g_array_index (free_slots, guint, free_slots->len - 1);
  g_array_set_size (free_slots, free_slots->len - 1);

  return slot;
}

/* Turns a fused kernel's nodes into block instructions.  A value that
 * does not live in memory gets a block buffer ("slot") from its definition
 * to its last use in the kernel; the result of an instruction never shares
 * a buffer with its operands (the loops take restrict pointers). */
static void
plan_emit_blocks (IndPlan    *plan,
                  Kernel     *kernel,
                  GHashTable *const_index,
                  guint      *slot_of,
                  guint      *last_use)
{
  IndGraph *graph = plan->graph;
  g_autoptr(GArray) instrs = g_array_new (FALSE, TRUE, sizeof (Instr));
  g_autoptr(GArray) sums = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GArray) free_slots = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n_slots = 0;

  /* a kernel that begins with a matmul sets its own below */
  kernel->block_len = plan->options.block_size;

  for (guint p = 0; p < kernel->nodes->len; p++)
    {
      guint id = g_array_index (kernel->nodes, guint, p);
      const IndNode *node = graph_node (graph, id);

      last_use[id] = G_MAXUINT;
      for (guint j = 0; j < node->n_args; j++)
        last_use[node->args[j]] = p;
    }

  for (guint p = 0; p < kernel->nodes->len; p++)
    {
      guint id = g_array_index (kernel->nodes, guint, p);
      const IndNode *node = graph_node (graph, id);
      Instr instr = { 0 };
      Loc locs[2] = { { 0 } };

      for (guint j = 0; j < node->n_args; j++)
        {
          guint arg = node->args[j];
          const IndNode *arg_node = graph_node (graph, arg);

          if (arg_node->kind == REG_NODE_CONSTANT)
            locs[j] = (Loc) { LOC_CONST, plan_const_index (plan, const_index, arg) };
          else if (plan->node_storage[arg] != G_MAXUINT)
            locs[j] = (Loc) { LOC_STORAGE, plan->node_storage[arg] };
          else
            locs[j] = (Loc) { LOC_SLOT, slot_of[arg] };
        }

      instr.op = node->op;
      instr.a = locs[0];
      instr.b = locs[1];

      if (node->op == REG_IND_OP_MATMUL)
        {
          /* the first instruction of a kernel fused with its epilogue */
          g_assert (p == 0 && locs[0].kind == LOC_STORAGE && locs[1].kind == LOC_STORAGE);
          instr.kind = INSTR_MATMUL;
          kernel->mm_a = locs[0].index;
          kernel->mm_b = locs[1].index;
          kernel->m = graph_node (graph, node->args[0])->dims[0];
          kernel->k = graph_node (graph, node->args[0])->dims[1];
          kernel->n = node->dims[1];
          kernel->block_len = epilogue_rows (plan, kernel->n) * kernel->n;
          if (plan->node_storage[id] != G_MAXUINT)
            instr.dst = (Loc) { LOC_STORAGE, plan->node_storage[id] };
          else
            {
              slot_of[id] = slot_alloc (free_slots, &n_slots);
              instr.dst = (Loc) { LOC_SLOT, slot_of[id] };
            }
        }
      else if (node->op == REG_IND_OP_SUM)
        {
          instr.kind = INSTR_REDUCE;
          instr.reduce = sums->len;
          g_array_append_val (sums, plan->node_storage[id]);
        }
      else
        {
          if (REG_IND_OP_IS_UNARY (node->op))
            {
              instr.kind = INSTR_UNARY;
              instr.unary = _reg_ind_unary_fn (node->op, plan->options.vector_math);
            }
          else
            {
              instr.kind = INSTR_BINARY;
              instr.binary = _reg_ind_binary_fn (node->op);
            }

          if (plan->node_storage[id] != G_MAXUINT)
            instr.dst = (Loc) { LOC_STORAGE, plan->node_storage[id] };
          else
            {
              slot_of[id] = slot_alloc (free_slots, &n_slots);
              instr.dst = (Loc) { LOC_SLOT, slot_of[id] };
            }
        }
      g_array_append_val (instrs, instr);

      /* release the buffers read for the last time (once, if an operand
       * appears twice), and that of a value nothing reads (DCE off) */
      for (guint j = 0; j < node->n_args; j++)
        if (locs[j].kind == LOC_SLOT && last_use[node->args[j]] == p &&
            (j == 0 || node->args[1] != node->args[0]))
          g_array_append_val (free_slots, locs[j].index);
      if (instr.dst.kind == LOC_SLOT && last_use[id] == G_MAXUINT)
        g_array_append_val (free_slots, instr.dst.index);
    }

  /* every array of memory the kernel goes through, once */
  kernel->streams = g_new (guint, 3 * MAX (instrs->len, 1));
  kernel->stream_written = g_new (gboolean, 3 * MAX (instrs->len, 1));
  for (guint i = 0; i < instrs->len; i++)
    {
      const Instr *instr = &g_array_index (instrs, Instr, i);
      Loc locs[3] = { instr->dst, instr->a, instr->b };
      /* a matmul's operands are not read at the block's offset */
      guint n_locs = instr->kind == INSTR_BINARY ? 3 : instr->kind == INSTR_MATMUL ? 1 : 2;

      for (guint j = instr->kind == INSTR_REDUCE ? 1 : 0; j < n_locs; j++)
        {
          gboolean seen = FALSE;

          if (locs[j].kind != LOC_STORAGE)
            continue;
          for (guint s = 0; s < kernel->n_streams; s++)
            seen |= kernel->streams[s] == locs[j].index;
          if (!seen)
            {
              kernel->streams[kernel->n_streams] = locs[j].index;
              kernel->stream_written[kernel->n_streams++] = j == 0;
            }
        }
    }

  kernel->prefetch_from = g_new (gsize, instrs->len + 1);
  for (guint i = 0; i <= instrs->len; i++)
    kernel->prefetch_from[i] = (kernel->block_len + FLOATS_PER_LINE - 1) / FLOATS_PER_LINE *
                               i / MAX (instrs->len, 1);

  kernel->n_instrs = instrs->len;
  kernel->instrs = (Instr *) g_array_free (g_steal_pointer (&instrs), FALSE);
  kernel->n_sums = sums->len;
  kernel->sum_storage = (guint *) g_array_free (g_steal_pointer (&sums), FALSE);
  kernel->n_slots = n_slots;
  plan->max_slots = MAX (plan->max_slots, n_slots);
}

IndPlan *
_reg_ind_plan_new (IndGraph            *graph,
                   const RegIndOptions *options)
{
  IndPlan *plan = g_new0 (IndPlan, 1);
  guint n = graph->nodes->len;
  g_autofree guint *slot_of = g_new0 (guint, MAX (n, 1));
  g_autofree guint *last_use = g_new0 (guint, MAX (n, 1));
  g_autoptr(GHashTable) const_index = g_hash_table_new (NULL, NULL);

  g_assert (options->block_size > 0 && options->threads > 0);

  plan->graph = graph;
  plan->options = *options;
  plan->kernels = g_array_new (FALSE, TRUE, sizeof (Kernel));
  g_array_set_clear_func (plan->kernels, kernel_clear);
  plan->storage = g_array_new (FALSE, TRUE, sizeof (Storage));
  plan->node_storage = g_new0 (guint, MAX (n, 1));
  plan->node_kernel = g_new0 (guint, MAX (n, 1));
  plan->scratch_pool = g_ptr_array_new_with_free_func (g_aligned_free);
  g_mutex_init (&plan->pool_mutex);

  plan_assign_kernels (plan);
  plan_assign_storage (plan);

  for (guint k = 0; k < plan->kernels->len; k++)
    {
      Kernel *kernel = &g_array_index (plan->kernels, Kernel, k);

      if (kernel->kind == KERNEL_BLOCKS)
        plan_emit_blocks (plan, kernel, const_index, slot_of, last_use);
      else
        {
          guint id = g_array_index (kernel->nodes, guint, 0);
          const IndNode *node = graph_node (graph, id);
          const IndNode *a = graph_node (graph, node->args[0]);
          const IndNode *b = graph_node (graph, node->args[1]);

          g_assert (a->n_dims == 2 && b->n_dims == 2 && a->dims[1] == b->dims[0]);
          kernel->mm_a = plan->node_storage[node->args[0]];
          kernel->mm_b = plan->node_storage[node->args[1]];
          kernel->mm_c = plan->node_storage[id];
          kernel->m = a->dims[0];
          kernel->k = a->dims[1];
          kernel->n = b->dims[1];
        }
    }

  return plan;
}

void
_reg_ind_plan_free (IndPlan *plan)
{
  if (plan == NULL)
    return;

  _reg_ind_graph_free (plan->graph);
  g_array_unref (plan->kernels);
  g_array_unref (plan->storage);
  g_free (plan->node_storage);
  g_free (plan->node_kernel);
  g_free (plan->consts);
  g_ptr_array_unref (plan->scratch_pool);
  g_mutex_clear (&plan->pool_mutex);
  g_free (plan);
}

guint
_reg_ind_plan_get_n_kernels (IndPlan *plan)
{
  return plan->kernels->len;
}

IndGraph *
_reg_ind_plan_get_graph (IndPlan *plan)
{
  return plan->graph;
}

static const char *
value_name (IndPlan  *plan,
            char    **names,
            guint     id,
            char     *buf,
            gsize     size)
{
  const IndNode *node = graph_node (plan->graph, id);

  if (node->kind == REG_NODE_CONSTANT)
    {
      GString *s = g_string_new (NULL);

      append_constant (s, node->value);
      g_strlcpy (buf, s->str, size);
      g_string_free (s, TRUE);
      return buf;
    }

  return names[id];
}

char *
_reg_ind_plan_describe (IndPlan *plan)
{
  g_auto(GStrv) names = name_nodes (plan->graph);
  GString *out = g_string_new (NULL);
  char buf[2][64];

  for (guint k = 0; k < plan->kernels->len; k++)
    {
      const Kernel *kernel = &g_array_index (plan->kernels, Kernel, k);

      g_string_append_printf (out, "kernel %u: ", k);
      if (kernel->kind == KERNEL_MATMUL)
        {
          guint id = g_array_index (kernel->nodes, guint, 0);
          const IndNode *node = graph_node (plan->graph, id);

          g_string_append_printf (out, "matmul %s = %s [%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT
                                  "] x %s [%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT "]\n",
                                  names[id],
                                  value_name (plan, names, node->args[0], buf[0], sizeof buf[0]),
                                  kernel->m, kernel->k,
                                  value_name (plan, names, node->args[1], buf[1], sizeof buf[1]),
                                  kernel->k, kernel->n);
          continue;
        }

      g_string_append_printf (out, "%u op%s over %" G_GSIZE_FORMAT " element%s, %u block buffer%s:",
                              kernel->nodes->len, kernel->nodes->len == 1 ? "" : "s",
                              kernel->n_elements, kernel->n_elements == 1 ? "" : "s",
                              kernel->n_slots, kernel->n_slots == 1 ? "" : "s");
      for (guint j = 0; j < kernel->nodes->len; j++)
        {
          guint id = g_array_index (kernel->nodes, guint, j);
          const IndNode *node = graph_node (plan->graph, id);

          g_string_append_printf (out, " %s%s=%s(", plan->node_storage[id] != G_MAXUINT ? "*" : "",
                                  names[id], _reg_ind_op_name (node->op));
          for (guint a = 0; a < node->n_args; a++)
            g_string_append_printf (out, "%s%s", a > 0 ? "," : "",
                                    value_name (plan, names, node->args[a], buf[0], sizeof buf[0]));
          g_string_append_c (out, ')');
        }
      g_string_append_c (out, '\n');
    }

  return g_string_free (out, FALSE);
}

/* Running ------------------------------------------------------------- */

typedef struct
{
  GMutex mutex;
  GCond  cond;
  guint  pending;
} Sync;

typedef struct
{
  const IndPlan *plan;
  const Kernel  *kernel;
  float * const *bufs;
  float         *scratch;
  gsize          begin, end;   /* blocks, or rows for matmul */
  double        *sums;         /* n_sums partial sums of this job */
  Sync          *sync;
} Job;

static inline float *
resolve (const IndPlan *plan,
         float * const *bufs,
         float         *scratch,
         Loc            loc,
         gsize          offset)
{
  gsize b = plan->options.block_size;

  switch (loc.kind)
    {
    case LOC_STORAGE:
      return bufs[loc.index] + offset;
    case LOC_SLOT:
      return scratch + (gsize) loc.index * b;
    case LOC_CONST:
      return plan->consts + (gsize) loc.index * b;
    default:
      g_assert_not_reached ();
    }
}

/* Prefetching.  Each block first waits for its inputs to come from
 * memory, then computes (the exp, tanh, divisions...) while memory idles:
 * the hardware prefetchers run only a few lines ahead of the demand.  So
 * the lines of the next block are prefetched in slices, one before each
 * instruction of the current block, and arrive while it computes; with
 * small blocks the slices stay small enough not to stall on the line fill
 * buffers.  Prefetches never fault, but the slices stay within each
 * array. */
static inline void
prefetch_slice (const Kernel  *kernel,
                float * const *bufs,
                gsize          offset,
                gsize          line_begin,
                gsize          line_end)
{
  for (guint s = 0; s < kernel->n_streams; s++)
    {
      const float *base = bufs[kernel->streams[s]] + offset;

      if (kernel->stream_written[s])
        for (gsize l = line_begin; l < line_end; l++)
          __builtin_prefetch (base + l * FLOATS_PER_LINE, 1, 3);
      else
        for (gsize l = line_begin; l < line_end; l++)
          __builtin_prefetch (base + l * FLOATS_PER_LINE, 0, 3);
    }
}

static void
job_run (Job *job)
{
  const IndPlan *plan = job->plan;
  const Kernel *kernel = job->kernel;

  if (kernel->kind == KERNEL_MATMUL)
    {
      _reg_ind_matmul_rows (job->bufs[kernel->mm_a], job->bufs[kernel->mm_b],
                            job->bufs[kernel->mm_c] + job->begin * kernel->n,
                            job->begin, job->end, kernel->k, kernel->n);
      return;
    }

  for (gsize block = job->begin; block < job->end; block++)
    {
      gsize offset = block * kernel->block_len;
      gsize len = MIN (kernel->block_len, kernel->n_elements - offset);
      gsize next = offset + kernel->block_len;
      gsize next_lines = 0;

      /* the lines of the next block of this job, a slice before each
       * instruction */
      if (block + 1 < job->end)
        next_lines = (MIN (kernel->block_len, kernel->n_elements - next) +
                      FLOATS_PER_LINE - 1) / FLOATS_PER_LINE;

      for (guint i = 0; i < kernel->n_instrs; i++)
        {
          const Instr *instr = &kernel->instrs[i];
          const float *a = instr->kind == INSTR_MATMUL
                           ? NULL : resolve (plan, job->bufs, job->scratch, instr->a, offset);

          if (next_lines > 0)
            prefetch_slice (kernel, job->bufs, next,
                            MIN (kernel->prefetch_from[i], next_lines),
                            MIN (kernel->prefetch_from[i + 1], next_lines));

          switch (instr->kind)
            {
            case INSTR_UNARY:
              instr->unary (resolve (plan, job->bufs, job->scratch, instr->dst, offset), a, len);
              break;
            case INSTR_BINARY:
              instr->binary (resolve (plan, job->bufs, job->scratch, instr->dst, offset), a,
                             resolve (plan, job->bufs, job->scratch, instr->b, offset), len);
              break;
            case INSTR_REDUCE:
              job->sums[instr->reduce] += _reg_ind_sum (a, len);
              break;
            case INSTR_MATMUL:
              /* a block is whole rows of the product */
              _reg_ind_matmul_rows (job->bufs[kernel->mm_a], job->bufs[kernel->mm_b],
                                    resolve (plan, job->bufs, job->scratch, instr->dst, offset),
                                    offset / kernel->n, (offset + len) / kernel->n,
                                    kernel->k, kernel->n);
              break;
            default:
              g_assert_not_reached ();
            }
        }
    }
}

static void
pool_func (gpointer data,
           gpointer user_data)
{
  Job *job = data;
  Sync *sync = job->sync;

  job_run (job);

  g_mutex_lock (&sync->mutex);
  if (--sync->pending == 0)
    g_cond_signal (&sync->cond);
  g_mutex_unlock (&sync->mutex);
}

/* One pool for the process: its threads never wait for anything, so jobs
 * of concurrent calls cannot deadlock however many there are. */
static GThreadPool *
get_pool (void)
{
  static GThreadPool *pool;

  if (g_once_init_enter (&pool))
    g_once_init_leave (&pool, g_thread_pool_new (pool_func, NULL, -1, FALSE, NULL));

  return pool;
}

/* Runs jobs[0] here and the others on the pool, and returns when all are
 * done. */
static void
run_jobs (Job   *jobs,
          guint  n_jobs)
{
  Sync sync;

  if (n_jobs == 1)
    {
      job_run (&jobs[0]);
      return;
    }

  g_mutex_init (&sync.mutex);
  g_cond_init (&sync.cond);
  sync.pending = n_jobs - 1;

  for (guint t = 1; t < n_jobs; t++)
    {
      jobs[t].sync = &sync;
      g_thread_pool_push (get_pool (), &jobs[t], NULL);
    }
  job_run (&jobs[0]);

  g_mutex_lock (&sync.mutex);
  while (sync.pending > 0)
    g_cond_wait (&sync.cond, &sync.mutex);
  g_mutex_unlock (&sync.mutex);

  g_mutex_clear (&sync.mutex);
  g_cond_clear (&sync.cond);
}

static void
run_kernel (const IndPlan *plan,
            const Kernel  *kernel,
            float * const *bufs,
            float        **scratch)
{
  guint threads = plan->options.threads;
  gsize units, per_thread_min;
  Job jobs[threads];
  double sums[threads][MAX (kernel->n_sums, 1)];
  guint n_jobs;

  if (kernel->kind == KERNEL_MATMUL)
    {
      /* whole 4-row tiles per thread */
      units = (kernel->m + 3) / 4;
      per_thread_min = MAX (1, MIN_FLOPS_PER_THREAD / MAX (1, 4 * kernel->k * kernel->n));
    }
  else if (kernel->mm_node != G_MAXUINT)
    {
      /* blocks of whole rows: counted as multiply-adds */
      units = (kernel->n_elements + kernel->block_len - 1) / kernel->block_len;
      per_thread_min = MAX (1, MIN_FLOPS_PER_THREAD / MAX (1, kernel->block_len * kernel->k));
    }
  else
    {
      gsize b = kernel->block_len;

      units = (kernel->n_elements + b - 1) / b;
      per_thread_min = MAX (1, MIN_ELEMENTS_PER_THREAD / b);
    }

  n_jobs = (guint) MIN ((gsize) threads, MAX (1, units / per_thread_min));
  memset (sums, 0, sizeof sums);

  for (guint t = 0; t < n_jobs; t++)
    {
      jobs[t] = (Job) {
        .plan = plan,
        .kernel = kernel,
        .bufs = bufs,
        .scratch = scratch[t],
        .begin = units * t / n_jobs,
        .end = units * (t + 1) / n_jobs,
        .sums = sums[t],
      };
      if (kernel->kind == KERNEL_MATMUL)
        {
          jobs[t].begin = MIN (jobs[t].begin * 4, kernel->m);
          jobs[t].end = MIN (jobs[t].end * 4, kernel->m);
        }
    }

  run_jobs (jobs, n_jobs);

  /* partial sums combined in a fixed order: a thread count gives the same
   * result every time */
  for (guint r = 0; r < kernel->n_sums; r++)
    {
      double total = 0.0;

      for (guint t = 0; t < n_jobs; t++)
        total += sums[t][r];
      bufs[kernel->sum_storage[r]][0] = (float) total;
    }
}

GPtrArray *
_reg_ind_plan_run (IndPlan    *plan,
                   GPtrArray  *inputs,
                   GError    **error)
{
  IndGraph *graph = plan->graph;
  guint n_storage = plan->storage->len;
  guint threads = plan->options.threads;
  gsize scratch_floats = (gsize) plan->max_slots * plan->options.block_size;
  g_autofree float **bufs = g_new0 (float *, MAX (n_storage, 1));
  g_autofree RegTensor **tensors = g_new0 (RegTensor *, MAX (n_storage, 1));
  g_autofree RegTensor **given = g_new0 (RegTensor *, MAX (n_storage, 1));
  g_autofree float **scratch = g_new0 (float *, threads);
  GPtrArray *results;

  if (inputs->len != graph->n_inputs)
    {
      g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_BAD_INPUTS,
                   "inductor: the graph takes %u inputs, got %u",
                   graph->n_inputs, inputs->len);
      return NULL;
    }

  for (guint s = 0; s < n_storage; s++)
    {
      const Storage *storage = &g_array_index (plan->storage, Storage, s);
      const IndNode *node = graph_node (graph, storage->node);

      switch (storage->kind)
        {
        case STORAGE_INPUT:
          bufs[s] = reg_tensor_get_data (g_ptr_array_index (inputs, node->input_index), NULL);
          break;
        case STORAGE_OUTPUT:
        case STORAGE_TEMP:
          /* every element is written by the kernel that produces it; a
           * temporary is a tensor too, so that a large one is recycled by
           * the next call (reg-storage.c) rather than faulted in anew */
          tensors[s] = reg_tensor_try_new_uninitialized (node->dims, node->n_dims, error);
          if (tensors[s] == NULL)
            {
              g_prefix_error (error, "inductor: node %u: ", node->orig);
              for (guint t = 0; t < s; t++)
                g_clear_object (&tensors[t]);
              return NULL;
            }
          bufs[s] = reg_tensor_get_data (tensors[s], NULL);
          break;
        default:
          g_assert_not_reached ();
        }
    }

  /* block buffers: one set per thread, from the pool */
  if (scratch_floats > 0)
    {
      g_mutex_lock (&plan->pool_mutex);
      for (guint t = 0; t < threads; t++)
        if (plan->scratch_pool->len > 0)
          scratch[t] = g_ptr_array_steal_index_fast (plan->scratch_pool,
                                                     plan->scratch_pool->len - 1);
      g_mutex_unlock (&plan->pool_mutex);

      for (guint t = 0; t < threads; t++)
        if (scratch[t] == NULL)
          scratch[t] = g_aligned_alloc (scratch_floats, sizeof (float), 64);
    }

  for (guint k = 0; k < plan->kernels->len; k++)
    run_kernel (plan, &g_array_index (plan->kernels, Kernel, k), bufs, scratch);

  if (scratch_floats > 0)
    {
      g_mutex_lock (&plan->pool_mutex);
      for (guint t = 0; t < threads; t++)
        g_ptr_array_add (plan->scratch_pool, scratch[t]);
      g_mutex_unlock (&plan->pool_mutex);
    }

  /* The caller owns the results: an input, a constant or a value returned
   * twice is a fresh copy. */
  results = g_ptr_array_new_full (graph->n_outputs, NULL);
  for (guint i = 0; i < graph->n_outputs; i++)
    {
      guint id = graph->outputs[i];
      const IndNode *node = graph_node (graph, id);
      guint s = plan->node_storage[id];

      if (node->kind == REG_NODE_CONSTANT)
        {
          RegTensor *value = reg_tensor_new (NULL, 0);

          reg_tensor_get_data (value, NULL)[0] = node->value;
          g_ptr_array_add (results, value);
        }
      else if (node->kind == REG_NODE_INPUT)
        g_ptr_array_add (results, reg_tensor_copy (g_ptr_array_index (inputs, node->input_index)));
      else if (given[s] == NULL)
        {
          /* the results own it from here; given[] only borrows it */
          given[s] = g_steal_pointer (&tensors[s]);
          g_ptr_array_add (results, given[s]);
        }
      else
        g_ptr_array_add (results, reg_tensor_copy (given[s]));
    }

  for (guint s = 0; s < n_storage; s++)
    g_clear_object (&tensors[s]);

  return results;
}
