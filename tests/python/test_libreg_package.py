#!/usr/bin/python3
# The Python package libreg (python/libreg): the decorators of
# libreg.dynamo, and libreg.entry_points.
#
# Run by meson with the package's directory on PYTHONPATH, and the
# environment of the loader tests (see tests/meson.build).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest

import gi

gi.require_version("GLib", "2.0")
gi.require_version("Reg", "1.0")
from gi.repository import GLib, Reg  # noqa: E402

from libreg import dynamo  # noqa: E402

GRAPH = Reg.Graph.new_from_string("graph(x, y):\n  a = mul(x, y)\n  return (a,)\n")
INPUTS = [Reg.Tensor.new_from_data([1, 2, 3], [3]), Reg.Tensor.new_from_data([2, 2, 2], [3])]


def eager_callable(graph, example_inputs):
    fn = Reg.Registry.get_default().lookup_backend("eager").compile(graph, example_inputs, None)
    return lambda *inputs: fn.call(list(inputs))


class TestDynamo(unittest.TestCase):
    def setUp(self):
        self.registry = Reg.Registry.new()

    def run_backend(self, name, options=None):
        fn = self.registry.compile(name, GRAPH, INPUTS, options)
        return list(fn.call(INPUTS)[0].get_data())

    def test_plain_decorator(self):
        @dynamo.register_backend(registry=self.registry)
        def doubling(graph, example_inputs):
            return eager_callable(graph, example_inputs)

        self.assertTrue(callable(doubling))   # returned unchanged
        self.assertEqual(self.run_backend("doubling"), [2.0, 4.0, 6.0])
        self.assertIn("doubling", self.registry.list_backends(None))

    def test_bare_decorator_uses_the_default_registry(self):
        @dynamo.register_backend
        def regtest_bare(graph, example_inputs):
            return eager_callable(graph, example_inputs)

        default = Reg.Registry.get_default()
        self.addCleanup(default.unregister_backend, "regtest_bare")
        self.assertIn("regtest_bare", default.list_backends(None))

    def test_name_and_tags(self):
        def compile_fn(graph, example_inputs):
            return eager_callable(graph, example_inputs)

        dynamo.register_backend(compile_fn, name="named", tags=("python", "cpu"),
                                registry=self.registry)
        self.assertEqual(list(self.registry.get_backend_tags("named")), ["python", "cpu"])
        self.assertEqual(self.run_backend("named"), [2.0, 4.0, 6.0])
        with self.assertRaisesRegex(TypeError, r"not a str: tags=\('python',\)"):
            dynamo.register_backend(compile_fn, name="lettered", tags="python",
                                    registry=self.registry)
        self.assertNotIn("lettered", self.registry.list_backends(None))

    def test_debug_and_experimental(self):
        @dynamo.register_debug_backend(registry=self.registry)
        def dbg(graph, example_inputs):
            return eager_callable(graph, example_inputs)

        @dynamo.register_experimental_backend(name="exp", registry=self.registry)
        def experimental(graph, example_inputs):
            return eager_callable(graph, example_inputs)

        self.assertEqual(list(self.registry.get_backend_tags("dbg")), ["debug"])
        self.assertEqual(list(self.registry.get_backend_tags("exp")), ["experimental"])
        listed = self.registry.list_backends(None)
        self.assertNotIn("dbg", listed)
        self.assertNotIn("exp", listed)
        self.assertIn("dbg", self.registry.list_backends([]))
        self.assertEqual(self.run_backend("exp"), [2.0, 4.0, 6.0])

    def test_a_compiled_fn_is_used_as_it_is(self):
        @dynamo.register_backend(registry=self.registry)
        def direct(graph, example_inputs):
            return Reg.Registry.get_default().lookup_backend("eager").compile(
                graph, example_inputs, None)

        self.assertEqual(self.run_backend("direct"), [2.0, 4.0, 6.0])

    def test_options(self):
        seen = []

        @dynamo.register_backend(registry=self.registry)
        def with_options(graph, example_inputs, options=None):
            seen.append(None if options is None else options.unpack())
            return eager_callable(graph, example_inputs)

        @dynamo.register_backend(registry=self.registry)
        def without_options(graph, example_inputs):
            return eager_callable(graph, example_inputs)

        options = GLib.Variant("a{sv}", {"fast": GLib.Variant("b", True)})
        self.run_backend("with_options", options)
        self.assertEqual(seen, [{"fast": True}])
        with self.assertRaises(GLib.Error) as caught:
            self.run_backend("without_options", options)
        self.assertTrue(caught.exception.matches(Reg.compiler_error_quark(),
                                                 Reg.CompilerError.BAD_OPTION))

    def test_an_exception_is_the_reason(self):
        @dynamo.register_backend(registry=self.registry)
        def raising(graph, example_inputs):
            raise ValueError("my compile is broken")

        with self.assertRaises(GLib.Error) as caught:
            self.run_backend("raising")
        self.assertTrue(caught.exception.matches(Reg.compiler_error_quark(),
                                                 Reg.CompilerError.FAILED))
        self.assertRegex(caught.exception.message,
                         r"raising: the backend function raised ValueError: my compile is "
                         r"broken \(.*test_libreg_package\.py:\d+ in raising\)")

    def test_a_wrong_result_is_an_error(self):
        @dynamo.register_backend(registry=self.registry)
        def wrong(graph, example_inputs):
            return 42

        with self.assertRaises(GLib.Error) as caught:
            self.run_backend("wrong")
        self.assertIn("the backend function returned a value of type int", caught.exception.message)


