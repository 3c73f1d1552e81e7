"""Judges of the data-store, infrastructure and secrets rows (issue 40): what would really be lost.

    docker_volumes(command, where)   compose down -v, volume rm|prune, system prune --volumes
    database_target(command, where)  DROP/dropdb/prisma reset/rails db:drop on a shared or production database
    iac_state(command, where)        terraform destroy / apply -destroy, pulumi destroy over a state with resources
    secret_sent(command, where)      a credential file sent off the machine (upload, copy to a host, pipe)

Each answers as the other judges do (judges.py): a list of what would be lost, [] for nothing or
for not known. What these judges ask a program is fixed (tool_state.py: ``docker volume ls
--filter … --format …``, ``terraform state list``, ``pulumi stack export``), and files are read
rather than programs run where a file tells (a compose file's ``name:``, ``terraform.tfstate``,
``.env``). A program that is absent, fails or is slow answers nothing: the call runs and the
advisory still speaks. Never a block on a guess; what counts as holding data is said per judge.
"""
import os
import re

import targets
from _common.shell import render, text_file
import tool_state

# ---------------------------------------------------------------- docker

#: docker's own options before the subcommand: those that pick the daemon are asked with
#: (kept as the question's first words), the others change nothing of what is asked.
_DOCKER_CONNECTION = ("-c", "--context", "-H", "--host", "--config")
_DOCKER_VALUE = ("-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey")
_DOCKER_FLAGS = ("-D", "--debug", "--tls", "--tlsverify")
_COMPOSE_VALUE = ("-f", "--file", "-p", "--project-name", "--project-directory", "--env-file", "--profile",
                  "--ansi", "--progress", "--parallel")
_COMPOSE_FILES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")
_FORMAT = "{{.Name}}|{{.Mountpoint}}"
_ANONYMOUS = re.compile(r"^[0-9a-f]{64}$")


def _leading(words, value_options, flags, kept=()):
    """(kept option words, the rest from the first non-option) of ``words``; None for an option
    that is not known (not judged)."""
    out, index = [], 0
    while index < len(words):
        word = words[index]
        name, eq, _ = word.partition("=")
        if not word.startswith("-") or word == "-":
            return out, words[index:]
        if name in value_options:
            taken = [word] if eq else words[index:index + 2]
            if len(taken) < (1 if eq else 2):
                return None
            if name in kept:
                out += taken
            index += len(taken)
        elif word in flags:
            index += 1
        else:
            return None
    return out, []


def docker_volumes(command, where):
    """The named volumes the command removes that docker lists (``docker volume ls``, one
    question) and that hold data: the volume's Mountpoint lists something, or cannot be read
    here (a root-owned ``/var/lib/docker``, a VM's path): then the volume is taken to hold data,
    as docker said it exists. A Mountpoint read empty loses nothing."""
    argv = list(command.argv)
    program = argv[0]
    if program == "docker-compose":
        argv = ["docker", "compose"] + argv[1:]
    found = _leading(argv[1:], _DOCKER_CONNECTION + _DOCKER_VALUE, _DOCKER_FLAGS, _DOCKER_CONNECTION)
    if found is None:
        return []
    connection, words = found
    if words[:1] == ["compose"]:
        return _compose_down(connection, words[1:], where)
    if words[:2] in (["volume", "rm"], ["volume", "remove"]):
        options, names = _split(words[2:], ("-f", "--force"), ())
        if options is None or not names:
            return []
        return _held(where, connection, [], lambda name: name in names)
    if words[:2] == ["volume", "prune"]:
        options, rest = _split(words[2:], ("-a", "--all", "-f", "--force"), ())
        if options is None or rest:
            return []  # a --filter narrows what goes: not modelled, not judged
        every = bool(options & {"-a", "--all"})
        return _held(where, connection, ["--filter", "dangling=true"], lambda name: every or _ANONYMOUS.match(name))
    if words[:2] == ["system", "prune"]:
        options, rest = _split(words[2:], ("-a", "--all", "-f", "--force", "--volumes"), ())
        if options is None or rest or "--volumes" not in options:
            return []
        # docker 23+: --volumes prunes the anonymous volumes no container uses (named ones stay)
        return _held(where, connection, ["--filter", "dangling=true"], lambda name: _ANONYMOUS.match(name))
    return []


