"""Bad input, bad checks and bad manifests: the host's call always proceeds."""
from __future__ import annotations

import json
import subprocess
import time

import pytest
from hookmux_testing import DISPATCH, PYTHON, REPO, run_hook
from dispatch_helpers import bash_payload, context_of, dispatch, emitter, manifest, write_check, write_manifest

RAW_ECHO = '''
import json, sys
def main():
    data = sys.stdin.read()
    print(json.dumps({"additionalContext": "raw:%d" % len(data)}))
'''


def run_subprocess(tmp_path, data: dict, stdin: bytes, *args: str, env=None):
    path = write_manifest(tmp_path / "manifest.json", data)
    return run_hook(DISPATCH, ["--manifest", str(path), *args], stdin, env or {})


def assert_clean(result):
    assert result.returncode == 0
    assert b"Traceback" not in result.stdout and b"Traceback" not in result.stderr


# ------------------------------------------------------------------ stdin


@pytest.mark.parametrize("stdin", ["", "not json {", "[1, 2, 3]", "null", "42", '"a string"'])
def test_bad_stdin_runs_only_rows_without_matcher_with_the_raw_text(tmp_path, stdin):
    rows = [{"script": write_check(tmp_path, "raw/check.py", RAW_ECHO)},
            {"script": emitter(tmp_path, "m/check.py", "matched"), "matcher": ".*"}]
    out = dispatch.run("PreToolUse", stdin, manifest=manifest(tmp_path, rows))
    assert context_of(out) == "raw:%d" % len(stdin)


@pytest.mark.parametrize("stdin", [b"", b"not json {", b"[1, 2]", b"\xff\xfe\xfa{\x80}", b'{"tool_name": "Bash\xff"}'])
def test_bad_stdin_through_the_real_process(tmp_path, stdin):
    rows = [{"script": write_check(tmp_path, "raw/check.py", RAW_ECHO)}]
    result = run_subprocess(tmp_path, manifest(tmp_path, rows), stdin, "PreToolUse")
    assert_clean(result)
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"].startswith("raw:")


def test_invalid_utf8_in_a_valid_payload_still_selects(tmp_path):
    rows = [{"script": emitter(tmp_path, "m/check.py", "bash-row"), "matcher": "^Bash$"}]
    stdin = b'{"tool_name": "Bash", "tool_input": {"command": "echo \xff\xfe"}}'
    result = run_subprocess(tmp_path, manifest(tmp_path, rows), stdin, "PreToolUse")
    assert_clean(result)
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "bash-row"


def test_five_megabyte_payload(tmp_path):
    rows = [{"script": write_check(tmp_path, "raw/check.py", RAW_ECHO), "matcher": "Bash"}]
    payload = bash_payload("x" * (5 * 1024 * 1024)).encode()
    result = run_subprocess(tmp_path, manifest(tmp_path, rows), payload, "PreToolUse")
    assert_clean(result)
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "raw:%d" % len(payload)


# ------------------------------------------------------------------ misbehaving checks

BAD_CHECKS = {
    "raises": "def main():\n    raise RuntimeError('boom')\n",
    "exits": "import sys\ndef main():\n    sys.exit(2)\n",
    "noise": "def main():\n    print('hello there')\n    print('{not json')\n    print('[1]')\n",
    "no-main": "VALUE = 1\n",
    "syntax": "def main(:\n    pass\n",
    "import-error": "import a_module_that_does_not_exist_anywhere\ndef main():\n    pass\n",
    "base-exception": "def main():\n    raise KeyboardInterrupt\n",
    "main-not-callable": "main = 3\n",
}


