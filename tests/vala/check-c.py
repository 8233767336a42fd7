#!/usr/bin/python3
# check-c.py: the C that valac writes for libreg is strict C
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# libreg takes and returns string arrays as `const char * const *`; a vapi
# without that C type makes valac pass and receive them as `char **`, an
# incompatible pointer type, which GCC 14 refuses.  tests/meson.build
# builds tests/vala/test-reg.vala with -Werror=incompatible-pointer-types;
# these checks do the rest:
#   - each Vala example of docs/*.md is turned into C by valac against the
#     built libreg-1.vapi, and that C compiles with
#     -Werror=incompatible-pointer-types;
#   - every function and property of Reg-1.0.gir that takes or returns
#     one is declared in the vapi as libreg/Reg-1.0.metadata says, so that
#     one added later cannot be missed.
# The environment (set by tests/meson.build) gives:
#   REG_LIBREG_BUILDDIR  the build's libreg/ (libreg-1.vapi, Reg-1.0.gir,
#                        the generated headers)
#   REG_SRCDIR           the source tree (default: found from this file)

import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.environ.get('REG_SRCDIR', os.path.dirname(os.path.dirname(HERE)))
BUILDDIR = os.environ.get('REG_LIBREG_BUILDDIR')
CONST_STRV = 'const char* const*'
CORE = '{http://www.gtk.org/introspection/core/1.0}'
C_NS = '{http://www.gtk.org/introspection/c/1.0}'


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def vala_examples():
    """[(label, text)]: the Vala examples of the docs, each block a whole
    program."""
    result = []
    for page in sorted(glob.glob(os.path.join(SRCDIR, 'docs', '*.md'))):
        blocks = re.findall(r'(?ms)^```vala\n(.*?)^```', read(page))
        for i, block in enumerate(blocks):
            result.append(('%s, Vala block %d' % (os.path.relpath(page, SRCDIR), i + 1), block))
    return result


def vapi_declarations(vapi):
    """{(type or None, member): (attribute lines, declaration)} of the
    vapi: members of classes and interfaces, and namespace functions."""
    result = {}
    owner = None
    attributes = []
    for line in vapi.splitlines():
        m = re.match(r'\t(?:public |protected )*(?:sealed |abstract )*(?:class|interface) (\w+)', line)
        if m:
            owner = m.group(1)
            attributes = []
            continue
        depth = len(line) - len(line.lstrip('\t'))
        text = line.strip()
        if text.startswith('['):
            attributes.append(text)
            continue
        if depth == 1 and text.startswith('public static'):
            m = re.search(r'(\w+) \(', text)
            result[(None, m.group(1))] = (attributes, text)
        elif depth == 2 and owner is not None:
            m = re.match(r'(?:public |protected )*%s(?:\.(\w+))? \(' % owner, text)
            if m:
                # A constructor: Option.with_choices is new_with_choices.
                result[(owner, 'new' if m.group(1) is None else 'new_' + m.group(1))] = (attributes, text)
            else:
                m = re.search(r'(\w+) (?:\(|\{)', text)
                if m:
                    result[(owner, m.group(1))] = (attributes, text)
        attributes = []
    return result


