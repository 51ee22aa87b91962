"""Which paths the credential rule names: by folder anywhere, by pairs, by the last name."""

from __future__ import annotations

from agent.tools.credential_files import credential_rule


def test_the_rule_names_folders_pairs_and_files_and_leaves_templates_and_venvs_alone() -> None:
    assert credential_rule(("home", "me", ".ssh", "id_rsa")) == ".ssh"
    assert credential_rule((".config", "gh", "hosts.yml")) == ".config/gh"
    assert credential_rule(("app", ".docker", "config.json")) == ".docker/config.json"
    assert credential_rule(("deploy", ".netrc")) == ".netrc"
    assert credential_rule(("app", ".env.production")) == ".env.production"
    assert credential_rule(("app", ".env.example")) is None
    assert credential_rule(("app", ".env", "lib", "site.py")) is None  # a virtualenv named .env
    assert credential_rule((".config", "ghostty", "config")) is None
    assert credential_rule(()) is None
