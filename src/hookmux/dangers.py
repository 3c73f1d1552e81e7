"""Validate the danger gate's registries (hooks/danger-gate/dangers.json, the user's own) and run
every row's examples against the real gate code in a throwaway HOME and repositories.

At run time the gate skips a row it cannot use; ``check_registry`` names each such row and
why, and ``example_problems`` names each example whose verdict is not the one its row states.
The example commands are data: the gate judges them, nothing runs them.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from hookmux import resources

GATE_FOLDER = "danger-gate"
ROW_FIELDS = ("id", "loses", "harm", "safe_alternative")
OPTIONAL_ROW_FIELDS = ("program", "subcommand", "flags", "args", "any_of", "stdin_from", "writes", "operands",
                       "examples", "pack", "$comment")
TOP_LEVEL_FIELDS = ("version", "rows", "system_folders", "home_exceptions", "precious_files", "$comment", "$schema")
#: ``packs`` turns the advisory's packs on or off by name (docs/contraindication.md#packs).
USER_TOP_LEVEL_FIELDS = TOP_LEVEL_FIELDS + ("disabled", "packs")
#: Repository states an example may ask for (``"repo": ...``).
REPO_STATES = ("clean", "changed", "staged", "untracked", "stashed")
#: Folders of the data rows an example may run in instead (``"repo": "compose"``): a compose
#: project whose stand-in docker lists a volume with data and an empty one, and a terraform
#: folder whose local state holds a resource (``Sandbox``).
FOLDER_STATES = ("compose", "terraform")


def shipped_registry() -> Path:
    return resources.hooks_tree() / GATE_FOLDER / "dangers.json"


def user_registry(env: dict | None = None) -> Path:
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME")
    if not (base and os.path.isabs(base)):
        base = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".config")
    return Path(base) / "hookmux" / "dangers.json"


def judges() -> tuple[str, ...]:
    """The judge names the gate knows (hooks/danger-gate/judges.py), read from its source."""
    import ast

    tree = ast.parse((resources.hooks_tree() / GATE_FOLDER / "judges.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "JUDGES" for t in node.targets):
            return tuple(key.value for key in node.value.keys)
    return ()


def check_registry(path: str | Path, user: bool = False) -> list[str]:
    path = Path(path)
    name = str(path) if user else path.name
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        return [f"{name}: cannot read: {exc.strerror or exc}"]
    except ValueError as exc:
        return [f"{name}: invalid JSON: {exc}"]
    if not isinstance(document, dict):
        return [f"{name}: must be an object with a rows list"]
    allowed = USER_TOP_LEVEL_FIELDS if user else TOP_LEVEL_FIELDS
    problems = [f"{name} {key}: unknown key" for key in document if key not in allowed]
    if not user and document.get("version") != 1:
        problems.append(f"{name} version: must be 1")
    for key in ("system_folders", "home_exceptions", "precious_files", "disabled"):
        if key in document and not (isinstance(document[key], list)
                                    and all(isinstance(v, str) and v for v in document[key])):
            problems.append(f"{name} {key}: must be a list of strings")
    if user and "packs" in document:
        problems.extend(pack_problems(name, document["packs"]))
    rows = document.get("rows", [] if user else None)
    if not isinstance(rows, list):
        return problems + [f"{name} rows: must be a list"]
    known, seen = judges(), {}
    for index, row in enumerate(rows):
        place = f"{name} rows[{index}]"
        problems.extend(_row_problems(place, row, known))
        row_id = row.get("id") if isinstance(row, dict) else None
        if isinstance(row_id, str):
            if row_id in seen:
                problems.append(f"{place}.id: duplicate of {seen[row_id]} (the last one is used)")
            seen[row_id] = f"rows[{index}]"
    return problems


def pack_problems(name: str, packs: object) -> list[str]:
    """The user's ``packs`` object: each key a pack of ``contraindications.PACKS``, each value a boolean."""
    from hookmux.contraindications import PACKS

    if not isinstance(packs, dict):
        return [f'{name} packs: must be an object of pack names and true/false, e.g. {{"cloud": false}}']
    problems = []
    for pack, on in packs.items():
        if pack not in PACKS:
            problems.append(f"{name} packs.{pack}: unknown pack (known: {', '.join(PACKS)})")
        elif not isinstance(on, bool):
            problems.append(f"{name} packs.{pack}: must be true or false, not {json.dumps(on)}")
    return problems


