# regfix_crash.py: a module whose import kills the process, for the tests
# of verification (only ever imported in the checker's process)
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os

os.abort()
