#!/usr/bin/python3
# test-regctl.py: tests of the regctl command-line tool
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs the built regctl as a subprocess and checks its output, exit
# statuses and messages.  The environment (set by meson, see
# tests/meson.build) gives:
#   REGCTL                  the regctl program
#   REGCTL_EXAMPLES         docs/examples (default: found from this file)
#   REGCTL_MAN_PAGE         docs/regctl.1 (default: found from this file)
#   REG_BACKEND_PATH        the built modules
#   REGCTL_FIXTURES         the built fixture modules (tests/modules)
#   REGCTL_LOADER_FIXTURES  the fixtures of backends written in Python and
#                           JavaScript (tests/loaders), when their loaders
#                           are built (REG_LOADER_DIR names them)
#   REG_VERIFY_HELPER       the built checker of `regctl verify`
#   REGCTL_WRAPPER          optional command to run regctl under, e.g.
#                           "valgrind -q --error-exitcode=97 --leak-check=full
#                            --errors-for-leak-kinds=definite,indirect"
#                           (an exit status of 97 then fails the tests)
#
# Tests of the default backend (inductor) are skipped, saying so, while no
# module declares it.

import atexit
import json
import math
import os
import pty
import re
import select
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(HERE)
REGCTL = os.environ.get('REGCTL')
EXAMPLES = os.environ.get('REGCTL_EXAMPLES', os.path.join(SOURCE_ROOT, 'docs', 'examples'))
MAN_PAGE = os.environ.get('REGCTL_MAN_PAGE', os.path.join(SOURCE_ROOT, 'docs', 'regctl.1'))
WRAPPER = shlex.split(os.environ.get('REGCTL_WRAPPER', ''))
FIXTURES = os.environ.get('REGCTL_FIXTURES')
LOADER_FIXTURES = os.environ.get('REGCTL_LOADER_FIXTURES')

# The verdicts regctl records go to a cache directory of the tests' own.
os.environ['XDG_CACHE_HOME'] = tempfile.mkdtemp(prefix='test-regctl-cache-')
atexit.register(shutil.rmtree, os.environ['XDG_CACHE_HOME'], ignore_errors=True)

COMMANDS = ['list', 'info', 'run', 'bench', 'paths', 'verify']
LIST_KEYS = {'name', 'tags', 'description', 'loaded', 'origin', 'module_path', 'loader',
             'entry_point', 'default', 'version', 'authors', 'website', 'license', 'options'}
OPTION_KEYS = {'name', 'type', 'type_name', 'default', 'minimum', 'maximum', 'choices', 'description'}
# inductor's options as `regctl info inductor --json` gives them.
INDUCTOR_OPTIONS = [
    {'name': 'fuse', 'type': 'b', 'type_name': 'boolean', 'default': True,
     'minimum': None, 'maximum': None, 'choices': None,
     'description': 'Fuse elementwise operators and sums into one pass over memory'},
    {'name': 'block-size', 'type': 'u', 'type_name': 'uint32', 'default': 512,
     'minimum': 1, 'maximum': 4194304, 'choices': None, 'description': 'Elements per block'},
    {'name': 'threads', 'type': 'u', 'type_name': 'uint32', 'default': 1,
     'minimum': 0, 'maximum': 256, 'choices': None,
     'description': 'Threads that share the blocks of a kernel (0: one per processor)'},
    {'name': 'vector-math', 'type': 'b', 'type_name': 'boolean', 'default': True,
     'minimum': None, 'maximum': None, 'choices': None,
     'description': "Vectorized exp, log, tanh and sigmoid (false: glibc's, bit-identical to eager)"},
    {'name': 'passes', 'type': 'as', 'type_name': 'string list',
     'default': ['fold', 'simplify', 'cse', 'dce'], 'minimum': None, 'maximum': None,
     'choices': ['fold', 'simplify', 'cse', 'dce'],
     'description': 'The graph passes to run (for tests and debugging)'},
    {'name': 'matmul', 'type': 's', 'type_name': 'string', 'default': 'auto',
     'minimum': None, 'maximum': None, 'choices': ['auto', 'blas', 'in-tree'],
     'description': 'Matrix products on OpenBLAS (blas), the in-tree loops, or the faster here (auto)'},
]
DEBUG_BACKENDS = ['eager', 'relu_compile_error_TESTING_ONLY', 'relu_runtime_error_TESTING_ONLY']
SEE_LIST = 'See `regctl list` for available backends.'

ADD_GRAPH = '''graph(x):
  y = add(x, 1.5)
  return (y,)
'''

RELU_GRAPH = '''graph(x):
  y = relu(x)
  return (y,)
'''


def invalid_backend_message(name, suggestions=()):
    """The unknown-backend message of docs/names.md."""
    if not suggestions:
        return "Invalid backend: '%s'. %s" % (name, SEE_LIST)
    quoted = ', '.join("'%s'" % s for s in suggestions)
    return "Invalid backend: '%s', did you mean: %s? %s" % (name, quoted, SEE_LIST)


def regctl(*args, env=None, input=None, stderr=subprocess.PIPE):
    """Runs regctl with @args; @env entries are added to the environment
    (None values remove a variable)."""
    full_env = dict(os.environ)
    for key, value in (env or {}).items():
        if value is None:
            full_env.pop(key, None)
        else:
            full_env[key] = value
    return subprocess.run(WRAPPER + [REGCTL] + [str(a) for a in args],
                          env=full_env, input=input, stdout=subprocess.PIPE,
                          stderr=stderr, text=True, timeout=600)


_names_cache = None


def all_backend_names():
    global _names_cache
    if _names_cache is None:
        result = regctl('list', '--all', '--json')
        _names_cache = [b['name'] for b in json.loads(result.stdout)]
    return _names_cache


def require_inductor(test):
    if 'inductor' not in all_backend_names():
        test.skipTest('the default backend inductor is not built yet (`regctl list --all` does not show it)')


def open_pty(test):
    """A pseudo-terminal (master, slave), or skips @test, saying why, when
    the system cannot give one (a chroot or container without /dev/pts)."""
    try:
        return pty.openpty()
    except OSError as e:
        test.skipTest('no pseudo-terminal can be opened here (%s)' % e)


def read_terminal(master, timeout):
    """What the other side writes to the pseudo-terminal @master until it
    closes it, or until nothing comes for @timeout seconds."""
    output = b''
    while True:
        ready, _, _ = select.select([master], [], [], timeout)
        if not ready:
            return output
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the other side is closed
            return output
        if not chunk:
            return output
        output += chunk


def example(name):
    return os.path.join(EXAMPLES, name)


def parse_values(text):
    """'[1, -0.5, ...]' -> ([1.0, -0.5], True)"""
    assert text.startswith('[') and text.endswith(']'), text
    items = [s.strip() for s in text[1:-1].split(',') if s.strip()]
    truncated = bool(items) and items[-1] == '...'
    if truncated:
        items = items[:-1]
    return [float(v) for v in items], truncated


TENSOR_LINE = re.compile(r'^(input (?P<input>\S+)|output (?P<index>\d+)(?: \((?P<name>\S+)\))?)'
                         r': (?P<shape>\S+)(?: (?P<values>\[.*\]))?$')


def parse_run(stdout):
    """Parses `regctl run` output into a dict: backend, inputs and outputs
    ({name: (shape, values)}, [(name, shape, values)]), compile/call ms."""
    parsed = {'inputs': {}, 'outputs': []}
    for line in stdout.splitlines():
        m = TENSOR_LINE.match(line)
        if m:
            values = parse_values(m['values'])[0] if m['values'] else None
            if m['input']:
                parsed['inputs'][m['input']] = (m['shape'], values)
            else:
                assert int(m['index']) == len(parsed['outputs'])
                parsed['outputs'].append((m['name'], m['shape'], values))
            continue
        key, _, value = line.partition(': ')
        if key == 'backend':
            parsed['backend'] = value
        elif key in ('compile', 'call'):
            assert value.endswith(' ms'), line
            parsed[key] = float(value[:-3])
        else:
            raise AssertionError('unexpected line in run output: %r' % line)
    return parsed


def parse_table(stdout):
    """An aligned table: list of rows (lists of cells), the header first.
    Cells are cut at the columns where the header's titles start."""
    lines = stdout.splitlines()
    header = lines[0]
    starts = [m.start() for m in re.finditer(r'\S+', header)]
    rows = []
    for line in lines:
        cells = []
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else None
            cells.append(line[start:end].strip())
        rows.append(cells)
    return rows


def write_manifest(directory, file_name, module, backends):
    """backends: [(name, tags list, description)]"""
    text = '[Reg Module]\nModule=%s\nAbiVersion=2\n' % module
    for name, tags, description in backends:
        text += '\n[Backend %s]\nTags=%s\n' % (name, ';'.join(tags))
        if description is not None:
            text += 'Description=%s\n' % description
    with open(os.path.join(directory, file_name), 'w', encoding='utf-8') as f:
        f.write(text)


def man_page_text():
    with open(MAN_PAGE, encoding='utf-8') as f:
        return f.read()


def flatten_roff(text):
    """The words of roff source without its font macros and escapes:
    '.BR \\-a ", " \\-\\-all' reads '-a , --all'."""
    lines = []
    for line in text.splitlines():
        line = re.sub(r'^\.(?:B|I|BI|IB|RB|BR|RI|IR)\s+', '', line)
        if line.startswith('.'):
            continue
        for escape, plain in (('\\-', '-'), ('\\c', ''), ('\\&', ''), ('\\|', ''), ('"', '')):
            line = line.replace(escape, plain)
        lines.append(line)
    return ' '.join(' '.join(lines).split())


def man_synopsis():
    """The SYNOPSIS of regctl.1, one flattened line per .SY block,
    grouped by the word after 'regctl' (the command)."""
    section = man_page_text().split('\n.SH SYNOPSIS\n', 1)[1].split('\n.SH ', 1)[0]
    synopsis = {}
    for block in ('\n' + section).split('\n.SY regctl\n')[1:]:
        line = flatten_roff(block.split('\n.YS', 1)[0])
        synopsis.setdefault(line.split()[0], []).append(line)
    return synopsis


def command_options(command):
    """(short letter or None, long name) of each option that
    `regctl COMMAND --help` lists under Application Options."""
    result = regctl(command, '--help')
    assert result.returncode == 0, result.stderr
    block = result.stdout.split('\nApplication Options:\n', 1)[1].split('\n\n', 1)[0]
    options = re.findall(r'(?m)^  (?:-(\w), )?--([a-z][a-z-]*)', block)
    assert options, block
    return [(short or None, long) for short, long in options]


class RegctlTestCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='test-regctl-')
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        return path

    def mkdir(self, name):
        path = os.path.join(self.tmp, name)
        os.makedirs(path, exist_ok=True)
        return path

    def assertExit(self, result, status):
        self.assertEqual(result.returncode, status,
                         'exit status %d, expected %d\nstdout: %s\nstderr: %s'
                         % (result.returncode, status, result.stdout, result.stderr))

    def assertUsageError(self, result, command=None, message=None):
        self.assertExit(result, 2)
        self.assertEqual(result.stdout, '')
        if command is not None:
            self.assertIn('Usage: regctl %s' % command, result.stderr)
            self.assertIn("Try 'regctl %s --help'" % command, result.stderr)
        if message is not None:
            self.assertIn(message, result.stderr)

    def assertOnlyError(self, result, message):
        """Exit status 1 with exactly @message on stderr."""
        self.assertExit(result, 1)
        self.assertEqual(result.stderr, message + '\n')


@unittest.skipUnless(LOADER_FIXTURES, 'REGCTL_LOADER_FIXTURES is not set')
class TestLanguageLoaders(RegctlTestCase):
    """Backends written in Python and JavaScript: listed and described
    without starting an interpreter, run from regctl (a C program)."""

    def env(self, **extra):
        dirs = [os.path.join(LOADER_FIXTURES, 'python'), os.path.join(LOADER_FIXTURES, 'gjs'),
                os.path.join(EXAMPLES, 'python-backend'), os.path.join(EXAMPLES, 'js-backend'),
                os.environ['REG_BACKEND_PATH']]
        env = {'REG_BACKEND_PATH': ':'.join(dirs),
               'PYTHONPATH': os.path.join(LOADER_FIXTURES, 'python') + ':' +
                             os.path.join(EXAMPLES, 'python-backend')}
        # Python's and GJS's allocations at exit are theirs, not libreg's to
        # check (an AddressSanitizer build checks leaks of the C suite).
        if 'ASAN_OPTIONS' in os.environ:
            env['ASAN_OPTIONS'] = os.environ['ASAN_OPTIONS'] + ':detect_leaks=0'
        env.update(extra)
        return env

    def loaded_files(self, *args):
        """The shared objects the dynamic linker opens for `regctl ARGS`."""
        result = regctl(*args, env=self.env(LD_DEBUG='files'))
        self.assertExit(result, 0)
        return result.stdout, re.findall(r'file=(\S+)', result.stderr)

    def test_list_and_info_start_no_interpreter(self):
        for args in (('list', '--all'), ('list', '--all', '--json'), ('info', 'py_good'),
                     ('info', 'js_good'), ('paths',)):
            with self.subTest(args=args):
                _, files = self.loaded_files(*args)
                self.assertTrue(any('libreg-1' in f for f in files), files)
                for f in files:
                    self.assertNotRegex(f, r'libpython|libgjs|libmozjs|libreg-loader')

    def test_list_shows_them(self):
        out, _ = self.loaded_files('list', '--all')
        self.assertRegex(out, r'(?m)^py_good +- +declared +regfix_good:GoodCompiler +For tests')
        self.assertRegex(out, r'(?m)^js_good +- +declared +\S*/loaders/gjs/good\.js +For tests')
        listed = {b['name']: b for b in json.loads(self.loaded_files('list', '--all', '--json')[0])}
        self.assertEqual(listed['py_good']['loader'], 'python')
        self.assertEqual(listed['py_good']['entry_point'], 'regfix_good:GoodCompiler')
        self.assertIsNone(listed['py_good']['module_path'])
        self.assertEqual(listed['js_good']['loader'], 'gjs')
        self.assertEqual(listed['js_good']['entry_point'], 'good.js:GoodCompiler')
        self.assertEqual(listed['eager']['loader'], 'c')
        self.assertIsNone(listed['eager']['entry_point'])

    def test_info_shows_the_loader(self):
        out, _ = self.loaded_files('info', 'acme')
        self.assertIn('Loader:       python (imports the entry point\'s module into Python)\n', out)
        self.assertIn('Entry point:  acme_reg.compiler:AcmeCompiler\n', out)
        self.assertIn('Module:       -\n', out)
        out, _ = self.loaded_files('info', 'acme_js')
        self.assertIn('Loader:       gjs (imports the ES module into GJS)\n', out)
        self.assertIn('Entry point:  acme.js:AcmeCompiler\n', out)
        self.assertRegex(out, r'Module: +\S+/js-backend/acme\.js\n')
        out, _ = self.loaded_files('info', 'eager')
        self.assertIn('Loader:       c (a shared object)\n', out)

    def test_run_the_examples(self):
        graph = os.path.join(EXAMPLES, 'elementwise.graph')
        want = regctl('run', '--backend', 'eager', '--max-values', '0', graph, env=self.env())
        self.assertExit(want, 0)
        want_values = re.search(r'(?m)^output 0.*$', want.stdout).group(0)
        for backend in ('acme', 'acme_js', 'py_good', 'js_good'):
            with self.subTest(backend=backend):
                got = regctl('run', '--backend', backend, '--max-values', '0', graph,
                             env=self.env())
                self.assertExit(got, 0)
                values = [float(v) for v in re.findall(r'-?[\d.]+(?:e-?\d+)?',
                                                       re.search(r'(?m)^output 0.*$',
                                                                 got.stdout).group(0))[2:]]
                expected = [float(v) for v in re.findall(r'-?[\d.]+(?:e-?\d+)?',
                                                         want_values)[2:]]
                self.assertEqual(len(values), len(expected))
                for a, b in zip(values, expected):
                    self.assertAlmostEqual(a, b, places=5)

    def test_a_failure_says_why(self):
        result = regctl('info', '--load', 'py_raising', env=self.env())
        self.assertIn('the Python module regfix_raising cannot be imported: ValueError: '
                      'regfix_raising refuses to be imported (traceback', result.stdout + result.stderr)


