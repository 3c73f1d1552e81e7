"""hooks/_common redact_text: tokens, passwords and home paths never reach output or state."""
from __future__ import annotations

import sys

import pytest

from hookmux_testing import HOOKS

sys.path.insert(0, str(HOOKS))
from _common import redact_text  # noqa: E402

SECRETS = [
    ("openai key sk-proj-AbCdEf0123456789xyzXYZ done", "sk-proj-AbCdEf0123456789xyzXYZ"),
    ("anthropic sk-ant-api03-abcdefghijklmnop_QRST", "sk-ant-api03-abcdefghijklmnop_QRST"),
    ("git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    ("GH_TOKEN=github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop"),
    ("aws AKIAIOSFODNN7EXAMPLE key", "AKIAIOSFODNN7EXAMPLE"),
    ('curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig" x', "eyJhbGciOiJIUzI1NiJ9.payload.sig"),
    ("header: bearer abcdef123456789", "abcdef123456789"),
    ("mysql --user=root password=hunter2 db", "hunter2"),
    ('DB_PASSWORD="correct horse battery" ./run', "correct horse battery"),
    ('{"api_key": "k-123456"}', "k-123456"),
    ("login --password s3cr3t!", "s3cr3t!"),
    ("slack xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaA"),
]


@pytest.mark.parametrize("text,secret", SECRETS)
def test_secret_is_removed(text, secret):
    redacted = redact_text(text)
    assert secret not in redacted
    assert "[REDACTED]" in redacted


@pytest.mark.parametrize(
    "text,expected",
    [
        ("/home/alice/project/app.py", "~/project/app.py"),
        ("see /Users/bob/Library and /root/.ssh/id", "see ~/Library and ~/.ssh/id"),
        ("C:\\Users\\carol\\repo", "~\\repo"),
        ("/opt/app/home/x stays", "/opt/app/home/x stays"),
    ],
)
def test_home_paths_become_tilde(text, expected):
    assert redact_text(text) == expected


def test_current_home_becomes_tilde(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    assert redact_text(f"open {tmp_path}/me/notes.txt, not {tmp_path}/meme") == f"open ~/notes.txt, not {tmp_path}/meme"


@pytest.mark.parametrize(
    "text",
    ["token_count: 5", "basic configuration steps", "git push --force origin main", "the password policy", "sk-short"],
)
def test_ordinary_text_is_unchanged(text):
    assert redact_text(text) == text


def test_max_chars_bounds_the_result_after_redaction():
    text = "x" * 30 + " sk-" + "a" * 40
    out = redact_text(text, 40)
    assert len(out) <= 40
    assert "aaaa" not in out
    assert out.endswith("...[truncated]")
    assert redact_text("abcdef", 3) == "abc"
    assert redact_text("short", 100) == "short"


def test_non_string_input_is_converted():
    assert redact_text(12345) == "12345"
