# libreg.dynamo: TorchDynamo's form of backend registration
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A backend is a plain Python function of a graph and its example inputs,
# returning what runs it:
#
#     from libreg.dynamo import register_backend
#
#     @register_backend
#     def doubling(graph, example_inputs):
#         eager = Reg.Registry.get_default().lookup_backend("eager")
#         fn = eager.compile(graph, example_inputs, None)
#         return lambda *inputs: fn.call(list(inputs))
#
#     @register_backend(name="fast", tags=("python",))
#     def fast_backend(graph, example_inputs, options=None): ...
#
# The function is registered over a Reg.FuncCompiler, under its own name
# (or name=), in the process's default registry (or registry=), and
# returned unchanged.  What it returns is a Reg.CompiledFn, used as it is,
# or a callable, called with the inputs (Reg.Tensor) as arguments and
# returning a Reg.Tensor or a sequence of them.  A function that takes an
# `options` parameter receives the compile's options (a GLib.Variant a{sv},
# or None); any other is given none, and refuses options with
# Reg.CompilerError.BAD_OPTION.  register_debug_backend and
# register_experimental_backend add the tag "debug" or "experimental",
# which Reg.Registry.list_backends leaves out by default.  The backend
# exists in this process only: declare it in a manifest (Loader=python)
# for other programs to find it.

import inspect
import traceback

import gi

gi.require_version("Gio", "2.0")
gi.require_version("GLib", "2.0")
gi.require_version("Reg", "1.0")
from gi.repository import Gio, GLib, GObject, Reg  # noqa: E402

__all__ = ["register_backend", "register_debug_backend", "register_experimental_backend"]


class _CallableFn(GObject.Object, Reg.CompiledFn):
    """A Reg.CompiledFn around what a backend function returned."""

    def __init__(self, call):
        super().__init__()
        self._call = call

    def do_run(self, inputs):
        result = self._call(*inputs)
        if isinstance(result, Reg.Tensor):
            result = (result,)
        outputs = Gio.ListStore.new(Reg.Tensor)
        for tensor in result:
            outputs.append(tensor)
        return outputs


def _error(code, message):
    return GLib.Error.new_literal(Reg.compiler_error_quark(), message, code)


def _takes_options(function):
    try:
        return "options" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _compiler(function, name):
    takes_options = _takes_options(function)

    def compile(graph, example_inputs, options):
        if not takes_options and options is not None and options.n_children() > 0:
            raise _error(Reg.CompilerError.BAD_OPTION, f"{name}: takes no option")
        try:
            if takes_options:
                made = function(graph, example_inputs, options=options)
            else:
                made = function(graph, example_inputs)
        except GLib.Error:
            raise
        except Exception as e:
            # Said in the GError, not only printed: a callback's exception
            # reaches C as a failure without a reason otherwise.
            where = traceback.extract_tb(e.__traceback__)[-1]
            raise _error(Reg.CompilerError.FAILED,
                         f"{name}: the backend function raised {type(e).__name__}: {e} "
                         f"({where.filename}:{where.lineno} in {where.name})") from None
        if isinstance(made, Reg.CompiledFn):
            return made
        if callable(made):
            return _CallableFn(made)
        raise _error(Reg.CompilerError.FAILED,
                     f"{name}: the backend function returned a value of type "
                     f"{type(made).__name__}, not a callable or a Reg.CompiledFn")

    return Reg.FuncCompiler.new(name, compile)


def _tags(tags):
    # A str is a sequence of one-letter tags: surely not what was meant.
    if isinstance(tags, str):
        raise TypeError(f"tags is a sequence of tags, not a str: tags=({tags!r},)")
    return tuple(tags)


def _register(compiler_fn, name, tags, extra_tag, registry):
    def decorate(function):
        backend = name if name is not None else function.__name__
        all_tags = list(tags) + ([extra_tag] if extra_tag and extra_tag not in tags else [])
        target = registry if registry is not None else Reg.Registry.get_default()
        target.register_backend(backend, _compiler(function, backend), all_tags)
        return function

    if compiler_fn is None:
        return decorate
    return decorate(compiler_fn)


def register_backend(compiler_fn=None, name=None, tags=(), registry=None):
    """Registers @compiler_fn as the backend @name (its own name by
    default) with @tags; usable as @register_backend or
    @register_backend(name=..., tags=...).  Returns @compiler_fn."""
    return _register(compiler_fn, name, _tags(tags), None, registry)


def register_debug_backend(compiler_fn=None, name=None, tags=(), registry=None):
    """register_backend, tagged "debug"."""
    return _register(compiler_fn, name, _tags(tags), "debug", registry)


def register_experimental_backend(compiler_fn=None, name=None, tags=(), registry=None):
    """register_backend, tagged "experimental"."""
    return _register(compiler_fn, name, _tags(tags), "experimental", registry)
