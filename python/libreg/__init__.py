# libreg: what libreg ships for Python programs besides its typelib
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# libreg itself is used from Python through GObject-Introspection
# (`from gi.repository import Reg`); this package adds two things:
#
#   libreg.dynamo        register_backend and its debug and experimental
#                        variants, which make a plain Python function a
#                        backend, in the form of TorchDynamo's registry
#   libreg.entry_points  `python3 -m libreg.entry_points`: the backends
#                        that installed Python packages declare in the
#                        `libreg_backends` entry-point group, written as
#                        manifests, without importing anything
#
# Importing this package imports neither.
