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


def test_key_stores_token_files_and_downloaded_secrets_are_named_in_any_case() -> None:
    assert credential_rule(("deploy", "server.pfx")) == "*.pfx"
    assert credential_rule(("certs", "Client.P12")) == "*.p12"
    assert credential_rule(("android", "release.keystore")) == "*.keystore"
    assert credential_rule(("app", "truststore.jks")) == "*.jks"
    assert credential_rule(("Passwords.kdbx",)) == "*.kdbx"
    assert credential_rule(("putty", "me.ppk")) == "*.ppk"
    for name in (".htpasswd", ".my.cnf", ".s3cfg", ".boto", ".dockercfg", "terraform.tfstate",
                 "terraform.tfstate.backup", "credentials.json", "CREDENTIALS.JSON"):  # fmt: skip
        assert credential_rule(("infra", name)) == name
    assert credential_rule(("client_secret_42.apps.googleusercontent.com.json",)) == (
        "client_secret*.json"
    )
    assert credential_rule(("gcp", "Service-Account-Prod.json")) == "service-account*.json"
    assert credential_rule(("service_account.json",)) == "service_account*.json"
    assert credential_rule((".config", "rclone", "rclone.conf")) == ".config/rclone/rclone.conf"
    assert credential_rule(("home", ".config", "hub")) == ".config/hub"
    assert credential_rule((".config", "op", "config")) == ".config/op"


def test_pem_and_key_files_and_look_alike_names_are_judged_by_content_not_name() -> None:
    for parts in (
        ("certs", "server.pem"),
        ("deploy", "prod.key"),
        ("talk.key",),  # a Keynote file
        ("terraform.tfvars",),
        ("main.tf",),
        ("credentials.py",),  # code about credentials
        ("service-account.yaml",),  # a Kubernetes manifest
        ("client_secret.txt",),
        (".config", "hubble", "config"),
        (".config", "rclone", "filters.txt"),
        ("my.cnf.example",),
    ):
        assert credential_rule(parts) is None, parts
