"""Loopback stand-ins for the models' APIs and how to drive a real host binary against one.

Shared by tests/e2e and ``hookmux bench --turn``: ``base`` (the scripted, recording server),
``anthropic`` (the Messages API), ``openai_chat`` (OpenAI's Chat Completions), ``hosts`` (where ``.e2e/`` keeps a host's binary, and the
command line and environment a Claude Code run gets).
"""
