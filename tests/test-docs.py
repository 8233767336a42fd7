#!/usr/bin/python3
# test-docs.py: checks of the reference documentation's pages
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The pages in docs/ are the users' reference: these tests check that
# gi-docgen builds every page, that links between pages and to the API
# resolve, that API names in the text are links to their pages rather than
# bare code, that the module guide shows the example module of
# docs/examples/module as it is, that the options the docs list are those
# the backends declare, and that regctl.1 renders as written.  The environment (set by meson, see
# docs/meson.build) gives:
#   REG_DOCS_SRCDIR   docs/ (default: found from this file)
#   REG_GIR           the built Reg-1.0.gir (optional: those checks skip)
#   REG_DOCS_HTML     the built reference (optional: those checks skip)
#   REGCTL            the built regctl, REG_BACKEND_PATH pointing at the
#                     built modules (optional: the checks of the options
#                     the docs list against the backends' schemas skip)

import json
import os
import re
import shutil
import subprocess
import unittest
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.environ.get('REG_DOCS_SRCDIR', os.path.join(os.path.dirname(HERE), 'docs'))
SRCDIR = os.path.dirname(DOCS)
GIR = os.environ.get('REG_GIR')
HTML = os.environ.get('REG_DOCS_HTML')
REGCTL = os.environ.get('REGCTL')
EXAMPLE = os.path.join(DOCS, 'examples', 'module')
MAN_PAGE = os.path.join(DOCS, 'regctl.1')


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def pages():
    """{file name: text} of the gi-docgen pages: those with a Title: header."""
    result = {}
    for name in sorted(os.listdir(DOCS)):
        if name.endswith('.md'):
            text = read(os.path.join(DOCS, name))
            if text.startswith('Title:'):
                result[name] = text
    return result


def prose(text):
    """@text without its fenced code blocks and indented code lines."""
    text = re.sub(r'(?ms)^ *```.*?^ *```[^\n]*$', '', text)
    return re.sub(r'(?m)^(?:    |\t).*$', '', text)


class TestPages(unittest.TestCase):
    def test_every_page_is_built(self):
        toml = read(os.path.join(DOCS, 'reg.toml.in'))
        content_files = re.search(r'(?s)content_files = \[(.*?)\]', toml).group(1)
        meson = read(os.path.join(DOCS, 'meson.build'))
        for name, text in pages().items():
            with self.subTest(page=name):
                self.assertIn('"%s"' % name, content_files)
                self.assertIn("'%s'" % name, meson)
                slug = re.search(r'(?m)^Slug: (.*)$', text)
                self.assertIsNotNone(slug)
                self.assertEqual(slug.group(1) + '.md', name)

    def test_links_between_pages_resolve(self):
        names = set(pages())
        for name, text in pages().items():
            for target in re.findall(r'\]\(([a-z0-9-]+)\.html(?:#[^)]*)?\)', text):
                with self.subTest(page=name, link=target):
                    self.assertIn(target + '.md', names)

    def test_api_names_are_links(self):
        """A C function of the API named in a page's text is a gi-docgen
        link ([method@Reg.Registry.compile]), so that its page (arguments,
        ownership) is one click away; code blocks are left alone."""
        if GIR is None:
            self.skipTest('REG_GIR is not set (built without introspection)')
        c = 'http://www.gtk.org/introspection/c/1.0'
        tree = ET.parse(GIR)
        functions = {e.get('{%s}identifier' % c)
                     for tag in ('function', 'method', 'constructor')
                     for e in tree.iter('{http://www.gtk.org/introspection/core/1.0}%s' % tag)}
        functions.discard(None)
        self.assertIn('reg_registry_compile', functions)
        for name, text in pages().items():
            for span in re.findall(r'(?<!`)`([^`\n]+)`(?!`)', prose(text)):
                word = re.match(r'[A-Za-z_][A-Za-z0-9_]*', span)
                with self.subTest(page=name, code=span):
                    self.assertFalse(word is not None and word.group(0) in functions,
                                     '%s names %s in plain code: use a [method@...], [ctor@...] '
                                     'or [func@...] link' % (name, word and word.group(0)))


