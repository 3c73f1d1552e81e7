"""Matcher facts: which tool names a matcher reaches on which host, how a settings matcher is
widened, and how one is said in Copilot's, Codex's, Gemini's, Cursor's and Qwen Code's own files.

Four spellings of "which tools":

- a *settings matcher* (an event's ``settings_matcher``; Claude Code's rule, which Copilot's
  loader of a Claude-format settings file and Codex follow too): ``*`` or empty is every tool,
  letters, digits, ``_`` and ``|`` are exact names, anything else is a regex searched;
- a *row matcher* (a manifest row's ``matcher``): ``re.search`` over the tool names as the
  dispatcher sees them, which are Claude Code's (Copilot's ``bash`` arrives as ``Bash``);
- *Copilot's own* matcher (its ``hookmux.json``): a regex anchored at both ends, over
  Copilot's lower-case names;
- *Codex's* matcher: exact Codex tool names.

The tool and event tables are the runtime's (``hooks/_common/hosts.py``); this module reads
them and owns only the rules.
"""
from __future__ import annotations

import re

from hookmux import resources

_hosts = resources.runtime("hosts")
# Tool names as the dispatcher sees them, on every host (Copilot's and Codex's after the
# dispatcher maps bash->Bash, spawn_agent->Agent, ...; other names are kept as they are).
KNOWN_TOOLS = tuple(dict.fromkeys(name for host in _hosts.HOSTS for name in _hosts.KNOWN_TOOLS[host]))
CLAUDE_TOOLS = _hosts.KNOWN_TOOLS[_hosts.CLAUDE]
# Copilot's own tool names -> the dispatcher's, as Copilot's loader of a Claude-format
# settings file matches them.
COPILOT_TOOLS = _hosts.TOOLS[_hosts.COPILOT]
TOOL_EVENTS = _hosts.TOOL_EVENTS
CODEX_TOOL_EVENTS = ("PreToolUse", "PermissionRequest", "PostToolUse")  # Codex matches these on the tool name
_SIMPLE = re.compile(r"[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*")


def _codex_tools() -> dict[str, tuple[str, ...]]:
    """Codex's tool name as hooks see it -> the names a settings matcher may select it by."""
    canonical = {name: _hosts.TOOLS[_hosts.CODEX].get(name, name) for name in ("Bash", "apply_patch", "spawn_agent")}
    aliases = _hosts.TOOL_ALIASES[_hosts.CODEX]
    return {native: (native, name, *aliases.get(name, ())) for native, name in canonical.items()}


CODEX_TOOLS = _codex_tools()
GEMINI_TOOL_EVENTS = ("BeforeTool", "AfterTool")  # Gemini matches these on the tool name
GEMINI_NO_MATCHER_EVENTS = ("BeforeAgent", "AfterAgent")  # and ignores a matcher on these
# Gemini's tool name -> the names a settings matcher may select it by.
GEMINI_TOOLS = {native: (native, canonical) for native, canonical in _hosts.TOOLS[_hosts.GEMINI].items()}
CURSOR_TOOL_EVENTS = ("preToolUse", "postToolUse", "postToolUseFailure")  # Cursor matches these on the tool name
# Qwen Code matches these on the tool name (a regex); the others take none or another subject.
QWEN_TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest")
QWEN_TOOLS = {native: (native, canonical) for native, canonical in _hosts.TOOLS[_hosts.QWEN].items()}
CURSOR_TOOLS = {native: (native, _hosts.TOOLS[_hosts.CURSOR].get(native, native)) for native in _hosts.CURSOR_TOOL_NAMES}


def every_tool(matcher) -> bool:
    """No matcher, an empty one or ``*``: every tool, on every host."""
    return matcher in (None, "", "*")


def simple(matcher: str) -> bool:
    """A list of exact names (``Bash|Edit``) under the settings-matcher rule."""
    return bool(_SIMPLE.fullmatch(matcher))


def _host_name(host) -> str:
    """A host's name, given the name or a ``wiring_files.Host``."""
    return getattr(host, "name", host)


def copilot_names(tool: str) -> list[str]:
    """Copilot's own names for a dispatcher tool name (``Bash`` -> ``bash``)."""
    return [raw for raw, canonical in COPILOT_TOOLS.items() if canonical == tool]


def copilot_name(tool: str) -> str:
    """The name a Copilot matcher sees for a dispatcher tool name (itself when unmapped)."""
    return (copilot_names(tool) or [tool])[-1]


# ---------------------------------------------------------------- what a matcher selects


