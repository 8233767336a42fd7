#!/usr/bin/python3
# Backends written in Python, declared by manifests, looked up from a
# Python program (/usr/bin/python3, whose libpython is linked in
# statically): the loader uses this interpreter.
#
# The fixtures are tests/loaders/python (on REG_BACKEND_PATH and
# PYTHONPATH, see tests/meson.build).  Each scenario runs in a Python
# process of its own, started by the test of the same name, so that each
# does the first lookups of its process.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import builtins
import os
import signal
import subprocess
import sys
import tempfile
import threading
import unittest
import warnings

SCENARIOS = {}


def scenario(function):
    SCENARIOS[function.__name__] = function
    return function


def reg():
    import gi

    gi.require_version("Reg", "1.0")
    from gi.repository import GLib, Reg

    return GLib, Reg


def mapped(fragment):
    with open("/proc/self/maps") as maps:
        return any(fragment in line for line in maps)


def check_runs(Reg, compiler):
    graph = Reg.Graph.new_from_string(
        "graph(x, y):\n  a = mul(x, y)\n  b = add(a, 1.5)\n  c = relu(b)\n  return (c,)\n")
    inputs = [Reg.Tensor.new_from_data([1, -2, 3], [3]), Reg.Tensor.new_from_data([2, 2, 2], [3])]
    (out,) = compiler.compile(graph, inputs, None).call(inputs)
    assert list(out.get_data()) == [3.5, 0.0, 7.5], out.get_data()


def expect_load_failed(GLib, Reg, name, *fragments):
    try:
        Reg.Registry.get_default().lookup_backend(name)
    except GLib.Error as e:
        assert e.matches(Reg.registry_error_quark(), Reg.RegistryError.LOAD_FAILED), e
        for fragment in fragments:
            assert fragment in e.message, (fragment, e.message)
        return e.message
    raise AssertionError(f"{name} was loaded")


@scenario
def good():
    GLib, Reg = reg()
    registry = Reg.Registry.get_default()
    for name in ("py_good", "py_good_fn"):
        compiler = registry.lookup_backend(name)
        check_runs(Reg, compiler)
    # The loader imported into this interpreter, once: the compiler is
    # this program's object, and no second libpython is mapped.
    import regfix_good

    assert regfix_good.IMPORTS == 1
    assert isinstance(compiler, regfix_good.GoodCompiler)
    assert not mapped("libpython"), "a libpython is mapped"
    info = registry.get_backend_info("py_good")
    assert info.get_loader() == "python"
    assert info.get_entry_point() == "regfix_good:GoodCompiler"


@scenario
def host_untouched():
    GLib, Reg = reg()

    def state():
        return {
            "argv": list(sys.argv),
            "path": list(sys.path),
            "meta_path": list(sys.meta_path),
            "path_hooks": list(sys.path_hooks),
            "signals": {s: signal.getsignal(s) for s in signal.valid_signals()
                        if s not in (signal.SIGKILL, signal.SIGSTOP)},
            "warnings": list(warnings.filters),
            "builtins": dict(vars(builtins)),
            "hooks": (sys.excepthook, sys.displayhook, sys.breakpointhook),
            "flags": sys.flags,
            "recursion": sys.getrecursionlimit(),
            "switch": sys.getswitchinterval(),
        }

    before = state()
    compiler = Reg.Registry.get_default().lookup_backend("py_good")
    check_runs(Reg, compiler)
    after = state()
    for key in before:
        assert before[key] == after[key], (key, before[key], after[key])
    new_modules = {"regfix_good"}
    assert new_modules <= set(sys.modules)


