"""Ask docker or terraform, bounded in time, what a data-store or infrastructure command would lose.

Each question is one fixed read-only command that hookmux builds itself: the program, a fixed
subcommand and the names it asks about (``docker volume ls --format …``, ``terraform state
list``), never the command's own words passed through. It shares the call's deadline with the
git questions (``git_state.Git``: one budget for all), so a slow daemon costs the call at most
what git may. An answer is the program's stdout; None when the program is absent, failed, or
did not answer in time: the judge then finds nothing (the advisory still speaks).

The program is the one of a trusted folder (``git_state.TRUSTED_BIN``, or ``HOOKMUX_TRUSTED_BIN``
from the host's environment), never the PATH an agent can write. It runs with the host's
environment less ``GIT_*``, ``PATH`` set to the trusted folders, no prompt (``TF_INPUT=0``), and
the connection variables the command itself sets (``DOCKER_HOST=… docker volume rm x`` asks
that daemon).

Nothing an agent can write picks a program the question starts (issue 38). docker is asked only
of a local socket or plain TCP daemon (``unix://``, ``tcp://``, or none named): an ``ssh://``
host makes docker start ssh, whose ``ProxyCommand`` in the agent-writable ``~/.ssh/config``
runs anything, and a context (``--context``, ``DOCKER_CONTEXT``) or a config folder
(``--config``, ``DOCKER_CONFIG``) is read from files the agent can write (CLI plugins, hooks,
credential helpers, an ssh endpoint). Those are not asked: the judge finds nothing, the
advisory speaks. docker's own config is a fresh empty private folder for each question.
terraform reads no CLI config (``TF_CLI_CONFIG_FILE`` is the empty ``/dev/null``: a
``credentials_helper`` there would start a program).
"""
import os
import time

import git_state

#: Variables of the command's own environment that pick what a question reaches.
CONNECTION_VARIABLES = {
    "docker": ("DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG"),
    "terraform": ("TF_WORKSPACE", "TF_DATA_DIR"),
}
_QUIET = {"TF_INPUT": "0", "TF_IN_AUTOMATION": "1", "NO_COLOR": "1", "CHECKPOINT_DISABLE": "1",
          "TF_CLI_CONFIG_FILE": os.devnull}
#: The daemon addresses docker is asked of: none of them starts a program.
_DOCKER_LOCAL = ("unix://", "tcp://")


def trusted_program(name, env):
    """The absolute path of ``name`` in a trusted folder, or None."""
    folders = env.get("HOOKMUX_TRUSTED_BIN")
    for folder in folders.split(os.pathsep) if folders else git_state.TRUSTED_BIN:
        path = os.path.join(folder, name)
        if os.path.isabs(path) and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def ask(where, program, args):
    """stdout (bytes) of the trusted ``program`` with ``args``, within the time the call has left
    (``where.git.deadline``); None when absent, failed or too slow."""
    git = where.git
    left = git.deadline - time.monotonic()
    path = trusted_program(program, git.env)
    if left <= 0.05 or path is None:
        return None
    env = dict(git.env)
    env.update(_QUIET)
    for name in CONNECTION_VARIABLES.get(program, ()):
        value = where.program_env.get(name)
        if value:
            env[name] = value
    private = None
    if program == "docker":
        private = docker_is_local(args, env) and _private_folder()
        if not private:
            return None
        env["DOCKER_CONFIG"] = private
    argv = [path, *args]
    try:
        try:
            return git_state._spawned(argv, env, left)
        except (AttributeError, NotImplementedError, TypeError):
            return git_state._subprocess(argv, env, left)  # no posix_spawn with setsid here
    except (OSError, ValueError):
        return None
    finally:
        if private:
            try:
                os.rmdir(private)  # only ever the empty folder made above; left if docker wrote into it
            except OSError:
                pass


def docker_is_local(args, env):
    """Whether the question ``docker ARGS`` with ``env`` reaches a daemon without starting a
    program: no context or config folder named, and the host (``-H``, ``DOCKER_HOST``) none or
    a local socket or plain TCP."""
    if env.get("DOCKER_CONTEXT", "default") != "default" or env.get("DOCKER_CONFIG"):
        return False
    hosts = [env.get("DOCKER_HOST") or "unix://"]
    index = 0
    while index < len(args) and args[index].startswith("-"):
        name, eq, value = args[index].partition("=")
        if not eq:
            value = args[index + 1] if index + 1 < len(args) else ""
            index += 1
        index += 1
        if name in ("-H", "--host"):
            hosts.append(value)
        elif name not in ("-c", "--context") or value != "default":
            return False  # a named context, --config: files the agent can write
    return all(host.startswith(_DOCKER_LOCAL) for host in hosts)


def _private_folder():
    """A new empty folder only this user can enter (``mkdir`` never follows a planted link)."""
    folder = os.path.join(os.environ.get("TMPDIR") or "/tmp",
                          "hookmux-docker-%d-%s" % (os.getpid(), os.urandom(6).hex()))
    try:
        os.mkdir(folder, 0o700)
    except OSError:
        return None
    return folder