@pytest.mark.parametrize("kind", sorted(BAD_CHECKS))
def test_a_bad_check_is_contained_and_others_still_emit(tmp_path, kind):
    rows = [{"name": kind, "script": write_check(tmp_path, "bad/check.py", BAD_CHECKS[kind])},
            {"name": "good", "script": emitter(tmp_path, "good/check.py", "still here")}]
    lines = []
    out = dispatch.run("PreToolUse", bash_payload(), manifest=manifest(tmp_path, rows), trace=lines.append)
    assert context_of(out) == "still here"
    assert len(lines) == 2 and f"[0] {kind}" in lines[0]


@pytest.mark.parametrize("kind", sorted(BAD_CHECKS))
def test_a_bad_check_through_the_real_process(tmp_path, kind):
    rows = [{"script": write_check(tmp_path, "bad/check.py", BAD_CHECKS[kind])},
            {"script": emitter(tmp_path, "good/check.py", "still here")}]
    result = run_subprocess(tmp_path, manifest(tmp_path, rows), bash_payload().encode(), "--trace", "PreToolUse")
    assert_clean(result)
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "still here"
    assert result.stderr.decode().count("hookmux: [") == 2


def test_check_sleeping_past_its_timeout_is_abandoned(tmp_path):
    slow = write_check(tmp_path, "slow/check.py", '''
        import json, time
        def main():
            time.sleep(30)
            print(json.dumps({"additionalContext": "too late"}))
    ''')
    rows = [{"name": "slow", "script": slow, "timeout": 1},
            {"name": "fast", "script": emitter(tmp_path, "fast/check.py", "in time"), "timeout": 3}]
    began = time.monotonic()
    result = run_subprocess(tmp_path, manifest(tmp_path, rows), bash_payload().encode(), "--trace", "PreToolUse")
    elapsed = time.monotonic() - began
    assert_clean(result)
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "in time"
    assert "[0] slow  selected" in result.stderr.decode() and "timeout" in result.stderr.decode()
    assert elapsed < 25  # bounded by the largest timeout, never by the sleeping thread


def test_output_after_its_own_timeout_does_not_count(tmp_path):
    late = write_check(tmp_path, "late/check.py", '''
        import json, time
        def main():
            time.sleep(1.5)
            print(json.dumps({"additionalContext": "late"}))
    ''')
    rows = [{"script": late, "timeout": 0.5},
            {"script": write_check(tmp_path, "long/check.py", "import time\ndef main():\n    time.sleep(3)\n"), "timeout": 4}]
    assert dispatch.run("PreToolUse", bash_payload(), manifest=manifest(tmp_path, rows)) == ""


def test_hanging_import_is_abandoned(tmp_path):
    hang = write_check(tmp_path, "hang/check.py", "import time\ntime.sleep(30)\ndef main():\n    pass\n")
    rows = [{"script": hang, "timeout": 1}]
    began = time.monotonic()
    result = run_subprocess(tmp_path, manifest(tmp_path, rows), bash_payload().encode(), "--trace", "PreToolUse")
    assert_clean(result)
    assert result.stdout == b"" and "import timed out" in result.stderr.decode()
    assert time.monotonic() - began < 20


def test_two_json_lines_both_count(tmp_path):
    script = write_check(tmp_path, "two/check.py", '''
        import json
        def main():
            print(json.dumps({"additionalContext": "first"}))
            print("noise between")
            print(json.dumps({"hookSpecificOutput": {"additionalContext": "second"}}))
            print(json.dumps({"other": "ignored"}))
    ''')
    out = dispatch.run("PreToolUse", bash_payload(), manifest=manifest(tmp_path, [{"script": script}]))
    assert context_of(out) == "first\n\nsecond"


def test_one_megabyte_of_output(tmp_path):
    script = write_check(tmp_path, "big/check.py", '''
        import json
        def main():
            print("x" * (1024 * 1024))
            print(json.dumps({"additionalContext": "after the flood"}))
    ''')
    rows = [{"script": script}, {"script": emitter(tmp_path, "ok/check.py", "ok")}]
    result = run_subprocess(tmp_path, manifest(tmp_path, rows), bash_payload().encode(), "PreToolUse")
    assert_clean(result)
    assert len(result.stdout.splitlines()) == 1
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context == "ok"  # the flood filled the check's capture; its later line is dropped


