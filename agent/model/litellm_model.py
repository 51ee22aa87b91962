"""ChatModel and LiteLLMModel: the only module that imports litellm.

litellm costs about 2.5 s to import, so it is loaded in a background thread while the prompt
is already on screen (or on first use). Every request has a per-chunk timeout (litellm's
`timeout` bounds the gap between streamed chunks), an overall deadline and bounded retries;
every failure becomes an AgentError that says what to do.
"""

from __future__ import annotations

import gc
import json
import os
import re
import threading
import time
import uuid
import warnings
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol
from urllib.parse import urlsplit

from agent.errors import AgentError
from agent.loopback import goes_direct, is_loopback_host
from agent.messages import CHARS_PER_TOKEN, Completion, ToolCall, Usage, estimate_tokens
from agent.redaction import Redactor


class ModelError(AgentError):
    """A model request failed; the message says why and what to do. The chat goes on."""


@dataclass(frozen=True)
class TextChunk:
    """A piece of the answer's text, as it streams in."""

    text: str


class ChatModel(Protocol):
    """Streams one completion: TextChunk items, then exactly one Completion."""

    name: str

    def stream(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[TextChunk | Completion]: ...


def accepts_images(model: ChatModel) -> bool:
    """Whether `model` takes images; a model that cannot say gets notes instead."""
    check = getattr(model, "accepts_images", None)
    return bool(check()) if callable(check) else False


# -- loading litellm --------------------------------------------------------------------------


class LiteLLMLoader:
    """Imports litellm once, quietly, in a background thread or on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._imported = threading.Event()  # set when the import is done, or has failed
        self._module: ModuleType | None = None
        self._error: BaseException | None = None

    def start(self) -> None:
        """Begin importing in a daemon thread (the prompt can be drawn meanwhile)."""
        with self._lock:
            if self._thread is None and self._module is None and self._error is None:
                thread = threading.Thread(target=self._load, name="import-litellm", daemon=True)
                try:
                    thread.start()
                except RuntimeError as error:  # "can't start new thread": get() says so
                    self._error = error
                    self._imported.set()
                    return
                self._thread = thread

    def get(self) -> ModuleType:
        """The litellm module, waiting for the background import if it is running."""
        self.start()
        self._imported.wait()
        if self._error is not None:
            raise ModelError(f"could not load litellm: {self._error}") from self._error
        assert self._module is not None
        return self._module

    @property
    def loaded(self) -> bool:
        """The import is done: get() returns at once."""
        return self._imported.is_set() and self._module is not None

    @property
    def started(self) -> bool:
        """The import has begun (it may still be running in its thread)."""
        return self._thread is not None or self._module is not None

    def _load(self) -> None:
        # Offline, litellm would try to fetch a price list and print warnings later on.
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        # Otherwise its import loads a .env file from the working directory (or any parent)
        # into our environment: a project's secrets must not silently become ours.
        os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
        gc_was_enabled = gc.isenabled()
        gc.disable()  # the import allocates a great deal; collecting midway halves its speed
        try:
            # litellm installs its own warning filters at import; keep them (no catch_warnings).
            import litellm

            # litellm builds pydantic schemas lazily, mid-request, and each one warns about
            # ReadOnly TypedDict items: noise no person can act on, printed over the answer.
            warnings.filterwarnings(
                "ignore", category=UserWarning, module=r"pydantic\._internal\._generate_schema"
            )
            litellm.suppress_debug_info = True  # else caught errors print "Give Feedback" banners
            litellm.drop_params = True  # providers without stream_options etc. still work
            litellm.telemetry = False
            # For Llama-like names token_counter would fetch a tokenizer from huggingface.co
            # (5 retries, ~25 s offline): a local model must not make the machine call out.
            # tiktoken's count is close enough for a share of the window.
            litellm.disable_hf_tokenizer_download = True
            # Before each streamed request litellm prices it by counting the prompt's tokens
            # with a tokenizer it loads on first use: 0.1-0.35 s of a one-shot run, and a pass
            # over the whole conversation on every request after. We never use that count:
            # usage comes from the provider (stream_options.include_usage), and where a
            # provider sends none, _usage estimates it. (Process-wide: litellm.token_counter
            # answers 0 while this is set.)
            litellm.disable_token_counter = True
            send_loopback_direct(litellm)
            read_error_events(litellm)
            # The import leaves some 380 000 long-lived objects; each full collection after it
            # would walk them all (the first request alone paid about 0.2 s for that). Frozen,
            # the collector skips them: they live as long as the process anyway.
            gc.freeze()
            self._module = litellm
        except BaseException as error:  # reported by get(), in the caller's thread
            self._error = error
        finally:
            if gc_was_enabled:
                gc.enable()
            self._imported.set()


def send_loopback_direct(litellm: ModuleType) -> None:
    """Send every plain-http request litellm makes to this machine direct, never through the
    environment's HTTP_PROXY / ALL_PROXY (agent/loopback.py); other URLs keep the proxy.

    A local model server gets the API key and the whole conversation in clear text; a proxy is
    another machine. Whatever the provider, and whichever transport litellm's switches pick
    (DISABLE_AIOHTTP_TRANSPORT, LITELLM_HTTP2, litellm.force_ipv4, the openai SDK's client or
    litellm's own), every request passes through an httpx client, which picks per URL either
    its own transport (never a proxy: httpx and litellm put proxies only in `mounts`) or a
    proxy mount. Loopback URLs get the client's own transport, so no branch needs patching of
    its own. Under the default aiohttp transport, aiohttp reads the proxy itself, per request:
    that reading applies the same rule. Process-wide, like the rule, and without touching
    os.environ: NO_PROXY there would reach command tools and change the ${VAR} expansions trust
    was given on.
    """
    from litellm.llms.custom_httpx import http_handler as handlers
    from litellm.llms.custom_httpx.aiohttp_transport import LiteLLMAiohttpTransport

    http_handler: Any = handlers
    httpx: Any = http_handler.httpx  # litellm's own httpx (mcp's is httpx2), reached through it
    transport: Any = LiteLLMAiohttpTransport
    environment_proxy = transport._get_proxy_settings
    if getattr(environment_proxy, "loopback_direct", False):
        return

    async def proxy_for(self: Any, request: Any) -> str | None:
        if goes_direct(str(request.url)):
            return None
        return await environment_proxy(self, request)  # type: ignore[no-any-return]

    proxy_for.loopback_direct = True  # type: ignore[attr-defined]
    transport._get_proxy_settings = proxy_for
    for client in (httpx.Client, httpx.AsyncClient):
        client._transport_for_url = _loopback_on_own_transport(client._transport_for_url)


def read_error_events(litellm: ModuleType) -> None:
    """Let an SSE `error:` event end a streamed answer with its error.

    llama.cpp's server reports a failure it finds after the stream began (a request larger
    than the context window) as `error: {...}`; the openai SDK, through which litellm reads
    OpenAI-compatible streams, ignores fields it does not know, and the answer came out empty.
    Read as the `data: {"error": ...}` the SDK raises an APIError for, it reaches
    describe_model_error with the server's words and numbers. Process-wide, once.
    """
    from litellm.llms.openai import openai as openai_handler

    handler: Any = openai_handler
    sdk: Any = handler.openai  # the openai SDK, reached through litellm (its one owner)
    decoder: Any = sdk._streaming.SSEDecoder
    decode = decoder.decode
    if getattr(decode, "reads_errors", False):
        return

    def decode_errors(self: Any, line: str) -> Any:
        field, _, value = line.partition(":")
        if field == "error":
            line = "data: " + json.dumps({"error": _error_object(value.removeprefix(" "))})
        return decode(self, line)

    decode_errors.reads_errors = True  # type: ignore[attr-defined]
    decoder.decode = decode_errors


def _error_object(text: str) -> dict[str, Any]:
    try:
        error = json.loads(text)
    except ValueError:
        return {"message": text}
    return error if isinstance(error, dict) else {"message": str(error)}


def _loopback_on_own_transport(transport_for_url: Any) -> Any:
    """httpx's `_transport_for_url`, answering the client's own (unproxied) transport for a
    plain-http loopback URL, before any proxy mount is looked at."""

    def chosen(self: Any, url: Any) -> Any:
        if goes_direct(str(url)):
            return self._transport
        return transport_for_url(self, url)

    return chosen


LOADER = LiteLLMLoader()


def routing_problem(model: str, loader: LiteLLMLoader = LOADER) -> str | None:
    """Why litellm could not send a request for `model` anywhere, with what to type instead;
    None when it knows the provider. litellm's own verdict (`get_llm_provider`, which asks no
    server), so it loads litellm: ask only of a name a person typed."""
    litellm = loader.get()
    try:
        litellm.get_llm_provider(model)
    except Exception:  # litellm's BadRequestError "LLM Provider NOT provided", or its kin
        return (
            f"litellm cannot tell which provider serves {model!r}: type it with its provider, "
            f"e.g. openai/{model} for an OpenAI-compatible server of your own (with its "
            f"address after it: openai/{model} http://127.0.0.1:8080/v1), "
            "anthropic/claude-sonnet-4-5, ollama_chat/llama3.1 "
            "(https://docs.litellm.ai/docs/providers)"
        )
    return None


_COUNTER_LOCK = threading.Lock()


def count_tokens(
    litellm: ModuleType,
    model: str,
    messages: Sequence[dict[str, Any]] | None,
    tools: Sequence[dict[str, Any]] | None,
    text: str | None,
) -> int:
    """litellm.token_counter, with the counter switched on for this one call.

    The loader switches it off process-wide (it answers 0 then) so that requests do not pay
    for it; only `/context` and the toolbar's share count, in worker threads. A request
    streaming meanwhile may pay for one count while the counter is on (cost only, never a wrong
    answer); the lock keeps two counting threads from restoring the flag out of order.
    """
    with _COUNTER_LOCK:
        was = getattr(litellm, "disable_token_counter", False)
        litellm.disable_token_counter = False  # type: ignore[attr-defined]
        try:
            return int(
                litellm.token_counter(
                    model=model,
                    messages=list(messages) if messages is not None else None,
                    tools=list(tools) if tools else None,
                    text=text,
                )
            )
        finally:
            litellm.disable_token_counter = was  # type: ignore[attr-defined]


def table_window(litellm: ModuleType, model: str) -> int:
    """max_input_tokens of a model in litellm's bundled table (no provider call); 0 if unknown."""
    table = getattr(litellm, "model_cost", None) or {}
    for key in (model, model.split("/", 1)[-1]):
        entry = table.get(key)
        if isinstance(entry, dict):
            limit = entry.get("max_input_tokens") or entry.get("max_tokens")
            if isinstance(limit, int) and limit > 0:
                return limit
    return 0


