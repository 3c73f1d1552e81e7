"""The red team's corpus for the danger gate: commands as its real users would send them.

DATA ONLY. These strings go to the gate as the command of a JSON payload; no test, fixture
or helper passes one to a shell. ``~`` is the test's temporary HOME (with ``Documents``,
``.ssh``, ``.cache``); the session folder is a temporary repository in the state named.

CASES: list of (category, command, "block" | "pass", repository state).
A ``block`` must be denied: it would destroy what nothing brings back (issue 27's list).
A ``pass`` must run: text, a harmless state, a look-alike, or something the advisory owns.
"""
from __future__ import annotations

CASES: list[tuple[str, str, str, str]] = []


def block(category, *commands, repo="clean"):
    CASES.extend((category, command, "block", repo) for command in commands)


def passes(category, *commands, repo="clean"):
    CASES.extend((category, command, "pass", repo) for command in commands)


# -- bypasses: wrappers and indirection ------------------------------------------------------
block("wrappers",
      "sudo rm -rf ~/Documents", "sudo -u root -H rm -rf ~/Documents", "sudo -- rm -rf ~/Documents",
      "env rm -rf ~/Documents", "env -i PATH=/bin rm -rf ~/Documents", "env -- rm -rf ~/Documents",
      "nice rm -rf ~/Documents", "nice -n 19 rm -rf ~/Documents", "timeout 10 rm -rf ~/Documents",
      "timeout -s KILL 5m rm -rf ~/Documents", "nohup rm -rf ~/Documents &", "command rm -rf ~/Documents",
      "command -p rm -rf ~/Documents", "builtin command rm -rf ~/Documents", "exec rm -rf ~/Documents",
      "stdbuf -oL rm -rf ~/Documents", "ionice -c3 rm -rf ~/Documents", "time rm -rf ~/Documents",
      "doas rm -rf ~/Documents", "sudo nice -n 5 timeout 60 env rm -rf ~/Documents",
      "xargs rm -rf ~/Documents < /dev/null", "xargs -0 rm -rf ~/.ssh", "setsid rm -rf ~/.ssh",
      "LC_ALL=C rm -rf ~/Documents", "busybox rm -rf ~/Documents",
      # issue 39: wrappers that run a trailing command or a shell string, and a variable command word
      "flock /tmp/lock rm -rf ~/Documents", "flock -n /tmp/lock -c 'rm -rf ~/.ssh'",
      "script -qc 'rm -rf ~/Documents' /dev/null", "systemd-run --user --wait rm -rf ~/Documents",
      "tmux new-session -d 'rm -rf ~/Documents'", "tmux send-keys -t main 'rm -rf ~/Documents' Enter",
      "uv run rm -rf ~/Documents", "poetry run rm -rf ~/Documents", "npx rimraf ~/Documents",
      "pnpm dlx rimraf ~", "R=rm; $R -rf ~/Documents", 'RM="rm -rf"; $RM ~/.ssh')
block("shells",
      "sh -c 'rm -rf ~/Documents'", "bash -lc 'rm -rf ~/Documents'", 'bash -c "rm -rf ~/Documents"',
      "zsh -c 'rm -rf ~/.ssh'", "dash -c 'rm -rf ~/Documents'", "/bin/bash -c 'rm -rf ~/Documents'",
      "sudo sh -c 'rm -rf ~/Documents'", "bash -e -o pipefail -c 'rm -rf ~/Documents'",
      "sh -c \"sh -c 'rm -rf ~/Documents'\"", "eval rm -rf ~/Documents", "eval 'rm -rf ~/Documents'",
      "eval \"rm -rf ~/Documents\"", "bash <<'EOF'\nrm -rf ~/Documents\nEOF",
      "sh <<EOF\ncd ~\nrm -rf Documents\nEOF", "bash <<< 'rm -rf ~/Documents'",
      "echo 'rm -rf ~/Documents' | sh", "echo rm -rf ~/Documents | bash", "printf 'rm -rf ~/.ssh\\n' | bash",
      "cat <<'EOF' | bash\nrm -rf ~/Documents\nEOF", "su -c 'rm -rf ~/Documents'")