def _split(words, flags, value_options):
    """(the set of ``flags`` given, the other words); (None, []) for an option not known."""
    given, rest, index = set(), [], 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            rest.extend(words[index:])
            break
        if word.startswith("--") or word.startswith("-") and len(word) == 2:
            if word not in flags:
                return None, []
            given.add(word)
        elif word.startswith("-") and len(word) > 2:  # combined letters: -af
            letters = ["-" + letter for letter in word[1:]]
            if not all(letter in flags for letter in letters):
                return None, []
            given.update(letters)
        else:
            rest.append(word)
    return given, rest


def _compose_down(connection, words, where):
    found = _leading(words, _COMPOSE_VALUE, ("--compatibility", "--dry-run", "--all-resources"), _COMPOSE_VALUE)
    if found is None:
        return []
    options, rest = found
    if "--dry-run" in words[:len(words) - len(rest)] or rest[:1] != ["down"]:
        return []
    down, _ = _split([w for w in rest[1:] if not w.startswith(("--rmi", "-t", "--timeout"))],
                     ("-v", "--volumes", "--remove-orphans"), ())
    if down is None or not down & {"-v", "--volumes"}:
        return []
    project = compose_project(_pairs(options), where)
    if not project:
        return []
    label = "label=com.docker.compose.project=" + project
    return _held(where, connection, ["--filter", label], lambda name: True)


def _pairs(words):
    """``-f a -p b --file=c`` -> [("-f", "a"), ("-p", "b"), ("--file", "c")]."""
    out, index = [], 0
    while index < len(words):
        name, eq, value = words[index].partition("=")
        if eq:
            out.append((name, value))
            index += 1
        else:
            out.append((name, words[index + 1] if index + 1 < len(words) else ""))
            index += 2
    return out


def compose_project(options, where):
    """The compose project name as ``docker compose`` picks it: ``-p``, ``COMPOSE_PROJECT_NAME``
    (the command's environment, then the project's ``.env``), the compose file's top-level
    ``name:``, else the project folder's name; normalised as compose does. "" when not known
    (no compose file, a file on stdin, a name built from variables)."""
    values = {}
    for name, value in options:
        values.setdefault({"--file": "-f", "--project-name": "-p"}.get(name, name), value)
    if values.get("-p"):
        return _normalised(values["-p"])
    folder = where.cwd
    if not folder:
        return ""
    compose_file = None
    if "-f" in values:
        if values["-f"] == "-" or "$" in values["-f"]:
            return ""
        compose_file = os.path.join(folder, os.path.expanduser(values["-f"]))
    else:
        compose_file = _find_compose(folder)
    if not compose_file or not os.path.isfile(compose_file):
        return ""
    directory = values.get("--project-directory")
    directory = os.path.join(folder, directory) if directory else os.path.dirname(compose_file)
    name = where.program_env.get("COMPOSE_PROJECT_NAME") or _dotenv(os.path.join(directory, ".env")).get(
        "COMPOSE_PROJECT_NAME")
    if not name:
        name = _top_level_name(compose_file)
        if name is None:
            return ""
    return _normalised(name or os.path.basename(os.path.normpath(directory)))