@scenario
def failures():
    GLib, Reg = reg()
    expect_load_failed(GLib, Reg, "py_raising",
                       "the Python module regfix_raising cannot be imported: ValueError: "
                       "regfix_raising refuses to be imported (traceback, most recent call last: ",
                       "regfix_raising.py:11 in <module>, ", "regfix_raising.py:8 in _check)")
    expect_load_failed(GLib, Reg, "py_syntax", "SyntaxError: ", "regfix_syntax.py, line 5")
    expect_load_failed(GLib, Reg, "py_missing_module",
                       "ModuleNotFoundError: No module named 'regfix_no_such_module'")
    expect_load_failed(GLib, Reg, "py_missing_object",
                       "the Python module regfix_wrong has no Missing")
    expect_load_failed(GLib, Reg, "py_not_compiler", "which does not implement Reg.Compiler")
    expect_load_failed(GLib, Reg, "py_not_gobject", "is a class, but not a GObject.Object")
    expect_load_failed(GLib, Reg, "py_not_callable", "is a value of type int")
    expect_load_failed(GLib, Reg, "py_returns_none", "returned a value of type NoneType")
    expect_load_failed(GLib, Reg, "py_make_raises",
                       "regfix_wrong.raises() raised an exception: RuntimeError")
    # A failed import leaves nothing half-imported behind.
    assert "regfix_raising" not in sys.modules
    check_runs(Reg, Reg.Registry.get_default().lookup_backend("py_good"))


@scenario
def lookup_self():
    GLib, Reg = reg()
    expect_load_failed(GLib, Reg, "py_self",
                       "it was looked up while its code (regfix_self, Loader=python) was being "
                       "imported in this thread, by that import")


@scenario
def lookup_others():
    GLib, Reg = reg()
    compiler = Reg.Registry.get_default().lookup_backend("py_others")
    import regfix_others

    assert compiler == regfix_others.GOOD
    assert "py_good" in regfix_others.LISTED


