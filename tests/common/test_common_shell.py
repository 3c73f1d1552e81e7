"""hooks/_common/shell.py: the simple commands a command string would run, with their origin.

Every command here is data handed to the reader as a string; none is given to a shell."""
from __future__ import annotations

import sys
import time

import pytest
from hypothesis import given, settings, strategies as st

from hookmux_testing import HOOKS

sys.path.insert(0, str(HOOKS))
from _common import shell  # noqa: E402


def found(command, dialect="posix"):
    return [(c.argv, c.origin) for c in shell.read(command, dialect)]


def argvs(command):
    return [c.argv for c in shell.read(command)]


@pytest.mark.parametrize("command, argv", [
    ("ls -la src", ("ls", "-la", "src")),
    ('"git" "reset" --hard', ("git", "reset", "--hard")),
    ("'rm' -r''f /x", ("rm", "-rf", "/x")),
    ("g\\it st\\atus", ("git", "status")),
    ("git reset \\\n --hard", ("git", "reset", "--hard")),
    ("$'rm' $'-\\x72f' $'/\\145tc'", ("rm", "-rf", "/etc")),
    ('echo "a\\"b" \'c\\\'', ("echo", 'a"b', "c\\")),
    ("/usr/bin/git status", ("git", "status")),
    ("C:/Git/bin/git.exe status", ("git", "status")),
    ("rm -rf /x 2>/dev/null >out.log", ("rm", "-rf", "/x")),
    ("echo $HOME ${X:-y} $1 $$", ("echo", "$HOME", "${X:-y}", "$1", "$$")),
])
def test_words_are_normalised(command, argv):
    assert argvs(command)[-1] == argv


@pytest.mark.parametrize("command, expected", [
    ("a; b && c || d | e |& f & g\nh", ["a", "b", "c", "d", "e", "f", "g", "h"]),
    ("(a; (b)) && { c; }", ["a", "b", "c"]),
    ("if a; then b; else c; fi; while d; do e; done", ["a", "b", "c", "d", "e"]),
    ("a # b; c\nd", ["a", "d"]),
    ("echo $(( (1 + (2)) * $((3)) )); b", ["echo", "b"]),
    ("echo $(( 1 + (2 ); b", ["echo"]),
])
def test_segments(command, expected):
    assert [argv[0] for argv in argvs(command)] == expected