@unittest.skipUnless(LOADER_FIXTURES, 'REGCTL_LOADER_FIXTURES is not set')
class TestVerifyLanguageLoaders(RegctlTestCase):
    """regctl verify on backends written in Python and JavaScript: checked
    in the checker's process, their verdicts keyed by the manifest, the
    JavaScript file, the Python environment and the Python module's files."""

    env = TestLanguageLoaders.env

    def copies(self, *fixtures):
        """Search directories holding copies of @fixtures (LANGUAGE/FILE),
        first on the search path, and a cache of the test's own."""
        d = self.mkdir('copies')
        for fixture in fixtures:
            os.makedirs(os.path.join(d, os.path.dirname(fixture)), exist_ok=True)
            shutil.copy(os.path.join(LOADER_FIXTURES, fixture), os.path.join(d, fixture))
        env = self.env(XDG_CACHE_HOME=self.mkdir('cache'))
        env['REG_BACKEND_PATH'] = ':'.join([os.path.join(d, 'python'), os.path.join(d, 'gjs'),
                                            env['REG_BACKEND_PATH']])
        return d, env

    def verdicts(self, env, *names, timeout='20'):
        result = regctl('verify', '--json', '--timeout', timeout, *names, env=env)
        return {c['name']: c for c in json.loads(result.stdout)}

    def state(self, env, name):
        result = regctl('info', name, env=env)
        self.assertExit(result, 0)
        return re.search(r'(?m)^State: +(\S+)$', result.stdout).group(1)

    def test_each_verdict(self):
        _, env = self.copies('python/crash.backend', 'python/hang.backend', 'gjs/crash.backend',
                             'gjs/crash.js', 'gjs/hang.backend', 'gjs/hang.js')
        checked = self.verdicts(env, 'acme', 'acme_js', 'py_good', 'js_good', 'py_raising',
                                'py_crash', 'js_crash')
        checked.update(self.verdicts(env, 'py_hang', 'js_hang', timeout='2'))
        self.assertEqual({n: c['verdict'] for n, c in checked.items()},
                         {'acme': 'unsupported', 'acme_js': 'unsupported', 'py_good': 'ok', 'js_good': 'ok',
                          'py_raising': 'load-failed', 'py_crash': 'crashed', 'py_hang': 'timeout',
                          'js_crash': 'crashed', 'js_hang': 'timeout'})
        self.assertEqual({n for n, c in checked.items() if c['quarantined']},
                         {'py_crash', 'py_hang', 'js_crash', 'js_hang'})
        self.assertIn('SIGABRT', checked['py_crash']['reason'])
        self.assertIn('ValueError: regfix_raising refuses to be imported',
                      checked['py_raising']['reason'])

        # A C host that looks them up afterwards gets an error and goes on
        # (here: falls back to eager).
        graph = os.path.join(EXAMPLES, 'elementwise.graph')
        for name in ('py_crash', 'py_hang', 'js_crash', 'js_hang'):
            with self.subTest(name=name):
                self.assertEqual(self.state(env, name), 'quarantined')
                result = regctl('run', graph, '-b', name, env=dict(env, REG_FALLBACK_BACKENDS='eager'))
                self.assertExit(result, 0)
                self.assertIn('backend: eager (fallback from %s: ' % name, result.stdout)
                self.assertIn('is quarantined', result.stdout)
                self.assertIn('run `regctl verify %s` to check it again' % name, result.stdout)

    def test_checked_before_the_first_load(self):
        _, env = self.copies('python/crash.backend', 'gjs/crash.backend', 'gjs/crash.js')
        graph = os.path.join(EXAMPLES, 'elementwise.graph')
        for name in ('py_crash', 'js_crash'):
            with self.subTest(name=name):
                result = regctl('run', graph, '-b', name, env=dict(env, REG_VERIFY_MODULES='1'))
                self.assertExit(result, 1)
                self.assertIn("backend '%s' (declared by " % name, result.stderr)
                self.assertIn('is quarantined', result.stderr)
                self.assertEqual(self.state(env, name), 'quarantined')

    def test_a_changed_declaration_is_checked_anew(self):
        d, env = self.copies('python/crash.backend', 'gjs/crash.backend', 'gjs/crash.js')
        self.verdicts(env, 'py_crash', 'js_crash')
        self.assertEqual(self.state(env, 'py_crash'), 'quarantined')
        self.assertEqual(self.state(env, 'js_crash'), 'quarantined')
        # The manifest of one, the ES module of the other.
        with open(os.path.join(d, 'python', 'crash.backend'), 'a', encoding='utf-8') as f:
            f.write('\n')
        with open(os.path.join(d, 'gjs', 'crash.js'), 'a', encoding='utf-8') as f:
            f.write('// changed\n')
        self.assertEqual(self.state(env, 'py_crash'), 'declared')
        self.assertEqual(self.state(env, 'js_crash'), 'declared')

    def test_an_edited_python_module_is_checked_anew(self):
        d, env = self.copies('python/crash.backend', 'python/regfix_crash.py')
        env['PYTHONPATH'] = os.path.join(d, 'python') + ':' + env['PYTHONPATH']
        module = os.path.join(d, 'python', 'regfix_crash.py')
        self.assertEqual(self.verdicts(env, 'py_crash')['py_crash']['verdict'], 'crashed')
        self.assertEqual(self.state(env, 'py_crash'), 'quarantined')
        # Its verdict is about the module as it was: edited, it is checked
        # anew (and still crashes).
        with open(module, 'a', encoding='utf-8') as f:
            f.write('# changed\n')
        self.assertEqual(self.state(env, 'py_crash'), 'declared')
        self.assertEqual(self.verdicts(env, 'py_crash')['py_crash']['verdict'], 'crashed')
        self.assertEqual(self.state(env, 'py_crash'), 'quarantined')
        # Fixed, it loads.
        with open(module, 'w', encoding='utf-8') as f:
            f.write('from regfix_good import GoodCompiler as Compiler\n')
        self.assertEqual(self.state(env, 'py_crash'), 'declared')
        result = regctl('run', os.path.join(EXAMPLES, 'elementwise.graph'), '-b', 'py_crash', env=env)
        self.assertExit(result, 0)
        self.assertIn('backend: py_crash\n', result.stdout)

    def test_no_system_verdicts(self):
        _, env = self.copies()
        for name, language in (('py_good', 'Python'), ('js_good', 'JavaScript')):
            with self.subTest(name=name):
                result = regctl('verify', '--system', name, env=env)
                self.assertExit(result, 1)
                self.assertIn("backend '%s' is written in %s: its verdicts are each user's" % (name, language),
                              result.stderr)
                self.assertEqual(self.state(env, name), 'declared')
        # --all leaves them out.
        d, env = self.copies('python/crash.backend', 'gjs/crash.backend', 'gjs/crash.js')
        env['REG_BACKEND_PATH'] = os.path.join(d, 'python') + ':' + os.path.join(d, 'gjs')
        result = regctl('verify', '--all', '--system', '--json', env=env)
        self.assertExit(result, 0)
        self.assertEqual(json.loads(result.stdout), [])
        self.assertEqual(self.state(env, 'py_crash'), 'declared')

    def test_a_damaged_key_file_is_replaced(self):
        _, env = self.copies('python/crash.backend')
        key = self.verdicts(env, 'py_crash')['py_crash']['module_path']
        self.assertEqual(self.state(env, 'py_crash'), 'quarantined')
        for damage in (b'file=', b'file=1:2 \\', b'\0file=x', b'x' * (5 << 20)):
            with self.subTest(damage=damage[:16]):
                with open(key, 'wb') as f:
                    f.write(damage)
                self.assertEqual(self.state(env, 'py_crash'), 'declared')
                self.assertEqual(self.verdicts(env, 'py_crash')['py_crash']['module_path'], key)
                self.assertEqual(self.state(env, 'py_crash'), 'quarantined')

    def test_a_package_is_its_files(self):
        d, env = self.copies()
        package = os.path.join(d, 'python', 'regfix_package')
        os.makedirs(os.path.join(package, 'kernels'))
        for name, text in (('__init__.py', ''), ('compiler.py', 'from .kernels import abort\n'),
                           ('kernels/__init__.py', 'import os\n\ndef abort():\n    os.abort()\n\nabort()\n')):
            with open(os.path.join(package, name), 'w', encoding='utf-8') as f:
                f.write(text)
        with open(os.path.join(d, 'python', 'package.backend'), 'w', encoding='utf-8') as f:
            f.write('[Reg Module]\nAbiVersion=2\nLoader=python\nImport=regfix_package.compiler\n\n'
                    '[Backend py_package]\nObject=Compiler\n')
        env['PYTHONPATH'] = os.path.join(d, 'python') + ':' + env['PYTHONPATH']
        self.assertEqual(self.verdicts(env, 'py_package')['py_package']['verdict'], 'crashed')
        self.assertEqual(self.state(env, 'py_package'), 'quarantined')
        # Any file of the package, however deep.
        with open(os.path.join(package, 'kernels', '__init__.py'), 'a', encoding='utf-8') as f:
            f.write('# changed\n')
        self.assertEqual(self.state(env, 'py_package'), 'declared')
        self.verdicts(env, 'py_package')
        self.assertEqual(self.state(env, 'py_package'), 'quarantined')