block("substitutions",
      "echo $(rm -rf ~/Documents)", "echo `rm -rf ~/Documents`", 'echo "$(rm -rf ~/Documents)"',
      "x=$(rm -rf ~/Documents)", "cat <(rm -rf ~/Documents)", "ls > >(rm -rf ~/.ssh)",
      "echo $(( $(rm -rf ~/Documents) + 1 ))", 'echo "`rm -rf ~/.ssh`"')
block("program-names",
      "/bin/rm -rf ~/Documents", "/usr/bin/rm -rf ~/Documents", '"rm" -rf ~/Documents', "'rm' -rf ~/Documents",
      "\\rm -rf ~/Documents", "r\\m -rf ~/Documents", 'r"m" -rf ~/Documents', "$'rm' -rf ~/Documents",
      "$'\\x72m' -rf ~/Documents", "/usr/bin/env rm -rf ~/Documents", "/usr/bin/sudo /bin/rm -rf ~/Documents")
block("options",
      "rm --recursive --force ~/Documents", "rm -r -f ~/Documents", "rm -fr ~/Documents", "rm -Rf ~/Documents",
      "rm -rfv ~/Documents", "rm -r ~/Documents", "rm -R ~/Documents", "rm --recursive ~/Documents",
      "rm -rf -- ~/Documents", "rm ~/Documents -rf", "rm ~/Documents -r -f", "rm -f ~/Documents --recursive",
      "rm -rf --no-preserve-root /", "rm -I -r ~/Documents", "rm -d -r ~/Documents", "rm -vrf ~/.ssh",
      "rm '-rf' ~/Documents", "rm -\\rf ~/Documents")
block("segments",
      "ls && rm -rf ~/Documents", "false || rm -rf ~/Documents", "ls; rm -rf ~/Documents",
      "(rm -rf ~/Documents)", "{ rm -rf ~/Documents; }", "if true; then rm -rf ~/Documents; fi",
      "for i in 1; do rm -rf ~/Documents; done", "while false; do :; done; rm -rf ~/Documents",
      "rm -rf ~/Documents || true", "! rm -rf ~/Documents", "rm -rf ~/Documents 2>/dev/null",
      "rm -rf ~/Documents >/dev/null 2>&1", "rm -rf ~/Documents &", "echo a | rm -rf ~/Documents",
      "ls \\\n && rm -rf ~/Documents")
block("interpreters",
      "python3 -c \"import shutil; shutil.rmtree('/etc')\"",
      "python3 -c \"import shutil, os; shutil.rmtree(os.path.expanduser('~/Documents'))\"",
      "python -c \"__import__('shutil').rmtree('/etc')\"",
      "python3 -c \"import shutil as s; s.rmtree('/usr')\"",
      "python3 -c \"import os; os.system('rm -rf ~/Documents')\"",
      "python3 -c \"import subprocess; subprocess.run(['rm', '-rf', '/etc'])\"",
      "python3 - <<'EOF'\nimport shutil\nshutil.rmtree('/etc')\nEOF",
      "perl -e 'system(\"rm -rf ~/Documents\")'", "perl -MFile::Path -e 'rmtree(\"/etc\")'",
      "perl -e 'use File::Path qw(remove_tree); remove_tree(\"/etc\")'",
      "node -e \"require('fs').rmSync('/etc', {recursive: true, force: true})\"",
      "node -e \"require('child_process').execSync('rm -rf ~/Documents')\"",
      "ruby -e 'require \"fileutils\"; FileUtils.rm_rf(\"/etc\")'", "ruby -rfileutils -e 'FileUtils.rm_r(\"/usr\")'",
      "ruby -e 'system(\"rm -rf ~/Documents\")'", "php -r 'shell_exec(\"rm -rf ~/Documents\");'")
