/* reg-graph.c: computation graphs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "reg-graph.h"
#include "reg-graph-private.h"
#include "reg-message-private.h"
#include "reg-op-private.h"
#include "reg-tensor.h"

/**
 * RegGraph:
 *
 * A computation graph in the manner of torch.fx: named inputs, scalar
 * constants and calls of operators on earlier nodes, plus an ordered list
 * of outputs.
 *
 * Nodes are numbered densely in the order they are defined, from 0; a
 * node's arguments are always earlier nodes, so definition order is a
 * valid evaluation order.
 *
 * The operators are the values of [enum@Reg.Op]: the elementwise `add`,
 * `sub`, `mul`, `div`, `maximum` and `minimum` (two tensors of the same
 * shape, or a tensor and a constant), the elementwise `neg`, `relu`, `exp`,
 * `log`, `sqrt`, `tanh`, `sigmoid` and `abs`, `sum` (all elements, to a 0-d
 * tensor) and `matmul` (two 2-D tensors).  [func@Reg.Op.get_name],
 * [func@Reg.Op.get_arity] and [func@Reg.Op.get_kind] give each one's name
 * in the text form, number of arguments and shape rule.
 *
 * A graph is built with [method@Reg.Graph.add_input],
 * [method@Reg.Graph.add_constant], [method@Reg.Graph.add_call] (or
 * [method@Reg.Graph.add_op], which takes the operator's name) and
 * [method@Reg.Graph.set_outputs], or parsed from its text form with
 * [ctor@Reg.Graph.new_from_string]:
 *
 * ```
 * graph(x, y):
 *   a = mul(x, y)
 *   b = add(a, 1.5)   # a constant argument
 *   c = relu(b)
 *   return (c,)
 * ```
 *
 * The text holds one statement per line; `#` starts a comment that runs to
 * the end of the line, and white space between tokens is free (a line break
 * inside parentheses too).  An argument is a name or a number: a decimal
 * with an optional sign and exponent, `inf`, `-inf` or `nan`; every number
 * becomes a constant node.  Calls do not nest.  Names are identifiers
 * (`[A-Za-z_][A-Za-z0-9_]*`) other than `inf` and `nan`, each defined once.
 * The graph ends with `return (a, b)`, `return (a,)`, `return ()` or
 * `return a`.  [method@Reg.Graph.to_string] prints the canonical form of
 * this text.
 *
 * A graph is not locked: build it in one thread.  Once built, any number of
 * threads may read it (inspect, print, compile it) at the same time.
 */

/* Every operator takes one or two arguments (reg_op_get_arity()), so a
 * node stores its arguments inline. */
#define MAX_ARITY 2

typedef struct
{
  RegNodeKind kind;
  RegOp       op;       /* REG_NODE_OP */
  guint       n_args;
  guint       args[MAX_ARITY];
  double      value;    /* REG_NODE_CONSTANT */
  char       *name;     /* inputs; op nodes parsed from text; else NULL */
  gsize       name_length;  /* of name, for the compile cache's key */
} Node;

struct _RegGraph
{
  GObject     parent_instance;

  GArray     *nodes;         /* Node */
  GArray     *inputs;        /* guint: the input nodes, in order */
  GArray     *outputs;       /* guint */
  gboolean    has_outputs;   /* set_outputs() or a `return` happened */

  /* name -> node id (GUINT_TO_POINTER); the keys belong to the nodes */
  GHashTable *names;
  /* Some name may push a generated one aside (see looks_generated()). */
  gboolean    names_clash;

  /* The first failure of a builder call that has no GError of its own
   * (add_input, set_outputs), reported by reg_graph_validate(). */
  GError     *builder_error;
};

G_DEFINE_FINAL_TYPE (RegGraph, reg_graph, G_TYPE_OBJECT)

static void
node_clear (gpointer data)
{
  Node *node = data;

  g_clear_pointer (&node->name, g_free);
}

static void
reg_graph_finalize (GObject *object)
{
  RegGraph *self = REG_GRAPH (object);

  /* The table borrows its keys from the nodes: free it first. */
  g_clear_pointer (&self->names, g_hash_table_unref);
  g_clear_pointer (&self->nodes, g_array_unref);
  g_clear_pointer (&self->inputs, g_array_unref);
  g_clear_pointer (&self->outputs, g_array_unref);
  g_clear_error (&self->builder_error);

  G_OBJECT_CLASS (reg_graph_parent_class)->finalize (object);
}

static void
reg_graph_class_init (RegGraphClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = reg_graph_finalize;
}

static void
reg_graph_init (RegGraph *self)
{
  self->nodes = g_array_new (FALSE, FALSE, sizeof (Node));
  g_array_set_clear_func (self->nodes, node_clear);
  self->inputs = g_array_new (FALSE, FALSE, sizeof (guint));
  self->outputs = g_array_new (FALSE, FALSE, sizeof (guint));
  self->names = g_hash_table_new (g_str_hash, g_str_equal);
}

/* ---- Names, operators and nodes ---------------------------------------- */

static inline gboolean
is_name_start (char c)
{
  return g_ascii_isalpha (c) || c == '_';
}

static inline gboolean
is_name_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* `inf` and `nan` are numbers in the text form, so they cannot be names. */
static gboolean
is_number_word (const char *word,
                gsize       len)
{
  return len == 3 && (memcmp (word, "inf", 3) == 0 || memcmp (word, "nan", 3) == 0);
}

static gboolean
is_valid_name (const char *name)
{
  gsize len;

  if (!is_name_start (name[0]))
    return FALSE;
  for (len = 1; name[len] != '\0'; len++)
    if (!is_name_char (name[len]))
      return FALSE;

  return !is_number_word (name, len);
}

static char *
arity_message (RegOp op,
               guint n_args)
{
  guint arity = reg_op_get_arity (op);

  return g_strdup_printf ("%s takes %u argument%s, %u given", reg_op_get_name (op),
                          arity, arity == 1 ? "" : "s", n_args);
}

static guint
append_node (RegGraph   *self,
             const Node *node)
{
  guint id = self->nodes->len;

  g_array_append_vals (self->nodes, node, 1);
  if (node->name != NULL)
    g_array_index (self->nodes, Node, id).name_length = strlen (node->name);

  return id;
}

static gboolean looks_generated (const char *name);

static void
add_name (RegGraph   *self,
          const char *name,
          guint       id)
{
  g_hash_table_insert (self->names, (gpointer) name, GUINT_TO_POINTER (id));
  self->names_clash |= looks_generated (name);
}

/* Takes @name (nullable); the name must be free. */
static guint
append_input (RegGraph *self,
              char     *name)
{
  Node node = { .kind = REG_NODE_INPUT, .name = name };
  guint id = append_node (self, &node);

  g_array_append_val (self->inputs, id);
  add_name (self, name, id);

  return id;
}

static guint
append_constant (RegGraph *self,
                 double    value)
{
  Node node = { .kind = REG_NODE_CONSTANT, .value = value };

  return append_node (self, &node);
}

/* Takes @name (nullable); the arguments must exist and fit the arity, and
 * the name must be free. */
static guint
append_op (RegGraph    *self,
           RegOp        op,
           const guint *args,
           char        *name)
{
  Node node = { .kind = REG_NODE_OP, .op = op, .n_args = reg_op_get_arity (op), .name = name };
  guint id;

  g_assert (node.n_args <= MAX_ARITY);
  memcpy (node.args, args, node.n_args * sizeof (guint));
  id = append_node (self, &node);
  if (name != NULL)
    add_name (self, name, id);

  return id;
}

static void
set_outputs (RegGraph    *self,
             const guint *nodes,
             guint        n)
{
  /* A new array rather than an overwrite: @nodes may be the data of the
   * current one (from reg_graph_get_outputs()). */
  GArray *outputs = g_array_sized_new (FALSE, FALSE, sizeof (guint), n);

  g_array_append_vals (outputs, nodes, n);
  g_array_unref (self->outputs);
  self->outputs = outputs;
  self->has_outputs = TRUE;
}

static inline const Node *
get_node (RegGraph *self,
          guint     id)
{
  return &g_array_index (self->nodes, Node, id);
}

/* ---- Builder ------------------------------------------------------------ */

G_GNUC_PRINTF (3, 4)
static void
set_builder_error (RegGraph      *self,
                   RegGraphError  code,
                   const char    *format,
                   ...)
{
  va_list args;

  /* The first error is the one to report: later ones often follow from it. */
  if (self->builder_error != NULL)
    return;

  va_start (args, format);
  self->builder_error = g_error_new_valist (REG_GRAPH_ERROR, code, format, args);
  va_end (args);
}

