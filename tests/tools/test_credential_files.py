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


def test_the_token_files_of_cargo_rubygems_terraform_vault_and_direnv_are_refused() -> None:
    assert credential_rule(("home", ".cargo", "credentials.toml")) == ".cargo/credentials.toml"
    assert credential_rule((".gem", "credentials")) == ".gem/credentials"
    assert credential_rule((".terraform.d", "credentials.tfrc.json")) == (
        ".terraform.d/credentials.tfrc.json"
    )
    assert credential_rule(("home", ".vault-token")) == ".vault-token"
    assert credential_rule(("app", ".envrc")) == ".envrc"
    assert credential_rule((".cargo", "config.toml")) is None
