# libreg.entry_points: manifests for the backends that Python packages
# declare as entry points
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#     python3 -m libreg.entry_points --dir DIR [--path SITE_DIR]...
#
# A Python package declares its backends in the `libreg_backends`
# entry-point group, in its pyproject.toml:
#
#     [project.entry-points.libreg_backends]
#     acme = "acme_reg.compiler:AcmeCompiler"
#
# libreg reads manifests, not package metadata, so that listing backends
# never starts Python: this program writes one manifest per package and
# module into DIR (a directory of libreg's search path), for the packages
# installed where this Python finds them, or in the SITE_DIRs given (the
# site-packages directory of another environment).  It reads the packages'
# metadata only and imports none of them.  The manifests it wrote before
# and whose entry points are gone are removed; others in DIR are left
# alone.  A package's summary and version become its backends'
# Description= and Version=.
#
# The manifests import the modules into whatever Python the program using
# the backend runs (or starts): the packages must be installed where that
# Python finds them (its environment, the user's site-packages, or
# PYTHONPATH).

import argparse
import importlib.metadata
import os
import re
import sys
import tempfile
import unicodedata

GROUP = "libreg_backends"
MARKER = "# Written by python3 -m libreg.entry_points"
DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
# libreg's naming rules (docs/names.md): a name that breaks them would
# make libreg skip the whole manifest, the package's other backends too.
NAME_MAX_BYTES = 255
FORBIDDEN = set("/\\[];,=#'\"")


def _name_problem(name):
    """Why @name is not a backend name, as libreg says it, or None."""
    size = len(name.encode("utf-8", "surrogatepass"))
    if size == 0:
        return "empty"
    if size > NAME_MAX_BYTES:
        return f"{size} bytes, at most {NAME_MAX_BYTES} are allowed"
    offset = 0
    for c in name:
        category = unicodedata.category(c)
        kind = ("white space" if c.isspace() or c in "\x0b\x85" else
                "control character" if category == "Cc" else
                "format character" if category == "Cf" else None)
        if kind is not None:
            return f"{kind} U+{ord(c):04X} at byte {offset} is not allowed"
        if c in FORBIDDEN:
            shown = "character \"'\"" if c == "'" else f"character '{c}'"
            return f"{shown} at byte {offset} is not allowed"
        offset += len(c.encode("utf-8", "surrogatepass"))
    return None


def _one_line(text, limit):
    text = " ".join(str(text or "").split())
    return text[:limit]


def _manifests(distributions):
    """{file name: text} of the manifests for @distributions, and the
    problems found, as (package, entry point, reason)."""
    files = {}
    problems = []
    seen = set()
    for dist in distributions:
        name = dist.metadata["Name"] or "unknown"
        key = re.sub(r"[^A-Za-z0-9]+", "-", name).lower()
        if key in seen:  # found twice on the path: the first one wins
            continue
        seen.add(key)
        by_module = {}
        for entry in dist.entry_points:
            if entry.group != GROUP:
                continue
            module, _, attr = entry.value.partition(":")
            module, attr = module.strip(), attr.split("[")[0].strip()
            problem = _name_problem(entry.name)
            if problem is not None:
                problems.append((name, entry.name, f"not a backend name: {problem}"))
            elif not DOTTED.match(module) or not DOTTED.match(attr):
                problems.append((name, entry.name, f"'{entry.value}' is not module:object"))
            else:
                by_module.setdefault(module, []).append((entry.name, attr))
        for module, backends in sorted(by_module.items()):
            lines = [f"{MARKER} from {name} {dist.version}.", "",
                     "[Reg Module]", "AbiVersion=2", "Loader=python", f"Import={module}"]
            for backend, attr in sorted(backends):
                lines += ["", f"[Backend {backend}]", f"Object={attr}"]
                summary = _one_line(dist.metadata["Summary"], 400)
                if summary:
                    lines.append(f"Description={summary}")
                version = _one_line(dist.version, 64)
                if version:
                    lines.append(f"Version={version}")
            files[f"python-{key}-{module}.backend"] = "\n".join(lines) + "\n"
    return files, problems


def _written_before(directory):
    names = []
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        if name.startswith("python-") and name.endswith(".backend") and os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                if f.readline().startswith(MARKER):
                    names.append(name)
    return names


def _write(directory, name, text):
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, os.path.join(directory, name))


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m libreg.entry_points",
        description="Write libreg manifests for the backends that installed Python packages "
                    f"declare in the {GROUP} entry-point group, importing nothing.")
    parser.add_argument("--dir", required=True,
                        help="where to write the manifests: a directory of libreg's search "
                             "path (REG_BACKEND_PATH); made if missing")
    parser.add_argument("--path", action="append", metavar="SITE_DIR",
                        help="read the packages installed in SITE_DIR (repeatable) instead of "
                             "those this Python finds")
    args = parser.parse_args(argv)

    distributions = importlib.metadata.distributions(
        **({"path": args.path} if args.path else {}))
    files, problems = _manifests(distributions)
    for package, entry, reason in problems:
        print(f"{package}: entry point {entry} skipped: {reason}", file=sys.stderr)

    os.makedirs(args.dir, exist_ok=True)
    for name in _written_before(args.dir):
        if name not in files:
            os.unlink(os.path.join(args.dir, name))
            print(f"removed {name}")
    for name, text in sorted(files.items()):
        _write(args.dir, name, text)
        print(f"wrote {name}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