/**
 * reg_graph_new:
 *
 * Creates an empty graph, to be filled with [method@Reg.Graph.add_input],
 * [method@Reg.Graph.add_constant], [method@Reg.Graph.add_call] (or
 * [method@Reg.Graph.add_op]) and [method@Reg.Graph.set_outputs].
 *
 * Returns: (transfer full): a new graph
 */
RegGraph *
reg_graph_new (void)
{
  return g_object_new (REG_TYPE_GRAPH, NULL);
}

/**
 * reg_graph_add_input:
 * @self: a [class@Reg.Graph]
 * @name: the name of the input
 *
 * Adds an input to @self, after the inputs already there.
 *
 * A name that is not an identifier (`[A-Za-z_][A-Za-z0-9_]*`), or is `inf`
 * or `nan`, is a %REG_GRAPH_ERROR_PARSE error; a name already defined in
 * @self is a %REG_GRAPH_ERROR_REDEFINED error.  The call then adds nothing
 * and returns %REG_GRAPH_INVALID_NODE, and @self keeps the error for
 * [method@Reg.Graph.validate] (the first one, when there are several).
 *
 * Like every builder call, this changes @self: no other thread may use
 * @self at the same time.
 *
 * Returns: the id of the new node, or %REG_GRAPH_INVALID_NODE
 */
guint
reg_graph_add_input (RegGraph   *self,
                     const char *name)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), REG_GRAPH_INVALID_NODE);
  g_return_val_if_fail (name != NULL, REG_GRAPH_INVALID_NODE);

  if (!is_valid_name (name))
    {
      g_autofree char *quoted = _reg_quote_for_message (name, strlen (name));

      set_builder_error (self, REG_GRAPH_ERROR_PARSE,
                         "invalid input name %s: names are identifiers "
                         "([A-Za-z_][A-Za-z0-9_]*) other than inf and nan",
                         quoted);
      return REG_GRAPH_INVALID_NODE;
    }

  if (g_hash_table_contains (self->names, name))
    {
      g_autofree char *quoted = _reg_quote_for_message (name, -1);

      set_builder_error (self, REG_GRAPH_ERROR_REDEFINED,
                         "input name %s is already defined", quoted);
      return REG_GRAPH_INVALID_NODE;
    }

  return append_input (self, g_strdup (name));
}

/**
 * reg_graph_add_constant:
 * @self: a [class@Reg.Graph]
 * @value: the value of the constant
 *
 * Adds a scalar constant to @self.  Any double is a constant, infinities
 * and NaN included.  No other thread may use @self at the same time.
 *
 * Returns: the id of the new node
 */
guint
reg_graph_add_constant (RegGraph *self,
                        double    value)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), REG_GRAPH_INVALID_NODE);

  return append_constant (self, value);
}

/**
 * reg_graph_add_call:
 * @self: a [class@Reg.Graph]
 * @name: (nullable): the name of the result, as in `NAME = OP(ARGS)` in
 *   the text form; %NULL for none
 * @op: the operator
 * @args: (array length=n_args) (nullable): the ids of the argument nodes;
 *   %NULL when @n_args is 0
 * @n_args: the number of arguments, [func@Reg.Op.get_arity] of @op
 * @error: return location for a #GError
 *
 * Adds a call of @op on earlier nodes to @self.  A call without a name
 * gets one that no other node has when @self is printed (see
 * [method@Reg.Graph.to_string]).
 *
 * Fails with %REG_GRAPH_ERROR_UNKNOWN_OP when @op is not a value of
 * [enum@Reg.Op], %REG_GRAPH_ERROR_ARITY for the wrong number of arguments,
 * %REG_GRAPH_ERROR_UNDEFINED for an argument that is not a node of @self
 * (%REG_GRAPH_INVALID_NODE included), %REG_GRAPH_ERROR_PARSE for a @name
 * that is not an identifier (`[A-Za-z_][A-Za-z0-9_]*`) or is `inf` or `nan`,
 * and %REG_GRAPH_ERROR_REDEFINED for a @name already defined in @self.  A
 * failure adds nothing and, unlike the errors of
 * [method@Reg.Graph.add_input], does not stay with @self.
 *
 * No other thread may use @self at the same time.
 *
 * Returns: the id of the new node, or %REG_GRAPH_INVALID_NODE with @error
 *   set
 */
guint
reg_graph_add_call (RegGraph     *self,
                    const char   *name,
                    RegOp         op,
                    const guint  *args,
                    guint         n_args,
                    GError      **error)
{
  const char *op_name;

  g_return_val_if_fail (REG_IS_GRAPH (self), REG_GRAPH_INVALID_NODE);
  g_return_val_if_fail (args != NULL || n_args == 0, REG_GRAPH_INVALID_NODE);
  g_return_val_if_fail (error == NULL || *error == NULL, REG_GRAPH_INVALID_NODE);

  /* Bindings pass enums as integers: any value may come here. */
  if (!_reg_op_is_valid (op))
    {
      g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNKNOWN_OP,
                   "unknown operator %d: not a value of RegOp", (int) op);
      return REG_GRAPH_INVALID_NODE;
    }

  op_name = reg_op_get_name (op);

  if (n_args != reg_op_get_arity (op))
    {
      g_autofree char *message = arity_message (op, n_args);

      g_set_error_literal (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_ARITY, message);
      return REG_GRAPH_INVALID_NODE;
    }

  for (guint i = 0; i < n_args; i++)
    {
      if (args[i] == REG_GRAPH_INVALID_NODE)
        {
          g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNDEFINED,
                       "argument %u of %s is REG_GRAPH_INVALID_NODE, the "
                       "result of a failed call", i, op_name);
          return REG_GRAPH_INVALID_NODE;
        }
      if (args[i] >= self->nodes->len)
        {
          g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNDEFINED,
                       "argument %u of %s: node %u does not exist (the graph "
                       "has %u nodes)", i, op_name, args[i], self->nodes->len);
          return REG_GRAPH_INVALID_NODE;
        }
    }

  if (name != NULL && !is_valid_name (name))
    {
      g_autofree char *quoted = _reg_quote_for_message (name, strlen (name));

      g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_PARSE,
                   "invalid name %s for a call of %s: names are identifiers "
                   "([A-Za-z_][A-Za-z0-9_]*) other than inf and nan",
                   quoted, op_name);
      return REG_GRAPH_INVALID_NODE;
    }

  if (name != NULL && g_hash_table_contains (self->names, name))
    {
      g_autofree char *quoted = _reg_quote_for_message (name, -1);

      g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_REDEFINED,
                   "name %s of a call of %s is already defined", quoted, op_name);
      return REG_GRAPH_INVALID_NODE;
    }

  return append_op (self, op, args, g_strdup (name));
}

/**
 * reg_graph_add_op:
 * @self: a [class@Reg.Graph]
 * @op: the name of an operator, such as `"add"`
 * @args: (array length=n_args) (nullable): the ids of the argument nodes;
 *   %NULL when @n_args is 0
 * @n_args: the number of arguments
 * @error: return location for a #GError
 *
 * Adds a call of the operator named @op (see [func@Reg.Op.from_name]) on
 * earlier nodes to @self, without a name: [method@Reg.Graph.add_call] for
 * those who have the operator's name rather than its [enum@Reg.Op].
 *
 * Fails with %REG_GRAPH_ERROR_UNKNOWN_OP for an operator libreg does not
 * know, %REG_GRAPH_ERROR_ARITY for the wrong number of arguments and
 * %REG_GRAPH_ERROR_UNDEFINED for an argument that is not a node of @self
 * (%REG_GRAPH_INVALID_NODE included).  A failure adds nothing and, unlike
 * the errors of [method@Reg.Graph.add_input], does not stay with @self.
 *
 * No other thread may use @self at the same time.
 *
 * Returns: the id of the new node, or %REG_GRAPH_INVALID_NODE with @error
 *   set
 */
