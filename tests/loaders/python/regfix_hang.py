# regfix_hang.py: a module whose import never ends, for the tests of
# verification (only ever imported in the checker's process)
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import time

while True:
    time.sleep(1)
