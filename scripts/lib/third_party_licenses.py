#!/usr/bin/env python3
"""Lists the Swift packages a build resolves, for the Debian package's copyright file, and copies each one's license.

    swift package show-dependencies --format json | scripts/lib/third_party_licenses.py LICENSES_DIR

prints one line per package, " NAME VERSION (URL): LICENSE", sorted by name, and writes LICENSES_DIR/NAME, the
package's license file as its repository ships it (and NAME.TARGET, the license beside code it vendors). LICENSE is Apache-2.0 or MIT when the text says so.
"""

import json
import os
import shutil
import sys


def vendored_licenses(package, licenses):
    """Copies the license files shipped beside code a package vendors (Sources/CNIOLLHTTP/LICENSE) as NAME.TARGET."""
    sources = os.path.join(package["path"], "Sources")
    for target in sorted(os.listdir(sources)) if os.path.isdir(sources) else []:
        for candidate in ("LICENSE", "LICENSE.txt", "COPYING"):
            path = os.path.join(sources, target, candidate)
            if os.path.isfile(path):
                shutil.copyfile(path, os.path.join(licenses, f"{package['identity']}.{target}"))


def license_of(package, licenses):
    for candidate in ("LICENSE.txt", "LICENSE", "LICENSE.md", "COPYING"):
        path = os.path.join(package["path"], candidate)
        if os.path.isfile(path):
            shutil.copyfile(path, os.path.join(licenses, package["identity"]))
            with open(path, errors="replace") as f:
                text = f.read()
            if "Apache License" in text and "Version 2.0" in text:
                return "Apache-2.0"
            if "Permission is hereby granted, free of charge" in text:
                return "MIT"
            return "see licenses/" + package["identity"]
    return "no license file found"


def main():
    licenses = sys.argv[1]
    lines = {}

    def walk(package):
        for dependency in package.get("dependencies", []):
            name = dependency["identity"]
            if name not in lines:
                kind = license_of(dependency, licenses)
                vendored_licenses(dependency, licenses)
                lines[name] = f" {name} {dependency['version']} ({dependency['url']}): {kind}"
                walk(dependency)

    walk(json.load(sys.stdin))
    print("\n".join(lines[name] for name in sorted(lines)))


if __name__ == "__main__":
    main()
