"""The issue templates (.github/ISSUE_TEMPLATE/): one per kind of report, each asking for the two
outputs a maintainer needs first, and naming commands the CLI really has."""
from __future__ import annotations

from hookmux.cli import build_parser
from hookmux_testing import REPO

FOLDER = REPO / ".github" / "ISSUE_TEMPLATE"
KINDS = {"false-advisory.md", "missed-advisory.md", "false-block.md", "new-hazard.md"}


def front_matter(text: str) -> dict[str, str]:
    assert text.startswith("---\n"), "a template starts with its front matter"
    head = text[4:text.index("\n---\n", 4)]
    return dict(line.split(": ", 1) for line in head.splitlines())


def test_one_template_per_kind_of_report():
    assert KINDS <= {path.name for path in FOLDER.glob("*.md")}
    names = set()
    for name in KINDS:
        meta = front_matter((FOLDER / name).read_text())
        assert set(meta) == {"name", "about", "title", "labels"}, name
        names.add(meta["name"])
    assert len(names) == len(KINDS)


def test_each_asks_for_explain_and_doctor_json():
    for name in KINDS:
        text = (FOLDER / name).read_text()
        assert "`hookmux explain '<the command>' --json`" in text, name
        assert "`hookmux doctor --json`" in text, name
        assert "publish" in text, f"{name} should ask to trim what the reporter would not publish"


def test_doctor_json_is_a_real_command_line():
    args = build_parser().parse_args(["doctor", "--json"])
    assert args.json is True