def settings_catches(settings_matcher: str | None, tool: str) -> bool:
    """Claude Code's matcher rule: "*"/empty = all, plain names = exact, else a regex."""
    if not settings_matcher or settings_matcher == "*":
        return True
    if simple(settings_matcher):
        return tool in settings_matcher.split("|")
    try:
        return re.search(settings_matcher, tool) is not None
    except re.error:
        return False


def host_catches(host, matcher: str | None, tool: str) -> bool:
    """Does the host's own matcher select ``tool`` (in the host's own spelling)?"""
    if _host_name(host) == _hosts.CLAUDE:
        return settings_catches(matcher, tool)
    if every_tool(matcher):
        return True
    try:
        return re.fullmatch(matcher, tool) is not None
    except re.error:
        return False


def tools_of(row_matcher: str | None) -> list[str]:
    """The known tool names (as the dispatcher sees them) a row's matcher selects."""
    try:
        pattern = re.compile(row_matcher)
    except (re.error, TypeError):
        return []
    return [t for t in KNOWN_TOOLS if pattern.search(t)]


def _copilot_canonical(copilot_matcher: str) -> list[str]:
    """The dispatcher names of the Copilot tools Copilot's own (anchored) matcher selects."""
    pattern = re.compile(copilot_matcher)
    return [canonical for raw, canonical in COPILOT_TOOLS.items() if pattern.fullmatch(raw)]


def _natives(settings_matcher: str | None, names_of: dict[str, tuple[str, ...]]) -> list[str] | None:
    """The native tool names a settings matcher's regex finds in any of their names;
    None for every tool, or a matcher that is not a regex."""
    if every_tool(settings_matcher):
        return None
    try:
        pattern = re.compile(settings_matcher)
    except re.error:
        return None
    return [native for native, names in names_of.items() if any(pattern.search(name) for name in names)]


# ---------------------------------------------------------------- the MCP shell tools


def _mcp_name_pattern(name: str) -> str:
    """``run_command`` as the regex of its spellings: ``run_command``, ``run-command``,
    ``runCommand`` (hosts' matchers are case-sensitive JavaScript or Rust regexes)."""
    first, *rest = name.split("_")
    return first + "".join("[-_]?[%s%s]%s" % (part[0], part[0].upper(), part[1:]) for part in rest)


def mcp_shell_matcher(host) -> str:
    """The regex (anchored) selecting the MCP tools that run a shell command on ``host``, in its
    spelling of an MCP tool's name (``hosts.MCP_TOOL_NAMES``, ``hosts.MCP_SHELL_TOOLS``): Claude
    Code and Codex ``^mcp__.+__(?:run|exec|…)$``, Gemini ``^mcp_.+_(?:run|exec|…)$``."""
    prefix, separator = _hosts.MCP_TOOL_NAMES[_host_name(host)]
    names = "|".join(_mcp_name_pattern(name) for name in _hosts.MCP_SHELL_TOOLS)
    return "^%s.+%s(?:%s)$" % (re.escape(prefix), re.escape(separator), names)


def with_mcp_shells(host, names: str) -> str:
    """A gate matcher for exact tool ``names`` (``Bash|apply_patch``) and the host's MCP shell
    tools: ``^(?:Bash|apply_patch)$|^mcp__.+__(?:…)$`` (the same set under Claude Code's, Codex's
    and Gemini's matcher rules: a regex, searched)."""
    exact = names if names.startswith("^") else "^(?:" + names + ")$"
    return exact + "|" + mcp_shell_matcher(host)


# ---------------------------------------------------------------- one matcher in another's terms


def copilot_matcher(settings_matcher: str | None) -> str | None:
    """Copilot matches its own lower-case tool names (anchored); the dispatcher maps them to
    Claude Code names. Keep every Copilot tool whose mapped name the settings matcher selects,
    and the matcher itself for tools the map leaves unchanged."""
    names = _natives(settings_matcher, {raw: (canonical,) for raw, canonical in COPILOT_TOOLS.items()})
    if names is None:
        return None
    return "(?:" + "|".join([*names, settings_matcher]) + ")"


def codex_matcher(settings_matcher: str | None, event: str) -> str | None | bool:
    """The Codex matcher for a manifest ``settings_matcher``: exact Codex tool names, None for
    every tool, False when the matcher selects no tool Codex has (the entry is left out)."""
    if event not in CODEX_TOOL_EVENTS:
        return None if event in ("UserPromptSubmit", "Stop") else settings_matcher
    names = _natives(settings_matcher, CODEX_TOOLS)
    if names is None:
        return None
    return "|".join(names) if names else False


