"""The model's summary of older turns: the session memory that compaction keeps.

It asks the model, so it lives with the chat, not with the session file.
"""

from __future__ import annotations

from agent.errors import AgentError
from agent.messages import Completion, Message, TextPart, Usage
from agent.model import ChatModel

SUMMARY_INSTRUCTIONS = """\
You compress a conversation between a person and an assistant into session memory that lets \
the assistant carry on without the original messages. Keep: the person's goals and \
preferences, decisions made, facts learned (file names, commands, values, errors), tool \
results that still matter, and open questions or next steps. Drop chit-chat and repetition. \
Write concise Markdown bullet points under short headings. Do not invent anything."""


def _transcript(messages: list[Message]) -> str:
    lines = []
    for message in messages:
        if message.role == "tool":
            lines.append(f"[tool result {message.tool_call_id}]\n{message.content}")
            continue
        text = message.content or ""
        for part in message.parts:  # what the person attached: the summary may need it
            text += "\n" + (part.text if isinstance(part, TextPart) else part.note("attached"))
        for call in message.tool_calls:
            text += f"\n[calls {call.name} with {call.arguments} as {call.id}]"
        lines.append(f"[{message.role}]\n{text.strip()}")
    return "\n\n".join(lines)


async def summarize(
    model: ChatModel, previous_memory: str | None, messages: list[Message], focus: str | None
) -> tuple[str, Usage]:
    """Ask the model for the new session memory."""
    request = _transcript(messages)
    if previous_memory:
        request = f"Session memory so far:\n{previous_memory}\n\nLater conversation:\n{request}"
    if focus:
        request += f"\n\nThe person asks the summary to focus on: {focus}"
    completion: Completion | None = None
    async for item in model.stream(
        [{"role": "system", "content": SUMMARY_INSTRUCTIONS}, {"role": "user", "content": request}],
        [],
    ):
        if isinstance(item, Completion):
            completion = item
    if completion is None or not completion.text.strip():
        raise AgentError("the model returned an empty summary; nothing was compacted")
    return completion.text.strip(), completion.usage