def code_blocks(text, language):
    return re.findall(r'(?ms)^```%s\n(.*?)^```' % re.escape(language), text)


def source_files():
    """The project's text files: sources, build files, tests, docs."""
    for top in ('libreg', 'modules', 'tools', 'tests', 'benchmarks', 'docs', '.ci'):
        for root, dirs, files in os.walk(os.path.join(SRCDIR, top)):
            dirs[:] = [d for d in dirs if d not in ('corpus', 'data')]
            for name in files:
                if (name.endswith(('.c', '.h', '.py', '.js', '.vala', '.md', '.build', '.1',
                                   '.in', '.backend', '.metadata', '.supp')) or
                        name in ('check', 'demo', 'run')):
                    yield os.path.join(root, name)
    for name in ('README.md', 'meson.build', 'meson_options.txt'):
        yield os.path.join(SRCDIR, name)


class TestSelfContained(unittest.TestCase):
    def test_nothing_from_outside_the_repository(self):
        """Docs and comments are read by people who have the repository
        and nothing else: no issue numbers, no notes or folders of the
        people who wrote them, and TorchDynamo named as such."""
        pattern = re.compile(r'(?i)\bissue #?\d+|\bAPI\.md\b|shared folder|/work/|'
                             r'\b(?:of|in|from) the seed\b|\bthe seed\'s|Python seed')
        checked = 0
        found = []
        for path in source_files():
            if os.path.abspath(path) == os.path.abspath(__file__):
                continue
            checked += 1
            for number, line in enumerate(read(path).splitlines(), 1):
                if pattern.search(line):
                    found.append('%s:%d: %s' % (os.path.relpath(path, SRCDIR), number, line))
        self.assertGreater(checked, 50)
        self.assertEqual(found, [])

    def test_figures_of_a_machine_are_in_benchmarks(self):
        """The docs say what to expect and how to measure it; what one
        machine measured is in benchmarks/README.md, with the command."""
        pattern = re.compile(r'(?i)this machine|measured on|\bvCPU|load average|\bEPYC\b|'
                             r'sapphire rapids|development (?:virtual )?machine|'
                             r'\bon 2 cores\b|\bhere\)')
        files = [os.path.join(DOCS, n) for n in sorted(os.listdir(DOCS)) if n.endswith('.md')]
        files += [MAN_PAGE, os.path.join(SRCDIR, 'README.md')]
        found = ['%s:%d: %s' % (os.path.basename(path), number, line)
                 for path in files
                 for number, line in enumerate(read(path).splitlines(), 1)
                 if pattern.search(line)]
        self.assertEqual(found, [])


class TestJavaScript(unittest.TestCase):
    def test_promisify_before_register_class(self):
        """GObject.registerClass copies the methods of a class's interfaces
        into it, so a Gio._promisify called later does not reach objects of
        the class. A page's JavaScript blocks run one after another (the
        test suite runs them so): each method they await must be
        promisified before the first class is registered."""
        awaited_by_page = {}
        for name in sorted(os.listdir(DOCS)):
            if not name.endswith('.md'):
                continue
            code = '\n'.join(code_blocks(read(os.path.join(DOCS, name)), 'js'))
            awaited = set(re.findall(r'await\s+[\w.]+\.(\w+_async)\(', code))
            awaited_by_page[name] = awaited
            first_class = code.find('GObject.registerClass(')
            for method in sorted(awaited):
                with self.subTest(page=name, method=method):
                    where = [m.start() for m in re.finditer(
                        r"Gio\._promisify\([\w.]+\.prototype,\s*'%s'" % method, code)]
                    self.assertTrue(where, '%s is awaited but never promisified' % method)
                    if first_class >= 0:
                        self.assertLess(min(where), first_class,
                                        '%s is promisified after GObject.registerClass' % method)
        # The bindings page shows it with a class of its own.
        self.assertIn('call_async', awaited_by_page['bindings.md'])