guint
reg_graph_add_op (RegGraph     *self,
                  const char   *op,
                  const guint  *args,
                  guint         n_args,
                  GError      **error)
{
  RegOp value;

  g_return_val_if_fail (REG_IS_GRAPH (self), REG_GRAPH_INVALID_NODE);
  g_return_val_if_fail (op != NULL, REG_GRAPH_INVALID_NODE);
  g_return_val_if_fail (args != NULL || n_args == 0, REG_GRAPH_INVALID_NODE);
  g_return_val_if_fail (error == NULL || *error == NULL, REG_GRAPH_INVALID_NODE);

  if (!reg_op_from_name (op, &value))
    {
      g_autofree char *quoted = _reg_quote_for_message (op, strlen (op));

      g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNKNOWN_OP,
                   "unknown operator %s", quoted);
      return REG_GRAPH_INVALID_NODE;
    }

  return reg_graph_add_call (self, NULL, value, args, n_args, error);
}

/**
 * reg_graph_set_outputs:
 * @self: a [class@Reg.Graph]
 * @nodes: (array length=n) (nullable): the ids of the output nodes; %NULL
 *   when @n is 0
 * @n: the number of outputs
 *
 * Sets the outputs of @self, replacing those set before.  A node may be an
 * output more than once, and a graph may have no output at all (@n 0), but
 * a graph whose outputs were never set does not validate.
 *
 * An id that is not a node of @self (%REG_GRAPH_INVALID_NODE included) is a
 * %REG_GRAPH_ERROR_UNDEFINED error: the call then changes nothing and @self
 * keeps the error for [method@Reg.Graph.validate].
 *
 * No other thread may use @self at the same time.
 */
void
reg_graph_set_outputs (RegGraph    *self,
                       const guint *nodes,
                       guint        n)
{
  g_return_if_fail (REG_IS_GRAPH (self));
  g_return_if_fail (nodes != NULL || n == 0);

  for (guint i = 0; i < n; i++)
    {
      if (nodes[i] >= self->nodes->len)
        {
          set_builder_error (self, REG_GRAPH_ERROR_UNDEFINED,
                             "output %u: node %u does not exist (the graph "
                             "has %u nodes)", i, nodes[i], self->nodes->len);
          return;
        }
    }

  set_outputs (self, nodes, n);
}

/**
 * reg_graph_validate:
 * @self: a [class@Reg.Graph]
 * @error: return location for a #GError
 *
 * Checks that @self is a complete graph: no builder call failed (the first
 * error of [method@Reg.Graph.add_input] or [method@Reg.Graph.set_outputs]
 * is reported here), and its outputs were set (a graph without them fails
 * with %REG_GRAPH_ERROR_PARSE, as a text without `return` does).
 *
 * Shapes are checked later, against example inputs, when the graph is
 * compiled.  This function only reads @self: several threads may call it
 * at once.
 *
 * Returns: %TRUE if @self is valid, %FALSE with @error set otherwise
 */
gboolean
reg_graph_validate (RegGraph  *self,
                    GError   **error)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->builder_error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->builder_error));
      return FALSE;
    }

  if (!self->has_outputs)
    {
      g_set_error_literal (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_PARSE,
                           "graph has no outputs (no return)");
      return FALSE;
    }

  return TRUE;
}

/* ---- Inspection --------------------------------------------------------- */

/**
 * reg_graph_get_n_nodes:
 * @self: a [class@Reg.Graph]
 *
 * Gets the number of nodes of @self; their ids run from 0 to this number
 * minus 1.
 *
 * Returns: the number of nodes
 */
guint
reg_graph_get_n_nodes (RegGraph *self)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), 0);

  return self->nodes->len;
}

/**
 * reg_graph_get_node_kind:
 * @self: a [class@Reg.Graph]
 * @node: a node id
 *
 * Gets what @node is.
 *
 * Returns: the kind of @node
 */
RegNodeKind
reg_graph_get_node_kind (RegGraph *self,
                         guint     node)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), REG_NODE_INPUT);
  g_return_val_if_fail (node < self->nodes->len, REG_NODE_INPUT);

  return get_node (self, node)->kind;
}

/**
 * reg_graph_get_node_name:
 * @self: a [class@Reg.Graph]
 * @node: a node id
 *
 * Gets the name of @node: the name of an input, or the name of an operator
 * call's result (in the text the graph was parsed from, or given to
 * [method@Reg.Graph.add_call]).  Constants and the operator calls added
 * without a name, such as those of [method@Reg.Graph.add_op], have none.
 *
 * Returns: (nullable): the name of @node, or %NULL
 */
const char *
reg_graph_get_node_name (RegGraph *self,
                         guint     node)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), NULL);
  g_return_val_if_fail (node < self->nodes->len, NULL);

  return get_node (self, node)->name;
}

/**
 * reg_graph_get_node_op:
 * @self: a [class@Reg.Graph]
 * @node: a node id
 *
 * Gets the name of the operator @node calls, as [func@Reg.Op.get_name]
 * gives it; [method@Reg.Graph.get_node_operator] gives the operator itself.
 *
 * Returns: (nullable): the interned name of the operator, or %NULL when
 *   @node is not an operator call
 */
const char *
reg_graph_get_node_op (RegGraph *self,
                       guint     node)
{
  const Node *n;

  g_return_val_if_fail (REG_IS_GRAPH (self), NULL);
  g_return_val_if_fail (node < self->nodes->len, NULL);

  n = get_node (self, node);

  return n->kind == REG_NODE_OP ? reg_op_get_name (n->op) : NULL;
}

/**
 * reg_graph_get_node_operator:
 * @self: a [class@Reg.Graph]
 * @node: the id of an operator call
 *
 * Gets the operator @node calls.  @node must be a %REG_NODE_OP node (see
 * [method@Reg.Graph.get_node_kind]).
 *
 * Returns: the operator of @node
 */
RegOp
reg_graph_get_node_operator (RegGraph *self,
                             guint     node)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), REG_OP_ADD);
  g_return_val_if_fail (node < self->nodes->len, REG_OP_ADD);
  g_return_val_if_fail (get_node (self, node)->kind == REG_NODE_OP, REG_OP_ADD);

  return get_node (self, node)->op;
}

/**
 * reg_graph_get_node_args:
 * @self: a [class@Reg.Graph]
 * @node: a node id
 * @n_args: (out) (optional): return location for the number of arguments
 *
 * Gets the ids of the arguments of @node, an operator call; other nodes
 * have none.  The array belongs to @self and is valid until @self changes.
 *
 * Returns: (array length=n_args) (transfer none) (nullable): the argument
 *   ids, or %NULL when @node has no argument
 */
const guint *
reg_graph_get_node_args (RegGraph *self,
                         guint     node,
                         guint    *n_args)
{
  const Node *n;

  g_return_val_if_fail (REG_IS_GRAPH (self), NULL);
  g_return_val_if_fail (node < self->nodes->len, NULL);

  n = get_node (self, node);
  if (n_args != NULL)
    *n_args = n->n_args;

  return n->n_args > 0 ? n->args : NULL;
}

/**
 * reg_graph_get_node_value:
 * @self: a [class@Reg.Graph]
 * @node: the id of a constant node
 *
 * Gets the value of a constant.  @node must be a %REG_NODE_CONSTANT node.
 *
 * Returns: the value of @node
 */
double
reg_graph_get_node_value (RegGraph *self,
                          guint     node)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), 0.0);
  g_return_val_if_fail (node < self->nodes->len, 0.0);
  g_return_val_if_fail (get_node (self, node)->kind == REG_NODE_CONSTANT, 0.0);

  return get_node (self, node)->value;
}

/**
 * reg_graph_get_inputs:
 * @self: a [class@Reg.Graph]
 * @n_inputs: (out) (optional): return location for the number of inputs
 *
 * Gets the ids of the input nodes of @self, in the order they were added:
 * the order in which a compiled graph takes its arguments.  The array
 * belongs to @self and is valid until @self changes.
 *
 * Returns: (array length=n_inputs) (transfer none) (nullable): the input
 *   ids, or %NULL when there is none
 */
const guint *
reg_graph_get_inputs (RegGraph *self,
                      guint    *n_inputs)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), NULL);

  if (n_inputs != NULL)
    *n_inputs = self->inputs->len;

  return self->inputs->len > 0 ? (const guint *) self->inputs->data : NULL;
}

/**
 * reg_graph_get_outputs:
 * @self: a [class@Reg.Graph]
 * @n_outputs: (out) (optional): return location for the number of outputs
 *
 * Gets the ids of the output nodes of @self, in order.  The array belongs
 * to @self and is valid until @self changes.
 *
 * Returns: (array length=n_outputs) (transfer none) (nullable): the output
 *   ids, or %NULL when there is none
 */
