"""Where Gemini CLI has the hookmux extension, read from Gemini's own files (docs/e2e.md, "Gemini CLI
0.61.0", item 8).

    found(home=None, project=None) -> [GeminiExtension]
    install_warning(extensions, settings) -> str or None     # install's words when Gemini would run hookmux twice
    annotate_status(report, extensions)                      # status: where it is, and "runs twice"

Gemini runs an extension's hooks beside the ones in its ``settings.json`` and does not deduplicate
them, so hookmux installed both ways runs every hook twice. What the pinned binary (0.61.0) keeps:

- every extension is a folder of ``$GEMINI_CLI_HOME/.gemini/extensions/`` (``GEMINI_CLI_HOME``
  else the home folder; it moves ``settings.json`` too), holding ``.gemini-extension-install.json``
  ``{"source": ..., "type": ...}``: ``link`` (``gemini extensions link DIR``) runs the extension from
  ``source``, live; ``local``/``git``/``github-release`` (``extensions install``) from the copy in
  that folder. Its name is ``gemini-extension.json``'s ``name`` where it runs from;
- ``extensions/extension-enablement.json``: ``{name: {"overrides": [rule, ...]}}``, a rule a folder
  glob (``/home/u/*``: that folder and every one under it), ``!`` in front to turn it off; the last
  rule that matches the working folder (with a trailing ``/``) wins, none: on. ``extensions
  enable/disable [--scope user|workspace]`` write ``<home>/*`` and ``<cwd>/*``;
- an extension's hooks are ``<where it runs from>/hooks/hooks.json`` with ``${extensionPath}``
  (and ``${workspacePath}``, ``${/}``, ``${pathSeparator}``) put in by Gemini before it runs them.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

NAME = "hookmux"
INSTALL_FILE = ".gemini-extension-install.json"
CONFIG_FILE = "gemini-extension.json"
ENABLEMENT_FILE = "extension-enablement.json"
HOOKS_FILE = ("hooks", "hooks.json")
UNINSTALL = f"gemini extensions uninstall {NAME}"


def gemini_dir(home: os.PathLike | str | None = None, environ=None) -> Path:
    """``$GEMINI_CLI_HOME/.gemini``, else ``<home>/.gemini``: where Gemini keeps the user's settings
    and extensions."""
    environ = os.environ if environ is None else environ
    base = environ.get("GEMINI_CLI_HOME") or (str(home) if home else os.path.expanduser("~"))
    return Path(base) / ".gemini"


@dataclass
class GeminiExtension:
    folder: str  # its folder under ~/.gemini/extensions
    kind: str  # link, local, git, github-release ("" when the install file is missing)
    source: str | None
    root: str  # the folder Gemini runs it from: ``source`` for a link, else ``folder``
    enabled: bool  # for the project it was asked about
    enablement: str  # the file that says so

    @property
    def hooks_file(self) -> str:
        return os.path.join(self.root, *HOOKS_FILE)

    @property
    def problem(self) -> str | None:
        if not os.path.isfile(self.hooks_file):
            return (f"the hookmux extension runs from {self.root} ({self.how()}), which has no hooks/hooks.json: "
                    "Gemini runs none of its hooks, without a word")
        return None

    def how(self) -> str:
        return f"linked from {self.source}" if self.kind == "link" else f"installed in {self.folder}" + (
            f" from {self.source}" if self.source else "")

    def reinstall_hint(self) -> str:
        again = f"gemini extensions link {self.source}" if self.kind == "link" and self.source else \
            "gemini extensions install DIR (a hookmux checkout)"
        return f"`{UNINSTALL}`, then `{again}`"

    def as_dict(self) -> dict:
        return {"folder": self.folder, "kind": self.kind, "source": self.source, "root": self.root,
                "enabled": self.enabled, "enablement": self.enablement, "hooks_file": self.hooks_file,
                "problem": self.problem}


def _json(path: os.PathLike | str) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _rule_matches(rule: str, folder: str) -> bool:
    """Gemini's ``Override.matchesPath``: the rule as a glob, ``*`` after a ``/`` also taking the
    folder itself."""
    pattern = re.escape(rule).replace(r"\*", "*")
    pattern = re.sub(r"(/?)\*", lambda m: "(" + m.group(1) + ".*)?", pattern)
    return re.fullmatch(pattern, folder) is not None


def enabled(name: str, project: os.PathLike | str, enablement: dict) -> bool:
    """Is extension ``name`` on in ``project`` (Gemini's ``isEnabled``: the last matching rule wins)."""
    entry = enablement.get(name)
    rules = entry.get("overrides") if isinstance(entry, dict) else None
    folder = str(project).replace("\\", "/")
    folder = ("" if folder.startswith("/") else "/") + folder.rstrip("/") + "/"
    state = True
    for rule in rules if isinstance(rules, list) else ():
        if not isinstance(rule, str):
            continue
        off = rule.startswith("!")
        base = rule[1:] if off else rule
        if _rule_matches(base, folder):
            state = not off
    return state


def found(home: os.PathLike | str | None = None, project: os.PathLike | str | None = None,
          environ=None) -> list[GeminiExtension]:
    """The hookmux extension in Gemini's extensions folder (at most one: Gemini refuses a second of
    one name), with whether it is on for ``project`` (default: the working folder)."""
    folder = gemini_dir(home, environ) / "extensions"
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    enablement_file = folder / ENABLEMENT_FILE
    enablement = _json(enablement_file)
    out = []
    for entry in names:
        path = folder / entry
        if not path.is_dir():
            continue
        meta = _json(path / INSTALL_FILE)
        kind = meta.get("type") if isinstance(meta.get("type"), str) else ""
        source = meta.get("source") if isinstance(meta.get("source"), str) else None
        root = source if kind == "link" and source else str(path)
        name = _json(Path(root) / CONFIG_FILE).get("name")
        if not isinstance(name, str) and kind == "link" and entry.lower() == NAME:
            name = NAME  # the linked folder is gone: Gemini names the link folder after the extension
        if not isinstance(name, str) or name.lower() != NAME:
            continue
        out.append(GeminiExtension(str(path), kind, source, root,
                                   enabled(name, project or os.getcwd(), enablement), str(enablement_file)))
    return out


def install_warning(extensions: list[GeminiExtension], settings: os.PathLike | str) -> str | None:
    """``hookmux install --gemini-home``'s warning when Gemini also has the extension (not a
    refusal: the extension may be off where the user works, or about to go)."""
    if not extensions:
        return None
    item = extensions[0]
    state = "on" if item.enabled else "off for this folder, on wherever it is enabled"
    return (f"Gemini CLI also has the hookmux extension ({item.how()}; {state}). With the entries in {settings} "
            f"too, Gemini runs every hookmux hook twice (it does not deduplicate them). Keep one: `{UNINSTALL}` "
            f"(the settings install stays), or take the settings entries back out (`hookmux uninstall`, then "
            f"`hookmux install` again without --gemini-home)")


def annotate_status(report: dict, extensions: list[GeminiExtension]) -> None:
    """``hookmux status``: add ``gemini_extension`` and its problems: a hooks file that is gone, and
    Gemini wired both ways (the extension on here, and hookmux's entries in a Gemini settings file)."""
    report["gemini_extension"] = [item.as_dict() for item in extensions]
    if extensions and not report.get("installed"):  # the extension alone needs no settings install
        report["problems"] = [problem for problem in report["problems"] if "hookmux is not installed here" not in problem]
    for item in extensions:
        if item.problem:
            report["problems"].append(f"{item.problem}; run {item.reinstall_hint()}")
        wired = [(wiring["file"], len(wiring.get("entries", []))) for wiring in report.get("wired", [])
                 if wiring.get("host") == "gemini" and wiring.get("entries")]
        if item.enabled and wired:
            files = ", ".join(f"{file} ({count} entr{'y' if count == 1 else 'ies'})" for file, count in wired)
            report["problems"].append(
                f"hookmux runs twice on gemini: the extension ({item.how()}) and the settings install in {files}; "
                f"keep one: `{UNINSTALL}` (keeps the settings install), or `hookmux uninstall` and `hookmux install` "
                f"again without --gemini-home (keeps the extension)")


def render_status(report: dict) -> str:
    lines = [f"gemini extension: hookmux {item['kind'] or '?'} ({item['root']}), "
             f"{'on' if item['enabled'] else 'off'} here ({item['enablement']})"
             for item in report.get("gemini_extension", [])]
    return "\n".join(lines) + "\n" if lines else ""