class TestTopLevel(RegctlTestCase):
    def test_help_lists_commands(self):
        result = regctl('--help')
        self.assertExit(result, 0)
        for command in COMMANDS:
            self.assertRegex(result.stdout, r'(?m)^  %s\s+\S' % command)
        self.assertIn('REG_BACKEND_PATH', result.stdout)

    def test_help_command(self):
        self.assertEqual(regctl('help').stdout, regctl('--help').stdout)

    def test_version(self):
        result = regctl('--version')
        self.assertExit(result, 0)
        self.assertRegex(result.stdout, r'^regctl \d+\.\d+\.\d+\n$')

    def test_no_command(self):
        result = regctl()
        self.assertUsageError(result, message='no command given')
        self.assertIn('Usage: regctl COMMAND', result.stderr)

    def test_unknown_command(self):
        result = regctl('frobnicate')
        self.assertUsageError(result, message="unknown command 'frobnicate'")

    def test_unknown_option_before_command(self):
        self.assertUsageError(regctl('--frobnicate'), message="unknown option '--frobnicate'")

    def test_help_of_unknown_command(self):
        self.assertUsageError(regctl('help', 'frobnicate'), message="unknown command 'frobnicate'")

    def test_each_command_has_help(self):
        for command in COMMANDS:
            with self.subTest(command=command):
                result = regctl(command, '--help')
                self.assertExit(result, 0)
                self.assertIn('regctl %s' % command, result.stdout)
                self.assertIn('--add-path', result.stdout)
                self.assertEqual(regctl('help', command).stdout, result.stdout)

    def test_each_command_rejects_unknown_options(self):
        for command in COMMANDS:
            with self.subTest(command=command):
                result = regctl(command, '--frobnicate')
                self.assertUsageError(result, command, 'Unknown option --frobnicate')

    def test_man_page_documents_every_option(self):
        with open(MAN_PAGE, encoding='utf-8') as f:
            man = f.read().replace('\\-', '-')
        for command in COMMANDS:
            self.assertRegex(man, r'\.SS "%s' % command)
            help_text = regctl(command, '--help').stdout
            for option in set(re.findall(r'--([a-z][a-z-]*)', help_text)):
                with self.subTest(command=command, option=option):
                    self.assertIn('--' + option, man)
        for word in ['REG_BACKEND_PATH', 'REG_BACKEND_SYSTEM_DIR', '.SH EXIT STATUS', '--version']:
            self.assertIn(word, man)

    def test_man_page_synopsis_lists_every_option(self):
        """Every command regctl --help lists has a line in the man page's
        SYNOPSIS naming each long option its own --help lists, and each
        short option is documented beside its long one."""
        help_text = regctl('--help').stdout
        block = help_text.split('\nCommands:\n', 1)[1].split('\n\n', 1)[0]
        commands = re.findall(r'(?m)^  ([a-z][a-z-]*)\s+\S', block)
        self.assertIn('list', commands)
        synopsis = man_synopsis()
        body = flatten_roff(man_page_text().split('\n.SH COMMANDS\n', 1)[1])
        for command in commands:
            with self.subTest(command=command):
                self.assertIn(command, synopsis)
            if command == 'help':
                continue
            for short, long in command_options(command):
                with self.subTest(command=command, option=long):
                    self.assertTrue(any(re.search(r'(?<![\w-])--%s(?![\w-])' % re.escape(long), line)
                                        for line in synopsis.get(command, [])),
                                    'regctl %s --%s is not in the SYNOPSIS of regctl.1' % (command, long))
                    if short is not None:
                        self.assertTrue(re.search(r'(?<![\w-])-%s , --%s(?![\w-])'
                                                  % (re.escape(short), re.escape(long)), body),
                                        'regctl.1 does not document "-%s, --%s" of regctl %s'
                                        % (short, long, command))
        self.assertIn('--help | --version', ' '.join(synopsis.get('--help', [])))

    @unittest.skipUnless(shutil.which('groff'), 'groff is not installed')
    def test_man_page_renders_without_warnings(self):
        result = subprocess.run(['groff', '-man', '-Tutf8', '-ww', '-z', MAN_PAGE],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(result.returncode, 0)
        self.assertEqual(result.stderr, '')


class TestList(RegctlTestCase):
    def test_default_hides_debug_backends(self):
        result = regctl('list')
        self.assertExit(result, 0)
        rows = parse_table(result.stdout)
        self.assertEqual(rows[0], ['NAME', 'TAGS', 'STATE', 'SOURCE', 'DESCRIPTION'])
        names = [row[0] for row in rows[1:]]
        for name in DEBUG_BACKENDS:
            self.assertNotIn(name, names)

    def test_all_shows_declared_debug_backends(self):
        result = regctl('list', '--all')
        self.assertExit(result, 0)
        self.assertEqual(result.stderr, '')
        rows = {row[0]: row for row in parse_table(result.stdout)[1:]}
        for name in DEBUG_BACKENDS:
            self.assertIn(name, rows)
        name, tags, state, source, description = rows['eager']
        self.assertEqual(tags, 'debug')
        # list never loads a module
        self.assertEqual(state, 'declared')
        self.assertTrue(source.endswith('libreg-eager.so'), source)
        self.assertTrue(os.path.isabs(source))
        self.assertNotEqual(description, '')

    def test_table_is_aligned_without_trailing_blanks(self):
        result = regctl('list', '--all')
        lines = result.stdout.splitlines()
        header = lines[0]
        starts = [m.start() for m in re.finditer(r'\S+', header)]
        for line in lines:
            self.assertEqual(line, line.rstrip())
            for start in starts[1:]:
                self.assertEqual(line[start - 2:start], '  ', line)
                self.assertNotEqual(line[start], ' ', line)

    def test_sorted(self):
        rows = parse_table(regctl('list', '--all').stdout)[1:]
        names = [row[0] for row in rows]
        self.assertEqual(names, sorted(names, key=lambda n: n.encode()))

    def test_exclude_tags_replaces_default_set(self):
        names = [r[0] for r in parse_table(regctl('list', '--exclude-tags=experimental').stdout)[1:]]
        self.assertIn('eager', names)
        names = [r[0] for r in parse_table(regctl('list', '--exclude-tags', 'debug').stdout)[1:]]
        self.assertNotIn('eager', names)
        names = [r[0] for r in parse_table(regctl('list', '--exclude-tags=').stdout)[1:]]
        self.assertEqual(names, [r[0] for r in parse_table(regctl('list', '--all').stdout)[1:]])

    def test_all_and_exclude_tags_conflict(self):
        self.assertUsageError(regctl('list', '--all', '--exclude-tags=debug'), 'list')

    def test_extra_argument(self):
        self.assertUsageError(regctl('list', 'eager'), 'list', "unexpected argument 'eager'")

    def test_json(self):
        result = regctl('list', '--all', '--json')
        self.assertExit(result, 0)
        backends = json.loads(result.stdout)
        self.assertIsInstance(backends, list)
        by_name = {}
        for backend in backends:
            self.assertEqual(set(backend), LIST_KEYS)
            self.assertIsInstance(backend['name'], str)
            self.assertIsInstance(backend['tags'], list)
            self.assertTrue(all(isinstance(t, str) for t in backend['tags']))
            self.assertIsInstance(backend['description'], (str, type(None)))
            self.assertIsInstance(backend['loaded'], bool)
            self.assertIn(backend['origin'], ('runtime', 'module'))
            self.assertIsInstance(backend['module_path'], (str, type(None)))
            by_name[backend['name']] = backend
        eager = by_name['eager']
        self.assertEqual(eager['tags'], ['debug'])
        self.assertFalse(eager['loaded'])
        self.assertEqual(eager['origin'], 'module')
        self.assertTrue(eager['module_path'].endswith('/libreg-eager.so'))
        self.assertEqual(eager['description'], 'Reference interpreter, one node at a time')

    def test_json_default_set(self):
        names = [b['name'] for b in json.loads(regctl('list', '--json').stdout)]
        self.assertNotIn('eager', names)

    def test_json_empty(self):
        empty = self.mkdir('empty')
        result = regctl('list', '--json', env={'REG_BACKEND_PATH': empty, 'REG_BACKEND_SYSTEM_DIR': ''})
        self.assertExit(result, 0)
        self.assertEqual(json.loads(result.stdout), [])

    def test_json_escapes_strings(self):
        d = self.mkdir('odd')
        # GKeyFile unescapes \t \n \\ in values; \x01 and the rest are
        # written as they are.
        write_manifest(d, 'odd.backend', 'libodd.so', [
            ('caf\u00e9', ['experimental', 'x-\u00fc'],
             'He said "hi" \\\\ back\\tslash\\nnew line \x01 \u2603 end'),
            ('nodesc', [], None),
        ])
        result = regctl('list', '--all', '--json', env={'REG_BACKEND_PATH': d})
        self.assertExit(result, 0)
        backends = {b['name']: b for b in json.loads(result.stdout)}
        odd = backends['caf\u00e9']
        self.assertEqual(odd['description'], 'He said "hi" \\ back\tslash\nnew line \x01 \u2603 end')
        self.assertEqual(odd['tags'], ['experimental', 'x-\u00fc'])
        self.assertIsNone(backends['nodesc']['description'])
        self.assertEqual(backends['nodesc']['tags'], [])
        self.assertEqual(odd['module_path'], os.path.join(os.path.realpath(d), 'libodd.so'))
        # control characters never reach the output raw
        self.assertNotIn('\x01', result.stdout)
        self.assertNotIn('\t', result.stdout)
        # nor the table, where the description keeps to its line, its
        # control characters shown by code point
        result = regctl('list', '--all', env={'REG_BACKEND_PATH': d})
        self.assertExit(result, 0)
        self.assertEqual(len(result.stdout.splitlines()), 3)
        self.assertIn('He said "hi" \\ back<U+0009>slash<U+000A>new line <U+0001> \u2603 end',
                      result.stdout)
        # UTF-8 in and out, whatever the locale
        for locale in ['C.UTF-8', 'C']:
            with self.subTest(locale=locale):
                env = {'REG_BACKEND_PATH': d, 'LC_ALL': locale}
                result = regctl('info', 'caf\u00e9', env=env)
                self.assertExit(result, 0)
                self.assertIn('Name:         caf\u00e9\n', result.stdout)
                self.assertIn('Description:  He said "hi" \\ back<U+0009>slash<U+000A>new line '
                              '<U+0001> \u2603 end\n', result.stdout)
                self.assertIn('caf\u00e9  ', regctl('list', '--all', env=env).stdout)
                self.assertOnlyError(regctl('info', 'caf\u00e8', env=env),
                                     invalid_backend_message('caf\u00e8', ['caf\u00e9']))

    def list_on_terminal(self, columns, env=None, *args):
        """`regctl list` with stdout on a terminal @columns wide."""
        import fcntl
        import struct
        import termios
        master, slave = open_pty(self)
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 24, columns, 0, 0))
        full_env = dict(os.environ)
        full_env.update(env or {})
        try:
            process = subprocess.Popen(WRAPPER + [REGCTL, 'list', *args], stdout=slave,
                                       stderr=subprocess.PIPE, env=full_env)
            os.close(slave)
            slave = None
            output = read_terminal(master, 60)
            _, stderr = process.communicate(timeout=600)
        finally:
            if slave is not None:
                os.close(slave)
            os.close(master)
        self.assertEqual(process.returncode, 0, stderr)
        return output.decode('utf-8').replace('\r\n', '\n')

    def test_fits_terminal(self):
        d = self.mkdir('long')
        long_text = 'A description that goes on and on ' * 6
        write_manifest(d, 'long.backend', 'libreg-long-module-name.so', [
            ('a_rather_long_backend_name', ['debug', 'gpu'], long_text.strip()),
            ('short', [], 'Short'),
        ])
        env = {'REG_BACKEND_PATH': d + ':' + os.environ['REG_BACKEND_PATH']}
        piped = regctl('list', '--all', env=env).stdout
        self.assertGreater(max(len(line) for line in piped.splitlines()), 100)
        for columns, width in ((200, 100), (100, 100), (96, 96)):
            with self.subTest(columns=columns):
                text = self.list_on_terminal(columns, env, '--all')
                lines = text.splitlines()
                self.assertLessEqual(max(len(line) for line in lines), width, text)
                rows = {r[0]: r for r in parse_table(text)[1:]}
                self.assertEqual(rows['eager'][3], 'libreg-eager.so')
                cut = rows['a_rather_long_backend_name'][4]
                self.assertTrue(cut.endswith('\u2026'), cut)
                self.assertTrue(long_text.startswith(cut[:-1]), cut)
                self.assertEqual(rows['short'][4], 'Short')
        # Whole in JSON, whatever stdout is.
        listed = {b['name']: b for b in json.loads(regctl('list', '--all', '--json', env=env).stdout)}
        self.assertEqual(listed['a_rather_long_backend_name']['description'], long_text.strip())

    def test_never_loads_modules(self):
        # Modules that could not be loaded: a missing file and garbage.
        d = self.mkdir('unloadable')
        write_manifest(d, 'ghost.backend', 'libghost.so', [('ghost', [], 'No module file')])
        write_manifest(d, 'junk.backend', 'libjunk.so', [('junk', [], 'Not a module')])
        with open(os.path.join(d, 'libjunk.so'), 'w') as f:
            f.write('not an ELF file\n')
        env = {'REG_BACKEND_PATH': d}
        for args in (['list'], ['list', '--json'], ['info', 'ghost'], ['info', 'junk', '--json']):
            with self.subTest(args=args):
                result = regctl(*args, env=env)
                self.assertExit(result, 0)
                self.assertEqual(result.stderr, '')
        rows = {r[0]: r for r in parse_table(regctl('list', env=env).stdout)[1:]}
        self.assertEqual(rows['ghost'][2], 'declared')
        self.assertEqual(rows['junk'][2], 'declared')


def invisible_characters(text):
    """The characters of @text a terminal would act on, or that would
    rearrange what it shows: C0 and C1 controls but the line ends of the
    output itself, DEL, format characters (direction overrides),
    line and paragraph separators."""
    import unicodedata
    return [c for line in text.split('\n') for c in line
            if unicodedata.category(c) in ('Cc', 'Cf', 'Zl', 'Zp')]


class TestOutputSafety(RegctlTestCase):
    """Text from manifests and modules reaches regctl's text output and
    its messages escaped, the way libreg escapes it; --json stays exact."""

    HOSTILE = 'csi \u009b31m rlo \u202e esc \x1b[2J del \x7f zw \u200b bell \x07 end'

    def make_hostile(self):
        d = self.mkdir('hostile')
        # The backslash escapes of GKeyFile give a newline and a tab.
        write_manifest(d, 'hostile.backend', 'lib\x1b[31mred\u009b.so',
                       [('hostile', ['t\u00e4g'], self.HOSTILE + '\\nsecond line\\tend')])
        return d

    def test_list_and_info_escape(self):
        d = self.make_hostile()
        env = {'REG_BACKEND_PATH': d}
        for args in (['list', '--all'], ['info', 'hostile']):
            with self.subTest(args=args):
                result = regctl(*args, env=env)
                self.assertExit(result, 0)
                self.assertEqual(invisible_characters(result.stdout), [])
                self.assertIn('csi <U+009B>31m rlo <U+202E> esc <U+001B>[2J del <U+007F> '
                              'zw <U+200B> bell <U+0007> end<U+000A>second line<U+0009>end',
                              result.stdout)
                self.assertIn('lib<U+001B>[31mred<U+009B>.so', result.stdout)
        self.assertEqual(len(regctl('list', '--all', env=env).stdout.splitlines()), 2)

    def test_json_stays_exact(self):
        d = self.make_hostile()
        for args in (['list', '--all', '--json'], ['info', 'hostile', '--json']):
            with self.subTest(args=args):
                result = regctl(*args, env={'REG_BACKEND_PATH': d})
                self.assertExit(result, 0)
                # Exact once parsed, and nothing raw a terminal acts on.
                self.assertEqual(invisible_characters(result.stdout), [])
                parsed = json.loads(result.stdout)
                backend = parsed[0] if isinstance(parsed, list) else parsed
                self.assertEqual(backend['description'], self.HOSTILE + '\nsecond line\tend')
                self.assertEqual(backend['module_path'],
                                 os.path.join(os.path.realpath(d), 'lib\x1b[31mred\u009b.so'))
                self.assertIn('\\u009b', result.stdout)
                self.assertIn('\\u202e', result.stdout)

    def test_load_error_escaped(self):
        d = self.make_hostile()
        result = regctl('info', 'hostile', '--load', env={'REG_BACKEND_PATH': d})
        self.assertExit(result, 1)
        self.assertEqual(invisible_characters(result.stderr), [])
        self.assertIn('lib<U+001B>[31mred<U+009B>.so cannot be opened', result.stderr)

    def test_file_names_escaped(self):
        d = self.mkdir('dir\nwith \x1b[1mline\u202e')
        with open(os.path.join(d, 'forged\n(regctl:1): Reg-WARNING **: ok.backend'), 'w') as f:
            f.write('not a manifest')
        write_manifest(d, 'good.backend', 'libgood.so', [('good', [], 'Good')])
        env = {'REG_BACKEND_PATH': d, 'REG_BACKEND_SYSTEM_DIR': ''}

        def shown(text):
            return text.replace('\n', '<U+000A>').replace('\x1b', '<U+001B>') \
                       .replace('\u202e', '<U+202E>')

        result = regctl('list', '--all', env=env)
        self.assertExit(result, 0)
        self.assertEqual(invisible_characters(result.stdout + result.stderr), [])
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        self.assertIn('/forged<U+000A>(regctl:1): Reg-WARNING **: ok.backend skipped', result.stderr)

        result = regctl('paths', env=env)
        self.assertExit(result, 0)
        self.assertEqual(invisible_characters(result.stdout), [])
        self.assertIn(shown(os.path.realpath(d)), result.stdout)


