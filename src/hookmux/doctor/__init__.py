"""``hookmux doctor``: prove that every installed hook fires, the way its host runs it.

    report = diagnose(Options(...))      # a dict, as ``hookmux doctor --json`` prints it

Layers, each pointing down only:

- ``wirings``: every host file that wires hookmux (Claude Code settings, Copilot hooks folders,
  Codex homes, Gemini settings; the plugin's hooks.json where each host runs it, the Gemini
  extension's where Gemini runs it) and which host loads each one; hooks wired twice; ``plugins``:
  where each host that has the plugin on runs it from, and its environment;
- ``sandbox``: the temporary HOME, state, project and runtime folders the canaries run in, so
  nothing is written outside one temporary folder;
- ``canary``: one canary event per wired hook through its exact command line, in the host's
  shell, with the host's kind of payload, environment, working directory and timeout;
- ``answers``: whether what came back is what that host accepts (Codex's strict schema, Gemini's
  fail-closed exit codes too);
- ``rows``: per manifest row, reach through each host's matcher, rows that can never match,
  importability (in a subprocess), the ledger's figures and the circuit breaker;
- ``processes``: interpreters (gone, older than 3.9), warm pools and the server that must answer.

Every problem is ``{"where", "problem", "fix"}``; any problem makes the exit status 1.
"""
from __future__ import annotations

from hookmux.doctor.report import Options, diagnose

__all__ = ["Options", "diagnose"]
