"""check_registry (used by `hookmux validate`) names every row the check would skip."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from hookmux_testing import HOOKS, PYTHON
from contraindication_cases import load_check
from hookmux.contraindications import check_registry

GOOD = {"id": "GOOD-1", "tool_pattern": "Bash", "input_pattern": r"\bdanger\b", "harm": "H.", "safe_alternative": "A."}


def write(tmp_path, document):
    path = tmp_path / "contraindications.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


@pytest.mark.parametrize(
    "row,problem",
    [
        (dict(GOOD, input_pattern="danger)"), "rows[0].input_pattern: unbalanced parenthesis at position 6"),
        (dict(GOOD, tool_pattern="(Bash"), "rows[0].tool_pattern: missing ), unterminated subpattern at position 0"),
        ({k: v for k, v in GOOD.items() if k != "harm"}, "rows[0].harm: missing"),
        (dict(GOOD, safe_alternative="  "), "rows[0].safe_alternative: must be a non-empty string"),
        (dict(GOOD, id=7), "rows[0].id: must be a non-empty string"),
        (dict(GOOD, id="lower"), "rows[0].id: must match"),
        (dict(GOOD, require_bg_active=True), "rows[0].require_bg_active: only false is supported"),
        (dict(GOOD, harn="typo"), "rows[0].harn: unknown key"),
        (dict(GOOD, tool_pattern="^Write$"), "rows[0].tool_pattern: matches none of Bash, PowerShell"),
        (dict(GOOD, input_pattern="x*"), "rows[0].input_pattern: matches the empty string"),
        (dict(GOOD, harm="h" * 601), "rows[0].harm: 601 characters"),
        ("not a row", "rows[0]: must be an object"),
    ],
)
def test_each_problem_is_named_with_its_place(tmp_path, row, problem):
    problems = check_registry(write(tmp_path, {"version": 1, "rows": [row]}))
    assert len(problems) == 1, problems
    assert problems[0].startswith("contraindications.json " + problem)


@pytest.mark.parametrize(
    "document,problem",
    [
        ("{not json", "contraindications.json: invalid JSON"),
        ("[]", "contraindications.json: must be an object with a rows list"),
        ({"version": 1, "rows": {}}, "contraindications.json rows: must be a list"),
        ({"version": 2, "rows": []}, "contraindications.json version: must be 1"),
    ],
)
def test_document_problems(tmp_path, document, problem):
    problems = check_registry(write(tmp_path, document))
    assert len(problems) == 1 and problems[0].startswith(problem), problems


def test_missing_file(tmp_path):
    assert check_registry(tmp_path / "contraindications.json")[0].startswith("contraindications.json: cannot read")


def test_duplicate_ids_and_false_require_bg_active(tmp_path):
    rows = [GOOD, dict(GOOD, require_bg_active=False), dict(GOOD, id="OTHER", require_bg_active=False)]
    assert check_registry(write(tmp_path, {"version": 1, "rows": rows})) == [
        "contraindications.json rows[1].id: duplicate of rows[0] (only the first is used)"
    ]


def test_every_row_the_check_skips_is_reported(tmp_path):
    rows = [
        GOOD,
        dict(GOOD, id="BAD-REGEX", input_pattern="(x"),
        dict(GOOD, id="BAD-TOOL", tool_pattern="[x"),
        dict(GOOD, id="BG", require_bg_active=True),
        dict(GOOD, id="x y"),
        {"id": "PARTIAL"},
        dict(GOOD, harm=""),
        GOOD,
        None,
    ]
    rows = [dict(row, **{"$comment": str(i)}) if isinstance(row, dict) else row for i, row in enumerate(rows)]
    path = write(tmp_path, {"version": 1, "rows": rows})
    check = load_check()
    loaded = check.matching_rows(check.load_rows(str(path)), "Bash", json.dumps({"command": "danger"}))
    used = {int(row["$comment"]) for row in loaded}
    flagged = {int(p.split("rows[")[1].split("]")[0]) for p in check_registry(path)}
    assert used == {0}
    assert flagged == set(range(1, len(rows)))


def test_hookmux_validate_reports_a_broken_registry(tmp_path):
    root = tmp_path / "hooks"
    shutil.copytree(HOOKS / "contraindication", root / "contraindication")
    (root / "contraindication" / "contraindications.json").write_text(
        json.dumps({"version": 1, "rows": [dict(GOOD, input_pattern="danger)")]}))
    manifest = json.loads((HOOKS / "_dispatch" / "manifest.json").read_text())
    manifest["hooks_root"] = str(root)
    manifest.pop("$schema", None)
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    result = subprocess.run([PYTHON, "-m", "hookmux.cli", "validate", str(path)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "contraindications.json rows[0].input_pattern: unbalanced parenthesis" in result.stdout + result.stderr


STRUCTURED = {"id": "RM-OUT", "program": "rm", "flags": {"all": ["-r|-R|--recursive"]},
              "args": {"any": ["path_outside_cwd"]}, "harm": "H.", "safe_alternative": "Use `rm -rf ./build`.",
              "examples": {"advise": ["rm -rf /etc"], "quiet": ["rm -rf ./dist"]}}


def test_a_good_structured_row_is_valid(tmp_path):
    assert check_registry(write(tmp_path, {"version": 1, "rows": [STRUCTURED]})) == []


@pytest.mark.parametrize("change, problem", [
    ({"examples": {"advise": ["rm -rf ./dist"], "quiet": ["ls"]}},
     "rows[0](id='RM-OUT').examples.advise[0]: 'rm -rf ./dist' does not advise RM-OUT"),
    ({"examples": {"advise": ["rm -rf /etc"], "quiet": ["ls", "sudo rm -fr ~"]}},
     "rows[0](id='RM-OUT').examples.quiet[1]: 'sudo rm -fr ~' advises RM-OUT"),
    ({"safe_alternative": "Prefer `rm -rf /srv/old` over this."},
     "rows[0](id='RM-OUT').safe_alternative: 'rm -rf /srv/old' triggers RM-OUT itself"),
    ({"flags": {"all": ["-r||-R"]}}, "rows[0].flags.all[0]: has an empty spelling"),
    ({"flags": {"some": ["-r"]}}, "rows[0].flags.some: unknown key"),
    ({"args": {"any": ["outside"]}}, "rows[0].args.any[0]: unknown condition 'outside'"),
    ({"program": []}, "rows[0].program: must be a non-empty string or list of strings"),
    ({"any_of": [{"flagz": {}}]}, "rows[0].any_of[0].flagz: unknown key"),
    ({"examples": {"advise": []}}, "rows[0].examples.advise: must be a non-empty list of commands"),
    ({"input_pattern": "rm"}, "rows[0].input_pattern: unknown key (a structured row has no input_pattern)"),
])
def test_structured_row_problems_are_named(tmp_path, change, problem):
    problems = check_registry(write(tmp_path, {"version": 1, "rows": [dict(STRUCTURED, **change)]}))
    assert any(p.startswith("contraindications.json " + problem) for p in problems), problems


def test_the_check_skips_a_structured_row_that_does_not_compile(tmp_path):
    check = load_check()
    bad = dict(STRUCTURED, id="BAD", flags={"all": []})
    path = write(tmp_path, {"version": 1, "rows": [bad, STRUCTURED]})
    rows = check.load_rows(str(path))
    assert [r["id"] for r in check.matching_call_rows(rows, "Bash", {"command": "rm -rf /etc"})] == ["RM-OUT"]
