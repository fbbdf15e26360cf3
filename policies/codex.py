"""Codex CLI's auto-compact, as its inline (local) compaction runs.

Read in ``openai/codex`` at commit 0100b10 (``codex-rs/core/src/compact.rs``: the compacted
history, ``COMPACT_USER_MESSAGE_MAX_TOKENS``, ``SUMMARY_PREFIX``), 0d4367d
(``codex-rs/protocol/src/openai_models.rs``: ``auto_compact_token_limit``, 90 % of the window),
and ``codex-rs/core/templates/compact/prompt.md`` (the summarization prompt).
"""

from __future__ import annotations

from policies.agent_record import leave_agent_summary
from policies.base import CompileEvent, Param, Policy
from policies.messages import CLIPPED, Message, render_transcript, sources_of
from policies.summaries import summarize_or_report, summary_message

FORMAT = "Codex CLI rollout"  # the transcripts whose record is Codex's own
USER_MESSAGE_MAX_TOKENS = 20_000  # COMPACT_USER_MESSAGE_MAX_TOKENS
BYTES_PER_TOKEN = 4  # APPROX_BYTES_PER_TOKEN: codex's approx_token_count is ceil(bytes / 4)
SUMMARY_PREFIX = (  # templates/compact/summary_prefix.md
    "Another language model started to solve this problem and produced a summary of its thinking "
    "process. You also have access to the state of the tools that were used by that language model. "
    "Use this to build on the work that has already been done and avoid duplicating work. Here is the "
    "summary produced by the other language model, use the information in this summary to  assist "
    "with your own analysis:"
)
SUMMARIZATION_PROMPT = (  # templates/compact/prompt.md
    "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM "
    "that will resume the task.\n\nInclude:\n- Goal / user objective\n- Current progress and key "
    "decisions made\n- Important context, constraints, or user preferences\n- What remains to be done "
    "(clear next steps)\n- Any critical data, examples, or references needed to continue\n\nBe concise, "
    "structured, and focused on helping the next LLM seamlessly continue the work."
)
# user messages that carry context, not the user's intent (is_session_prefix, user instructions)
CONTEXTUAL = (
    "<environment_context>",
    "<user_instructions>",
    "<turn_aborted>",
    "<subagent_notification>",
    "# agents.md instructions",
)


def default_limit(context_window: int) -> int:
    """``ModelInfo::auto_compact_token_limit``: 90 % of the window when none is configured."""
    return context_window * 9 // 10


def approx_tokens(text: str) -> int:
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)