const guint *
reg_graph_get_outputs (RegGraph *self,
                       guint    *n_outputs)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), NULL);

  if (n_outputs != NULL)
    *n_outputs = self->outputs->len;

  return self->outputs->len > 0 ? (const guint *) self->outputs->data : NULL;
}

/* ---- Printing ----------------------------------------------------------- */

/* The shortest decimal digits that read back as @value (finite, > 0), as
 * Python's repr() finds them.  Writes the significant digits, without
 * trailing zeros, to @digits and returns the decimal exponent of the
 * first one. */
static int
shortest_digits (double  value,
                 char    digits[18])
{
  for (int precision = 0; precision < 17; precision++)
    {
      char format[8];
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      double back;
      int n = 0;
      int exponent;
      char *e;

      /* The correctly rounded candidate with precision + 1 digits, in the
       * C locale whatever the process locale is. */
      g_snprintf (format, sizeof format, "%%.%de", precision);
      g_ascii_formatd (buf, sizeof buf, format, value);
      back = g_ascii_strtod (buf, NULL);

      e = strchr (buf, 'e');
      g_assert (e != NULL);
      exponent = (int) g_ascii_strtoll (e + 1, NULL, 10);
      for (const char *p = buf; p < e; p++)
        if (g_ascii_isdigit (*p))
          digits[n++] = *p;
      digits[n] = '\0';

      /* Just above a power of two, the doubles are twice as far apart as
       * just below it, so the interval that reads back as @value reaches
       * further up than down.  When the nearest candidate lies below and
       * misses, the next one up may still hit: try it, as repr() would. */
      if (back < value)
        {
          int i;

          for (i = n - 1; i >= 0 && digits[i] == '9'; i--)
            digits[i] = '0';
          if (i >= 0)
            digits[i]++;
          else
            {
              digits[0] = '1';
              exponent++;
            }

          g_snprintf (buf, sizeof buf, "%c.%se%d", digits[0], digits + 1, exponent);
          back = g_ascii_strtod (buf, NULL);
        }

      if (back == value || precision == 16)
        {
          /* 17 digits always read back; a carry may leave zeros behind. */
          while (n > 1 && digits[n - 1] == '0')
            digits[--n] = '\0';
          return exponent;
        }
    }

  g_assert_not_reached ();
}

/* Appends @value as Python's repr() prints a float. */
static void
append_double (GString *out,
               double   value)
{
  char digits[18];
  int exponent;
  int n_digits;
  int point;

  if (isnan (value))
    {
      g_string_append (out, "nan");
      return;
    }

  if (signbit (value))
    {
      g_string_append_c (out, '-');
      value = -value;
    }

  if (isinf (value))
    {
      g_string_append (out, "inf");
      return;
    }

  if (value == 0.0)
    {
      g_string_append (out, "0.0");
      return;
    }

  exponent = shortest_digits (value, digits);
  n_digits = (int) strlen (digits);
  point = exponent + 1;   /* digits before the decimal point */

  if (exponent < -4 || exponent >= 16)
    {
      g_string_append_c (out, digits[0]);
      if (n_digits > 1)
        {
          g_string_append_c (out, '.');
          g_string_append (out, digits + 1);
        }
      g_string_append_printf (out, "e%c%02d", exponent < 0 ? '-' : '+', ABS (exponent));
    }
  else if (point <= 0)
    {
      g_string_append (out, "0.");
      for (int i = 0; i < -point; i++)
        g_string_append_c (out, '0');
      g_string_append (out, digits);
    }
  else if (point >= n_digits)
    {
      g_string_append (out, digits);
      for (int i = n_digits; i < point; i++)
        g_string_append_c (out, '0');
      g_string_append (out, ".0");
    }
  else
    {
      g_string_append_len (out, digits, point);
      g_string_append_c (out, '.');
      g_string_append (out, digits + point);
    }
}

/* The name each node has in the text form.  Constants are printed inline
 * and get none; the operator calls of the builder get `vN` (node N),
 * with `_` appended until the name is free.  The generated names are kept
 * in @chunk. */
static const char **
name_nodes (RegGraph     *self,
            GStringChunk *chunk)
{
  const char **names = g_new0 (const char *, MAX (self->nodes->len, 1));
  g_autoptr(GHashTable) generated = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GString) candidate = g_string_new (NULL);

  for (guint i = 0; i < self->nodes->len; i++)
    {
      const Node *node = get_node (self, i);

      if (node->kind == REG_NODE_CONSTANT)
        continue;

      if (node->name != NULL)
        {
          names[i] = node->name;
          continue;
        }

      g_string_printf (candidate, "v%u", i);
      while (g_hash_table_contains (self->names, candidate->str) ||
             g_hash_table_contains (generated, candidate->str))
        g_string_append_c (candidate, '_');

      names[i] = g_string_chunk_insert_len (chunk, candidate->str, candidate->len);
      g_hash_table_add (generated, (gpointer) names[i]);
    }

  return names;
}

static void
append_operand (GString     *out,
                RegGraph    *self,
                const char **names,
                guint        id)
{
  const Node *node = get_node (self, id);

  if (node->kind == REG_NODE_CONSTANT)
    append_double (out, node->value);
  else
    g_string_append (out, names[id]);
}

/**
 * reg_graph_to_string:
 * @self: a [class@Reg.Graph]
 *
 * Prints @self in its canonical text form, which
 * [ctor@Reg.Graph.new_from_string] reads back: the header with the inputs,
 * then one line per operator call in definition order, indented by two
 * spaces, then the return statement (`return (a,)` for one output,
 * `return (a, b)` for more, `return ()` for none or when the outputs were
 * never set), and a final newline.
 *
 * Constants are printed inline where they are used, in the shortest form
 * that reads back as the same double, as Python's repr() prints floats
 * (`1.5`, `2.0`, `1e-05`, `inf`, `nan`); a constant that is used nowhere is
 * not printed.  Operator calls without a name (see
 * [method@Reg.Graph.add_call]) get names that no other node of @self has.
 *
 * Parsing the text and printing the graph again gives the same text.
 * This function only reads @self: several threads may call it at once.
 *
 * Returns: (transfer full): the text of @self
 */
char *
reg_graph_to_string (RegGraph *self)
{
  g_autoptr(GString) out = NULL;
  g_autoptr(GStringChunk) chunk = NULL;
  g_autofree const char **names = NULL;

  g_return_val_if_fail (REG_IS_GRAPH (self), NULL);

  out = g_string_new ("graph(");
  chunk = g_string_chunk_new (64);
  names = name_nodes (self, chunk);

  for (guint i = 0; i < self->inputs->len; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      g_string_append (out, names[g_array_index (self->inputs, guint, i)]);
    }
  g_string_append (out, "):\n");

  for (guint i = 0; i < self->nodes->len; i++)
    {
      const Node *node = get_node (self, i);

      if (node->kind != REG_NODE_OP)
        continue;

      g_string_append_printf (out, "  %s = %s(", names[i], reg_op_get_name (node->op));
      for (guint j = 0; j < node->n_args; j++)
        {
          if (j > 0)
            g_string_append (out, ", ");
          append_operand (out, self, names, node->args[j]);
        }
      g_string_append (out, ")\n");
    }

  g_string_append (out, "  return (");
  for (guint i = 0; i < self->outputs->len; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      append_operand (out, self, names, g_array_index (self->outputs, guint, i));
    }
  g_string_append (out, self->outputs->len == 1 ? ",)\n" : ")\n");

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* ---- Parsing ------------------------------------------------------------ */

typedef enum {
  TOKEN_NAME,
  TOKEN_NUMBER,
  TOKEN_LPAREN,
  TOKEN_RPAREN,
  TOKEN_COMMA,
  TOKEN_COLON,
  TOKEN_EQUALS,
  TOKEN_NEWLINE,
  TOKEN_END,
} TokenType;

/* Where something is in the text, for messages. */
typedef struct
{
  const char *pos;
  const char *line_start;
  guint       line;
} Location;

typedef struct
{
  TokenType   type;
  Location    loc;
  gsize       len;
  double      value;   /* TOKEN_NUMBER */
} Token;

typedef struct
{
  RegGraph   *graph;
  const char *p;             /* the next byte to read */
  const char *line_start;
  guint       line;
  guint       depth;         /* of parentheses: line breaks inside are space */
  Token       tok;           /* the current token */
  GArray     *args;          /* Arg: the arguments of the current call */
} Parser;

/* An argument or output before its nodes are made: constants become nodes
 * only once the whole statement is known to be good, right before the
 * node that uses them. */
typedef struct
{
  gboolean is_constant;
  guint    id;
  double   value;
} Arg;

G_GNUC_PRINTF (4, 5)
static gboolean
set_parse_error (GError         **error,
                 const Location  *loc,
                 RegGraphError    code,
                 const char      *format,
                 ...)
{
  g_autofree char *message = NULL;
  guint column = 1;
  va_list args;

  /* Columns count characters: only comments may hold non-ASCII text, and
   * counting the bytes that start a UTF-8 sequence is right for the valid
   * prefix that precedes any error. */
  for (const char *p = loc->line_start; p < loc->pos; p++)
    if (((guchar) *p & 0xC0) != 0x80)
      column++;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, REG_GRAPH_ERROR, code, "%u:%u: %s", loc->line, column, message);

  return FALSE;
}

