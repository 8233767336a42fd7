/* reg-graph.c: computation graphs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <string.h>

#include "reg-graph-private.h"
#include "reg-message-private.h"

/**
 * RegGraph:
 *
 * A computation graph in the manner of torch.fx: named inputs, scalar
 * constants and calls of operators ([enum@Reg.Op]) on earlier nodes, plus
 * an ordered list of outputs.  Nodes are numbered densely from 0 in the
 * order they are defined; arguments are always earlier nodes, so that
 * order is a valid evaluation order.
 *
 * A graph is built with [method@Reg.Graph.add_input],
 * [method@Reg.Graph.add_constant], [method@Reg.Graph.add_op] (which may be
 * followed by [method@Reg.Graph.set_node_name]) and
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
 * A graph is not locked: build it in one thread; the builder calls change
 * it, and no other thread may use it meanwhile.  Once built, any number of
 * threads may read it (inspect, print, compile it) at the same time.
 * Compiling never depends on the graph staying as it is: a backend is
 * given a copy that never changes (see [vfunc@Reg.Compiler.compile]), so
 * the caller may go on building its graph afterwards.
 */

G_DEFINE_FINAL_TYPE (RegGraph, reg_graph, G_TYPE_OBJECT)

static void
reg_graph_finalize (GObject *object)
{
  RegGraph *self = REG_GRAPH (object);

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
  self->nodes = g_array_new (FALSE, FALSE, sizeof (RegNode));
  self->inputs = g_array_new (FALSE, FALSE, sizeof (guint));
  self->outputs = g_array_new (FALSE, FALSE, sizeof (guint));
  self->names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/* ---- Builder ------------------------------------------------------------ */

char *
_reg_graph_arity_message (RegOp op,
                          guint n_args)
{
  guint arity = reg_op_get_arity (op);

  return g_strdup_printf ("%s takes %u argument%s, %u given", reg_op_get_name (op),
                          arity, arity == 1 ? "" : "s", n_args);
}

guint
_reg_graph_append (RegGraph    *self,
                   RegNodeKind  kind,
                   RegOp        op,
                   const guint *args,
                   double       value,
                   char        *name)
{
  RegNode node = { .kind = kind, .op = op, .value = value, .name = name };
  guint id = self->nodes->len;

  if (kind == REG_NODE_OP)
    {
      node.n_args = reg_op_get_arity (op);
      g_assert (node.n_args <= REG_GRAPH_MAX_ARITY);
      memcpy (node.args, args, node.n_args * sizeof (guint));
    }
  g_array_append_val (self->nodes, node);
  if (name != NULL)
    g_hash_table_insert (self->names, name, GUINT_TO_POINTER (id));
  if (kind == REG_NODE_INPUT)
    g_array_append_val (self->inputs, id);

  return id;
}

void
_reg_graph_set_outputs (RegGraph    *self,
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

/* Where a failed builder call without a GError of its own keeps its error
 * for reg_graph_validate(): only the first one is kept, as later ones
 * often follow from it. */
#define BUILDER_ERROR(self) ((self)->builder_error == NULL ? &(self)->builder_error : NULL)

/* Fails with REG_GRAPH_ERROR_PARSE or _REDEFINED when @name may not name a
 * new node of @self; @what says what it would name, for the message. */
static gboolean
check_new_name (RegGraph    *self,
                const char  *name,
                const char  *what,
                GError     **error)
{
  g_autofree char *quoted = _reg_quote_for_message (name, strlen (name));

  if (!_reg_graph_is_valid_name (name))
    {
      g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_PARSE, "invalid %s %s: names are "
                   "identifiers ([A-Za-z_][A-Za-z0-9_]*) other than inf and nan", what, quoted);
      return FALSE;
    }
  if (g_hash_table_contains (self->names, name))
    {
      g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_REDEFINED,
                   "%s %s is already defined", what, quoted);
      return FALSE;
    }

  return TRUE;
}

