"""hookmux validate: the manifest against its schema, its scripts, matchers and wiring."""
from __future__ import annotations

from hookmux import layer_report, resources
from hookmux.validation import validate_manifest

HELP = "check a manifest: schema, scripts, matchers, reachability, contraindication rows, danger-gate rows"


def configure(parser) -> None:
    parser.add_argument("manifest", nargs="?", help="manifest to check (default: the shipped one, against the package's hooks tree)")
    parser.add_argument("--hooks-root", help="check scripts under this folder instead of the manifest's hooks_root")
    parser.add_argument("--no-layers", action="store_true",
                        help="leave out the user and project layers merged over it (docs/install.md)")


def danger_gate_problems() -> list[str]:
    """The danger gate's shipped registry and the user's own (if any): rows and their examples."""
    from hookmux import dangers

    user = dangers.user_registry()
    problems = dangers.check_registry(dangers.shipped_registry())
    if user.is_file():
        problems += dangers.check_registry(user, user=True)
    return problems + dangers.example_problems(user=user if user.is_file() else None)


def run(args) -> int:
    manifest = args.manifest or resources.shipped_manifest()
    hooks_root = args.hooks_root
    if args.manifest is None and hooks_root is None:
        hooks_root = resources.hooks_tree()
    errors, warnings = validate_manifest(manifest, hooks_root)
    errors += danger_gate_problems()
    if not args.no_layers:
        layers = layer_report.check(manifest, hooks_root)
        errors, warnings = errors + layers.errors, warnings + layers.warnings
        for path in layers.layers:
            print(f"layer: {path}")
    for line in errors:
        print(f"error: {line}")
    for line in warnings:
        print(f"warning: {line}")
    if errors:
        print(f"{manifest}: {len(errors)} error(s)")
        return 1
    print(f"{manifest}: ok ({len(warnings)} warning(s))")
    return 0
