# regfix_wrong.py: objects that are not compilers, for the loader's tests
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gi

gi.require_version("Reg", "1.0")
from gi.repository import GObject  # noqa: E402


class NotACompiler(GObject.Object):
    pass


class NotAGObject:
    pass


class NotInitialised(GObject.Object):
    def __init__(self):
        pass  # never chains up: no GObject behind the wrapper


NOT_CALLABLE = 42


def returns_none():
    return None


def raises():
    raise RuntimeError("regfix_wrong.raises() fails")
