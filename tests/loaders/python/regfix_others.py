# regfix_others.py: a module that lists backends and looks up other ones,
# Python's among them, while it is imported, for the loader's tests
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gi

gi.require_version("Reg", "1.0")
from gi.repository import Reg  # noqa: E402

_registry = Reg.Registry.get_default()
LISTED = _registry.list_backends([])
EAGER = _registry.lookup_backend("eager")
GOOD = _registry.lookup_backend("py_good")


def make():
    return GOOD