def _find_compose(folder):
    """The compose file ``docker compose`` finds in ``folder`` or a folder above it."""
    while True:
        for name in _COMPOSE_FILES:
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                return path
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _top_level_name(path):
    """The compose file's top-level ``name:`` ("" when it has none; None when it is built from
    variables or the file cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(1 << 20)
    except OSError:
        return None
    match = re.search(r"(?m)^name:[ \t]*([\"']?)([^\"'#\r\n]*)\1[ \t]*(?:#.*)?$", text)
    if not match:
        return ""
    value = match.group(2).strip()
    return None if "$" in value else value


def _normalised(name):
    """As compose normalises a project name: lower case, only ``a-z0-9_-``, starting with a letter or digit."""
    name = re.sub(r"[^a-z0-9_-]", "", name.lower())
    return name.lstrip("_-")


def _held(where, connection, filters, wanted):
    """What removing the volumes ``docker volume ls`` lists (with ``filters``) and ``wanted(name)``
    takes would lose."""
    out = tool_state.ask(where, "docker", connection + ["volume", "ls", *filters, "--format", _FORMAT])
    if out is None:
        return []
    lost = []
    for line in out.decode("utf-8", "replace").splitlines():
        name, _, mount = line.strip().partition("|")
        if not name or not wanted(name):
            continue
        held = _holds(mount)
        if held is None:
            lost.append("the docker volume %s (its content cannot be read here: taken to hold data)" % name)
        elif held:
            lost.append("the docker volume %s (%d entr%s in %s)" % (name, held, "y" if held == 1 else "ies", mount))
    return lost[:8]


def _holds(mount):
    """How many entries the volume's folder holds; None when it cannot be read."""
    if not mount or not mount.startswith("/"):
        return None
    try:
        return len(os.listdir(mount))
    except OSError:
        return None


# ---------------------------------------------------------------- databases

_LOCAL_HOSTS = frozenset(("", "localhost", "127.0.0.1", "::1", "[::1]", "localhost.localdomain", "ip6-localhost"))
_PRODUCTION = re.compile(r"(?:^|[^a-z0-9])(?:prod|production|live)(?:$|[^a-z0-9])")
_DROP = re.compile(r"\bdrop\s+(database|schema|table)\s+(?:if\s+exists\s+)?[`\"\[]?([\w.$-]+)", re.I)
_RUNNERS = ("npx", "pnpx", "bunx", "pnpm", "yarn", "bun", "npm")
_RAILS_DROPS = ("db:drop", "db:drop:all", "db:reset", "db:purge", "db:purge:all", "db:schema:load")
_PSQL_VALUES = ("-h", "--host", "-d", "--dbname", "-U", "--username", "-p", "--port", "-c", "--command", "-f",
                "--file", "-v", "--set", "--variable", "-o", "--output", "-P", "--pset", "-F", "-R", "-L",
                "--log-file", "-T")
_MYSQL_VALUES = ("-h", "--host", "-D", "--database", "-u", "--user", "-P", "--port", "-e", "--execute", "-S",
                 "--socket", "--protocol", "--defaults-file", "--defaults-extra-file", "--login-path")


def database_target(command, where):
    """A DROP (``psql -c``, ``mysql -e``), ``dropdb``, ``prisma migrate reset`` / ``db push
    --force-reset`` or ``rails db:drop|reset`` whose database is on another host (not
    localhost, 127.0.0.1, ::1 or a socket) or is named like production (``prod``,
    ``production``, ``live`` as a part of the name). A local throwaway one, or a target that
    cannot be told (a variable not set, a URL in a file hookmux does not read), is not judged:
    the advisory speaks."""
    argv = [_expanded(word, where) for word in command.argv]
    if None in argv:
        return []
    program = argv[0]
    if program in ("psql", "mysql", "mariadb"):
        return _sql_client(program, argv[1:], where, command.stdin and render(command.stdin))
    if program == "dropdb":
        return _dropdb(argv[1:], where)
    if "prisma" in argv[:4] and (program == "prisma" or program in _RUNNERS):
        return _prisma(argv[argv.index("prisma") + 1:], where)
    if program in ("rails", "rake") or program == "bundle" and argv[1:3] in (["exec", "rails"], ["exec", "rake"]):
        return _rails(argv, where)
    return []


def _expanded(word, where):
    if "$" not in word:
        return word
    if "$(" in word or "`" in word:
        return None
    return targets.expand(word, where.env)


