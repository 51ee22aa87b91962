"""Our stdio transport: the server as a child process, JSON-RPC lines on its stdin/stdout.

Why not the SDK's stdio_client: it decodes stdout strictly as a text stream (one byte that
is not UTF-8 kills its reader, and with it the connection), splits lines in quadratic time,
has no cap on a message, and sends the child's stderr straight into a file, where secrets
the child prints would land unredacted. Here:

- stdout is read as bytes and split in linear time (LineBuffer); each line is decoded
  strictly. A line that cannot be read (not UTF-8, or over the 16 MiB cap) becomes an error
  answer for the request it answers when its id can be recovered, else a note; either
  way the reader goes on.
- stderr comes through a pipe we read, line by line (each line capped), and goes to a
  callback that redacts it before anything is written anywhere.
- Spawning and stopping follow the SDK: exactly the environment the launch carries (what
  it inherits from us, the SDK's short list, then the definition's env: what trust
  covered), a new session (so its own process group), and the graceful shutdown of the
  MCP spec (close stdin, wait, SIGTERM the group, SIGKILL), every wait bounded.
- Unlike the SDK, the child dies with us (agent.processes.parent_death): a SIGKILLed agent leaves
  no server running, even one that ignores the end of its input. Its group is listed in
  agent.processes.groups for a stop that cannot wait for the graceful one.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass

import anyio
import anyio.abc
import anyio.lowlevel
import mcp_types as types
from mcp.shared.message import SessionMessage

from agent.mcp.client.line_buffer import LineBuffer, Overlong
from agent.mcp.client.sdk import TransportStreams, stop_server_process
from agent.processes.groups import forget_server, register_server
from agent.processes.parent_death import open_piped_process

MIB = 1024 * 1024
MAX_MESSAGE_BYTES = 16 * MIB
STDERR_LINE_BYTES = 8192
ID_HEAD_BYTES = 4096  # of an overlong line we keep this much, to find the id it answers
STDERR_GRACE_SECONDS = 1.0  # after stdout ends, time for the rest of stderr to arrive
WRITER_FLUSH_SECONDS = 0.5

# The start of an answer as servers write it: {"jsonrpc": "2.0", "id": <id>, "result"|"error"
# Anchored, so an "id" nested deeper in the message is never taken for the answer's id.
_ANSWER_HEAD = re.compile(
    rb'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")'
    rb'\s*,\s*"(?:result|error)"'
)


@dataclass(frozen=True)
class ChildOutput:
    """Where the child's stderr lines and our notes about its stdout go."""

    stderr_line: Callable[[str, bool], None]  # (line, was cut at the cap); not yet redacted
    note: Callable[[str], None]
    # A credential learned while connected (an OAuth token): masked from then on.
    secret: Callable[[str], None] = lambda value: None


@dataclass(frozen=True)
class StdioCommand:
    """What to spawn (never through a shell), with the child's whole environment."""

    executable: str
    args: tuple[str, ...]
    env: dict[str, str]
    cwd: str


@asynccontextmanager
async def stdio_transport(
    command: StdioCommand, output: ChildOutput, max_message_bytes: int = MAX_MESSAGE_BYTES
) -> AsyncIterator[TransportStreams]:
    """Spawn the child and yield the session's streams; leaving stops the child."""
    process = await open_piped_process(
        [command.executable, *command.args],
        env=command.env,  # complete: StdioLaunch.child_environment(), as trusted
        cwd=command.cwd,
    )
    # No awaits until the task group is entered: a cancellation in the gap would leak it.
    register_server(process.pid)  # its own session: the group's id is its pid
    pipes = _ChildPipes(process, output, max_message_bytes)
    async with anyio.create_task_group() as group:
        group.start_soon(pipes.read_stdout)
        group.start_soon(pipes.read_stderr)
        group.start_soon(pipes.write_stdin)
        try:
            yield pipes.read_stream, pipes.write_stream
        finally:
            # Every wait inside is bounded; the shield keeps a cancelled caller from leaking
            # the child.
            with anyio.CancelScope(shield=True):
                await pipes.shutdown()
            forget_server(process.pid)
            group.cancel_scope.cancel()
    await anyio.lowlevel.cancel_shielded_checkpoint()