@scenario
def threads():
    GLib, Reg = reg()
    registry = Reg.Registry.get_default()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["REGFIX_IMPORT_LOG"] = os.path.join(tmp, "log")
        barrier = threading.Barrier(8)
        found = []

        def first_lookup():
            barrier.wait()
            found.append(registry.lookup_backend("py_slow"))

        workers = [threading.Thread(target=first_lookup) for _ in range(8)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert len(found) == 8 and all(c is found[0] for c in found)
        with open(os.environ["REGFIX_IMPORT_LOG"]) as log:
            assert log.read() == "imported\n"

    graph = Reg.Graph.new_from_string("graph(x, y):\n  a = mul(x, y)\n  return (a,)\n")
    inputs = [Reg.Tensor.new_from_data([1, 2, 3, 4], [2, 2]), Reg.Tensor.new_from_data([2] * 4, [2, 2])]
    fn = registry.lookup_backend("py_good").compile(graph, inputs, None)
    results = []

    def call():
        for _ in range(50):
            results.append(list(fn.call(inputs)[0].get_data()))

    workers = [threading.Thread(target=call) for _ in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert results == [[2.0, 4.0, 6.0, 8.0]] * 400


@scenario
def retry():
    GLib, Reg = reg()
    flag = os.environ["REGFIX_RETRY_FLAG"] + "-python"
    os.environ["REGFIX_RETRY_FLAG"] = flag
    open(flag, "w").close()
    try:
        expect_load_failed(GLib, Reg, "py_retry", "ImportError: regfix_retry is told to fail")
    finally:
        os.unlink(flag)
    Reg.Registry.get_default().rescan()
    check_runs(Reg, Reg.Registry.get_default().lookup_backend("py_retry"))


@scenario
def javascript_and_examples():
    # A backend written in JavaScript, from this Python program (the loader
    # makes a GJS context in this thread), and the documentation's
    # examples, which agree with eager.
    GLib, Reg = reg()
    registry = Reg.Registry.get_default()
    check_runs(Reg, registry.lookup_backend("js_good"))
    graph = Reg.Graph.new_from_string(
        "graph(x, y):\n  a = mul(x, y)\n  b = add(a, 1.5)\n  c = tanh(b)\n  d = sigmoid(c)\n"
        "  e = sub(d, x)\n  return (e,)\n")
    inputs = [Reg.Tensor.new_from_data([0.5, -1, 2, 3], [2, 2]),
              Reg.Tensor.new_from_data([1, 2, -3, 0.25], [2, 2])]
    want = list(registry.compile("eager", graph, inputs, None).call(inputs)[0].get_data())
    for name in ("acme", "acme_js"):
        got = list(registry.compile(name, graph, inputs, None).call(inputs)[0].get_data())
        assert all(abs(a - b) < 1e-6 for a, b in zip(got, want)), (name, got, want)


def print_verdict():
    # Run by verdicts_per_environment in other interpreters.
    GLib, Reg = reg()
    verdict = Reg.Registry.get_default().dup_verdict("py_crash")
    print(verdict.get_kind().value_nick if verdict else "none")


@scenario
def verdicts_per_environment():
    # A verdict is keyed by the interpreter's environment: another process
    # of this Python sees it, and so does a C program (regctl), whose
    # loader would start this Python; one of a virtual environment
    # (another sys.prefix) does not.  The cache is set before GLib reads
    # it.
    tmp = tempfile.mkdtemp()
    os.environ["XDG_CACHE_HOME"] = tmp
    GLib, Reg = reg()
    verdict = Reg.Registry.get_default().verify_backend("py_crash", None, None)
    assert verdict.get_kind() == Reg.VerdictKind.CRASHED, verdict.get_reason()
    assert verdict.get_quarantines()
    expect_load_failed(GLib, Reg, "py_crash", "is quarantined", "regctl verify py_crash")

    def kind(python):
        result = subprocess.run([python, __file__, "print_verdict"], capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout

    assert kind(sys.executable) == "crashed\n"
    info = subprocess.run([os.environ["REGCTL"], "info", "py_crash"], capture_output=True, text=True,
                          timeout=60)
    assert "\nState:        quarantined\n" in info.stdout, info.stdout + info.stderr
    venv = os.path.join(tmp, "venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", venv],
                   check=True)
    assert kind(os.path.join(venv, "bin", "python3")) == "none\n"


@scenario
def verdicts_from_threads():
    # Reading a Python backend's verdict asks this interpreter for its
    # environment, from whichever thread reads it: Python threads, and a
    # worker thread of libreg's that holds no interpreter lock while the
    # main thread runs a main loop.
    tmp = tempfile.mkdtemp()
    os.environ["XDG_CACHE_HOME"] = tmp
    GLib, Reg = reg()
    registry = Reg.Registry.get_default()
    assert registry.verify_backend("py_crash", None, None).get_quarantines()
    kinds = []

    def read():
        for _ in range(50):
            kinds.append(registry.dup_verdict("py_crash").get_kind())
            kinds.append(registry.get_backend_info("py_crash").get_verdict().get_kind())

    workers = [threading.Thread(target=read) for _ in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert kinds == [Reg.VerdictKind.CRASHED] * 800, set(kinds)

    loop = GLib.MainLoop()
    failure = []
    graph = Reg.Graph.new_from_string("graph(x):\n  a = relu(x)\n  return (a,)\n")
    inputs = [Reg.Tensor.new_from_data([1, -2], [2])]

    def done(source, result):
        try:
            registry.compile_finish(result)
        except GLib.Error as e:
            failure.append(e.message)
        loop.quit()

    registry.compile_async("py_crash", graph, inputs, None, None, done)
    loop.run()
    assert len(failure) == 1 and "is quarantined" in failure[0], failure


class LoaderPythonTest(unittest.TestCase):
    pass


def make_test(name):
    def test(self):
        result = subprocess.run([sys.executable, __file__, name], capture_output=True, text=True,
                                timeout=60)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    return test


for _name in SCENARIOS:
    setattr(LoaderPythonTest, "test_" + _name, make_test(_name))


if __name__ == "__main__":
    if sys.argv[1:] == ["print_verdict"]:
        print_verdict()
    elif len(sys.argv) == 2 and sys.argv[1] in SCENARIOS:
        SCENARIOS[sys.argv[1]]()
    else:
        unittest.main()