def _options(words, value_options):
    """({option: value}, [operands]) with ``-hHOST``, ``--host=HOST`` and ``-h HOST`` read alike."""
    values, operands, index = {}, [], 0
    while index < len(words):
        word = words[index]
        index += 1
        name, eq, value = word.partition("=")
        if word.startswith("--") and name in value_options:
            if not eq:
                value, index = (words[index] if index < len(words) else ""), index + 1
            values.setdefault(name, value)
        elif word.startswith("-") and not word.startswith("--") and word[:2] in value_options:
            value = word[2:]
            if not value:
                value, index = (words[index] if index < len(words) else ""), index + 1
            values.setdefault(word[:2], value)
        elif not word.startswith("-"):
            operands.append(word)
    return values, operands


def _sql_client(program, words, where, stdin=None):
    """``stdin``: the file the client reads its SQL from (``< F``), or None."""
    if program == "psql":
        values, operands = _options(words, _PSQL_VALUES)
        sql = values.get("-c") or values.get("--command") or _sql_file(values.get("-f") or values.get("--file"), where)
        target = values.get("-d") or values.get("--dbname") or (operands[0] if operands else "")
        host, database = _pg_target(target, values.get("-h") or values.get("--host"), where)
    else:
        values, operands = _options(words, _MYSQL_VALUES)
        sql = values.get("-e") or values.get("--execute") or ""
        socket = values.get("-S") or values.get("--socket") or values.get("--protocol", "").lower() == "socket"
        host = "" if socket else (values.get("-h") or values.get("--host") or where.program_env.get("MYSQL_HOST", ""))
        database = values.get("-D") or values.get("--database") or (operands[0] if operands else "")
    sql = sql or _sql_file(stdin, where)
    dropped = _DROP.findall(sql)
    if not dropped:
        return []
    names = [database] + [name for kind, name in dropped if kind.lower() == "database"]
    what = ", ".join("%s %s" % (kind.upper(), name) for kind, name in dropped[:3])
    return _shared(host, names, "%s on %s" % (what, _describe(host, database)))


def _sql_file(word, where):
    """The text of the SQL file ``word`` names (``-f F``, ``< F``); "" when none is named, it is
    not a regular text file of at most 64 KiB (``shell.text_file``), or its name is only known at
    run time."""
    if not word or word == "-" or "$(" in word or "`" in word:
        return ""
    text = targets.expand(word, where.env) if ("$" in word or word.startswith("~")) else word
    return (text and text_file(os.path.join(where.cwd or "/", text))) or ""


def _pg_target(target, host, where):
    """(host, database) of psql's or dropdb's connection: a URI or ``key=value`` string, -h, PGHOST."""
    database = target
    if target.startswith(("postgres://", "postgresql://")):
        url_host, database = url_target(target)
        host = host or url_host
    elif "=" in target:
        pairs = dict(part.split("=", 1) for part in target.split() if "=" in part)
        host, database = host or pairs.get("host", ""), pairs.get("dbname", "")
    if host is None:
        host = where.program_env.get("PGHOST", "")
    return host, database or where.program_env.get("PGDATABASE", "")


def _dropdb(words, where):
    values, operands = _options(words, ("-h", "--host", "-p", "--port", "-U", "--username", "--maintenance-db"))
    if not operands:
        return []
    host, _ = _pg_target("", values.get("-h") or values.get("--host"), where)
    return _shared(host, [operands[0]], "the database %s on %s" % (operands[0], _describe(host, operands[0])))


def url_target(url):
    """(host, database) of a database URL; host "" for a socket (``postgres:///db``, ``?host=/run/…``,
    ``%2Frun%2F…``), lower case. The first host of a list counts."""
    rest = url.split("://", 1)[1] if "://" in url else url
    rest, _, query = rest.partition("?")
    authority, _, path = rest.partition("/")
    host = authority.rsplit("@", 1)[-1].split(",", 1)[0]
    if host.startswith("["):
        host = host[:host.find("]") + 1]
    else:
        host = host.split(":", 1)[0]
    for pair in query.split("&"):
        key, _, value = pair.partition("=")
        if key == "host" and value:
            host = value
    if host.lower().startswith(("%2f", "/")):
        host = ""
    return host.lower(), path.split("/", 1)[0]


