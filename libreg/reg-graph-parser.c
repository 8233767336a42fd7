/* reg-graph-parser.c: the text form of graphs, read
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A hand-written lexer and a recursive-descent parser of one statement at
 * a time, building the graph with the internal builder of
 * reg-graph-private.h.  A failure drops the whole graph, so nodes are added
 * as soon as they are read.  The grammar is documented with RegGraph
 * (reg-graph.c).
 */

#include <math.h>
#include <string.h>

#include "reg-graph-private.h"
#include "reg-message-private.h"

/* The number of digits at @p.  A loop, not strspn(), whose sanitizer
 * interceptors read the whole rest of the text at every call. */
static gsize
count_digits (const char *p)
{
  const char *q = p;

  while (g_ascii_isdigit (*q))
    q++;
  return q - p;
}

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

static gsize
name_length (const char *p)
{
  const char *q = p;

  while (is_name_char (*q))
    q++;
  return q - p;
}

/* `inf` and `nan` are numbers in the text form, so they cannot be names. */
static gboolean
is_number_word (const char *word,
                gsize       len)
{
  return len == 3 && (memcmp (word, "inf", 3) == 0 || memcmp (word, "nan", 3) == 0);
}

gboolean
_reg_graph_is_valid_name (const char *name)
{
  gsize len = name_length (name);

  return is_name_start (name[0]) && name[len] == '\0' && !is_number_word (name, len);
}

/* A token's type is its character for punctuation, line breaks and the end
 * of the text (NUL). */
enum {
  TOKEN_END = '\0',
  TOKEN_NEWLINE = '\n',
  TOKEN_NAME = 'a',
  TOKEN_NUMBER = '0',
};

typedef struct
{
  char        type;
  const char *pos;
  gsize       len;
  const char *line_start;   /* where the line of @pos starts, for messages */
  guint       line;
  double      value;        /* TOKEN_NUMBER */
} Token;

typedef struct
{
  RegGraph     *graph;
  const char   *p;            /* the next byte to read */
  const char   *line_start;
  guint         line;
  guint         depth;        /* of parentheses: line breaks inside are space */
  Token         tok;          /* the current token */
  GArray       *ids;          /* guint: the operands of the current statement */
  GStringChunk *strings;      /* token texts and quotes, freed with the parser */
} Parser;

static const char *
text (Parser      *parser,
      const Token *tok)
{
  return g_string_chunk_insert_len (parser->strings, tok->pos, tok->len);
}

static const char *
quote (Parser      *parser,
       const Token *tok)
{
  g_autofree char *quoted = _reg_quote_for_message (tok->pos, tok->len);

  return g_string_chunk_insert (parser->strings, quoted);
}

G_GNUC_PRINTF (4, 5)
static gboolean
set_parse_error (GError      **error,
                 const Token  *tok,
                 RegGraphError code,
                 const char   *format,
                 ...)
{
  g_autofree char *message = NULL;
  guint column = 1;
  va_list args;

  /* Columns count characters: only comments may hold non-ASCII text, and
   * counting the bytes that start a UTF-8 sequence is right for the valid
   * prefix that precedes any error. */
  for (const char *p = tok->line_start; p < tok->pos; p++)
    if (((guchar) *p & 0xC0) != 0x80)
      column++;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, REG_GRAPH_ERROR, code, "%u:%u: %s", tok->line, column, message);

  return FALSE;
}

/* Fails with "expected WHAT, got TOKEN" at the current token. */
G_GNUC_PRINTF (3, 4)
static gboolean
unexpected (Parser      *parser,
            GError     **error,
            const char  *format,
            ...)
{
  const Token *tok = &parser->tok;
  g_autofree char *what = NULL;
  g_autofree char *got = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);

  if (tok->type == TOKEN_NAME || tok->type == TOKEN_NUMBER)
    got = g_strdup_printf ("%s %s", tok->type == TOKEN_NAME ? "name" : "number", quote (parser, tok));
  else if (tok->type == TOKEN_NEWLINE || tok->type == TOKEN_END)
    got = g_strdup (tok->type == TOKEN_END ? "end of text" : "end of line");
  else
    got = g_strdup_printf ("'%c'", tok->type);

  return set_parse_error (error, tok, REG_GRAPH_ERROR_PARSE, "expected %s, got %s", what, got);
}