/**
 * reg_graph_new:
 *
 * Creates an empty graph.
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
 * Adds an input to @self, after the inputs already there.  A @name that is
 * not an identifier (`[A-Za-z_][A-Za-z0-9_]*`), or is `inf` or `nan`, is a
 * %REG_GRAPH_ERROR_PARSE error, one defined already in @self a
 * %REG_GRAPH_ERROR_REDEFINED error: the call then adds nothing, and @self
 * keeps the first such error for [method@Reg.Graph.validate].  No other
 * thread may use @self meanwhile.
 *
 * Returns: the id of the new node, or %REG_GRAPH_INVALID_NODE
 */
guint
reg_graph_add_input (RegGraph   *self,
                     const char *name)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), REG_GRAPH_INVALID_NODE);
  g_return_val_if_fail (!self->frozen, REG_GRAPH_INVALID_NODE);
  g_return_val_if_fail (name != NULL, REG_GRAPH_INVALID_NODE);

  if (!check_new_name (self, name, "input name", BUILDER_ERROR (self)))
    return REG_GRAPH_INVALID_NODE;

  return _reg_graph_append (self, REG_NODE_INPUT, 0, NULL, 0.0, g_strdup (name));
}

/**
 * reg_graph_add_constant:
 * @self: a [class@Reg.Graph]
 * @value: the value of the constant
 *
 * Adds a scalar constant to @self.  Any double is a constant, infinities
 * and NaN included.  No other thread may use @self meanwhile.
 *
 * Returns: the id of the new node
 */
guint
reg_graph_add_constant (RegGraph *self,
                        double    value)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), REG_GRAPH_INVALID_NODE);
  g_return_val_if_fail (!self->frozen, REG_GRAPH_INVALID_NODE);

  return _reg_graph_append (self, REG_NODE_CONSTANT, 0, NULL, value, NULL);
}

/**
 * reg_graph_add_op:
 * @self: a [class@Reg.Graph]
 * @op: the name of an operator, such as `"add"` (see [func@Reg.Op.get_name])
 * @args: (array length=n_args) (nullable): the ids of the argument nodes;
 *   %NULL when @n_args is 0
 * @n_args: the number of arguments, [func@Reg.Op.get_arity] of the operator
 * @error: return location for a #GError
 *
 * Adds a call of the operator named @op on earlier nodes to @self.  The
 * call has no name: it gets one that no other node has when @self is
 * printed, unless [method@Reg.Graph.set_node_name] gives it one.
 *
 * Fails with %REG_GRAPH_ERROR_UNKNOWN_OP for an operator libreg does not
 * know, %REG_GRAPH_ERROR_ARITY for the wrong number of arguments and
 * %REG_GRAPH_ERROR_UNDEFINED for an argument that is not a node of @self
 * (%REG_GRAPH_INVALID_NODE included); the call then adds nothing, and the
 * error does not stay with @self.  No other thread may use @self meanwhile.
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
  g_return_val_if_fail (!self->frozen, REG_GRAPH_INVALID_NODE);
  g_return_val_if_fail (op != NULL, REG_GRAPH_INVALID_NODE);
  g_return_val_if_fail (args != NULL || n_args == 0, REG_GRAPH_INVALID_NODE);
  g_return_val_if_fail (error == NULL || *error == NULL, REG_GRAPH_INVALID_NODE);

  if (!reg_op_from_name (op, &value))
    {
      g_autofree char *quoted = _reg_quote_for_message (op, strlen (op));

      g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNKNOWN_OP, "unknown operator %s", quoted);
      return REG_GRAPH_INVALID_NODE;
    }

  if (n_args != reg_op_get_arity (value))
    {
      g_autofree char *message = _reg_graph_arity_message (value, n_args);

      g_set_error_literal (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_ARITY, message);
      return REG_GRAPH_INVALID_NODE;
    }

  for (guint i = 0; i < n_args; i++)
    {
      if (args[i] < self->nodes->len)
        continue;
      if (args[i] == REG_GRAPH_INVALID_NODE)
        g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNDEFINED, "argument %u of %s is "
                     "REG_GRAPH_INVALID_NODE, the result of a failed call", i, op);
      else
        g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNDEFINED, "argument %u of %s: node "
                     "%u does not exist (the graph has %u nodes)", i, op, args[i], self->nodes->len);
      return REG_GRAPH_INVALID_NODE;
    }

  return _reg_graph_append (self, REG_NODE_OP, value, args, 0.0, NULL);
}

/**
 * reg_graph_set_node_name:
 * @self: a [class@Reg.Graph]
 * @node: the id of an operator call that has no name yet
 * @name: the name of its result, as in `NAME = OP(ARGS)` in the text form
 * @error: return location for a #GError
 *
 * Names the result of an operator call added by [method@Reg.Graph.add_op].
 * Fails as [method@Reg.Graph.add_input] does for a bad or taken @name; the
 * node then stays unnamed, and the error does not stay with @self.  No
 * other thread may use @self meanwhile.
 *
 * Returns: %TRUE if @node is named @name, %FALSE with @error set otherwise
 */