block("paths",
      "rm -rf ~/../..", "rm -rf ~/..", "rm -rf $HOME/", "rm -rf ${HOME}/", "rm -rf \"$HOME\"/Documents",
      "rm -rf /tmp/../etc", "rm -rf /etc/", "rm -rf //etc", "rm -rf /./etc", "rm -rf /etc/.", "rm -rf ///",
      "rm -rf ~/Documents//", "rm -rf ~//Documents", "rm -rf ~/./Documents", "rm -rf ~/Documents/..",
      "rm -rf ~/Documents/../.ssh", "rm -rf ~/.ssh/", "rm -rf /usr/../", "rm -rf /var/lib", "rm -rf ~",
      "rm -rf ~/", "cd ~ && rm -rf *", "cd / && rm -rf etc", "cd ~; rm -rf Documents .ssh",
      "D=~/Documents; rm -rf \"$D\"", "D=\"$HOME/Documents\"; rm -rf \"$D\"", "D=$HOME/.ssh && rm -rf $D",
      "TARGET=/etc; rm -rf $TARGET", "HOME=/tmp rm -rf ~/Documents", "rm -rf ~/Docu*", "rm -rf ~/.ss?", "rm -rf ~/[D]ocuments")
block("find", "find ~ -delete", "find ~/Documents -delete", "find ~/Documents -exec rm -rf {} +",
      "find ~/.ssh -depth -exec rm -rf {} \\;", "sudo find / -delete", "find ~/Documents -mindepth 0 -delete")
block("devices",
      "dd if=/dev/zero of=/dev/sda", "sudo dd of=/dev/nvme0n1 if=img.iso bs=4M", "dd if=x.img of=/dev/mmcblk0",
      "mkfs.ext4 /dev/sdb1", "mkfs -t xfs /dev/vdb", "sudo mkfs.vfat -F 32 /dev/sdc1", "wipefs -a /dev/sda",
      "mkswap /dev/sda2", "shred -n 1 /dev/sdb", "sh -c 'dd if=/dev/zero of=/dev/sdb'")
block("git", "git reset --hard", "git reset --hard HEAD", "git reset HEAD --hard", "git reset --hard -q",
      "\"git\" reset --hard", "git \"reset\" --hard", "/usr/bin/git reset --hard", "git -c core.pager=cat reset --hard",
      "git --no-pager reset --hard", "sudo git reset --hard", "sh -c 'git reset --hard'",
      "git checkout -f", "git checkout --force main", "git checkout -- .", "git checkout .",
      "git checkout HEAD -- tracked.txt", "git checkout tracked.txt", "git checkout HEAD tracked.txt",
      "git restore .", "git restore tracked.txt", "git restore --worktree -- tracked.txt",
      "git switch -f master", "git switch --discard-changes master",
      repo="changed")
block("git", "git reset --hard", "git reset --hard HEAD~0", "git checkout HEAD -- .",
      "git restore --source=HEAD --staged --worktree tracked.txt", repo="staged")
block("git", "git clean -fd", "git clean -f", "git clean -fdx", "git clean -xdf", "git clean --force -d",
      "git clean -d -f", "git clean -f -- new.txt", repo="untracked")
block("git", "git stash clear", "git stash drop", "git stash drop stash@{0}", "git stash drop -q", repo="stashed")

# -- false blocks: the new wrappers run what is harmless, or are themselves (issue 39) ----------
passes("wrappers",
       "npx rimraf dist", "pnpm dlx rimraf node_modules/.cache", "uv run pytest -q", "poetry run rm -rf build",
       "flock /tmp/lock make", "tmux new-session -d 'npm run dev'", "tmux send-keys -t main 'ls -la' Enter",
       "script -qc 'ls ~/Documents' /dev/null", "npm install rimraf", "uv pip install rm", "tmux kill-server",
       "R=ls; $R -la ~/Documents", "$EDITOR ~/Documents/notes.txt")

