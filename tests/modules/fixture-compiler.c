/* fixture-compiler.c: compiler types for the fixture modules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "fixture-compiler.h"

/* Every test case copies a fixture module to a directory of its own, and
 * each copy is a separate module of the process (its own RegModule and its
 * own static variables).  G_DEFINE_DYNAMIC_TYPE would give every copy the
 * same type names, which GType refuses ("Two different plugins tried to
 * register ..."), so the types are registered by hand under the first free
 * name.  Loading is serialised by libreg, and no two modules load at once. */

typedef struct
{
  GObject parent_instance;
} FixtureCompiler;

typedef struct
{
  GObjectClass               parent_class;
  const FixtureCompilerSpec *spec;
} FixtureCompilerClass;

static const FixtureCompilerSpec *
fixture_compiler_get_spec (RegCompiler *compiler)
{
  return ((FixtureCompilerClass *) G_OBJECT_GET_CLASS (compiler))->spec;
}

static RegCompiledFn *
fixture_compiler_compile (RegCompiler  *compiler,
                          RegGraph     *graph,
                          GPtrArray    *example_inputs,
                          GVariant     *options,
                          GError      **error)
{
  const FixtureCompilerSpec *spec = fixture_compiler_get_spec (compiler);

  if (spec->compile != NULL)
    return spec->compile (graph, example_inputs, options, error);

  g_set_error (error, REG_COMPILER_ERROR, REG_COMPILER_ERROR_UNSUPPORTED_OP,
               "%s is a test fixture and compiles nothing",
               fixture_compiler_get_spec (compiler)->backend_name);
  return NULL;
}

static char *
fixture_compiler_dup_name (RegCompiler *compiler)
{
  return g_strdup (fixture_compiler_get_spec (compiler)->backend_name);
}

static void
fixture_compiler_iface_init (gpointer g_iface,
                             gpointer iface_data)
{
  RegCompilerInterface *iface = g_iface;

  iface->compile = fixture_compiler_compile;
  iface->dup_name = fixture_compiler_dup_name;
}

static void
fixture_compiler_class_init (gpointer g_class,
                             gpointer class_data)
{
  ((FixtureCompilerClass *) g_class)->spec = class_data;
}

static void
fixture_compiler_instance_init (GTypeInstance *instance,
                                gpointer       g_class)
{
  const FixtureCompilerSpec *spec = ((FixtureCompilerClass *) g_class)->spec;

  if (spec->n_constructed != NULL)
    g_atomic_int_inc (spec->n_constructed);
}

GType
fixture_compiler_register (GTypeModule               *module,
                           const FixtureCompilerSpec *spec)
{
  const GTypeInfo type_info = {
    .class_size = sizeof (FixtureCompilerClass),
    .class_init = fixture_compiler_class_init,
    .class_data = spec,
    .instance_size = sizeof (FixtureCompiler),
    .instance_init = fixture_compiler_instance_init,
  };
  const GInterfaceInfo iface_info = {
    .interface_init = fixture_compiler_iface_init,
  };
  char type_name[64];
  GType type;

  for (guint i = 0; ; i++)
    {
      g_snprintf (type_name, sizeof type_name, "FixtureCompiler%u", i);
      if (g_type_from_name (type_name) == G_TYPE_INVALID)
        break;
    }

  type = g_type_module_register_type (module, G_TYPE_OBJECT, type_name,
                                      &type_info, G_TYPE_FLAG_FINAL);
  g_type_module_add_interface (module, type, REG_TYPE_COMPILER, &iface_info);

  return type;
}
