# regfix_slow.py: a module that takes a while to import and says each time
# it is imported, for the tests of concurrent first lookups
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Each import appends a line to the file REGFIX_IMPORT_LOG names.

import os
import time

import regfix_good

with open(os.environ["REGFIX_IMPORT_LOG"], "a") as log:
    log.write("imported\n")
time.sleep(0.5)

SlowCompiler = regfix_good.GoodCompiler