class TestOutputErrors(RegctlTestCase):
    """Every command checks that its output was written; a closed pipe
    ends regctl quietly."""

    COMMANDS = [
        ['list', '--all', '--json'],
        ['list'],
        ['info', 'eager'],
        ['paths'],
        ['paths', '--json'],
        ['--version'],
        ['--help'],
        ['list', '--help'],
    ]

    def run_to(self, args, stdout, **kwargs):
        return subprocess.run(WRAPPER + [REGCTL] + args, stdout=stdout, stderr=subprocess.PIPE,
                              text=True, timeout=600, **kwargs)

    def test_full_device(self):
        if not os.path.exists('/dev/full'):
            self.skipTest('no /dev/full')
        commands = self.COMMANDS + [['run', example('elementwise.graph'), '--backend', 'eager']]
        for args in commands:
            with self.subTest(args=args):
                with open('/dev/full', 'w') as full:
                    result = self.run_to(args, full)
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertEqual(result.stderr,
                                 'regctl: cannot write to standard output: No space left on device\n')

    def test_closed_pipe(self):
        import signal
        for ignored in (False, True):
            for args in self.COMMANDS:
                with self.subTest(args=args, sigpipe_ignored=ignored):
                    read_end, write_end = os.pipe()
                    os.close(read_end)
                    # Started with SIGPIPE ignored, as from some shells and
                    # services: regctl still ends quietly.
                    preexec = (lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN)) if ignored else None
                    result = self.run_to(args, write_end, preexec_fn=preexec,
                                         restore_signals=not ignored)
                    os.close(write_end)
                    self.assertEqual(result.returncode, -signal.SIGPIPE, result.stderr)
                    self.assertEqual(result.stderr, '')


class TestBoundedInput(RegctlTestCase):
    def test_special_files_refused(self):
        result = regctl('run', '/dev/zero', '--backend', 'eager')
        self.assertExit(result, 1)
        self.assertEqual(result.stderr, '/dev/zero: not a regular file\n')
        self.assertEqual(result.stdout, '')

    def test_endless_stdin(self):
        with open('/dev/zero', 'rb') as zero:
            result = subprocess.run(WRAPPER + [REGCTL, 'run', '-', '--backend', 'eager'],
                                    stdin=zero, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, timeout=600)
        self.assertExit(result, 1)
        self.assertEqual(result.stderr,
                         '<stdin>: larger than the 16777216 bytes a graph file may have\n')

    def test_file_too_large(self):
        path = os.path.join(self.tmp, 'huge.graph')
        with open(path, 'w') as f:
            f.truncate(16 * 1024 * 1024 + 1)
        result = regctl('run', path, '--backend', 'eager')
        self.assertExit(result, 1)
        self.assertEqual(result.stderr, '%s: 16777217 bytes, larger than the 16777216 bytes '
                                        'a graph file may have\n' % path)

    def test_output_too_large_for_memory(self):
        # 2^46 floats, 256 TiB: more than a process can address.  The call
        # fails with the size; it aborted the process ("failed to map").
        graph = self.write('mm.graph', 'graph(a, b):\n  c = matmul(a, b)\n  return (c,)\n')
        backends = ['eager']
        if 'inductor' in all_backend_names():
            backends.append('inductor')
        for backend in backends:
            with self.subTest(backend=backend):
                result = regctl('run', graph, '--backend', backend,
                                '--input', 'a=8388608x1', '--input', 'b=1x8388608')
                self.assertExit(result, 1)
                self.assertRegex(result.stderr,
                                 r"^calling .*mm\.graph compiled by backend '%s' failed: .*"
                                 r"not enough memory for a tensor of shape \[8388608, 8388608\]: "
                                 r"281474976710656 bytes \(256\.0 TiB\)\n$" % backend)


class TestInfo(RegctlTestCase):
    def info_fields(self, stdout):
        """The Key: value lines of `regctl info` (Shadows' continuation
        lines aside)."""
        fields = {}
        for line in stdout.splitlines():
            key, _, value = line.partition(':')
            fields[key] = value.strip()
        return fields

    def test_text(self):
        result = regctl('info', 'eager')
        self.assertExit(result, 0)
        fields = self.info_fields(result.stdout)
        self.assertEqual(fields['Name'], 'eager')
        self.assertEqual(fields['Tags'], 'debug')
        self.assertEqual(fields['State'], 'declared')
        self.assertEqual(fields['Origin'], 'module')
        self.assertEqual(fields['Default'], 'no')
        self.assertTrue(fields['Module'].endswith('libreg-eager.so'))
        self.assertEqual(fields['Description'], 'Reference interpreter, one node at a time')
        self.assertEqual(fields['Shareable'], 'yes')
        self.assertIn('Default:      no\nShareable:    yes\n', result.stdout)
        self.assertNotIn('Compiler', fields)

    def test_json_matches_list(self):
        result = regctl('info', 'relu_runtime_error_TESTING_ONLY', '--json')
        self.assertExit(result, 0)
        info = json.loads(result.stdout)
        self.assertTrue(LIST_KEYS <= set(info))
        listed = {b['name']: b for b in json.loads(regctl('list', '--all', '--json').stdout)}
        self.assertEqual({k: info[k] for k in LIST_KEYS}, listed['relu_runtime_error_TESTING_ONLY'])
        self.assertIs(info['default'], False)

    def test_options_text(self):
        require_inductor(self)
        result = regctl('info', 'inductor')
        self.assertExit(result, 0)
        lines = result.stdout.splitlines()
        start = lines.index('Options:')
        table = parse_table('\n'.join(line[2:] for line in lines[start + 1:start + 7]))
        self.assertEqual(table[0], ['NAME', 'TYPE', 'DEFAULT', 'ALLOWED', 'DESCRIPTION'])
        self.assertEqual([row[:4] for row in table[1:]], [
            ['fuse', 'boolean', 'true', '-'],
            ['block-size', 'uint32', '512', '1 to 4194304'],
            ['threads', 'uint32', '1', '0 to 256'],
            ['vector-math', 'boolean', 'true', '-'],
            ['passes', 'string list', 'fold,simplify,cse,dce', 'any of fold, simplify, cse, dce'],
        ])
        self.assertEqual(table[3][4], INDUCTOR_OPTIONS[2]['description'])
        # Never loaded to tell.
        self.assertIn('State:        declared\n', result.stdout)
        self.assertIn('Options:      none\n', regctl('info', 'eager').stdout)
        self.assertIn('Options:      not declared (given to the backend unchecked)\n',
                      regctl('info', 'relu_compile_error_TESTING_ONLY').stdout)

    def test_options_json(self):
        require_inductor(self)
        info = json.loads(regctl('info', 'inductor', '--json').stdout)
        self.assertEqual(info['options'], INDUCTOR_OPTIONS)
        self.assertIs(info['loaded'], False)
        self.assertIs(info['default'], True)
        listed = {b['name']: b for b in json.loads(regctl('list', '--all', '--json').stdout)}
        self.assertEqual(listed['inductor']['options'], INDUCTOR_OPTIONS)
        self.assertEqual(listed['eager']['options'], [])
        self.assertIsNone(listed['relu_compile_error_TESTING_ONLY']['options'])

    def test_about_fields(self):
        d = self.mkdir('about')
        self.write('about/x.backend',
                   '[Reg Module]\nModule=libx.so\nAbiVersion=2\n\n'
                   '[Backend x]\nVersion=2.0 beta\nAuthors=Ada L.;Grace H. <g@example.org>\n'
                   'Website=https://example.org/x\nLicense=MIT OR Apache-2.0\n')
        env = {'REG_BACKEND_PATH': d}
        fields = self.info_fields(regctl('info', 'x', env=env).stdout)
        self.assertEqual(fields['Version'], '2.0 beta')
        self.assertEqual(fields['Authors'], 'Ada L., Grace H. <g@example.org>')
        self.assertEqual(fields['Website'], 'https://example.org/x')
        self.assertEqual(fields['License'], 'MIT OR Apache-2.0')
        self.assertEqual(fields['Shareable'], 'no')
        info = json.loads(regctl('info', 'x', '--json', env=env).stdout)
        self.assertEqual(info['authors'], ['Ada L.', 'Grace H. <g@example.org>'])
        self.assertEqual(info['website'], 'https://example.org/x')
        self.assertIsNone(info['options'])
        self.assertIs(info['shareable'], False)

    def test_shareable(self):
        # What the manifest says, the module not loaded (there is none).
        d = self.mkdir('shareable')
        self.write('shareable/x.backend',
                   '[Reg Module]\nModule=libx.so\nAbiVersion=2\n\n'
                   '[Backend yes_]\nShareable=true\n\n'
                   '[Backend no_]\nShareable=false\n\n'
                   '[Backend unsaid]\nDescription=Says nothing of it\n')
        env = {'REG_BACKEND_PATH': d}
        for name, expected in [('yes_', True), ('no_', False), ('unsaid', False)]:
            with self.subTest(backend=name):
                fields = self.info_fields(regctl('info', name, env=env).stdout)
                self.assertEqual(fields['Shareable'], 'yes' if expected else 'no')
                info = json.loads(regctl('info', name, '--json', env=env).stdout)
                self.assertIs(info['shareable'], expected)
        # The shipped backends say so in their manifests.
        for name in ['eager'] + (['inductor'] if 'inductor' in all_backend_names() else []):
            with self.subTest(backend=name):
                self.assertIs(json.loads(regctl('info', name, '--json').stdout)['shareable'], True)

    def test_operators(self):
        # What the manifest says (Operators=), the module not loaded.
        d = self.mkdir('operators')
        self.write('operators/x.backend',
                   '[Reg Module]\nModule=libx.so\nAbiVersion=2\n\n'
                   '[Backend dsp]\nOperators=matmul;add\n\n'
                   '[Backend none_]\nOperators=\n\n'
                   '[Backend unsaid]\nDescription=Says nothing of it\n')
        env = {'REG_BACKEND_PATH': d}
        for name, text, listed in [('dsp', 'matmul, add', ['matmul', 'add']),
                                   ('none_', 'none', []), ('unsaid', 'all', None)]:
            with self.subTest(backend=name):
                fields = self.info_fields(regctl('info', name, env=env).stdout)
                self.assertEqual(fields['Operators'], text)
                info = json.loads(regctl('info', name, '--json', env=env).stdout)
                self.assertEqual(info['operators'], listed)

    def test_load(self):
        result = regctl('info', 'eager', '--load')
        self.assertExit(result, 0)
        fields = self.info_fields(result.stdout)
        self.assertEqual(fields['State'], 'loaded')
        self.assertIn('Compiler', fields)
        self.assertTrue(fields['Lookup'].startswith('ok'))

        info = json.loads(regctl('info', 'eager', '--load', '--json').stdout)
        self.assertIs(info['loaded'], True)
        self.assertIsInstance(info['compiler'], str)
        self.assertIsInstance(info['compiler_type'], str)

    def test_load_failure(self):
        d = self.mkdir('ghost')
        write_manifest(d, 'ghost.backend', 'libghost.so', [('ghost', [], 'No module file')])
        result = regctl('info', 'ghost', '--load', env={'REG_BACKEND_PATH': d})
        self.assertExit(result, 1)
        self.assertEqual(result.stdout, '')
        self.assertIn('ghost', result.stderr)
        self.assertIn('libghost.so', result.stderr)

    def test_declaration_and_shadowed(self):
        first, later = self.mkdir('first'), self.mkdir('later')
        write_manifest(first, 'a.backend', 'liba.so', [('twice', [], 'First')])
        write_manifest(later, 'a.backend', 'liba.so', [('twice', [], 'Later')])
        write_manifest(later, 'b.backend', 'libb.so', [('twice', [], 'Later, b')])
        env = {'REG_BACKEND_PATH': first + ':' + later}
        result = regctl('info', 'twice', env=env)
        self.assertExit(result, 0)
        lines = result.stdout.splitlines()
        self.assertIn('Manifest:     %s' % os.path.join(first, 'a.backend'), lines)
        shadows = lines.index('Shadows:      %s' % os.path.join(later, 'a.backend'))
        self.assertEqual(lines[shadows + 1], '              %s' % os.path.join(later, 'b.backend'))

        info = json.loads(regctl('info', 'twice', '--json', env=env).stdout)
        self.assertEqual(info['manifest_path'], os.path.join(first, 'a.backend'))
        self.assertEqual(info['shadowed_manifests'],
                         [os.path.join(later, 'a.backend'), os.path.join(later, 'b.backend')])

        info = json.loads(regctl('info', 'twice', '--json', env={'REG_BACKEND_PATH': later}).stdout)
        self.assertEqual(info['manifest_path'], os.path.join(later, 'a.backend'))
        self.assertEqual(info['shadowed_manifests'], [os.path.join(later, 'b.backend')])

    def test_unknown_with_suggestion(self):
        result = regctl('info', 'eagr')
        self.assertOnlyError(result, invalid_backend_message('eagr', ['eager']))
        self.assertEqual(result.stdout, '')

    def test_unknown_without_suggestion(self):
        self.assertOnlyError(regctl('info', 'zzzqqqxxx'), invalid_backend_message('zzzqqqxxx'))
        self.assertOnlyError(regctl('info', 'zzzqqqxxx', '--load', '--json'),
                             invalid_backend_message('zzzqqqxxx'))

    def test_suggestions_match_difflib(self):
        import difflib
        names = all_backend_names()
        for wrong in ['relu_compile_error_TESTING', 'reluerror', 'eage', 'inductr']:
            with self.subTest(name=wrong):
                expected = difflib.get_close_matches(wrong, names, n=3, cutoff=0.6)
                self.assertOnlyError(regctl('info', wrong), invalid_backend_message(wrong, expected))

    def test_missing_name(self):
        self.assertUsageError(regctl('info'), 'info', 'missing backend NAME')

    def test_extra_argument(self):
        self.assertUsageError(regctl('info', 'eager', 'more'), 'info', "unexpected argument 'more'")

    def test_default_backend(self):
        require_inductor(self)
        info = json.loads(regctl('info', 'inductor', '--json').stdout)
        self.assertIs(info['default'], True)
        self.assertEqual(info['tags'], [])


