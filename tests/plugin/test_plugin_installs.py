"""hookmux.plugin_installs: where the plugin is on, in each host's own files (as the hosts wrote them)."""
from __future__ import annotations

import json

from hookmux import plugin_installs
from hookmux.plugin_installs import CLAUDE, CODEX, COPILOT

CODEX_CONFIG = '''model = "gpt-4.1"

[marketplaces.hookmux]
source_type = "local"
source = "/tmp/m"

[plugins."hookmux@hookmux"]
enabled = true

[plugins."other@hookmux"]
enabled = true
'''


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_each_hosts_record_of_an_enabled_plugin_is_found(tmp_path):
    home = tmp_path / "home"
    write(home / ".claude" / "settings.json", json.dumps({"enabledPlugins": {"hookmux@hookmux": True, "x@y": True}}))
    write(home / ".copilot" / "settings.json", json.dumps({"extraKnownMarketplaces": {},
                                                           "enabledPlugins": {"hookmux@team": True}}))
    write(home / ".codex" / "config.toml", CODEX_CONFIG)
    found = plugin_installs.found(home, codex_home=home / ".codex")
    assert [(item.host, item.plugin_id) for item in found] == [
        (CLAUDE, "hookmux@hookmux"), (COPILOT, "hookmux@team"), (CODEX, "hookmux@hookmux")]
    assert found[2].uninstall_command() == "codex plugin remove hookmux@hookmux"


def test_disabled_or_absent_or_broken_records_are_not_an_install(tmp_path):
    home = tmp_path / "home"
    write(home / ".claude" / "settings.json", "{broken")
    write(home / ".copilot" / "settings.json", json.dumps({"enabledPlugins": {"hookmux@hookmux": False}}))
    write(home / ".codex" / "config.toml", CODEX_CONFIG.replace("enabled = true\n\n[plugins.\"other",
                                                                "enabled = false\n\n[plugins.\"other"))
    assert plugin_installs.found(home, codex_home=home / ".codex") == []


def test_a_project_that_pins_the_plugin_counts_for_claude_and_install_refuses_with_the_switch(tmp_path):
    project = tmp_path / "proj"
    write(project / ".claude" / "settings.json", json.dumps({"enabledPlugins": {"hookmux@hookmux": True}}))
    found = plugin_installs.found(tmp_path / "home", project=project)
    assert [(item.host, item.where) for item in found] == [(CLAUDE, project / ".claude" / "settings.json")]
    message = plugin_installs.refusal(found, CLAUDE, "~/.claude/settings.json")
    assert "twice" in message and "claude plugin uninstall hookmux@hookmux" in message
    assert plugin_installs.refusal(found, COPILOT, "x") is None
