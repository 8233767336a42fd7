#!/usr/bin/env python3
"""Gives RegCompiledFn's `call` virtual method its own return transfer.

g-ir-scanner copies the annotations of an invoker method onto the virtual
method of the same name, and no annotation can keep them apart.  The
wrapper reg_compiled_fn_call() returns `(transfer container)` (its array
frees its elements, API.md §9), but the `call` vfunc returns `(transfer
full)`: an implementation hands over its elements, and Python and JS
implementations must give the caller a reference to each tensor they
return, or the tensors die with the binding's list.

Usage: fix-vfunc-transfer.py IN.gir OUT.gir
"""

import sys
import xml.etree.ElementTree as ET

CORE = "http://www.gtk.org/introspection/core/1.0"


def main(src, dst):
    for prefix, uri in (("", CORE),
                        ("c", "http://www.gtk.org/introspection/c/1.0"),
                        ("glib", "http://www.gtk.org/introspection/glib/1.0")):
        ET.register_namespace(prefix, uri)
    tree = ET.parse(src)
    found = 0
    for iface in tree.iter("{%s}interface" % CORE):
        if iface.get("name") != "CompiledFn":
            continue
        for vfunc in iface.findall("{%s}virtual-method" % CORE):
            if vfunc.get("name") == "call":
                vfunc.find("{%s}return-value" % CORE).set("transfer-ownership", "full")
                found += 1
    if found != 1:
        sys.exit("fix-vfunc-transfer: Reg.CompiledFn.call vfunc not found in %s" % src)
    tree.write(dst, encoding="UTF-8", xml_declaration=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
