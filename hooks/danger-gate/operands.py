"""Which words of a command a row's judge asks about, from the row's ``operands`` data.

    compile_spec(spec, loses) -> Operands     # ValueError names the field
    Operands.targets(command, where) -> [(word index or None, [absolute paths]), ...]

A row without ``operands`` is judged on every operand (``rm``: each word that is no option).
With it, the same judges (``paths``, ``emptied``) ask "what would be lost?" of the words the
program really deletes, empties or overwrites (dangers.json's ``rsync``, ``truncate``,
``shred`` and ``cp`` rows). The keys, all optional:

- ``value_options``: ``["-s|--size", ...]``: options whose value is the next word (or the rest
  of a short cluster, ``-s0``, or after ``=``): those words are no operands.
- ``pick``: ``"all"`` (the default), ``"last"`` (the destination: the last of at least two
  operands, or the value of ``target_option``), ``"but-last"`` (the sources).
- ``target_option``: the first spelling of a value option that names the destination folder
  (``cp -t DIR``): every operand is a source then.
- ``into_folder``: a destination that is an existing folder receives ``DEST/NAME`` of each
  source: that is what is overwritten (``cp id_ed25519 ~/.ssh/``), or synchronised
  (``rsync --delete Documents ~/``), not the folder.
- ``slash_is_contents``: a source ending in ``/`` (or ``.``) puts its contents into the
  destination itself (rsync): then the destination folder is what is synchronised.
- ``skip_remote``: an operand on another host (``host:path``, ``rsync://…``) is not judged.
- ``size_option``, ``reference_option``: the first spellings of the size and reference options
  (truncate): only the files the new size makes smaller count, judged on the disk.

Paths picked through ``into_folder`` come with index None: no glob of a word stands for them.
"""
import os

_KEYS = ("value_options", "pick", "target_option", "into_folder", "slash_is_contents", "skip_remote",
         "size_option", "reference_option")
_PICKS = ("all", "last", "but-last")
#: The judges (judges.py) that ask about the words a row's ``operands`` pick.
JUDGES = ("paths", "emptied")
# truncate's units (GNU coreutils): K is 1024, KB 1000, KiB 1024, up to Y.
_UNITS = "KMGTPEZY"


class Operands:
    __slots__ = ("value_options", "pick", "target", "into_folder", "slash", "skip_remote", "size", "reference")

    def __init__(self, value_options, pick, target, into_folder, slash, skip_remote, size, reference):
        #: tuples of spellings, each an option whose value is a word of its own
        self.value_options = value_options
        self.pick = pick
        self.target = target
        self.into_folder = into_folder
        self.slash = slash
        self.skip_remote = skip_remote
        self.size = size
        self.reference = reference

    def targets(self, command, where):
        """What the program deletes, empties or overwrites: (word index or None, [paths]) pairs."""
        import judges

        argv = command.argv
        indexes, values = parse(argv, self.value_options)
        if self.pick == "all":
            found = [(index, judges.reached(command, index, where)) for index in indexes]
        elif self.pick == "but-last":
            sources = indexes if self.target in values else indexes[:-1]
            found = [(index, judges.reached(command, index, where)) for index in sources
                     if not (self.skip_remote and _remote(argv[index]))]
        else:
            found = self._destination(command, where, indexes, values)
        if self.size or self.reference:
            found = [(index, [path for path in paths if _shrinks(path, values, self, where)])
                     for index, paths in found]
        return found

    def _destination(self, command, where, indexes, values):
        import judges

        argv = command.argv
        if self.target in values:
            text, index = values[self.target]
            if self.skip_remote and _remote(text):
                return []
            reached = (judges.reached(command, index, where) if index is not None
                       else _reach_text(text, where))
            sources = indexes
        else:
            if len(indexes) < 2 or (self.skip_remote and _remote(argv[indexes[-1]])):
                return []
            reached = judges.reached(command, indexes[-1], where)
            sources = indexes[:-1]
        if not reached:
            return []
        destination = reached[-1]  # a glob: the shell makes its last match the destination
        if not (self.into_folder and os.path.isdir(destination)):
            return [(None, [destination])]
        written = []
        for index in sources:
            word = argv[index]
            if self.slash and (word.endswith("/") or word == "." or word.endswith("/.")):
                names = [""]
            elif self.skip_remote and _remote(word):
                names = [os.path.basename(os.path.normpath(word.split(":", 1)[1] or "."))]
            else:
                names = [os.path.basename(path) for path in judges.reached(command, index, where)]
            for name in names:
                path = os.path.join(destination, name) if name else destination
                if path not in written:
                    written.append(path)
        return [(None, written)] if written else []


