// syntax.js: a module that is not JavaScript, for the loader's tests
//
// SPDX-License-Identifier: LGPL-2.1-or-later

export const Compiler = ;
