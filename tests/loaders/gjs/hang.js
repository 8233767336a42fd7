// hang.js: a module whose evaluation never ends, for the tests of
// verification (only ever imported in the checker's process)
//
// SPDX-License-Identifier: LGPL-2.1-or-later

for (;;) {
    // nothing
}