def _shared(host, names, what):
    """The finding when ``host`` is not local or a name looks like production, else []."""
    why = []
    if host.lower() not in _LOCAL_HOSTS and not host.startswith("/"):  # a socket's folder is local
        why.append("on another host (%s)" % host)
    prod = [name for name in names if name and _PRODUCTION.search(name.lower())]
    if prod:
        why.append("named like production (%s)" % prod[0])
    return ["%s: %s" % (what, " and ".join(why))] if why else []


def _describe(host, database):
    return "%s%s" % (host or "the local server", "/" + database if database else "")


def _prisma(words, where):
    resets = words[:2] == ["migrate", "reset"] or words[:2] == ["db", "push"] and "--force-reset" in words
    if not resets:
        return []
    values, _ = _options(words, ("--schema",))
    url = _prisma_url(values.get("--schema"), where)
    if not url:
        return []
    host, database = url_target(url)
    return _shared(host, [database], "every table of %s (prisma %s)" % (_describe(host, database), " ".join(words[:2])))


def _prisma_url(schema, where):
    """The URL prisma connects to: the schema's ``url`` (``env("NAME")`` or a literal), read from
    the command's environment, then the project's ``.env`` and ``prisma/.env`` as prisma loads them."""
    folder = where.cwd or ""
    variable = "DATABASE_URL"
    paths = [os.path.join(folder, schema)] if schema else [os.path.join(folder, "prisma", "schema.prisma"),
                                                          os.path.join(folder, "schema.prisma")]
    for path in paths:
        text = _read(path)
        if text is None:
            continue
        match = re.search(r'(?m)^\s*url\s*=\s*(?:env\(\s*"(\w+)"\s*\)|"([^"]+)")', text)
        if match and match.group(2):
            return match.group(2)
        if match:
            variable = match.group(1)
        break
    value = where.program_env.get(variable)
    if value:
        return value
    for path in (os.path.join(folder, ".env"), os.path.join(folder, "prisma", ".env")):
        value = _dotenv(path).get(variable)
        if value:
            return value
    return ""


def _rails(argv, where):
    tasks = [word for word in argv[1:] if word in _RAILS_DROPS]
    if not tasks:
        return []
    values, _ = _options(argv[1:], ("-e", "--environment"))
    arguments = dict(word.split("=", 1) for word in argv[1:] if "=" in word and not word.startswith("-"))
    environment = values.get("-e") or values.get("--environment") or arguments.get("RAILS_ENV") or \
        where.program_env.get("RAILS_ENV") or ""
    url = arguments.get("DATABASE_URL") or where.program_env.get("DATABASE_URL") or ""
    host, database = url_target(url) if url else ("", "")
    found = _shared(host, [environment, database], "the database of %s (rails %s)" % (
        "the %s environment" % environment if environment else _describe(host, database), tasks[0]))
    return found


def _read(path, limit=1 << 20):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(limit)
    except OSError:
        return None


def _dotenv(path):
    """``KEY=VALUE`` lines of a ``.env`` file (quotes taken off), {} when it is not there."""
    text = _read(path)
    values = {}
    for line in (text or "").splitlines():
        line = line.strip()
        if line.startswith("export "):
            line = line[7:].lstrip()
        key, eq, value = line.partition("=")
        if eq and key.strip() and not key.startswith("#"):
            value = value.strip()
            if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            values.setdefault(key.strip(), value)
    return values


# ---------------------------------------------------------------- terraform, pulumi

_MAX_RESOURCES_SHOWN = 3


