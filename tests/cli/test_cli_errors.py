"""One error path: expected errors print `hookmux: ...` with exit 1, bugs `hookmux: internal error: ...` with 3."""
from __future__ import annotations

import subprocess

from hookmux_testing import PYTHON, REPO


def hookmux(*args: str, code: str | None = None):
    argv = [PYTHON, "-c", code, *args] if code else [PYTHON, "-m", "hookmux.cli", *args]
    return subprocess.run(argv, capture_output=True, text=True, cwd=REPO)


def test_try_on_a_missing_payload_prints_one_clean_line(tmp_path):
    missing = tmp_path / "missing.json"
    result = hookmux("try", "PreToolUse", str(missing))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == f"hookmux: {missing}: cannot read the payload: No such file or directory\n"


def test_try_on_a_missing_manifest_prints_one_clean_line(tmp_path):
    result = hookmux("try", "PreToolUse", str(REPO / "examples" / "pretooluse-bash-force-push.json"),
                     "--manifest", str(tmp_path / "absent.json"))
    assert result.returncode == 1
    assert result.stderr == f"hookmux: {tmp_path / 'absent.json'}: no such manifest\n"


RAISE = """
import sys
from hookmux.commands import status
def broken(args):
    raise {exc}
status.run = broken
from hookmux import cli
sys.exit(cli.main(["status"]))
"""


def test_a_hookmux_error_anywhere_is_one_line_and_exit_1():
    result = hookmux(code=RAISE.format(exc="__import__('hookmux.errors').errors.HookmuxError('settings.json: refused')"))
    assert (result.returncode, result.stderr) == (1, "hookmux: settings.json: refused\n")


def test_a_bug_is_an_internal_error_with_its_own_exit_code_and_no_traceback():
    result = hookmux(code=RAISE.format(exc="KeyError('wired')"))
    assert result.returncode == 3
    assert result.stderr == "hookmux: internal error: KeyError: 'wired'\n"
    assert "Traceback" not in result.stdout + result.stderr


def test_installer_errors_share_the_root():
    from hookmux.errors import HookmuxError
    from hookmux.installer.jsonfile import JsonFileError
    from hookmux.errors import InstallError
    from hookmux.validation import ManifestError

    assert all(issubclass(cls, HookmuxError) for cls in (JsonFileError, InstallError, ManifestError))
