# PyGObject overrides for libreg (gi.repository.Reg).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Makes Python implementations of Reg.CompiledFn hand over their outputs.

The `call` virtual method returns `(transfer full)` an array of tensors: the
caller receives a reference to each.  PyGObject 3.42 gives a reference to a
returned object, but not to the objects of a returned list, so the tensors a
Python `do_call` returns would die with the list before libreg sees them.
This override wraps every `do_call` so that each returned tensor carries the
reference the caller takes over.
"""

from ..module import get_introspection_module
from ..overrides import override

Reg = get_introspection_module("Reg")
_GObject = get_introspection_module("GObject")

__all__ = []


def _hand_over(do_call):
    def call(self, inputs):
        outputs = do_call(self, inputs)
        if outputs is None:
            return None
        outputs = list(outputs)
        for tensor in outputs:
            # The unwrapped g_object_ref (PyGObject hides Object.ref): the
            # reference belongs to the array libreg receives.
            _GObject.Object.ref(tensor)
        return outputs

    call.__name__ = do_call.__name__
    call.__doc__ = do_call.__doc__
    return call


class CompiledFn(Reg.CompiledFn):
    def __init_subclass__(cls, **kwargs):
        # Runs while the class is made, before PyGObject hooks up its
        # do_* methods as virtual method implementations.
        super().__init_subclass__(**kwargs)
        do_call = cls.__dict__.get("do_call")
        if do_call is not None:
            cls.do_call = _hand_over(do_call)


CompiledFn = override(CompiledFn)
__all__.append("CompiledFn")