@pytest.mark.parametrize("command, argv, origin", [
    ("echo $(rm -rf /x)", ("rm", "-rf", "/x"), ("$(…)",)),
    ("echo `git reset --hard`", ("git", "reset", "--hard"), ("`…`",)),
    ('echo "in $(git clean -fd) quotes"', ("git", "clean", "-fd"), ("$(…)",)),
    ("diff <(git stash clear) >(cat)", ("git", "stash", "clear"), ("<(…)",)),
    ("echo $(( $(rm -r /y) + 1 ))", ("rm", "-r", "/y"), ("$(…)",)),
    ("echo $(( (2 * (3 + `rm -r /y`)) ))", ("rm", "-r", "/y"), ("`…`",)),
    ("echo $(( $((1)) + $(rm -r /y) ))", ("rm", "-r", "/y"), ("$(…)",)),
    ("ls > $(rm -rf /z)", ("rm", "-rf", "/z"), ("$(…)",)),
    ("echo ${X:-$(rm -rf /w)}", ("rm", "-rf", "/w"), ("$(…)",)),
    ("echo $(echo $(git push -f))", ("git", "push", "-f"), ("$(…)", "$(…)")),
    ("sudo -u root rm -rf /x", ("rm", "-rf", "/x"), ("sudo",)),
    ("env -i -u HOME -C /tmp A=1 -- rm -rf /x", ("rm", "-rf", "/x"), ("env",)),
    ("env -S 'rm -rf /x'", ("rm", "-rf", "/x"), ("env -S",)),
    ("nice -n 5 ionice -c3 timeout -s KILL 10 stdbuf -oL nohup time -p rm -rf /x", ("rm", "-rf", "/x"),
     ("nice", "ionice", "timeout", "stdbuf", "nohup", "time")),
    ("command exec builtin doas busybox rm -rf /x", ("rm", "-rf", "/x"), ("command", "exec", "builtin", "doas", "busybox")),
    # issue 39: wrappers that run their trailing words or a shell string, a command word that is a variable
    ("flock /tmp/l rm -rf /x", ("rm", "-rf", "/x"), ("flock",)),
    ("flock -w 5 -E 3 /tmp/l -c 'rm -rf /x'", ("rm", "-rf", "/x"), ("flock -c",)),
    ("script -qc 'rm -rf /x' /dev/null", ("rm", "-rf", "/x"), ("script -c",)),
    ("script --command='git reset --hard' log", ("git", "reset", "--hard"), ("script -c",)),
    ("systemd-run --user --unit t -p X=1 -E A=b rm -rf /x", ("rm", "-rf", "/x"), ("systemd-run",)),
    ("tmux new-session -d -s w -c /tmp 'rm -rf /x'", ("rm", "-rf", "/x"), ("tmux",)),
    ("tmux send-keys -t w 'git clean -fdx' Enter", ("git", "clean", "-fdx"), ("tmux",)),
    ("uv run --with rich --python 3.12 rm -rf /x", ("rm", "-rf", "/x"), ("uv",)),
    ("poetry run git reset --hard", ("git", "reset", "--hard"), ("poetry",)),
    ("pipenv run rm -rf /x", ("rm", "-rf", "/x"), ("pipenv",)),
    ("npx -y rimraf /x", ("rimraf", "/x"), ("npx",)),
    ("npm exec -- rimraf /x", ("rimraf", "/x"), ("npm",)),
    ("pnpm dlx rimraf /x", ("rimraf", "/x"), ("pnpm",)),
    ("yarn dlx rimraf /x", ("rimraf", "/x"), ("yarn",)),
    ("pipx run rimraf /x", ("rimraf", "/x"), ("pipx",)),
    ("bunx rimraf /x", ("rimraf", "/x"), ("bunx",)),
    ("R=rm; $R -rf /x", ("rm", "-rf", "/x"), ()),
    ('RM="rm -rf"; $RM /x', ("rm", "-rf", "/x"), ()),
    ("export G=git; sudo $G reset --hard", ("git", "reset", "--hard"), ("sudo",)),
    ("sh -c 'git reset --hard'", ("git", "reset", "--hard"), ("sh -c",)),
    ("bash -lc \"rm -rf /x\"", ("rm", "-rf", "/x"), ("bash -c",)),
    ("bash -o pipefail -ec 'rm -rf /x'", ("rm", "-rf", "/x"), ("bash -c",)),
    ("eval 'git push -f'", ("git", "push", "-f"), ("eval",)),
    ("bash <<EOF\ngit clean -fd\nEOF", ("git", "clean", "-fd"), ("bash <<",)),
    ("sh <<< 'git clean -fd'", ("git", "clean", "-fd"), ("sh <<<",)),
    ("cat <<EOF\n$(rm -rf /x)\nEOF", ("rm", "-rf", "/x"), ("<<", "$(…)")),
    ("python3 -c \"import shutil; shutil.rmtree('/x')\"", ("rm", "-rf", "/x"), ("python3 -c shutil.rmtree",)),
    ("python3 -c \"import os; os.system('git reset --hard')\"", ("git", "reset", "--hard"), ("python3 -c",)),
    ("python -c 'import subprocess; subprocess.run([\"rm\", \"-rf\", \"/x\"])'", ("rm", "-rf", "/x"), ("python -c",)),
    ("node -e \"require('fs').rmSync('/x', {recursive: true})\"", ("rm", "-rf", "/x"), ("node -e rmSync",)),
    ("ruby -e 'FileUtils.rm_rf(\"/x\")'", ("rm", "-rf", "/x"), ("ruby -e FileUtils.rm_rf",)),
    ("perl -e 'system(\"rm -rf /x\")'", ("rm", "-rf", "/x"), ("perl -e",)),
    ("python3 - <<'EOF'\nimport shutil\nshutil.rmtree('/x')\nEOF", ("rm", "-rf", "/x"), ("python3 << shutil.rmtree",)),
    ("pwsh -Command 'git reset --hard'", ("git", "reset", "--hard"), ("pwsh -Command",)),
    # issue 39 (follow): a function the call defines, read at each call with its words
    ('f() { rm -rf "$1"; }; f ~/Documents', ("rm", "-rf", "~/Documents"), ("f()",)),
    ('function f { rm -rf "$@"; }; f ~/Documents', ("rm", "-rf", "~/Documents"), ("f()",)),
    ('f() (rm -rf "$1"); f ~/x', ("rm", "-rf", "~/x"), ("f()",)),
    ('function wipe() {\n  git reset --hard "$1"\n}\nwipe HEAD~3', ("git", "reset", "--hard", "HEAD~3"), ("wipe()",)),
    ('f() { rm -rf "$*"; }; sudo f a', ("rm", "-rf", "a"), ("sudo", "f()")),
    ('g() { rm -rf "$2/$1"; }; f() { g "$@"; }; f x ~/D', ("rm", "-rf", "~/D/x"), ("f()", "g()")),
    # and a script the same call writes, then runs
    ("cat > /tmp/c.sh <<'E'\nrm -rf ~/Documents\nE\nbash /tmp/c.sh", ("rm", "-rf", "~/Documents"), ("bash FILE",)),
    ("echo 'git reset --hard' > c.sh && sh ./c.sh", ("git", "reset", "--hard"), ("sh FILE",)),
    ("tee w.sh <<'E' >/dev/null\nrm -rf \"$1\"\nE\nsource w.sh ~/x", ("rm", "-rf", "~/x"), ("source FILE",)),
])
def test_commands_are_found_where_they_run(command, argv, origin):
    assert (argv, origin) in found(command)


