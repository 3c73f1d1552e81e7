"""The process transport: how one dispatcher process talks to its host.

    python3 -S dispatch.py [--manifest PATH] [--hooks-root DIR] [--trace] [EVENT] < payload

``main()`` owns everything about the process, so the engine (``dispatch_core.run``)
stays a pure function of its inputs: it reads stdin once, parses the command
line, moves fds 1 and 2 out of the checks' reach, arms the watchdog through the
runner's ``guard``, writes the one output line and leaves with ``os._exit(0)``.
Tracing is ``--trace`` or ``HOOKMUX_TRACE=1``; trace lines go to the real stderr.
A resident server would be a second transport: the same ``run()`` with a socket
in place of the fds.
"""
import os
import sys
import time

from dispatch_core import run


class Watchdog:
    """In the dispatcher process only: end it when a check holds the GIL past the budget.

    A thread stuck in one long C call (a backtracking regex, say) never releases
    the GIL, so the main thread cannot wake from join() to abandon it.
    faulthandler's timer runs in C without the GIL; it exits with status 1, which
    is still sooner than the host's own timeout would end the hook.
    """

    def __init__(self, sink_fd):
        self.sink_fd = sink_fd  # where the timer's traceback goes (/dev/null)
        self.seconds = None

    def __call__(self, seconds):
        self.seconds = seconds
        return self

    def __enter__(self):
        import faulthandler

        faulthandler.dump_traceback_later(self.seconds, exit=True, file=self.sink_fd)

    def __exit__(self, *exc):
        import faulthandler

        faulthandler.cancel_dump_traceback_later()


class IsolatedRunner:
    """The checks run in another process, so none can end, stall or corrupt this one: a
    standby of the warm pool when one is ready, else a worker forked for the call
    (``dispatch_isolated``). Imported only once a row is selected (most tool calls
    select none, and the import is measurable on every call). Without ``fork`` (Windows) they
    run here, in threads, under the watchdog. ``trace`` (or None) is told which it was."""

    def __init__(self, guard, close_fds, trace=None):
        self.guard = guard
        self.close_fds = close_fds
        self.trace = trace

    def run(self, jobs, stdin_text, hooks_root):
        if hasattr(os, "fork") and os.environ.get("HOOKMUX_ISOLATION") != "0":
            import dispatch_isolated

            standby = dispatch_isolated.run_in_standby(jobs, stdin_text, hooks_root)
            if standby:
                return self.say("checks ran in a standby of the warm pool")
            dispatch_isolated.ForkRunner(self.guard, self.close_fds).run(jobs, stdin_text, hooks_root)
            self.say("checks ran in a worker forked for this call")
        else:
            from dispatch_runner import ThreadRunner

            ThreadRunner(guard=self.guard).run(jobs, stdin_text, hooks_root)
            self.say("checks ran in this process (no isolation)")

    def say(self, line):
        if self.trace is not None:
            self.trace(line)


def parse_argv(argv):
    options = {"manifest": None, "hooks_root": None, "trace": False, "event": None, "host": None}
    args = iter(argv)
    for arg in args:
        if arg == "--trace":
            options["trace"] = True
        elif arg in ("--manifest", "--hooks-root", "--host"):
            options[arg[2:].replace("-", "_")] = next(args, None)
        elif arg.startswith(("--manifest=", "--hooks-root=", "--host=")):
            key, _, value = arg[2:].partition("=")
            options[key.replace("-", "_")] = value
        elif not arg.startswith("-") and options["event"] is None:
            options["event"] = arg
    return options


def ledger_observer(started):
    """``run()``'s observer writing the terminal ledger (hooks/_common/ledger.py): one bounded,
    redacted record per dispatch from the outcome records; ``HOOKMUX_LEDGER=0`` writes none."""
    try:
        from _common import ledger  # now, before a check can evict _common or empty sys.path
    except Exception:
        return None

    def observe(call, outcomes, failure):
        ledger.write_dispatch(ledger.of_call(call, outcomes, failure, started))

    return observe


def main(argv=None):
    started = time.monotonic()
    # Our own output goes to private copies of fds 1 and 2; the fds themselves
    # go to /dev/null, so a check writing there (os.write, a child process)
    # cannot corrupt the one JSON line the host reads, and a child process a
    # check leaves running does not hold the host's pipes open.
    real_out = real_err = None
    try:
        real_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
        real_err = os.fdopen(os.dup(2), "w", encoding="utf-8", errors="replace")
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)

        options = parse_argv(sys.argv[1:] if argv is None else argv)
        tracing = options["trace"] or os.environ.get("HOOKMUX_TRACE") == "1"

        def trace(line):
            real_err.write("hookmux: %s\n" % line)
            real_err.flush()

        try:
            stdin_bytes = sys.stdin.buffer.read()
        except (AttributeError, OSError, ValueError):
            stdin_bytes = b""
        output = run(
            options["event"],
            stdin_bytes.decode("utf-8", errors="replace"),
            manifest=options["manifest"],
            hooks_root=options["hooks_root"],
            trace=trace if tracing else None,
            runner=IsolatedRunner(Watchdog(devnull), (real_out.fileno(), real_err.fileno()), trace if tracing else None),
            observe=ledger_observer(started),
            host=options["host"],
            breaker=True,
        )
        real_out.write(output)
        real_out.flush()
    except BaseException:
        pass
    # Abandoned daemon threads and threads a check started must not hold the
    # host's tool call: leave now, skipping interpreter shutdown.
    os._exit(0)
