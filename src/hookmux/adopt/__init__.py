"""``hookmux adopt``: move the user's own Python command hooks behind the dispatcher.

command    how a hook's command line runs a Python file (every common spelling), or why not
analysis   what the Python file does, read from its AST (never run): adoptable, blocker, or not
discover   the user's hook entries in a Claude Code settings file and Copilot hook files
plan       the verdict per entry, the manifest rows, processes per tool call before and after
apply      write the plan (and undo it) through the installer's transaction machinery
carry      a reinstall or upgrade while adopted: the adoption laid over the merged manifest again
"""