static gboolean
is_word (const Token *tok,
         const char  *word)
{
  return tok->type == TOKEN_NAME && tok->len == strlen (word) &&
         memcmp (tok->pos, word, tok->len) == 0;
}

/* Fails at parser->p, which does not start a token. */
static gboolean
bad_character (Parser  *parser,
               GError **error)
{
  gunichar c = g_utf8_get_char_validated (parser->p, -1);
  char utf8[7] = { 0 };

  parser->tok.pos = parser->p;
  if (c == (gunichar) -1 || c == (gunichar) -2)
    return set_parse_error (error, &parser->tok, REG_GRAPH_ERROR_PARSE,
                            "invalid UTF-8 (byte 0x%02X)", (guchar) *parser->p);
  if (!g_unichar_isgraph (c))
    return set_parse_error (error, &parser->tok, REG_GRAPH_ERROR_PARSE,
                            "unexpected character U+%04X", c);

  g_unichar_to_utf8 (c, utf8);
  return set_parse_error (error, &parser->tok, REG_GRAPH_ERROR_PARSE,
                          "unexpected character '%s'", utf8);
}

/* Reads a number at parser->p: [+-]? (digits [. digits] | . digits)
 * ([eE] [+-]? digits)?, or [+-]? (inf | nan). */
static gboolean
lex_number (Parser  *parser,
            GError **error)
{
  Token *tok = &parser->tok;
  const char *q = parser->p + (*parser->p == '+' || *parser->p == '-');
  gboolean is_word = is_name_start (*q);

  if (is_word)
    {
      if (!is_number_word (q, name_length (q)))
        return bad_character (parser, error);
      q += 3;
    }
  else if (!g_ascii_isdigit (*q) && *q != '.')
    return bad_character (parser, error);
  else
    {
      gsize n_digits = count_digits (q);

      q += n_digits;
      if (*q == '.')
        {
          gsize n = count_digits (q + 1);

          n_digits += n;
          q += 1 + n;
        }
      if (n_digits > 0 && (*q == 'e' || *q == 'E'))
        {
          const char *r = q + 1 + (q[1] == '+' || q[1] == '-');

          if (g_ascii_isdigit (*r))
            q = r + count_digits (r);
        }

      /* A number may not run into a name or another number: `1.5x`, `1e`,
       * `1.2.3` and a lone `.` are one bad token, not two good ones. */
      if (n_digits == 0 || is_name_char (*q) || *q == '.')
        {
          while (is_name_char (*q) || *q == '.')
            q++;
          tok->len = q - tok->pos;
          return set_parse_error (error, tok, REG_GRAPH_ERROR_PARSE,
                                  "invalid number %s", quote (parser, tok));
        }
    }

  tok->type = TOKEN_NUMBER;
  tok->len = q - tok->pos;
  tok->value = g_ascii_strtod (text (parser, tok), NULL);

  /* Underflow is no error: it reads as the nearest double (a subnormal or
   * zero), as Python's float() does.  Overflow would silently make an
   * infinity of a finite number. */
  if (isinf (tok->value) && !is_word)
    return set_parse_error (error, tok, REG_GRAPH_ERROR_PARSE,
                            "number out of range: %s", quote (parser, tok));

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

      tok->pos = parser->p;
      tok->line_start = parser->line_start;
      tok->line = parser->line;
      tok->len = 1;

      if (c == '#')
        {
          const char *end;

          while (*parser->p != '\0' && *parser->p != '\n')
            parser->p++;
          /* Comments may hold any text, but text it must be. */
          if (!g_utf8_validate (tok->pos, parser->p - tok->pos, &end))
            {
              parser->p = end;
              return bad_character (parser, error);
            }
        }
      else if (c == '\n')
        {
          parser->p++;
          parser->line++;
          parser->line_start = parser->p;
          if (parser->depth == 0)
            {
              tok->type = TOKEN_NEWLINE;
              return TRUE;
            }
        }
      else if (c == '\0')
        {
          tok->type = TOKEN_END;
          tok->len = 0;
          return TRUE;
        }
      else if (strchr (" \t\r\f\v", c) != NULL)
        parser->p++;
      else if (strchr ("(),:=", c) != NULL)
        {
          if (c == '(')
            parser->depth++;
          else if (c == ')' && parser->depth > 0)
            parser->depth--;
          tok->type = c;
          parser->p++;
          return TRUE;
        }
      else if (g_ascii_isdigit (c) || strchr ("+-.", c) != NULL ||
               is_number_word (parser->p, name_length (parser->p)))
        return lex_number (parser, error);
      else if (is_name_start (c))
        {
          tok->type = TOKEN_NAME;
          tok->len = name_length (parser->p);
          parser->p += tok->len;
          return TRUE;
        }
      else
        return bad_character (parser, error);
    }
}