class TestRun(RegctlTestCase):
    def test_fallback_is_printed(self):
        relu = self.write('relu.graph', 'graph(x):\n  a = relu(x)\n  return (a,)\n')
        result = regctl('run', relu, '--backend', 'relu_compile_error_TESTING_ONLY',
                        env={'REG_FALLBACK_BACKENDS': 'eager'})
        self.assertExit(result, 0)
        self.assertEqual(result.stdout.splitlines()[0],
                         'backend: eager (fallback from relu_compile_error_TESTING_ONLY: '
                         'relu_compile_error_TESTING_ONLY: the graph contains relu (node 1))')
        self.assertIn("falling back to 'eager'", result.stderr)
        # without a chain, the error as before
        result = regctl('run', relu, '--backend', 'relu_compile_error_TESTING_ONLY')
        self.assertExit(result, 1)

    def test_progress_on_terminal(self):
        # A call long enough (a 1000x1000 product on eager) shows how long
        # it has taken, on the terminal only, and erases it.
        master, slave = open_pty(self)
        try:
            process = subprocess.Popen(WRAPPER + [REGCTL, 'run', example('mlp.graph'), '-b', 'eager',
                                                  '-i', 'x=1000x1000', '-i', 'w=1000x1000',
                                                  '-i', 'b=1000x1000'],
                                       stdout=subprocess.PIPE, stderr=slave, text=True)
            os.close(slave)
            slave = None
            progress = read_terminal(master, 120)
            stdout, _ = process.communicate(timeout=600)
        finally:
            if slave is not None:
                os.close(slave)
            os.close(master)
        self.assertEqual(process.returncode, 0)
        self.assertIn(b"calling what 'eager' compiled: ", progress)
        self.assertTrue(progress.endswith(b'\r\x1b[K'), progress)
        self.assertTrue(stdout.startswith('backend: eager\n'), stdout)

    def run_eager(self, graph, *args, env=None):
        result = regctl('run', graph, '--backend', 'eager', '--print-inputs', '--max-values', '0',
                        *args, env=env)
        self.assertExit(result, 0)
        self.assertEqual(result.stderr, '')
        return parse_run(result.stdout)

    def assertValuesClose(self, actual, expected, tol=1e-4):
        self.assertEqual(len(actual), len(expected))
        for i, (a, e) in enumerate(zip(actual, expected)):
            self.assertTrue(math.isclose(a, e, rel_tol=tol, abs_tol=tol),
                            'value %d: %r, expected %r' % (i, a, e))

    def test_add_constant(self):
        graph = self.write('add.graph', ADD_GRAPH)
        run = self.run_eager(graph, '--input', 'x=3x2')
        self.assertEqual(run['backend'], 'eager')
        shape, x = run['inputs']['x']
        self.assertEqual(shape, '3x2')
        self.assertEqual(len(x), 6)
        self.assertEqual(len(run['outputs']), 1)
        name, out_shape, y = run['outputs'][0]
        self.assertEqual((name, out_shape), ('y', '3x2'))
        self.assertValuesClose(y, [v + 1.5 for v in x], 1e-5)
        self.assertGreaterEqual(run['compile'], 0)
        self.assertGreaterEqual(run['call'], 0)

    def test_elementwise_example(self):
        run = self.run_eager(example('elementwise.graph'))
        x = run['inputs']['x'][1]
        y = run['inputs']['y'][1]
        self.assertEqual(run['inputs']['x'][0], '4x4')

        def expected(a, b):
            c = math.tanh(a * b + 1.5)
            return 1 / (1 + math.exp(-(c * 0.5))) - a

        self.assertEqual(run['outputs'][0][:2], ('f', '4x4'))
        self.assertValuesClose(run['outputs'][0][2], [expected(a, b) for a, b in zip(x, y)])

    def test_mlp_example_with_shapes(self):
        run = self.run_eager(example('mlp.graph'), '--input', 'x=2x3', '--input', 'w=3x4',
                             '--input', 'b=2x4')
        x = run['inputs']['x'][1]
        w = run['inputs']['w'][1]
        b = run['inputs']['b'][1]
        expected = []
        for i in range(2):
            for j in range(4):
                h = sum(x[i * 3 + k] * w[k * 4 + j] for k in range(3))
                expected.append(max(h + b[i * 4 + j], 0.0))
        self.assertEqual(run['outputs'][0][:2], ('y', '2x4'))
        self.assertValuesClose(run['outputs'][0][2], expected)

    def test_reduction_example(self):
        run = self.run_eager(example('reduction.graph'), '--input', 'x=10')
        x = run['inputs']['x'][1]
        self.assertEqual(len(x), 10)
        (n1, s1, v1), (n2, s2, v2) = run['outputs']
        self.assertEqual((n1, s1, n2, s2), ('sum_sq', 'scalar', 'sum_abs', 'scalar'))
        self.assertValuesClose(v1, [sum(v * v for v in x)])
        self.assertValuesClose(v2, [sum(abs(v) for v in x)])

    def test_default_shape_and_size(self):
        graph = self.write('add.graph', ADD_GRAPH)
        self.assertEqual(self.run_eager(graph)['inputs']['x'][0], '4x4')
        self.assertEqual(self.run_eager(graph, '--size', '3')['inputs']['x'][0], '3x3')

    def test_shape_forms(self):
        graph = self.write('add.graph', ADD_GRAPH)
        for spec, shape, n in [('scalar', 'scalar', 1), ('7', '7', 7), ('2x3x4', '2x3x4', 24),
                               ('1x1x1x1x1x1x1x2', '1x1x1x1x1x1x1x2', 2)]:
            with self.subTest(spec=spec):
                run = self.run_eager(graph, '--input', 'x=' + spec)
                self.assertEqual(run['inputs']['x'][0], shape)
                self.assertEqual(len(run['inputs']['x'][1]), n)
                self.assertEqual(run['outputs'][0][1], shape)

    def test_inputs_are_seeded_and_in_range(self):
        graph = self.write('add.graph', ADD_GRAPH)
        a = self.run_eager(graph, '--input', 'x=1000')['inputs']['x'][1]
        b = self.run_eager(graph, '--input', 'x=1000', '--seed', '0')['inputs']['x'][1]
        c = self.run_eager(graph, '--input', 'x=1000', '--seed', '4294967295')['inputs']['x'][1]
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        for values in (a, c):
            self.assertTrue(all(-1 <= v < 1 for v in values))
            self.assertLess(min(values), -0.9)
            self.assertGreater(max(values), 0.9)

    def test_inputs_drawn_in_graph_order(self):
        # The second input continues the sequence of the first.
        two = self.write('two.graph', 'graph(a, b):\n  c = neg(b)\n  return (a, c)\n')
        one = self.write('one.graph', ADD_GRAPH)
        both = self.run_eager(two, '--input', 'a=3', '--input', 'b=2')['inputs']
        single = self.run_eager(one, '--input', 'x=5')['inputs']['x'][1]
        self.assertEqual(both['a'][1] + both['b'][1], single)

    def test_max_values(self):
        graph = self.write('add.graph', ADD_GRAPH)
        result = regctl('run', graph, '--backend', 'eager', '--input', 'x=100')
        line = [l for l in result.stdout.splitlines() if l.startswith('output 0')][0]
        values, truncated = parse_values(line[line.index('['):])
        self.assertEqual(len(values), 8)
        self.assertTrue(truncated)
        self.assertNotIn('input x: 100 [', result.stdout)
        result = regctl('run', graph, '--backend', 'eager', '--input', 'x=100', '-n', '3')
        line = [l for l in result.stdout.splitlines() if l.startswith('output 0')][0]
        self.assertEqual(len(parse_values(line[line.index('['):])[0]), 3)

    def test_stdin(self):
        result = regctl('run', '-', '--backend', 'eager', input=ADD_GRAPH)
        self.assertExit(result, 0)
        self.assertEqual(parse_run(result.stdout)['outputs'][0][1], '4x4')

    def test_graph_returning_input_and_unnamed_outputs(self):
        graph = self.write('id.graph', 'graph(x):\n  return (x, x)\n')
        run = self.run_eager(graph, '--input', 'x=2')
        self.assertEqual([o[0] for o in run['outputs']], ['x', 'x'])
        self.assertEqual(run['outputs'][0][2], run['inputs']['x'][1])

    def test_default_backend(self):
        require_inductor(self)
        result = regctl('run', example('elementwise.graph'), '--max-values', '0')
        self.assertExit(result, 0)
        run = parse_run(result.stdout)
        self.assertEqual(run['backend'], 'inductor (default)')
        eager = self.run_eager(example('elementwise.graph'))
        self.assertValuesClose(run['outputs'][0][2], eager['outputs'][0][2])

    def test_default_backend_options(self):
        require_inductor(self)
        result = regctl('run', example('elementwise.graph'), '--option', 'fuse=false',
                        '--option', 'threads=uint32 2', '--option', 'block-size=uint32 4096')
        self.assertExit(result, 0)
        result = regctl('run', example('elementwise.graph'), '--option', 'no-such-key=true')
        self.assertExit(result, 1)
        self.assertIn('no-such-key', result.stderr)

    def test_examples_on_every_backend(self):
        for backend in ['eager', 'relu_runtime_error_TESTING_ONLY'] + (
                ['inductor'] if 'inductor' in all_backend_names() else []):
            for name, args in [('elementwise.graph', []), ('reduction.graph', []),
                               ('mlp.graph', ['-i', 'x=4x3', '-i', 'w=3x8', '-i', 'b=4x8'])]:
                with self.subTest(backend=backend, graph=name):
                    result = regctl('run', example(name), '--backend', backend, *args)
                    if backend == 'relu_runtime_error_TESTING_ONLY' and name == 'mlp.graph':
                        self.assertExit(result, 1)
                    else:
                        self.assertExit(result, 0)

    def test_missing_default_backend(self):
        empty = self.mkdir('empty')
        result = regctl('run', example('elementwise.graph'),
                        env={'REG_BACKEND_PATH': empty, 'REG_BACKEND_SYSTEM_DIR': ''})
        self.assertOnlyError(result, invalid_backend_message('inductor'))

    def test_unknown_backend(self):
        result = regctl('run', example('elementwise.graph'), '--backend', 'eagr')
        self.assertOnlyError(result, invalid_backend_message('eagr', ['eager']))
        self.assertEqual(result.stdout, '')

    def test_bad_graph_file(self):
        bad = self.write('bad.graph', 'graph(x):\n  a = frobnicate(x)\n  return (a,)\n')
        result = regctl('run', bad, '--backend', 'eager')
        self.assertExit(result, 1)
        self.assertEqual(result.stdout, '')
        self.assertRegex(result.stderr, r'^%s:2:7: .*frobnicate.*\n$' % re.escape(bad))

    def test_syntax_errors_carry_line_and_column(self):
        for text in ['graph(x):\n  a = relu(x\n  return (a,)\n',
                     'graph(x):\n  a = relu(x)\n',
                     'graph(x)\n',
                     'not a graph\n',
                     'graph(x):\n  a = add(x, 1.5.5)\n  return (a,)\n']:
            with self.subTest(text=text):
                path = self.write('syntax.graph', text)
                result = regctl('run', path, '--backend', 'eager')
                self.assertExit(result, 1)
                self.assertRegex(result.stderr, r'^%s:\d+:\d+: \S.*\n$' % re.escape(path))

    def test_stdin_graph_error(self):
        result = regctl('run', '-', '--backend', 'eager', input='graph(x):\n  y = 1(\n')
        self.assertExit(result, 1)
        self.assertRegex(result.stderr, r'^<stdin>:\d+:\d+: ')

    def test_not_text(self):
        path = os.path.join(self.tmp, 'binary.graph')
        with open(path, 'wb') as f:
            f.write(b'graph(x):\n\xff\xfe\x00\n')
        result = regctl('run', path, '--backend', 'eager')
        self.assertExit(result, 1)
        self.assertIn(path, result.stderr)

    def test_missing_file(self):
        result = regctl('run', os.path.join(self.tmp, 'nope.graph'), '--backend', 'eager')
        self.assertExit(result, 1)
        self.assertIn('nope.graph', result.stderr)
        self.assertEqual(result.stdout, '')

    def test_shape_mismatch_hints_at_input(self):
        result = regctl('run', example('mlp.graph'), '--backend', 'eager', '--input', 'x=4x3')
        self.assertExit(result, 1)
        self.assertIn(example('mlp.graph'), result.stderr)
        self.assertIn('--input', result.stderr)

    def test_compile_and_call_failures(self):
        graph = self.write('relu.graph', RELU_GRAPH)
        for backend in ['relu_compile_error_TESTING_ONLY', 'relu_runtime_error_TESTING_ONLY']:
            with self.subTest(backend=backend):
                result = regctl('run', graph, '--backend', backend)
                self.assertExit(result, 1)
                self.assertIn(backend, result.stderr)
                self.assertEqual(result.stdout, '')

    def test_options_read_by_type(self):
        require_inductor(self)
        graph = example('elementwise.graph')
        for options in (['threads=2', 'fuse=false', 'block-size=64'],
                        ['passes=fold,cse', 'vector-math=false'],
                        ['threads=uint32 2', 'passes=[\'dce\']'],
                        ['threads=0']):
            with self.subTest(options=options):
                args = [a for o in options for a in ('-o', o)]
                result = regctl('run', graph, *args)
                self.assertExit(result, 0)
                self.assertEqual(result.stderr, '')
        # A misspelt key: the compile fails, naming the key meant.
        result = regctl('run', graph, '-o', 'thread=2')
        self.assertOnlyError(result, "unknown option 'thread' for backend 'inductor', did you mean 'threads'?")
        self.assertEqual(result.stdout, '')
        result = regctl('run', graph, '-o', 'mode=fast')
        self.assertExit(result, 1)
        self.assertIn("unknown option 'mode' for backend 'inductor'; it takes fuse, block-size, threads, "
                      "vector-math, passes, matmul", result.stderr)

    def test_string_option_by_type(self):
        # The eager module, with a manifest that gives it a string option:
        # the manifest's schema is the compiler's, so mode=fast is read as
        # a string and checked against the choices before eager runs.
        d = self.mkdir('modes')
        os.symlink(os.path.join(os.environ['REG_BACKEND_PATH'].split(':')[0], 'libreg-eager.so'),
                   os.path.join(d, 'libreg-eager.so'))
        self.write('modes/eager.backend',
                   '[Reg Module]\nModule=libreg-eager.so\nAbiVersion=2\n\n'
                   '[Backend eager]\nOptions=mode\n\n'
                   '[Option eager mode]\nType=s\nDefault=fast\nChoices=fast;exact\n')
        env = {'REG_BACKEND_PATH': d}
        graph = example('elementwise.graph')
        result = regctl('run', graph, '-b', 'eager', '-o', 'mode=slow', env=env)
        self.assertUsageError(result, 'run', "option 'mode' must be one of 'fast', 'exact', not 'slow'")
        # Allowed by the schema; eager itself knows no option.
        result = regctl('run', graph, '-b', 'eager', '-o', 'mode=fast', env=env)
        self.assertOnlyError(result, "eager: unknown option 'mode'")

    def test_option_rejected_by_backend(self):
        result = regctl('run', example('elementwise.graph'), '--backend', 'eager', '-o', 'fuse=false')
        self.assertExit(result, 1)
        self.assertIn("'fuse'", result.stderr)

    def test_usage_errors(self):
        graph = self.write('add.graph', ADD_GRAPH)
        cases = [
            ([], 'missing GRAPH_FILE'),
            ([graph, graph], 'unexpected argument'),
            ([graph, '--input', 'x'], 'NAME=SHAPE'),
            ([graph, '--input', '=4'], 'NAME=SHAPE'),
            ([graph, '--input', 'x=4y3'], 'not a shape'),
            ([graph, '--input', 'x=0'], 'not a shape'),
            ([graph, '--input', 'x=-2'], 'not a shape'),
            ([graph, '--input', 'x=4xx3'], 'not a shape'),
            ([graph, '--input', 'x=1x1x1x1x1x1x1x1x1'], 'not a shape'),
            ([graph, '--input', 'x=100000x100000'], 'elements'),
            ([graph, '--input', 'x=4', '--input', 'x=5'], 'given twice'),
            ([graph, '--input', 'z=4'], "no input 'z'"),
            ([graph, '--seed', '-1'], '--seed'),
            ([graph, '--seed', '4294967296'], '--seed'),
            ([graph, '--seed', 'abc'], 'abc'),
            ([graph, '--size', '0'], '--size'),
            ([graph, '--max-values', '-1'], '--max-values'),
            ([graph, '--option', 'fuse'], 'KEY=VALUE'),
            ([graph, '--option', '=1'], 'KEY=VALUE'),
            ([graph, '--option', 'fuse=maybe'], "option 'fuse': 'maybe' is not a boolean (true or false)"),
            ([graph, '--option', 'threads=-1'], "option 'threads': '-1' is not a uint32"),
            ([graph, '--option', 'threads=300'], "option 'threads' must be between 0 and 256, not 300"),
            ([graph, '--option', 'passes=fold,inline'],
             "option 'passes' holds 'inline', which is not one of 'fold', 'simplify', 'cse', 'dce'"),
            # A backend that declares no options: VALUE is GVariant text.
            ([graph, '--backend', 'relu_compile_error_TESTING_ONLY', '--option', 'x=maybe'], 'GVariant'),
            ([graph, '--option', 'a=1', '--option', 'a=2'], 'given twice'),
            ([graph, '--backend'], '--backend'),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                self.assertUsageError(regctl('run', *args), 'run', message)


@unittest.skipUnless(FIXTURES, 'REGCTL_FIXTURES is not set')
class TestRunFallsBack(RegctlTestCase):
    """run and bench compile as the library does: a backend whose module
    does not load, or is quarantined, falls back along
    REG_FALLBACK_BACKENDS rather than failing before the compile."""

    def fixture_env(self, manifest, module):
        d = self.mkdir('fixtures')
        shutil.copy(os.path.join(FIXTURES, manifest), d)
        shutil.copy(os.path.join(FIXTURES, module), d)
        return d, {'REG_BACKEND_PATH': d + ':' + os.environ['REG_BACKEND_PATH']}

    def assertFallsBack(self, env, name, reason_start, reason_end):
        graph = self.write('neg.graph', 'graph(x):\n  y = neg(x)\n  return (y,)\n')
        chain = dict(env, REG_FALLBACK_BACKENDS='eager')

        result = regctl('run', graph, '-b', name, env=chain)
        self.assertExit(result, 0)
        first = result.stdout.splitlines()[0]
        self.assertTrue(first.startswith('backend: eager (fallback from %s: %s' % (name, reason_start)), first)
        # the reason, one sentence inside the line
        self.assertTrue(first.endswith(reason_end + ')'), first)
        self.assertIn("falling back to 'eager'", result.stderr)

        result = regctl('bench', graph, '--backends', 'eager,' + name, '--size', '4', '--repeat', '1',
                        env=chain)
        self.assertExit(result, 0)
        rows = parse_table('\n'.join(result.stdout.splitlines()[2:-1]))
        self.assertEqual([r[0] for r in rows[1:]], ['eager', 'eager (fallback from %s)' % name])
        self.assertIn("falling back to 'eager'", result.stderr)

        # Without a chain, the error of the backend asked for, as before.
        for args in [('run', graph, '-b', name), ('bench', graph, '--backends', name)]:
            result = regctl(*args, env=env)
            self.assertExit(result, 1)
            self.assertTrue(result.stderr.startswith("backend '%s' (declared by " % name), result.stderr)
            self.assertEqual(result.stdout, '')

    def test_module_that_does_not_load(self):
        d, env = self.fixture_env('not-a-shared-object.backend', 'libgarbage.so')
        self.assertFallsBack(env, 'garbage',
                             "backend 'garbage' (declared by %s/not-a-shared-object.backend): "
                             "module %s/libgarbage.so is not a shared object" % (d, d),
                             'and Import= instead of Module=')

    def test_quarantined_module(self):
        d, env = self.fixture_env('verify-crash.backend', 'libfixture-verify-crash.so')
        result = regctl('verify', 'verify_crash', env=env)
        self.assertIn('crashed', result.stdout)
        self.assertFallsBack(env, 'verify_crash',
                             "backend 'verify_crash' (declared by %s/verify-crash.backend): "
                             "module %s/libfixture-verify-crash.so is quarantined: " % (d, d),
                             'run `regctl verify verify_crash` to check it again')

    def test_options_read_without_loading(self):
        # The asked backend's options are read by the schema its manifest
        # declares, although its module never loads; the fallback compiles
        # with its defaults.
        d = self.mkdir('options')
        shutil.copy(os.path.join(FIXTURES, 'libgarbage.so'), d)
        with open(os.path.join(d, 'garbage.backend'), 'w', encoding='utf-8') as f:
            f.write('[Reg Module]\nModule=libgarbage.so\nAbiVersion=2\n\n'
                    '[Backend garbage]\nOptions=level\n\n'
                    '[Option garbage level]\nType=u\nDefault=1\nDescription=How hard\n')
        env = {'REG_BACKEND_PATH': d + ':' + os.environ['REG_BACKEND_PATH'],
               'REG_FALLBACK_BACKENDS': 'eager'}
        graph = self.write('neg.graph', 'graph(x):\n  y = neg(x)\n  return (y,)\n')
        result = regctl('run', graph, '-b', 'garbage', '-o', 'level=3', env=env)
        self.assertExit(result, 0)
        self.assertTrue(result.stdout.startswith('backend: eager (fallback from garbage: '), result.stdout)
        result = regctl('run', graph, '-b', 'garbage', '-o', 'level=high', env=env)
        self.assertUsageError(result, 'run', "--option 'level=high': ")
        result = regctl('run', graph, '-b', 'garbage', '-o', 'depth=3', env=env)
        self.assertExit(result, 1)
        self.assertIn("'depth'", result.stderr)
        # A name that is no backend fails as before, whatever the options.
        result = regctl('run', graph, '-b', 'garbag', '-o', 'level=3', env=env)
        self.assertOnlyError(result, invalid_backend_message('garbag', ['garbage']))


class TestBench(RegctlTestCase):
    def test_table(self):
        result = regctl('bench', example('elementwise.graph'), '--backends', 'eager,relu_runtime_error_TESTING_ONLY',
                        '--size', '8', '--repeat', '3')
        self.assertExit(result, 0)
        self.assertEqual(result.stderr, '')  # no progress when stderr is not a terminal
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0], 'inputs: x=8x8 y=8x8')
        self.assertIn('3 per backend', lines[1])
        rows = parse_table('\n'.join(lines[2:-1]))
        self.assertEqual(rows[0], ['BACKEND', 'COMPILE_MS', 'AGAIN_MS', 'MEDIAN_MS', 'MIN_MS', 'RATIO'])
        self.assertEqual([r[0] for r in rows[1:]], ['eager', 'relu_runtime_error_TESTING_ONLY'])
        self.assertEqual(rows[1][5], '1.00')
        for row in rows[1:]:
            compile_ms, again_ms, median, fastest, ratio = (float(v) for v in row[1:])
            self.assertGreaterEqual(median, fastest)
            self.assertGreaterEqual(compile_ms, 0)
            self.assertGreaterEqual(again_ms, 0)
            self.assertGreater(ratio, 0)
        # Both share their functions (their manifests say Shareable=true):
        # each second compile was a hit.
        self.assertEqual(lines[-1], 'compile cache: 2 hits, 2 misses, 0 evictions '
                                    '(AGAIN_MS: the same compile again)')

    def test_inputs(self):
        result = regctl('bench', example('mlp.graph'), '--backends', 'eager', '--repeat', '1',
                        '-i', 'x=4x3', '-i', 'w=3x8', '-i', 'b=4x8')
        self.assertExit(result, 0)
        self.assertEqual(result.stdout.splitlines()[0], 'inputs: x=4x3 w=3x8 b=4x8')

    def test_default_size(self):
        result = regctl('bench', example('reduction.graph'), '--backends', 'eager', '--repeat', '1')
        self.assertExit(result, 0)
        self.assertEqual(result.stdout.splitlines()[0], 'inputs: x=256x256')

    def test_against_default_backend(self):
        require_inductor(self)
        for name, args in [('elementwise.graph', ['--size', '64']), ('reduction.graph', ['--size', '64']),
                           ('mlp.graph', ['--size', '32'])]:
            with self.subTest(graph=name):
                result = regctl('bench', example(name), '--backends', 'eager,inductor', '--repeat', '3', *args)
                self.assertExit(result, 0)
                result = regctl('bench', example(name), '--backends', 'eager,inductor', '--repeat', '2',
                                '--option', 'inductor/fuse=false', *args)
                self.assertExit(result, 0)

    def test_mismatch(self):
        # inductor's vector tanh is within a few ulp of glibc's (eager),
        # not equal to it: with no tolerance the outputs do not match
        require_inductor(self)
        graph = self.write('tanh.graph', 'graph(x):\n  y = tanh(x)\n  return (y,)\n')
        result = regctl('bench', graph, '--backends', 'eager,inductor', '--size', '64', '--repeat', '1',
                        '--rtol', '0', '--atol', '0')
        self.assertExit(result, 1)
        self.assertEqual(result.stdout, '')
        match = re.fullmatch(r"backend 'inductor' does not match backend 'eager' \(rtol 0, atol 0\): "
                             r"output 0: element (\d+) is (\S+) instead of (\S+) "
                             r"\(largest absolute difference (\S+)\)\n", result.stderr)
        self.assertIsNotNone(match, result.stderr)
        element, got, expected, largest = match.groups()
        self.assertLess(int(element), 64 * 64)
        self.assertNotEqual(float(got), float(expected))
        self.assertGreaterEqual(float(largest), abs(float(got) - float(expected)))
        self.assertLess(float(largest), 1e-5)
        # within the default tolerance they do
        result = regctl('bench', graph, '--backends', 'eager,inductor', '--size', '64', '--repeat', '1')
        self.assertExit(result, 0)

    def test_nan_matches_nan(self):
        # log of the negative inputs is NaN on every backend: they agree
        graph = self.write('log.graph', 'graph(x):\n  y = log(x)\n  return (y,)\n')
        backends = 'eager,eager' + (',inductor' if 'inductor' in all_backend_names() else '')
        result = regctl('bench', graph, '--backends', backends, '--size', '8', '--repeat', '1')
        self.assertExit(result, 0)
        self.assertIn('nan', regctl('run', graph, '--backend', 'eager', '-n', '0').stdout)

    def test_tolerances(self):
        result = regctl('bench', example('elementwise.graph'), '--backends', 'eager,eager',
                        '--size', '4', '--repeat', '1', '--rtol', '0', '--atol', '0')
        self.assertExit(result, 0)

    def test_unknown_backend(self):
        result = regctl('bench', example('elementwise.graph'), '--backends', 'eager,eagr', '--size', '4')
        self.assertOnlyError(result, invalid_backend_message('eagr', ['eager']))
        self.assertEqual(result.stdout, '')

    def test_failures(self):
        graph = self.write('relu.graph', RELU_GRAPH)
        for backend in ['relu_compile_error_TESTING_ONLY', 'relu_runtime_error_TESTING_ONLY']:
            with self.subTest(backend=backend):
                result = regctl('bench', graph, '--backends', 'eager,' + backend, '--size', '4')
                self.assertExit(result, 1)
                self.assertIn(backend, result.stderr)
                self.assertEqual(result.stdout, '')

    def test_bad_graph(self):
        bad = self.write('bad.graph', 'graph(x):\n  a = frobnicate(x)\n  return (a,)\n')
        result = regctl('bench', bad, '--backends', 'eager')
        self.assertExit(result, 1)
        self.assertRegex(result.stderr, r'^%s:2:7: ' % re.escape(bad))

    def test_options_per_backend(self):
        graph = example('elementwise.graph')
        # eager takes no option: given to all, or to eager, it fails
        for option in ['fuse=false', 'eager/fuse=false']:
            with self.subTest(option=option):
                result = regctl('bench', graph, '--backends', 'eager', '--size', '4', '-o', option)
                self.assertExit(result, 1)
                self.assertIn("'fuse'", result.stderr)
        # an option for another backend does not reach eager
        result = regctl('bench', graph, '--backends', 'eager,relu_runtime_error_TESTING_ONLY',
                        '--size', '4', '-o', 'relu_runtime_error_TESTING_ONLY/x=1')
        self.assertExit(result, 1)
        self.assertIn('relu_runtime_error_TESTING_ONLY', result.stderr)

    def test_options_read_by_each_backend(self):
        require_inductor(self)
        graph = example('elementwise.graph')
        result = regctl('bench', graph, '--backends', 'eager,inductor', '--size', '8', '--repeat', '2',
                        '-o', 'inductor/threads=2', '-o', 'inductor/fuse=false')
        self.assertExit(result, 0)
        result = regctl('bench', graph, '--backends', 'inductor', '--size', '8', '-o', 'threads=many')
        self.assertUsageError(result, 'bench', "option 'threads': 'many' is not a uint32")
        result = regctl('bench', graph, '--backends', 'inductor', '--size', '8', '-o', 'thread=2')
        self.assertOnlyError(result, "unknown option 'thread' for backend 'inductor', did you mean 'threads'?")

    def test_usage_errors(self):
        graph = example('elementwise.graph')
        cases = [
            ([graph], 'missing --backends'),
            ([graph, '--backends', ','], 'names no backend'),
            (['--backends', 'eager'], 'missing GRAPH_FILE'),
            ([graph, '--backends', 'eager', '--repeat', '0'], '--repeat'),
            ([graph, '--backends', 'eager', '--size', '-3'], '--size'),
            ([graph, '--backends', 'eager', '--rtol', '-1'], '--rtol'),
            ([graph, '--backends', 'eager', '-o', 'other/fuse=false'], "'other' is not one of --backends"),
            ([graph, '--backends', 'eager', '-o', '/fuse=false'], 'BACKEND/KEY=VALUE'),
            ([graph, '--backends', 'eager', '-i', 'q=4'], "no input 'q'"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                self.assertUsageError(regctl('bench', *args), 'bench', message)

    def test_progress_on_terminal(self):
        master, slave = open_pty(self)
        try:
            process = subprocess.Popen(WRAPPER + [REGCTL, 'bench', example('elementwise.graph'),
                                                  '--backends', 'eager,eager', '--size', '4', '--repeat', '3'],
                                       stdout=subprocess.PIPE, stderr=slave, text=True)
            os.close(slave)
            slave = None
            progress = read_terminal(master, 60)
            stdout, _ = process.communicate(timeout=600)
        finally:
            if slave is not None:
                os.close(slave)
            os.close(master)
        self.assertEqual(process.returncode, 0)
        self.assertIn(b'[1/2] eager: compiling', progress)
        self.assertIn(b'[2/2] eager: call 1/3', progress)
        # the progress line is erased before the table is printed
        self.assertTrue(progress.endswith(b'\r\x1b[K'), progress)
        self.assertIn('BACKEND', stdout)


class TestPaths(RegctlTestCase):
    def make_dirs(self):
        a = self.mkdir('a')
        b = self.mkdir('b')
        system = self.mkdir('system')
        write_manifest(a, 'one.backend', 'libone.so', [('one', [], 'First')])
        write_manifest(a, 'two.backend', 'libtwo.so', [('two', [], 'Second'), ('three', [], 'Third')])
        with open(os.path.join(a, 'README'), 'w') as f:
            f.write('not a manifest\n')
        write_manifest(system, 'sys.backend', 'libsys.so', [('sys', [], 'System')])
        missing = os.path.join(self.tmp, 'missing')
        return a, b, system, missing

    def test_environment(self):
        a, b, system, missing = self.make_dirs()
        env = {'REG_BACKEND_PATH': ':'.join([a, '', missing, os.path.join(a, '..', 'b')]),
               'REG_BACKEND_SYSTEM_DIR': system}
        result = regctl('paths', env=env)
        self.assertExit(result, 0)
        rows = parse_table(result.stdout.partition('\n\n')[0] + '\n')
        self.assertEqual(rows[0], ['ORDER', 'DIRECTORY', 'ORIGIN', 'MANIFESTS', 'SKIPPED'])
        self.assertEqual(rows[1:], [
            ['1', os.path.realpath(a), 'REG_BACKEND_PATH', '2', '0'],
            ['2', os.path.realpath(missing), 'REG_BACKEND_PATH', '0 (missing)', '0'],
            ['3', os.path.realpath(b), 'REG_BACKEND_PATH', '0', '0'],
            ['4', os.path.realpath(system), 'REG_BACKEND_SYSTEM_DIR', '1', '0'],
        ])
        # what list finds there
        names = [x['name'] for x in json.loads(regctl('list', '--all', '--json', env=env).stdout)]
        self.assertEqual(names, ['one', 'sys', 'three', 'two'])

    def test_json(self):
        a, b, system, missing = self.make_dirs()
        not_dir = os.path.join(a, 'README')
        env = {'REG_BACKEND_PATH': ':'.join([missing, not_dir, a]), 'REG_BACKEND_SYSTEM_DIR': ''}
        result = regctl('paths', '--json', env=env)
        self.assertExit(result, 0)
        self.assertEqual(json.loads(result.stdout), [
            {'directory': os.path.realpath(missing), 'origin': 'REG_BACKEND_PATH',
             'manifests': 0, 'skipped': 0, 'status': 'missing', 'skipped_manifests': []},
            {'directory': os.path.realpath(not_dir), 'origin': 'REG_BACKEND_PATH',
             'manifests': 0, 'skipped': 0, 'status': 'not-a-directory', 'skipped_manifests': []},
            {'directory': os.path.realpath(a), 'origin': 'REG_BACKEND_PATH',
             'manifests': 2, 'skipped': 0, 'status': 'ok', 'skipped_manifests': []},
        ])

    def test_skipped_counted_apart(self):
        a, b, system, missing = self.make_dirs()
        old = self.write('a/old.backend', '[Reg Module]\nModule=libold.so\nAbiVersion=1\n\n[Backend old]\n')
        bad = self.write('a/z\u2028.backend', '[Reg Module]\nModule=../x.so\nAbiVersion=2\n\n[Backend bad]\n')
        env = {'REG_BACKEND_PATH': a, 'REG_BACKEND_SYSTEM_DIR': ''}
        result = regctl('paths', env=env)
        self.assertExit(result, 0)
        table, skipped, choice = result.stdout.split('\n\n')
        self.assertEqual(parse_table(table + '\n')[1:], [['1', os.path.realpath(a), 'REG_BACKEND_PATH', '2', '2']])
        self.assertTrue(choice.startswith('Default backend: '), choice)
        lines = skipped.splitlines()
        self.assertEqual(lines[0], 'Skipped manifests:')
        self.assertTrue(lines[1].startswith('  %s: AbiVersion=1 is not supported' % old), lines)
        self.assertIn('Rebuild the module against this libreg and set AbiVersion=2', lines[1])
        # the file name's line separator is not one on the terminal
        self.assertTrue(lines[2].startswith('  %s/z' % a), lines)
        self.assertIn('Fix Module= in the manifest', lines[2])
        self.assertEqual(len(lines), 3)

        paths = json.loads(regctl('paths', '--json', env=env).stdout)
        self.assertEqual((paths[0]['manifests'], paths[0]['skipped']), (2, 2))
        self.assertEqual([m['path'] for m in paths[0]['skipped_manifests']], [old, bad])
        self.assertTrue(paths[0]['skipped_manifests'][0]['reason'].startswith('AbiVersion=1 is not supported'))

        # a lookup of a name a skipped manifest declares says so
        result = regctl('info', 'old', '--load', env=env)
        self.assertExit(result, 1)
        self.assertIn("Invalid backend: 'old'. The manifest %s declares it but was skipped: "
                      "AbiVersion=1 is not supported" % old, result.stderr)

    def test_added_paths_come_first_in_order_given(self):
        a, b, system, missing = self.make_dirs()
        result = regctl('paths', '--add-path', b, '-A', system, '--json',
                        env={'REG_BACKEND_PATH': a, 'REG_BACKEND_SYSTEM_DIR': ''})
        self.assertExit(result, 0)
        self.assertEqual([(p['directory'], p['origin']) for p in json.loads(result.stdout)], [
            (os.path.realpath(b), 'added'),
            (os.path.realpath(system), 'added'),
            (os.path.realpath(a), 'REG_BACKEND_PATH'),
        ])
        # --add-path works for the other commands too
        result = regctl('list', '--all', '--json', '-A', system, env={'REG_BACKEND_PATH': ''})
        self.assertIn('sys', [x['name'] for x in json.loads(result.stdout)])

    def test_installed_directory(self):
        result = regctl('paths', '--json', env={'REG_BACKEND_PATH': None, 'REG_BACKEND_SYSTEM_DIR': None})
        self.assertExit(result, 0)
        paths = json.loads(result.stdout)
        self.assertEqual(len(paths), 1)
        self.assertEqual(paths[0]['origin'], 'system')
        self.assertTrue(paths[0]['directory'].endswith('/libreg-1/backends'), paths[0])

    def test_empty(self):
        env = {'REG_BACKEND_PATH': '', 'REG_BACKEND_SYSTEM_DIR': ''}
        self.assertEqual(json.loads(regctl('paths', '--json', env=env).stdout), [])
        result = regctl('paths', env=env)
        self.assertExit(result, 0)
        table, _, choice = result.stdout.partition('\n\n')
        self.assertEqual(table.split(), ['ORDER', 'DIRECTORY', 'ORIGIN', 'MANIFESTS', 'SKIPPED'])
        # Nothing declares inductor here.
        self.assertEqual(choice, 'Default backend: inductor (not a backend) (built in)\n'
                                 'Fallback backends: none\n')

    def test_default_and_fallbacks_from_environment(self):
        env = {'REG_BACKEND_PATH': '', 'REG_BACKEND_SYSTEM_DIR': '',
               'REG_DEFAULT_BACKEND': 'eager', 'REG_FALLBACK_BACKENDS': 'inductor:eager'}
        result = regctl('paths', env=env)
        self.assertExit(result, 0)
        self.assertEqual(result.stdout.split('\n\n')[-1],
                         # (nothing declares them in this search path)
                         'Default backend: eager (not a backend) (from REG_DEFAULT_BACKEND)\n'
                         'Fallback backends: inductor (not a backend), eager (not a backend) '
                         '(from REG_FALLBACK_BACKENDS)\n')
        env['REG_BACKEND_PATH'] = os.environ['REG_BACKEND_PATH']
        result = regctl('info', 'eager', env=env)
        self.assertIn('Default:      yes (from REG_DEFAULT_BACKEND)\n', result.stdout)

    def test_names_that_are_no_backends(self):
        # Names that follow the naming rules but that nothing declares are
        # kept, and marked with the close names; one that breaks the rules
        # is left out with a warning.
        env = {'REG_DEFAULT_BACKEND': 'eagr', 'REG_FALLBACK_BACKENDS': 'eagr:in ductor:eager:zzqqxx'}
        result = regctl('paths', env=env)
        self.assertExit(result, 0)
        self.assertEqual(result.stdout.split('\n\n')[-1],
                         "Default backend: eagr (not a backend: did you mean 'eager'?) "
                         "(from REG_DEFAULT_BACKEND)\n"
                         "Fallback backends: eagr (not a backend: did you mean 'eager'?), eager, "
                         "zzqqxx (not a backend) (from REG_FALLBACK_BACKENDS)\n")
        self.assertEqual(result.stderr.count('Reg-WARNING'), 1, result.stderr)
        self.assertIn("REG_FALLBACK_BACKENDS: invalid backend name 'in ductor': white space U+0020 "
                      "at byte 2 is not allowed; the name is left out", result.stderr)

    def test_extra_argument(self):
        self.assertUsageError(regctl('paths', 'x'), 'paths', "unexpected argument 'x'")



class TestNoDiscoveryCache(RegctlTestCase):
    """Discovery reads the manifests themselves: there is no `regctl cache`,
    and a `backends.cache` file an older libreg left in a directory is
    ignored."""

    ENV = {'REG_BACKEND_PATH': '', 'REG_BACKEND_SYSTEM_DIR': ''}

    def listing(self, d):
        result = regctl('list', '--all', '--json', '-A', d, env=self.ENV)
        self.assertExit(result, 0)
        self.assertEqual(result.stderr, '')
        return json.loads(result.stdout)

    def test_no_cache_command(self):
        self.assertUsageError(regctl('cache'), message="unknown command 'cache'")
        self.assertNotRegex(regctl('--help').stdout, r'(?m)^  cache\s')

    def test_leftover_cache_file_is_ignored(self):
        d = self.mkdir('mods')
        write_manifest(d, 'one.backend', 'libone.so', [('c_one', ['gpu'], 'First')])
        before = self.listing(d)
        self.assertEqual([b['name'] for b in before], ['c_one'])
        # What an older libreg wrote, and what it could have declared.
        with open(os.path.join(d, 'backends.cache'), 'wb') as f:
            f.write(b'RegBkCch' + b'\0' * 56 + b'[Backend c_ghost]\n')
        self.assertEqual(self.listing(d), before)
        write_manifest(d, 'two.backend', 'libtwo.so', [('c_two', [], 'Second')])
        self.assertEqual([b['name'] for b in self.listing(d)], ['c_one', 'c_two'])


MIXED_GRAPH = ('graph(x, y):\n  m = matmul(x, y)\n  r = relu(m)\n  a = add(r, x)\n'
               '  s = sum(a)\n  return (s, a)\n')


@unittest.skipUnless(FIXTURES, 'REGCTL_FIXTURES is not set')
class TestPartial(RegctlTestCase):
    """A backend that takes matmul and add only (tests/modules/partial):
    the other nodes run on inductor, the default."""

    def setUp(self):
        super().setUp()
        if 'inductor' not in all_backend_names():
            self.skipTest('inductor is not built')
        d = self.mkdir('partial')
        for name in ['partial.backend', 'libfixture-partial.so']:
            shutil.copy(os.path.join(FIXTURES, name), d)
        self.env = {'REG_BACKEND_PATH': d + ':' + os.environ['REG_BACKEND_PATH']}
        self.graph = self.write('mixed.graph', MIXED_GRAPH)

    def test_explain(self):
        result = regctl('run', self.graph, '--backend', 'partial', '--explain', '--max-values', '0',
                        env=self.env)
        self.assertExit(result, 0)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0], "backend: partial (partitioned: backend 'partial' does not take "
                                   "relu, sum)")
        self.assertEqual(lines[1:6], ['placement: 2 of 4 nodes on partial: matmul, add; '
                                      '2 on inductor: relu, sum',
                                      '  group 1 on partial: m', '  group 2 on inductor: r',
                                      '  group 3 on partial: a', '  group 4 on inductor: s'])
        # What eager computes for the whole graph (the same seed).
        partitioned = parse_run('\n'.join([lines[0]] + lines[6:]))
        eager = regctl('run', self.graph, '--backend', 'eager', '--max-values', '0', env=self.env)
        for got, want in zip(partitioned['outputs'], parse_run(eager.stdout)['outputs']):
            for g, w in zip(got[2], want[2]):
                self.assertTrue(math.isclose(g, w, rel_tol=1e-5, abs_tol=1e-5), (got, want))
        # A graph one backend compiles whole.
        result = regctl('run', self.graph, '--backend', 'eager', '--explain', env=self.env)
        self.assertEqual(result.stdout.splitlines()[1],
                         'placement: 4 of 4 nodes on eager: matmul, relu, add, sum')

    def test_json(self):
        result = regctl('run', self.graph, '--backend', 'partial', '--json', env=self.env)
        self.assertExit(result, 0)
        run = json.loads(result.stdout)
        self.assertEqual(set(run), {'backend', 'fallback_from', 'placement', 'outputs',
                                    'compile_ms', 'call_ms'})
        self.assertEqual(run['backend'], 'partial')
        self.assertEqual(run['fallback_from'], 'partial')
        self.assertEqual(run['placement'], [{'backend': 'partial', 'nodes': [2]},
                                            {'backend': 'inductor', 'nodes': [3]},
                                            {'backend': 'partial', 'nodes': [4]},
                                            {'backend': 'inductor', 'nodes': [5]}])
        self.assertEqual([(o['name'], o['shape']) for o in run['outputs']], [('s', []), ('a', [4, 4])])
        self.assertEqual(len(run['outputs'][1]['values']), 8)

    def test_strict(self):
        result = regctl('run', self.graph, '--backend', 'partial', env=dict(self.env, REG_STRICT='1'))
        self.assertExit(result, 1)
        self.assertIn("backend 'partial' does not take relu, sum (the registry is strict", result.stderr)


