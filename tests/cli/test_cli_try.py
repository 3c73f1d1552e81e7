"""hookmux try: the package's own hooks on a payload file, with the trace."""
from __future__ import annotations

import json
import subprocess

from hookmux_testing import PYTHON, REPO, hermetic_env


def test_try_runs_the_shipped_manifest_on_the_example(tmp_path):
    result = subprocess.run(
        [PYTHON, "-m", "hookmux.cli", "try", "PreToolUse", str(REPO / "examples" / "pretooluse-bash-force-push.json")],
        capture_output=True, text=True, cwd=tmp_path, env=hermetic_env(tmp_path),
    )
    assert result.returncode == 0
    assert "== dispatcher: exit 0" in result.stdout
    assert "additionalContext" in result.stdout
    assert "hookmux: [0] contraindication/check  selected" in result.stdout
    assert not (tmp_path / "state").exists()  # try keeps its state in a throwaway folder


def test_try_with_a_manifest_of_ones_own(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "check.py").write_text(
        "import json\ndef main():\n    print(json.dumps({'additionalContext': 'mine says hi'}))\n")
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"version": 1, "hooks_root": str(tmp_path),
                                    "events": {"SessionStart": {"checks": [{"name": "mine", "script": "mine/check.py"}]}}}))
    payload = tmp_path / "p.json"
    payload.write_text(json.dumps({"hook_event_name": "SessionStart", "session_id": "s", "source": "startup"}))
    result = subprocess.run([PYTHON, "-m", "hookmux.cli", "try", "SessionStart", str(payload), "--manifest", str(manifest)],
                            capture_output=True, text=True, env=hermetic_env(tmp_path))
    assert result.returncode == 0
    assert "mine says hi" in result.stdout
