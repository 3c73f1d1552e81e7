"""Where a host's folders are for one session: ``~`` and the project folders above the cwd."""
import os

MAX_PARENTS = 64


def project_dirs(cwd, outside_repo_all=False):
    """cwd and its parents up to the one holding ``.git``. Outside a repository: just cwd,
    or with outside_repo_all every parent (where a host might look is not measured there)."""
    found = []
    folder = cwd
    for _ in range(MAX_PARENTS):
        found.append(folder)
        if os.path.exists(os.path.join(folder, ".git")):
            return found
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return found if outside_repo_all else [cwd]


class Places:
    """Expands the folder templates of ``hosts`` (``~/…``, ``{project}/…``, ``{cwd}/…``) for one session.

    ``{project}`` and ``{cwd}`` both stand for every folder from the cwd up to the
    repository root: both hosts load a repository's agents and skills from a subfolder.
    """

    __slots__ = ("home", "cwd", "_projects", "_wide")

    def __init__(self, cwd=None, home=None):
        self.home = home or os.path.expanduser("~")  #: the user's home
        if not (isinstance(cwd, str) and os.path.isabs(cwd)):
            cwd = os.getcwd()
        self.cwd = cwd  #: the session's working folder (the payload's cwd)
        self._projects = None
        self._wide = None

    def folders(self, templates, wide=False):
        """Absolute folders for templates, in order, each once; other placeholders are skipped.

        wide: outside a repository, every parent of the cwd counts as a project folder (for
        skills: more places to find one only makes a deny rarer)."""
        out = []
        for template in templates:
            head, _, relative = template.partition("/")
            if head == "~":
                bases = [self.home]
            elif head in ("{project}", "{cwd}") and wide:
                if self._wide is None:
                    self._wide = project_dirs(self.cwd, True)
                bases = self._wide
            elif head in ("{project}", "{cwd}"):
                if self._projects is None:
                    self._projects = project_dirs(self.cwd)
                bases = self._projects
            else:
                continue
            for base in bases:
                path = os.path.join(base, relative)
                if path not in out:
                    out.append(path)
        return out
