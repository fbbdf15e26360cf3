"""Gemini CLI's recorded API responses: what ``gemini --record-responses FILE`` writes (its
``RecordingContentGenerator``, read in ``google-gemini/gemini-cli``
``packages/core/src/core/recordingContentGenerator.ts`` and ``fakeContentGenerator.ts``).

One JSON line per API call, ``{method, request?, response}``: ``generateContent`` with one
response, ``generateContentStream`` with its chunks, each ``{candidates, usageMetadata}`` (only
those are kept); ``countTokens`` and ``embedContent`` are no model call. The file holds the
model's side: a call's reply and its usage (``promptTokenCount``, the cached part
``cachedContentTokenCount``, ``candidatesTokenCount``, ``thoughtsTokenCount``), and in newer
releases the ``request``'s last text. What the tools answered is not in it (said).
"""

from __future__ import annotations

from collections import Counter

from playground.engine.session import Session
from playground.formats.builder import SessionBuilder, arguments_text, as_dict, as_list, label_of
from playground.formats.given import Given
from policies.messages import ToolCall

FORMAT = "Gemini CLI recorded responses"
CALLS = ("generateContent", "generateContentStream")
OTHER = ("countTokens", "embedContent")
NOT_RECORDED = "[not recorded: the file holds the model's responses only]"


def looks_like(given: Given) -> bool:
    """JSONL lines each a ``{method, response}`` of Gemini CLI's, at least one a model call."""
    items = given.items
    return any(isinstance(i, dict) and i.get("method") in CALLS for i in items[:50]) and all(
        isinstance(i, dict) and i.get("method") in (*CALLS, *OTHER) and "response" in i for i in items[:50]
    )


def read(given: Given) -> list[Session]:
    items, file = given.items, given.file
    builder = SessionBuilder(file, FORMAT)
    passed: Counter[str] = Counter()
    unanswered = 0
    for number, item in enumerate(items, start=1):
        builder.where = f"line {number}"
        if not isinstance(item, dict) or item.get("method") not in CALLS:
            passed[label_of(item.get("method") if isinstance(item, dict) else None)] += 1
            continue
        chunks = (
            as_list(item["response"]) if item["method"] == "generateContentStream" else [item["response"]]
        )
        chunks = [as_dict(c) for c in chunks]
        previous = builder.last_reply
        if previous is not None:  # the results of the last reply's calls: not in the file
            for call in builder.messages[previous].tool_calls:
                builder.add("tool", NOT_RECORDED, tool_call_ids=(call.id,), name=call.name or None)
                unanswered += 1
        request = item.get("request")
        if isinstance(request, str) and request:
            builder.add("user", request)
        texts, thoughts, calls = [], [], []
        for chunk in chunks:
            candidate = as_dict((as_list(chunk.get("candidates")) or [{}])[0])
            for part in as_list(as_dict(candidate.get("content")).get("parts")):
                part = as_dict(part)
                if isinstance(part.get("functionCall"), dict):
                    call = part["functionCall"]
                    name = str(call.get("name") or "")[:200]
                    call_id = (
                        call.get("id") if isinstance(call.get("id"), str) else f"{name}-{number}-{len(calls)}"
                    )
                    calls.append(ToolCall(call_id, name, arguments_text(call.get("args"))))
                elif isinstance(part.get("text"), str):
                    (thoughts if part.get("thought") is True else texts).append(part["text"])
        usage = next(
            (
                as_dict(c["usageMetadata"])
                for c in reversed(chunks)
                if isinstance(c.get("usageMetadata"), dict)
            ),
            {},
        )
        prompt = builder.token_count(usage.get("promptTokenCount"), "promptTokenCount")
        cached = builder.token_count(usage.get("cachedContentTokenCount"), "cachedContentTokenCount")
        output = builder.token_count(usage.get("candidatesTokenCount"), "candidatesTokenCount")
        thinking = builder.token_count(usage.get("thoughtsTokenCount"), "thoughtsTokenCount")
        builder.add(
            "assistant",
            "".join(texts),  # stream chunks are deltas: joined as they came
            tool_calls=tuple(calls),
            thinking="".join(thoughts),
            prompt_tokens=prompt,
            cache_read=cached if prompt is not None else None,
            output=None if output is None and thinking is None else (output or 0) + (thinking or 0),
        )
    builder.warn_counts("lines passed over, no model call", dict(passed))
    if unanswered:
        builder.warn(
            "",
            f"{unanswered:,} tool results are not in the file (it holds the model's side): their tokens are in "
            "the recorded usage, not in the counts",
        )
    builder.warn("", "the file names no model: give it with --model (or pick it in the app)")
    return [builder.build("Gemini CLI recorded responses")]