# -- false blocks: text -----------------------------------------------------------------------
passes("text",
       "echo rm -rf ~", "echo 'rm -rf ~/Documents'", 'echo "rm -rf /"', "printf 'rm -rf ~\\n'",
       "printf '%s\\n' 'git reset --hard'", "grep -rn 'rm -rf /' .", "grep -n \"rm -rf ~\" notes.md",
       "rg 'git reset --hard' docs", "git grep -n 'rm -rf ~'", "git log -S'reset --hard'",
       "git log -G'rm -rf /' --oneline", "git log --grep='reset --hard'", "man rm", "man git-reset",
       "rm --help", "git help reset", "git reset -h", "info rm", "tldr rm", "type rm", "which rm",
       "command -v rm", "whatis dd", "apropos mkfs",
       "git commit -m 'never rm -rf ~ here'", "git commit -m \"docs: git reset --hard loses work\"",
       "git commit -am 'explain rm -rf /etc'", "git tag -a v1 -m 'rm -rf ~'",
       "cat <<'EOF'\nrm -rf ~/Documents\nEOF", "cat <<EOF > cleanup.md\nrun rm -rf ~/Documents to start over\nEOF",
       "cat > notes.sh <<'EOF'\nrm -rf ~/Documents\ngit reset --hard\nEOF", "tee script.sh <<< 'rm -rf ~'",
       "echo 'rm -rf ~/Documents' > danger.txt", "echo \"git clean -fdx\" >> NOTES.md",
       "ls # rm -rf ~", "# rm -rf ~/Documents", "true  # then git reset --hard",
       "python3 -c \"print('rm -rf ~')\"", "node -e \"console.log('rm -rf ~/Documents')\"",
       "ruby -e 'puts \"rm -rf ~\"'", "perl -e 'print \"rm -rf ~\\n\"'",
       "grep -rn shutil.rmtree src/", "sed -i 's/rm -rf ~//' script.sh", "awk '/rm -rf/' log.txt",
       "jq '.cmd = \"rm -rf ~\"' cfg.json", "sqlite3 app.db \"select 'rm -rf ~'\"",
       "alias nuke='rm -rf ~/Documents'", "history | grep 'rm -rf'", "sh -c 'echo rm -rf ~'",
       "bash -c 'printf \"%s\" \"git reset --hard\"'", "echo $(echo rm -rf ~)", "echo dd of=/dev/sda",
       "echo mkfs.ext4 /dev/sdb1", "vim -c 'echo \"rm -rf ~\"' notes.txt", "bash -n cleanup.sh",
       "shellcheck -e SC2115 rm-all.sh", "git diff -- 'rm -rf ~'",
       "docker run --rm alpine rm -rf /etc", "ssh-keygen -R host", "git commit --fixup=HEAD -m 'rm -rf /'",
       repo="changed")

# -- false blocks: harmless states ------------------------------------------------------------
passes("states", "git reset --hard", "git checkout -- .", "git checkout .", "git checkout -f", "git restore .",
       "git switch -f master", "git clean -fd", "git clean -fdx", "git stash clear", "git stash drop",
       "git reset --hard origin/main", "git reset --hard && git clean -fdx", repo="clean")
passes("states", "git clean -fd", "git clean -n", "git clean -fdn", "git stash drop", repo="changed")
passes("states", "git reset --hard", "git checkout -- .", repo="untracked")
# The shell expands $TARGET before the prefix assignment applies: rm -rf of nothing (issue 38).
passes("states", "TARGET=/etc rm -rf $TARGET")
passes("states", "git stash list", "git stash show -p", "git stash pop", "git stash drop stash@{3}", repo="stashed")
passes("states", "git reset --soft HEAD", "git reset", "git reset HEAD tracked.txt", "git reset --keep HEAD",
       "git restore --staged tracked.txt", "git checkout -b topic", "git checkout -B topic", "git switch -c topic",
       "git checkout other.txt", "git checkout -- other.txt", "git restore other.txt", "git checkout master",
       "git stash", "git stash push -m wip", "git checkout -p", repo="changed")
