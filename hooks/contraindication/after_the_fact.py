"""The contraindication advisory for a call that already ran (Gemini CLI: ``hosts.ADVICE_AFTER``).

Gemini drops context given before a tool call, so there the advisory arrives with the
tool's output. "Safer: do X instead" is too late then; what helps is how to check the
damage and undo it. ``NOW`` says that per row id; a row without an entry gets its harm and
its safer way for next time. Loaded by check.py only when a row matched after a call.
"""

#: Row id -> what to do now that the command has run.
NOW = {
    "GIT-FORCE-PUSH-MAIN": (
        "Check what the remote branch points to now (`git ls-remote origin main`) against your "
        "`git reflog` and teammates' clones; commits that were overwritten can be pushed back from "
        "any clone or reflog that still has them (`git push origin <sha>:main`) -- tell the team first."),
    "GIT-RESET-HARD": (
        "The previous commit is still in `git reflog` (`git reset --hard HEAD@{1}` goes back to it). "
        "Uncommitted edits to tracked files are gone unless they were staged (`git fsck --lost-found` "
        "lists dangling blobs) or an editor kept local history."),
    "GIT-CLEAN-IGNORED": (
        "Deleted untracked and ignored files were never in git: restore `.env` files, local configs "
        "and credentials from backups or your secrets manager; `git status --ignored` shows what is left."),
    "GIT-COMMIT-NO-VERIFY": (
        "Run the skipped hooks on that commit now (`pre-commit run --from-ref HEAD~1 --to-ref HEAD`) "
        "and amend it if they report or change anything, before pushing."),
    "PS-REMOVE-ITEM-RECURSE-ROOT": (
        "Stop and check what is left (`Get-ChildItem` of the target). Remove-Item bypasses the "
        "Recycle Bin: restore from backups, File History or OneDrive's version history."),
    "CURL-PIPE-SHELL": (
        "The downloaded script ran with your privileges: review its output above and what it changed "
        "(new files on PATH, shell rc files, crontab, services); download it again to a file and read it."),
    "CHMOD-777-RECURSIVE": (
        "Tighten the permissions now: `chmod -R u+rwX,go-w <dir>` (or restore them from a backup "
        "or a fresh checkout); check that no file was changed by another user meanwhile."),
    "SQL-DROP": (
        "Check which server and database the client was connected to; restore the object from the "
        "latest dump or point-in-time recovery before more writes land."),
    "KUBECTL-DELETE-NAMESPACE": (
        "Check `kubectl config current-context` to see which cluster it was; re-create the namespace "
        "from its manifests or GitOps repository; volumes with a Retain policy may survive (`kubectl get pv`)."),
    "TERRAFORM-DESTROY": (
        "See what is left with `terraform state list` and the provider's console; re-create from the "
        "code with `terraform apply` and restore data from snapshots or backups."),
    "TERRAFORM-AUTO-APPROVE": (
        "Review what was applied: `terraform show` and the run's output above; `terraform plan` now "
        "shows any drift left to fix."),
    "PACKAGE-PUBLISH": (
        "Check the published version on the registry; a version number cannot be reused: if it was a "
        "mistake, deprecate or yank it (`npm deprecate`, `npm unpublish` within 72 h, PyPI's yank) and "
        "publish a fixed version."),
    "DOCKER-SYSTEM-PRUNE-ALL": (
        "Removed images are pulled or rebuilt on demand; check `docker volume ls` if `--volumes` was "
        "given: pruned volumes come back only from backups."),
    "DD-TO-DEVICE": (
        "Stop writing to that device: recovery tools (testdisk, photorec) need it untouched; check "
        "with `lsblk -f` which device it was."),
    "MKFS-DEVICE": (
        "Stop writing to that device: the old partition's data may still be recoverable (testdisk) "
        "while nothing new is written; check with `lsblk -f` which device it was."),
    "CLOUD-STORAGE-RECURSIVE-DELETE": (
        "With versioning on, the objects can be restored (list them with `aws s3api "
        "list-object-versions` and remove the delete markers); otherwise restore from a backup or replica."),
    "GIT-PUSH-FORCE": (
        "Check what the remote branch points to now (`git ls-remote origin <branch>`) against your "
        "`git reflog`; commits that were overwritten can be pushed back from any clone or reflog that "
        "still has them (`git push origin <sha>:<branch>`) -- tell whoever shares the branch."),
    "GIT-RESET-MERGE": (
        "The previous commit is still in `git reflog` (`git reset --hard HEAD@{1}` goes back to it); "
        "unstaged edits in the reset files are gone unless an editor kept local history."),
    "GIT-CLEAN-FORCE": (
        "Deleted untracked files were never in git: restore them from backups or an editor's local "
        "history; `git status` shows what is left."),
    "GIT-STASH-DROP": (
        "A dropped stash survives as an unreachable commit until garbage collection: find it with "
        "`git fsck --unreachable | grep commit` (or the hash printed by the drop) and bring it back "
        "with `git stash apply <sha>`; do not run `git gc` meanwhile."),
    "GIT-BRANCH-FORCE-DELETE": (
        "The branch's last commit is still in `git reflog` (and in the hash printed by the delete): "
        "`git branch <name> <sha>` brings the branch back."),
    "GIT-CHECKOUT-DISCARD": (
        "Discarded edits are gone unless they were staged (`git fsck --lost-found` lists dangling "
        "blobs) or an editor kept local history; committed work is untouched."),
    "GIT-SWITCH-DISCARD": (
        "Discarded edits are gone unless they were staged (`git fsck --lost-found` lists dangling "
        "blobs) or an editor kept local history; `git reflog` shows the branch you came from."),
    "GIT-RESTORE-WORKTREE": (
        "Overwritten edits are gone unless an editor kept local history; `git diff` shows what the "
        "files hold now."),
    "GIT-WORKTREE-REMOVE-FORCE": (
        "Its commits are safe (they live in the main repository: `git branch -a`, `git reflog`); its "
        "uncommitted and untracked files are gone unless backups or an editor's history have them. "
        "`git worktree prune` tidies what is left."),
    "RM-RECURSIVE-OUTSIDE": (
        "Stop and check what is left (`ls -la` of the target) before running anything else there. "
        "rm keeps no trash: restore from backups or snapshots; inside a repository `git status` and "
        "`git restore .` bring back tracked files."),
    "RM-RECURSIVE-UNKNOWN": (
        "Check what the search or the input produced (run it again without the delete) and what is "
        "left; rm keeps no trash: restore from backups, or tracked files with `git restore`."),
    "RM-RECURSIVE-EVERYTHING": (
        "Check which folder it ran in (`pwd`, `ls -la`); inside a repository `git restore .` brings "
        "back tracked files (untracked ones only from backups); elsewhere restore from backups."),
    "RM-SYSTEM-FILE": (
        "Reinstall the package that owned the file (`dpkg -S <path>` / `rpm -qf <path>`, then "
        "reinstall it) or restore it from a backup before rebooting or restarting the service."),
    "FIND-DELETE": (
        "Check what is left below the starting point (`ls -la`); find keeps no trash: restore from "
        "backups, or tracked files inside a repository with `git restore .`."),
    "RM-GIT-DIR": (
        "The history of this clone is gone: clone the remote again (`git clone <url>`) and copy the "
        "working files over it; commits, stashes and branches never pushed can only come from backups."),
    "GIT-HISTORY-PRUNE": (
        "The pruned commits are gone from this repository; any other clone, a fork, or the remote's "
        "own reflog may still have them (`git fetch <that clone> <sha>`)."),
    "GIT-FILTER-REWRITE": (
        "The original history is kept in `refs/original/` (filter-branch) or in any unrewritten "
        "clone: compare before pushing, and do not push the rewrite until the team agrees."),
    "FORK-BOMB": (
        "Ask the user before anything else: from a shell that still answers, the runaway processes "
        "can be stopped by name (`pkill -f <name>`), otherwise the machine needs a restart."),
    "SYSTEM-POWER": (
        "Tell anyone else on the machine; if it is a remote host, check it comes back "
        "(console access may be needed) and restart the jobs and services it was running."),
    "CRONTAB-REMOVE": (
        "The crontab is gone: rebuild it from a backup, from your dotfiles or configuration "
        "management, or from the jobs' own logs (`grep CRON /var/log/syslog`)."),
    "DOCKER-COMPOSE-DOWN-VOLUMES": (
        "The project's named volumes are gone with their data. Check `docker volume ls`; restore from a "
        "backup or dump if there is one, and tell the user before bringing the stack back up empty."),
    "DOCKER-COMPOSE-V1-DOWN-VOLUMES": (
        "The project's named volumes are gone with their data. Check `docker volume ls`; restore from a "
        "backup or dump if there is one, and tell the user before bringing the stack back up empty."),
    "DOCKER-VOLUME-REMOVE": (
        "Removed volumes cannot be brought back by docker. Check `docker volume ls` for what is left and "
        "restore the data from a backup; tell the user which volumes went."),
    "REDIS-FLUSH": (
        "The keys are gone unless the server persisted them: an RDB/AOF file from before the flush (or a "
        "replica that has not synced yet) can restore them. Tell the user now, before the next save."),
    "PRISMA-RESET": (
        "The database DATABASE_URL names was dropped and recreated. Check which server that was; restore "
        "from its latest dump or backup, and tell the user if it was not a throwaway database."),
    "FRAMEWORK-DB-DROP": (
        "The data of the environment's database is gone. Check which database it was (RAILS_ENV, "
        "DJANGO_SETTINGS_MODULE), restore from the latest dump, and tell the user."),
    "PULUMI-DESTROY": (
        "Check `pulumi stack history` and the cloud console for what was deleted; stateful resources "
        "need their backups or snapshots restored. Tell the user which stack it was."),
    "HELM-UNINSTALL": (
        "Check `kubectl get pv` for volumes released by the chart's claims (with a Retain policy the data "
        "is still there to rebind); reinstall the release and tell the user."),
    "AZ-GROUP-DELETE": (
        "Deletion may still be running: `az group show -n <group>`. Soft-deleted items (Key Vault, "
        "storage with soft delete) can be recovered for a while; tell the user at once."),
    "ZFS-DESTROY": (
        "A destroyed dataset or pool cannot be undone by zfs; a destroyed pool may still import with "
        "`zpool import -D`. Stop writing to the disks and tell the user."),
    "SQL-DELETE-ALL-ROWS": (
        "Check which database the client was connected to and how many rows are left (`SELECT count(*)`); "
        "restore the table from the latest dump, a copy of the file or point-in-time recovery before more "
        "writes land, and tell the user."),
    "KUBECTL-DELETE-ALL": (
        "Check `kubectl config current-context` and `kubectl get <kind> -n <ns>` for what is left; "
        "controllers re-create what a deployment owns, the rest comes back from its manifests or GitOps "
        "repository; released volumes with a Retain policy still hold their data (`kubectl get pv`)."),
    "GCLOUD-DELETE": (
        "Check the active project (`gcloud config get-value project`) and what is left; a deleted project "
        "can be restored for 30 days (`gcloud projects undelete`), an instance's data only from backups or "
        "snapshots kept outside it. Tell the user at once."),
    "LVM-REMOVE": (
        "Stop writing to the volume group: the removed volume's extents still hold its data until reused, "
        "and `vgcfgrestore` from `/etc/lvm/archive` can bring the volume back. Tell the user."),
    "CRYPTSETUP-FORMAT": (
        "Stop writing to the device: with a header backup (`cryptsetup luksHeaderRestore`) the old "
        "volume opens again; without one its data cannot be decrypted. Check with `lsblk -f` which "
        "device it was and tell the user."),
    "GH-RELEASE-DELETE": (
        "Re-create the release from its tag (`gh release create <tag> --notes-file ...`) and upload the "
        "assets again from the build or a local copy; if the tag went too, push it back from a clone that "
        "has it (`git push origin <tag>`)."),
    "GIT-PUSH-DELETE-REMOTE": (
        "Push it back from your clone while you still have it: `git push origin <sha>:refs/heads/<branch>` "
        "(the sha is in `git reflog` or was printed by the push); reopen a pull request that closed."),
    "GIT-FORCE-WITH-LEASE-MAIN": (
        "Check what the remote main points to now (`git ls-remote origin main`) against your `git reflog` "
        "and teammates' clones; overwritten commits can be pushed back from any clone that still has them "
        "-- tell the team first."),
    "PERMISSIONS-RECURSIVE-SYSTEM": (
        "Do not log out or reboot yet: from a shell that still has root, restore owners and modes with the "
        "package manager (`rpm --setugids -a` then `rpm --setperms -a`; on Debian reinstall the packages "
        "`dpkg --verify` reports); setuid binaries such as sudo need their mode back (`chmod 4755`)."),
    "SECRET-UPLOAD": (
        "Treat the credential as leaked: revoke and rotate it now (a new SSH key, new cloud access keys, "
        "new tokens), check its provider's logs for use since, and tell the user."),
    "SECRET-PIPE-TO-NETWORK": (
        "Treat the credential as leaked: revoke and rotate it now (a new SSH key, new cloud access keys, "
        "new tokens), check its provider's logs for use since, and tell the user."),
}


def advisory(tool_name, rows, clip):
    """The text for ``rows`` after a ``tool_name`` call ran; ``clip`` shortens one field."""
    plural = "s" if len(rows) > 1 else ""
    lines = [
        "hookmux contraindication advisory (after the fact: this host runs no advice before a call, "
        "so this %s call has already run): it matched known hazard%s %s."
        % (tool_name, plural, ", ".join(row["id"] for row in rows))
    ]
    for row in rows:
        now = NOW.get(row["id"])
        if now:
            lines.append("- %s: %s Now: %s" % (row["id"], clip(row["harm"]), now))
        else:
            lines.append("- %s: %s Next time: %s" % (row["id"], clip(row["harm"]), clip(row["safe_alternative"])))
    return "\n".join(lines)