static gboolean
expect (Parser      *parser,
        char         type,
        const char  *what,
        GError     **error)
{
  if (parser->tok.type != type)
    return unexpected (parser, error, "%s", what);

  return advance (parser, error);
}

static gboolean
skip_newlines (Parser  *parser,
               GError **error)
{
  while (parser->tok.type == TOKEN_NEWLINE)
    if (!advance (parser, error))
      return FALSE;

  return TRUE;
}

static gboolean
at_end_of_line (Parser *parser)
{
  return parser->tok.type == TOKEN_NEWLINE || parser->tok.type == TOKEN_END;
}

static gboolean
at_end_of_list (Parser   *parser,
                gboolean  in_parens)
{
  return in_parens ? parser->tok.type == ')' : at_end_of_line (parser);
}

/* An input of the header: a new name. */
static gboolean
parse_input (Parser  *parser,
             GError **error)
{
  const char *name;

  if (parser->tok.type != TOKEN_NAME)
    return unexpected (parser, error, "an input name");

  name = text (parser, &parser->tok);
  if (g_hash_table_contains (parser->graph->names, name))
    return set_parse_error (error, &parser->tok, REG_GRAPH_ERROR_REDEFINED,
                            "input %s is defined twice", quote (parser, &parser->tok));
  _reg_graph_append (parser->graph, REG_NODE_INPUT, 0, NULL, 0.0, g_strdup (name));

  return advance (parser, error);
}

/* A call's argument or an output: a name defined before, or a number,
 * which becomes a constant node; its id goes to parser->ids. */
static gboolean
parse_operand (Parser  *parser,
               GError **error)
{
  Token tok = parser->tok;
  gpointer id;
  guint node;

  if (tok.type == TOKEN_NUMBER)
    {
      node = _reg_graph_append (parser->graph, REG_NODE_CONSTANT, 0, NULL, tok.value, NULL);
      g_array_append_val (parser->ids, node);
      return advance (parser, error);
    }

  if (tok.type != TOKEN_NAME)
    return unexpected (parser, error, "a name or a number");
  if (!advance (parser, error))
    return FALSE;
  if (parser->tok.type == '(')
    return set_parse_error (error, &tok, REG_GRAPH_ERROR_PARSE, "calls do not nest: assign "
                            "the call of %s to a name first", quote (parser, &tok));
  if (!g_hash_table_lookup_extended (parser->graph->names, text (parser, &tok), NULL, &id))
    return set_parse_error (error, &tok, REG_GRAPH_ERROR_UNDEFINED,
                            "undefined name %s", quote (parser, &tok));

  node = GPOINTER_TO_UINT (id);
  g_array_append_val (parser->ids, node);
  return TRUE;
}

/* Reads inputs (@inputs) or operands separated by commas, a trailing comma
 * allowed, up to (not past) the ')' when @in_parens, else the end of the
 * line. */
static gboolean
parse_list (Parser    *parser,
            gboolean   in_parens,
            gboolean   inputs,
            GError   **error)
{
  g_array_set_size (parser->ids, 0);

  while (!at_end_of_list (parser, in_parens))
    {
      if (!(inputs ? parse_input (parser, error) : parse_operand (parser, error)))
        return FALSE;

      if (parser->tok.type == ',')
        {
          if (!advance (parser, error))
            return FALSE;
        }
      else if (!at_end_of_list (parser, in_parens))
        return unexpected (parser, error, in_parens ? "',' or ')'" : "',' or end of line");
    }

  return TRUE;
}

static gboolean
parse_header (Parser  *parser,
              GError **error)
{
  if (!skip_newlines (parser, error))
    return FALSE;
  if (!is_word (&parser->tok, "graph"))
    return unexpected (parser, error, "the header 'graph(...):'");

  if (!advance (parser, error) ||
      !expect (parser, '(', "'(' after 'graph'", error) ||
      !parse_list (parser, TRUE, TRUE, error) ||
      !advance (parser, error) ||
      !expect (parser, ':', "':' after the inputs", error))
    return FALSE;

  return parser->tok.type == TOKEN_END ||
         expect (parser, TOKEN_NEWLINE, "end of line after 'graph(...):'", error);
}