passes("states", "git restore --staged .", "git restore --staged tracked.txt", repo="staged")

# -- false blocks: build output, temp folders, variables the session set ----------------------
passes("build",
       "rm -rf build", "rm -rf ./build", "rm -rf build/", "rm -rf dist node_modules", "rm -rf ./node_modules",
       "rm -r -f ./node_modules", "rm -rf -- ./build", "sudo rm -rf ./build", "rm -rf .venv __pycache__",
       "rm -rf target/debug", "rm -rf ./*.egg-info", "rm -rf .pytest_cache .mypy_cache", "rm -rf .git/hooks/pre-commit",
       "rm -rf /tmp/x", "rm -rf /tmp/build-123/", "rm -rf /var/tmp/cache", "rm -rf \"$TMPDIR/build\"",
       "rm -rf \"$(mktemp -d)\"", "T=$(mktemp -d); rm -rf \"$T\"", "T=$(mktemp -d) && rm -rf \"$T\"/*",
       "BUILD=./build; rm -rf \"$BUILD\"", "OUT=dist && rm -rf $OUT/*", "export OUT=dist; rm -rf \"$OUT\"/*",
       "export OUT=dist && rm -rf $OUT/", "declare -r OUT=dist; rm -rf $OUT/*", "local_dir=out; rm -rf ${local_dir}/*",
       "for d in build dist; do rm -rf \"$d\"/*; done", "for d in build dist; do rm -rf $d/; done",
       "read -r d <<< build; rm -rf \"$d\"/*", "rm -rf ~/.cache/pip", "rm -rf ~/.cache", "rm -rf ~/.npm/_cacache",
       "rm -rf ~/Documents/old-drafts", "rm -rf ~/Documents/project/build", "cd ~/Documents && rm -rf old",
       "cd build && rm -rf *", "mkdir -p out && cd out && rm -rf ./*", "rm -rf ~/Pictures", "rm -f ~/Documents",
       "rm ~/notes.txt", "rmdir ~/Documents", "rm -rf ~/Documents/*.tmp", "rm -rf ~/.ssh/known_hosts.old",
       "find . -name node_modules -prune -exec rm -rf {} +", "find . -type d -empty -delete",
       "find build -delete", "find ~/Documents -name '*.tmp' -delete", "find /tmp -name 'x*' -delete",
       "find ~ -maxdepth 1 -name '*.log' -delete", "find . -name '*.pyc' -exec rm -f {} +",
       "git clean -fdx build/", "ls | xargs rm -rf", "rm -rf \"$1\"", "rm -rf $(cat list.txt)")

# -- false blocks: look-alikes -----------------------------------------------------------------
passes("look-alikes",
       "dd if=/dev/zero of=./disk.img bs=1M count=16", "dd of=disk.img if=/dev/zero", "dd if=/dev/sda of=backup.img",
       "dd if=/dev/urandom of=/dev/null count=1", "dd if=a of=/dev/stdout", "mkfs.ext4 ./disk.img",
       "mkfs.ext4 -F disk.img", "mkfs -t ext4 /tmp/fs.img", "mkswap ./swapfile", "wipefs ./image.raw",
       "shred -u secret.txt", "shred ~/Documents/old.key", "truncate -s 0 /dev/null",
       "cd \"$(mktemp -d)\" && git init -q && git reset --hard",
       "cd /tmp/fresh-repo && git reset --hard", "git -C /tmp/fresh-repo reset --hard",
       "tmp=$(mktemp -d); cd \"$tmp\" && git init && git clean -fdx", "sh -c 'cd \"$(mktemp -d)\" && git reset --hard'",
       repo="changed")