# -- the model --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelSettings:
    """Which model, where, and the limits of each request."""

    name: str
    api_base: str | None = None
    api_key_env: str | None = None
    chunk_timeout_seconds: float = 60
    request_timeout_seconds: float = 600
    retries: int = 2


_PROVIDER_KEY_VARIABLES = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "xai": "XAI_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
}


# Providers that cache a prompt's prefix only up to explicit cache_control marks (litellm's
# prompt caching docs); the others (OpenAI, DeepSeek, xAI, local servers) cache by themselves
# or not at all, and some OpenAI-compatible servers reject fields they do not know.
_MARKED_CACHE_PROVIDERS = ("bedrock", "vertex_ai", "openrouter", "azure_ai", "databricks")


def cache_breakpoints(model: str) -> list[dict[str, Any]] | None:
    """Where litellm marks cache breakpoints for `model`: the system prompt (tools and
    instructions before it) and the last message (the whole conversation so far); None for
    providers that take no marks."""
    provider, _, rest = model.partition("/")
    claude = provider == "anthropic" or (
        provider in _MARKED_CACHE_PROVIDERS and "claude" in rest.lower()
    )
    if not claude:
        return None
    return [{"location": "message", "role": "system"}, {"location": "message", "index": -1}]


def key_variable(settings: ModelSettings) -> str | None:
    """The environment variable that should hold this model's API key, when we can tell."""
    if settings.api_key_env:
        return settings.api_key_env
    from agent.settings import model_provider  # loaded by every chat already (yaml with it)

    # Without a prefix a name is OpenAI's only if it is an OpenAI name: litellm sends
    # claude-sonnet-4-5 to Anthropic, with ANTHROPIC_API_KEY.
    return _PROVIDER_KEY_VARIABLES.get(model_provider(settings.name))


