"""``hookmux bench``: what the installed hook commands cost per tool call.

``cases`` builds a temporary install (hooks tree, bench manifest, skills tree,
payloads) and the B0..B5 cases; ``runner`` spawns and times them round-robin;
``report`` turns the samples into medians, target verdicts, a table and JSON.
"""