def _row_problems(place: str, row: object, known: tuple[str, ...]) -> list[str]:
    if not isinstance(row, dict):
        return [f"{place}: must be an object"]
    problems = [f"{place}.{key}: unknown key" for key in row if key not in ROW_FIELDS + OPTIONAL_ROW_FIELDS]
    for key in ROW_FIELDS:
        if not (isinstance(row.get(key), str) and row[key].strip()):
            problems.append(f"{place}.{key}: required, a non-empty string")
    place = f"{place}(id={row.get('id')!r})"
    if isinstance(row.get("loses"), str) and row["loses"] not in known:
        problems.append(f"{place}.loses: {row['loses']!r} is not a judge ({', '.join(known)})")
    if "pack" in row:
        from hookmux.contraindications import PACKS

        if row["pack"] not in PACKS:
            problems.append(f"{place}.pack: must be one of {', '.join(PACKS)}")
    shell_rules = resources.runtime("shell_rules")
    try:
        shell_rules.compile_row(row)  # the row form has one home: the advisory's evaluator
    except shell_rules.RowError as exc:
        problems.append(f"{place}.{exc.field}: {exc.message}")
    if "operands" in row:
        try:
            _gate_module("operands").compile_spec(row["operands"], row.get("loses"))
        except ValueError as exc:
            problems.append(f"{place}.{exc}")
    examples = row.get("examples")
    if examples is not None:
        if not isinstance(examples, dict) or set(examples) - {"block", "pass"}:
            problems.append(f"{place}.examples: an object with lists 'block' and 'pass'")
        else:
            for kind, cases in examples.items():
                for number, case in enumerate(cases if isinstance(cases, list) else [None]):
                    if _example(case) is None:
                        problems.append(f"{place}.examples.{kind}[{number}]: a command, or "
                                        f"{{\"command\": ..., \"repo\": one of {', '.join(REPO_STATES + FOLDER_STATES)}}}")
    return problems


def _gate_module(name: str):
    """``hooks/danger-gate/<name>.py`` of the package's hooks tree, loaded once on its own (it imports
    nothing of the gate at load)."""
    import importlib.util

    key = f"hookmux._gate_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, resources.hooks_tree() / GATE_FOLDER / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[key] = module
    return sys.modules[key]


def _example(case: object) -> tuple[str, str | None] | None:
    if isinstance(case, str) and case.strip():
        return case, None
    if isinstance(case, dict) and isinstance(case.get("command"), str) and set(case) <= {"command", "repo"}:
        repo = case.get("repo")
        if repo is None or repo in REPO_STATES + FOLDER_STATES:
            return case["command"], repo
    return None


# ---------------------------------------------------------------- examples


def _git(cwd: Path, *args: str, env: dict) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, timeout=30)


def make_repo(folder: Path, state: str, env: dict) -> Path:
    """A repository with one commit (``tracked.txt``, ``other.txt``) in the given state."""
    folder.mkdir(parents=True)
    for args in (("init", "-q"), ("config", "user.email", "dangers@example.invalid"), ("config", "user.name", "x"),
                 ("config", "commit.gpgsign", "false")):
        _git(folder, *args, env=env)
    (folder / "tracked.txt").write_text("one\n")
    (folder / "other.txt").write_text("other\n")
    _git(folder, "add", "tracked.txt", "other.txt", env=env)
    _git(folder, "commit", "-q", "-m", "one", env=env)
    if state in ("changed", "staged", "stashed"):
        (folder / "tracked.txt").write_text("two\n")
    if state == "staged":
        _git(folder, "add", "tracked.txt", env=env)
    if state == "stashed":
        _git(folder, "stash", "push", "-q", env=env)
    if state == "untracked":
        (folder / "new.txt").write_text("new\n")
    return folder


