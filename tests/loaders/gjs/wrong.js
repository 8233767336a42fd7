// wrong.js: exports that are not compilers, for the loader's tests
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import GObject from 'gi://GObject?version=2.0';

export const NotACompiler = GObject.registerClass(class NotACompiler extends GObject.Object {});

export class NotAGObject {}

export const NOT_CALLABLE = 42;

export function returnsNull() {
    return null;
}

export function throws() {
    throw new RangeError('wrong.js throws() fails');
}