def truncate_middle(text: str, max_tokens: int) -> str:
    """Codex's ``truncate_text`` at a token budget: the head and the tail of the byte budget
    kept, the middle replaced by ``…N tokens truncated…``."""
    data = text.encode("utf-8")
    budget = max_tokens * BYTES_PER_TOKEN
    if len(data) <= budget:
        return text
    left = budget // 2
    head = data[:left].decode("utf-8", "ignore")
    tail = data[len(data) - (budget - left) :].decode("utf-8", "ignore")
    removed = -(-(len(data) - budget) // BYTES_PER_TOKEN)
    return f"{head}…{removed} tokens truncated…{tail}"


def is_contextual(message: Message) -> bool:
    return message.content.lstrip()[:40].lower().startswith(CONTEXTUAL)


class CodexAutoCompactPolicy(Policy):
    """Codex CLI's auto-compact: once the previous response's total tokens (its input and
    output, as the provider reported them) reach ``model_auto_compact_token_limit`` (90 % of
    the window unless set lower in config.toml), the history is replaced by the session's
    context messages, the most recent user messages up to 20,000 tokens (newest first, the
    last one truncated in the middle) and one user message holding the summary behind
    Codex's hand-off prefix. Tool calls, results and replies go; the user's words stay.
    Persistent. On OpenAI's own provider newer releases compact on the server instead (remote
    compaction: the rollout records a ``compacted`` item with the kept messages and an
    encrypted summary), at points no client-side count predicts (real 0.142–0.144 rollouts
    compact at 221k–242k of a 258,400 window, and sit at 241k for 20 calls without).

    On a Codex rollout, with the limit unset (``follow_record``), it does what the agent did
    while the replay is still the agent's: compacts where the rollout records a compaction,
    keeping what the agent kept and its compaction item (sized from the recorded usage).
    Elsewhere the limit decides; where it fires within two calls of the agent's compaction,
    the agent's is used."""

    source = "Codex CLI (`openai/codex` `codex-rs/core/src/compact.rs` at 0100b10, `protocol/src/openai_models.rs` at 0d4367d)"
    summary = "once the previous response's reported total (input + output) reaches `model_auto_compact_token_limit` (90% of the window; a rollout's window is the `model_context_window` it records), the history becomes its context messages, the newest user messages up to 20,000 tokens and one user-role summary behind Codex's hand-off prefix; on a Codex rollout (`follow_record`) it compacts where the agent did (0.142–0.144 compact on the server, at 221k–242k of 258,400, where no client count predicts)"

    params = (
        Param(
            "auto_compact_token_limit",
            int,
            None,
            "model_auto_compact_token_limit: total tokens at which it compacts (unset: 90% of the "
            "window; a larger value is held to 90%).",
            1_000,
            10_000_000,
            optional=True,
            search_from=200_000,
        ),
        Param(
            "follow_record",
            bool,
            True,
            "On a Codex rollout, with the limit unset: compact where the agent did (its own kept "
            "messages and compaction item), while the replay is still the agent's.",
            search=False,
        ),
        Param("summary_prompt", str, SUMMARIZATION_PROMPT, "System prompt of the summarizer (Codex's)."),
    )

    def limit(self, context_window: int) -> int:
        ceiling = default_limit(context_window)
        given = self.auto_compact_token_limit
        return ceiling if given is None else min(given, ceiling)

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        record = event.record if event.record is not None and event.record.format == FORMAT else None
        own = record is not None and self.follow_record and self.auto_compact_token_limit is None
        if own and event.following_record:  # the agent's own policy, the replay still the agent's: as it did
            due = record.compaction_due(event.previous_reply, event.reply_index)
            if due is None:
                return None
            event.follow_record()
            return leave_agent_summary(event, messages, *due, "as the agent did")
        reported = event.reported_tokens(messages)
        limit = self.limit(event.context_window)
        if reported is None or reported < limit or not messages:
            return None
        near = record.nearest_compaction(messages, event.reply_index) if record is not None else None
        if near is not None:
            why = f"at {reported:,} tokens (limit {limit:,})"
            return leave_agent_summary(event, messages, *near, why)
        summary = summarize_or_report(event, self.summary_prompt, render_transcript(messages))
        if summary is None:
            return None
        first = next((i for i, m in enumerate(messages) if m.role == "user" and not is_contextual(m)), 0)
        context = [m for m in messages[:first] if m.role == "user"]  # rebuilt as the initial context
        spoken = [
            m
            for m in messages
            if m.role == "user" and not is_contextual(m) and not m.content.startswith(SUMMARY_PREFIX)
        ]
        kept = recent_user_messages(spoken, USER_MESSAGE_MAX_TOKENS)
        message = summary_message("user", f"{SUMMARY_PREFIX}\n{summary}", messages)
        event.report(
            "compact",
            sources_of(messages),
            f"{len(messages)} message(s) compacted at {reported:,} tokens (limit {limit:,}); "
            f"{len(kept)} user message(s) kept",
        )
        return [*context, *kept, message]


def recent_user_messages(messages: list[Message], max_tokens: int) -> list[Message]:
    """The newest user messages that fit ``max_tokens``, in order; the one that does not fit
    is truncated to what is left, and older ones are dropped."""
    kept: list[Message] = []
    remaining = max_tokens
    for message in reversed(messages):
        if remaining == 0:
            break
        tokens = approx_tokens(message.content)
        if tokens <= remaining:
            kept.append(message)
            remaining -= tokens
            continue
        kept.append(message.replace(content=truncate_middle(message.content, remaining), kind=CLIPPED))
        break
    return kept[::-1]