# -- round two: brace expansion, the current folder by name, a sequence that saves first -------
block("paths", "rm -rf ~/{Documents,.ssh}", "rm -rf ~/{Docs,Documents}", "rm -rf /{etc,usr}", "rm -rf {~/Documents,}",
      "rm -rf \"$PWD\"", "rm -rf $(pwd)", "rm -rf \"$(pwd)\"/", "cd ~ && rm -rf \"$PWD\"/Documents")
passes("build", "rm -rf {build,dist}", "rm -rf ./{build,dist}/", "rm -rf \"$PWD\"/build", "rm -rf $(pwd)/dist",
       "rm -rf ~/Documents/{a,b}", "rm -rf '{~/Documents,}'")
passes("sequences", "git stash && git reset --hard", "git stash; git checkout -- .", "git stash push -u && git restore .",
       "git commit -am wip && git reset --hard HEAD~1", "git stash && git pull --rebase && git stash pop",
       "git -C . stash && git reset --hard origin/main", repo="changed")
block("sequences", "git stash && git stash drop", "git stash; git stash clear",
      "git stash && git stash pop && git reset --hard", "git stash -p && git reset --hard",
      "git stash push -- other.txt && git reset --hard", "git commit -m x && git reset --hard", repo="changed")
passes("sequences", "git stash && git stash drop", repo="clean")

# -- round two: writing a device without dd ----------------------------------------------------
block("devices", "cat disk.img > /dev/sdb", "sudo tee /dev/sda < image.iso", "cp ubuntu.iso /dev/sdc",
      "xzcat image.xz >/dev/mmcblk0", "pv x.img >> /dev/nvme0n1", "gunzip -c img.gz | sudo tee /dev/sdb > /dev/null",
      "sh -c 'cat x.img > /dev/sdd'", "echo x &> /dev/vda")
passes("look-alikes", "make 2>/dev/null", "ls > /dev/null 2>&1", "cat /dev/sda > backup.img", "echo '> /dev/sda'",
       "tee out.log < /dev/null", "cp a.txt b.txt", "cat x > /dev/stdout", "dmesg | grep /dev/sda",
       "lsblk /dev/sda", "sudo fdisk -l /dev/sda", "echo hi > ./dev/sda")

# -- round three: the commit and PR bodies agents write, more interpreters and paths ----------
passes("text",
       "git commit -m \"$(cat <<'EOF'\nFix cleanup: never rm -rf ~/Documents\n\nAlso avoid git reset --hard.\nEOF\n)\"",
       "git commit -F - <<'EOF'\nrm -rf ~ was the bug\nEOF",
       "gh pr create --title x --body \"$(cat <<'EOF'\n## Summary\n- stop running `rm -rf ~/.ssh`\nEOF\n)\"",
       "echo \"$(printf 'rm -rf %s' ~)\"", "cat <<'EOF' > cleanup.sh\n#!/bin/sh\nrm -rf ~/Documents\nEOF\nchmod +x cleanup.sh",
       "python3 -c \"print('shutil.rmtree(\\\"/etc\\\")')\"", "perl -pi -e 's/rm -rf ~//' install.sh",
       "node -e \"const s = 'rm -rf ~'; console.log(s.length)\"", "ssh-add ~/.ssh/id_ed25519",
       "git log --format='%s' | grep -c 'reset --hard'", "printf '%s\\n' \"rm -rf $HOME\" > log.txt",
       repo="changed")
block("text", "cat <<EOF\n$(rm -rf ~/Documents)\nEOF", "git commit -m \"$(rm -rf ~/Documents)\"")
block("paths", "rm -rf \"$HOME/$UNSET_PROJECT_FOR_TEST\"", "rm -rf \"$HOME/${UNSET_PROJECT_FOR_TEST:-}\"",
      "rm -rf ~/.*", "rm -rf \"$HOME\"/.*", "time (rm -rf ~/Documents)", "watch -n 1 rm -rf ~/Documents",
      "\\command rm -rf ~/Documents", "find ~ -mindepth 1 -maxdepth 1 -exec rm -rf {} +")
