/* reg-inductor-plan.c: graph passes, kernel plans and their execution
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See reg-inductor-plan.h for the three steps and docs/inductor.md for the
 * design.
 */

#include <math.h>
#include <string.h>

#include "reg-inductor-gemm.h"
#include "reg-inductor-parallel.h"
#include "reg-inductor-plan.h"

/* The cost model of threads (docs/inductor.md, "Threads").  A kernel is cut
 * into chunks that threads take one at a time (reg-inductor-parallel.h):
 * a chunk of an elementwise kernel is at least CHUNK_WORK elements times
 * instructions (tens of microseconds on one core), a chunk of a product at
 * least CHUNK_MADDS multiply-adds of the in-tree loops.  Fewer threads than
 * asked run an elementwise kernel whose threads would get less than
 * MIN_WORKER_CHUNKS chunks each, and a product whose threads would get
 * less than MIN_WORKER_MADDS each.  Below these, waking a thread (tens of
 * microseconds) and moving the operands to its cache cost more than the
 * thread saves: with smaller chunks, or one chunk per thread, 2 threads
 * made such calls slower than one (`bench-inductor --sweep` shows the
 * ratio at each size, benchmarks/README.md). */
#define CHUNK_WORK        (1 << 20)
#define MIN_WORKER_CHUNKS 2
#define CHUNK_MADDS       (1 << 20)
#define MIN_WORKER_MADDS  (1 << 24)

/* A product computed by sgemm goes in panels of rows.  Each sgemm packs
 * all of B again, which costs about 6/rows of its time, so a panel has at
 * least BLAS_MIN_PANEL_ROWS rows (2.5%) unless the rows must be shared
 * among threads; its epilogue runs on the panel right after it, in cache
 * when the panel takes at most PANEL_BYTES.  A wider product is computed
 * whole (or one part per thread) and the epilogue then makes one pass
 * over it. */
/* The in-tree loops pack nothing, so their chunks can be small: a product
 * shared among threads is cut into at least this many per thread. */
#define IN_TREE_CHUNKS_PER_WORKER 4

#define BLAS_MIN_PANEL_ROWS 256
#define PANEL_BYTES         (512 * 1024)

/* Floats in a cache line (64 bytes), the unit of prefetching. */
#define FLOATS_PER_LINE 16

/* Operators ----------------------------------------------------------- */

/* The operators this module was built with: a graph may hold one that
 * libreg added later.  No default, so the compiler flags a RegOp left out
 * here; the loops of each are in reg-inductor-kernels.c. */
static gboolean
op_is_supported (RegOp op)
{
  switch (op)
    {
    case REG_OP_ADD:
    case REG_OP_SUB:
    case REG_OP_MUL:
    case REG_OP_DIV:
    case REG_OP_MAXIMUM:
    case REG_OP_MINIMUM:
    case REG_OP_NEG:
    case REG_OP_RELU:
    case REG_OP_EXP:
    case REG_OP_LOG:
    case REG_OP_SQRT:
    case REG_OP_TANH:
    case REG_OP_SIGMOID:
    case REG_OP_ABS:
    case REG_OP_SUM:
    case REG_OP_MATMUL:
      return TRUE;
    }

  return FALSE;
}

static gboolean
op_is_commutative (RegOp op)
{
  return op == REG_OP_ADD || op == REG_OP_MUL ||
         op == REG_OP_MAXIMUM || op == REG_OP_MINIMUM;
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
  RegOp       op;
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
       RegOp     op)
{
  const IndNode *node = graph_node (b->graph, id);

  return node->kind == REG_NODE_OP && node->op == op;
}

#define BITS_ONE      0x3f800000u
#define BITS_PLUS_0   0x00000000u
#define BITS_MINUS_0  0x80000000u

static guint builder_op (Builder       *b,
                         RegOp          op,
                         const guint   *args,
                         const IndNode *like);