def regctl(*args):
    return subprocess.run([REGCTL] + list(args), capture_output=True, text=True,
                          check=True, timeout=60).stdout


def roff_text(line):
    """A line of an .EX block of a man page as it renders."""
    return (line.replace('\\-', '-').replace('\\&', '').replace('\\(dq', '"')
            .replace('\\e', '\\'))


def assert_shows_output(test, shown, output, where):
    """@shown, the lines a page gives as a command's output, are lines of
    @output in order: a line `...` stands for any number of lines, a line
    ending with `...` for one that starts with what comes before."""
    j = 0
    skipping = False
    for line in shown:
        if line == '...':
            skipping = True
            continue
        def matches(real):
            return real.startswith(line[:-3]) if line.endswith('...') else real == line
        found = j
        while found < len(output) and not matches(output[found]) and skipping:
            found += 1
        test.assertTrue(found < len(output) and matches(output[found]),
                        '%s shows %r, which the output has not there:\n%s'
                        % (where, line, '\n'.join(output)))
        j = found + 1
        skipping = False


class TestOptions(unittest.TestCase):
    """What the docs say a shipped backend takes is its schema, as
    `regctl info --json` reads it from the backend's manifest."""

    def setUp(self):
        if REGCTL is None:
            self.skipTest('REGCTL is not set')
        self.schemas = {}
        for entry in json.loads(regctl('list', '--all', '--json')):
            info = json.loads(regctl('info', entry['name'], '--json'))
            self.schemas[info['name']] = info['options']
        self.assertIn('inductor', self.schemas)

    def test_inductor_page_table_is_the_schema(self):
        text = read(os.path.join(DOCS, 'inductor.md'))
        rows = re.findall(r'(?m)^\| `([a-z-]+)` \| `([a-z]+)` \| ([^|]+) \| ([^|]+) \|$', text)
        schema = self.schemas['inductor']
        self.assertEqual([r[0] for r in rows], [o['name'] for o in schema])
        for (name, type_string, default, meaning), option in zip(rows, schema):
            with self.subTest(option=name):
                self.assertEqual(type_string, option['type'])
                value = option['default']
                shown = (','.join(value) if isinstance(value, list) else
                         json.dumps(value) if isinstance(value, bool) else str(value))
                self.assertEqual(default.strip().strip('`'), shown)
                if option['minimum'] is not None:
                    self.assertIn('%s to %s' % (option['minimum'], option['maximum']), meaning)
                for choice in option['choices'] or []:
                    self.assertIn('`%s`' % choice, meaning)

    def test_info_examples_are_its_output(self):
        """Each `$ regctl info NAME` example (choosing-a-backend.md,
        regctl.1) shows lines of what regctl prints."""
        examples = []
        text = read(os.path.join(DOCS, 'choosing-a-backend.md'))
        for block in code_blocks(text, 'sh'):
            examples.append(('choosing-a-backend.md', block.splitlines()))
        for block in re.findall(r'(?ms)^\.EX\n(.*?)^\.EE', read(MAN_PAGE)):
            examples.append(('regctl.1', [roff_text(line) for line in block.splitlines()]))
        checked = set()
        for where, lines in examples:
            m = re.match(r'\$ regctl info ([a-z_]+)$', lines[0]) if lines else None
            if m is None:
                continue
            with self.subTest(page=where, backend=m.group(1)):
                output = regctl('info', m.group(1)).splitlines()
                assert_shows_output(self, lines[1:], output, where)
                checked.add(where)
        self.assertEqual(checked, {'choosing-a-backend.md', 'regctl.1'})

    def test_lists_of_options_are_whole(self):
        """A paragraph of a page (or of the README) that names a shipped
        backend and two or more of its options names all of them: a list
        of some options reads as the list of all."""
        texts = {name: prose(text) for name, text in pages().items()}
        texts['inductor.md'] = prose(read(os.path.join(DOCS, 'inductor.md')))
        texts['README.md'] = prose(read(os.path.join(SRCDIR, 'README.md')))
        for name, text in texts.items():
            for paragraph in re.split(r'\n\s*\n', text):
                spans = set(re.findall(r'`([^`\n]+)`', paragraph))
                for backend, options in self.schemas.items():
                    names = {o['name'] for o in options or []}
                    if backend not in spans or len(names & spans) < 2:
                        continue
                    with self.subTest(page=name, backend=backend, paragraph=paragraph[:60]):
                        self.assertEqual(sorted(names - spans), [],
                                         '%s lists some of the options of %s, not these'
                                         % (name, backend))