@pytest.mark.parametrize("command, argv", [
    ("npm publish", ("npm", "publish")), ("npm install rimraf", ("npm", "install", "rimraf")),
    ("uv pip install rm", ("uv", "pip", "install", "rm")), ("poetry install", ("poetry", "install")),
    ("tmux ls", ("tmux", "ls")), ("tmux attach -t w", ("tmux", "attach", "-t", "w")),
    ("script session.log", ("script", "session.log")), ("pipx install ruff", ("pipx", "install", "ruff")),
    ("$EDITOR notes.txt", ("$EDITOR", "notes.txt")), ("for c in a; do $c -rf /x; done", ("$c", "-rf", "/x")),
])
def test_a_runner_without_its_run_word_and_an_unset_variable_are_read_as_they_stand(command, argv):
    assert argv in [c.argv for c in shell.read(command)]


def test_flock_on_a_descriptor_runs_nothing():
    assert [c.argv for c in shell.read("flock 9")] == []


@pytest.mark.parametrize("command, program", [
    ("ls | xargs rm -rf", "rm"), ("xargs -0 -n1 -P4 rm -r < list", "rm"), ("find . -exec rm -rf {} \\;", "rm"),
    ("find . -execdir rm -r {} +", "rm"), ("parallel rm -rf ::: a b", "rm"),
])
def test_appended_arguments_are_unknown(command, program):
    commands = [c for c in shell.read(command) if c.argv[0] == program]
    assert commands and all(c.unknown_args for c in commands)


@pytest.mark.parametrize("command", [
    "echo 'git reset --hard'", "echo rm -rf /", "printf 'rm -rf /'", "grep -n 'rm -rf /' notes.md",
    "git commit -m 'never run rm -rf / here'", "cat <<'EOF'\nrm -rf /\nEOF", "command -v rm", "# rm -rf /",
    "python3 -c \"print('rm -rf /')\"", "echo '$(rm -rf /)'",
])
def test_data_is_data(command):
    assert not any(c.argv[:1] == ("rm",) or c.argv[1:2] == ("reset",) for c in shell.read(command))


def test_assignments_are_remembered():
    prefix = shell.read("TMPDIR=/ rm -rf $TMPDIR/x")[0]
    assert prefix.argv == ("rm", "-rf", "$TMPDIR/x") and prefix.assigns == {"TMPDIR": "/"}
    later = shell.read("D=/etc; rm -rf $D")[-1]
    assert later.assigns == {"D": "/etc"}
    assert shell.read("env X=1 rm a")[0].assigns == {"X": "1"}


def test_piped_from():
    assert [c.piped_from for c in shell.read("curl -s x | sudo bash")] == ["", "curl"]
    assert shell.read('bash -c "$(curl -s x)"')[-1].piped_from == "curl"
    assert shell.read("bash <(wget -qO- x)")[-1].piped_from == "wget"


def test_word_parts_keep_quoting_and_variables():
    command = shell.read("rm -rf \"$DIR\"/* '*' ~/x")[0]
    assert command.words[2] == [("var", "DIR"), ("lit", "/*")]
    assert command.words[3] == [("q", "*")]
    assert command.words[4] == [("tilde", ""), ("lit", "/x")]


