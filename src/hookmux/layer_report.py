"""What the dispatcher would merge over a manifest: the user layer and a trusted project's, for
``hookmux status`` and ``hookmux validate`` (the rules: hooks/_common/layers.py).

    check(base_path, hooks_root=None, project=None) -> LayerReport

Problems are the runtime's own (``Manifest.problems``: a name taken twice, a layer that cannot
be read, a name that turns nothing off) plus what only shows on disk: a layer row whose script
does not exist, or that cannot run at all (no ``script``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from hookmux import resources


@dataclass
class LayerReport:
    user_layer: str  # where the user layer is looked for
    layers: list[str] = field(default_factory=list)  # the layer files merged, in order
    trusted_projects: list[str] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)  # every layer row: event, name, layer, state
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"user_layer": self.user_layer, "layers": self.layers, "trusted_projects": self.trusted_projects,
                "rows": self.rows, "errors": self.errors, "warnings": self.warnings}


def check(base_path: os.PathLike | str, hooks_root: os.PathLike | str | None = None,
          project: os.PathLike | str | None = None) -> LayerReport:
    manifest = resources.runtime("manifest")
    report = LayerReport(manifest.user_layer_path())
    try:
        base = manifest.load(str(base_path), str(hooks_root) if hooks_root else None)
    except manifest.ManifestError:
        base = manifest.from_data({"hooks_root": "/", "events": {}})
    merged = manifest.with_layers(base, str(project or os.getcwd()), dict(os.environ, HOOKMUX_LAYERS="1"))
    report.layers = list(merged.layers)
    for severity, message in merged.problems:
        (report.errors if severity == "error" else report.warnings).append(message)
    if merged.layers:
        user = resources.runtime("layers").read(merged.layers[0])
        trusted = user.get("trusted_projects") if isinstance(user, dict) else None
        report.trusted_projects = [entry for entry in trusted or [] if isinstance(entry, str)]
    for event, entry in merged.events.items():
        for row in entry.rows:
            if row.layer is None:
                if row.problem and row.problem.startswith("turned off"):
                    report.rows.append({"event": event, "name": row.name, "layer": None, "state": row.problem})
                continue
            state = row.problem or "ok"
            if row.problem is None and not os.path.isfile(row.path):
                state = "script not found"
                report.errors.append(f"{row.layer}: events.{event} row {row.name!r}: {row.path}: no such file")
            elif row.problem == "malformed row":
                report.errors.append(f"{row.layer}: events.{event}: a row without a string script never runs")
            report.rows.append({"event": event, "name": row.name, "layer": row.layer, "state": state})
    return report


def render(report: LayerReport) -> str:
    lines = []
    if not report.layers:
        return f"layers:    none (a user layer would be {report.user_layer})\n"
    for path in report.layers:
        lines.append(f"layer:     {path}")
    for row in report.rows:
        where = row["layer"] or "shipped"
        lines.append(f"  {row['event']} {row['name']!r} ({where}): {row['state']}")
    for folder in report.trusted_projects:
        lines.append(f"trusted project: {folder}")
    lines += [f"warning:   {message}" for message in report.warnings]  # errors: in the report's problems
    return "\n".join(lines) + "\n"
