# regfix_raising.py: a module whose import raises, from a function it
# calls, for the loader's tests
#
# SPDX-License-Identifier: LGPL-2.1-or-later


def _check():
    raise ValueError("regfix_raising refuses to be imported")


_check()