def test_unparseable_input_is_still_read_as_tokens():
    assert ("rm", "-rf", "/home/user") in argvs("rm -rf '/home/user")
    assert ("rm", "-rf", "/srv") in argvs('echo "unterminated $(rm -rf /srv')
    assert ("git", "reset", "--hard") in argvs("git reset --hard )) ;; fi")


def test_powershell_dialect_keeps_backslashes():
    assert shell.read("Remove-Item -Recurse C:\\x; git reset --hard", "powershell")[0].argv[-1] == "C:\\x"
    assert ("git", "reset", "--hard") in [c.argv for c in shell.read("Remove-Item x; git reset --hard", "powershell")]


@pytest.mark.parametrize("text", [None, 7, b"\xff\xfe rm -rf / \xc3(", "\0" * 100, "", "   ", ")", "$(", "`", "'", '"',
                                  "<<", "<<EOF", "${", "$((", "\\"])
def test_never_raises_on_odd_input(text):
    assert isinstance(shell.read(text), list)


HOSTILE_100K = {
    "words": "ls -la " * 14_300,
    "nested $(": "$(" * 40_000 + ")" * 12_000,
    "open $(": "echo $(" * 14_300,
    "unterminated quote": "echo '" + "x" * 100_000,
    "variables in quotes": 'echo "' + "$x " * 33_000,
    "NULs": "rm -rf /\0" * 11_000,
    "backticks": "`" * 100_000,
    "heredoc": "cat <<EOF\n" + "line $(x)\n" * 10_000,
    "sh -c nest": "sh -c '" * 14_000,
    "separators": ";" * 100_000,
    "pipes": "a|" * 50_000,
    "dollars": "$" * 100_000,
    "braces": "${" * 50_000,
    "parens": "(" * 100_000,
    "arithmetic": "$((" * 33_000,
    "arithmetic, one substitution": "$((" * 33_000 + "$(x)",
    "arithmetic, backticks": "$((`x`" * 16_000,
    "arithmetic, substitutions": "$(($(x)" * 14_000,
    "eval": "eval " * 20_000,
    "sudo": "sudo " * 20_000,
    "tildes": "~" * 100_000,
    "backslashes": "\\" * 100_000,
    "ansi-c": "$'" + "\\x41" * 25_000,
    "invalid utf-8": (b"\xff\xfe rm -rf / \xc3(" * 7_000).decode("utf-8", "replace"),
    "python one-liner": "python -c '" + 'os.system("rm -rf /");' * 4_200 + "'",
    "find -exec": "find . " + "-exec rm {} ; " * 7_000,
}


@pytest.mark.parametrize("shape", sorted(HOSTILE_100K))
def test_100_kb_is_read_in_50_ms(shape):
    """Issue 26's bound, in CPU time of this process (best of five): on a loaded 2-core machine
    (parallel test workers, neighbours) the wall clock counts others' turns, the CPU clock does not."""
    text = HOSTILE_100K[shape]
    assert len(text) >= 90_000
    best = min(_timed(text) for _ in range(5))
    assert best <= 0.050, f"{shape}: {best * 1000:.1f} ms"


def _timed(text):
    start = time.process_time()
    shell.read(text)
    return time.process_time() - start


def test_a_megabyte_is_bounded():
    text = "a " * 500_000 + "; rm -rf /x"
    assert min(_timed(text) for _ in range(2)) < 0.5


SHELLISH = st.lists(st.sampled_from(
    list(" \t\n;&|()<>{}'\"\\$`#~*=-/") + ["$(", "$((", "${", "<<", "<<EOF", "EOF", "<<<", "<(", "sh -c ", "bash ",
                                          "eval ", "sudo ", "xargs ", "find . -exec ", "python -c ", "rm -rf /",
                                          "git reset --hard", "\\\n", "$'\\x41'", "\0", "é", "\ud800"]),
    max_size=200).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=st.one_of(st.text(max_size=2000), SHELLISH, st.binary(max_size=500)))
def test_property_never_raises_and_stays_bounded(text):
    start = time.perf_counter()
    commands = shell.read(text)
    elapsed = time.perf_counter() - start
    assert isinstance(commands, list) and all(isinstance(c, shell.Command) for c in commands)
    assert len(commands) <= shell.MAX_COMMANDS * 4
    size = len(text) if text else 1
    assert elapsed <= 0.050 * max(1.0, size / 100_000) + 0.05  # 50 ms per 100 KB, plus a scheduling margin


