#!/usr/bin/env python3
# test-includes.py: the files of libreg/ include one another one way
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A concept is the files named after it (reg-graph.c, reg-graph.h,
# reg-graph-private.h, reg-graph-parser.c belong to reg-graph-parser and
# reg-graph: a file's concept is its name without the extension and
# "-private").  A concept includes another when one of its files includes a
# header of the other.  Those inclusions must form no circle: each concept
# is built on the ones below it only, and can be read without the ones
# above.

import collections
import os
import re
import sys
import unittest

LIBREG = os.path.join(os.environ.get('REG_SRCDIR', os.path.join(os.path.dirname(__file__), '..')), 'libreg')

# Generated or umbrella headers every concept may include.
COMMON = {'reg.h', 'reg-config.h', 'reg-enums.h', 'reg-version.h', 'reg-version-macros.h'}


def concept(name):
    name = re.sub(r'\.(c|h|h\.in)$', '', name)
    return re.sub(r'-private$', '', name)


def inclusions():
    edges = collections.defaultdict(set)
    names = set(os.listdir(LIBREG))
    for name in sorted(names):
        if not re.search(r'\.(c|h|h\.in)$', name):
            continue
        with open(os.path.join(LIBREG, name), encoding='utf-8') as f:
            for included in re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M):
                if included in COMMON or (included not in names and included + '.in' not in names):
                    continue
                if concept(included) != concept(name):
                    edges[concept(name)].add(concept(included))
    return edges


def circles(edges):
    found, state, path = [], {}, []

    def visit(node):
        state[node] = 'open'
        path.append(node)
        for other in sorted(edges[node]):
            if state.get(other) == 'open':
                found.append(path[path.index(other):] + [other])
            elif other not in state:
                visit(other)
        path.pop()
        state[node] = 'done'

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return found


class TestIncludes(unittest.TestCase):
    def test_no_circle(self):
        self.assertEqual([' -> '.join(c) for c in circles(inclusions())], [])

    def test_finds_a_circle(self):
        # The check itself can fail.
        self.assertEqual(circles({'a': {'b'}, 'b': {'a'}}), [['a', 'b', 'a']])


if __name__ == '__main__':
    unittest.main(verbosity=2)