gboolean
reg_graph_set_node_name (RegGraph    *self,
                         guint        node,
                         const char  *name,
                         GError     **error)
{
  RegNode *n;
  char *copy;

  g_return_val_if_fail (REG_IS_GRAPH (self), FALSE);
  g_return_val_if_fail (!self->frozen, FALSE);
  g_return_val_if_fail (node < self->nodes->len, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  n = &g_array_index (self->nodes, RegNode, node);
  g_return_val_if_fail (n->kind == REG_NODE_OP && n->name == NULL, FALSE);

  if (!check_new_name (self, name, "name", error))
    return FALSE;

  n->name = copy = g_strdup (name);
  g_hash_table_insert (self->names, copy, GUINT_TO_POINTER (node));

  return TRUE;
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
 * a graph whose outputs were never set does not validate.  An id that is
 * not a node of @self (%REG_GRAPH_INVALID_NODE included) is a
 * %REG_GRAPH_ERROR_UNDEFINED error: the call then changes nothing, and
 * @self keeps the error as [method@Reg.Graph.add_input] does.  No other
 * thread may use @self meanwhile.
 */
void
reg_graph_set_outputs (RegGraph    *self,
                       const guint *nodes,
                       guint        n)
{
  g_return_if_fail (REG_IS_GRAPH (self));
  g_return_if_fail (!self->frozen);
  g_return_if_fail (nodes != NULL || n == 0);

  for (guint i = 0; i < n; i++)
    if (nodes[i] >= self->nodes->len)
      {
        g_set_error (BUILDER_ERROR (self), REG_GRAPH_ERROR, REG_GRAPH_ERROR_UNDEFINED,
                     "output %u: node %u does not exist (the graph has %u nodes)",
                     i, nodes[i], self->nodes->len);
        return;
      }

  _reg_graph_set_outputs (self, nodes, n);
}

/**
 * reg_graph_validate:
 * @self: a [class@Reg.Graph]
 * @error: return location for a #GError
 *
 * Checks that @self is a complete graph: no builder call failed (the first
 * error of [method@Reg.Graph.add_input] or [method@Reg.Graph.set_outputs]
 * is reported here), and its outputs were set (else
 * %REG_GRAPH_ERROR_PARSE, as for a text without `return`).  Several threads
 * may call it at once.
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

/* ---- Inspection: the getters only read ---------------------------------- */

/**
 * reg_graph_get_n_nodes:
 * @self: a [class@Reg.Graph]
 *
 * Returns: the number of nodes of @self; their ids run from 0 to this
 *   minus 1
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
 * Returns: the kind of @node
 */
RegNodeKind
reg_graph_get_node_kind (RegGraph *self,
                         guint     node)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), REG_NODE_INPUT);
  g_return_val_if_fail (node < self->nodes->len, REG_NODE_INPUT);

  return _reg_graph_get_node (self, node)->kind;
}

/**
 * reg_graph_get_node_name:
 * @self: a [class@Reg.Graph]
 * @node: a node id
 *
 * Returns: (nullable): the name of @node, an input or an operator call's
 *   result (from the text or [method@Reg.Graph.set_node_name]); %NULL for
 *   constants and unnamed calls
 */
const char *
reg_graph_get_node_name (RegGraph *self,
                         guint     node)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), NULL);
  g_return_val_if_fail (node < self->nodes->len, NULL);

  return _reg_graph_get_node (self, node)->name;
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
  const RegNode *n;

  g_return_val_if_fail (REG_IS_GRAPH (self), NULL);
  g_return_val_if_fail (node < self->nodes->len, NULL);

  n = _reg_graph_get_node (self, node);
  return n->kind == REG_NODE_OP ? reg_op_get_name (n->op) : NULL;
}

