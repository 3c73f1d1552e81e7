"""The contraindication check loaded once in-process for the fuzz suite (a private module name)."""
from __future__ import annotations

import sys
from importlib.util import module_from_spec, spec_from_file_location

from hookmux_testing import HOOKS

_LOADED = []


def load_check_for_fuzz():
    if not _LOADED:
        if str(HOOKS) not in sys.path:
            sys.path.insert(0, str(HOOKS))
        spec = spec_from_file_location("hookmux_fuzz_contraindication_check", HOOKS / "contraindication" / "check.py")
        module = module_from_spec(spec)
        spec.loader.exec_module(module)
        _LOADED.append(module)
    return _LOADED[0]