static char *
describe_token (const Token *tok)
{
  switch (tok->type)
    {
    case TOKEN_NAME:
      {
        g_autofree char *quoted = _reg_quote_for_message (tok->loc.pos, tok->len);
        return g_strdup_printf ("name %s", quoted);
      }
    case TOKEN_NUMBER:
      {
        g_autofree char *quoted = _reg_quote_for_message (tok->loc.pos, tok->len);
        return g_strdup_printf ("number %s", quoted);
      }
    case TOKEN_LPAREN:
      return g_strdup ("'('");
    case TOKEN_RPAREN:
      return g_strdup ("')'");
    case TOKEN_COMMA:
      return g_strdup ("','");
    case TOKEN_COLON:
      return g_strdup ("':'");
    case TOKEN_EQUALS:
      return g_strdup ("'='");
    case TOKEN_NEWLINE:
      return g_strdup ("end of line");
    case TOKEN_END:
      return g_strdup ("end of text");
    default:
      g_assert_not_reached ();
    }
}

/* Fails with "expected WHAT, got TOKEN" at the current token. */
static gboolean
unexpected (Parser      *parser,
            const char  *what,
            GError     **error)
{
  g_autofree char *got = describe_token (&parser->tok);

  return set_parse_error (error, &parser->tok.loc, REG_GRAPH_ERROR_PARSE,
                          "expected %s, got %s", what, got);
}

static gboolean
token_is_word (const Token *tok,
               const char  *word)
{
  return tok->type == TOKEN_NAME && tok->len == strlen (word) &&
         memcmp (tok->loc.pos, word, tok->len) == 0;
}

static Location
location_here (Parser     *parser,
               const char *pos)
{
  Location loc = { pos, parser->line_start, parser->line };

  return loc;
}

static gboolean
bad_character (Parser      *parser,
               GError     **error)
{
  Location loc = location_here (parser, parser->p);
  gunichar c = g_utf8_get_char_validated (parser->p, -1);

  if (c == (gunichar) -1 || c == (gunichar) -2)
    return set_parse_error (error, &loc, REG_GRAPH_ERROR_PARSE,
                            "invalid UTF-8 (byte 0x%02X)", (guchar) *parser->p);

  if (g_unichar_isgraph (c))
    {
      char utf8[7] = { 0 };

      g_unichar_to_utf8 (c, utf8);
      return set_parse_error (error, &loc, REG_GRAPH_ERROR_PARSE,
                              "unexpected character '%s'", utf8);
    }

  return set_parse_error (error, &loc, REG_GRAPH_ERROR_PARSE,
                          "unexpected character U+%04X", c);
}

/* Reads a number at parser->p: [+-]? (digits [. digits] | . digits)
 * ([eE] [+-]? digits)?, or [+-]? (inf | nan). */
static gboolean
lex_number (Parser  *parser,
            Token   *tok,
            GError **error)
{
  const char *start = parser->p;
  const char *q = start;
  gsize n_digits = 0;
  gboolean is_word = FALSE;
  g_autofree char *copy = NULL;

  if (*q == '+' || *q == '-')
    q++;

  if (is_name_start (*q))
    {
      const char *word = q;

      while (is_name_char (*q))
        q++;
      if (!is_number_word (word, q - word))
        return bad_character (parser, error);
      is_word = TRUE;
    }
  else if (!g_ascii_isdigit (*q) && *q != '.')
    return bad_character (parser, error);
  else
    {
      while (g_ascii_isdigit (*q))
        q++, n_digits++;
      if (*q == '.')
        {
          q++;
          while (g_ascii_isdigit (*q))
            q++, n_digits++;
        }
      if (n_digits > 0 && (*q == 'e' || *q == 'E'))
        {
          const char *r = q + 1;

          if (*r == '+' || *r == '-')
            r++;
          if (g_ascii_isdigit (*r))
            {
              while (g_ascii_isdigit (*r))
                r++;
              q = r;
            }
        }

      /* A number may not run into a name or another number: `1.5x`, `1e`,
       * `1.2.3` and a lone `.` are one bad token, not two good ones. */
      if (n_digits == 0 || is_name_char (*q) || *q == '.')
        {
          Location loc = location_here (parser, start);
          g_autofree char *quoted = NULL;

          while (is_name_char (*q) || *q == '.')
            q++;
          quoted = _reg_quote_for_message (start, q - start);
          return set_parse_error (error, &loc, REG_GRAPH_ERROR_PARSE,
                                  "invalid number %s", quoted);
        }
    }

  tok->type = TOKEN_NUMBER;
  tok->len = q - start;

  copy = g_strndup (start, tok->len);
  tok->value = g_ascii_strtod (copy, NULL);

  /* Underflow is no error: it reads as the nearest double (a subnormal or
   * zero), as Python's float() does.  Overflow would silently make an
   * infinity of a finite number. */
  if (isinf (tok->value) && !is_word)
    {
      g_autofree char *quoted = _reg_quote_for_message (start, tok->len);

      return set_parse_error (error, &tok->loc, REG_GRAPH_ERROR_PARSE,
                              "number out of range: %s", quoted);
    }

  parser->p = q;
  return TRUE;
}

/* Reads the next token into parser->tok. */
static gboolean
advance (Parser  *parser,
         GError **error)
{
  Token *tok = &parser->tok;

  for (;;)
    {
      char c = *parser->p;

      tok->loc = location_here (parser, parser->p);
      tok->len = 1;

      switch (c)
        {
        case ' ': case '\t': case '\r': case '\f': case '\v':
          parser->p++;
          continue;

        case '#':
          {
            const char *start = parser->p;
            const char *end;

            while (*parser->p != '\n' && *parser->p != '\0')
              parser->p++;
            /* Comments may hold any text, but text it must be. */
            if (!g_utf8_validate (start, parser->p - start, &end))
              {
                parser->p = end;
                return bad_character (parser, error);
              }
            continue;
          }

        case '\n':
          parser->p++;
          parser->line++;
          parser->line_start = parser->p;
          if (parser->depth > 0)
            continue;
          tok->type = TOKEN_NEWLINE;
          return TRUE;

        case '\0':
          tok->type = TOKEN_END;
          tok->len = 0;
          return TRUE;

        case '(':
          parser->depth++;
          tok->type = TOKEN_LPAREN;
          break;

        case ')':
          if (parser->depth > 0)
            parser->depth--;
          tok->type = TOKEN_RPAREN;
          break;

        case ',':
          tok->type = TOKEN_COMMA;
          break;

        case ':':
          tok->type = TOKEN_COLON;
          break;

        case '=':
          tok->type = TOKEN_EQUALS;
          break;

        case '+': case '-': case '.':
          return lex_number (parser, tok, error);

        default:
          if (g_ascii_isdigit (c))
            return lex_number (parser, tok, error);

          if (is_name_start (c))
            {
              const char *q = parser->p;

              while (is_name_char (*q))
                q++;
              if (is_number_word (parser->p, q - parser->p))
                return lex_number (parser, tok, error);

              tok->type = TOKEN_NAME;
              tok->len = q - parser->p;
              parser->p = q;
              return TRUE;
            }

          return bad_character (parser, error);
        }

      /* The one-character tokens */
      parser->p++;
      return TRUE;
    }
}

static gboolean
expect (Parser      *parser,
        TokenType    type,
        const char  *what,
        GError     **error)
{
  if (parser->tok.type != type)
    return unexpected (parser, what, error);

  return advance (parser, error);
}

/* Reads a name or a number (a call's argument, or an output) into @arg and
 * moves past it. */