/**
 * reg_graph_get_node_operator:
 * @self: a [class@Reg.Graph]
 * @node: the id of a %REG_NODE_OP node
 *
 * Returns: the operator @node calls
 */
RegOp
reg_graph_get_node_operator (RegGraph *self,
                             guint     node)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), REG_OP_ADD);
  g_return_val_if_fail (node < self->nodes->len, REG_OP_ADD);
  g_return_val_if_fail (_reg_graph_get_node (self, node)->kind == REG_NODE_OP, REG_OP_ADD);

  return _reg_graph_get_node (self, node)->op;
}

/**
 * reg_graph_get_node_args:
 * @self: a [class@Reg.Graph]
 * @node: a node id
 * @n_args: (out) (optional): return location for the number of arguments
 *
 * Returns: (array length=n_args) (transfer none) (nullable): the ids of the
 *   arguments of @node, or %NULL when it is not an operator call; the array
 *   belongs to @self and is valid until @self changes
 */
const guint *
reg_graph_get_node_args (RegGraph *self,
                         guint     node,
                         guint    *n_args)
{
  const RegNode *n;

  g_return_val_if_fail (REG_IS_GRAPH (self), NULL);
  g_return_val_if_fail (node < self->nodes->len, NULL);

  n = _reg_graph_get_node (self, node);
  if (n_args != NULL)
    *n_args = n->n_args;

  return n->n_args > 0 ? n->args : NULL;
}

/**
 * reg_graph_get_node_value:
 * @self: a [class@Reg.Graph]
 * @node: the id of a %REG_NODE_CONSTANT node
 *
 * Returns: the value of the constant @node
 */
double
reg_graph_get_node_value (RegGraph *self,
                          guint     node)
{
  g_return_val_if_fail (REG_IS_GRAPH (self), 0.0);
  g_return_val_if_fail (node < self->nodes->len, 0.0);
  g_return_val_if_fail (_reg_graph_get_node (self, node)->kind == REG_NODE_CONSTANT, 0.0);

  return _reg_graph_get_node (self, node)->value;
}

static const guint *
get_ids (GArray *array,
         guint  *n)
{
  if (n != NULL)
    *n = array->len;

  return array->len > 0 ? (const guint *) array->data : NULL;
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

  return get_ids (self->inputs, n_inputs);
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

  return get_ids (self->outputs, n_outputs);
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
  for (int precision = 0;; precision++)
    {
      char format[8], buf[G_ASCII_DTOSTR_BUF_SIZE];
      const char *e;
      double back;
      int n = 0, exponent, i;

      /* The correctly rounded candidate with precision + 1 digits, in the
       * C locale whatever the process locale is. */
      g_snprintf (format, sizeof format, "%%.%de", precision);
      back = g_ascii_strtod (g_ascii_formatd (buf, sizeof buf, format, value), NULL);
      e = strchr (buf, 'e');
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
          for (i = n - 1; i >= 0 && digits[i] == '9'; i--)
            digits[i] = '0';
          if (i >= 0)
            digits[i]++;
          else
            digits[0] = '1', exponent++;
          g_snprintf (buf, sizeof buf, "%c.%se%d", digits[0], digits + 1, exponent);
          back = g_ascii_strtod (buf, NULL);
        }

      /* 17 digits always read back; a carry may leave zeros behind. */
      if (back == value || precision == 16)
        {
          while (n > 1 && digits[n - 1] == '0')
            digits[--n] = '\0';
          return exponent;
        }
    }
}

/* Appends @value as Python's repr() prints a float. */
static void
append_double (GString *out,
               double   value)
{
  char digits[18];
  int exponent, n, point;

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
  if (isinf (value) || value == 0.0)
    {
      g_string_append (out, isinf (value) ? "inf" : "0.0");
      return;
    }

  exponent = shortest_digits (value, digits);
  n = (int) strlen (digits);
  point = exponent + 1;   /* digits before the decimal point, -3 to 16 below */

  if (exponent < -4 || exponent >= 16)
    g_string_append_printf (out, "%c%s%se%c%02d", digits[0], n > 1 ? "." : "", digits + 1,
                            exponent < 0 ? '-' : '+', ABS (exponent));
  else if (point <= 0)
    g_string_append_printf (out, "0.%.*s%s", -point, "000", digits);
  else if (point >= n)
    g_string_append_printf (out, "%s%.*s.0", digits, point - n, "000000000000000");
  else
    g_string_append_printf (out, "%.*s.%s", point, digits, digits + point);
}

