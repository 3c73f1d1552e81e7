"""Remove secrets and home paths from text before it is printed or stored."""
import os
import re

REDACTED = "[REDACTED]"
TRUNCATED = "...[truncated]"

_SECRET_ASSIGNMENT = (
    r"(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret)"
)

# (pattern, replacement), applied in order.
_RULES = (
    (r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)", REDACTED, re.S),
    (r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{16,}", REDACTED, 0),
    (r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})", REDACTED, 0),
    (r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])", REDACTED, 0),
    (r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}", REDACTED, 0),
    (r"(authorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token|digest)?\s*)[^\s\"',;]+", r"\1" + REDACTED, re.I),
    (r"(bearer\s+)[A-Za-z0-9._~+/=-]{8,}", r"\1" + REDACTED, re.I),
    (
        r"((?<![A-Za-z0-9])" + _SECRET_ASSIGNMENT + r"[\"']?\s*[:=]\s*)(\"[^\"]*\"|'[^']*'|[^\s\"',;&]+)",
        r"\1" + REDACTED,
        re.I,
    ),
    (r"(--(?:password|passwd|token|api-key|secret)[= ]\s*)(\"[^\"]*\"|'[^']*'|[^\s\"',;&]+)", r"\1" + REDACTED, re.I),
    (r"(?<![\w.~-])(?:/home|/Users)/[^/\s\"'`:;,]+", "~", 0),
    (r"(?<![\w.~-])/root(?=[/\s\"'`:;,]|\Z)", "~", 0),
    (r"(?<![\w.-])[A-Za-z]:(?:\\\\|\\|/)Users(?:\\\\|\\|/)[^\\/\s\"'`:;,]+", "~", re.I),
)
_compiled = []


def _rules():
    if not _compiled:
        _compiled.extend((re.compile(pattern, flags), replacement) for pattern, replacement, flags in _RULES)
    return _compiled


def redact_text(text, max_chars=None):
    """``text`` with API keys, tokens, passwords and absolute home paths replaced.

    Tokens become ``[REDACTED]``; ``/home/<user>``, ``/Users/<user>``, ``/root``,
    ``C:\\Users\\<user>`` and the current ``$HOME`` become ``~``. With
    ``max_chars`` the result is cut to at most that many characters after
    redaction, so a cut can never leave half a secret unrecognised.
    """
    if not isinstance(text, str):
        text = str(text)
    home = os.path.expanduser("~")
    if len(home) > 1 and os.path.isabs(home):
        text = re.sub(re.escape(home.rstrip("/\\")) + r"(?![\w.-])", "~", text)
    for pattern, replacement in _rules():
        text = pattern.sub(replacement, text)
    if max_chars is not None and len(text) > max_chars:
        max_chars = max(0, int(max_chars))
        if max_chars > len(TRUNCATED):
            text = text[: max_chars - len(TRUNCATED)] + TRUNCATED
        else:
            text = text[:max_chars]
    return text
