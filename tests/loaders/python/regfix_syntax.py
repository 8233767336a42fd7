# regfix_syntax.py: a module that is not Python, for the loader's tests
#
# SPDX-License-Identifier: LGPL-2.1-or-later

def broken(:
    pass