def test_big_context_is_capped_in_the_real_process(tmp_path):
    script = write_check(tmp_path, "big/check.py", '''
        import json
        def main():
            print(json.dumps({"additionalContext": "y" * 500000}))
    ''')
    result = run_subprocess(tmp_path, manifest(tmp_path, [{"script": script}]), bash_payload().encode(), "PreToolUse")
    assert_clean(result)
    assert len(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]) == 10_000


def test_check_imports_a_sibling_helper(tmp_path):
    write_check(tmp_path, "sib/helper_rules.py", "RULE = 'from-sibling'\n")
    script = write_check(tmp_path, "sib/check.py", '''
        import json
        from helper_rules import RULE
        def main():
            print(json.dumps({"additionalContext": RULE}))
    ''')
    result = run_subprocess(tmp_path, manifest(tmp_path, [{"script": script}]), bash_payload().encode(), "PreToolUse")
    assert_clean(result)
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "from-sibling"


def test_same_named_helpers_without_isolate_each_get_their_own(tmp_path):
    for name in ("one", "two"):
        write_check(tmp_path, f"{name}/rules.py", f"WHO = {name!r}\n")
        write_check(tmp_path, f"{name}/check.py", '''
            import json, rules
            def main():
                print(json.dumps({"additionalContext": rules.WHO}))
        ''')
    rows = [{"script": "one/check.py"}, {"script": "two/check.py"}]
    result = run_subprocess(tmp_path, manifest(tmp_path, rows), bash_payload().encode(), "PreToolUse")
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "one\n\ntwo"


def test_check_named_like_a_stdlib_module_does_not_shadow_it(tmp_path):
    write_check(tmp_path, "json/json.py", "import json\ndef main():\n    print(json.dumps({'additionalContext': 'real json'}))\n")
    result = run_subprocess(tmp_path, manifest(tmp_path, [{"script": "json/json.py"}]), bash_payload().encode(), "PreToolUse")
    assert_clean(result)
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "real json"


def test_missing_script_row_is_skipped(tmp_path):
    rows = [{"script": "nowhere/check.py"}, {"script": emitter(tmp_path, "ok/check.py", "present")}]
    result = run_subprocess(tmp_path, manifest(tmp_path, rows), bash_payload().encode(), "--trace", "PreToolUse")
    assert_clean(result)
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "present"
    assert "import error FileNotFoundError" in result.stderr.decode()


# ------------------------------------------------------------------ bad manifests


@pytest.mark.parametrize("text", ["{not json", "[]", '{"version": 1}', '{"version": 1, "hooks_root": "/x", "events": []}', ""])
def test_invalid_manifest_file_is_silent_and_exits_zero(tmp_path, text):
    path = tmp_path / "manifest.json"
    path.write_text(text)
    result = run_hook(DISPATCH, ["--manifest", str(path), "PreToolUse"], bash_payload().encode(), {})
    assert_clean(result)
    assert result.stdout == b"" and result.stderr == b""


def test_missing_manifest_file_is_silent(tmp_path):
    result = run_hook(DISPATCH, ["--manifest", str(tmp_path / "absent.json"), "PreToolUse"], b"{}", {})
    assert_clean(result)
    assert result.stdout == b""


def test_invalid_manifest_makes_validate_fail_naming_the_place(tmp_path):
    emitter(tmp_path, "a/check.py", "x")
    data = manifest(tmp_path, [{"script": "a/check.py", "matcher": "Bash("}, {"script": "a/check.py", "timeout": "slow"}])
    path = write_manifest(tmp_path / "manifest.json", data)
    result = subprocess.run([PYTHON, "-m", "hookmux.cli", "validate", str(path)], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 1
    assert "events.PreToolUse.checks[1](name='a/check').timeout: 'slow' should be a number" in result.stdout
