/* reg-loader-gjs-engine.cc: what the loader asks of SpiderMonkey itself
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GJS's C API says neither which thread a GjsContext belongs to nor how
 * to import a module and get at its exports: gjs_context_eval_module ()
 * evaluates a module and hands nothing back, and it waits for the
 * module's promise jobs, which GJS does not run while it runs one (a
 * lookup from an async function would wait forever).  SpiderMonkey's API
 * does both, synchronously, with GJS's own module loader (the resolve
 * hook GJS installed, which reads, compiles and registers a module by its
 * URI); it is C++, hence this file.
 */

#include <string.h>

#include <jsapi.h>
#include <js/CompilationAndEvaluation.h>
#include <js/Conversions.h>
#include <js/Modules.h>
#include <js/Promise.h>
#include <js/SourceText.h>

#include "reg-loader-gjs-engine.h"

#define HANDOFF_RESOURCE "/org/libreg/loader-gjs/handoff.js"

static JSContext *
engine_context (GjsContext *context)
{
  return static_cast<JSContext *> (gjs_context_get_native_context (context));
}

gboolean
reg_gjs_engine_is_own_thread (GjsContext *context)
{
  return js::CurrentThreadCanAccessRuntime (JS_GetRuntime (engine_context (context)));
}

gboolean
reg_gjs_engine_is_running (GjsContext *context)
{
  return JS::CurrentGlobalOrNull (engine_context (context)) != nullptr;
}

static char *
dup_utf8 (JSContext     *cx,
          JS::HandleValue value)
{
  JS::RootedString string (cx, JS::ToString (cx, value));
  JS::UniqueChars chars;

  if (string != nullptr)
    chars = JS_EncodeStringToUTF8 (cx, string);
  if (!chars)
    {
      JS_ClearPendingException (cx);
      return nullptr;
    }

  return g_strdup (chars.get ());
}

/* The pending exception, taken, described by handoff.js's describe ()
 * with the frames of the import of @uri (nullable). */
static char *
take_exception (JSContext       *cx,
                JS::HandleObject helper,
                const char      *uri)
{
  JS::RootedValue thrown (cx), described (cx);
  JS::RootedValueArray<2> args (cx);
  JS::RootedString where (cx, JS_NewStringCopyZ (cx, uri != nullptr ? uri : ""));
  char *text = nullptr;

  if (!JS_GetPendingException (cx, &thrown))
    return g_strdup ("an uncatchable exception (System.exit ()?) ended it");
  JS_ClearPendingException (cx);

  args[0].set (thrown);
  if (where != nullptr)
    args[1].setString (where);
  if (helper != nullptr && JS_CallFunctionName (cx, helper, "describe", args, &described))
    text = dup_utf8 (cx, described);
  else
    JS_ClearPendingException (cx);
  if (text == nullptr)
    text = dup_utf8 (cx, thrown);

  return text != nullptr ? text : g_strdup ("an exception that cannot be described");
}

/* The object handoff.js's script evaluates to. */
static JSObject *
evaluate_helper (JSContext *cx)
{
  g_autoptr(GBytes) script = g_resources_lookup_data (HANDOFF_RESOURCE,
                                                      G_RESOURCE_LOOKUP_FLAGS_NONE, nullptr);
  JS::SourceText<mozilla::Utf8Unit> source;
  JS::CompileOptions options (cx);
  JS::RootedValue value (cx);
  gsize size;
  const char *text;

  g_assert (script != nullptr);
  text = static_cast<const char *> (g_bytes_get_data (script, &size));
  options.setFileAndLine ("resource://" HANDOFF_RESOURCE, 1);
  if (!source.init (cx, text, size, JS::SourceOwnership::Borrowed) ||
      !JS::Evaluate (cx, options, source, &value) || !value.isObject ())
    return nullptr;

  return &value.toObject ();
}

gboolean
reg_gjs_engine_import (GjsContext  *context,
                       const char  *uri,
                       char       **error,
                       gboolean    *compiled)
{
  JSContext *cx = engine_context (context);
  JS::RootedObject global (cx, JS::CurrentGlobalOrNull (cx));
  JS::RootedObject helper (cx), referrer (cx), request (cx), module (cx), space (cx);
  JS::RootedString specifier (cx);
  JS::RootedValue uri_value (cx), referrer_value (cx), evaluation (cx), result (cx);
  JS::ModuleResolveHook resolve;

  *compiled = FALSE;
  g_assert (global != nullptr);

  JSAutoRealm realm (cx, global);

  helper = evaluate_helper (cx);
  if (helper == nullptr)
    {
      *error = take_exception (cx, nullptr, nullptr);
      return FALSE;
    }

  /* What GJS's loader reads of the importing module is its URI: the
   * backend's own, so that the import is its absolute URI. */
  specifier = JS_NewStringCopyZ (cx, uri);
  referrer = JS_NewPlainObject (cx);
  if (specifier == nullptr || referrer == nullptr)
    {
      *error = take_exception (cx, helper, nullptr);
      return FALSE;
    }
  uri_value.setString (specifier);
  referrer_value.setObject (*referrer);
  if (!JS_DefineProperty (cx, referrer, "uri", uri_value, JSPROP_ENUMERATE) ||
      !JS_DefineProperty (cx, referrer, "id", uri_value, JSPROP_ENUMERATE) ||
      (request = JS::CreateModuleRequest (cx, specifier)) == nullptr)
    {
      *error = take_exception (cx, helper, nullptr);
      return FALSE;
    }

  /* Reading and compiling: the module is in GJS's registry afterwards. */
  resolve = JS::GetModuleResolveHook (JS_GetRuntime (cx));
  module = resolve != nullptr ? resolve (cx, referrer_value, request) : nullptr;
  if (module == nullptr)
    {
      *error = take_exception (cx, helper, uri);
      return FALSE;
    }
  *compiled = TRUE;

  /* Linking (which imports what it imports) and evaluating. */
  if (!JS::ModuleInstantiate (cx, module) || !JS::ModuleEvaluate (cx, module, &evaluation))
    {
      *error = take_exception (cx, helper, uri);
      return FALSE;
    }

  /* A module without top-level await is evaluated when ModuleEvaluate ()
   * returns, its promise settled: its failure is the promise's result,
   * which the loader handles (GJS would warn of it unhandled). */
  if (evaluation.isObject () && JS::IsPromiseObject (JS::RootedObject (cx, &evaluation.toObject ())))
    {
      JS::RootedObject promise (cx, &evaluation.toObject ());

      if (JS::GetPromiseState (promise) == JS::PromiseState::Rejected)
        {
          JS::RootedValue reason (cx, JS::GetPromiseResult (promise));

          if (!JS::SetSettledPromiseIsHandled (cx, promise))
            JS_ClearPendingException (cx);
          JS_SetPendingException (cx, reason);
          *error = take_exception (cx, helper, uri);
          return FALSE;
        }
      if (JS::GetPromiseState (promise) == JS::PromiseState::Pending)
        {
          *error = g_strdup ("it waits at its top level (top-level await), which the loader "
                             "cannot wait for: make its objects without awaiting anything");
          return FALSE;
        }
    }

  space = JS::GetModuleNamespace (cx, module);
  if (space == nullptr)
    {
      *error = take_exception (cx, helper, nullptr);
      return FALSE;
    }
  result.setObject (*space);
  if (!JS_CallFunctionName (cx, helper, "adopt", JS::HandleValueArray (result), &result))
    {
      *error = take_exception (cx, helper, nullptr);
      return FALSE;
    }

  return TRUE;
}
