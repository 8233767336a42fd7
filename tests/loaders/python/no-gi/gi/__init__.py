# A gi that cannot be imported, put first on the path of a test that
# checks what the loader says when PyGObject is missing.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

raise ImportError("No module named 'gi' (hidden by the tests)")
