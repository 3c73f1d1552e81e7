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
"""
import os
import time

import git_state

#: Variables of the command's own environment that pick what a question reaches.
CONNECTION_VARIABLES = {
    "docker": ("DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG"),
    "terraform": ("TF_WORKSPACE", "TF_DATA_DIR"),
}
_QUIET = {"TF_INPUT": "0", "TF_IN_AUTOMATION": "1", "NO_COLOR": "1", "CHECKPOINT_DISABLE": "1"}


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
    argv = [path, *args]
    try:
        try:
            return git_state._spawned(argv, env, left)
        except (AttributeError, NotImplementedError, TypeError):
            return git_state._subprocess(argv, env, left)  # no posix_spawn with setsid here
    except (OSError, ValueError):
        return None
