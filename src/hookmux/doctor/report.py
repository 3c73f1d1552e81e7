"""``diagnose()``: the whole doctor run, as one JSON-able report."""
from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from hookmux import breakers, plugin, resources
from hookmux.doctor import answers, canary, plugins as plugin_roots, processes, rows as rows_module, wirings
from hookmux.doctor.sandbox import Sandbox
from hookmux.installer import cursor_hooks, gemini_extension, record as records
from hookmux.installer.jsonfile import JsonFileError
from hookmux.installer.plan import version

_hosts = resources.runtime("hosts")
_COPILOT_EVENTS = set(_hosts.EVENTS[_hosts.COPILOT].values())
_HOST_EVENTS = {wirings.CLAUDE: set(_hosts.EVENTS[_hosts.CLAUDE].values()), wirings.COPILOT: _COPILOT_EVENTS,
                wirings.CODEX: set(_hosts.EVENTS[_hosts.CODEX].values())}
# Gemini: the advising rows of the first event run on the second (after the call).
_ADVICE_BEFORE, _ADVICE_AFTER = _hosts.ADVICE_AFTER[_hosts.GEMINI]
_ADVICE_LATE = tuple(host for host, events in _hosts.ADVICE_AFTER.items() if events == (_ADVICE_BEFORE, _ADVICE_AFTER))


@dataclass
class Options:
    home: Path
    project: Path
    targets: list[Path] = field(default_factory=list)
    settings: list[Path] = field(default_factory=list)
    copilot_dirs: list[Path] = field(default_factory=list)
    codex_homes: list[Path] = field(default_factory=list)
    gemini_homes: list[Path] = field(default_factory=list)
    codex_bin: str | None = None  # asks Codex which hooks it trusts (as `hookmux status` does)


class Findings:
    def __init__(self):
        self.problems: list[dict] = []
        self.warnings: list[dict] = []

    def problem(self, where: str, problem: str, fix: str) -> None:
        item = {"where": where, "problem": problem, "fix": fix}
        if item not in self.problems:
            self.problems.append(item)

    def warning(self, where: str, problem: str, fix: str) -> None:
        self.warnings.append({"where": where, "problem": problem, "fix": fix})


