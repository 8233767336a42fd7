#!/usr/bin/python3
# bench-loaders.py: what a backend written in Python costs, against Python
# alone, measured in the same run (benchmarks/README.md)
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   bench-loaders.py [--runs N] [--calls N] [--first-lookup PROGRAM]
#
# Writes a backend module and its manifest into a temporary directory and
# measures, each in fresh processes (the median of --runs):
#
#   1. its first lookup in a C program (bench-first-lookup: opening the
#      loader, starting the interpreter, importing the module), against
#      `python3 -c 'import MODULE'` (a whole process: starting the
#      interpreter, importing);
#   2. its first lookup in a Python program that imported PyGObject and
#      libreg already, against a plain `import MODULE` there;
#
# and in one Python process (the fastest of 9 rounds of --calls, as
# timeit advises: the others were slowed by the rest of the machine):
#
#   3. a call of a function the backend compiled (Reg.CompiledFn.call:
#      libreg's checks of the inputs and outputs, PyGObject's virtual
#      method, the Python function), against calling the same Python
#      function directly.
#
# The module imports what a real backend imports (PyGObject, Reg, and
# numpy when it is installed, with --numpy), so that the import is the
# import a backend costs.  Run with the environment `meson devenv` sets
# (REG_LOADER_DIR, GI_TYPELIB_PATH), with the build's libreg first on
# LD_LIBRARY_PATH.

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import timeit

MODULE = '''\
import gi
gi.require_version("Gio", "2.0")
gi.require_version("Reg", "1.0")
from gi.repository import Gio, GObject, Reg
{numpy}

def identity(inputs):
    outputs = Gio.ListStore.new(Reg.Tensor)
    outputs.append(inputs[0])
    return outputs

class BenchFn(GObject.Object, Reg.CompiledFn):
    def do_run(self, inputs):
        return identity(inputs)

class BenchCompiler(GObject.Object, Reg.Compiler):
    def do_compile(self, graph, example_inputs, options):
        return BenchFn()

    def do_get_flags(self):
        return Reg.CompilerFlags.SHAREABLE
'''

MANIFEST = '''\
[Reg Module]
AbiVersion=2
Loader=python
Import=regbench_backend

[Backend regbench]
Object=BenchCompiler
'''

SETUP = ('import gi; gi.require_version("Reg", "1.0"); from gi.repository import Reg; '
         'r = Reg.Registry.get_default(); r.list_backends(None); import time; ')


def median_us(command, env, runs, parse=float):
    values = []
    for _ in range(runs):
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        values.append(parse(result.stdout.strip()))
    return statistics.median(values)


def wall_us(command, env, runs):
    values = []
    for _ in range(runs):
        start = timeit.default_timer()
        subprocess.run(command, env=env, capture_output=True, check=True)
        values.append((timeit.default_timer() - start) * 1e6)
    return statistics.median(values)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--runs', type=int, default=15)
    parser.add_argument('--calls', type=int, default=20000)
    parser.add_argument('--numpy', action='store_true', help='the module imports numpy too')
    parser.add_argument('--first-lookup', default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), 'bench-first-lookup'))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, 'regbench_backend.py'), 'w') as f:
            f.write(MODULE.format(numpy='import numpy' if args.numpy else ''))
        with open(os.path.join(tmp, 'bench.backend'), 'w') as f:
            f.write(MANIFEST)
        env = dict(os.environ, PYTHONPATH=tmp, PYTHONDONTWRITEBYTECODE='1',
                   REG_BACKEND_PATH=tmp + os.pathsep + os.environ.get('REG_BACKEND_PATH', ''))
        py = sys.executable
        print(f'module: regbench_backend (PyGObject, Reg{", numpy" if args.numpy else ""}); '
              f'{args.runs} fresh processes each, medians')

        c_lookup = median_us([args.first_lookup, 'regbench'], env, args.runs)
        py_process = wall_us([py, '-c', 'import regbench_backend'], env, args.runs)
        print(f'C program, first lookup:                    {c_lookup / 1000:8.2f} ms')
        print(f"python3 -c 'import regbench_backend':       {py_process / 1000:8.2f} ms "
              f'(a whole process)')
        print(f'  ratio:                                    {c_lookup / py_process:8.2f}')

        timed = 't = time.perf_counter(); {}; print((time.perf_counter() - t) * 1e6)'
        py_lookup = median_us([py, '-c', SETUP + timed.format('r.lookup_backend("regbench")')],
                              env, args.runs)
        py_import = median_us([py, '-c', SETUP + timed.format('import regbench_backend')],
                              env, args.runs)
        print(f'Python program, first lookup:               {py_lookup / 1000:8.2f} ms')
        print(f'Python program, import regbench_backend:    {py_import / 1000:8.2f} ms')
        print(f'  ratio (target at most 1.2):               {py_lookup / py_import:8.2f}')

        per_call = subprocess.run([py, '-c', SETUP + f'''
import timeit
from gi.repository import Reg
g = Reg.Graph.new_from_string("graph(x):\\n  return (x,)\\n")
x = [Reg.Tensor.new_from_data([1.0] * 16, [16])]
fn = r.compile("regbench", g, x, None)
import regbench_backend
via = min(timeit.repeat(lambda: fn.call(x), number={args.calls}, repeat=9))
direct = min(timeit.repeat(lambda: regbench_backend.identity(x), number={args.calls}, repeat=9))
print(via / {args.calls} * 1e6, direct / {args.calls} * 1e6)
'''], env=env, capture_output=True, text=True, check=True)
        via, direct = (float(v) for v in per_call.stdout.split())
        print(f'call through the backend (fn.call):         {via:8.2f} us')
        print(f'the same Python function, called directly:  {direct:8.2f} us')
        print(f'  ratio:                                    {via / direct:8.2f}')
        print(f'  bound 1.5 x direct + 5 us:                {1.5 * direct + 5:8.2f} us '
              f'({"within" if via <= 1.5 * direct + 5 else "over"})')


if __name__ == '__main__':
    main()