static gboolean
parse_operand (Parser  *parser,
               Arg     *arg,
               GError **error)
{
  Token tok = parser->tok;
  g_autofree char *name = NULL;
  gpointer id;

  if (tok.type == TOKEN_NUMBER)
    {
      arg->is_constant = TRUE;
      arg->value = tok.value;
      return advance (parser, error);
    }

  if (tok.type != TOKEN_NAME)
    return unexpected (parser, "a name or a number", error);

  if (!advance (parser, error))
    return FALSE;

  if (parser->tok.type == TOKEN_LPAREN)
    {
      g_autofree char *quoted = _reg_quote_for_message (tok.loc.pos, tok.len);

      return set_parse_error (error, &tok.loc, REG_GRAPH_ERROR_PARSE,
                              "calls do not nest: assign the call of %s to a "
                              "name first", quoted);
    }

  name = g_strndup (tok.loc.pos, tok.len);
  if (!g_hash_table_lookup_extended (parser->graph->names, name, NULL, &id))
    {
      g_autofree char *quoted = _reg_quote_for_message (name, -1);

      return set_parse_error (error, &tok.loc, REG_GRAPH_ERROR_UNDEFINED,
                              "undefined name %s", quoted);
    }

  arg->is_constant = FALSE;
  arg->id = GPOINTER_TO_UINT (id);
  return TRUE;
}

static gboolean
ends_operands (Parser   *parser,
               gboolean  in_parens)
{
  if (in_parens)
    return parser->tok.type == TOKEN_RPAREN;

  return parser->tok.type == TOKEN_NEWLINE || parser->tok.type == TOKEN_END;
}

/* Reads operands separated by commas, a trailing comma allowed, into
 * parser->args, up to (not past) the ')' when @in_parens, else the end of
 * the line. */
static gboolean
parse_operands (Parser    *parser,
                gboolean   in_parens,
                GError   **error)
{
  g_array_set_size (parser->args, 0);

  while (!ends_operands (parser, in_parens))
    {
      Arg arg;

      if (!parse_operand (parser, &arg, error))
        return FALSE;
      g_array_append_val (parser->args, arg);

      if (parser->tok.type == TOKEN_COMMA)
        {
          if (!advance (parser, error))
            return FALSE;
        }
      else if (!ends_operands (parser, in_parens))
        return unexpected (parser, in_parens ? "',' or ')'" : "',' or end of line", error);
    }

  return TRUE;
}

/* Turns parser->args into node ids in @ids, making the constants nodes. */
static void
resolve_operands (Parser *parser,
                  guint  *ids)
{
  for (guint i = 0; i < parser->args->len; i++)
    {
      Arg *arg = &g_array_index (parser->args, Arg, i);

      ids[i] = arg->is_constant ? append_constant (parser->graph, arg->value) : arg->id;
    }
}

static gboolean
parse_header (Parser  *parser,
              GError **error)
{
  while (parser->tok.type == TOKEN_NEWLINE)
    if (!advance (parser, error))
      return FALSE;

  if (!token_is_word (&parser->tok, "graph"))
    return unexpected (parser, "the header 'graph(...):'", error);
  if (!advance (parser, error) ||
      !expect (parser, TOKEN_LPAREN, "'(' after 'graph'", error))
    return FALSE;

  while (parser->tok.type != TOKEN_RPAREN)
    {
      Token tok = parser->tok;
      g_autofree char *name = NULL;

      if (tok.type != TOKEN_NAME)
        return unexpected (parser, "an input name", error);

      name = g_strndup (tok.loc.pos, tok.len);
      if (g_hash_table_contains (parser->graph->names, name))
        {
          g_autofree char *quoted = _reg_quote_for_message (name, -1);

          return set_parse_error (error, &tok.loc, REG_GRAPH_ERROR_REDEFINED,
                                  "input %s is defined twice", quoted);
        }
      append_input (parser->graph, g_steal_pointer (&name));

      if (!advance (parser, error))
        return FALSE;
      if (parser->tok.type == TOKEN_COMMA)
        {
          if (!advance (parser, error))
            return FALSE;
        }
      else if (parser->tok.type != TOKEN_RPAREN)
        return unexpected (parser, "',' or ')'", error);
    }

  if (!advance (parser, error) ||
      !expect (parser, TOKEN_COLON, "':' after the inputs", error))
    return FALSE;

  if (parser->tok.type == TOKEN_END)
    return TRUE;
  return expect (parser, TOKEN_NEWLINE, "end of line after 'graph(...):'", error);
}

/* NAME = OP(ARGS) */
static gboolean
parse_assignment (Parser  *parser,
                  GError **error)
{
  Token target = parser->tok;
  Token op_tok;
  g_autofree char *name = NULL;
  gpointer previous;
  RegOp op;
  guint ids[MAX_ARITY];

  if (!advance (parser, error))
    return FALSE;
  if (parser->tok.type != TOKEN_EQUALS)
    {
      g_autofree char *quoted = _reg_quote_for_message (target.loc.pos, target.len);
      g_autofree char *what = g_strdup_printf ("'=' after %s", quoted);

      return unexpected (parser, what, error);
    }

  name = g_strndup (target.loc.pos, target.len);
  if (g_hash_table_lookup_extended (parser->graph->names, name, NULL, &previous))
    {
      const Node *node = get_node (parser->graph, GPOINTER_TO_UINT (previous));
      gboolean is_input = node->kind == REG_NODE_INPUT;
      g_autofree char *quoted = _reg_quote_for_message (name, -1);

      return set_parse_error (error, &target.loc, REG_GRAPH_ERROR_REDEFINED,
                              "%s is already defined%s", quoted,
                              is_input ? " as an input" : "");
    }

  if (!advance (parser, error))
    return FALSE;
  op_tok = parser->tok;
  if (op_tok.type != TOKEN_NAME)
    return unexpected (parser, "an operator name", error);
  if (!advance (parser, error))
    return FALSE;
  if (parser->tok.type != TOKEN_LPAREN)
    {
      g_autofree char *quoted = _reg_quote_for_message (op_tok.loc.pos, op_tok.len);
      g_autofree char *what = g_strdup_printf ("'(' after %s", quoted);

      return unexpected (parser, what, error);
    }
  if (!_reg_op_lookup (op_tok.loc.pos, op_tok.len, &op))
    {
      g_autofree char *quoted = _reg_quote_for_message (op_tok.loc.pos, op_tok.len);

      return set_parse_error (error, &op_tok.loc, REG_GRAPH_ERROR_UNKNOWN_OP,
                              "unknown operator %s", quoted);
    }

  if (!advance (parser, error) ||
      !parse_operands (parser, TRUE, error))
    return FALSE;

  if (parser->args->len != reg_op_get_arity (op))
    {
      g_autofree char *message = arity_message (op, parser->args->len);

      return set_parse_error (error, &op_tok.loc, REG_GRAPH_ERROR_ARITY, "%s", message);
    }

  /* Past ')' */
  if (!advance (parser, error))
    return FALSE;
  if (parser->tok.type != TOKEN_NEWLINE && parser->tok.type != TOKEN_END)
    return unexpected (parser, "end of line after ')'", error);

  resolve_operands (parser, ids);
  append_op (parser->graph, op, ids, g_steal_pointer (&name));

  return parser->tok.type == TOKEN_END || advance (parser, error);
}

/* return (A, B) | return (A,) | return () | return A, B */
static gboolean
parse_return (Parser  *parser,
              GError **error)
{
  g_autofree guint *ids = NULL;

  if (!advance (parser, error))
    return FALSE;

  if (parser->tok.type == TOKEN_LPAREN)
    {
      if (!advance (parser, error) ||
          !parse_operands (parser, TRUE, error) ||
          !advance (parser, error))
        return FALSE;
    }
  else if (parser->tok.type == TOKEN_NEWLINE || parser->tok.type == TOKEN_END)
    return unexpected (parser, "the outputs after 'return' (use 'return ()' for none)", error);
  else if (!parse_operands (parser, FALSE, error))
    return FALSE;

  while (parser->tok.type == TOKEN_NEWLINE)
    if (!advance (parser, error))
      return FALSE;
  if (parser->tok.type != TOKEN_END)
    return unexpected (parser, "end of text after the return statement", error);

  ids = g_new (guint, MAX (parser->args->len, 1));
  resolve_operands (parser, ids);
  set_outputs (parser->graph, ids, parser->args->len);

  return TRUE;
}