# What a server of one's own on this machine gets instead of a key it does not check
# (llama.cpp's documentation uses the same words); never sent anywhere else.
PLACEHOLDER_KEY = "sk-no-key-required"


def placeholder_key(settings: ModelSettings) -> str | None:
    """PLACEHOLDER_KEY when `settings` point at a server on this machine whose provider wants a
    key that is not set (litellm would refuse to send anything without one); else None.

    Only for a loopback api_base: any other host gets no made-up key, and a key that is set is
    litellm's to send as before (the saved api_base of another provider never inherits it:
    settings.inherited_api_base)."""
    variable = key_variable(settings)
    base = settings.api_base
    if variable is None or base is None or os.environ.get(variable):
        return None
    return PLACEHOLDER_KEY if is_loopback_host(urlsplit(base).hostname or "") else None


class LiteLLMModel:
    """Any litellm-supported model, streamed."""

    def __init__(self, settings: ModelSettings, loader: LiteLLMLoader = LOADER) -> None:
        self.settings = settings
        self.name = settings.name
        self._loader = loader
        self._context_window: int | None = None
        self._accepts_images: bool | None = None

    def context_window(self) -> int | None:
        """The model's input token limit from litellm's bundled model table; None while litellm
        is still loading or when the table does not know the model (the caller falls back to
        settings).

        Never litellm.get_model_info: for ollama/ it POSTs to localhost:11434 synchronously,
        and a server that never answers would freeze the chat."""
        if self._context_window is None:
            if not self._loader.loaded:
                return None
            self._context_window = table_window(self._loader.get(), self.settings.name)
        return self._context_window or None

    async def prepare(self) -> None:
        """Wait (without stopping the event loop) for litellm's import, as `stream` does; after
        it `context_window` answers for good. ModelError when litellm cannot load."""
        if not self._loader.loaded:
            import anyio.to_thread

            await anyio.to_thread.run_sync(self._loader.get)

    @property
    def counter_ready(self) -> bool:
        """litellm is loaded: counting tokens does not wait for its import."""
        return self._loader.loaded

    def count_tokens(
        self,
        messages: Sequence[dict[str, Any]] | None = None,
        tools: Sequence[dict[str, Any]] | None = None,
        text: str | None = None,
    ) -> int:
        """Tokens of a request (messages and tools) or of a text, by litellm's token counter for
        this model (loads litellm if it is not loaded yet)."""
        return count_tokens(self._loader.get(), self.settings.name, messages, tools, text)

    def accepts_images(self) -> bool:
        """Whether litellm's model info says this model takes image input (loads litellm
        if it is not loaded yet: asked only when a message carries an image)."""
        if self._accepts_images is None:
            try:
                self._accepts_images = bool(self._loader.get().supports_vision(self.settings.name))
            except Exception:  # unknown model, or litellm failed to load: send notes
                self._accepts_images = False
        return self._accepts_images

    def _api_key(self) -> str | None:
        variable = self.settings.api_key_env
        if not variable:
            return None  # litellm reads the provider's usual variable itself
        value = os.environ.get(variable)
        if not value:
            raise ModelError(
                f"settings.yaml sets api_key_env: {variable}, but {variable} is not set; "
                f"export {variable}=... and try again"
            )
        return value

    async def stream(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[TextChunk | Completion]:
        """Stream one completion; raises ModelError (never a litellm exception)."""
        if self._loader.loaded:
            litellm = self._loader.get()
        else:  # still importing in the background: wait without stopping the event loop
            import anyio.to_thread

            litellm = await anyio.to_thread.run_sync(self._loader.get)
        api_key = self._api_key() or placeholder_key(self.settings)
        deadline = time.monotonic() + self.settings.request_timeout_seconds
        request: dict[str, Any] = {
            "model": self.settings.name,
            "messages": list(messages),
            "stream": True,
            "stream_options": {"include_usage": True},
            "timeout": self.settings.chunk_timeout_seconds,
            "max_retries": self.settings.retries,
        }
        if tools:
            request["tools"] = list(tools)
        breakpoints = cache_breakpoints(self.settings.name)
        if breakpoints:
            request["cache_control_injection_points"] = breakpoints
        if self.settings.api_base:
            request["api_base"] = self.settings.api_base
        if api_key:
            request["api_key"] = api_key
        chunks: list[Any] = []
        try:
            response = await litellm.acompletion(**request)
            # `async with` closes the HTTP stream however this ends (Ctrl-C included);
            # otherwise the connection stays open until garbage collection.
            async with response:
                async for chunk in response:
                    chunks.append(chunk)
                    text = _delta_text(chunk)
                    if text:
                        yield TextChunk(text)
                    if time.monotonic() > deadline:
                        raise ModelError(
                            f"{self.name} did not finish its answer within "
                            f"{self.settings.request_timeout_seconds:g} s (model_limits."
                            "request_timeout_seconds in settings.yaml)"
                        )
        except ModelError:
            raise
        except Exception as error:
            raise self._describe(error, api_key) from None
        yield self._assemble(litellm, chunks, messages)

    def _assemble(
        self, litellm: ModuleType, chunks: list[Any], messages: Sequence[dict[str, Any]]
    ) -> Completion:
        if not chunks:
            raise ModelError(f"{self.name} sent an empty answer; try again")
        built = litellm.stream_chunk_builder(chunks, messages=list(messages))
        message = built.choices[0].message
        calls = tuple(
            ToolCall(
                # Some servers send no id; the fallback must be unique across rounds (Anthropic
                # rejects a repeated tool_use id).
                id=call.id or f"call_{uuid.uuid4().hex[:12]}",
                name=call.function.name or "",
                arguments=call.function.arguments or "{}",
            )
            for call in message.tool_calls or []
        )
        text = message.content or ""
        return Completion(
            text=text,
            tool_calls=calls,
            usage=_usage(litellm, built, self.name, messages, text, calls),
        )

    def _describe(self, error: Exception, api_key: str | None) -> ModelError:
        return describe_model_error(error, self.settings, api_key)


def _delta_text(chunk: Any) -> str:
    choices = getattr(chunk, "choices", None) or []
    if not choices:
        return ""
    delta = getattr(choices[0], "delta", None)
    return getattr(delta, "content", None) or ""


def _usage(
    litellm: ModuleType,
    built: Any,
    model: str,
    messages: Sequence[dict[str, Any]],
    text: str,
    calls: tuple[ToolCall, ...],
) -> Usage:
    """The provider's usage; a rough estimate (and no cost) for a provider that sent none."""
    usage = getattr(built, "usage", None)
    prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion = int(getattr(usage, "completion_tokens", 0) or 0)
    if prompt:
        return Usage(prompt, completion, _cost(litellm, built, model))
    # litellm's own fallback count is off (LiteLLMLoader): a prompt is never 0 tokens.
    return estimate_usage(messages, text, calls)


def estimate_usage(
    messages: Sequence[dict[str, Any]], text: str, calls: tuple[ToolCall, ...]
) -> Usage:
    """A rough count, and no cost, for an answer whose server reported no usage."""
    answer = text + "".join(call.name + call.arguments for call in calls)
    return Usage(estimate_tokens(messages), len(answer) // CHARS_PER_TOKEN, None)


def _cost(litellm: ModuleType, response: Any, model: str) -> float | None:
    try:
        cost = litellm.completion_cost(completion_response=response, model=model)
    except Exception:  # unknown price: say nothing rather than a wrong number
        return None
    return float(cost) if cost else None


def describe_model_error(
    error: Exception, settings: ModelSettings, api_key: str | None = None
) -> ModelError:
    """A litellm exception as an actionable ModelError (matched by class name: no import), or
    openai_compatible's ServerAnswerError, which names the same classes in its `kind`."""
    kind = getattr(error, "kind", None) or type(error).__name__
    redactor = Redactor(credential_values(api_key))
    # Redact the whole text before cutting it, or a key cut in two would slip through.
    detail = _first_line(_without_ssl_repr(redactor.redact(str(error))))
    model = settings.name
    where = settings.api_base or "the provider"
    special = _missing_key(detail, settings) or _overflow(error, settings, redactor)
    if special is None and _unreachable(kind, detail):
        special = _nothing_answers(settings)
    if special is not None:
        return special
    if kind == "AuthenticationError":
        variable = key_variable(settings)
        fix = (
            f"check {variable}" if variable else "check the API key (api_key_env in settings.yaml)"
        )
        return ModelError(f"{where} rejected the API key for {model}: {fix}")
    if kind == "NotFoundError":
        return ModelError(
            f"model {model} was not found at {where}; check the name (--model, AGENT_MODEL or "
            "model: in settings.yaml), e.g. openai/gpt-4.1-mini"
        )
    if kind == "RateLimitError":
        return ModelError(
            f"{where} is rate-limiting requests for {model}; wait a moment and try again"
        )
    if kind == "Timeout" or isinstance(error, TimeoutError):
        return ModelError(
            f"{model} sent nothing for {settings.chunk_timeout_seconds:g} s; try again "
            "(model_limits.chunk_timeout_seconds in settings.yaml)"
        )
    if kind == "MidStreamFallbackError":
        return ModelError(
            f"the connection to {where} broke off in the middle of the answer; try again"
        )
    if kind in ("InternalServerError", "ServiceUnavailableError", "BadGatewayError"):
        return ModelError(f"{where} failed to answer ({detail}); try again")
    if kind == "BadRequestError":
        return ModelError(f"{where} rejected the request for {model}: {detail}")
    return ModelError(f"the request to {model} failed: {kind}: {detail}")


_SSL_REPR = re.compile(r"\s*ssl:<ssl\.SSLContext object at 0x[0-9a-fA-F]+>")


def _without_ssl_repr(text: str) -> str:
    # aiohttp names the TLS context it would have used, even for plain http: noise.
    return _SSL_REPR.sub("", text)


def _missing_key(detail: str, settings: ModelSettings) -> ModelError | None:
    """The provider's client refused to send anything: no key is set for it."""
    lowered = detail.lower()
    if "missing credentials" not in lowered and "api_key client option must be set" not in lowered:
        return None
    return missing_key_error(settings)


def missing_key_error(settings: ModelSettings) -> ModelError:
    """No API key is set for `settings`' model, so nothing was sent."""
    variable = key_variable(settings) or "the provider's API key variable"
    return ModelError(
        f"no API key for {settings.name} (nothing was sent): export {variable}=..., or name "
        "another variable with api_key_env: in settings.yaml (a server of your own on this "
        "machine needs none)"
    )


_UNREACHABLE = re.compile(
    r"connection error|cannot connect to host|connect call failed|connection refused|"
    r"all connection attempts failed|name or service not known|failed to establish",
    re.IGNORECASE,
)


def _unreachable(kind: str, detail: str) -> bool:
    connection_kinds = ("APIConnectionError", "InternalServerError", "ServiceUnavailableError")
    return kind in connection_kinds and _UNREACHABLE.search(detail) is not None


def _nothing_answers(settings: ModelSettings) -> ModelError:
    """Nobody listens where the model should be: say where, and what to check."""
    if settings.api_base is None:
        return ModelError(
            f"could not connect to the provider of {settings.name}; check the network, or "
            "switch models (/model in the chat, --model)"
        )
    parts = urlsplit(settings.api_base)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return ModelError(
        f"nothing answers at {parts.hostname}:{port} ({settings.api_base}) for "
        f"{settings.name}: is the model server running there? Check the address (--api-base, "
        "or api_base: in settings.yaml), or switch models (/model in the chat, --model)"
    )


# Words servers use for a request larger than the model's context window: OpenAI's, llama.cpp's
# (also inside LM Studio and Ollama), vLLM's, Anthropic's.
_OVERFLOW = re.compile(
    r"context.?length|context.?window|context size|exceed_context_size|n_ctx|"
    r"maximum context|prompt is too long|context the overflows",
    re.IGNORECASE,
)
_PROMPT_TOKENS = (
    r"n_prompt_tokens\W+(\d+)",
    r"request \((\d+) tokens\)",
    r"resulted in (\d+) tokens",
    r"keep the first (\d+) tokens",
    r"prompt is too long: (\d+) tokens",
)
_WINDOW_TOKENS = (
    r"\bn_ctx\W+(\d+)",
    r"context size \((\d+) tokens\)",
    r"maximum context length is (\d+) tokens",
    r"context length of only (\d+) tokens",
    r"tokens > (\d+) maximum",
)


def _overflow(error: Exception, settings: ModelSettings, redactor: Redactor) -> ModelError | None:
    """The request did not fit the model's context window, with the numbers the server gave.

    Local servers report it inside a 200 stream, so litellm raises it under any name (a
    mid-stream fallback, an API error): the whole chain of causes is read, bodies included."""
    messages, bodies = _chain_texts(error)
    # Judged by the messages only: a body's fields may be a server's defaults (an error
    # `code` left over from another error), its numbers are the server's own.
    if type(error).__name__ != "ContextWindowExceededError" and not any(
        _OVERFLOW.search(text) for text in messages
    ):
        return None
    joined = redactor.redact("\n".join(messages + bodies))
    sent, window = _first_number(_PROMPT_TOKENS, joined), _first_number(_WINDOW_TOKENS, joined)
    numbers = ""
    if sent and window:
        numbers = f" ({sent:,} tokens sent, the window holds {window:,})"
    elif window:
        numbers = f" (it holds {window:,} tokens)"
    local = settings.api_base is not None and goes_direct(settings.api_base)
    larger = ", or load the model with a larger context on the server" if local else ""
    return ModelError(
        f"the conversation no longer fits {settings.name}'s context window{numbers}; compact "
        f"it (/compact) or start a new chat (/new){larger}"
    )


def _chain_texts(error: BaseException) -> tuple[list[str], list[str]]:
    """The messages and the bodies of `error` and of what it wraps (a few levels at most)."""
    messages: list[str] = []
    bodies: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen and len(seen) < 8:
        seen.add(id(current))
        messages.append(str(current))
        body = getattr(current, "body", None)
        if body is not None:
            bodies.append(str(body))
        wrapped = getattr(current, "original_exception", None)
        if isinstance(wrapped, BaseException):
            current = wrapped
        else:
            current = current.__cause__ or current.__context__
    return messages, bodies


def _first_number(patterns: Sequence[str], text: str) -> int | None:
    for pattern in patterns:
        found = re.search(pattern, text, re.IGNORECASE)
        if found:
            return int(found.group(1))
    return None


# Variables that hold credentials, by the names providers and litellm give them:
# OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, AZURE_AD_TOKEN, HF_TOKEN, WATSONX_APIKEY, ...
_CREDENTIAL_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$", re.IGNORECASE)
_MIN_CREDENTIAL_LENGTH = 8  # shorter values are flags and names, not keys


def credential_values(api_key: str | None = None) -> list[str]:
    """Every value that may be the model's credential: the configured key, the values of
    credential-named environment variables (litellm reads whichever its provider uses), and
    keys set on litellm itself."""
    values = [api_key] if api_key else []
    values.extend(
        value
        for name, value in os.environ.items()
        if _CREDENTIAL_NAME.search(name) and len(value) >= _MIN_CREDENTIAL_LENGTH
    )
    # Never imported just for this, and never read from sys.modules: the loader's thread may
    # be half-way through importing it. Only the loader knows when it is whole.
    if LOADER.loaded:
        litellm = LOADER.get()
        values.extend(
            value
            for name, value in list(vars(litellm).items())
            if name.endswith("_key")
            and isinstance(value, str)
            and len(value) >= _MIN_CREDENTIAL_LENGTH
        )
    return values


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:300]
