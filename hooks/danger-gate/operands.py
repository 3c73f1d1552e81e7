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
- ``pick: "redirected"``: not the words but the files the command's redirections empty before
  it starts (``: > F``, ``sed … F > F``: ``shell.Command.truncate_words``); any program.
- ``uncommitted``: a picked file that is tracked in a git work tree loses its uncommitted
  changes (the work tree's, not the index's: ``git add`` kept those). For ``redirected`` only
  when the command writes nothing into it (``:``, ``true``, ``cat /dev/null``) or reads it
  itself (``sed … F > F``: the shell empties F first); a program writing new content into a
  file is an edit, as the file tools' are.
- ``archive``: ``"first"`` (the first operand, not a source: ``zip -m ARCHIVE FILE…``) or the
  first spelling of the value option naming it (``tar -f``; none: standard output). The sources
  a program removes once archived are lost only when the archive is not kept: ``-`` into
  ``/dev/null``, the caller's output (no file, no pipe), or ``/dev/null`` itself; into a file
  (or a pipe, another host) they can come back from it.
- ``directory_option``: the first spelling of the value option that changes the folder the
  later operands are relative to (``tar -C DIR``).
- ``bundle_first``: a first word without ``-`` is a cluster of option letters whose value
  options take the next words in order (``tar cvf out.tar DIR``).
- ``list_options``: ``["-x|--exclude", ...]``: options whose values run up to the next word
  starting with ``-`` (``zip -x '*.o' a.o``): those words are no operands.
- ``files``: for a ``paths`` judge, a picked operand that is a file is judged as ``emptied``
  judges it too (a private key; with ``uncommitted``, its changes): programs that remove files
  and folders alike (tar, zip).

Paths picked through ``into_folder`` come with index None: no glob of a word stands for them.
"""
import os

_KEYS = ("value_options", "pick", "target_option", "into_folder", "slash_is_contents", "skip_remote",
         "size_option", "reference_option", "uncommitted", "archive", "directory_option", "bundle_first",
         "list_options", "files")
_PICKS = ("all", "last", "but-last", "redirected")
#: Programs that write nothing into the file their output is redirected to (``: > F``).
_WRITE_NOTHING = frozenset((":", "true", "false"))
#: Where an archive written is not kept.
_NOWHERE = ("/dev/null", "/dev/zero", "/dev/full", "/dev/stderr", "/dev/fd/2", "/dev/tty")
_STDOUT = ("-", "/dev/stdout", "/dev/fd/1")
#: The judges (judges.py) that ask about the words a row's ``operands`` pick.
JUDGES = ("paths", "emptied")
# truncate's units (GNU coreutils): K is 1024, KB 1000, KiB 1024, up to Y.
_UNITS = "KMGTPEZY"


class Operands:
    __slots__ = ("value_options", "pick", "target", "into_folder", "slash", "skip_remote", "size", "reference",
                 "uncommitted", "archive", "directory", "bundle_first", "list_options", "files")

    def __init__(self, value_options, pick, target, into_folder, slash, skip_remote, size, reference,
                 uncommitted=False, archive=None, directory=None, bundle_first=False, list_options=(), files=False):
        #: tuples of spellings, each an option whose value is a word of its own
        self.value_options = value_options
        self.pick = pick
        self.target = target
        self.into_folder = into_folder
        self.slash = slash
        self.skip_remote = skip_remote
        self.size = size
        self.reference = reference
        self.uncommitted = uncommitted
        self.archive = archive
        self.directory = directory
        self.bundle_first = bundle_first
        #: tuples of spellings, each an option whose values run to the next option
        self.list_options = list_options
        self.files = files

    def targets(self, command, where):
        """What the program deletes, empties or overwrites: (word index or None, [paths]) pairs."""
        import judges

        argv = command.argv
        if self.pick == "redirected":
            return [(None, targets_of(parts, where)) for parts in command.truncate_words]
        seen = []
        indexes, values = parse(argv, self.value_options, self.list_options, self.bundle_first, seen)
        if self.archive is not None:
            if not self._archive_lost(command, where, indexes, values):
                return []
            if self.archive == "first":
                indexes = indexes[1:]
        if self.directory is not None:
            return [(index, judges.reached(command, index, _moved(where, seen, self.directory, index)))
                    for index in indexes]
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


    def _archive_lost(self, command, where, indexes, values):
        """Whether the archive the sources go into is not kept (``-`` into nothing, /dev/null)."""
        if self.archive == "first":
            if not indexes:
                return False
            text = command.argv[indexes[0]]
        else:
            text = values.get(self.archive, ("-", None))[0]
        if text in _STDOUT:
            if command.stdout == "|":
                return False  # a pipe: the next program has it (`tar c … | ssh host tar x`)
            if command.stdout is None:
                return True  # the caller's output: no file keeps it
            return any(path in _NOWHERE for path in targets_of(command.stdout, where))
        return any(path in _NOWHERE for path in _reach_text(text, where))

    def unsaved(self, command, where, found):
        """The picked files whose uncommitted changes a run would lose (``uncommitted``)."""
        files = [path for _, paths in found for path in paths if os.path.isfile(path)]
        if self.pick != "redirected" or not files:
            return files
        argv = command.argv
        if argv[0] in _WRITE_NOTHING or argv == ("cat", "/dev/null") or argv[:2] == ("cp", "/dev/null"):
            return files
        import judges

        read = set()
        for index in judges.operand_indexes(argv):
            read.update(_real(path) for path in judges.reached(command, index, where))
        return [path for path in files if _real(path) in read]


def targets_of(parts, where):
    import targets

    return targets.reach_parts(parts, where.cwd, where.env, where.carried)


def _real(path):
    import targets

    return targets.real(path)


def _moved(where, seen, directory, index):
    """``where`` in the folder the ``directory`` options before word ``index`` moved to (tar -C)."""
    import judges
    import targets

    cwd = where.cwd
    for group, text, _value_index, position in seen:
        if group == directory and position < index and cwd:
            found = targets.reach(text, cwd, where.env)
            cwd = found[0] if len(found) == 1 else None
    if cwd == where.cwd:
        return where
    return judges.Where(cwd, where.env, where.places, where.git, where.saved, where.program_env,
                        carried=where.carried)


def compile_spec(spec, loses="paths"):
    """The Operands of a row's ``operands`` object (its judge ``loses``); ValueError("operands.KEY: why")."""
    if loses not in JUDGES:
        raise ValueError("operands: only with the judges %s, not %r" % (", ".join(JUDGES), loses))
    if not isinstance(spec, dict):
        raise ValueError("operands: must be an object")
    for key in spec:
        if key not in _KEYS:
            raise ValueError("operands.%s: unknown key (known: %s)" % (key, ", ".join(_KEYS)))
    value_options = _spellings(spec, "value_options")
    list_options = _spellings(spec, "list_options")
    pick = spec.get("pick", "all")
    if pick not in _PICKS:
        raise ValueError("operands.pick: one of %s" % ", ".join(_PICKS))
    named = {}
    for key in ("target_option", "size_option", "reference_option", "archive", "directory_option"):
        value = spec.get(key)
        if value is not None and value not in [group[0] for group in value_options] \
                and not (key == "archive" and value == "first"):
            raise ValueError("operands.%s: must be the first spelling of one of value_options%s"
                             % (key, ' or "first"' if key == "archive" else ""))
        named[key] = value
    flags = {}
    for key in ("into_folder", "slash_is_contents", "skip_remote", "uncommitted", "bundle_first", "files"):
        flags[key] = spec.get(key, False)
        if not isinstance(flags[key], bool):
            raise ValueError("operands.%s: must be true or false" % key)
    if flags["files"] and loses != "paths":
        raise ValueError("operands.files: only with the judge paths (emptied judges files already)")
    if pick == "redirected" and (value_options or list_options or any(named.values())):
        raise ValueError("operands.pick: redirected takes no options (it picks no words)")
    return Operands(value_options, pick, named["target_option"], flags["into_folder"], flags["slash_is_contents"],
                    flags["skip_remote"], named["size_option"], named["reference_option"], flags["uncommitted"],
                    named["archive"], named["directory_option"], flags["bundle_first"], list_options, flags["files"])