class TestManPage(unittest.TestCase):
    def test_renders_without_warnings(self):
        groff = shutil.which('groff')
        if groff is None:
            self.skipTest('groff is not installed (groff-base)')
        proc = subprocess.run([groff, '-man', '-Tutf8', '-ww', '-z', MAN_PAGE],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual((proc.returncode, proc.stderr), (0, ''))

    def test_quotes_stay_in_one_argument(self):
        """The font-alternating macros (.BR, .RB, .IR...) join their
        arguments without spaces: a quoted string with a space in it must
        be one argument (`.RB ( "threads=\\(dquint32 2\\(dq" )`), or the
        space goes (threads="uint322")."""
        for number, line in enumerate(read(MAN_PAGE).splitlines(), 1):
            if not re.match(r'\.(?:BR|RB|IR|RI|BI|IB) ', line):
                continue
            # roff arguments: "quoted" ("" is a quote inside) or unquoted
            for arg in re.findall(r'"((?:[^"]|"")*)"|(\S+)', line.split(' ', 1)[1]):
                text = arg[0] or arg[1]
                with self.subTest(line=number):
                    self.assertEqual(text.count('\\(dq') % 2, 0,
                                     'regctl.1:%d: a quotation spans arguments: %s' % (number, line))

    def test_rendered_examples(self):
        """What regctl.1 shows of option values renders as typed."""
        groff = shutil.which('groff')
        if groff is None:
            self.skipTest('groff is not installed (groff-base)')
        # Long lines, no hyphenation, no bold or underlining: the text.
        proc = subprocess.run([groff, '-man', '-Tutf8', '-rLL=1000n', '-rHY=0', '-P', '-cbou',
                               MAN_PAGE], capture_output=True, text=True, timeout=60)
        text = re.sub(r'[ \t]+', ' ', proc.stdout)
        for shown in ['(threads="uint32 2")', '("uint32", "string list"...)']:
            with self.subTest(shown=shown):
                self.assertTrue(shown in text, 'regctl.1 does not render %s' % shown)


class TestModuleGuide(unittest.TestCase):
    def test_search_path_is_the_build_directory(self):
        """A module built with meson is in its build directory, beside the
        manifest its meson.build copies there, not in its source
        directory: a command run from the source directory names
        $PWD/_build (tools/check runs those commands in a copy of
        docs/examples/module)."""
        files = [os.path.join(DOCS, n) for n in sorted(os.listdir(DOCS)) if n.endswith('.md')]
        files += [MAN_PAGE, os.path.join(SRCDIR, 'README.md')]
        for path in files:
            for line in read(path).splitlines():
                with self.subTest(file=os.path.basename(path), line=line):
                    self.assertNotRegex(line, r'REG_BACKEND_PATH=(?:\$PWD|\$\(pwd\)|\.)(?![/\w])')

    def test_guide_shows_the_example_as_it_is(self):
        guide = read(os.path.join(DOCS, 'writing-a-module.md'))
        files = sorted(os.listdir(EXAMPLE))
        self.assertEqual(files, ['example-backend.c', 'example.backend', 'meson.build',
                                 'scaled-backend.c', 'scaled.backend'])
        for file_name in files:
            with self.subTest(file=file_name):
                m = re.search(r'(?ms)^`docs/examples/module/%s`:\n\n```[a-z]*\n(.*?)^```$'
                              % re.escape(file_name), guide)
                self.assertIsNotNone(m, 'the guide does not show %s' % file_name)
                self.assertEqual(m.group(1), read(os.path.join(EXAMPLE, file_name)))

    def test_manifest_declares_what_the_module_adds(self):
        meson = read(os.path.join(EXAMPLE, 'meson.build'))
        targets = dict((source, target) for target, source in
                       re.findall(r"shared_module\('([^']+)', '([^']+)'", meson))
        self.assertEqual(sorted(targets), ['example-backend.c', 'scaled-backend.c'])
        for prefix in ['example', 'scaled']:
            with self.subTest(module=prefix):
                manifest = read(os.path.join(EXAMPLE, prefix + '.backend'))
                source = read(os.path.join(EXAMPLE, prefix + '-backend.c'))
                self.assertIn('AbiVersion=2\n', manifest)
                self.assertIn("'%s.backend'" % prefix, meson)
                declared = re.findall(r'(?m)^\[Backend ([^\]]+)\]$', manifest)
                backend = re.search(r'#define [A-Z]+_BACKEND "([^"]+)"', source).group(1)
                self.assertEqual(declared, [backend])
                module = re.search(r'(?m)^Module=(.*)$', manifest).group(1)
                self.assertEqual(module, 'lib%s.so' % targets[prefix + '-backend.c'])


class LinkCollector(HTMLParser):
    """The links of a page, and its text outside code."""

    def __init__(self):
        super().__init__()
        self.links = []
        self.text = []
        self.in_code = 0

    def handle_starttag(self, tag, attrs):
        if tag in ('code', 'pre', 'script', 'style'):
            self.in_code += 1
        for key, value in attrs:
            if key in ('href', 'src') and value:
                self.links.append(value)

    def handle_endtag(self, tag):
        if tag in ('code', 'pre', 'script', 'style'):
            self.in_code -= 1

    def handle_data(self, data):
        if self.in_code == 0:
            self.text.append(data)


class TestBuiltReference(unittest.TestCase):
    def test_local_links_resolve(self):
        """gi-docgen warns about a link to a symbol it does not know, not
        about one to a page it does not write ([struct@...] of an interface's
        struct): every local link of the built reference must name a file."""
        if HTML is None or not os.path.isdir(HTML):
            self.skipTest('the reference is not built (-Ddocumentation=enabled)')
        checked = 0
        for name in sorted(os.listdir(HTML)):
            if not name.endswith('.html'):
                continue
            collector = LinkCollector()
            collector.feed(read(os.path.join(HTML, name)))
            for link in collector.links:
                if re.match(r'[a-z]+:', link) or link.startswith(('#', '//')):
                    continue
                target = link.split('#', 1)[0].split('?', 1)[0]
                if not target:
                    continue
                checked += 1
                with self.subTest(page=name, link=link):
                    self.assertTrue(os.path.exists(os.path.join(HTML, target)),
                                    '%s links to %s, which is not in the reference' % (name, link))
        self.assertGreater(checked, 100)

    def test_pages_render_their_markup(self):
        """A backtick left in a page's text is markdown that did not render:
        a code block nested in a list item, say, which gi-docgen prints as
        prose."""
        if HTML is None or not os.path.isdir(HTML):
            self.skipTest('the reference is not built (-Ddocumentation=enabled)')
        for name in pages():
            collector = LinkCollector()
            collector.feed(read(os.path.join(HTML, name[:-3] + '.html')))
            text = ''.join(collector.text)
            with self.subTest(page=name):
                where = text.find('`')
                self.assertEqual(where, -1, '%s: unrendered markup: %r' % (name, text[max(0, where - 60):where + 60]))


if __name__ == '__main__':
    unittest.main(verbosity=2)