class TestValaC(unittest.TestCase):
    def setUp(self):
        self.valac = shutil.which('valac')
        self.cc = shutil.which('cc')
        if BUILDDIR is None or not os.path.exists(os.path.join(BUILDDIR, 'libreg-1.vapi')):
            self.skipTest('REG_LIBREG_BUILDDIR has no libreg-1.vapi (built without vapi)')
        if self.valac is None or self.cc is None:
            self.skipTest('valac or cc is missing')

    def test_generated_c_is_strict(self):
        cflags = subprocess.run(['pkg-config', '--cflags', 'gio-2.0', 'gmodule-2.0'],
                                capture_output=True, text=True, check=True).stdout.split()
        sources = vala_examples()
        self.assertTrue(sources)
        for label, text in sources:
            with self.subTest(source=label), tempfile.TemporaryDirectory() as d:
                source = os.path.join(d, 'program.vala')
                with open(source, 'w', encoding='utf-8') as f:
                    f.write(text)
                proc = subprocess.run(
                    [self.valac, '-C', '--quiet', '--vapidir=' + BUILDDIR, '--pkg=libreg-1',
                     '--pkg=gio-2.0', '--pkg=gmodule-2.0', '--target-glib=2.74',
                     '--directory=' + d, source],
                    capture_output=True, text=True, timeout=300)
                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
                proc = subprocess.run(
                    [self.cc, '-std=gnu11', '-fsyntax-only', '-Werror=incompatible-pointer-types',
                     '-I' + BUILDDIR, '-I' + os.path.join(SRCDIR, 'libreg')] + cflags +
                    [os.path.join(d, 'program.c')],
                    capture_output=True, text=True, timeout=300)
                errors = [line for line in proc.stderr.splitlines() if 'error:' in line]
                self.assertEqual(proc.returncode, 0, '\n'.join(errors) or proc.stderr)

    def test_vapi_has_the_c_type_of_string_arrays(self):
        """Each function of the GIR taking a `const char * const *` has that
        C type on the parameter in the vapi; each returning one is left out
        of the vapi (valac 0.56 would store the result in a `char **`) and
        is the getter of a property that Vala reads through g_object_get;
        every property whose accessors take or return one is read and
        written through GObject."""
        declarations = vapi_declarations(read(os.path.join(BUILDDIR, 'libreg-1.vapi')))
        namespace = ET.parse(os.path.join(BUILDDIR, 'Reg-1.0.gir')).find(CORE + 'namespace')

        def const_strv(element):
            array = element.find(CORE + 'array')
            return array is not None and array.get(C_NS + 'type') == CONST_STRV

        checked = 0
        owners = [(None, namespace)] + [(e.get('name'), e) for e in namespace
                                        if e.tag in (CORE + 'class', CORE + 'interface')]
        for owner, element in owners:
            uses_const = set()
            for kind in ('function', 'method', 'constructor'):
                for function in element.findall(CORE + kind):
                    name = function.get('name')
                    params = [p for p in function.findall(CORE + 'parameters/' + CORE + 'parameter')
                              if const_strv(p)]
                    returns = const_strv(function.find(CORE + 'return-value'))
                    if not params and not returns:
                        continue
                    uses_const.add(name)
                    with self.subTest(function=function.get(C_NS + 'identifier')):
                        checked += 1
                        if returns:
                            self.assertNotIn((owner, name), declarations,
                                             'returns a const string array: leave it out')
                            getter_of = [p for p in element.findall(CORE + 'property')
                                         if p.get('getter') == name]
                            self.assertTrue(getter_of, 'no property gives Vala what it returns')
                            continue
                        self.assertIn((owner, name), declarations, 'not in the vapi')
                        _, text = declarations[(owner, name)]
                        for p in params:
                            self.assertRegex(text, r'type = "%s"\)\] string\[\]\?? @?%s\b'
                                             % (re.escape(CONST_STRV), p.get('name')),
                                             'parameter %s has no C type' % p.get('name'))
            for prop in element.findall(CORE + 'property'):
                if not {prop.get('getter'), prop.get('setter')} & uses_const:
                    continue
                name = prop.get('name').replace('-', '_')
                with self.subTest(property='%s:%s' % (owner, prop.get('name'))):
                    checked += 1
                    self.assertIn((owner, name), declarations, 'not in the vapi')
                    attributes, _ = declarations[(owner, name)]
                    self.assertIn('[NoAccessorMethod]', attributes,
                                  'read or written through an accessor taking char **')
        # 6 functions taking one, 6 returning one, 7 properties
        self.assertGreaterEqual(checked, 19)


if __name__ == '__main__':
    unittest.main(verbosity=2)