def iac_state(command, where):
    """``terraform destroy`` / ``apply -destroy`` (``tofu`` too) and ``pulumi destroy`` when the
    state holds resources. terraform: the local state file is read as JSON (the workspace's,
    or ``-state=PATH``) without running terraform; with a backend that is not local,
    ``terraform -chdir=DIR state list`` is asked. pulumi: ``pulumi stack export`` of the stack.
    No state, no answer in time: nothing is judged."""
    argv = command.argv
    if argv[0] == "pulumi":
        return _pulumi(argv, where)
    folder, words = where.cwd, list(argv[1:])
    while words and words[0].startswith("-"):
        if words[0].startswith("-chdir="):
            folder = os.path.join(folder or "", os.path.expanduser(words[0][len("-chdir="):]))
        words.pop(0)
    if not folder or not words:
        return []
    resources = _terraform_resources(argv[0], folder, words[1:], where)
    if not resources:
        return []
    shown = ", ".join(resources[:_MAX_RESOURCES_SHOWN]) + (", ..." if len(resources) > _MAX_RESOURCES_SHOWN else "")
    return ["%d resource%s of the state in %s (%s)" % (len(resources), "" if len(resources) == 1 else "s", folder,
                                                         shown)]


def _terraform_resources(program, folder, words, where):
    data_dir = os.path.join(folder, where.program_env.get("TF_DATA_DIR") or ".terraform")
    backend = _json(os.path.join(data_dir, "terraform.tfstate")) or {}
    backend = backend.get("backend") if isinstance(backend.get("backend"), dict) else {}
    kind = backend.get("type") or "local"
    state = [word.split("=", 1)[1] for word in words if word.startswith(("-state=", "--state="))]
    if kind != "local" and not state:
        out = tool_state.ask(where, program, ["-chdir=" + folder, "state", "list"])
        if out is None:
            return []
        return [line for line in out.decode("utf-8", "replace").splitlines()
                if line.strip() and not line.startswith("data.") and ".data." not in line]
    workspace = where.program_env.get("TF_WORKSPACE") or (_read(os.path.join(data_dir, "environment")) or "").strip() \
        or "default"
    if state:
        path = os.path.join(folder, state[-1])
    else:
        config = backend.get("config") if isinstance(backend.get("config"), dict) else {}
        base = config.get("path") or "terraform.tfstate"
        path = os.path.join(folder, base if workspace == "default" else
                            os.path.join(config.get("workspace_dir") or "terraform.tfstate.d", workspace,
                                         "terraform.tfstate"))
    document = _json(path)
    if not isinstance(document, dict) or not isinstance(document.get("resources"), list):
        return []
    found = []
    for resource in document["resources"]:
        if isinstance(resource, dict) and resource.get("mode", "managed") == "managed" and resource.get("instances"):
            found.append(".".join(str(part) for part in (resource.get("module"), resource.get("type"),
                                                         resource.get("name")) if part))
    return found


def _pulumi(argv, where):
    values, operands = _options(list(argv[1:]), ("-s", "--stack", "-C", "--cwd"))
    if operands[:1] != ["destroy"] and "destroy" not in operands:
        return []
    folder = values.get("-C") or values.get("--cwd")
    folder = os.path.join(where.cwd or "", folder) if folder else where.cwd
    if not folder or not os.path.isdir(folder):
        return []
    args = ["stack", "export", "--cwd", folder]
    stack = values.get("-s") or values.get("--stack")
    if stack:
        args += ["--stack", stack]
    out = tool_state.ask(where, "pulumi", args)
    if out is None:
        return []
    try:
        document = __import__("json").loads(out.decode("utf-8", "replace"))
        resources = document["deployment"].get("resources") or []
    except (ValueError, KeyError, TypeError, AttributeError):
        return []
    found = [r.get("urn", "").rsplit("::", 1)[-1] for r in resources if isinstance(r, dict)
             and r.get("type") != "pulumi:pulumi:Stack" and not str(r.get("type", "")).startswith("pulumi:providers:")]
    if not found:
        return []
    shown = ", ".join(found[:_MAX_RESOURCES_SHOWN]) + (", ..." if len(found) > _MAX_RESOURCES_SHOWN else "")
    return ["%d resource%s of the stack%s (%s)" % (len(found), "" if len(found) == 1 else "s",
                                                    " " + stack if stack else "", shown)]


def _json(path):
    text = _read(path, 64 << 20)
    if text is None:
        return None
    try:
        return __import__("json").loads(text)
    except ValueError:
        return None


