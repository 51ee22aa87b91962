"""The console bridge's routes (Starlette): the one-time link (which serves the page with its
key), the static page, the JSON API and the event stream. Every request has passed the guard
(agent/web/guard.py) before it gets here; the routes only see this person's page.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from agent.web.console_hub import Event
from agent.web.console_service import ApiError, ConsoleService
from agent.web.elicitations import BadAnswerError, PageElicitation, UnknownFormError
from agent.web.guard import COOKIE, GuardMiddleware, Session
from agent.web.raw_ids import BadMessageError, checked_message

STATIC = Path(__file__).resolve().parent / "static"
_STATIC_NAME = re.compile(r"[a-z0-9_-]+\.(js|css|svg|png)")
_STATIC_TYPES = {
    "js": "text/javascript; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "svg": "image/svg+xml",
    "png": "image/png",
}
PING_SECONDS = 15.0

Handler = Callable[[Request], Awaitable[Response]]


class AsciiJSONResponse(JSONResponse):
    """JSON in ASCII: a lone surrogate a server sent (valid in JSON text, not in UTF-8) is
    escaped instead of failing the answer."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, separators=(",", ":")).encode("ascii")


def build_app(
    service: ConsoleService, forms: PageElicitation, session: Session, hosts: frozenset[str]
) -> GuardMiddleware:
    """The whole bridge: the guard around the routes."""
    api = _Api(service, forms, session)
    server_actions = {
        "connect": api.connect,
        "disconnect": api.disconnect,
        "list": api.list_page,
        "call": api.call,
        "read": api.read,
        "prompt": api.prompt,
        "complete": api.complete,
        "send": api.send,
    }
    routes = [
        Route("/open", api.open, methods=["GET"]),
        Route("/", _index, methods=["GET"]),
        Route("/static/{name}", _static, methods=["GET"]),
        Route("/api/servers", api.servers, methods=["GET"]),
        Route("/api/events", api.events, methods=["GET"]),
        Route("/api/elicitations/{form_id}", _json_route(api.answer), methods=["POST"]),
    ]
    routes += [
        Route(f"/api/servers/{{name}}/{action}", _json_route(handler), methods=["POST"])
        for action, handler in server_actions.items()
    ]
    return GuardMiddleware(Starlette(routes=routes), session, hosts)


def _json_route(handler: Callable[[Request, dict[str, Any]], Awaitable[Any]]) -> Handler:
    """A JSON API route: the body parsed, ApiError as {"error": ...} with its status."""

    async def route(request: Request) -> Response:
        try:
            body = json.loads(await request.body() or b"{}")
        except (ValueError, RecursionError):
            return _error(400, "the body is not valid JSON")
        if not isinstance(body, dict):
            return _error(400, "the body must be a JSON object")
        try:
            return AsciiJSONResponse(await handler(request, body))
        except ApiError as error:
            return _error(error.status, error.message)
        except Exception as error:
            # A failure we did not foresee: its type only, since its text may quote what a
            # server sent (unredacted) and uvicorn would print its traceback.
            return _error(500, f"the bridge failed: {type(error).__name__}")

    return route


def _error(status: int, message: str) -> JSONResponse:
    return AsciiJSONResponse({"error": message}, status_code=status)


async def _index(request: Request) -> Response:
    return _file(STATIC / "index.html", "text/html; charset=utf-8")


async def _static(request: Request) -> Response:
    name = request.path_params["name"]
    match = _STATIC_NAME.fullmatch(name)
    if match is None:
        return PlainTextResponse("not found\n", status_code=404)
    return _file(STATIC / name, _STATIC_TYPES[match[1]])


def _file(path: Path, media_type: str) -> Response:
    try:
        content = path.read_bytes()
    except OSError:
        return PlainTextResponse("not found\n", status_code=404)
    return Response(content, media_type=media_type)


# Where the page's key goes in index.html: the page opened by the one-time link gets it there
# (the CSP allows no inline script), its script reads it, removes it and keeps it in memory.
# Anything else that serves the page (a reload, a second tab on /) serves it empty.
_KEY_SLOT = '<meta name="console-key" content="">'