def diagnose(options: Options) -> dict:
    findings = Findings()
    installs = {}
    for target in options.targets:
        try:
            rec = records.load(target)
        except JsonFileError as exc:
            findings.problem(str(target), str(exc), "fix or delete the install record, then run hookmux install")
            rec = None
        if rec:
            installs[os.path.realpath(target)] = rec
    recorded = {name: info.get("host", "claude") for rec in installs.values() for name, info in rec.wired.items()}
    places = wirings.Places(options.home, options.project, tuple(options.settings), tuple(options.copilot_dirs),
                            tuple(options.codex_homes), tuple(options.gemini_homes))
    roots = plugin_roots.roots(options.home, options.project, tuple(options.codex_homes))
    extensions = gemini_extension.found(options.home, options.project)
    found = wirings.find(places, recorded, roots, extensions)
    report: dict = {"hookmux": version(), "home": str(options.home), "project": str(options.project),
                    "plugins": [item.as_dict() for item in roots],
                    "gemini_extensions": [item.as_dict() for item in extensions],
                    "wirings": [], "targets": [], "interpreters": []}
    for item in roots:
        if item.problem:
            (findings.warning if item.warning else findings.problem)(
                f"{item.where}: {item.plugin_id} for {item.host}", item.problem, item.fix)
    for item in extensions:
        if item.enabled and item.problem:
            findings.problem(f"{item.folder} (gemini extension)", item.problem, "install the extension again: "
                             + item.reinstall_hint())
    if any(w.plugin or w.extension for w in found) and not shutil.which(plugin.PYTHON):
        findings.problem(", ".join(w.file for w in found if w.plugin or w.extension),
                         f"no {plugin.PYTHON} on PATH: the plugin's hooks print `{plugin.PYTHON}: command not found` "
                         "and do nothing (`|| true` keeps the tool call going)",
                         f"put a Python 3.9 or newer on PATH as {plugin.PYTHON} (the hosts give a plugin hook your PATH)")
    for wiring in found:
        if wiring.error:
            findings.problem(wiring.file, f"cannot be read: {wiring.error}",
                             "fix the file by hand (the host cannot read it either)")
        for event, command in wiring.unrecognised:
            findings.problem(f"{wiring.file}: {event}", f"an entry runs a hookmux script in a form hookmux does "
                             f"not manage (no canary can vouch for it): {command}",
                             "write it as `hookmux install` does (an absolute python, -S -E, the script, its "
                             "options, the event, then `|| true`), or run hookmux install and delete it")
    for item in wirings.duplicates(found):
        findings.problem(**item)
    twice = cursor_hooks.wired_twice(options.home)
    if twice:
        problem, fix = twice.split("; keep one: ", 1)
        findings.warning(f"{options.home / '.claude' / 'settings.json'}, {options.home / '.cursor' / 'hooks.json'}",
                         problem, "keep one: " + fix)
    trust = _codex_trust(found, options.codex_bin, findings)
    _gemini_switches(found, findings)
    trust.update(_plugin_codex_trust(found, roots, options.codex_bin, findings))
    hooks = [hook for wiring in found for hook in wiring.hooks]
    loaded_by = {id(hook): wiring.loaded_by for wiring in found for hook in wiring.hooks}
    if not hooks:
        findings.problem(", ".join(w.file for w in found) or str(options.home),
                         "no host file wires hookmux: no hook of hookmux runs",
                         "hookmux install (add --copilot-hooks-dir / --codex-home / --gemini-home for those hosts)")

    bad_python = _interpreters(report, hooks, installs, findings)
    targets = sorted({hook.target for hook in hooks if hook.target} | set(installs))
    with Sandbox(options.project) as sandbox:
        canaries = {}
        for hook in hooks:
            if hook.parsed.python in bad_python:
                continue  # already named, with its fix; its canary would only say "did not run"
            canaries[id(hook)] = _canaries(hook, loaded_by[id(hook)], sandbox, installs, findings)
        for target in targets:
            report["targets"].append(_target(target, installs.get(target), hooks, canaries, sandbox, findings,
                                             bad_python))
    for wiring in found:
        report["wirings"].append({
            "file": wiring.file, "format": wiring.format, "loaded_by": list(wiring.loaded_by),
            "exists": wiring.exists, "error": wiring.error,
            "plugin": {host: item.as_dict() for host, item in wiring.plugin.items()},
            "extension": wiring.extension.as_dict() if wiring.extension is not None else None,
            "hooks": [{"event": h.event, "role": h.role, "matcher": h.matcher, "command": h.command,
                       "timeout": h.timeout, "target": h.target, "trust": trust.get(id(h)),
                       "canary": [run for _, run, _ in canaries.get(id(h), [])]} for h in wiring.hooks]})
    report["problems"], report["warnings"] = findings.problems, findings.warnings
    report["ok"] = not findings.problems
    return report


def _codex_trust(found, codex_bin, findings) -> dict[int, str]:
    """id(hook) -> Codex's trust status of each hookmux hook in a Codex hooks file; Codex skips
    an untrusted one silently. Asked of ``codex app-server`` (``hooks/list``), as status asks it."""
    from hookmux.installer import codex_install, codex_trust

    out = {}
    for wiring in found:
        if wiring.format != wirings.CODEX or not wiring.hooks:
            continue
        if codex_bin is None:
            findings.warning(wiring.file, "cannot ask Codex which hooks it trusts (no codex binary on PATH or "
                             "--codex-bin); an untrusted hook is skipped silently", codex_install.HOW_TO_TRUST)
            continue
        try:
            states = codex_trust.trust_state(codex_bin, codex_install.codex_home_of(wiring.file), wiring.file)
        except codex_trust.CodexTrustError as exc:
            findings.warning(wiring.file, f"cannot ask Codex which hooks it trusts: {exc}", codex_install.HOW_TO_TRUST)
            continue
        by_command: dict[str | None, list[str]] = {}
        for state in states:
            by_command.setdefault(state.command, []).append(state.trust_status)
        for hook in wiring.hooks:
            status = (by_command.get(hook.command) or ["not loaded"]).pop(0)
            out[id(hook)] = status
            if status != "trusted":
                findings.problem(hook.label(), f"Codex skips it silently: it is {status}", codex_install.HOW_TO_TRUST)
    return out