def compile_spec(spec, loses="paths"):
    """The Operands of a row's ``operands`` object (its judge ``loses``); ValueError("operands.KEY: why")."""
    if loses not in JUDGES:
        raise ValueError("operands: only with the judges %s, not %r" % (", ".join(JUDGES), loses))
    if not isinstance(spec, dict):
        raise ValueError("operands: must be an object")
    for key in spec:
        if key not in _KEYS:
            raise ValueError("operands.%s: unknown key (known: %s)" % (key, ", ".join(_KEYS)))
    groups = spec.get("value_options", [])
    if not isinstance(groups, list) or not all(isinstance(g, str) and g.strip() for g in groups):
        raise ValueError('operands.value_options: must be a list of spellings such as "-s|--size"')
    value_options = tuple(tuple(s.strip() for s in group.split("|")) for group in groups)
    if not all(all(s.startswith("-") and len(s) > 1 for s in group) for group in value_options):
        raise ValueError("operands.value_options: every spelling starts with -")
    pick = spec.get("pick", "all")
    if pick not in _PICKS:
        raise ValueError("operands.pick: one of %s" % ", ".join(_PICKS))
    named = {}
    for key in ("target_option", "size_option", "reference_option"):
        value = spec.get(key)
        if value is not None and value not in [group[0] for group in value_options]:
            raise ValueError("operands.%s: must be the first spelling of one of value_options" % key)
        named[key] = value
    flags = {}
    for key in ("into_folder", "slash_is_contents", "skip_remote"):
        flags[key] = spec.get(key, False)
        if not isinstance(flags[key], bool):
            raise ValueError("operands.%s: must be true or false" % key)
    return Operands(value_options, pick, named["target_option"], flags["into_folder"], flags["slash_is_contents"],
                    flags["skip_remote"], named["size_option"], named["reference_option"])


def parse(argv, value_options):
    """(the operands' word indexes, {first spelling: (value, its word index or None)}) of ``argv``."""
    found, values = [], {}
    index = 1
    while index < len(argv):
        word = argv[index]
        if word == "--":
            found.extend(range(index + 1, len(argv)))
            break
        group, value = None, None
        if word.startswith("--"):
            name, eq, attached = word.partition("=")
            group = _long(name, value_options)
            value = attached if eq else None
        elif word.startswith("-") and len(word) > 1:
            for position in range(1, len(word)):
                group = _short(word[position], value_options)
                if group is not None:
                    value = word[position + 1:] or None
                    break
        else:
            found.append(index)
        if group is not None:
            if value is None and index + 1 < len(argv):
                index += 1
                values[group[0]] = (argv[index], index)
            else:
                values[group[0]] = (value or "", None)
        index += 1
    return found, values


def _long(name, value_options):
    """The group of a long value option ``name`` spells, or its unique abbreviation (getopt_long)."""
    near = []
    for group in value_options:
        for spelling in group:
            if spelling == name:
                return group
            # not at a word break: --partial is its own option, not --partial-dir's abbreviation
            if spelling.startswith("--") and 3 < len(name) < len(spelling) and spelling.startswith(name) \
                    and spelling[len(name)] != "-" and group not in near:
                near.append(group)
    return near[0] if len(near) == 1 else None


def _short(letter, value_options):
    for group in value_options:
        if "-" + letter in group:
            return group
    return None


def _remote(word):
    """Whether an rsync operand names another host: ``host:path``, ``user@host::module``, ``rsync://``."""
    if "://" in word:
        return True
    colon = word.find(":")
    return colon > 0 and "/" not in word[:colon] and not word.startswith(("~", "."))


def _reach_text(text, where):
    import targets

    return targets.reach(text, where.cwd, where.env)


def _shrinks(path, values, spec, where):
    """Whether truncate's ``-s``/``-r`` leave the regular file ``path`` smaller than it is."""
    try:
        if not os.path.isfile(path):
            return False
        current = os.path.getsize(path)
        base = current
        if spec.reference in values:
            reference = _reach_text(values[spec.reference][0], where)
            if len(reference) != 1:
                return False
            base = os.path.getsize(reference[0])
    except OSError:
        return False
    if spec.size not in values:
        return base < current if spec.reference in values else False
    new = _new_size(values[spec.size][0], base)
    return new is not None and new < current


def _new_size(text, base):
    """truncate's new size for ``-s TEXT`` over a file of ``base`` bytes; None when unreadable."""
    prefix = text[:1] if text[:1] in "+-<>/%" else ""
    number = _bytes(text[len(prefix):].strip())
    if number is None:
        return None
    if prefix == "+":
        return base + number
    if prefix == "-":
        return max(0, base - number)
    if prefix == "<":
        return min(base, number)
    if prefix == ">":
        return max(base, number)
    if prefix == "/":
        return base // number * number if number else None
    if prefix == "%":
        return -(-base // number) * number if number else None
    return number


def _bytes(text):
    digits = len(text) - len(text.lstrip("0123456789"))
    if not digits:
        return None
    number, unit = int(text[:digits]), text[digits:]
    if not unit:
        return number
    letter, rest = unit[0].upper(), unit[1:]
    if letter not in _UNITS or rest not in ("", "B", "iB"):
        return None
    return number * (1000 if rest == "B" else 1024) ** (_UNITS.index(letter) + 1)
