#!/usr/bin/env python3
"""Runs a command and fails if anything it started is still running after it.

    scripts/leftover_processes.py cargo test --workspace
    scripts/leftover_processes.py cargo test -p example-agents --test it inbox_browser::

Exits with the command's status; when the command succeeded but left processes
behind, names each (pid and command line), kills them, and exits 1.

How it finds them: this process makes itself a child subreaper
(prctl(PR_SET_CHILD_SUBREAPER), Linux 3.4), so a process the command starts whose
parent exits is re-parented here instead of to init. Everything the command
started, however many forks or `setsid`s away, is then a descendant of this
process. Marking processes with an environment variable instead would miss many:
PostgreSQL's backends and Chromium's renderers and zygotes overwrite the memory
/proc/PID/environ shows to set their process titles.

Processes get a grace period (LEFTOVER_GRACE seconds, 20 unless set) to end on
their own after the command: scripts/postgres.sh's watchdog, for one, stops its
cluster a second or two after the test binary that started it exits.
"""

import ctypes
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def say(message):
    print(f"leftover_processes: {message}", file=sys.stderr, flush=True)


def reap():
    """Collects every exited child (orphans re-parented here included)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def descendants(root):
    """The live processes below `root`, as (pid, command line) pairs."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                # The command name, in parentheses, may hold spaces: split after it.
                fields = stat.read().rpartition(")")[2].split()
        except OSError:
            continue
        state, parent = fields[0], int(fields[1])
        if state != "Z":
            children.setdefault(parent, []).append(int(entry))
    found, stack = [], [root]
    while stack:
        for pid in children.get(stack.pop(), []):
            found.append(pid)
            stack.append(pid)
    return [(pid, command_line(pid)) for pid in sorted(found)]


def command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            text = cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "(gone)"
    # Chromium's run to a few thousand characters; the start says which it is.
    return (text[:240] + " ...") if len(text) > 240 else text or "(no command line)"


def main(command):
    if not command:
        say("usage: scripts/leftover_processes.py COMMAND [ARGUMENT...]")
        return 2
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        say(f"prctl(PR_SET_CHILD_SUBREAPER) failed: {os.strerror(ctypes.get_errno())}")
        return 2

    child = os.fork()
    if child == 0:
        try:
            os.execvp(command[0], command)
        except OSError as error:
            say(f"cannot run {command[0]}: {error}")
        os._exit(127)

    # Ctrl-C reaches the command through the terminal's process group; this process
    # stays to check what the command leaves. A TERM (a CI timeout) is passed on.
    signal.signal(signal.SIGINT, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: os.kill(child, signal.SIGTERM))

    # Reap as we go: orphans re-parented here would otherwise stay zombies.
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == child:
            break
    code = os.waitstatus_to_exitcode(status)
    code = code if code >= 0 else 128 - code

    deadline = time.monotonic() + float(os.environ.get("LEFTOVER_GRACE", "20"))
    while True:
        reap()
        left = descendants(os.getpid())
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.25)
    if not left:
        return code

    say(f"{len(left)} process(es) started by `{' '.join(command)}` still running after it:")
    for pid, line in left:
        print(f"  pid {pid}: {line}", file=sys.stderr)
    for pid, _ in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    time.sleep(0.5)
    reap()
    say("killed them; a test or script above does not stop what it starts")
    return code or 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
