# regfix_retry.py: a module whose import fails while the file
# REGFIX_RETRY_FLAG names exists, for the test of a retried import
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os

import regfix_good

if os.path.exists(os.environ["REGFIX_RETRY_FLAG"]):
    raise ImportError("regfix_retry is told to fail")

RetryCompiler = regfix_good.GoodCompiler