/**
 * reg_graph_new_from_string:
 * @text: the text form of a graph
 * @error: return location for a #GError
 *
 * Parses the text form of a graph (see [class@Reg.Graph]), such as
 * [method@Reg.Graph.to_string] prints.
 *
 * Errors are in the %REG_GRAPH_ERROR domain and their messages start with
 * `LINE:COLUMN: ` (both from 1, columns in characters):
 * %REG_GRAPH_ERROR_PARSE for text that is not a graph (syntax, a bad name
 * or number, a missing header or `return`, text after `return`),
 * %REG_GRAPH_ERROR_UNKNOWN_OP, %REG_GRAPH_ERROR_ARITY,
 * %REG_GRAPH_ERROR_UNDEFINED for a name used before it is defined and
 * %REG_GRAPH_ERROR_REDEFINED for a name defined twice.
 *
 * Any text may be given: parsing takes linear time and constant stack.
 * This function is thread-safe.
 *
 * Returns: (transfer full): a new graph, or %NULL with @error set
 */
RegGraph *
reg_graph_new_from_string (const char  *text,
                           GError     **error)
{
  g_autoptr(RegGraph) graph = NULL;
  g_autoptr(GArray) args = NULL;
  Parser parser = { 0 };

  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  graph = reg_graph_new ();
  args = g_array_new (FALSE, FALSE, sizeof (Arg));
  parser.graph = graph;
  parser.p = text;
  parser.line_start = text;
  parser.line = 1;
  parser.args = args;

  if (!advance (&parser, error) || !parse_header (&parser, error))
    return NULL;

  for (;;)
    {
      while (parser.tok.type == TOKEN_NEWLINE)
        if (!advance (&parser, error))
          return NULL;

      if (parser.tok.type == TOKEN_END)
        {
          set_parse_error (error, &parser.tok.loc, REG_GRAPH_ERROR_PARSE,
                           "missing return statement");
          return NULL;
        }

      if (token_is_word (&parser.tok, "return"))
        break;

      if (parser.tok.type != TOKEN_NAME)
        {
          unexpected (&parser, "a statement 'NAME = OP(ARGS)' or 'return'", error);
          return NULL;
        }

      if (!parse_assignment (&parser, error))
        return NULL;
    }

  if (!parse_return (&parser, error))
    return NULL;

  return g_steal_pointer (&graph);
}

/* ---- Shapes ------------------------------------------------------------- */

char *
_reg_shape_to_string (const gint64 *dims,
                      guint         n_dims)
{
  GString *out = g_string_new ("[");

  for (guint i = 0; i < n_dims; i++)
    g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", dims[i]);
  g_string_append_c (out, ']');

  return g_string_free (out, FALSE);
}

gboolean
_reg_shape_count (const gint64 *dims,
                  guint         n_dims,
                  gsize        *n_elements)
{
  gsize count = 1;

  for (guint d = 0; d < n_dims; d++)
    if (dims[d] == 0)
      {
        if (n_elements != NULL)
          *n_elements = 0;
        return TRUE;
      }

  for (guint d = 0; d < n_dims; d++)
    if (dims[d] < 0 || (guint64) dims[d] > G_MAXSIZE ||
        !g_size_checked_mul (&count, count, (gsize) dims[d]))
      return FALSE;

  /* At most G_MAXSSIZE bytes: the largest object C allows, and the largest
   * offset a signed index reaches. */
  if (count > G_MAXSSIZE / sizeof (float))
    return FALSE;

  if (n_elements != NULL)
    *n_elements = count;
  return TRUE;
}

static char *
describe_node (RegGraph *self,
               guint     id)
{
  const char *name = get_node (self, id)->name;

  return name != NULL ? g_strdup_printf ("node '%s'", name)
                      : g_strdup_printf ("node %u", id);
}

G_GNUC_PRINTF (6, 7)
static gboolean
set_shape_error (GError        **error,
                 RegGraph       *self,
                 guint           id,
                 const RegShape *a,
                 const RegShape *b,
                 const char     *format,
                 ...)
{
  g_autofree char *node = describe_node (self, id);
  g_autofree char *a_str = _reg_shape_to_string (a->dims, a->n_dims);
  g_autofree char *b_str = _reg_shape_to_string (b->dims, b->n_dims);
  g_autofree char *reason = NULL;
  va_list args;

  va_start (args, format);
  reason = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE,
               "%s: %s of %s and %s: %s", node,
               reg_op_get_name (get_node (self, id)->op), a_str, b_str, reason);

  return FALSE;
}

static gboolean
same_shape (const RegShape *a,
            const RegShape *b)
{
  return a->n_dims == b->n_dims &&
         memcmp (a->dims, b->dims, a->n_dims * sizeof (gint64)) == 0;
}

gboolean
_reg_graph_infer_shapes (RegGraph   *graph,
                         GPtrArray  *example_inputs,
                         RegShape  **shapes,
                         GError    **error)
{
  g_autofree RegShape *result = NULL;
  guint n_examples = example_inputs != NULL ? example_inputs->len : 0;
  guint next_input = 0;

  g_return_val_if_fail (REG_IS_GRAPH (graph), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!reg_graph_validate (graph, error))
    return FALSE;

  if (n_examples != graph->inputs->len)
    {
      g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE,
                   "graph has %u input%s, %u example input%s given",
                   graph->inputs->len, graph->inputs->len == 1 ? "" : "s",
                   n_examples, n_examples == 1 ? "" : "s");
      return FALSE;
    }

  result = g_new0 (RegShape, MAX (graph->nodes->len, 1));

  for (guint i = 0; i < graph->nodes->len; i++)
    {
      const Node *node = get_node (graph, i);
      RegShape *shape = &result[i];
      const RegShape *a, *b;

      switch (node->kind)
        {
        case REG_NODE_INPUT:
          {
            RegTensor *example = g_ptr_array_index (example_inputs, next_input++);
            const gint64 *dims;

            g_return_val_if_fail (REG_IS_TENSOR (example), FALSE);
            dims = reg_tensor_get_shape (example, &shape->n_dims);
            memcpy (shape->dims, dims, shape->n_dims * sizeof (gint64));
          }
          continue;

        case REG_NODE_CONSTANT:
          shape->n_dims = 0;
          continue;

        case REG_NODE_OP:
        default:
          break;
        }

      a = &result[node->args[0]];
      b = node->n_args > 1 ? &result[node->args[1]] : NULL;

      /* The shape rules of the operator kinds, documented with RegOpKind. */
      switch (reg_op_get_kind (node->op))
        {
        case REG_OP_KIND_ELEMENTWISE_BINARY:
          /* A constant is a scalar that stretches to the other side. */
          if (same_shape (a, b) ||
              get_node (graph, node->args[1])->kind == REG_NODE_CONSTANT)
            *shape = *a;
          else if (get_node (graph, node->args[0])->kind == REG_NODE_CONSTANT)
            *shape = *b;
          else
            return set_shape_error (error, graph, i, a, b, "shapes differ");
          break;

        case REG_OP_KIND_ELEMENTWISE_UNARY:
          *shape = *a;
          break;

        case REG_OP_KIND_REDUCTION:
          shape->n_dims = 0;
          break;

        case REG_OP_KIND_MATMUL:
          if (a->n_dims != 2 || b->n_dims != 2)
            return set_shape_error (error, graph, i, a, b,
                                    "both must have 2 dimensions");
          if (a->dims[1] != b->dims[0])
            return set_shape_error (error, graph, i, a, b,
                                    "inner dimensions differ (%" G_GINT64_FORMAT
                                    " and %" G_GINT64_FORMAT ")",
                                    a->dims[1], b->dims[0]);
          shape->n_dims = 2;
          shape->dims[0] = a->dims[0];
          shape->dims[1] = b->dims[1];
          break;

        default:
          g_assert_not_reached ();
        }

      /* Operands that are empty make a result that may not be: [N, 0] by
       * [0, M] is N by M.  A result no tensor can hold is refused here,
       * before any backend computes sizes from it. */
      if (!_reg_shape_count (shape->dims, shape->n_dims, NULL))
        {
          g_autofree char *str = _reg_shape_to_string (shape->dims, shape->n_dims);

          if (b != NULL)
            return set_shape_error (error, graph, i, a, b,
                                    "the result %s has more elements than memory can address",
                                    str);

          g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE,
                       "node %u: the result %s of %s has more elements than memory can address",
                       i, str, reg_op_get_name (node->op));
          return FALSE;
        }
    }

  if (shapes != NULL)
    *shapes = g_steal_pointer (&result);

  return TRUE;
}