/* The name each node has in the text form: constants are printed inline
 * and get none; an unnamed call gets `vN` (node N), with `_` appended
 * until no name of @self is the same.  Such a name can only come from
 * node N, so generated names never clash.  They are kept in @chunk. */
static const char **
name_nodes (RegGraph     *self,
            GStringChunk *chunk)
{
  const char **names = g_new0 (const char *, MAX (self->nodes->len, 1));
  g_autoptr(GString) candidate = g_string_new (NULL);

  for (guint i = 0; i < self->nodes->len; i++)
    {
      const RegNode *node = _reg_graph_get_node (self, i);

      names[i] = node->name;
      if (node->name != NULL || node->kind == REG_NODE_CONSTANT)
        continue;

      g_string_printf (candidate, "v%u", i);
      while (g_hash_table_contains (self->names, candidate->str))
        g_string_append_c (candidate, '_');
      names[i] = g_string_chunk_insert_len (chunk, candidate->str, candidate->len);
    }

  return names;
}

/* Appends the nodes @ids separated by commas, constants as their value. */
static void
append_operands (GString      *out,
                 RegGraph     *self,
                 const char  **names,
                 const guint  *ids,
                 guint         n)
{
  for (guint i = 0; i < n; i++)
    {
      const RegNode *node = _reg_graph_get_node (self, ids[i]);

      if (i > 0)
        g_string_append (out, ", ");
      if (node->kind == REG_NODE_CONSTANT)
        append_double (out, node->value);
      else
        g_string_append (out, names[ids[i]]);
    }
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
 * not printed.  Operator calls without a name get names that no other node
 * of @self has.  Parsing the text and printing the graph again gives the
 * same text.  Several threads may call it at once.
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

  append_operands (out, self, names, (const guint *) self->inputs->data, self->inputs->len);
  g_string_append (out, "):\n");

  for (guint i = 0; i < self->nodes->len; i++)
    {
      const RegNode *node = _reg_graph_get_node (self, i);

      if (node->kind != REG_NODE_OP)
        continue;
      g_string_append_printf (out, "  %s = %s(", names[i], reg_op_get_name (node->op));
      append_operands (out, self, names, node->args, node->n_args);
      g_string_append (out, ")\n");
    }

  g_string_append (out, "  return (");
  append_operands (out, self, names, (const guint *) self->outputs->data, self->outputs->len);
  g_string_append (out, self->outputs->len == 1 ? ",)\n" : ")\n");

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* ---- Shapes ------------------------------------------------------------- */

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
  const RegNode *node = _reg_graph_get_node (self, id);
  g_autofree char *where = node->name != NULL ? g_strdup_printf ("node '%s'", node->name)
                                              : g_strdup_printf ("node %u", id);
  g_autofree char *a_str = _reg_shape_to_string (a->dims, a->n_dims);
  g_autofree char *b_str = _reg_shape_to_string (b->dims, b->n_dims);
  g_autofree char *reason = NULL;
  va_list args;

  va_start (args, format);
  reason = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, REG_GRAPH_ERROR, REG_GRAPH_ERROR_SHAPE, "%s: %s of %s and %s: %s",
               where, reg_op_get_name (node->op), a_str, b_str, reason);

  return FALSE;
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

  /* Zeroed: every shape starts 0-d, the shape of constants and sums. */
  result = g_new0 (RegShape, MAX (graph->nodes->len, 1));

  for (guint i = 0; i < graph->nodes->len; i++)
    {
      const RegNode *node = _reg_graph_get_node (graph, i);
      RegShape *shape = &result[i];
      const RegShape *a, *b;

      if (node->kind == REG_NODE_INPUT)
        {
          RegTensor *example = g_ptr_array_index (example_inputs, next_input++);
          const gint64 *dims = reg_tensor_get_shape (example, &shape->n_dims);

          memcpy (shape->dims, dims, shape->n_dims * sizeof (gint64));
        }
      if (node->kind != REG_NODE_OP)
        continue;

      a = &result[node->args[0]];
      b = node->n_args > 1 ? &result[node->args[1]] : NULL;

      /* The shape rules of the operator kinds, documented with RegOpKind. */
      switch (reg_op_get_kind (node->op))
        {
        case REG_OP_KIND_ELEMENTWISE_BINARY:
          /* A constant is a scalar that stretches to the other side. */
          if (_reg_shape_is (a, b->dims, b->n_dims) ||
              _reg_graph_get_node (graph, node->args[1])->kind == REG_NODE_CONSTANT)
            *shape = *a;
          else if (_reg_graph_get_node (graph, node->args[0])->kind == REG_NODE_CONSTANT)
            *shape = *b;
          else
            return set_shape_error (error, graph, i, a, b, "shapes differ");
          break;

        case REG_OP_KIND_ELEMENTWISE_UNARY:
          *shape = *a;
          break;

        case REG_OP_KIND_REDUCTION:
          break;

        case REG_OP_KIND_MATMUL:
          if (a->n_dims != 2 || b->n_dims != 2)
            return set_shape_error (error, graph, i, a, b, "both must have 2 dimensions");
          if (a->dims[1] != b->dims[0])
            return set_shape_error (error, graph, i, a, b, "inner dimensions differ (%"
                                    G_GINT64_FORMAT " and %" G_GINT64_FORMAT ")",
                                    a->dims[1], b->dims[0]);
          *shape = (RegShape) { 2, { a->dims[0], b->dims[1] } };
          /* [N, 0] by [0, M] is N by M, which may be more than a tensor can
           * hold: refused here, before any backend computes sizes from it.
           * The other rules give the shape of an operand, or none. */
          if (!_reg_shape_count (shape->dims, shape->n_dims, NULL))
            {
              g_autofree char *str = _reg_shape_to_string (shape->dims, shape->n_dims);

              return set_shape_error (error, graph, i, a, b, "the result %s has more "
                                      "elements than memory can address", str);
            }
          break;
        }
    }

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
 * @example_inputs, under the shape rules of the operators
 * ([enum@Reg.OpKind]): what compiling @self checks before any backend runs.
 *
 * Fails with the error of [method@Reg.Graph.validate] when @self is not
 * valid, and with %REG_GRAPH_ERROR_SHAPE when the number of example inputs
 * differs from the number of inputs of @self, when shapes do not fit, or
 * when a node's result would have more elements than memory can address
 * (`matmul` of a 2147483647x0 by a 0x2147483649 matrix); the message then
 * names the node, the operator and the shapes.  Several threads may call
 * it at once.
 *
 * Returns: (transfer full): the shapes, one per node, indexed by node id
 *   ([method@Reg.ShapeList.get_shape]); or %NULL with @error set
 */