def _gemini_switches(found, findings) -> None:
    """Gemini's own switches in its settings files (merged by Gemini over all of them):
    ``hooksConfig.enabled: false`` runs no hook at all, ``hooksConfig.disabled`` skips the hooks it
    names (by ``name``, else by command) -- silently, as Codex skips an untrusted hook."""
    from hookmux.installer import jsonfile as json_files

    hooks = [hook for wiring in found if wiring.format == wirings.GEMINI for hook in wiring.hooks]
    settings = [wiring.file for wiring in found if wiring.format == wirings.GEMINI and wiring.extension is None
                and wiring.exists and not wiring.error]
    for file in settings:
        try:
            config = json_files.load(Path(file)).data.get("hooksConfig")
        except (JsonFileError, AttributeError):
            continue
        if not isinstance(config, dict) or not hooks:
            continue
        if config.get("enabled") is False:
            findings.problem(file, "hooksConfig.enabled is false: Gemini runs no hook at all, hookmux's neither",
                             f"remove \"enabled\": false from hooksConfig in {file} (or set it to true)")
        disabled = config.get("disabled") if isinstance(config.get("disabled"), list) else []
        for hook in hooks:
            if hook.command in disabled:
                findings.problem(hook.label(), f"Gemini skips it silently: hooksConfig.disabled in {file} lists it",
                                 f"take its command out of hooksConfig.disabled in {file}")


def _plugin_codex_trust(found, roots, codex_bin, findings) -> dict[int, str]:
    """id(hook) -> Codex's trust of the plugin's hooks (as ``hookmux status`` asks it): Codex skips
    an untrusted plugin hook silently, too."""
    from hookmux import plugin_installs
    from hookmux.installer import codex_trust

    out = {}
    for wiring in found:
        item = wiring.plugin.get(wirings.CODEX)
        if item is None:
            continue
        if codex_bin is None:
            findings.warning(wiring.file, "cannot ask Codex whether it trusts the plugin's hooks (no codex binary on "
                             "PATH or --codex-bin); an untrusted hook is skipped silently", "run `hookmux trust codex`")
            continue
        try:
            with codex_trust.AppServer(codex_bin, Path(item.where).parent) as server:
                states = [hook for hook in server.hooks() if plugin_installs.is_plugin_hook(hook)]
        except codex_trust.CodexTrustError as exc:
            findings.warning(wiring.file, f"cannot ask Codex whether it trusts the plugin's hooks: {exc}",
                             "run `hookmux trust codex`")
            continue
        by_command: dict[str | None, list[str]] = {}
        for state in states:
            by_command.setdefault(state.command, []).append(state.trust_status)
        for hook in wiring.hooks:
            if hook.canonical not in _HOST_EVENTS[wirings.CODEX]:
                continue
            # Codex reports the command with the plugin root put in (its hash is of the one before).
            status = (by_command.get(hook.command.replace(plugin.ROOT_VARIABLE, item.root or ""))
                      or by_command.get(hook.command) or ["not loaded"]).pop(0)
            out[id(hook)] = status
            if status != "trusted":
                findings.problem(f"{hook.label()} (codex)", f"Codex skips this plugin hook silently: it is {status}",
                                 "run `hookmux trust codex`")
    return out


def _interpreters(report, hooks, installs, findings) -> set[str]:
    bad = set()
    for python in sorted({hook.parsed.python for hook in hooks if not hook.http}):
        info = processes.interpreter(python)
        report["interpreters"].append(info)
        if info["problem"]:
            bad.add(python)
            users = [hook for hook in hooks if hook.parsed.python == python]
            findings.problem("; ".join(hook.label() for hook in users),
                             f"the wired interpreter {python} {info['problem']}: these hooks do nothing",
                             _reinstall(users[0].target, installs, python=True))
    return bad


def _reinstall(target: str, installs: dict, python: bool = False) -> str:
    rec = installs.get(target)
    if rec is not None:
        from hookmux.installer.inspect import reinstall_hint

        hint = reinstall_hint(Path(target), rec)
        if python and "--python" not in hint:
            hint = hint[:-1] + " --python PYTHON` with PYTHON a python3 of 3.9 or newer"
        return "run " + hint
    words = ["hookmux", "install", "--target", target] + (["--python", "PYTHON"] if python else [])
    return "run `" + shlex.join(words) + "`" + (" with PYTHON a python3 of 3.9 or newer" if python else "")


# ---------------------------------------------------------------- canaries


_unanswered = {"dispatch": "no trace from the dispatcher (on Gemini, whose command line sends stderr to /dev/null: "
                           "no record in the sandbox's ledger)",
               "danger": "the danger gate did not deny a recursive delete of the whole (sandbox) project"}


def _fix(hook, installs, as_host=None) -> str:
    if hook.extension is not None:
        return "install the extension again: " + hook.extension.reinstall_hint()
    if hook.plugin:
        item = hook.plugin.get(as_host or wirings.CLAUDE) or next(iter(hook.plugin.values()))
        return "install the plugin again: " + item.reinstall_hint()
    return _reinstall(hook.target, installs)


