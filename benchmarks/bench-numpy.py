#!/usr/bin/python3
# bench-numpy.py: the inductor benchmark's graphs in numpy
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run by bench-inductor (or by hand).  Builds the same inputs as
# bench-inductor.c (a hash of the index, scaled to [-1, 1)), runs each
# graph written the natural numpy way (one temporary array per operator,
# float32 throughout) and prints one line per graph and size:
#
#     GRAPH SIZE MEDIAN_MS CHECKSUM
#
# after a first line `numpy-version VERSION` and a line `numpy-blas PATH`,
# the BLAS library numpy's matmul runs on in this process (read from
# /proc/self/maps; `unknown` elsewhere).  The graph `layer`, y = relu(x w +
# b), takes its shapes from --layers (MxKxN,...), with SIZE printed as
# MxKxN.  numpy's BLAS threads are set by the caller, in the environment
# (OPENBLAS_NUM_THREADS).

import argparse
import statistics
import sys
import time

import numpy as np

MLP_IN, MLP_HIDDEN, MLP_OUT = 64, 64, 16


def make_input(n, seed, scale=1.0):
    i = np.arange(n, dtype=np.uint64)
    h = ((i + np.uint64(seed * 0x9E3779B9)) * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)
    return ((h.astype(np.float64) / 4294967296.0 * 2.0 - 1.0) * scale).astype(np.float32)


def sigmoid(v):
    return np.float32(1) / (np.float32(1) + np.exp(-v))


def chain8(x, a, b):
    return (np.maximum(x * a + b, np.float32(0)) * sigmoid(x) + np.tanh(b)) * np.float32(0.5)


def chain16(x, a, b):
    t6 = np.maximum(x * a + b, np.float32(0)) * sigmoid(x) + np.tanh(b)
    t8 = np.abs(a) + np.float32(1)
    t11 = np.exp(t6 - np.log(t8))
    t13 = np.sqrt(np.maximum(t11, x))
    return np.minimum(t13 / t8, np.float32(2))


def total(x, a):
    return np.sum(np.exp(x) * a)


def mlp(x, w1, w2):
    h = np.maximum(x @ w1 + np.float32(0.1), np.float32(0))
    return sigmoid(h @ w2 - np.float32(0.05))


def layer(x, w, b):
    return np.maximum(x @ w + b, np.float32(0))


def layer_inputs(shape):
    m, k, n = (int(d) for d in shape.split('x'))
    return (make_input(m * k, 0).reshape(m, k),
            make_input(k * n, 1, 1.0 / np.sqrt(k)).reshape(k, n),
            make_input(m * n, 2).reshape(m, n))


def blas_library():
    """The first mapped file that looks like a BLAS, after a matmul."""
    np.ones((2, 2), np.float32) @ np.ones((2, 2), np.float32)
    try:
        with open('/proc/self/maps') as maps:
            for line in maps:
                path = line.split()[-1]
                if 'blas' in path.rsplit('/', 1)[-1]:
                    return path
    except OSError:
        pass
    return 'unknown'


def inputs_for(graph, n):
    if graph == 'mlp':
        n -= n % MLP_IN
        return (make_input(n, 0).reshape(n // MLP_IN, MLP_IN),
                make_input(MLP_IN * MLP_HIDDEN, 1, 0.125).reshape(MLP_IN, MLP_HIDDEN),
                make_input(MLP_HIDDEN * MLP_OUT, 2, 0.125).reshape(MLP_HIDDEN, MLP_OUT))
    if graph == 'sum':
        return make_input(n, 0), make_input(n, 1)
    return make_input(n, 0), make_input(n, 1), make_input(n, 2)


FUNCS = {'chain8': chain8, 'chain16': chain16, 'sum': total, 'mlp': mlp, 'layer': layer}


def median_ms(f, args, min_reps, budget_ms):
    f(*args)
    times = []
    spent = 0.0
    while len(times) < 51 and (len(times) < min_reps or spent < budget_ms):
        t0 = time.perf_counter()
        f(*args)
        dt = (time.perf_counter() - t0) * 1000.0
        times.append(dt)
        spent += dt
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--graphs', default='chain8,chain16,sum,mlp')
    parser.add_argument('--sizes', default='1048576,16777216')
    parser.add_argument('--layers', default='256x256x256,2048x1024x1024')
    parser.add_argument('--quick', action='store_true')
    args = parser.parse_args()

    print('numpy-version', np.__version__)
    print('numpy-blas', blas_library())
    for graph in args.graphs.split(','):
        sizes = args.layers if graph == 'layer' else args.sizes
        for size in sizes.split(','):
            if graph == 'layer':
                inputs = layer_inputs(size)
            else:
                inputs = inputs_for(graph, int(size))
            ms = median_ms(FUNCS[graph], inputs, 3 if args.quick else 5,
                           300 if args.quick else 2000)
            checksum = float(np.sum(FUNCS[graph](*inputs), dtype=np.float64))
            print(graph, size, '%.4f' % ms, '%.9g' % checksum)
            sys.stdout.flush()


if __name__ == '__main__':
    main()
