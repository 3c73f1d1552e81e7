"""``hookmux serve``: a resident loopback server answering Claude Code's HTTP hooks with the
dispatcher core (``hooks/_dispatch/dispatch_core.run``), the selected checks in persistent workers.

``files`` says where an install's secret, port and pid live; ``server`` is the server (HTTP,
selection, deadlines, rendering); ``pool`` its workers; ``worker`` the worker process's script.
"""