def _canaries(hook, loaded_by, sandbox, installs, findings) -> list[tuple[str | None, dict, canary.Result]]:
    """Run the hook's canaries (one per tool its rows need; the plugin's: one set per host that
    loads it, on the events that host has); name what went wrong."""
    if hook.http:
        return []
    tools = [None]
    if hook.role == "dispatch" and hook.canonical in _hosts.TOOL_EVENTS:
        manifest = _manifest(hook.target, str(sandbox.user_project or ""), _hooks_root([hook]))
        wanted = []
        events = [hook.canonical] + ([_ADVICE_BEFORE] if hook.format in _ADVICE_LATE and
                                     hook.canonical == _ADVICE_AFTER else [])
        for row in (row for event in events for row in (manifest.rows(event) if manifest else [])):
            reachable = rows_module.tools_for(row, hook) or []
            if reachable and not any(tool in wanted for tool in reachable):
                wanted.append(reachable[0])
        tools = wanted or ["Bash"]
    out = []
    runs = [(tool, None) for tool in tools]
    if hook.format == wirings.CLAUDE and wirings.COPILOT in loaded_by and hook.canonical in _COPILOT_EVENTS:
        runs += [(tool, wirings.COPILOT) for tool in tools]  # Copilot loads this file too
    if hook.format == wirings.PLUGIN:
        runs = [(tool, host) for host in loaded_by if hook.canonical in _HOST_EVENTS[host] for tool in tools]
    for tool, as_host in runs:
        result = canary.run(hook, tool, sandbox, as_host)
        summary = result.as_dict()
        fired = answers.answered(result.stdout) if hook.role != "dispatch" else \
            bool(result.ledger) if hook.format == wirings.GEMINI else bool(result.trace)
        fmt = wirings.CODEX if as_host == wirings.CODEX else hook.format
        rejected = answers.problems(fmt, hook.canonical, result.exit, result.stdout, result.stderr)
        summary.update(fired=fired, accepted=not rejected, rejected=rejected)
        out.append((tool, summary, result))
        as_words = f" as {as_host} runs it" if as_host and (hook.format == wirings.PLUGIN or as_host == wirings.COPILOT) else ""
        where = f"{hook.label()}{as_words} (`{hook.command}`)"
        if not fired:
            said = (result.stderr.strip().splitlines() or ["nothing on stderr"])[-1][:200]
            findings.problem(where, f"the canary {hook.canonical} event did not reach the {hook.role} "
                             f"({_unanswered[hook.role] if hook.role in _unanswered else 'the gate did not answer a skill call naming an agent'}; "
                             f"{result.shell[0]} said: {said})", _fix(hook, installs, as_host))
        for words in rejected:
            findings.problem(where, f"its answer to the canary is not one {as_host or hook.format} accepts: {words}",
                             _fix(hook, installs, as_host))
    return out


# ---------------------------------------------------------------- targets and rows


def _hooks_root(hooks) -> str | None:
    """The ``--hooks-root`` a wired dispatcher is given (the plugin's: its own hooks folder)."""
    for hook in hooks:
        options = list(hook.parsed.options)
        for index, word in enumerate(options):
            if word == "--hooks-root" and index + 1 < len(options):
                return options[index + 1]
            if word.startswith("--hooks-root="):
                return word.split("=", 1)[1]
    return None


def _manifest(target: str, project: str | None = None, hooks_root: str | None = None):
    """The tree's manifest as the dispatcher runs it: with the user's layer and a trusted
    project's merged over it."""
    module = resources.runtime("manifest")
    try:
        loaded = module.load(os.path.join(target, "_dispatch", "manifest.json"), hooks_root)
    except Exception:
        return None
    layered = getattr(module, "with_layers", None)
    return layered(loaded, project) if layered else loaded


