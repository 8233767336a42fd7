#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Prints the table of test-graph.c's /graph/print/repr test: doubles (as
# their bits) and what Python's repr() prints for them, which
# reg_graph_to_string() must print for constants.  Deterministic: run it
# with /usr/bin/python3 and paste its output between the markers in
# tests/test-graph.c.

import math
import random
import struct


def bits(value):
    return struct.unpack('<Q', struct.pack('<d', value))[0]


def from_bits(b):
    return struct.unpack('<d', struct.pack('<Q', b))[0]


values = [
    0.0, -0.0, 1.0, -1.0, 1.5, 2.0, 0.1, 0.2, 0.1 + 0.2, 1 / 3, 2 / 3,
    math.pi, math.e, 100.0, 123.456, -123.456,
    math.inf, -math.inf, math.nan,
    # the fixed/scientific boundaries of repr()
    0.0001, 0.00011, 0.00009999, 1e-05, 1.5e-05, 9.9999e-05,
    1e15, 1e16, 1e17, 1234567890123456.0, 12345678901234567.0,
    9999999999999998.0, 9007199254740992.0, 9007199254740993.0,
    999999999999999.9, 1e22, 1e23, 1.5e300, -1.5e-300,
    # extremes
    5e-324, -5e-324, 1e-323, 2.2250738585072014e-308, 2.225073858507201e-308,
    1.7976931348623157e308, -1.7976931348623157e308, 4.35e-320,
    # float32 values, which constants often are
    3.4028234663852886e+38, 1.1754943508222875e-38, 1.401298464324817e-45,
]

# Powers of two, where the shortest repr is hardest to find: the doubles
# below are twice as dense as those above.
values += [2.0 ** k for k in range(-1074, 1024, 37)]
values += [2.0 ** k for k in (-1017, -1007, -957, -921, -808, -791, -788,
                              -778, -705, 53, 54, 63, 64, 1023)]

rng = random.Random(20240501)
for _ in range(150):
    b = rng.getrandbits(64)
    v = from_bits(b)
    if not math.isnan(v):
        values.append(v)
for _ in range(100):
    digits = rng.randint(1, 17)
    mantissa = rng.randint(1, 10 ** digits - 1)
    exponent = rng.randint(-30, 30)
    values.append(float('%de%d' % (mantissa, exponent)))
for _ in range(50):
    values.append(float(rng.uniform(-1000, 1000)))

seen = set()
for v in values:
    b = bits(v)
    if b in seen:
        continue
    seen.add(b)
    print('  { G_GUINT64_CONSTANT (0x%016x), "%s" },' % (b, repr(v)))
