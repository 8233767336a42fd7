/* reg-graph-parser.c: the text form of graphs, read
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A hand-written lexer and a recursive-descent parser of one statement at
 * a time, building the graph with the internal builder of
 * reg-graph-private.h once each statement is known to be good.  The
 * grammar is documented with RegGraph (reg-graph.c).
 */

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "reg-graph-private.h"
#include "reg-message-private.h"
#include "reg-op-private.h"

/* ---- Names -------------------------------------------------------------- */

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

gboolean
_reg_graph_is_valid_name (const char *name)
{
  gsize len;

  if (!is_name_start (name[0]))
    return FALSE;
  for (len = 1; name[len] != '\0'; len++)
    if (!is_name_char (name[len]))
      return FALSE;

  return !is_number_word (name, len);
}

/* ---- Tokens ------------------------------------------------------------- */

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
  static const char * const punctuation[] = {
    [TOKEN_LPAREN] = "'('", [TOKEN_RPAREN] = "')'", [TOKEN_COMMA] = "','",
    [TOKEN_COLON] = "':'", [TOKEN_EQUALS] = "'='", [TOKEN_NEWLINE] = "end of line",
    [TOKEN_END] = "end of text",
  };
  g_autofree char *quoted = NULL;

  if (tok->type != TOKEN_NAME && tok->type != TOKEN_NUMBER)
    return g_strdup (punctuation[tok->type]);

  quoted = _reg_quote_for_message (tok->loc.pos, tok->len);
  return g_strdup_printf ("%s %s", tok->type == TOKEN_NAME ? "name" : "number", quoted);
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

      ids[i] = arg->is_constant
        ? _reg_graph_append (parser->graph, REG_NODE_CONSTANT, 0, NULL, arg->value, NULL)
        : arg->id;
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
      _reg_graph_append (parser->graph, REG_NODE_INPUT, 0, NULL, 0.0, g_steal_pointer (&name));

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
  guint ids[REG_GRAPH_MAX_ARITY];

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
      const RegNode *node = _reg_graph_get_node (parser->graph, GPOINTER_TO_UINT (previous));
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
      g_autofree char *message = _reg_graph_arity_message (op, parser->args->len);

      return set_parse_error (error, &op_tok.loc, REG_GRAPH_ERROR_ARITY, "%s", message);
    }

  /* Past ')' */
  if (!advance (parser, error))
    return FALSE;
  if (parser->tok.type != TOKEN_NEWLINE && parser->tok.type != TOKEN_END)
    return unexpected (parser, "end of line after ')'", error);

  resolve_operands (parser, ids);
  _reg_graph_append (parser->graph, REG_NODE_OP, op, ids, 0.0, g_steal_pointer (&name));

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
  _reg_graph_set_outputs (parser->graph, ids, parser->args->len);

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
