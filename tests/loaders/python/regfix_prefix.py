# regfix_prefix.py: a backend written in Python, for the loader's tests
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The module refuses to be imported in a virtual environment: it shows
# which Python the loader of a C program starts.

import sys

from regfix_good import GoodCompiler  # noqa: F401

if sys.prefix != sys.base_prefix:
    raise RuntimeError("imported in the virtual environment " + sys.prefix)