class _ChildPipes:
    """The child's three pipes and the session's two streams, with a task for each pipe."""

    def __init__(
        self, process: anyio.abc.Process, output: ChildOutput, max_message_bytes: int
    ) -> None:
        self.process = process
        self.output = output
        self.max_message_bytes = max_message_bytes
        self.read_writer, self.read_stream = anyio.create_memory_object_stream[
            SessionMessage | Exception
        ](0)
        self.write_stream, self.write_reader = anyio.create_memory_object_stream[SessionMessage](0)
        self.stderr_done = anyio.Event()
        self.writer_done = anyio.Event()

    async def read_stdout(self) -> None:
        """Messages from stdout, one line each, to the session; the rest drained at the end."""
        stdout = self.process.stdout
        assert stdout is not None
        lines = LineBuffer(self.max_message_bytes, ID_HEAD_BYTES)
        try:
            async with self.read_writer:
                async for chunk in stdout:
                    for line in lines.feed(chunk):
                        item = _message(line, self.max_message_bytes, self.output.note)
                        if item is not None:
                            await self.read_writer.send(item)
                # The child is gone: let its last stderr lines arrive first, so the error
                # the session is about to raise can quote them.
                with anyio.move_on_after(STDERR_GRACE_SECONDS):
                    await self.stderr_done.wait()
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass  # our own shutdown closed a stream under the read
        finally:
            await _drain(stdout)

    async def read_stderr(self) -> None:
        """stderr, line by line (each capped), to the output callback that redacts it."""
        assert self.process.stderr is not None
        lines = LineBuffer(STDERR_LINE_BYTES, STDERR_LINE_BYTES)
        try:
            async for chunk in self.process.stderr:
                for line in lines.feed(chunk):
                    _deliver_stderr(line, self.output)
            if rest := lines.rest():
                _deliver_stderr(rest, self.output)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            self.stderr_done.set()

    async def write_stdin(self) -> None:
        """The session's messages to stdin, one JSON line each."""
        assert self.process.stdin is not None
        try:
            async with self.write_reader:
                async for item in self.write_reader:
                    data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await self.process.stdin.send(data.encode("utf-8") + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The child stopped reading: end the session's stream so no request waits forever.
            await self.read_writer.aclose()
        finally:
            self.writer_done.set()

    async def shutdown(self) -> None:
        """Stop traffic, flush what was accepted, stop the child, release every stream."""
        self.read_stream.close()  # unblocks the reader into its drain
        self.write_stream.close()
        with anyio.move_on_after(WRITER_FLUSH_SECONDS):
            await self.writer_done.wait()
        await stop_server_process(self.process)
        assert self.process.stderr is not None
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await self.process.stderr.aclose()
        streams = (self.read_stream, self.write_stream, self.read_writer, self.write_reader)
        for stream in streams:
            await stream.aclose()
        await anyio.lowlevel.checkpoint()


def _deliver_stderr(line: bytes | Overlong, output: ChildOutput) -> None:
    if isinstance(line, Overlong):
        output.stderr_line(line.head.decode("utf-8", errors="replace"), True)
    else:
        output.stderr_line(line.decode("utf-8", errors="replace").rstrip("\r"), False)


def _message(
    line: bytes | Overlong, limit: int, note: Callable[[str], None]
) -> SessionMessage | Exception | None:
    """One stdout line as a message, an error answer, an exception (junk), or None (blank)."""
    if isinstance(line, Overlong):
        reason = f"it is larger than the {limit // MIB} MiB limit for one message"
        return _unreadable(_answer_id_from_head(line.head), reason, line.head, note)
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        reason = f"it is not valid UTF-8 (byte 0x{line[error.start]:02x} at offset {error.start})"
        return _unreadable(_answer_id(line), reason, line, note)
    if not text or text.isspace():  # stops at the first character of a real message
        return None
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as error:  # junk: the session hands it to the message handler
        return error


def _unreadable(
    request_id: types.RequestId | None, reason: str, data: bytes, note: Callable[[str], None]
) -> SessionMessage | Exception:
    if request_id is None:
        preview = data[:ID_HEAD_BYTES].decode("utf-8", errors="replace")
        return ValueError(f"unreadable line ({reason}): {preview}")
    note(f"the answer to request {request_id!r} could not be read: {reason}")
    message = f"its answer could not be read: {reason}"
    error = types.ErrorData(code=types.PARSE_ERROR, message=message)
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


def _answer_id(line: bytes) -> types.RequestId | None:
    """The id of the request a whole (but undecodable) line answers; None for anything else."""
    try:
        parsed = json.loads(line.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):  # junk, or nested past the decoder's stack
        return None
    if not isinstance(parsed, dict) or "method" in parsed:  # not an answer: the server asks
        return None
    return _request_id(parsed.get("id"))


def _answer_id_from_head(head: bytes) -> types.RequestId | None:
    match = _ANSWER_HEAD.match(head)
    if match is None:
        return None
    try:
        return _request_id(json.loads(match.group(1)))
    except ValueError:
        return None


def _request_id(value: object) -> types.RequestId | None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    return value


async def _drain(stream: anyio.abc.ByteReceiveStream | None) -> None:
    """Read and discard the rest of stdout, so a child blocked writing can exit."""
    if stream is None:
        return
    with (
        anyio.CancelScope(shield=True),
        suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError),
    ):
        while True:
            await stream.receive()