def _page_with_key(key: str) -> Response:
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    if _KEY_SLOT not in page:  # a broken install: better no page than one that cannot work
        return PlainTextResponse("the console page is missing its key slot\n", status_code=500)
    filled = f'<meta name="console-key" content="{html.escape(key, quote=True)}">'
    return HTMLResponse(page.replace(_KEY_SLOT, filled, 1))


class _Api:
    def __init__(self, service: ConsoleService, forms: PageElicitation, session: Session):
        self.service = service
        self.forms = forms
        self.session = session

    async def open(self, request: Request) -> Response:
        if not self.session.open(request.query_params.get("token", "")):
            return PlainTextResponse(self.session.open_refusal() + "\n", status_code=403)
        # The console page itself, with the key in it: this answer is the only one that ever
        # holds the key, and only for the one request that spends the token. The cookie it
        # sets is sent by the page's own requests (same-origin) even when the link came from
        # another site (the private file the browser is handed is one).
        response = _page_with_key(self.session.key)
        response.set_cookie(COOKIE, self.session.cookie, httponly=True, samesite="strict", path="/")
        return response

    async def servers(self, request: Request) -> Response:
        return AsciiJSONResponse({"servers": self.service.entries()})

    async def connect(self, request: Request, body: dict[str, Any]) -> Any:
        return {"server": await self.service.connect(request.path_params["name"])}

    async def disconnect(self, request: Request, body: dict[str, Any]) -> Any:
        return {"server": await self.service.disconnect(request.path_params["name"])}

    async def list_page(self, request: Request, body: dict[str, Any]) -> Any:
        name = request.path_params["name"]
        return await self.service.list_page(name, body.get("kind"), body.get("cursor"))

    async def call(self, request: Request, body: dict[str, Any]) -> Any:
        name = request.path_params["name"]
        return await self.service.call(name, body.get("tool"), body.get("arguments", {}))

    async def read(self, request: Request, body: dict[str, Any]) -> Any:
        return await self.service.read(request.path_params["name"], body.get("uri"))

    async def prompt(self, request: Request, body: dict[str, Any]) -> Any:
        name = request.path_params["name"]
        return await self.service.prompt(name, body.get("name"), body.get("arguments", {}))

    async def complete(self, request: Request, body: dict[str, Any]) -> Any:
        name = request.path_params["name"]
        return await self.service.complete(
            name, body.get("prompt"), body.get("argument"), body.get("value", ""),
            body.get("context"),
        )  # fmt: skip

    async def send(self, request: Request, body: dict[str, Any]) -> Any:
        try:
            message = checked_message(body.get("message"))
        except BadMessageError as error:
            raise ApiError(400, str(error)) from None
        return await self.service.send(request.path_params["name"], message)

    async def answer(self, request: Request, body: dict[str, Any]) -> Any:
        try:
            self.forms.answer(
                request.path_params["form_id"], body.get("action"), body.get("content", {})
            )
        except UnknownFormError as error:
            raise ApiError(404, str(error)) from None
        except BadAnswerError as error:
            raise ApiError(400, str(error)) from None
        return {"ok": True}

    async def events(self, request: Request) -> Response:
        hub = self.service.hub
        subscriber = hub.subscribe(lambda: [*self.service.replay(), *self.forms.replay()])
        if subscriber is None:
            return _error(429, "too many event streams are open")

        async def stream() -> AsyncIterator[str]:
            try:
                while not subscriber.closed:
                    events = await subscriber.take(PING_SECONDS)
                    note = hub.dropped_note(subscriber)
                    if note is not None:
                        events.insert(0, note)
                    if not events:
                        yield ": ping\n\n"
                    for event in events:
                        yield _sse(event)
            finally:
                hub.unsubscribe(subscriber)

        return StreamingResponse(stream(), media_type="text/event-stream")


def _sse(event: Event) -> str:
    """One server-sent event: its id (log events), type and one-line JSON data."""
    # ASCII JSON: every line break is escaped, and a lone surrogate a server sent is too.
    data = json.dumps(event.data)
    seq = f"id: {event.seq}\n" if event.seq is not None else ""
    return f"{seq}event: {event.type}\ndata: {data}\n\n"
