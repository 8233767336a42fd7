/* regctl.h: what the regctl subcommands share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <stdio.h>

#include <reg.h>

G_BEGIN_DECLS

/* Exit statuses, as the man page lists them. */
#define REGCTL_EXIT_OK      0
#define REGCTL_EXIT_FAILURE 1
#define REGCTL_EXIT_USAGE   2

/* Bounds on what the command line may ask for, so that a typo cannot make
 * regctl allocate gigabytes: 2^28 floats (1 GiB) per tensor. */
#define REGCTL_MAX_ELEMENTS (G_GINT64_CONSTANT (1) << 28)
#define REGCTL_MAX_SIZE     16384

/* The widest that tables are on a terminal (regctl list). */
#define REGCTL_TERMINAL_WIDTH 100

/* A graph file larger than this is refused unread: a graph of 100,000
 * nodes is about 3 MiB of text, and `regctl run /dev/zero` must not grow
 * without bound. */
#define REGCTL_MAX_GRAPH_SIZE (16 * 1024 * 1024)

typedef struct _RegctlCommand RegctlCommand;

typedef int (*RegctlCommandFunc) (const RegctlCommand *command,
                                  int                  argc,
                                  char               **argv);

struct _RegctlCommand
{
  const char        *name;
  const char        *synopsis;     /* arguments after "regctl NAME" */
  const char        *summary;      /* one line, for `regctl --help` */
  const char        *description;  /* the end of `regctl NAME --help` */
  RegctlCommandFunc  func;
};

/* regctl.c: option parsing and the registry */
GOptionContext *regctl_option_context_new   (const RegctlCommand  *command,
                                             const char           *parameters,
                                             const GOptionEntry   *entries,
                                             char               ***add_paths);
gboolean        regctl_parse_args           (const RegctlCommand  *command,
                                             GOptionContext       *context,
                                             int                  *argc,
                                             char               ***argv,
                                             int                  *status);
int             regctl_usage_error          (const RegctlCommand  *command,
                                             const char           *format,
                                             ...) G_GNUC_PRINTF (2, 3);
int             regctl_check_positionals    (const RegctlCommand  *command,
                                             char                **positionals,
                                             guint                 n_expected,
                                             const char           *what);
RegRegistry    *regctl_get_registry         (char                **add_paths);
void            regctl_print_error          (const GError         *error);

/* regctl-util.c: text, JSON, tables */
void            regctl_json_append_string   (GString              *out,
                                             const char           *text);
void            regctl_json_append_strv     (GString              *out,
                                             const char * const   *strv);
void            regctl_json_append_variant  (GString              *out,
                                             GVariant             *value);
char           *regctl_join_tags            (const char * const   *tags);
char           *regctl_escape               (const char           *text);
char          **regctl_split_list           (const char           *text);
char           *regctl_format_double        (double                value,
                                             const char           *format);
void            regctl_write_stdout         (const char           *text,
                                             gsize                 len);
void            regctl_check_stdout         (void);
void            regctl_print_handler        (const char           *text);
void            regctl_print                (const char           *format,
                                             ...) G_GNUC_PRINTF (1, 2);
void            regctl_printerr             (const char           *format,
                                             ...) G_GNUC_PRINTF (1, 2);
gboolean        regctl_args_to_utf8         (char               **args,
                                             GError              **error);
gboolean        regctl_arg_to_utf8          (char               **arg,
                                             GError              **error);
guint           regctl_stdout_width         (void);

typedef struct _RegctlTable RegctlTable;

RegctlTable    *regctl_table_new            (guint                 n_columns,
                                             ...);
void            regctl_table_set_right_aligned (RegctlTable       *table,
                                             guint                 column);
void            regctl_table_add_row        (RegctlTable          *table,
                                             ...);
void            regctl_table_fit            (RegctlTable          *table,
                                             guint                 column,
                                             guint                 max_width);
char           *regctl_table_to_string      (RegctlTable          *table);
void            regctl_table_free           (RegctlTable          *table);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RegctlTable, regctl_table_free)

/* regctl-graph.c: graphs, inputs, options, timing */
#define REGCTL_ERROR (regctl_error_quark ())

typedef enum {
  REGCTL_ERROR_USAGE,    /* a bad option value: exit status 2 */
  REGCTL_ERROR_FAILED,   /* anything else: exit status 1 */
} RegctlError;

GQuark          regctl_error_quark          (void);

typedef struct
{
  gint64 shape[REG_TENSOR_MAX_DIMS];
  guint  n_dims;
} RegctlShape;

gboolean        regctl_parse_shape          (const char           *text,
                                             RegctlShape          *shape,
                                             GError              **error);
char           *regctl_shape_to_string      (const gint64         *shape,
                                             guint                 n_dims);
GHashTable     *regctl_parse_input_specs    (char                **specs,
                                             GError              **error);
gboolean        regctl_parse_option         (const char           *text,
                                             gboolean              allow_backend,
                                             char                **backend,
                                             char                **key,
                                             char                **value,
                                             GError              **error);
gboolean        regctl_check_options        (char                **specs,
                                             gboolean              allow_backend,
                                             GError              **error);
gboolean        regctl_parse_options        (char                **specs,
                                             gboolean              allow_backend,
                                             RegBackendInfo       *info,
                                             GVariant            **options,
                                             GError              **error);
RegGraph       *regctl_load_graph           (const char           *path,
                                             GError              **error);
GPtrArray      *regctl_make_inputs          (RegGraph             *graph,
                                             GHashTable           *shapes,
                                             gint64                default_size,
                                             guint32               seed,
                                             GError              **error);
void            regctl_append_values        (GString              *out,
                                             RegTensor            *tensor,
                                             guint                 max_values);
gint64          regctl_now_ns               (void);
char           *regctl_format_ms            (gint64                ns,
                                             const char           *format);
gboolean        regctl_stderr_is_terminal   (void);

/* The subcommands */
int             regctl_list                 (const RegctlCommand  *command,
                                             int                   argc,
                                             char                **argv);
int             regctl_info                 (const RegctlCommand  *command,
                                             int                   argc,
                                             char                **argv);
int             regctl_paths                (const RegctlCommand  *command,
                                             int                   argc,
                                             char                **argv);
int             regctl_run                  (const RegctlCommand  *command,
                                             int                   argc,
                                             char                **argv);
int             regctl_bench                (const RegctlCommand  *command,
                                             int                   argc,
                                             char                **argv);
int             regctl_verify               (const RegctlCommand  *command,
                                             int                   argc,
                                             char                **argv);

/* regctl-verify.c: verdicts, for list and info too */
const char     *regctl_verdict_nick         (RegVerdictKind        kind);
char           *regctl_format_time          (gint64                seconds,
                                             gboolean              iso);
void            regctl_append_verdict_json  (GString              *out,
                                             RegVerdict           *verdict,
                                             const char           *indent);

G_END_DECLS
