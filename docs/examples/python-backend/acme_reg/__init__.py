# acme_reg: the Python package of an example libreg backend (see
# compiler.py)
#
# SPDX-License-Identifier: LGPL-2.1-or-later
