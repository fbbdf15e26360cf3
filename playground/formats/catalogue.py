"""What each reader reads, for people: the README's table of formats is this, rendered
(``markdown_table``), and a test keeps the two the same."""

from __future__ import annotations

from typing import NamedTuple


class Format(NamedTuple):
    tool: str
    where: str  # where the tool keeps its files
    read: str  # what becomes messages, turns and recorded usage
    not_read: str  # what is passed over (and said so)


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
    ),
    Format(
        "Codex CLI",
        "`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (`.jsonl.zst` once Codex compresses a cold one)",
        "`response_item` lines; usage per call from `token_count` (`last_token_usage`, repeats skipped; "
        "written before its call's items from 0.58, after them before); model from `turn_context`; "
        "`compacted` items with their replacement history; a session per `session_meta` id (a resumed thread is one)",
        "`event_msg` lines (the UI's copy), encrypted reasoning, web search and image items (counted)",
    ),
    Format(
        "Gemini CLI",
        "`~/.gemini/tmp/<project>/chats/session-*.jsonl` (`.json` before 0.39); "
        "`--output-format stream-json` logs",
        "chat recordings: each `gemini` record a call, with its tool calls and results and `tokens`; "
        "in the JSONL log a record's last version where it first stood, `$set` checkpoints and "
        "`$rewindTo` applied as Gemini CLI applies them (each rewind said); "
        "stream-json: runs as sessions, deltas joined, tool_use and tool_result paired",
        "info and error records; stream-json usage, which holds the run's totals only (said)",
    ),
    Format(
        "opencode",
        "`opencode export <session>`",
        "one turn per `step-finish` with its tokens (input, output, reasoning, cache read and write); "
        "tool parts as call and result; compaction parts and their summary",
        "step markers, patches and snapshots (counted)",
    ),
    Format(
        "Cline",
        "VS Code global storage `tasks/<id>/api_conversation_history.json` (and `ui_messages.json` beside it)",
        "tool results Cline sends as user text, paired with their calls; `metrics.tokens` per reply, or the "
        "requests of `ui_messages.json` in the same folder",
        "`ui_messages.json` alone (it holds the UI, not the conversation: the message says to add the history)",
    ),
    Format(
        "Aider",
        "`.aider.chat.history.md` in the repository",
        "sessions from `# aider chat started at`, `####` input, the replies, `> Tokens:` lines as rounded usage",
        "tool structure, which the log does not have (said once); Aider's other `>` notes",
    ),
    Format(
        "OpenHands",
        "trajectories saved from the UI; an evaluation's `output.jsonl`",
        "actions as calls (one turn per `model_response.id`), observations as results, usage from the "
        "response or `metrics.token_usages`",
        "state changes and empty observations (counted)",
    ),
    Format(
        "Inspect AI",
        "`./logs/*.eval` and `.json`",
        "a session per sample and epoch; turns from `model` events (their `input`, or `input_refs` into "
        "`message_pool`), usage with cache reads and writes; attachments resolved",
        "spans, sandbox, tool, store and score events (counted)",
    ),
    Format(
        "Langfuse",
        "trace exports (`GET /api/public/traces/<id>`)",
        "generations' inputs and outputs, or the messages rebuilt from text and tool spans; usage once per "
        "message, cache figures from `metadata`",
        "events and spans that carry no message",
    ),
    Format(
        "mini-swe-agent",
        "`*.traj.json` (`trajectory_format: mini-swe-agent-*`)",
        "the chat messages; per call the model that answered, prompt, cached and completion tokens from "
        "`extra.response`; `info.model_stats.instance_cost` as the agent's own bill, shown beside ours",
        "the `exit` message (said)",
    ),
    Format(
        "GitHub Copilot CLI",
        "`~/.copilot/session-state/<session>/events.jsonl`",
        "one turn per `apiCallId` (its events joined), `toolRequests` and `tool.execution_complete` results, "
        "each call's model and `outputTokens`, the system prompt, reply times",
        "the input of each call, which Copilot does not record (said: no recorded bill); hooks, "
        "permissions, turn markers and checkpoints (counted); encrypted reasoning (counted)",
    ),
    Format(
        "SWE-agent (0.x)",
        "`trajectories/<user>/<model>__<dataset>__…/<instance>.traj`",
        "`history` as sent, one turn per reply; the model from the run's folder or `args.yaml` "
        "(SWE-agent's short names: `gpt4` is gpt-4-1106-preview); `instance_cost` as the agent's own bill",
        "per-call usage, which the file does not hold: its totals (`tokens_sent`, `api_calls`) are said",
    ),
    Format(
        "any-agent",
        "`AgentTrace` JSON (`{spans, final_output}`)",
        "`call_llm` spans as calls (first input, output text or tool calls, `gen_ai.usage.*`, model, time), "
        "`execute_tool` spans as results; the calls' own cost as the agent's bill",
        "`invoke_agent` and other spans",
    ),
    Format(
        "Letta",
        "agent files (`.af`), one agent or `agents[]`",
        "a session per agent: its messages, calls paired with results, `llm_config.model`, reply times",
        "the system prompt's re-renders after memory edits (the first kept; said); what Letta held in "
        "context at export is said, not replayed",
    ),
    Format(
        "OpenHands V1 (software-agent-sdk)",
        "a conversation folder (`base_state.json`, `events/event-*.json`) or its events as JSONL",
        "one turn per `llm_response_id` (its actions joined), observations, rejections and errors as results, "
        "the system prompt, user and agent messages; each call's usage from the growth of the `stats` updates; "
        "`Condensation` as a recorded compaction; the model from the stats or `base_state.json`",
        "other state updates and event kinds (counted); a zip of a conversation (unpack it)",
    ),
    Format(
        "OpenHands / LiteLLM completion logs",
        "`llm-logs/*.json` (a file a call; a folder of them a session)",
        "the request and the reply, each call's usage (with cache reads and writes), model and cost on its "
        "reply",
        "tools' descriptions beyond what the request holds",
    ),
    Format(
        "pydantic-ai",
        "`ModelMessagesTypeAdapter` JSON",
        "requests and responses by `part_kind`, usage and `model_name` per response",
        "parts of kinds it does not know (each said)",
    ),
)


def markdown_table() -> str:
    rows = ["| Tool | Where it keeps files | What is read | What is not |", "|---|---|---|---|"]
    rows += [f"| {f.tool} | {f.where} | {f.read} | {f.not_read} |" for f in FORMATS]
    return "\n".join(rows)