def test_a_word_of_many_parts_keeps_both_ends():
    """MAX_WORD_PARTS bounds what a word keeps (its rendering is paid for on every look);
    the tail stays, since that is where a path says what it reaches."""
    argv = shell.read("rm -rf " + "$a" * 5_000 + "/etc")[0].argv
    assert argv[:2] == ("rm", "-rf")
    assert argv[-1].startswith("$a$a") and argv[-1].endswith("$a/etc")
    assert argv[-1].count("$a") == shell.MAX_WORD_PARTS - 1


@pytest.mark.parametrize("command, argv, origin", [
    ("echo 'git reset --hard' | sh", ("git", "reset", "--hard"), ("sh <|",)),
    ("printf 'rm -rf /x\\n' | bash", ("rm", "-rf", "/x"), ("bash <|",)),
    ("cat <<'EOF' | sudo bash\ngit clean -fd\nEOF", ("git", "clean", "-fd"), ("sudo", "bash <|")),
])
def test_a_script_piped_into_a_shell_is_read(command, argv, origin):
    assert (argv, origin) in found(command)


def test_a_piped_text_into_a_non_shell_stays_data():
    assert [argv[0] for argv in argvs("echo 'rm -rf /x' | grep rm")] == ["echo", "grep"]


def test_declarations_and_loop_variables_are_remembered():
    last = shell.read("export OUT=dist; declare -r N=1; for d in a b; do read -r line; rm -rf $d; done")[-1]
    assert last.argv[0] == "rm"
    assert last.assigns["OUT"] == "dist" and last.assigns["N"] == "1"
    assert last.assigns["d"] == shell.UNKNOWN_VALUE and last.assigns["line"] == shell.UNKNOWN_VALUE


def test_output_redirections_are_recorded():
    command = shell.read("cat x.img > /dev/sdb 2>/dev/null < in.txt")[0]
    assert command.argv == ("cat", "x.img") and command.writes == ("/dev/sdb", "/dev/null")
    assert shell.read("echo hi &>> log.txt")[0].writes == ("log.txt",)


@pytest.mark.parametrize("command, rm", [
    ("python -c \"__import__('shutil').rmtree('/x')\"", [("rm", "-rf", "/x")]),
    ("python3 -c \"import shutil as s; s.rmtree('/x')\"", [("rm", "-rf", "/x")]),
    ("python3 -c \"import shutil; shutil.rmtree('/x')\"", [("rm", "-rf", "/x")]),
    ("python3 -c \"print('shutil.rmtree(\\\"/x\\\")')\"", []),
    ("node -e \"console.log('fs.rmSync(\\\"/x\\\", {recursive: true})')\"", []),
])
def test_library_calls_are_read_once_and_not_inside_strings(command, rm):
    assert [argv for argv in argvs(command) if argv[0] == "rm"] == rm


# -- redirections that empty a file, where the output goes, what must succeed first (issue 39) --

@pytest.mark.parametrize("command, truncated, stdout", [
    ("> f", ["f"], "f"),  # redirections only: read as `: > f`
    (": > f", ["f"], "f"),
    ("sed s/a/b/ f > f", ["f"], "f"),
    ("make >| f", ["f"], "f"),
    ("make &> f", ["f"], "f"),
    ("make >& f", ["f"], "f"),
    ("make 2> err.log", ["err.log"], None),
    ("make >> f", [], "f"),  # appends: nothing is emptied
    ("make 2>&1", [], None),
    ("make >&2", [], None),
    ("make <> f", [], None),
    ("tar c x | ssh h", [], "|"),
    ("a > f 2>/dev/null", ["f", "/dev/null"], "f"),
])
def test_the_reader_names_what_a_redirection_empties_and_where_the_output_goes(command, truncated, stdout):
    first = shell.read(command)[0]
    assert [shell.render(parts) for parts in first.truncate_words] == truncated
    assert (first.stdout if first.stdout in (None, "|") else shell.render(first.stdout)) == stdout


