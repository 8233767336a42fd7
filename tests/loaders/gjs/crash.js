// crash.js: a module whose evaluation kills the process (SIGTRAP), for the
// tests of verification (only ever imported in the checker's process)
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import System from 'system';

System.breakpoint();