/* NAME = OP(ARGS) */
static gboolean
parse_assignment (Parser  *parser,
                  GError **error)
{
  Token target = parser->tok;
  Token op_tok;
  gpointer previous;
  RegOp op;

  if (!advance (parser, error))
    return FALSE;
  if (parser->tok.type != '=')
    return unexpected (parser, error, "'=' after %s", quote (parser, &target));
  if (g_hash_table_lookup_extended (parser->graph->names, text (parser, &target), NULL, &previous))
    {
      const RegNode *node = _reg_graph_get_node (parser->graph, GPOINTER_TO_UINT (previous));

      return set_parse_error (error, &target, REG_GRAPH_ERROR_REDEFINED,
                              "%s is already defined%s", quote (parser, &target),
                              node->kind == REG_NODE_INPUT ? " as an input" : "");
    }

  if (!advance (parser, error))
    return FALSE;
  op_tok = parser->tok;
  if (op_tok.type != TOKEN_NAME)
    return unexpected (parser, error, "an operator name");
  if (!advance (parser, error))
    return FALSE;
  if (parser->tok.type != '(')
    return unexpected (parser, error, "'(' after %s", quote (parser, &op_tok));
  if (!reg_op_from_name (text (parser, &op_tok), &op))
    return set_parse_error (error, &op_tok, REG_GRAPH_ERROR_UNKNOWN_OP,
                            "unknown operator %s", quote (parser, &op_tok));

  if (!advance (parser, error) ||
      !parse_list (parser, TRUE, FALSE, error))
    return FALSE;
  if (parser->ids->len != reg_op_get_arity (op))
    {
      g_autofree char *message = _reg_graph_arity_message (op, parser->ids->len);

      return set_parse_error (error, &op_tok, REG_GRAPH_ERROR_ARITY, "%s", message);
    }

  if (!advance (parser, error))
    return FALSE;
  if (!at_end_of_line (parser))
    return unexpected (parser, error, "end of line after ')'");

  _reg_graph_append (parser->graph, REG_NODE_OP, op, (const guint *) parser->ids->data, 0.0,
                     g_strdup (text (parser, &target)));

  return parser->tok.type == TOKEN_END || advance (parser, error);
}

/* return (A, B) | return (A,) | return () | return A, B */
static gboolean
parse_return (Parser  *parser,
              GError **error)
{
  if (!advance (parser, error))
    return FALSE;

  if (parser->tok.type == '(')
    {
      if (!advance (parser, error) ||
          !parse_list (parser, TRUE, FALSE, error) ||
          !advance (parser, error))
        return FALSE;
    }
  else if (at_end_of_line (parser))
    return unexpected (parser, error, "the outputs after 'return' (use 'return ()' for none)");
  else if (!parse_list (parser, FALSE, FALSE, error))
    return FALSE;

  if (!skip_newlines (parser, error))
    return FALSE;
  if (parser->tok.type != TOKEN_END)
    return unexpected (parser, error, "end of text after the return statement");

  _reg_graph_set_outputs (parser->graph, (const guint *) parser->ids->data, parser->ids->len);
  return TRUE;
}

static gboolean
parse_graph (Parser  *parser,
             GError **error)
{
  if (!advance (parser, error) || !parse_header (parser, error))
    return FALSE;

  for (;;)
    {
      if (!skip_newlines (parser, error))
        return FALSE;
      if (parser->tok.type == TOKEN_END)
        return set_parse_error (error, &parser->tok, REG_GRAPH_ERROR_PARSE,
                                "missing return statement");
      if (is_word (&parser->tok, "return"))
        return parse_return (parser, error);
      if (parser->tok.type != TOKEN_NAME)
        return unexpected (parser, error, "a statement 'NAME = OP(ARGS)' or 'return'");
      if (!parse_assignment (parser, error))
        return FALSE;
    }
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
  g_autoptr(GArray) ids = NULL;
  g_autoptr(GStringChunk) strings = NULL;
  Parser parser;

  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  graph = reg_graph_new ();
  ids = g_array_new (FALSE, FALSE, sizeof (guint));
  strings = g_string_chunk_new (256);
  parser = (Parser) { .graph = graph, .p = text, .line_start = text, .line = 1,
                      .ids = ids, .strings = strings };

  if (!parse_graph (&parser, error))
    return NULL;

  return g_steal_pointer (&graph);
}