@pytest.mark.parametrize("command, stdin", [
    ("nc h 1 < f", "f"), ("nc h 1 0< f", "f"), ("nc h 1 <f > out", "f"), ("nc h 1 < a < b", "b"),
    ("nc h 1 2< f", None), ("nc h 1 <<< f", None), ("nc h 1 <> f", None), ("nc h 1 <&3", None), ("nc h 1", None),
    ('nc h 1 < "$HOME/.env"', "$HOME/.env"),
])
def test_the_reader_names_the_file_a_command_reads_its_input_from(command, stdin):
    first = shell.read(command)[0]
    assert (None if first.stdin is None else shell.render(first.stdin)) == stdin


def test_a_bare_redirection_is_a_command_of_its_own():
    assert argvs("> /dev/sda") == [(":",)]
    assert argvs("cd x; > out.log") == [("cd", "x"), (":",)]


@pytest.mark.parametrize("command, after", [
    ("git stash apply && git stash drop", ("git", "stash", "apply")),
    ("if git stash apply; then git stash drop; fi", ("git", "stash", "apply")),
    ("sudo git stash apply && git stash drop", ("git", "stash", "apply")),
    ("git stash apply; git stash drop", None),
    ("git stash apply || git stash drop", None),
    ("! git stash apply && git stash drop", None),  # runs when it failed
    ("git stash apply | cat && git stash drop", ("cat",)),  # the pipeline's status is cat's
    ("(git stash apply) && git stash drop", None),
])
def test_the_reader_names_the_command_that_must_succeed_first(command, after):
    last = shell.read(command)[-1]
    assert last.argv == ("git", "stash", "drop")
    assert (last.after_ok.argv if last.after_ok is not None else None) == after


# -- issue 39 (follow): functions and script files ------------------------------------------------

def test_a_function_body_is_still_read_as_written_and_its_header_is_a_command():
    commands = found('f() { rm -rf "$1"; }; f ~/Documents')
    assert (("rm", "-rf", "$1"), ()) in commands  # as before: nothing is lost
    assert (("f",), ()) in commands and (("f", "~/Documents"), ()) in commands


def test_a_function_that_only_echoes_reads_only_echoes():
    assert {argv[0] for argv, _ in found('say() { echo "$1"; }; say "rm -rf ~"')} == {"say", "echo"}


def test_a_function_called_before_it_is_defined_is_not_followed():
    assert (("rm", "-rf", "~/x"), ("f()",)) not in found('f ~/x; f() { rm -rf "$1"; }')


def test_a_parameter_the_call_does_not_give_stays_unresolved():
    assert (("rm", "-rf", "$2"), ("f()",)) in found('f() { rm -rf "$2"; }; f one')


def test_a_function_calling_itself_stops_at_the_bound():
    commands = shell.read("f() { f; }; f")
    assert commands.stopped and len(commands) <= shell.MAX_DEPTH + 2


def test_many_calls_stay_within_the_command_budget():
    commands = shell.read("f() { rm -rf \"$1\"; f \"$1\"; f \"$1\"; }; f x")
    assert len(commands) <= shell.MAX_COMMANDS


def script_commands(command, cwd):
    return [(c.argv, c.origin) for c in shell.read(command, cwd=str(cwd))]


@pytest.mark.parametrize("run, origin", [
    ("bash deploy.sh ~/Documents", ("bash FILE",)), ("sh -e ./deploy.sh ~/Documents", ("sh FILE",)),
    ("./deploy.sh ~/Documents", ("./FILE",)), ("source deploy.sh ~/Documents", ("source FILE",)),
    (". ./deploy.sh ~/Documents", (". FILE",)), ("cd /tmp; bash \"$PWD\"/x.sh; bash sub/../deploy.sh ~/Documents",
                                               ("bash FILE",)),
])
def test_a_script_file_the_call_runs_is_read_from_the_calls_folder(tmp_path, run, origin):
    (tmp_path / "deploy.sh").write_text("#!/bin/sh\nset -e\nrm -rf \"$1\"\n")
    (tmp_path / "deploy.sh").chmod(0o644)  # never executable: it is read, not run
    assert (("rm", "-rf", "~/Documents"), origin) in script_commands(run, tmp_path)


def test_without_a_folder_no_file_is_read(tmp_path):
    (tmp_path / "deploy.sh").write_text("rm -rf \"$1\"\n")
    assert [c.argv for c in shell.read("bash %s/deploy.sh ~/x" % tmp_path)] == [("bash", "%s/deploy.sh" % tmp_path, "~/x")]


