#!/bin/sh
# write-backend-cache.sh: meson install script that writes the discovery
# cache of the installed backend directory (`regctl cache`), so that a
# fresh install starts from the cache.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from meson.add_install_script): write-backend-cache.sh BINDIR LIBDIR BACKENDDIR
# where each directory is as configured: relative to the prefix, or
# absolute.  The installed regctl runs with the installed libreg (both
# under DESTDIR when staging), so LD_LIBRARY_PATH points at the installed
# library directory.
#
# With DESTDIR, the cache is written into the staged tree; whoever unpacks
# those files later gives them new change times, so the cache is then
# stale (ignored, never wrong) until `regctl cache` runs on the target, as
# a package's post-install step should do.

set -eu

if [ $# -ne 3 ]; then
    echo "usage: $0 BINDIR LIBDIR BACKENDDIR" >&2
    exit 2
fi

: "${MESON_INSTALL_DESTDIR_PREFIX:?this script is run by meson install}"

# A directory as installed: under the prefix (and DESTDIR) when relative,
# under DESTDIR when absolute.
installed() {
    case "$1" in
        /*) printf '%s%s\n' "${DESTDIR:-}" "$1" ;;
        *) printf '%s/%s\n' "$MESON_INSTALL_DESTDIR_PREFIX" "$1" ;;
    esac
}

regctl="$(installed "$1")/regctl"
libdir="$(installed "$2")"
backend_dir="$(installed "$3")"

if [ -n "${MESON_INSTALL_DRY_RUN:-}" ]; then
    echo "Would write the backend cache of $backend_dir"
    exit 0
fi

if [ ! -d "$backend_dir" ]; then
    echo "No backend directory $backend_dir: no cache written"
    exit 0
fi

LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    REG_BACKEND_PATH= REG_BACKEND_SYSTEM_DIR= \
    "$regctl" cache "$backend_dir"