/* Algebraic simplifications that give the same float for every input,
 * NaN, infinities and signed zeros included (docs/inductor.md lists those
 * left out on purpose, such as x + 0, x * 0 and x - x).  Returns the node
 * that replaces op(args), or G_MAXUINT. */
static guint
simplify (Builder       *b,
          RegOp          op,
          const guint   *args,
          const IndNode *like)
{
  guint x = args[0], y = args[1];

  switch (op)
    {
    case REG_OP_NEG:
      /* -(-x) flips the sign bit twice */
      if (is_op (b, x, REG_OP_NEG))
        return graph_node (b->graph, x)->args[0];
      break;

    case REG_OP_ABS:
      if (is_op (b, x, REG_OP_ABS))
        return x;
      /* |-x| = |x|: both clear the sign bit */
      if (is_op (b, x, REG_OP_NEG))
        return builder_op (b, REG_OP_ABS,
                           (guint[]) { graph_node (b->graph, x)->args[0], 0 }, like);
      break;

    case REG_OP_RELU:
      if (is_op (b, x, REG_OP_RELU))
        return x;
      break;

    case REG_OP_MUL:
      /* x * 1 = x for every x (a NaN stays NaN) */
      if (is_constant (b, y, BITS_ONE))
        return x;
      if (is_constant (b, x, BITS_ONE))
        return y;
      break;

    case REG_OP_DIV:
      if (is_constant (b, y, BITS_ONE))
        return x;
      break;

    case REG_OP_ADD:
      /* x + (-0) = x, even for x = +0 or -0; x + (+0) is not (-0 + 0 = +0) */
      if (is_constant (b, y, BITS_MINUS_0))
        return x;
      if (is_constant (b, x, BITS_MINUS_0))
        return y;
      break;

    case REG_OP_SUB:
      /* x - (+0) = x + (-0) = x */
      if (is_constant (b, y, BITS_PLUS_0))
        return x;
      break;

    case REG_OP_MAXIMUM:
    case REG_OP_MINIMUM:
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
            RegOp          op,
            const guint   *args,
            const IndNode *like)
{
  guint n_args = reg_op_get_arity (op);
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
      if (all_constant && op != REG_OP_MATMUL)
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
_reg_ind_graph_new (RegGraph      *source,
                    RegShapeList  *shapes,
                    guint          passes,
                    GError       **error)
{
  guint n = reg_graph_get_n_nodes (source);
  g_autofree guint *map = g_new (guint, MAX (n, 1));
  g_autofree guint *input_index = g_new (guint, MAX (n, 1));
  const guint *inputs, *outputs;
  guint n_inputs, n_outputs;
  Builder b = { 0 };

  g_return_val_if_fail (reg_shape_list_get_n_shapes (shapes) == n, NULL);

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
      guint n_dims;
      const gint64 *dims = reg_shape_list_get_shape (shapes, i, &n_dims);
      IndNode like = { 0 };

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
            RegOp op = reg_graph_get_node_operator (source, i);
            const guint *args;
            guint n_args, mapped[2] = { 0, 0 };

            if (!op_is_supported (op))
              {
                g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP,
                             "inductor: node %u calls '%s', which this backend does not support",
                             i, reg_graph_get_node_op (source, i));
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

/* Node names for the optimized graph and the plan's description: the
 * source's where it had one (inputs always do), `_N` otherwise, made
 * unique. */
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

/* The node of @out for the operand @id of the optimized graph: a constant
 * becomes a node of its own each time it is used, as parsing the text form
 * makes them, so the graph is the one its text reads back as. */
static guint
build_operand (RegGraph    *out,
               IndGraph    *graph,
               const guint *ids,
               guint        id)
{
  const IndNode *node = graph_node (graph, id);

  if (node->kind == REG_NODE_CONSTANT)
    return reg_graph_add_constant (out, node->value);

  return ids[id];
}

RegGraph *
_reg_ind_graph_to_reg_graph (IndGraph  *graph,
                             GError   **error)
{
  g_auto(GStrv) names = name_nodes (graph);
  g_autofree guint *ids = g_new (guint, MAX (graph->nodes->len, 1));
  g_autofree guint *outputs = g_new (guint, MAX (graph->n_outputs, 1));
  g_autoptr(RegGraph) out = reg_graph_new ();

  for (guint i = 0; i < graph->nodes->len; i++)
    {
      const IndNode *node = graph_node (graph, i);

      ids[i] = REG_GRAPH_INVALID_NODE;
      if (node->kind == REG_NODE_INPUT)
        ids[i] = reg_graph_add_input (out, names[i]);
    }

  for (guint i = 0; i < graph->nodes->len; i++)
    {
      const IndNode *node = graph_node (graph, i);
      guint args[2];

      if (node->kind != REG_NODE_OP)
        continue;

      for (guint j = 0; j < node->n_args; j++)
        args[j] = build_operand (out, graph, ids, node->args[j]);
      ids[i] = reg_graph_add_op (out, reg_op_get_name (node->op), args, node->n_args, error);
      if (ids[i] == REG_GRAPH_INVALID_NODE ||
          !reg_graph_set_node_name (out, ids[i], names[i], error))
        return NULL;
    }

  for (guint i = 0; i < graph->n_outputs; i++)
    outputs[i] = build_operand (out, graph, ids, graph->outputs[i]);
  reg_graph_set_outputs (out, outputs, graph->n_outputs);

  /* Input names are checked by the builder without a GError of their own */
  if (!reg_graph_validate (out, error))
    return NULL;

  return g_steal_pointer (&out);
}

/* Plans --------------------------------------------------------------- */

/* Where an instruction's operand lives during a block: a value in memory
 * (an input, an output or a temporary, read at the block's offset), a
 * block buffer, a constant's block-long broadcast buffer, or the panel
 * that holds the rows of the kernel's product being worked on. */
typedef enum {
  LOC_STORAGE,
  LOC_SLOT,
  LOC_CONST,
  LOC_PANEL,
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
} InstrKind;

typedef struct
{
  InstrKind      kind;
  RegOp          op;
  Loc            dst, a, b;
  RegIndUnaryFn  unary;
  RegIndBinaryFn binary;
  guint          reduce;     /* INSTR_REDUCE: index into the kernel's sums */
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
  gsize      block_len;       /* elements per block: block-size */
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

  /* KERNEL_MATMUL, and KERNEL_BLOCKS that begin with a matmul (their
   * product is computed panel by panel before the block instructions run
   * on it; mm_dst says where: its memory, or LOC_PANEL) */
  guint      mm_a, mm_b, mm_c;
  gsize      m, k, n;
  guint      mm_node;         /* G_MAXUINT: none */
  Loc        mm_dst;
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

  /* The per-thread buffers (Scratch) of finished calls, reused by later
   * ones. */
  GMutex         pool_mutex;
  GPtrArray     *scratch_pool;
};

static void scratch_free (gpointer data);

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

/* The rows of a panel of the in-tree loops, for a product of @n columns:
 * as many 4-row tiles as fit in a block of block-size elements, at least
 * one, so that the epilogue reads the panel from L1. */
static gsize
intree_panel_rows (const IndPlan *plan,
                   gsize          n)
{
  gsize rows = n > 0 ? plan->options.block_size / n : 0;

  if (rows >= 4)
    return rows & ~(gsize) 3;
  return MAX ((PANEL_BYTES / 2 / (MAX (n, 1) * sizeof (float))) & ~(gsize) 3, 4);
}

/* Epilogue fusion.  The elementwise kernel that reads a matmul's result
 * (same stage, same element count: the bias, the activation, a sum...)
 * takes the matmul in: the kernel computes the product a panel of rows at
 * a time, then its block instructions on those rows while they are in
 * cache.  The product then lives in memory only if something else needs
 * it.  Runs on the kernels in the order they were made; a kernel takes
 * one matmul (any others it reads, of the same stage, run before it). */
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
          kernel.kind = node->op == REG_OP_MATMUL ? KERNEL_MATMUL : KERNEL_BLOCKS;
          kernel.stage = i;
          kernel.first_node = i;
          kernel.n_elements = node->op == REG_OP_SUM
                              ? graph_node (graph, node->args[0])->n_elements
                              : node->n_elements;
          kernel.nodes = g_array_new (FALSE, FALSE, sizeof (guint));
          g_array_append_val (kernel.nodes, i);
          g_array_append_val (plan->kernels, kernel);
          plan->node_kernel[i] = plan->kernels->len - 1;
          stage[i] = i;
          continue;
        }

      if (node->op == REG_OP_MATMUL)
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

      if (node->op == REG_OP_SUM)
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

      if (is_output[i] || node->op == REG_OP_SUM ||
          (node->op == REG_OP_MATMUL &&
           g_array_index (plan->kernels, Kernel, plan->node_kernel[i]).kind == KERNEL_MATMUL))
        in_memory[i] = TRUE;

      for (guint j = 0; j < node->n_args; j++)
        {
          guint arg = node->args[j];

          if (graph_node (graph, arg)->kind == REG_NODE_OP &&
              (node->op == REG_OP_MATMUL ||
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
          else if (arg == kernel->mm_node)
            locs[j] = (Loc) { LOC_PANEL, 0 };
          else
            locs[j] = (Loc) { LOC_SLOT, slot_of[arg] };
        }

      instr.op = node->op;
      instr.a = locs[0];
      instr.b = locs[1];

      if (node->op == REG_OP_MATMUL)
        {
          /* the product of a kernel fused with its epilogue: computed a
           * panel at a time before the instructions, not one of them */
          g_assert (p == 0 && locs[0].kind == LOC_STORAGE && locs[1].kind == LOC_STORAGE);
          kernel->mm_a = locs[0].index;
          kernel->mm_b = locs[1].index;
          kernel->m = graph_node (graph, node->args[0])->dims[0];
          kernel->k = graph_node (graph, node->args[0])->dims[1];
          kernel->n = node->dims[1];
          if (plan->node_storage[id] != G_MAXUINT)
            kernel->mm_dst = (Loc) { LOC_STORAGE, plan->node_storage[id] };
          else
            kernel->mm_dst = (Loc) { LOC_PANEL, 0 };
          continue;
        }
      else if (node->op == REG_OP_SUM)
        {
          instr.kind = INSTR_REDUCE;
          instr.reduce = sums->len;
          g_array_append_val (sums, plan->node_storage[id]);
        }
      else
        {
          if (reg_op_get_kind (node->op) == REG_OP_KIND_ELEMENTWISE_UNARY)
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
      guint n_locs = instr->kind == INSTR_BINARY ? 3 : 2;

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
  plan->scratch_pool = g_ptr_array_new_with_free_func (scratch_free);
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
                                  names[id], reg_op_get_name (node->op));
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

/* The buffers of one thread of a call, pooled in the plan between calls:
 * the block buffers (max_slots blocks of block-size floats), and a panel
 * for rows of a product that has no memory of its own (grown on demand,
 * at most PANEL_BYTES or one in-tree panel). */
typedef struct
{
  float *slots;
  float *panel;
  gsize  panel_floats;
} Scratch;

static void
scratch_free (gpointer data)
{
  Scratch *scratch = data;

  g_aligned_free (scratch->slots);
  g_aligned_free (scratch->panel);
  g_free (scratch);
}

static float *
scratch_get_panel (Scratch *scratch,
                   gsize    n_floats)
{
  if (scratch->panel_floats < n_floats)
    {
      g_aligned_free (scratch->panel);
      scratch->panel = g_aligned_alloc (n_floats, sizeof (float), 64);
      scratch->panel_floats = n_floats;
    }

  return scratch->panel;
}

/* One kernel of one call, shared by the threads that run its chunks. */
typedef struct
{
  const IndPlan  *plan;
  const Kernel   *kernel;
  float * const  *bufs;
  Scratch       **scratch;       /* per worker */
  double         *chunk_sums;    /* n_sums per chunk, combined in order */
  RegIndGemmMode  mode;
  gboolean        product_done;  /* the product is computed: chunks are
                                  * blocks of the epilogue */
  gsize           chunk_len;     /* blocks per chunk, or rows of the
                                  * product per chunk */
  gsize           panel_rows;    /* rows of the product per panel */
  float          *product;       /* the whole product, when its rows are
                                  * not kept in per-thread panels */
  GCancellable   *cancellable;   /* the caller's current one, or NULL */
} Run;

static inline float *
resolve (const Run *run,
         float     *slots,
         float     *panel,
         gsize      panel_offset,
         Loc        loc,
         gsize      offset)
{
  gsize b = run->plan->options.block_size;

  switch (loc.kind)
    {
    case LOC_STORAGE:
      return run->bufs[loc.index] + offset;
    case LOC_SLOT:
      return slots + (gsize) loc.index * b;
    case LOC_CONST:
      return run->plan->consts + (gsize) loc.index * b;
    case LOC_PANEL:
      return panel + (offset - panel_offset);
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

/* The block instructions on elements [@begin, @end), block by block; the
 * kernel's product, if it has no memory of its own, is read from @panel,
 * which holds the elements from @panel_offset on. */
static void
run_blocks (const Run *run,
            Scratch   *scratch,
            float     *panel,
            gsize      panel_offset,
            gsize      begin,
            gsize      end,
            double    *sums)
{
  const Kernel *kernel = run->kernel;
  float * const *bufs = run->bufs;

  for (gsize offset = begin; offset < end; offset += kernel->block_len)
    {
      gsize len = MIN (kernel->block_len, end - offset);
      gsize next = offset + len;
      gsize next_lines = 0;

      /* the lines of the next block of this run, a slice before each
       * instruction */
      if (next < end)
        next_lines = (MIN (kernel->block_len, end - next) + FLOATS_PER_LINE - 1) /
                     FLOATS_PER_LINE;

      for (guint i = 0; i < kernel->n_instrs; i++)
        {
          const Instr *instr = &kernel->instrs[i];
          const float *a = resolve (run, scratch->slots, panel, panel_offset, instr->a, offset);

          if (next_lines > 0)
            prefetch_slice (kernel, bufs, next,
                            MIN (kernel->prefetch_from[i], next_lines),
                            MIN (kernel->prefetch_from[i + 1], next_lines));

          switch (instr->kind)
            {
            case INSTR_UNARY:
              instr->unary (resolve (run, scratch->slots, panel, panel_offset, instr->dst, offset),
                            a, len);
              break;
            case INSTR_BINARY:
              instr->binary (resolve (run, scratch->slots, panel, panel_offset, instr->dst, offset),
                             a, resolve (run, scratch->slots, panel, panel_offset, instr->b, offset),
                             len);
              break;
            case INSTR_REDUCE:
              sums[instr->reduce] += _reg_ind_sum (a, len);
              break;
            default:
              g_assert_not_reached ();
            }
        }
    }
}

/* Where rows [r0, ...) of the kernel's product go, and the panel and
 * offset its epilogue reads them from. */
static float *
product_rows (const Run *run,
              Scratch   *scratch,
              gsize      r0,
              gsize      rows,
              float    **panel,
              gsize     *panel_offset)
{
  const Kernel *kernel = run->kernel;
  float *whole = NULL;

  if (kernel->kind == KERNEL_MATMUL)
    whole = run->bufs[kernel->mm_c];
  else if (kernel->mm_dst.kind == LOC_STORAGE)
    whole = run->bufs[kernel->mm_dst.index];
  else
    whole = run->product;

  if (whole != NULL)
    {
      *panel = whole;
      *panel_offset = 0;
      return whole + r0 * kernel->n;
    }

  *panel = scratch_get_panel (scratch, rows * kernel->n);
  *panel_offset = r0 * kernel->n;
  return *panel;
}

static void
run_chunk (gpointer data,
           gsize    chunk,
           guint    worker)
{
  const Run *run = data;
  const Kernel *kernel = run->kernel;
  Scratch *scratch = run->scratch[worker];
  double *sums = run->chunk_sums != NULL ? run->chunk_sums + chunk * kernel->n_sums : NULL;

  /* A cancelled call skips its remaining chunks: the caller reports it. */
  if (g_cancellable_is_cancelled (run->cancellable))
    return;

  if (kernel->mm_node == G_MAXUINT && kernel->kind == KERNEL_BLOCKS)
    {
      gsize begin = chunk * run->chunk_len * kernel->block_len;
      gsize end = MIN (kernel->n_elements, begin + run->chunk_len * kernel->block_len);

      run_blocks (run, scratch, NULL, 0, begin, end, sums);
      return;
    }

  if (run->product_done)
    {
      /* the epilogue of a product computed beforehand, in blocks */
      gsize begin = chunk * run->chunk_len * kernel->block_len;
      gsize end = MIN (kernel->n_elements, begin + run->chunk_len * kernel->block_len);

      run_blocks (run, scratch, run->product, 0, begin, end, sums);
      return;
    }

  /* rows of the product, a panel at a time, each followed by the
   * epilogue on its rows */
  for (gsize r0 = chunk * run->chunk_len;
       r0 < MIN (kernel->m, (chunk + 1) * run->chunk_len);
       r0 += run->panel_rows)
    {
      gsize r1 = MIN (MIN (kernel->m, (chunk + 1) * run->chunk_len), r0 + run->panel_rows);
      float *panel;
      gsize panel_offset;
      float *c = product_rows (run, scratch, r0, r1 - r0, &panel, &panel_offset);

      _reg_ind_gemm_rows (run->mode, run->bufs[kernel->mm_a], run->bufs[kernel->mm_b], c,
                          r0, r1, kernel->k, kernel->n);
      if (kernel->kind == KERNEL_BLOCKS)
        run_blocks (run, scratch, panel, panel_offset, r0 * kernel->n, r1 * kernel->n, sums);
    }
}

static gsize
div_up (gsize a,
        gsize b)
{
  return a / b + (a % b != 0);
}

/* How a product's rows are cut (the cost model of the header): sets
 * run->chunk_len (rows per chunk) and run->panel_rows, returns the threads
 * worth using. */
static guint
plan_product (Run   *run,
              guint  threads)
{
  const Kernel *kernel = run->kernel;
  gsize m = kernel->m;
  /* in double: the cost model needs no exact figure, and k n (m k n) of
   * any tensors that fit in memory do not overflow it */
  double row_madds = MAX ((double) kernel->k * kernel->n, 1.0);
  double total = m * row_madds;
  guint workers;

  /* no thread gets less than MIN_WORKER_MADDS */
  workers = (guint) CLAMP (total / MIN_WORKER_MADDS, 1.0, (double) threads);

  if (run->mode == REG_IND_GEMM_IN_TREE)
    {
      /* panels in L1, chunks of whole panels */
      run->panel_rows = intree_panel_rows (run->plan, kernel->n);
      run->chunk_len = (gsize) MAX (ceil (CHUNK_MADDS / row_madds), 1.0);
      run->chunk_len = MIN (run->chunk_len, MAX (m, 1));
      run->chunk_len = div_up (run->chunk_len, run->panel_rows) * run->panel_rows;
      /* panels in L2 can hold a whole product: then smaller ones, at
       * least IN_TREE_CHUNKS_PER_WORKER per thread, so that a thread that
       * is late or slowed down holds up the call by one small chunk only */
      if (workers > 1 && div_up (m, run->chunk_len) < (gsize) workers * IN_TREE_CHUNKS_PER_WORKER)
        {
          run->panel_rows = MAX (div_up (div_up (m, (gsize) workers * IN_TREE_CHUNKS_PER_WORKER),
                                         4) * 4, 4);
          run->chunk_len = run->panel_rows;
        }
    }
  else
    {
      /* one sgemm per chunk: panels that keep the product in cache if
       * they are tall enough to pay for packing B, else the whole
       * product, and in any case one part per thread at least */
      gsize cache_rows = PANEL_BYTES / (MAX (kernel->n, 1) * sizeof (float));

      run->chunk_len = cache_rows >= BLAS_MIN_PANEL_ROWS ? cache_rows : MAX (m, 1);
      if (workers > 1 && div_up (m, run->chunk_len) < workers)
        run->chunk_len = MAX (div_up (m, workers), 1);
      run->panel_rows = run->chunk_len;
    }

  return (guint) MIN ((gsize) workers, MAX (div_up (m, run->chunk_len), 1));
}

/* The temporary that holds the whole product of @kernel's matmul.  Its
 * size comes from the caller's inputs, so memory may be short: NULL and
 * REG_TENSOR_ERROR_NO_MEMORY naming the node then. */
static RegTensor *
new_product (const IndPlan  *plan,
             const Kernel   *kernel,
             GError        **error)
{
  RegTensor *product;

  product = reg_tensor_try_new_uninitialized ((const gint64[]) { kernel->m, kernel->n }, 2, error);
  if (product == NULL)
    g_prefix_error (error, "inductor: node %u: ", graph_node (plan->graph, kernel->mm_node)->orig);

  return product;
}

/* Runs one kernel; fails only when a temporary cannot be allocated. */
static gboolean
run_kernel (const IndPlan  *plan,
            const Kernel   *kernel,
            float * const  *bufs,
            Scratch       **scratch,
            RegIndGemmMode  mode,
            GCancellable   *cancellable,
            GError        **error)
{
  guint threads = plan->options.threads;
  Run run = {
    .plan = plan,
    .kernel = kernel,
    .bufs = bufs,
    .scratch = scratch,
    .mode = mode,
    .cancellable = cancellable,
  };
  g_autoptr(RegTensor) product = NULL;
  g_autofree double *chunk_sums = NULL;
  gsize n_chunks;
  guint workers;
  gboolean has_product = kernel->kind == KERNEL_MATMUL || kernel->mm_node != G_MAXUINT;

  if (has_product && !_reg_ind_gemm_fits_blas (kernel->m, kernel->k, kernel->n))
    run.mode = mode = REG_IND_GEMM_IN_TREE;
  if (has_product && mode == REG_IND_GEMM_BLAS_THREADED &&
      (double) kernel->m * kernel->k * kernel->n < REG_IND_GEMM_THREADED_MIN_MADDS)
    run.mode = mode = REG_IND_GEMM_IN_TREE;

  if (has_product && mode == REG_IND_GEMM_BLAS_THREADED)
    {
      /* one sgemm on OpenBLAS's threads, then the epilogue as a kernel of
       * blocks on the inductor's */
      float *c;

      if (kernel->kind == KERNEL_MATMUL)
        c = bufs[kernel->mm_c];
      else if (kernel->mm_dst.kind == LOC_STORAGE)
        c = bufs[kernel->mm_dst.index];
      else
        {
          product = new_product (plan, kernel, error);
          if (product == NULL)
            return FALSE;
          c = reg_tensor_get_data (product, NULL);
        }
      _reg_ind_gemm_rows (mode, bufs[kernel->mm_a], bufs[kernel->mm_b], c,
                          0, kernel->m, kernel->k, kernel->n);
      if (kernel->kind == KERNEL_MATMUL)
        return TRUE;
      run.product = c;
      run.product_done = TRUE;
    }

  if (!has_product || run.product_done)
    {
      gsize n_blocks = div_up (kernel->n_elements, kernel->block_len);

      run.chunk_len = MAX (div_up (CHUNK_WORK, kernel->block_len * MAX (kernel->n_instrs, 1)), 1);
      n_chunks = div_up (n_blocks, run.chunk_len);
      workers = (guint) MIN ((gsize) threads, MAX (n_chunks / MIN_WORKER_CHUNKS, 1));
    }
  else
    {
      workers = plan_product (&run, threads);
      n_chunks = div_up (kernel->m, run.chunk_len);
      /* a product that is not kept in panels (too wide for the cache)
       * and has no memory of its own gets a temporary */
      if (kernel->kind == KERNEL_BLOCKS && kernel->mm_dst.kind == LOC_PANEL &&
          run.panel_rows * kernel->n * sizeof (float) > MAX (PANEL_BYTES,
                                                            plan->options.block_size * sizeof (float)))
        {
          product = new_product (plan, kernel, error);
          if (product == NULL)
            return FALSE;
          run.product = reg_tensor_get_data (product, NULL);
        }
    }

  if (kernel->n_sums > 0)
    {
      chunk_sums = g_new0 (double, MAX (n_chunks, 1) * kernel->n_sums);
      run.chunk_sums = chunk_sums;
    }

  _reg_ind_parallel_run (workers, n_chunks, run_chunk, &run);

  /* partial sums combined in chunk order: a given thread count gives the
   * same result every time (and elementwise kernels cut their chunks the
   * same way whatever the thread count) */
  for (guint r = 0; r < kernel->n_sums; r++)
    {
      double total = 0.0;

      for (gsize c = 0; c < n_chunks; c++)
        total += chunk_sums[c * kernel->n_sums + r];
      bufs[kernel->sum_storage[r]][0] = (float) total;
    }

  return TRUE;
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
  g_autofree Scratch **scratch = g_new0 (Scratch *, threads);
  RegIndGemmMode mode;
  GCancellable *cancellable;
  gboolean failed = FALSE;
  guint blas_threads;
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

  /* per-thread buffers: one set per thread, from the pool */
  g_mutex_lock (&plan->pool_mutex);
  for (guint t = 0; t < threads; t++)
    if (plan->scratch_pool->len > 0)
      scratch[t] = g_ptr_array_steal_index_fast (plan->scratch_pool,
                                                 plan->scratch_pool->len - 1);
  g_mutex_unlock (&plan->pool_mutex);

  for (guint t = 0; t < threads; t++)
    if (scratch[t] == NULL)
      {
        scratch[t] = g_new0 (Scratch, 1);
        if (scratch_floats > 0)
          scratch[t]->slots = g_aligned_alloc (scratch_floats, sizeof (float), 64);
      }

  /* how the products of this call are computed: OpenBLAS's thread count
   * may have changed since the last call */
  mode = _reg_ind_gemm_choose (threads, plan->options.matmul, &blas_threads);

  /* The cancellable of the operation that runs this call, if any (see
   * reg_compiled_fn_call_async()): checked between kernels and between
   * chunks of blocks. */
  cancellable = g_cancellable_get_current ();
  for (guint k = 0; k < plan->kernels->len && !failed && !g_cancellable_is_cancelled (cancellable); k++)
    failed = !run_kernel (plan, &g_array_index (plan->kernels, Kernel, k), bufs, scratch, mode,
                          cancellable, error);

  g_mutex_lock (&plan->pool_mutex);
  for (guint t = 0; t < threads; t++)
    g_ptr_array_add (plan->scratch_pool, scratch[t]);
  g_mutex_unlock (&plan->pool_mutex);

  if (failed || g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      for (guint s = 0; s < n_storage; s++)
        g_clear_object (&tensors[s]);
      return NULL;
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
