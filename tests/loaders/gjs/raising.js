// raising.js: a module whose evaluation throws, from a function it
// calls, for the loader's tests
//
// SPDX-License-Identifier: LGPL-2.1-or-later

function check() {
    throw new TypeError('raising.js refuses to be imported');
}

check();

export const Compiler = null;