def gemini_matcher(settings_matcher: str | None, event: str) -> str | None | bool:
    """The Gemini matcher (an unanchored JavaScript regex over Gemini's own tool names) for a
    manifest ``settings_matcher``: the Gemini tools whose name or canonical name it selects,
    anchored; None for every tool or an event without a matcher, False when it selects no tool
    Gemini has (the entry is left out). ``event`` is Gemini's name."""
    if event in GEMINI_NO_MATCHER_EVENTS:
        return None
    if event not in GEMINI_TOOL_EVENTS:
        return settings_matcher or None
    names = _natives(settings_matcher, GEMINI_TOOLS)
    if names is None:
        return None
    return "^(?:" + "|".join(names) + ")$" if names else False


def cursor_matcher(settings_matcher: str | None, event: str) -> str | None | bool:
    """The Cursor matcher (``Shell|Write``: its own tool names) for a manifest ``settings_matcher``:
    the Cursor tools whose name or canonical name it selects; None for every tool or an event
    without a tool, False when it selects no tool Cursor has (the entry is left out). ``event``
    is Cursor's name."""
    if event not in CURSOR_TOOL_EVENTS:
        return None
    names = _natives(settings_matcher, CURSOR_TOOLS)
    if names is None:
        return None
    return "|".join(names) if names else False


def qwen_matcher(settings_matcher: str | None, event: str) -> str | None | bool:
    """The Qwen Code matcher (a regex over Qwen's own tool names, ``run_shell_command``) for a
    manifest ``settings_matcher``: the Qwen tools whose name or canonical name it selects,
    anchored; None for every tool or an event without a tool, False when it selects no tool
    Qwen has (the entry is left out). Plain names are exact (``Edit`` is not ``NotebookEdit``)."""
    if event not in QWEN_TOOL_EVENTS:
        return None
    if settings_matcher and simple(settings_matcher):
        wanted = settings_matcher.split("|")
        names = [native for native, known in QWEN_TOOLS.items() if any(name in wanted for name in known)]
    else:
        names = _natives(settings_matcher, QWEN_TOOLS)
    if names is None:
        return None
    return "^(?:" + "|".join(names) + ")$" if names else False


def row_matcher(host, matcher: str | None) -> str | None:
    """The host's matcher as a row matcher (``re.search`` over the dispatcher's tool names,
    which are Claude Code's: Copilot's ``bash`` arrives as ``Bash``). None: every tool.
    Raises ValueError when the matcher is not a Python regex."""
    if every_tool(matcher):
        return None
    if _host_name(host) == _hosts.CLAUDE:
        if simple(matcher):
            return "^(?:" + matcher + ")$"
        re.compile(matcher)
        return matcher
    names = _copilot_canonical(matcher)  # Copilot: anchored, over its own lower-case names
    own = "^(?:" + matcher + ")$"
    return own if not names else "^(?:" + "|".join(names) + ")$|" + own


def settings_names(host, matcher: str | None) -> tuple[list[str], list[str]] | None:
    """(exact names, regexes) a settings matcher must let through for this host matcher; None: all."""
    if every_tool(matcher):
        return None
    if _host_name(host) == _hosts.CLAUDE:
        if simple(matcher):
            names = matcher.split("|")
            raw = [r for r, canonical in COPILOT_TOOLS.items() if canonical in names]
            return names + raw, []
        return [], [matcher]
    return _copilot_canonical(matcher), ["^(?:" + matcher + ")$"]


# ---------------------------------------------------------------- widening a settings matcher


def widen(settings_matcher: str | None, rows: list[dict]) -> str | None:
    """``settings_matcher`` extended by every known tool name the rows select and it misses,
    in both spellings (Copilot matches a Claude-format settings file against its own
    lower-case names); None when there is none."""
    if every_tool(settings_matcher):
        return None
    extra: list[str] = []
    for row in rows:
        for tool in tools_of(row.get("matcher")):
            for name in [tool, *copilot_names(tool)]:
                if name not in extra and not settings_catches(settings_matcher, name):
                    extra.append(name)
    return "|".join([settings_matcher, *extra]) if extra else None


def widen_to(settings_matcher: str | None, existed: bool, wanted: list[tuple[list[str], list[str]] | None]) -> str:
    """A settings matcher that lets through what it did (when it ``existed``) and ``wanted``
    (``settings_names`` of each host matcher)."""
    if (existed and every_tool(settings_matcher)) or any(w is None for w in wanted):
        return "*"
    names: list[str] = []
    regexes: list[str] = []
    if existed:
        if simple(settings_matcher):
            names += settings_matcher.split("|")
        else:
            regexes.append(settings_matcher)
    for more_names, more_regexes in wanted:
        names += [n for n in more_names if n not in names]
        regexes += [r for r in more_regexes if r not in regexes]
    if not regexes:
        return "|".join(names)
    parts = (["^(?:" + "|".join(names) + ")$"] if names else []) + ["(?:" + r + ")" for r in regexes]
    return "|".join(parts)
