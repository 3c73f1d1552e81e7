"""The simple commands a shell command would run, from the shell reader of issue 26.

    simple_commands(command, cwd) -> [Simple(argv, origin, assignments)]

INTERIM until hooks/_common/shell.py lands: a whitespace/operator split with shlex, no
wrappers, no substitutions. Replaced by the shared reader at the merge; nothing else in the
gate reads the shell.
"""
import shlex


class Simple:
    __slots__ = ("argv", "origin", "assignments")

    def __init__(self, argv, origin="", assignments=None):
        self.argv = argv
        self.origin = origin
        self.assignments = assignments or {}


_OPERATORS = frozenset((";", "&&", "||", "|", "&", "|&", "\n", ";;", "(", ")"))


def simple_commands(command, cwd=""):
    try:
        lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        lexer.commenters = ""
        tokens = list(lexer)
    except ValueError:
        tokens = command.split()
    found, current = [], []
    for token in tokens + [";"]:
        if token in _OPERATORS:
            if current:
                found.append(_simple(current))
            current = []
        else:
            current.append(token)
    return found


def _simple(words):
    assignments = {}
    while words and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
        name, value = words[0].split("=", 1)
        assignments[name] = value
        words = words[1:]
    while words and words[0] in ("sudo", "command", "exec", "nohup", "time"):
        words = words[1:]
    return Simple(words, "", assignments)
