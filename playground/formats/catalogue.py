"""The formats the playground reads, in one place: for people, what each reader reads (the
docs' table of formats is ``FORMATS``, rendered by ``markdown_table`` at each build of the
docs); for the dispatch, every reader (a ``Reader``: two functions of a ``Given``), by the
shape of data it takes, in the order they are tried: a folder, a zip archive, text that is not
JSON, a whole JSON document, an agent's JSONL log, and the dialects of one message list. The
package's ``read_path`` and ``read_bytes`` check the bytes and parse them, then ask here; the
list of what is readable (``READABLE``) is made from the same entries."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from playground.engine.session import Session
from playground.formats import (
    aider,
    anthropic,
    any_agent,
    claude_code,
    cline,
    codex,
    copilot_cli,
    gemini_cli,
    gemini_contents,
    gemini_responses,
    inspect_ai,
    langchain,
    langfuse,
    letta_agent_file,
    llm_log,
    mini_swe_agent,
    openai_chat,
    opencode,
    openhands,
    openhands_v1,
    otel,
    pi,
    pydantic_ai,
    responses,
    swe_agent,
)
from playground.formats.given import Given


class Format(NamedTuple):
    tool: str
    where: str  # where the tool keeps its files
    read: str  # what becomes messages, turns and recorded usage
    not_read: str  # what is passed over (and said so)
    tested_on: str = ""  # the files its tests read (tests/fixtures/formats, SOURCES.md there)


FORMATS = (
    Format(
        "Claude Code",
        "`~/.claude/projects/<project>/<session>.jsonl` (2.x: `<session>/subagents/agent-*.jsonl`)",
        "one turn per API call (lines grouped by `message.id`, the last line's usage), cache reads and writes "
        "(5-minute and 1-hour), output, model, thinking, tool results; side chains, and subagents nested in "
        "`agent_progress` lines, as subagent sessions; `compact_boundary` and its summary as recorded "
        "compactions; a file that starts mid-session said so",
        "meta lines, attachments, snapshots and the other non-message lines (counted in one warning); "
        "Claude Code's own error replies (`<synthetic>`) and replies with all-zero usage (no call billed); "
        "the system prompt and tools, which the file does not hold",
        "real: sniffly (1.0.17), claude-code-viewer (1.0.98, inline subagents), 24 dagster-io/erk sessions (2.0.67–2.1.63); a curated 2.1 fixture",
    ),
    Format(
        "Codex CLI",
        "`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (`.jsonl.zst` once Codex compresses a cold one)",
        "`response_item` lines; usage per call from `token_count` (`last_token_usage`, repeats skipped; "
        "written before its call's items from 0.58, after them before); model from `turn_context`; "
        "`compacted` items with their replacement history; a session per `session_meta` id (a resumed thread is one)",
        "`event_msg` lines (the UI's copy), encrypted reasoning, web search and image items (counted)",
        "real: a codemie rollout (0.125, gpt-5.5, web searches); a curated 0.146 fixture; the 0.58 order as a real rollout writes it",
    ),
    Format(
        "Gemini CLI",
        "`~/.gemini/tmp/<project>/chats/session-*.jsonl` (`.json` before 0.39); "
        "`--output-format stream-json` logs",
        "chat recordings: each `gemini` record a call, with its tool calls and results and `tokens`; "
        "in the JSONL log a record's last version where it first stood, `$set` checkpoints and "
        "`$rewindTo` applied as Gemini CLI applies them (each rewind said); "
        "stream-json: runs as sessions, deltas joined, tool_use and tool_result paired; a `Content[]` history "
        "(`/chat share`, `getHistory()`): a call per run of `model` entries, thoughts apart, calls and "
        "responses paired; `--record-responses` files: a call per line with its usage (cached, thoughts)",
        "info and error records; stream-json usage, which holds the run's totals only (said)",
        "real: two codemie chat recordings; the JSONL log, rewinds and stream-json written from Gemini CLI's source",
    ),
    Format(
        "Pi",
        "`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`",
        "the branch ending at the last entry (a tree by `id`/`parentId`); a turn per assistant message with "
        "its `usage` (uncached input, cache reads and writes, output), model and the agent's own `cost`; "
        "thinking, tool calls and `toolResult`s; `compaction` entries as recorded compactions",
        "other branches of the tree (said); model, thinking-level, custom, label and session-info entries",
        "written from Pi's own source (badlogic/pi-mono `packages/ai/src/types.ts`) in the tests",
    ),
    Format(
        "opencode",
        "`opencode export <session>`",
        "one turn per `step-finish` with its tokens (input, output, reasoning, cache read and write); "
        "tool parts as call and result; compaction parts and their summary; a message aborted before its "
        "first step finished as history, not a call",
        "step markers, patches and snapshots (counted)",
        "exports written from its schema (no real export under a licence that allows a copy)",
    ),
    Format(
        "Cline",
        "VS Code global storage `tasks/<id>/api_conversation_history.json` (and `ui_messages.json` beside it)",
        "tool results Cline sends as user text, paired with their calls; `metrics.tokens` per reply, or the "
        "requests of `ui_messages.json` in the same folder",
        "`ui_messages.json` alone (it holds the UI, not the conversation: the message says to add the history)",
        "histories written from its schema and source (v3.38.0's pairing)",
    ),
    Format(
        "Aider",
        "`.aider.chat.history.md` in the repository",
        "sessions from `# aider chat started at`, `####` input, the replies, `> Tokens:` lines as rounded usage",
        "tool structure, which the log does not have (said once); Aider's other `>` notes",
        "real: zen-mcp-server's history",
    ),
    Format(
        "OpenHands",
        "trajectories saved from the UI; an evaluation's `output.jsonl`; the resolver's `output.jsonl`",
        "actions as calls (one turn per `model_response.id`), observations as results, usage from the "
        "response or `metrics.token_usages`; the resolver's bare events a call per agent action, its "
        "`metrics.costs` as the agent's own bill",
        "state changes and empty observations (counted)",
        "real: basic_gui_mode trajectory, multi_swe_bench output.jsonl (3 runs), the resolver's mock output "
        "(2 issues); the resolver's pairs made from them",
    ),
    Format(
        "Inspect AI",
        "`./logs/*.eval` and `.json`",
        "a session per sample and epoch; turns from `model` events (their `input`, or `input_refs` into "
        "`message_pool`), usage with cache reads and writes; attachments resolved",
        "spans, sandbox, tool, store and score events (counted)",
        "real: a browser-task .json log, a deduplicated .eval",
    ),
    Format(
        "Langfuse",
        "trace exports (`GET /api/public/traces/<id>`)",
        "generations' inputs and outputs, or the messages rebuilt from text and tool spans; usage once per "
        "message, cache figures from `metadata`",
        "events and spans that carry no message",
        "real: an opencode trace export",
    ),
    Format(
        "mini-swe-agent",
        "`*.traj.json` (`trajectory_format: mini-swe-agent-*`)",
        "the chat messages; per call the model that answered, prompt, cached and completion tokens from "
        "`extra.response`; `info.model_stats.instance_cost` as the agent's own bill, shown beside ours",
        "the `exit` message (said)",
        "real: astropy-12907 (DeepSeek)",
    ),
    Format(
        "GitHub Copilot CLI",
        "`~/.copilot/session-state/<session>/events.jsonl`",
        "one turn per `apiCallId` (its events joined), `toolRequests` and `tool.execution_complete` results, "
        "each call's model and `outputTokens`, the system prompt, reply times",
        "the input of each call, which Copilot does not record (said: no recorded bill); hooks, "
        "permissions, turn markers and checkpoints (counted); encrypted reasoning (counted)",
        "real: an azure-dev session (copilot-agent 1.0.72, gpt-5.6-sol)",
    ),
    Format(
        "SWE-agent (0.x)",
        "`trajectories/<user>/<model>__<dataset>__…/<instance>.traj`",
        "`history` as sent, one turn per reply; the model from the run's folder or `args.yaml` "
        "(SWE-agent's short names: `gpt4` is gpt-4-1106-preview); `instance_cost` as the agent's own bill",
        "per-call usage, which the file does not hold: its totals (`tokens_sent`, `api_calls`) are said",
        "real: pydicom-1458 (a gpt4 run)",
    ),
    Format(
        "any-agent",
        "`AgentTrace` JSON (`{spans, final_output}`)",
        "`call_llm` spans as calls (first input, output text or tool calls, `gen_ai.usage.*`, model, time), "
        "`execute_tool` spans as results; the calls' own cost as the agent's bill",
        "`invoke_agent` and other spans",
        "real: SMOLAGENTS_trace.json (mistral-small)",
    ),
    Format(
        "Letta",
        "agent files (`.af`), one agent or `agents[]`",
        "a session per agent: its messages, calls paired with results, `llm_config.model`, reply times",
        "the system prompt's re-renders after memory edits (the first kept; said); what Letta held in "
        "context at export is said, not replayed",
        "real: memgpt_agent_with_convo (old schema, gpt-4-0613); the new schema made from it",
    ),
    Format(
        "OpenHands V1 (software-agent-sdk)",
        "a conversation folder (`base_state.json`, `events/event-*.json`), a zip of one, or its events as JSONL",
        "one turn per `llm_response_id` (its actions joined), observations, rejections and errors as results, "
        "the system prompt, user and agent messages; each call's usage from the growth of the `stats` updates; "
        "`Condensation` as a recorded compaction; the model from the stats or `base_state.json`",
        "other state updates and event kinds (counted)",
        "real: the SDK's /goal events fixture (as JSONL, as a folder and as a zip)",
    ),
    Format(
        "OpenHands / LiteLLM completion logs",
        "`llm-logs/*.json` (a file a call; a folder of them a session)",
        "the request and the reply, each call's usage (with cache reads and writes), model and cost on its "
        "reply; a turn per logged call, the replies its first request already held as context",
        "tools' descriptions beyond what the request holds",
        "real: an agent-sdk llm-log (claude-sonnet-4); a folder of two",
    ),
    Format(
        "pydantic-ai",
        "`ModelMessagesTypeAdapter` JSON",
        "requests and responses by `part_kind`, usage and `model_name` per response",
        "parts of kinds it does not know (each said)",
        "histories pydantic-ai itself writes (in the tests)",
    ),
)


def markdown_table() -> str:
    rows = [
        "| Tool | Where it keeps files | What is read | What is not | Tested on |",
        "|---|---|---|---|---|",
    ]
    rows += [f"| {f.tool} | {f.where} | {f.read} | {f.not_read} | {f.tested_on} |" for f in FORMATS]
    return "\n".join(rows)


class Reader(NamedTuple):
    """One reader as the dispatch tries it: what it reads (as the error for an unreadable file
    lists it), whether data looks like it, and the reader, both functions of a ``Given``."""

    said: str
    looks_like: Callable[[Given], bool]
    read: Callable[[Given], list[Session]]


GEMINI = "Gemini CLI chats, JSONL recordings, stream-json and recorded responses"
OPENHANDS_V1 = "OpenHands V1 conversations (a folder, a zip of one, or events JSONL)"
LLM_LOGS = "LLM completion logs (a file or a folder of them)"
INSPECT = "Inspect AI logs (.json, .eval)"

# a folder read as one session
FOLDER_READERS = (
    Reader(OPENHANDS_V1, openhands_v1.looks_like_folder, openhands_v1.read_folder),
    Reader(LLM_LOGS, llm_log.looks_like_folder, llm_log.read_folder),
)
# a zip archive, the last one taking any zip (and saying what it lacks)
ARCHIVE_READERS = (
    Reader(OPENHANDS_V1, openhands_v1.looks_like_zip, openhands_v1.read_zip),
    Reader(INSPECT, inspect_ai.looks_like_eval, inspect_ai.read_eval),
)
# text that is not JSON
TEXT_READERS = (Reader("Aider chat histories (.md)", aider.looks_like, aider.read),)
# whole-file formats, tried in order before the chat dialects
DOCUMENT_READERS = (
    Reader("mini-swe-agent trajectories", mini_swe_agent.looks_like, mini_swe_agent.read),
    Reader("any-agent traces", any_agent.looks_like, any_agent.read),
    Reader("SWE-agent trajectories", swe_agent.looks_like, swe_agent.read),
    Reader("Letta agent files (.af)", letta_agent_file.looks_like, letta_agent_file.read),
    Reader(LLM_LOGS, llm_log.looks_like, llm_log.read),
    Reader("OpenTelemetry GenAI traces (OTLP JSON)", otel.looks_like, otel.read),
    Reader(INSPECT, inspect_ai.looks_like, inspect_ai.read),
    Reader("Langfuse trace exports", langfuse.looks_like, langfuse.read),
    Reader(GEMINI, gemini_cli.looks_like_recording, gemini_cli.read_recording),
    Reader("opencode exports", opencode.looks_like, opencode.read),
)
# the agents' JSONL logs, one event per line
LINE_LOG_READERS = (
    Reader("GitHub Copilot CLI events", copilot_cli.looks_like, copilot_cli.read),
    Reader(GEMINI, gemini_cli.looks_like_log, gemini_cli.read_log),
    Reader("Claude Code sessions", claude_code.looks_like, claude_code.read),
    Reader("Codex CLI rollouts", codex.looks_like, codex.read),
    Reader(OPENHANDS_V1, openhands_v1.looks_like, openhands_v1.read),
    Reader(GEMINI, gemini_cli.looks_like_stream, gemini_cli.read_stream),
    Reader(GEMINI, gemini_responses.looks_like, gemini_responses.read),
    Reader("Pi sessions", pi.looks_like, pi.read),
)
# files of a known shape that hold no session: each reader says why, and what to give instead
NOT_SESSIONS = (Reader("", cline.looks_like_ui_messages, cline.refuse_ui_messages),)
# the dialects of one message list, tried in order (the first message decides the last); each
# reads the one session the list is
MESSAGE_DIALECTS = (
    Reader("Gemini Content[] histories", gemini_contents.looks_like, gemini_contents.read),
    Reader("OpenHands trajectories and eval output", openhands.looks_like, openhands.read),
    Reader("pydantic-ai messages", pydantic_ai.looks_like, pydantic_ai.read),
    Reader("Cline task histories", cline.looks_like, cline.read),
    Reader("LangChain message dumps", langchain.looks_like, langchain.read),
    Reader("OpenAI Responses items", responses.looks_like, responses.read),
    Reader("Anthropic Messages", anthropic.looks_like, anthropic.read),
    Reader("OpenAI chat", openai_chat.looks_like, openai_chat.read),
)
READERS = (
    *FOLDER_READERS,
    *ARCHIVE_READERS,
    *TEXT_READERS,
    *DOCUMENT_READERS,
    *LINE_LOG_READERS,
    *MESSAGE_DIALECTS,
)
# what the readers know, said when a file is none of them
READABLE = ", ".join(dict.fromkeys(reader.said for reader in READERS)) + (
    ", and lists or {runs: [...]} of any of them"
)
