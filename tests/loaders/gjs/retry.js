// retry.js: a module whose evaluation throws while the file
// REGFIX_RETRY_FLAG names exists, for the test of a retried import
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import GLib from 'gi://GLib?version=2.0';

import {GoodCompiler} from './good.js';

if (GLib.file_test(`${GLib.getenv('REGFIX_RETRY_FLAG')}-gjs`, GLib.FileTest.EXISTS))
    throw new Error('retry.js is told to fail');

export const RetryCompiler = GoodCompiler;
