"""The ``hookmux`` command: one module per subcommand under ``hookmux.commands``."""
from __future__ import annotations

import argparse
import importlib
import sys

# subcommand -> module under hookmux.commands; each module has HELP,
# configure(parser) and run(args) -> int.
COMMANDS = {
    "validate": "validate",
    "try": "try_",
    "install": "install",
    "uninstall": "uninstall",
    "status": "status",
    "new-check": "new_check",
    "agents": "agents",
    "bench": "bench",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hookmux", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        try:
            module = importlib.import_module(f"hookmux.commands.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"hookmux.commands.{module_name}":
                raise
            continue
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.configure(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args._run(args)


if __name__ == "__main__":
    sys.exit(main())