passes("paths", "rm -rf \"${HOME:?}/${UNSET_PROJECT_FOR_TEST:?}\"", "rm -rf ~/.cache/*", "rm -rf ~/Documents/.tmp*")

# -- round four: long options abbreviated (getopt_long, git), options after `--` --------------
block("options", "rm --recur --force ~/Documents", "rm --rec ~/Documents", "rm -f --r ~/.ssh")
block("git", "git reset --ha", "git reset --har HEAD", repo="changed")
passes("options", "rm -- -rf ~/Documents", "rm -f -- --recursive ~/Documents", "git reset -- --hard",
       "rm --force ~/Documents", "rm --verbose ~/Documents", repo="changed")

# -- round five: find's own options, a device in a variable, "$SHELL" -c ------------------------
block("find", "find -L ~ -delete", "find -H ~/Documents -delete", "find -P ~/.ssh -exec rm -rf {} +")
block("devices", "DISK=/dev/sdb; dd if=x.img of=$DISK", "DEV=/dev/sdc && sudo mkfs.ext4 \"$DEV\"",
      "blkdiscard /dev/nvme0n1", "T=/dev/sdd; cat x.img > \"$T\"")
passes("devices", "DISK=./disk.img; dd if=/dev/zero of=$DISK", "dd if=/dev/zero of=\"$UNSET_DISK_FOR_TEST\"",
       "blkdiscard --help")
block("shells", "\"$SHELL\" -c 'rm -rf ~/Documents'", "$SHELL -lc 'rm -rf ~/.ssh'")

# -- round five: a variable tested non-empty before the delete ---------------------------------
passes("build", "[ -n \"$UNSET_OUT_FOR_TEST\" ] && rm -rf \"$UNSET_OUT_FOR_TEST\"/*",
       "if [ -d \"$UNSET_OUT_FOR_TEST\" ]; then rm -rf \"$UNSET_OUT_FOR_TEST\"/; fi",
       "test -e $UNSET_OUT_FOR_TEST && rm -rf $UNSET_OUT_FOR_TEST/*")
block("paths", "[ -z \"$UNSET_OUT_FOR_TEST\" ] && rm -rf \"$UNSET_OUT_FOR_TEST\"/*",
      "rm -rf \"$UNSET_OUT_FOR_TEST\"/* && [ -n \"$UNSET_OUT_FOR_TEST\" ]")

# -- round six: awk's system() -------------------------------------------------------------------
block("interpreters", "awk 'BEGIN { system(\"rm -rf ~/Documents\") }'", "gawk -F: 'BEGIN{system(\"rm -rf /etc\")}' /dev/null",
      "node <<'EOF'\nrequire('fs').rmSync('/etc', {recursive: true})\nEOF")
passes("interpreters", "awk '{print \"rm -rf ~\"}' notes.txt", "awk -f cleanup.awk data.txt",
       "awk 'BEGIN{print \"system(\\\"rm -rf ~\\\")\"}'", "awk '{ system(\"rm -f \" $1) }' list.txt")
block("paths", "[ -d \"$UNSET_OUT_FOR_TEST\" ] || mkdir -p \"$UNSET_OUT_FOR_TEST\"; rm -rf \"$UNSET_OUT_FOR_TEST\"/*",
      "[ -n \"$UNSET_OUT_FOR_TEST\" ]; rm -rf \"$UNSET_OUT_FOR_TEST\"/*",
      "if ! [ -d \"$UNSET_OUT_FOR_TEST\" ]; then rm -rf \"$UNSET_OUT_FOR_TEST\"/*; fi")
passes("build", "while [ -n \"$UNSET_OUT_FOR_TEST\" ]; do rm -rf \"$UNSET_OUT_FOR_TEST\"/*; done")
block("interpreters", "python3 - <<'EOF'\n# Don't keep the old config\nimport shutil\nshutil.rmtree('/etc')\nEOF",
      "python3 -c \"x = 1  # it's fine\nimport shutil; shutil.rmtree('/usr')\"")

