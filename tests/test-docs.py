#!/usr/bin/python3
# test-docs.py: checks of the reference documentation's pages
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The pages in docs/ are the users' reference: these tests check that
# gi-docgen builds every page, that links between pages and to the API
# resolve, that API names in the text are links to their pages rather than
# bare code, and that the module guide shows the example module of
# docs/examples/module as it is.  The environment (set by meson, see
# docs/meson.build) gives:
#   REG_DOCS_SRCDIR   docs/ (default: found from this file)
#   REG_GIR           the built Reg-1.0.gir (optional: those checks skip)
#   REG_DOCS_HTML     the built reference (optional: those checks skip)

import os
import re
import unittest
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.environ.get('REG_DOCS_SRCDIR', os.path.join(os.path.dirname(HERE), 'docs'))
GIR = os.environ.get('REG_GIR')
HTML = os.environ.get('REG_DOCS_HTML')
EXAMPLE = os.path.join(DOCS, 'examples', 'module')


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


class TestModuleGuide(unittest.TestCase):
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