def _spellings(spec, key):
    groups = spec.get(key, [])
    if not isinstance(groups, list) or not all(isinstance(g, str) and g.strip() for g in groups):
        raise ValueError('operands.%s: must be a list of spellings such as "-s|--size"' % key)
    found = tuple(tuple(s.strip() for s in group.split("|")) for group in groups)
    if not all(all(s.startswith("-") and len(s) > 1 for s in group) for group in found):
        raise ValueError("operands.%s: every spelling starts with -" % key)
    return found


def parse(argv, value_options, list_options=(), bundle_first=False, seen=None):
    """(the operands' word indexes, {first spelling: (value, its word index or None)}) of ``argv``;
    ``seen`` (a list) gets every value option as (first spelling, value, its word index or None,
    the option's word index), in order."""
    found, values = [], {}
    index = 1
    if bundle_first and len(argv) > 1 and argv[1][:1] not in ("-", "") and argv[1].isalpha():
        # tar cvf out.tar DIR: the letters' values are the next words, in order
        position = 2
        for letter in argv[1]:
            group = _short(letter, value_options)
            if group is not None and position < len(argv):
                values[group[0]] = (argv[position], position)
                if seen is not None:
                    seen.append((group[0], argv[position], position, 1))
                position += 1
        index = position
    listing = False
    while index < len(argv):
        word = argv[index]
        if word == "--":
            found.extend(range(index + 1, len(argv)))
            break
        if listing and not word.startswith("-"):
            index += 1
            continue
        listing = False
        if word in [spelling for group in list_options for spelling in group]:
            listing = True
            index += 1
            continue
        group, value = None, None
        if word.startswith("--"):
            name, eq, attached = word.partition("=")
            group = _long(name, value_options)
            value = attached if eq else None
        elif word.startswith("-") and len(word) > 1 and _exact(word, value_options):
            group = _exact(word, value_options)  # zip -tt DATE: a two-letter option of its own
        elif word.startswith("-") and len(word) > 1:
            for position in range(1, len(word)):
                group = _short(word[position], value_options)
                if group is not None:
                    value = word[position + 1:] or None
                    break
        else:
            found.append(index)
        if group is not None:
            option = index
            if value is None and index + 1 < len(argv):
                index += 1
                values[group[0]] = (argv[index], index)
            else:
                values[group[0]] = (value or "", None)
            if seen is not None:
                seen.append((group[0],) + values[group[0]] + (option,))
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


def _exact(word, value_options):
    for group in value_options:
        if len(word) > 2 and word in group:
            return group
    return None


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