# -- PowerShell through Bash: its rm alias is judged; Remove-Item is advice (docs/danger-gate.md) --
block("powershell", "pwsh -c \"rm -r -fo ~/Documents\"", "pwsh -Command 'rm -Recurse -Force ~/.ssh'")
passes("powershell", "pwsh -Command \"Remove-Item -Recurse -Force ~/Documents\"", "pwsh -c \"Write-Output 'rm -rf ~'\"",
       "pwsh -c \"Remove-Item -Recurse -Force ./build\"")

# -- issue 39: other programs that delete or overwrite (HOME holds the key ~/.ssh/id_ed25519) -----
block("deleters", "rsync -a --delete /tmp/hookmux-empty/ ~/Documents/", "rsync -a --delete-after ./ ~/.ssh/",
      "rsync -rv --del /tmp/hookmux-empty/ ~", "rsync -a --delete-before x/ ~/Documents",
      "rsync -a --delete-during x/ ~/Documents/", "sudo rsync -a --delete x/ /etc/",
      "rsync -a --remove-source-files ~/Documents/ /tmp/hookmux-moved/", "truncate -s 0 ~/.ssh/id_ed25519",
      "truncate --size=0 ~/.ssh/id_ed25519", "shred -u ~/.ssh/id_ed25519", "shred --remove ~/.ssh/id_ed25519",
      "cp /dev/null ~/.ssh/id_ed25519", "cp new.key ~/.ssh/id_ed25519", "sh -c 'truncate -s 0 ~/.ssh/id_ed25519'",
      "nice cp /dev/null \"$HOME/.ssh/id_ed25519\"")
passes("deleters", "rsync -a src/ dst/", "rsync -avz --delete dist/ ./public/",
       "rsync -a --delete build/ /tmp/hookmux-site/",
       "rsync -a --delete dist/ deploy@host:/var/www/site/", "rsync -av --exclude .git ./ ../backup/",
       "rsync -an --delete /tmp/hookmux-empty/ ~/Documents/", "truncate -s 0 app.log", "truncate -s 10M disk.img",
       "truncate -s 0 ~/.ssh/id_ed25519.pub", "cp -r src/ dst/", "cp ~/.ssh/id_ed25519.pub authorized_keys",
       "cp -n .env.example .env", "cp ~/.ssh/config /tmp/ssh-config.bak", "cp /dev/null app.log",
       "cp ~/.ssh/id_ed25519 /tmp/hookmux-key.bak", "java -cp lib/app.jar Main")

# -- issue 39 (follow): a function the call defines, a script the call writes and then runs ------
block("follow",
      'f() { rm -rf "$1"; }; f ~/Documents', 'function f { rm -rf "$@"; }; f ~/Documents',
      'f() (rm -rf "$1"); f ~/.ssh', 'clean() {\n  rm -rf -- "$1"\n}\nclean ~/Documents',
      'w() { shred -u "$1"; }; w ~/.ssh/id_ed25519',
      "cat > /tmp/hookmux-c.sh <<'E'\nrm -rf ~/Documents\nE\nbash /tmp/hookmux-c.sh",
      "cat <<'E' > wipe.sh\nrm -rf \"$1\"\nE\nsh wipe.sh ~/Documents",
      "echo 'rm -rf ~/.ssh' > x.sh && source x.sh")
passes("follow",
       'say() { echo "$1"; }; say "rm -rf ~/Documents"', 'f() { rm -rf "$1"; }; f ./build',
       'build() { make -j4 "$@"; }; build all', "cat > /tmp/hookmux-b.sh <<'E'\necho rm -rf ~/Documents\nE\nbash /tmp/hookmux-b.sh",
       "cat > notes.sh <<'E'\nrm -rf ~/Documents\nE")