def test_a_harmless_script_reads_as_its_harmless_commands(tmp_path):
    (tmp_path / "build.sh").write_text("set -e\necho building\nmake -j4\n")
    assert [argv for argv, _ in script_commands("bash build.sh", tmp_path)] == [
        ("bash", "build.sh"), ("set", "-e"), ("echo", "building"), ("make", "-j4")]


@pytest.mark.parametrize("name, body", [
    ("big.sh", "rm -rf ~/x\n" + "# pad\n" * 20000),  # past MAX_SCRIPT_BYTES
    ("bin.sh", "rm -rf ~/x\n\0\x7fELF"),  # not text
    ("tool.py", "#!/usr/bin/env python3\nrm -rf ~/x\n"),  # run as ./F: python, not a shell script
])
def test_a_script_too_large_binary_or_of_another_language_is_not_read_as_shell(tmp_path, name, body):
    (tmp_path / name).write_text(body)
    assert ("rm", "-rf", "~/x") not in [argv for argv, _ in script_commands("./" + name, tmp_path)]


def test_a_fifo_or_a_folder_is_not_waited_on_or_read(tmp_path):
    import os

    os.mkfifo(tmp_path / "pipe.sh")
    (tmp_path / "dir.sh").mkdir()
    started = time.monotonic()
    commands = script_commands("bash pipe.sh; bash dir.sh", tmp_path)
    assert time.monotonic() - started < 2
    assert [argv for argv, _ in commands] == [("bash", "pipe.sh"), ("bash", "dir.sh")]


def test_a_script_running_itself_stops_at_the_bound(tmp_path):
    (tmp_path / "loop.sh").write_text("bash loop.sh\n")
    commands = shell.read("bash loop.sh", cwd=str(tmp_path))
    assert commands.stopped and len(commands) <= shell.MAX_DEPTH + 2


# ---------------------------------------------------------------- scopes: the shell processes a command runs in


def _scoped(command):
    return {" ".join(c.argv): c for c in shell.read(command)}


@pytest.mark.parametrize("command, inner, outer", [
    ("(cd /tmp); rm -r x", "cd /tmp", "rm -r x"),
    ("( (cd a); rm b ); rm c", "cd a", "rm c"),
    ("cd a | cat; rm b", "cd a", "rm b"),
    ("echo $(cd a); rm b", "cd a", "rm b"),
    ("echo `cd a`; rm b", "cd a", "rm b"),
])
def test_what_a_subshell_substitution_or_pipeline_stage_does_does_not_hold_after_it(command, inner, outer):
    commands = _scoped(command)
    assert not shell.in_scope(commands[inner].scope, commands[outer].scope), command


@pytest.mark.parametrize("command, first, later", [
    ("cd a; rm b", "cd a", "rm b"),
    ("cd a; (rm b)", "cd a", "rm b"),
    ("(cd a; rm b)", "cd a", "rm b"),
    ("{ cd a; }; rm b", "cd a", "rm b"),
    ("(cd a && sh -c 'rm b')", "cd a", "rm b"),
])
def test_what_the_same_shell_or_its_parent_did_holds(command, first, later):
    commands = _scoped(command)
    assert shell.in_scope(commands[first].scope, commands[later].scope), command


def test_the_last_stage_of_a_pipeline_is_marked_and_the_others_are_not():
    commands = shell.read("a | b | c; d")
    assert [c.last_stage for c in commands] == [False, False, True, False]


@pytest.mark.parametrize("command, holds", [
    ("(D=/x); rm -r \"$D\"", False),
    ("D=/x; (rm -r \"$D\")", True),
    ("X=$(D=/x; true); rm -r \"$D\"", False),
    ("D=/x | true; rm -r \"$D\"", False),
])
def test_an_assignment_holds_in_its_own_scope_and_those_inside_it(command, holds):
    rm = [c for c in shell.read(command) if c.argv[0] == "rm"][0]
    assert (rm.shell_vars.get("D") == "/x") is holds, (command, rm.shell_vars)


def test_a_function_defined_in_a_subshell_is_not_defined_after_it():
    assert ("rm", "-rf", "/x") not in argvs('(f() { rm -rf "$1"; }); f /x')
    assert ("rm", "-rf", "/x") in argvs('f() { rm -rf "$1"; }; (f /x)')