VERIFY_KEYS = {'name', 'verdict', 'reason', 'unsupported_ops', 'quarantined', 'time', 'module_path',
               'store_error'}


@unittest.skipUnless(FIXTURES, 'REGCTL_FIXTURES is not set')
class TestVerify(RegctlTestCase):
    """regctl verify on the fixture modules, one per verdict."""

    def install(self, directory, fixture):
        """Copies tests/modules' fixture (manifest and module) into
        @directory; returns the module's path there."""
        module = 'libfixture-%s.so' % fixture
        shutil.copy(os.path.join(FIXTURES, fixture + '.backend'), directory)
        shutil.copy(os.path.join(FIXTURES, module), directory)
        return os.path.join(directory, module)

    def fixtures(self, *names):
        d = self.mkdir('fixtures')
        for name in names:
            self.install(d, name)
        return d, {'REG_BACKEND_PATH': d}

    def verify_json(self, *args, env=None):
        result = regctl('verify', '--json', *args, env=env)
        self.assertIn(result.returncode, (0, 1), result.stderr)
        return result, json.loads(result.stdout)

    def test_each_verdict(self):
        d, env = self.fixtures('verify-ok', 'verify-unsupported', 'verify-wrong',
                               'verify-crash', 'verify-hang')
        # The one that hangs on its own, with a short timeout: the others
        # have the default one, which a loaded machine needs.
        result, checked = self.verify_json('verify_hang', '--timeout', '1', env=env)
        self.assertExit(result, 1)
        result, others = self.verify_json('verify_ok', 'verify_unsupported', 'verify_wrong',
                                          'verify_crash', env=env)
        self.assertExit(result, 1)
        checked += others
        by_name = {c['name']: c for c in checked}
        self.assertEqual(sorted(by_name), ['verify_crash', 'verify_hang', 'verify_ok',
                                           'verify_unsupported', 'verify_wrong'])
        for c in checked:
            self.assertEqual(set(c), VERIFY_KEYS)
            self.assertTrue(c['module_path'].startswith(d + '/'))
            self.assertRegex(c['time'], r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$')
        verdicts = {name: c['verdict'] for name, c in by_name.items()}
        self.assertEqual(verdicts, {'verify_ok': 'ok', 'verify_unsupported': 'unsupported',
                                    'verify_wrong': 'wrong-results', 'verify_crash': 'crashed',
                                    'verify_hang': 'timeout'})
        self.assertIsNone(by_name['verify_ok']['reason'])
        for name in ['verify_unsupported', 'verify_wrong', 'verify_crash', 'verify_hang']:
            self.assertIsInstance(by_name[name]['reason'], str)
            self.assertNotEqual(by_name[name]['reason'], '')
        self.assertEqual(by_name['verify_unsupported']['unsupported_ops'], ['matmul'])
        self.assertIn("graph 'op/sigmoid': output 0: largest error", by_name['verify_wrong']['reason'])
        self.assertIn('no result after 1 s', by_name['verify_hang']['reason'])
        self.assertEqual({n for n, c in by_name.items() if c['quarantined']}, {'verify_crash', 'verify_hang'})

    def test_declared_operators(self):
        # Held to its Operators=: ok when it computes them (the graphs that
        # mix them with others partitioned), wrong when it refuses or
        # miscomputes one, naming it.
        d, env = self.fixtures('partial', 'verify-wrong')
        result, checked = self.verify_json('partial', 'partial_refuses_add', 'verify_wrong_declared',
                                           env=env)
        self.assertExit(result, 1)
        by_name = {c['name']: c for c in checked}
        self.assertEqual(by_name['partial']['verdict'], 'ok')
        self.assertEqual(by_name['partial_refuses_add']['verdict'], 'wrong-results')
        self.assertIn("graph 'op/add': refused add, which it declares",
                      by_name['partial_refuses_add']['reason'])
        self.assertEqual(by_name['verify_wrong_declared']['verdict'], 'wrong-results')
        self.assertIn("graph 'op/sigmoid', sigmoid on it: output 0",
                      by_name['verify_wrong_declared']['reason'])

    def test_load_failed(self):
        d = self.mkdir('abi')
        shutil.copy(os.path.join(FIXTURES, 'abi-mismatch.backend'), d)
        shutil.copy(os.path.join(FIXTURES, 'libfixture-abi-mismatch.so'), d)
        result, checked = self.verify_json('abi_mismatch', env={'REG_BACKEND_PATH': d})
        self.assertExit(result, 1)
        self.assertEqual(checked[0]['verdict'], 'load-failed')
        self.assertIn('this libreg expects', checked[0]['reason'])

    def test_text_table(self):
        d, env = self.fixtures('verify-ok', 'verify-unsupported')
        result = regctl('verify', 'verify_unsupported', 'verify_ok', env=env)
        self.assertExit(result, 0)
        rows = parse_table(result.stdout)
        self.assertEqual(rows[0], ['NAME', 'VERDICT', 'REASON'])
        self.assertEqual(rows[1][:2], ['verify_unsupported', 'unsupported'])
        self.assertIn('matmul', rows[1][2])
        self.assertEqual(rows[2], ['verify_ok', 'ok', '-'])

    def test_exit_statuses(self):
        d, env = self.fixtures('verify-ok', 'verify-unsupported', 'verify-wrong')
        self.assertExit(regctl('verify', 'verify_ok', 'verify_unsupported', env=env), 0)
        self.assertExit(regctl('verify', 'verify_ok', 'verify_wrong', env=env), 1)
        result = regctl('verify', 'verify_okk', env=env)
        self.assertExit(result, 1)
        self.assertTrue(result.stderr.startswith("Invalid backend: 'verify_okk', did you mean: 'verify_ok'"),
                        result.stderr)
        self.assertUsageError(regctl('verify', env=env), 'verify', 'give backend names, or --all')
        self.assertUsageError(regctl('verify', '--all', 'verify_ok', env=env), 'verify',
                              '--all and backend names cannot be used together')
        self.assertUsageError(regctl('verify', '--timeout', '0', 'verify_ok', env=env), 'verify',
                              '--timeout must be more than 0 and at most 86400 seconds')
        self.assertUsageError(regctl('verify', '--memory-limit', '-1', 'verify_ok', env=env), 'verify',
                              '--memory-limit must be a number of MiB, 0 for no limit')

    def test_checker_missing(self):
        d, env = self.fixtures('verify-ok', 'verify-unsupported')
        env['REG_VERIFY_HELPER'] = os.path.join(d, 'no-such-checker')
        result = regctl('verify', 'verify_ok', 'verify_unsupported', env=env)
        self.assertExit(result, 1)
        # Said once: the next backend's check would fail the same way.
        self.assertEqual(result.stderr.count('cannot be started'), 1, result.stderr)
        self.assertIn('no-such-checker', result.stderr)
        self.assertIn('REG_VERIFY_HELPER', result.stderr)

    def test_not_a_checker(self):
        d, env = self.fixtures('verify-ok', 'verify-unsupported')
        for program in ['/bin/true', '/bin/false']:
            result = regctl('verify', 'verify_ok', 'verify_unsupported', env=dict(env, REG_VERIFY_HELPER=program))
            self.assertExit(result, 1)
            # An error of the checker, said once; no verdict.
            self.assertEqual(result.stderr.count('ended before it reached the module'), 1, result.stderr)
            self.assertIn(program, result.stderr)
            self.assertEqual(parse_table(result.stdout), [['NAME', 'VERDICT', 'REASON']])
        fields = TestInfo.info_fields(None, regctl('info', 'verify_ok', env=env).stdout)
        self.assertEqual(fields['State'], 'declared')
        self.assertEqual(fields['Verdict'], 'none (`regctl verify verify_ok` checks it)')

    def test_backends_that_build_on_others(self):
        d, env = self.fixtures('verify-wrap-eager', 'verify-wrap-missing')
        # eager comes from the shipped modules, as for the application.
        env['REG_BACKEND_PATH'] = d + os.pathsep + os.environ['REG_BACKEND_PATH']
        result, checked = self.verify_json('verify_wrap_eager', 'verify_wrap_missing', env=env)
        self.assertExit(result, 1)
        self.assertEqual([(c['name'], c['verdict']) for c in checked], [('verify_wrap_eager', 'ok')])
        # Not blamed for the backend it could not reach.
        self.assertIn("backend 'verify_wrap_missing' cannot be checked", result.stderr)
        self.assertIn("Invalid backend: 'verify_nowhere'", result.stderr)
        info = json.loads(regctl('info', 'verify_wrap_missing', '--json', env=env).stdout)
        self.assertIsNone(info['check'])

    def test_list_reads_each_store_once(self):
        d, env = self.fixtures('verify-ok', 'verify-unsupported', 'verify-wrong', 'verify-crash',
                               'verify-hang', 'good', 'other')
        self.verify_json('verify_ok', '--system', env=env)
        self.verify_json('verify_unsupported', env=env)
        result = regctl('list', '--all', env=dict(env, G_MESSAGES_DEBUG='Reg'))
        self.assertExit(result, 0)
        self.assertEqual(result.stdout.count(' declared '), 9)
        # Both stores, once each, however many backends are listed.  (GLib
        # prints debug messages on the standard output.)
        reads = re.findall(r'verdict store (\S+) read: ', result.stdout + result.stderr)
        self.assertEqual(sorted(reads), sorted([os.path.join(d, 'backends.verdicts'),
                                                os.path.join(os.environ['XDG_CACHE_HOME'], 'libreg', 'verdicts')]),
                         result.stderr)

    def test_store_cannot_be_written(self):
        d, env = self.fixtures('verify-ok', 'verify-unsupported')
        cache = self.mkdir('cache')
        with open(os.path.join(cache, 'libreg'), 'w') as f:
            f.write('not a directory')
        env = dict(env, XDG_CACHE_HOME=cache)
        # The verdicts, with the store's error beside them.
        result = regctl('verify', 'verify_ok', 'verify_unsupported', env=env)
        self.assertExit(result, 1)
        rows = parse_table(result.stdout)
        self.assertEqual([r[:2] for r in rows[1:]], [['verify_ok', 'ok'], ['verify_unsupported', 'unsupported']])
        self.assertEqual(result.stderr.count('is not recorded'), 2, result.stderr)
        self.assertIn(os.path.join(cache, 'libreg'), result.stderr)
        result, checked = self.verify_json('verify_ok', env=env)
        self.assertExit(result, 1)
        self.assertEqual(len(checked), 1)
        self.assertEqual(checked[0]['verdict'], 'ok')
        self.assertIn(os.path.join(cache, 'libreg'), checked[0]['store_error'])
        # recorded: no error
        shutil.rmtree(cache)
        result, checked = self.verify_json('verify_ok', env=env)
        self.assertExit(result, 0)
        self.assertIsNone(checked[0]['store_error'])

    def test_quarantine_across_processes(self):
        d, env = self.fixtures('verify-crash', 'verify-ok')
        result, checked = self.verify_json('verify_crash', env=env)
        self.assertEqual(checked[0]['verdict'], 'crashed')

        # Another process, later: the lookup fails, the process lives.
        result = regctl('info', 'verify_crash', '--load', env=env)
        self.assertExit(result, 1)
        self.assertIn("backend 'verify_crash' (declared by %s/verify-crash.backend)" % d, result.stderr)
        self.assertIn('is quarantined', result.stderr)
        self.assertIn('run `regctl verify verify_crash` to check it again', result.stderr)

        rows = {r[0]: r for r in parse_table(regctl('list', '--all', env=env).stdout)[1:]}
        self.assertEqual(rows['verify_crash'][2], 'quarantined')
        self.assertEqual(rows['verify_ok'][2], 'declared')

        fields = TestInfo.info_fields(None, regctl('info', 'verify_crash', env=env).stdout)
        self.assertEqual(fields['State'], 'quarantined')
        self.assertRegex(fields['Verdict'], r'^crashed, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC '
                                            r'\(the module is quarantined\)$')
        # Where it crashed, and no memory limit it was far from.
        self.assertRegex(fields['Reason'], r' while loading the module(; its last message: .*)?$')
        self.assertNotIn('memory limit', fields['Reason'])
        info = json.loads(regctl('info', 'verify_crash', '--json', env=env).stdout)
        self.assertEqual(info['check']['verdict'], 'crashed')
        self.assertIs(info['check']['quarantined'], True)
        self.assertEqual(info['check']['backend'], 'verify_crash')

        # Checking before the first load gives the same in a fresh store.
        fresh = self.mkdir('cache')
        result = regctl('info', 'verify_crash', '--load',
                        env=dict(env, REG_VERIFY_MODULES='1', XDG_CACHE_HOME=fresh))
        self.assertExit(result, 1)
        self.assertIn('is quarantined', result.stderr)
        self.assertTrue(os.path.exists(os.path.join(fresh, 'libreg', 'verdicts')))

    def test_lifted_on_change(self):
        d, env = self.fixtures('verify-crash')
        module = os.path.join(d, 'libfixture-verify-crash.so')
        self.verify_json('verify_crash', env=env)
        self.assertEqual(TestInfo.info_fields(None, regctl('info', 'verify_crash', env=env).stdout)['State'],
                         'quarantined')
        st = os.stat(module)
        os.utime(module, (st.st_atime, st.st_mtime + 10))
        fields = TestInfo.info_fields(None, regctl('info', 'verify_crash', env=env).stdout)
        self.assertEqual(fields['State'], 'declared')
        self.assertEqual(fields['Verdict'], 'none (`regctl verify verify_crash` checks it)')

    def test_system_store(self):
        d, env = self.fixtures('verify-crash')
        cache = self.mkdir('cache')
        env = dict(env, XDG_CACHE_HOME=cache)
        result, checked = self.verify_json('--system', 'verify_crash', env=env)
        self.assertEqual(checked[0]['verdict'], 'crashed')
        with open(os.path.join(d, 'backends.verdicts'), encoding='utf-8') as f:
            self.assertEqual(f.readline(), 'libreg verdict store 2\n')
        self.assertFalse(os.path.exists(os.path.join(cache, 'libreg')))
        # every user sees it
        other = self.mkdir('other-cache')
        result = regctl('info', 'verify_crash', '--load', env=dict(env, XDG_CACHE_HOME=other))
        self.assertIn('is quarantined', result.stderr)

    def test_concurrent_runs_share_one_store(self):
        cache = self.mkdir('cache')
        dirs = [self.mkdir('d%d' % i) for i in range(4)]
        for d in dirs:
            self.install(d, 'verify-ok')
            self.install(d, 'verify-unsupported')
        processes = [subprocess.Popen(WRAPPER + [REGCTL, 'verify', 'verify_ok', 'verify_unsupported'],
                                      env=dict(os.environ, REG_BACKEND_PATH=d, XDG_CACHE_HOME=cache),
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                     for d in dirs]
        for p in processes:
            p.communicate(timeout=600)
            self.assertEqual(p.returncode, 0)
        with open(os.path.join(cache, 'libreg', 'verdicts'), encoding='utf-8') as f:
            store = f.read()
        for d in dirs:
            for name in ['verify_ok', 'verify_unsupported']:
                info = json.loads(regctl('info', name, '--json',
                                         env={'REG_BACKEND_PATH': d, 'XDG_CACHE_HOME': cache}).stdout)
                self.assertIsNotNone(info['check'], (d, name, store))
                self.assertTrue(info['check']['module_path'].startswith(d + '/'))

if __name__ == '__main__':
    if not REGCTL:
        sys.exit('test-regctl.py: set REGCTL to the regctl program (meson test does)')
    unittest.main(verbosity=2)