RegShapeList *
reg_graph_infer_shapes (RegGraph   *self,
                        GPtrArray  *example_inputs,
                        GError    **error)
{
  RegShape *shapes = NULL;

  g_return_val_if_fail (REG_IS_GRAPH (self), NULL);
  g_return_val_if_fail (example_inputs != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  for (guint i = 0; i < example_inputs->len; i++)
    g_return_val_if_fail (REG_IS_TENSOR (g_ptr_array_index (example_inputs, i)), NULL);

  if (!_reg_graph_infer_shapes (self, example_inputs, &shapes, error))
    return NULL;

  return _reg_shape_list_new_take (shapes, self->nodes->len);
}

RegGraph *
_reg_graph_dup_frozen (RegGraph *self)
{
  RegGraph *copy;

  if (self->frozen)
    return g_object_ref (self);

  copy = reg_graph_new ();
  for (guint i = 0; i < self->nodes->len; i++)
    {
      const RegNode *node = _reg_graph_get_node (self, i);

      _reg_graph_append (copy, node->kind, node->op, node->args, node->value,
                         g_strdup (node->name));
    }
  if (self->has_outputs)
    _reg_graph_set_outputs (copy, (const guint *) self->outputs->data, self->outputs->len);
  copy->builder_error = self->builder_error != NULL ? g_error_copy (self->builder_error) : NULL;
  copy->frozen = TRUE;

  return copy;
}
