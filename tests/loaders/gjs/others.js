// others.js: a module that lists backends and looks up other ones, a
// JavaScript one among them, while it is evaluated, for the loader's
// tests
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import Reg from 'gi://Reg?version=1.0';

const registry = Reg.Registry.get_default();
export const listed = registry.list_backends([]);
export const eager = registry.lookup_backend('eager');
export const good = registry.lookup_backend('js_good');

export function make() {
    return good;
}