class Sandbox:
    """A throwaway HOME (with Documents, .ssh and a key in it, .cache) and one repository per state."""

    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        for name in ("Documents", ".ssh", ".cache", "Documents/old-drafts"):
            (self.home / name).mkdir(parents=True, exist_ok=True)
        (self.home / ".ssh" / "id_ed25519").write_text("PRIVATE (a hookmux example)\n")  # a precious file
        self.env = {"HOME": str(self.home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
                    "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
        self.repos = {state: make_repo(root / f"repo-{state}", state, self.env) for state in REPO_STATES}
        (self.home / ".aws").mkdir()
        (self.home / ".aws" / "credentials").write_text("[default]\naws_secret_access_key = example\n")
        self.repos.update(data_folders(root, self.env))


    def case(self, command: str, repo: str | None) -> dict:
        return {"command": command, "cwd": str(self.repos[repo or "clean"]), "env": self.env}


#: The stand-in docker of the examples: ``volume ls`` answers from the VOLUMES file beside it
#: (``name|mountpoint|labels`` lines), with ``--filter label=K=V`` and ``dangling=true`` applied.
STANDIN_DOCKER = """#!{python} -S
import os, sys
args = sys.argv[1:]
if args[:2] != ["volume", "ls"]:
    sys.exit(1)
filters = [args[i + 1] for i, word in enumerate(args) if word == "--filter"]
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "VOLUMES")) as handle:
    for line in handle.read().splitlines():
        name, mount, labels, dangling = line.split("|")
        if all(f == "dangling=true" and dangling == "1" or f.startswith("label=") and f[6:] in labels.split(",")
               for f in filters):
            print(name + "|" + mount)
"""


def data_folders(root: Path, env: dict) -> dict:
    """The folders of ``FOLDER_STATES``, and a bin folder with a stand-in docker and the real git,
    made the examples' trusted folder (``HOOKMUX_TRUSTED_BIN``): no real docker is asked."""
    import shutil

    bin_dir = root / "bin"
    bin_dir.mkdir()
    git = shutil.which("git", path="/usr/bin:/bin:/usr/local/bin:/opt/homebrew/bin")
    if git:
        (bin_dir / "git").symlink_to(git)
    docker = bin_dir / "docker"
    docker.write_text(STANDIN_DOCKER.format(python=sys.executable))
    docker.chmod(0o755)
    data, empty = root / "volumes" / "pgdata", root / "volumes" / "empty"
    data.mkdir(parents=True)
    empty.mkdir(parents=True)
    (data / "PG_VERSION").write_text("16\n")
    label = "com.docker.compose.project=shop"
    (bin_dir / "VOLUMES").write_text(f"shop_pgdata|{data}|{label}|1\nshop_empty|{empty}|{label}|1\n")
    compose = root / "shop"
    compose.mkdir()
    (compose / ".env").write_text("API_TOKEN=example-secret\n")  # a credential file
    (compose / "compose.yaml").write_text("services:\n  db:\n    image: postgres\nvolumes:\n  pgdata: {}\n")
    terraform = root / "infra-project"
    (terraform / "infra").mkdir(parents=True)
    state = {"version": 4, "resources": [{"mode": "managed", "type": "aws_db_instance", "name": "main",
                                          "instances": [{"attributes": {"id": "db-1"}}]}]}
    for folder in (terraform, terraform / "infra"):
        (folder / "terraform.tfstate").write_text(json.dumps(state))
    env["HOOKMUX_TRUSTED_BIN"] = str(bin_dir)
    return {"compose": compose, "terraform": terraform}


def run_cases(cases: list[dict], registry: Path, user: Path | None, explain: bool = False) -> list[list]:
    """The ids each case blocks on (or, ``explain``, every row's verdict), from the gate's own
    code (hooks/danger-gate/examples.py)."""
    script = resources.hooks_tree() / GATE_FOLDER / "examples.py"
    request = {"registry": str(registry), "user_registry": str(user) if user else None, "cases": cases,
               "explain": explain}
    done = subprocess.run([sys.executable, "-S", "-E", str(script)], input=json.dumps(request), text=True,
                          capture_output=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"examples.py failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)["results"]


def example_problems(registry: Path | None = None, user: Path | None = None) -> list[str]:
    """Each example whose verdict differs from what its row says (block: that row's id)."""
    registry = registry or shipped_registry()
    rows, disabled = {}, []
    for path in (registry, user):
        if path and path.is_file():
            try:
                document = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if not isinstance(document, dict):
                continue
            if path == user and isinstance(document.get("disabled"), list):
                disabled = document["disabled"]
            for row in document.get("rows", []) if isinstance(document.get("rows"), list) else []:
                if isinstance(row, dict):
                    rows[row.get("id")] = (path, row)  # a user row replaces the shipped one
    rows = [value for key, value in rows.items() if key not in disabled]
    wanted, cases = [], []
    with tempfile.TemporaryDirectory(prefix="hookmux-dangers-") as root:
        sandbox = Sandbox(Path(root))
        for path, row in rows:
            examples = row.get("examples") if isinstance(row.get("examples"), dict) else {}
            for kind in ("block", "pass"):
                for case in examples.get(kind, []) if isinstance(examples.get(kind), list) else []:
                    parsed = _example(case)
                    if parsed:
                        wanted.append((path, row.get("id"), kind, parsed))
                        cases.append(sandbox.case(*parsed))
        results = run_cases(cases, registry, user) if cases else []
    problems = []
    for (path, row_id, kind, (command, repo)), found in zip(wanted, results):
        if (row_id in found) != (kind == "block"):
            state = f" (repository {repo})" if repo else ""
            verdict = "passes" if kind == "block" else f"is blocked by {', '.join(found)}"
            problems.append(f"{path.name if path == registry else path} {row_id}: example {command!r}{state} should "
                            f"{'be blocked' if kind == 'block' else 'pass'} but {verdict}")
    return problems


def row_packs(env: dict | None = None) -> dict[str, str]:
    """Row id -> its ``pack`` ("" for none), the user's rows over the shipped ones."""
    packs = {}
    user = user_registry(dict(os.environ if env is None else env))
    for path in (shipped_registry(), user):
        try:
            rows = json.loads(path.read_text(encoding="utf-8")).get("rows") if path.is_file() else None
        except (OSError, ValueError, AttributeError):
            continue
        for row in rows if isinstance(rows, list) else ():
            if isinstance(row, dict) and isinstance(row.get("id"), str):
                packs[row["id"]] = row.get("pack") if isinstance(row.get("pack"), str) else ""
    return packs


def explain(command: str, cwd: str, env: dict | None = None) -> list[dict]:
    """The gate's verdict on ``command`` run in ``cwd``, row by row, for ``hookmux explain``:
    ``{"id", "matched", "why", "lost", "blocks"}`` (blocks: matched and something would be lost;
    the allowances are not consulted). Uses the shipped and the user's registry."""
    env = dict(os.environ if env is None else env)
    user = user_registry(env)
    case = {"command": command, "cwd": cwd, "env": env}
    rows = run_cases([case], shipped_registry(), user if user.is_file() else None, explain=True)[0]
    return [{"id": row_id, "matched": matched, "why": why, "lost": lost, "blocks": bool(matched and lost)}
            for row_id, matched, why, lost in rows]
