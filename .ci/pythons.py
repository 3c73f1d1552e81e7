"""Print the oldest and the newest supported CPython on this machine, one `VERSION PATH` a line.

Supported: a final CPython release at or above pyproject's `requires-python` floor that can
make a venv. Candidates: $HOOKMUX_CI_PYTHONS (space-separated, replaces the search), else
`python3.N` on PATH and, when pyenv is installed, every `$(pyenv root)/versions/*/bin/python3`.
Each is asked for its version (pyenv shims of versions not selected fail and are dropped).
Exits 1 naming what was found when fewer than two minor versions are usable.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

PROBE = (
    "import sys, venv, ensurepip; v = sys.version_info; "
    "print(sys.implementation.name, v.releaselevel, v.major, v.minor, v.micro)"
)


def floor():
    text = open(os.path.join(os.path.dirname(__file__), "..", "pyproject.toml")).read()
    found = re.search(r'^requires-python\s*=\s*">=\s*(\d+)\.(\d+)', text, re.M)
    if not found:
        sys.exit("pyproject.toml: no requires-python = \">=X.Y\" floor")
    return int(found.group(1)), int(found.group(2))


def candidates(low):
    listed = os.environ.get("HOOKMUX_CI_PYTHONS", "").split()
    if listed:
        return listed
    found = [shutil.which("python%d.%d" % (low[0], minor)) for minor in range(low[1], 30)]
    pyenv = shutil.which("pyenv")
    if pyenv:
        root = subprocess.run([pyenv, "root"], capture_output=True, text=True).stdout.strip()
        if root:
            found += sorted(glob.glob(os.path.join(root, "versions", "*", "bin", "python3")))
    return [path for path in found if path]


def probe(path):
    try:
        out = subprocess.run([path, "-S", "-c", PROBE], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    fields = out.stdout.split()
    if out.returncode != 0 or len(fields) != 5 or fields[:2] != ["cpython", "final"]:
        return None
    return tuple(int(n) for n in fields[2:])


def main():
    low = floor()
    by_minor = {}
    seen = []
    for path in candidates(low):
        version = probe(path)
        if not version:
            seen.append("%s: unusable" % path)
        elif version[:2] < low:
            seen.append("%s: %s, below the floor" % (path, ".".join(map(str, version))))
        else:
            seen.append("%s: %s" % (path, ".".join(map(str, version))))
            by_minor.setdefault(version[:2], (version, path))
    if len(by_minor) < 2:
        sys.stderr.write(
            "need two supported CPython versions (>= %d.%d) for the cross-version runs, found %d:\n  %s\n"
            "Install another (e.g. with pyenv) or list interpreters in HOOKMUX_CI_PYTHONS.\n"
            % (low[0], low[1], len(by_minor), "\n  ".join(seen) or "no candidate"))
        return 1
    for minor in (min(by_minor), max(by_minor)):
        version, path = by_minor[minor]
        print("%s %s" % (".".join(map(str, version)), path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