/**
 * reg_graph_infer_shapes:
 * @self: a [class@Reg.Graph]
 * @example_inputs: (element-type Reg.Tensor): one tensor per input of
 *   @self, in order; only their shapes matter
 * @error: return location for a #GError
 *
 * Computes the shape of every node of @self for inputs shaped like
 * @example_inputs, under the rules of the operators (see
 * [class@Reg.Graph]): what compiling @self checks before any backend runs.
 *
 * Fails with the error of [method@Reg.Graph.validate] when @self is not
 * valid, and with %REG_GRAPH_ERROR_SHAPE when the number of example inputs
 * differs from the number of inputs of @self, when shapes do not fit, or
 * when a node's result would have more elements than memory can address
 * (`matmul` of a 2147483647x0 by a 0x2147483649 matrix); the message then
 * names the node, the operator and the shapes.
 *
 * This function only reads @self: several threads may call it at once.
 *
 * Returns: (transfer full): the shapes, a `aax` variant with one array of
 *   dimensions per node, indexed by node id; or %NULL with @error set
 */
GVariant *
reg_graph_infer_shapes (RegGraph   *self,
                        GPtrArray  *example_inputs,
                        GError    **error)
{
  g_autofree RegShape *shapes = NULL;
  GVariantBuilder builder;

  g_return_val_if_fail (REG_IS_GRAPH (self), NULL);
  g_return_val_if_fail (example_inputs != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  for (guint i = 0; i < example_inputs->len; i++)
    g_return_val_if_fail (REG_IS_TENSOR (g_ptr_array_index (example_inputs, i)), NULL);

  if (!_reg_graph_infer_shapes (self, example_inputs, &shapes, error))
    return NULL;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aax"));
  for (guint i = 0; i < self->nodes->len; i++)
    g_variant_builder_add_value (&builder,
                                 g_variant_new_fixed_array (G_VARIANT_TYPE_INT64,
                                                            shapes[i].dims,
                                                            shapes[i].n_dims,
                                                            sizeof (gint64)));

  return g_variant_ref_sink (g_variant_builder_end (&builder));
}

/* ---- Compile cache key -------------------------------------------------- */

/* Writes a key into a GByteArray grown ahead by key_reserve(), for a
 * whole node at a time: the key of a large graph is written a few bytes
 * at a time, and a call or a bounds check per field would be most of its
 * time. */
typedef struct
{
  GByteArray *out;
  gsize       used;
  gsize       max_size;
} KeyWriter;

/* The least the array grows by: the key of a small graph then grows it
 * once. */
#define KEY_MIN_GROWTH 4096

/* Room for @n more bytes, which the caller writes before it advances
 * w->used; NULL when the key would pass w->max_size. */
static inline guint8 *
key_reserve (KeyWriter *w,
             gsize      n)
{
  if (n > w->max_size - w->used)
    return NULL;
  if (w->used + n > w->out->len)
    {
      gsize length = MAX (MAX ((gsize) w->out->len * 2, w->used + n), KEY_MIN_GROWTH);

      g_byte_array_set_size (w->out, MIN (length, w->max_size));
    }

  return w->out->data + w->used;
}

static inline guint8 *
put_u32 (guint8  *p,
         guint32  value)
{
  memcpy (p, &value, sizeof value);
  return p + sizeof value;
}

static inline guint8 *
put_bytes (guint8     *p,
           const void *data,
           gsize       length)
{
  p = put_u32 (p, (guint32) length);
  memcpy (p, data, length);
  return p + length;
}

/* The most an operand takes: a marker and a double. */
#define KEY_OPERAND_MAX (sizeof (guint32) + sizeof (double))

/* Whether @name is one that name_nodes() could generate (`v`, digits,
 * then any underscores), so that an explicit name might push a generated
 * one aside. */
static gboolean
looks_generated (const char *name)
{
  const char *p = name + 1;

  if (name[0] != 'v' || !g_ascii_isdigit (*p))
    return FALSE;
  while (g_ascii_isdigit (*p))
    p++;
  while (*p == '_')
    p++;

  return *p == '\0';
}

/* Writes `vN` into @buffer (at least 12 bytes), returning its length:
 * g_snprintf() would be most of the key's time. */
static gsize
format_generated_name (char  *buffer,
                       guint  node)
{
  char digits[10];
  gsize n = 0, length = 0;

  do
    {
      digits[n++] = (char) ('0' + node % 10);
      node /= 10;
    }
  while (node > 0);

  buffer[length++] = 'v';
  while (n > 0)
    buffer[length++] = digits[--n];

  return length;
}

/* An operand as the text form has it: a constant by value (every NaN
 * prints `nan`, other doubles print as themselves, -0.0 included), a node
 * by its line (inputs first, then the operator calls in order).  Writes
 * at most KEY_OPERAND_MAX bytes. */
static inline guint8 *
put_operand (guint8      *p,
             RegGraph    *self,
             const guint *line_of,
             guint        id)
{
  const Node *node = get_node (self, id);

  if (node->kind == REG_NODE_CONSTANT)
    {
      double value = isnan (node->value) ? NAN : node->value;

      p = put_u32 (p, G_MAXUINT32);
      memcpy (p, &value, sizeof value);
      return p + sizeof value;
    }

  return put_u32 (p, line_of[id]);
}

gboolean
_reg_graph_append_key (RegGraph   *self,
                       GByteArray *out,
                       gsize       max_size)
{
  guint line_of_small[128];
  g_autofree guint *line_of_large = NULL;
  guint *line_of = line_of_small;
  g_autoptr(GStringChunk) chunk = NULL;
  g_autofree const char **names = NULL;
  KeyWriter w = { out, out->len, max_size };
  char generated[16];
  guint line = 0;
  guint8 *p;

  g_return_val_if_fail (out->len <= max_size && max_size <= G_MAXUINT, FALSE);

  if (self->nodes->len > G_N_ELEMENTS (line_of_small))
    line_of = line_of_large = g_new (guint, self->nodes->len);

  /* The names of the text form (see name_nodes()).  Unless an explicit
   * name looks like a generated one, node N's generated name is `vN`. */
  if (self->names_clash)
    {
      chunk = g_string_chunk_new (64);
      names = name_nodes (self, chunk);
    }

  for (guint i = 0; i < self->inputs->len; i++)
    line_of[g_array_index (self->inputs, guint, i)] = line++;
  for (guint i = 0; i < self->nodes->len; i++)
    if (get_node (self, i)->kind == REG_NODE_OP)
      line_of[i] = line++;

  if ((p = key_reserve (&w, sizeof (guint32))) == NULL)
    return FALSE;
  w.used = put_u32 (p, self->inputs->len) - out->data;
  for (guint i = 0; i < self->inputs->len; i++)
    {
      const Node *node = get_node (self, g_array_index (self->inputs, guint, i));

      if ((p = key_reserve (&w, sizeof (guint32) + node->name_length)) == NULL)
        return FALSE;
      w.used = put_bytes (p, node->name, node->name_length) - out->data;
    }

  for (guint i = 0; i < self->nodes->len; i++)
    {
      const Node *node = get_node (self, i);
      const char *name;
      gsize name_length;

      if (node->kind != REG_NODE_OP)
        continue;

      if (names != NULL)
        {
          name = names[i];
          name_length = strlen (name);
        }
      else if (node->name != NULL)
        {
          name = node->name;
          name_length = node->name_length;
        }
      else
        {
          name = generated;
          name_length = format_generated_name (generated, i);
        }

      /* The name, the operator and its arity, the operands. */
      p = key_reserve (&w, 2 * sizeof (guint32) + name_length + MAX_ARITY * KEY_OPERAND_MAX);
      if (p == NULL)
        return FALSE;
      p = put_bytes (p, name, name_length);
      p = put_u32 (p, (guint32) node->op | node->n_args << 24);
      for (guint j = 0; j < node->n_args; j++)
        p = put_operand (p, self, line_of, node->args[j]);
      w.used = p - out->data;
    }

  if ((p = key_reserve (&w, sizeof (guint32))) == NULL)
    return FALSE;
  w.used = put_u32 (p, self->outputs->len) - out->data;
  for (guint i = 0; i < self->outputs->len; i++)
    {
      if ((p = key_reserve (&w, KEY_OPERAND_MAX)) == NULL)
        return FALSE;
      w.used = put_operand (p, self, line_of, g_array_index (self->outputs, guint, i)) - out->data;
    }

  g_byte_array_set_size (out, w.used);

  return TRUE;
}
