/* reg-language-loader-private.h: backends written in Python and JavaScript
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "reg-loader-private.h"

G_BEGIN_DECLS

/* Loader=python and Loader=gjs.  Discovery reads their manifests here,
 * with no interpreter: Import= and each backend's Object= are checked as
 * text.  Their load() and make() are in a loader module of
 * their own (loaders/ in the source tree: libreg-loader-python.so,
 * libreg-loader-gjs.so), which reg-language-loader.c opens with GModule
 * the first time a backend needs it, from the directory REG_LOADER_DIR
 * names (in a build tree; ignored in setuid programs) or else libreg's
 * installed loaders directory.  libreg itself never links an
 * interpreter.  Both set RegLoader.unlocked. */
extern const RegLoader _reg_python_loader;
extern const RegLoader _reg_gjs_loader;

/* What a loader module exports, as the symbol REG_LOADER_MODULE_SYMBOL:
 * the libreg it was built with (REG_VERSION_S: a loader module is part of
 * one build of libreg) and the load() and make() of its loader; the
 * table's other fields are not read.  Its errors' messages are
 * escaped by libreg before anyone sees them. */
#define REG_LOADER_MODULE_SYMBOL "reg_loader_module"

typedef struct
{
  const char      *libreg_version;
  const RegLoader *loader;
  /* Python only, in a program that runs Python already: what identifies
   * that interpreter's environment ("python MAJOR.MINOR SYS.PREFIX"). */
  char          *(*environment) (void);
  /* Python only: the files the module @source is made of (see
   * _reg_language_loader_dup_python_files()), found without running them,
   * starting the interpreter if it runs not yet. */
  char         **(*source_files) (const char  *source,
                                  GError     **error);
} RegLoaderModule;

/* "python MAJOR.MINOR PREFIX" of the interpreter a Python backend would
 * run in: this program's, when it runs Python already (asked of the
 * loader, which serves that interpreter without starting anything), or
 * else the one the loader would start (its version, and PYTHONHOME or its
 * built-in prefix).  Part of the key of Python backends' verdicts.  Newly
 * allocated. */
char *_reg_language_loader_dup_python_environment (void);

/* The files of the Python module @source, as the interpreter a backend
 * would run in finds them: its top-level package's source files and
 * extension modules, or the one file of a top-level module.  Part of the
 * key of Python backends' verdicts, so that a verdict holds only for the
 * code it judged.  Starts the interpreter (a check runs the module's
 * code next anyway), and runs none of the module's.  NULL, with the
 * reason in @error, when the loader or the interpreter is missing or the
 * files are too many to list.  Newly allocated. */
char **_reg_language_loader_dup_python_files (const char  *source,
                                              GError     **error);

G_END_DECLS