# ---------------------------------------------------------------- secrets

#: Credential files (the advisory's SECRET-UPLOAD / SECRET-PIPE-TO-NETWORK definitions): path
#: endings, and the exact base name ``.env``.
CREDENTIAL_ENDINGS = ("/.aws/credentials", "/.netrc", "/.pgpass", "/.kube/config", "/.docker/config.json",
                      "/gh/hosts.yml", "/.git-credentials")
_NETWORK_STDIN = ("nc", "ncat", "netcat", "socat", "telnet")
_COPIERS = ("scp", "sftp", "rsync", "rclone")


def credential(path):
    """Whether ``path`` (absolute) is a credential file of the list."""
    base = os.path.basename(path)
    if base == ".env" or path.endswith(CREDENTIAL_ENDINGS):
        return True
    return "/.ssh/" in path and base.startswith("id_") and not base.endswith(".pub")


def secret_sent(command, where):
    """A credential file that exists and is not empty, sent off the machine: ``curl -d @FILE``,
    ``-F f=@FILE``, ``-T FILE``, ``wget --post-file=FILE``; ``scp``/``sftp``/``rsync``/``rclone``
    of it to a host (``HOST:PATH``); redirected into ``nc``/``socat``/``telnet`` (``< FILE``); or
    read by the command piped into ``nc``/``socat``/``telnet``,
    or into a ``curl`` that sends its stdin (``-d @-``, ``-T -``). Reading or printing one is
    advice only (the advisory's rows)."""
    argv = command.argv
    program = argv[0]
    sent = []
    if program == "curl":
        sent = _curl_files(argv[1:])
    elif program == "wget":
        sent = [w.split("=", 1)[1] for w in argv[1:] if w.startswith(("--post-file=", "--body-file="))]
    elif program in _COPIERS:
        operands = [w for w in argv[1:] if not w.startswith("-")]
        if len(operands) >= 2 and _remote(operands[-1]):
            sent = operands[:-1]
    stdin = "-" in sent or program in _NETWORK_STDIN
    if program in _NETWORK_STDIN and command.stdin:  # `nc HOST PORT < ~/.ssh/id_ed25519`
        sent = sent + [render(command.stdin)]
    lost = _credentials(sent, where)
    feeder = getattr(where, "feeder", None)
    if stdin and feeder is not None:
        lost += [why for why in _credentials(list(feeder.argv[1:]), where) if why not in lost]
    return lost


def _curl_files(words):
    files, index = [], 0
    data = ("-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "--json")
    while index < len(words):
        word = words[index]
        index += 1
        name, eq, value = word.partition("=") if word.startswith("--") else (word[:2], "", word[2:])
        if name in data + ("-F", "--form", "-T", "--upload-file"):
            if not (eq or value):
                value, index = (words[index] if index < len(words) else ""), index + 1
            if name in ("-T", "--upload-file"):
                files.append(value)
            elif name in ("-F", "--form"):
                match = re.search(r"=[@<]([^;]+)", value)
                files += [match.group(1)] if match else []
            elif name != "--data-raw" and "@" in value:
                files.append(value.split("@", 1)[1])
    return files


def _remote(word):
    """``HOST:PATH``, ``USER@HOST:PATH``, ``HOST::MODULE``, rclone's ``REMOTE:PATH`` (not ``./a:b``, ``/a:b``)."""
    head = word.split("/", 1)[0]
    return ":" in head and not word.startswith((".", "/", "~"))


def _credentials(words, where):
    lost = []
    for word in words:
        if not word or word == "-" or "$(" in word:
            continue
        text = targets.expand(word, where.env) if ("$" in word or word.startswith("~")) else word
        if not text:
            continue
        path = os.path.normpath(os.path.join(where.cwd or "/", text))
        if credential(path) and os.path.isfile(path) and os.path.getsize(path) > 0:
            why = "the credential file %s (it would leave this machine)" % path
            if why not in lost:
                lost.append(why)
    return lost