def _target(target, rec, hooks, canaries, sandbox, findings, bad_python=frozenset()) -> dict:
    mine = [hook for hook in hooks if hook.target == target]
    info = {"target": target, "installed": rec is not None, "rows": [], "pools": processes.pools(target),
            "server": None}
    manifest = _manifest(target, str(sandbox.user_project or ""),
                         _hooks_root([hook for hook in mine if hook.role == "dispatch"]))
    if manifest is None:
        findings.problem(os.path.join(target, "_dispatch", "manifest.json"), "the manifest cannot be read",
                         _reinstall(target, {target: rec} if rec else {}))
        return info
    if any(hook.http for hook in mine):
        info["server"] = processes.server(target)
        if not info["server"]["answers"]:
            findings.problem(target, "hookmux serve does not answer: Claude Code's HTTP hooks for this tree get "
                             "no answer (the call runs without hookmux)",
                             f"run `hookmux serve --target {shlex.quote(target)}` (a new Claude Code session "
                             "starts it), or install again without --serve")
    for pool in info["pools"]:
        if pool["problem"]:
            findings.problem(pool["folder"], f"a warm pool of this tree does not answer: {pool['problem']}",
                             (f"kill {pool['pid']}; " if pool["pid"] and "gone" not in pool["problem"] else "")
                             + f"remove the folder (`rm -r {shlex.quote(pool['folder'])}`): the next call that "
                             "selects a check starts a new pool")
    # The imports are checked with a wired interpreter that works (a broken one is named already).
    pythons = [hook.parsed.python for hook in mine if not hook.http] + ([rec.python] if rec else [])
    python = next((p for p in pythons if p and p not in bad_python), None)
    scripts = [row.path for entry in manifest.events.values() for row in entry.rows if row.path]
    imported = rows_module.imports(python, manifest.hooks_root, scripts, sandbox.env("claude"), str(sandbox.project)) \
        if python and os.access(python, os.X_OK) else {}
    stats = rows_module.ledger_stats()
    tripped = rows_module.breaker_of(manifest.hooks_root)
    dispatchers = [hook for hook in mine if hook.role == "dispatch"]
    for event, entry in manifest.events.items():
        wired = [hook for hook in dispatchers if hook.canonical == event or (
            event == _ADVICE_BEFORE and hook.format in _ADVICE_LATE and hook.canonical == _ADVICE_AFTER)]
        for row in entry.rows:
            info["rows"].append(_row(row, manifest.path, wired, canaries, imported, stats, tripped, findings))
    return info


def _row(row, manifest_file, wired, canaries, imported, stats, tripped, findings) -> dict:
    where = f"{row.ref()} ({row.path})"
    item = {"event": row.event, "index": row.index, "name": row.name, "script": row.path, "matcher": row.matcher,
            "reach": [], "canary": [], "imports": imported.get(row.path), "ledger": stats.get((row.name, row.event)),
            "breaker": tripped.get((row.event, row.index, row.path))}
    if row.problem:
        findings.problem(where, f"the dispatcher skips it: {row.problem}", "give it a string \"script\" (docs/authoring.md)")
        return item
    never = rows_module.never_matches(row)
    if never:
        kind, why = never
        (findings.problem if kind == "problem" else findings.warning)(
            where, f"it can never match: {why}",
            "fix its \"matcher\" (or drop it for every tool) in the manifest; `hookmux validate` checks it")
    answer = item["imports"]
    imports_ok = answer in (None, "ok")
    if not os.path.isfile(row.path):
        findings.problem(where, "its script is missing: the dispatcher skips it on every call",
                         "hookmux install puts back a file it installed (`hookmux status` lists them); "
                         "else fix the row's \"script\"")
    elif not imports_ok:
        findings.problem(where, f"its script does not import: {answer}",
                         "fix the script (`hookmux status` lists installed files you modified; hookmux install "
                         "puts them back)")
    for hook in wired:
        tools = rows_module.tools_for(row, hook)
        item["reach"].append({"file": hook.file, "host": hook.format, "matcher": hook.matcher,
                              "tools": tools, "reachable": tools is None or bool(tools)})
        for tool, summary, result in canaries.get(id(hook), []):
            words = result.by_name.get(row.name) if hook.format == wirings.GEMINI else result.rows.get(row.index)
            if words is None:
                continue
            item["canary"].append({"file": hook.file, "tool": tool, "trace": words})
            failed = next((bad for bad in ("import error", "error ", "timeout", "not run") if bad in words), None)
            if failed and "selected" in words and imports_ok and os.path.isfile(row.path):
                findings.problem(where, f"it failed on the canary through {hook.file}: {words}",
                                 f"run it on a payload: `hookmux try --manifest {shlex.quote(manifest_file)} "
                                 f"{row.event} PAYLOAD.json` (examples/ has payloads), and fix the check")
    if not never and wired and not any(reach["reachable"] for reach in item["reach"]):
        findings.problem(where, "it never runs: no wired host's matcher lets any of its tools through ("
                         + "; ".join(f"{hook.file}: {hook.matcher!r}" for hook in wired) + ")",
                         "run hookmux install (it widens the matcher it writes), or add the row's tools to that "
                         "matcher by hand")
    if not wired and not never:
        findings.warning(where, f"no wired host file starts the dispatcher on {row.event}: the row never runs",
                         "run hookmux install for the host that has this event")
    breaker = item["breaker"]
    if breaker and breakers.problem(breaker):
        findings.problem(where, breakers.problem(breaker), "see `hookmux log` for its outcomes")
    return item
