"""Run a command with one folder of /etc replaced, in a mount namespace of its own.

    unshare -m --propagation private PYTHON e2e_policy_root.py NAME FOLDER WORK -- COMMAND...

Inside the namespace only: /etc shows everything it held, and ``/etc/NAME`` is FOLDER. This
lets the real Copilot CLI read a machine-wide policy folder (``/etc/github-copilot``) that a
test made in a temporary folder, while the machine's own /etc is never written: the original
/etc is bind-mounted under WORK, a copy of its listing made of links to it (plus NAME) is
mounted over /etc, and the namespace ends with the command. Every program run is a fixed argv
(``mount``), never a shell.
"""
import os
import subprocess
import sys


def main() -> int:
    name, folder, work = sys.argv[1:4]
    if sys.argv[4] != "--" or "/" in name or not os.path.isdir(folder):
        sys.stderr.write("usage: e2e_policy_root.py NAME FOLDER WORK -- COMMAND...\n")
        return 2
    command = sys.argv[5:]
    real, shown = os.path.join(work, "real-etc"), os.path.join(work, "etc")
    os.makedirs(real)
    os.makedirs(shown)
    subprocess.run(["mount", "--rbind", "/etc", real], check=True)
    for entry in os.listdir(real):
        if entry != name:
            os.symlink(os.path.join(real, entry), os.path.join(shown, entry))
    os.mkdir(os.path.join(shown, name))  # a mount, not a link: the host sees a real folder there
    subprocess.run(["mount", "--bind", folder, os.path.join(shown, name)], check=True)
    subprocess.run(["mount", "--rbind", shown, "/etc"], check=True)
    os.execvp(command[0], command)
    return 127


if __name__ == "__main__":
    sys.exit(main())
