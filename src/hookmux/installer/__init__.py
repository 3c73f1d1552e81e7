"""``hookmux install`` / ``uninstall`` / ``status``: copy the hooks tree into a live hooks folder
and wire it into Claude Code settings and Copilot hook files, losing nothing of the user's.

plan          plan an install or uninstall first, refusing bad input before anything is touched
wiring_plan  what one host file becomes (the merge, its bytes before and after, its backup)
show         the --dry-run listing and diff
apply        carry a plan out through the journal
transaction  the install lock and the rollback around a journal (adopt's too)
tree          what the installed tree should hold; foreign files kept as ``.legacy``
record        ``<target>/.hookmux-installed.json`` and the pending record of an install in progress
entries       the hook entries each host should get, from the installed manifest
commands      recognise hookmux's own hook commands by content
merge         put those entries into a host's ``hooks`` object and take them out again
wiring_files  the two host file kinds (Claude settings, Copilot ``hookmux.json``)
jsonfile      load a user's JSON file (refusing malformed input) and write it back
jsonedit      rewrite JSON text keeping the user's formatting where the data did not change
journal       file operations that know how to undo themselves
atomic        crash-safe writes, backups, fault-injection points
inspect       what ``hookmux status`` reports
gemini_hooks  what Gemini CLI's settings.json gets (its events, ms timeouts, silent fail-open lines)
gemini_extension  where Gemini CLI has the hookmux extension, and whether it is on (install warns, status reports)
"""
