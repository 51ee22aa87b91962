"""The models a person could chat with here: those of local servers that answered, and a
sensible default for each provider key set in the environment (by litellm's variable names).

Keys are only ever named, never read beyond "is it set": their values stay in the environment
for litellm, which sends each one to its own provider only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from agent.chat.local_models import HOST, KINDS, LocalServer, Probe, plain_name
from agent.settings import ModelDiscovery
from agent.text import plural, sanitize_line

# The variable litellm reads for each provider, and the model offered when it is set.
PROVIDER_DEFAULTS = {
    "OPENAI_API_KEY": "openai/gpt-4.1-mini",
    "ANTHROPIC_API_KEY": "anthropic/claude-sonnet-4-5",
    "GEMINI_API_KEY": "gemini/gemini-2.5-flash",
    "MISTRAL_API_KEY": "mistral/mistral-large-latest",
    "GROQ_API_KEY": "groq/openai/gpt-oss-120b",
    "DEEPSEEK_API_KEY": "deepseek/deepseek-chat",
    "OPENROUTER_API_KEY": "openrouter/openai/gpt-4.1-mini",
    "XAI_API_KEY": "xai/grok-latest",
    "TOGETHERAI_API_KEY": "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
}
SHOWN_PER_SERVER = 20  # the chooser lists this many of a server's models; others can be typed


@dataclass(frozen=True)
class ModelChoice:
    """A model string for litellm, where it is served (None: the provider's default), and
    why it is offered."""

    model: str
    api_base: str | None
    where: str


@dataclass(frozen=True)
class Found:
    """What a look around found: local servers, the key variables set, and the choices."""

    servers: list[LocalServer] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    choices: list[ModelChoice] = field(default_factory=list)

    def shown(self) -> list[ModelChoice]:
        """The choices a list shows (at most SHOWN_PER_SERVER of each server's models)."""
        per_place: dict[str, int] = {}
        listed = []
        for choice in self.choices:
            per_place[choice.where] = per_place.get(choice.where, 0) + 1
            if per_place[choice.where] <= SHOWN_PER_SERVER:
                listed.append(choice)
        return listed

    def resolve(self, text: str) -> ModelChoice | None:
        """The choice named by `text`: its full model string, or a local model's own name."""
        for choice in self.choices:
            if text == choice.model or text == choice.model.split("/", 1)[1]:
                return choice
        return None


def start_search(discovery: ModelDiscovery) -> Probe:
    """Begin asking the local ports (in the background); finish with `finish_search`."""
    ports = {kind.setting: int(getattr(discovery, kind.setting)) for kind in KINDS}
    return Probe(ports, discovery.timeout_seconds)


def finish_search(probe: Probe, environ: Mapping[str, str] | None = None) -> Found:
    """Wait for the probe (bounded by its deadline) and add the provider keys."""
    environ = os.environ if environ is None else environ
    servers = probe.result()
    keys = [name for name in PROVIDER_DEFAULTS if environ.get(name, "").strip()]
    choices = [
        ModelChoice(f"{server.kind.provider}/{name}", server.api_base, server.where)
        for server in servers
        for name in server.models
    ]
    choices += [ModelChoice(PROVIDER_DEFAULTS[key], None, f"{key} is set") for key in keys]
    return Found(servers, keys, choices)


def find_choices(discovery: ModelDiscovery) -> Found:
    """Look now: local servers (within the discovery timeout) and provider keys."""
    return finish_search(start_search(discovery))


TYPED = "typed"  # `where` of a model string typed without an address: the provider's own
GIVEN = "given"  # `where` of a model string typed with its address after it


def typed_choice(text: str, found: Found) -> ModelChoice | None:
    """What a typed answer names: a listed model; a model of a local server that answered,
    by its provider prefix (served there); a model string and the address of its server
    ("NAME http://host:port/v1", GIVEN); else any plain litellm model string (TYPED).
    Whether litellm can route a typed name is for model.routing_problem to say."""
    text = text.strip()
    name, _, address = text.partition(" ")
    if address.strip():
        address = address.strip()
        return (
            ModelChoice(name, address, GIVEN)
            if plain_name(name) and api_base_shape(address)
            else None
        )
    if not plain_name(text):
        return None
    listed = found.resolve(text)
    if listed is not None:
        return listed
    for server in found.servers:
        if text.split("/", 1)[0] == server.kind.provider and "/" in text:
            return ModelChoice(text, server.api_base, server.where)
    return ModelChoice(text, None, TYPED)


def api_base_shape(address: str) -> bool:
    """An address a model API may be at, as --api-base takes it: http(s)://host[:port][/path],
    printable, with no spaces, no user or password in it."""
    if not plain_name(address):
        return False
    try:
        parts = urlsplit(address)
        parts.port  # noqa: B018  (raises ValueError for a port that is not a number)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and "@" not in parts.netloc


def found_lines(found: Found, discovery: ModelDiscovery) -> list[str]:
    """What was found, for a person without a terminal to choose on."""
    lines = []
    for server in found.servers:
        count = plural(len(server.models), "model")
        if server.models:
            first = f"{server.kind.provider}/{server.models[0]}"
            lines.append(
                f"  {server.where}: {count}, e.g. agent --model {first} --api-base "
                f"{server.api_base}"
            )
        else:
            lines.append(f"  {server.where}: answered, but lists no model")
    for key in found.keys:
        lines.append(f"  {key} is set: agent --model {PROVIDER_DEFAULTS[key]}")
    if lines:  # the names passed plain_name; sanitized all the same, as all untrusted text
        return ["Found here:", *(sanitize_line(line) for line in lines)]
    ports = ", ".join(
        f"{kind.label} :{getattr(discovery, kind.setting)}"
        for kind in KINDS
        if getattr(discovery, kind.setting)
    )
    return [
        f"Found here: no model server on {HOST} ({ports or 'none looked for'}) and no "
        "provider key in the environment."
    ]
