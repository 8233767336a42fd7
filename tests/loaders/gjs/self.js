// self.js: a module that looks its own backend up while it is evaluated,
// for the loader's tests: the lookup throws, and so does the import
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Reg from 'gi://Reg?version=1.0';

import {GoodCompiler} from './good.js';

Reg.Registry.get_default().lookup_backend('js_self');

export const SelfCompiler = GoodCompiler;
