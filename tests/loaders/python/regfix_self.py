# regfix_self.py: a module that looks its own backend up while it is
# imported, for the loader's tests: the lookup fails, and so does the
# import, with the lookup's error
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gi

gi.require_version("Reg", "1.0")
from gi.repository import Reg  # noqa: E402

import regfix_good  # noqa: E402

Reg.Registry.get_default().lookup_backend("py_self")

SelfCompiler = regfix_good.GoodCompiler