class TestGuide(unittest.TestCase):
    def test_the_guides_example_runs(self):
        """The libreg.dynamo example of "Writing a backend in Python or
        JavaScript", as written."""
        page = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__)))), "docs", "writing-a-backend-in-python-or-javascript.md")
        with open(page, encoding="utf-8") as f:
            blocks = re.findall(r"(?ms)^```python\n(.*?)^```", f.read())
        (code,) = [b for b in blocks if "from libreg.dynamo import" in b]
        default = Reg.Registry.get_default()
        for name in ("eager_in_python", "print_graph"):
            self.addCleanup(default.unregister_backend, name)
        exec(compile(code, page, "exec"), {})
        self.assertIn("print_graph", default.list_backends([]))
        self.assertNotIn("print_graph", default.list_backends(None))
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            fn = default.compile("print_graph", GRAPH, INPUTS, None)
        self.assertEqual(printed.getvalue(), GRAPH.to_string() + "\n")
        self.assertEqual(list(fn.call(INPUTS)[0].get_data()), [2.0, 4.0, 6.0])


class TestEntryPoints(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.site = os.path.join(self.tmp.name, "site-packages")
        self.out = os.path.join(self.tmp.name, "backends")

    def install(self, name, version, entry_points, summary="A package of the tests"):
        """A package's metadata only, as pip leaves it: no code at all."""
        info = os.path.join(self.site, f"{name}-{version}.dist-info")
        os.makedirs(info, exist_ok=True)
        with open(os.path.join(info, "METADATA"), "w") as f:
            f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                    f"Summary: {summary}\n")
        with open(os.path.join(info, "entry_points.txt"), "w") as f:
            f.write(textwrap.dedent(entry_points))

    def run_tool(self):
        return subprocess.run([sys.executable, "-m", "libreg.entry_points", "--dir", self.out,
                               "--path", self.site], capture_output=True, text=True)

    def test_manifests_from_metadata_only(self):
        self.install("acme-reg", "2.1", """\
            [libreg_backends]
            acme = acme_reg.compiler:AcmeCompiler
            acme_fn = acme_reg.compiler:make
            other = acme_reg.other:Other [extra]

            [console_scripts]
            acme = acme_reg.cli:main
            """)
        result = self.run_tool()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(sorted(os.listdir(self.out)),
                         ["python-acme-reg-acme_reg.compiler.backend",
                          "python-acme-reg-acme_reg.other.backend"])
        with open(os.path.join(self.out, "python-acme-reg-acme_reg.compiler.backend")) as f:
            text = f.read()
        self.assertIn("Loader=python\nImport=acme_reg.compiler\n", text)
        self.assertIn("[Backend acme]\nObject=AcmeCompiler\nDescription=A package of the tests\n"
                      "Version=2.1\n", text)
        self.assertIn("[Backend acme_fn]\nObject=make\n", text)

        # libreg reads them as any manifest, and nothing exists to import.
        regctl = os.environ.get("REGCTL")
        if regctl:
            listed = subprocess.run([regctl, "list", "--all", "--json"], capture_output=True,
                                    text=True, env=dict(os.environ, REG_BACKEND_PATH=self.out))
            names = {b["name"]: b for b in json.loads(listed.stdout)}
            self.assertEqual(names["acme"]["entry_point"], "acme_reg.compiler:AcmeCompiler")
            self.assertEqual(names["other"]["loader"], "python")

    def test_gone_entry_points_are_removed_and_others_kept(self):
        self.install("acme-reg", "1.0", "[libreg_backends]\nacme = acme_reg.compiler:Acme\n")
        os.makedirs(self.out)
        mine = os.path.join(self.out, "python-mine.backend")
        with open(mine, "w") as f:
            f.write("[Reg Module]\nAbiVersion=2\nLoader=python\nImport=mine\n\n"
                    "[Backend mine]\nObject=Mine\n")
        self.assertEqual(self.run_tool().returncode, 0)
        self.install("acme-reg", "1.0", "[libreg_backends]\nacme = acme_reg.other:Acme\n")
        result = self.run_tool()
        self.assertIn("removed python-acme-reg-acme_reg.compiler.backend", result.stdout)
        self.assertEqual(sorted(os.listdir(self.out)),
                         ["python-acme-reg-acme_reg.other.backend", "python-mine.backend"])

    def test_bad_entry_points_are_skipped_and_said(self):
        self.install("acme-reg", "1.0", """\
            [libreg_backends]
            good = acme_reg.compiler:Acme
            bad = acme_reg/compiler.py
            acme/slash = acme_reg.compiler:Slash
            acme\u200bzero = acme_reg.compiler:Zero
            """)
        result = self.run_tool()
        self.assertEqual(result.returncode, 1)
        self.assertIn("acme-reg: entry point bad skipped: 'acme_reg/compiler.py' is not "
                      "module:object", result.stderr)
        # A name libreg refuses would make it skip the whole manifest.
        self.assertIn("acme-reg: entry point acme/slash skipped: not a backend name: "
                      "character '/' at byte 4 is not allowed", result.stderr)
        self.assertIn("acme-reg: entry point acme\u200bzero skipped: not a backend name: "
                      "format character U+200B at byte 4 is not allowed", result.stderr)
        self.assertEqual(os.listdir(self.out), ["python-acme-reg-acme_reg.compiler.backend"])
        regctl = os.environ.get("REGCTL")
        if regctl:
            listed = subprocess.run([regctl, "list", "--all", "--json"], capture_output=True,
                                    text=True, env=dict(os.environ, REG_BACKEND_PATH=self.out))
            self.assertNotIn("skipped", listed.stderr)
            self.assertIn("good", {b["name"] for b in json.loads(listed.stdout)})


if __name__ == "__main__":
    unittest.main()
