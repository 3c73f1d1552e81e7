"""The classifier on real-world hook shapes: each verdict and a word of its reason."""
from __future__ import annotations

import pytest

from hook_corpus import CORPUS
from hookmux.adopt.analysis import ADOPTABLE, NOT_ADOPTABLE, classify_file, classify_source


@pytest.mark.parametrize("shape", CORPUS, ids=lambda s: s.name)
def test_corpus_verdict(shape):
    verdict = classify_source(shape.source, shape.event)
    assert verdict.kind == shape.kind, verdict
    assert shape.reason.lower() in verdict.reason.lower() or any(
        shape.reason.lower() in f.lower() for f in verdict.findings), verdict
    if shape.kind == ADOPTABLE:
        assert verdict.call == shape.call


def test_corpus_covers_every_verdict_and_both_dialects():
    kinds = {s.kind for s in CORPUS}
    assert kinds == {"adoptable", "blocker", "not adoptable"}
    assert any(s.event == "preToolUse" for s in CORPUS) and any(s.event == "PreToolUse" for s in CORPUS)


def test_sibling_helper_imported_lazily_is_not_adoptable(tmp_path):
    (tmp_path / "helper.py").write_text("X = 1\n")
    top = tmp_path / "top.py"
    top.write_text("import json\nimport helper\n\ndef main():\n    print(json.dumps({'additionalContext': "
                   "str(helper.X)}))\n\nif __name__ == '__main__':\n    main()\n")
    lazy = tmp_path / "lazy.py"
    lazy.write_text("def main():\n    import helper\n\nif __name__ == '__main__':\n    main()\n")
    assert classify_file(top, "PreToolUse").kind == ADOPTABLE
    verdict = classify_file(lazy, "PreToolUse")
    assert verdict.kind == NOT_ADOPTABLE and "sys.path" in verdict.reason


def test_missing_file_is_not_adoptable(tmp_path):
    verdict = classify_file(tmp_path / "gone.py", "PreToolUse")
    assert verdict.kind == NOT_ADOPTABLE and "cannot read" in verdict.reason
