"""The app without a browser: streamlit.testing drives widgets by key."""

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from playground.measures.evaluate import Scenario
from playground.stacks.presets import available_presets
from playground.ui.text import WORD_JOINER
from tests.synthetic import FOLDER as SYNTHETIC

APP = str(Path(__file__).parents[3] / "app.py")


LEAVE = "sample: leave_request_hr"  # the synthetic sample these tests tell their story on


def start(session: str = LEAVE) -> AppTest:
    """The page on ``session`` (the page itself opens on a real Claude Code session)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["session_choice"] = session
    at.run()
    assert not at.exception
    return at


def upload(at: AppTest, name: str) -> AppTest:
    """Upload one of the tests' synthetic sessions: the page shows it at once."""
    at.file_uploader(key="session_uploads").set_value(
        (name, (SYNTHETIC / name).read_bytes(), "application/json")
    )
    at.run()
    assert not at.exception and at.selectbox(key="session_choice").value == f"upload: {name}"
    return at


def text(element) -> str:
    """What a markdown element shows: the page escapes every punctuation mark of transcript text."""
    return re.sub(r"\\(.)", r"\1", element.value).replace(WORD_JOINER, "")


def view(at: AppTest, name: str) -> AppTest:
    """Open a result tab: only the open one runs."""
    at.session_state["view"] = name
    return at.run()


def cards(at: AppTest) -> str:
    """The side-by-side view's HTML (message cards go through st.html, never markdown)."""
    return "".join(card_columns(at))


def card_columns(at: AppTest) -> list[str]:
    """The HTML blocks of the side-by-side view (the legend, the raw history, the request)."""
    return [e.proto.body for e in at.get("html") if not e.proto.body.startswith("<style>")]


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def stack_names(at: AppTest) -> list[str]:
    return [entry["name"] for entry in at.session_state["stack"]]


def entry_id(at: AppTest, name: str) -> int:
    return next(e["id"] for e in at.session_state["stack"] if e["name"] == name)


def test_starts_on_the_default_session_with_pyagentic_stack():
    at = start()
    assert at.selectbox(key="session_choice").value == "sample: leave_request_hr"
    assert stack_names(at) == ["ToolOutputClipPolicy", "ToolEvictionPolicy", "CompactionPolicy"]
    assert metric(at, "Stubs created") == "8"
    assert not at.error


def test_the_page_opens_on_a_real_session_that_compacted_and_says_where_it_comes_from():
    """Issue 60, 1: the samples are real sessions (one synthetic for teaching, said so); the page
    opens on Claude Code's, with the agent's own policy as the stack and the sample's source."""
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception and not at.error
    shown = at.selectbox(key="session_choice").value
    assert shown.startswith("#0 ") and shown.endswith("sample: claude_code_compacted")
    assert stack_names(at) == ["ClaudeCodeAutoCompactPolicy"]
    source = next(text(c) for c in at.caption if "real session recorded by" in text(c))
    assert "Claude Code 2" in source and "entireio/cli" in source and "MIT" in source
    assert metric(at, "Agent's own policy").startswith("$")
    at.selectbox(key="session_choice").set_value(LEAVE).run()
    assert any("SYNTHETIC, written for teaching" in text(c) for c in at.caption)


def test_every_sample_session_replays():
    from playground.formats import read_path
    from playground.ui.session_picker import SAMPLES

    at = start()
    options = at.selectbox(key="session_choice").options
    files = [p for p in SAMPLES.iterdir() if p.suffix in (".json", ".jsonl")]
    assert len(options) == sum(len(read_path(p)) for p in files) == 6  # Claude Code's holds 2 subagents
    for option in options:
        at.selectbox(key="session_choice").set_value(option).run()
        assert not at.exception and not at.error, option
        assert int(metric(at, "Peak context").replace(",", "")) > 0


def test_changing_a_parameter_changes_the_figures():
    at = start()
    before = metric(at, "Final context")
    at.slider(key=f"param_{entry_id(at, 'ToolEvictionPolicy')}_keep_last_n").set_value(1).run()
    assert metric(at, "Stubs created") == "12"
    assert metric(at, "Final context") != before


def test_add_disable_and_remove_policies():
    at = start()
    at.selectbox(key="stack_add_choice").set_value("SlidingWindowPolicy").run()
    at.button(key="stack_add").click().run()
    assert stack_names(at)[-1] == "SlidingWindowPolicy"
    window = entry_id(at, "SlidingWindowPolicy")
    at.slider(key=f"param_{window}_max_messages").set_value(6).run()
    assert metric(at, "Turns with violations") == "0"
    eviction = entry_id(at, "ToolEvictionPolicy")
    at.toggle(key=f"enabled_{eviction}").set_value(False).run()
    assert metric(at, "Stubs created") == "0"
    at.button(key=f"remove_{eviction}").click().run()
    assert stack_names(at) == ["ToolOutputClipPolicy", "CompactionPolicy", "SlidingWindowPolicy"]
    assert not at.exception


@pytest.mark.parametrize("preset", list(available_presets()))
def test_each_preset_loads_and_replays(preset):
    at = start()
    at.selectbox(key="stack_preset").set_value(preset).run()
    assert not at.exception and not at.error
    assert stack_names(at) == [s.name for s in available_presets()[preset]]


def test_importing_a_valid_config_replaces_the_stack_and_model():
    at = start()
    config = b"version: 1\nmodel: gpt-4\ncontext_window: 8192\nstack:\n- SlidingWindowPolicy: {max_messages: 12}\nsummarizer: {kind: extractive}\n"
    at.file_uploader(key="config_upload").set_value(("stack.yaml", config, "application/x-yaml")).run()
    assert not at.exception and not at.error
    assert stack_names(at) == ["SlidingWindowPolicy"]
    assert at.session_state["model"] == "gpt-4" and at.session_state["context_window"] == 8192
    window = entry_id(at, "SlidingWindowPolicy")
    assert at.slider(key=f"param_{window}_max_messages").value == 12
    view(at, "Export")
    export = next(c.value for c in at.code if "version: 1" in c.value)
    assert export.strip() == config.decode().strip()  # the same file comes back out


def test_importing_a_bad_config_names_the_entry_and_keeps_the_stack():
    at = start()
    bad = b"stack:\n  - ToolEvictionPolicy\n  - SlidingWindowPolicy: {max_messages: 0}\n"
    at.file_uploader(key="config_upload").set_value(("bad.yaml", bad, "application/x-yaml")).run()
    assert not at.exception
    assert [text(e) for e in at.error] == [
        "bad.yaml: stack entry 2: SlidingWindowPolicy: max_messages must be at least 2, got 0"
    ]
    assert stack_names(at) == ["ToolOutputClipPolicy", "ToolEvictionPolicy", "CompactionPolicy"]


def test_an_unreadable_upload_shows_the_reader_message_and_the_rest_works():
    at = start()
    at.file_uploader(key="session_uploads").set_value(
        ("broken.json", b'[{"role": "user", "content": "hi"}', "application/json")
    ).run()
    assert not at.exception
    assert [text(e) for e in at.error] == [
        "broken.json: line 1 column 35: invalid JSON: expecting ',' delimiter (the file looks truncated)"
    ]
    assert at.selectbox(key="session_choice").value == "sample: leave_request_hr"
    assert metric(at, "Stubs created") == "8"


def test_an_uploaded_transcript_is_selected_and_replayed(real_session_path):
    at = start()
    at.file_uploader(key="session_uploads").set_value(
        (real_session_path.name, real_session_path.read_bytes(), "application/json")
    ).run()
    assert not at.exception
    # named by the file and what it records: the model that answered, the day it ran
    label = f"upload: {real_session_path.name} (deepseek-v4-flash · 2026-06-05)"
    assert at.selectbox(key="session_choice").value == label
    assert metric(at, "Stubs created") == "58"
    # the switch is said where the upload was made, once
    assert [text(s) for s in at.sidebar.success] == [f"Now showing your upload, **{label}**."]
    at.run()
    assert not at.sidebar.success


def test_a_multi_run_upload_says_it_shows_its_first_run_and_where_the_others_are():
    from tests.builders import runs_of_samples

    at = start()
    data = runs_of_samples("ops_incidents_multi.json")
    at.file_uploader(key="session_uploads").set_value([("runs.json", data, "application/json")]).run()
    [said] = [text(s) for s in at.sidebar.success]
    assert (
        said.startswith("Now showing your upload, **#0 ")
        and "2 more session(s) of it in the list above" in said
    )
    assert "and in the Corpus tab" in said


def test_side_by_side_steps_between_events():
    at = start()
    assert not cards(at)  # only the open view runs: the charts, at first
    view(at, "Side by side")
    at.button(key="turn_next_event").click().run()
    first_event = at.session_state["turn"]
    assert first_event > 1
    at.slider(key="turn").set_value(26).run()
    assert not at.exception
    assert any("Raw history" in m.value for m in at.markdown)


def test_an_openai_compatible_summarizer_from_the_sidebar(tmp_path, monkeypatch):
    from tests.playground.openai_stub import ChatStub

    monkeypatch.setenv("PLAYGROUND_CACHE_DIR", str(tmp_path / "cache"))
    with ChatStub() as stub:
        at = start()
        at.selectbox(key="summarizer_kind").set_value("openai").run()
        at.text_input(key="summarizer_openai_base_url").set_value(stub.base_url).run()
        at.text_input(key="summarizer_api_key").set_value("sk-from-the-password-field").run()
        compaction = entry_id(at, "CompactionPolicy")
        at.number_input(key=f"param_{compaction}_max_input_tokens").set_value(3000).run()
        assert not at.exception
        calls = len(stub.requests)
        assert calls > 0 and int(metric(at, "Compactions")) > 0
        assert any("summaries (0 from cache" in c.value for c in at.caption)
        assert any(f"Summary cache: {calls} summaries" in c.value for c in at.caption)
        view(at, "Export")
        export = next(c.value for c in at.code if "version: 1" in c.value)
        assert "kind: openai" in export and "sk-from-the-password-field" not in export

        stub.mode = "error500"
        at.button(key="summarizer_clear_cache").click().run()
        assert any(f"Cleared {calls} cached summaries" in s.value for s in at.success)
        at.number_input(key=f"param_{compaction}_max_input_tokens").set_value(4000).run()
        assert not at.exception
        assert any("failed: those compactions were skipped" in w.value for w in at.warning)


def test_what_a_window_loses_is_shown_at_the_turn_it_is_lost():
    at = start()
    config = b"version: 1\nstack:\n- SlidingWindowPolicy: {max_messages: 30}\n"
    at.file_uploader(key="config_upload").set_value(("window.yaml", config, "application/x-yaml")).run()
    assert int(metric(at, "Facts lost")) >= 1
    view(at, "Side by side")
    at.slider(key="turn").set_value(26).run()
    warning = next(text(w) for w in at.warning if "no longer held" in w.value)
    assert "2027-02-26" in warning
    assert '<mark title="lost at this turn">2027-02-26</mark>' in cards(at)


def test_a_badly_tuned_compaction_is_flagged_as_thrash():
    at = start()
    upload(at, "coding_agent_bugfix.json")
    bad = b"version: 1\nstack:\n- CompactionPolicy: {max_input_tokens: 2000, keep_recent: 30}\n"
    at.file_uploader(key="config_upload").set_value(("bad.yaml", bad, "application/x-yaml")).run()
    assert any(w.value.startswith("Compaction thrash:") for w in at.warning)
    good = b"version: 1\nstack:\n- CompactionPolicy: {max_input_tokens: 12000, keep_recent: 6}\n"
    at.file_uploader(key="config_upload").set_value(("good.yaml", good, "application/x-yaml")).run()
    assert int(metric(at, "Compactions")) > 0
    assert not any(w.value.startswith("Compaction thrash:") for w in at.warning)


def test_side_by_side_draws_the_cache_break_line_where_the_cached_prefix_ends():
    from playground.engine.replay import Settings, replay
    from playground.formats import read_path
    from playground.measures.metrics import turns_frame
    from playground.stacks.presets import PRESETS

    session = read_path(SYNTHETIC / "leave_request_hr.json")[0]
    frame = turns_frame(replay(session, PRESETS["pyagentic recommended"], Settings()))
    broken = frame[frame["cache_break_at"].notna()]
    assert not broken.empty
    first = broken.iloc[0]
    at = view(start(), "Side by side")
    at.slider(key="turn").set_value(int(first["turn"])).run()
    page = cards(at)
    assert page.count('class="cache-break"') == 1
    assert f"{int(first['cache_break_repaid']):,} tokens of the previous request re-paid" in page
    sent = card_columns(at)[-1]  # the right column: the compiled context sent
    before, after = sent.split('class="cache-break"')
    # the line sits between the last message still cached and the first one re-paid
    at_break = int(first["cache_break_at"])
    assert f"<b>{at_break - 1}</b>" in before
    assert f"<b>{at_break}</b>" in after and f"<b>{at_break}</b>" not in before
    at.slider(key="turn").set_value(1).run()
    assert 'class="cache-break"' not in cards(at)


def test_the_summaries_a_stack_asks_for_have_their_own_cost_line():
    at = start()
    upload(at, "coding_agent_bugfix.json")
    page = "".join(m.value for m in at.markdown)
    assert "Summaries:" not in page  # the default stack does not compact this session
    compacting = b"version: 1\nstack:\n- CompactionPolicy: {max_input_tokens: 12000, keep_recent: 6}\n"
    at.file_uploader(key="config_upload").set_value(("c.yaml", compacting, "application/x-yaml")).run()
    line = next(m.value for m in at.markdown if m.value.startswith("**Summaries: $"))
    calls = int(metric(at, "Compactions"))
    assert f"{calls:,} summarizer call{'s' if calls != 1 else ''}:" in line and "priced as" in line


def test_requests_over_the_context_window_are_warned_about_and_marked_on_the_chart():
    at = start()
    upload(at, "coding_agent_bugfix.json")
    assert not any("context window**" in w.value for w in at.warning)
    at.number_input(key="context_window").set_value(4_000).run()
    warning = next(w.value for w in at.warning if "4,000-token context window" in w.value)
    assert "would refuse these requests" in warning
    over = int(warning.split(" of ")[0].strip("*"))
    assert over > 0 and int(metric(at, "Turns with violations")) >= over
    chart = next(c for c in at.get("plotly_chart") if "Tokens sent per turn" in c.proto.spec)
    assert "over the context window" in chart.proto.spec


def test_two_uploads_of_one_name_can_both_be_picked_and_a_repeat_is_shown_once():
    samples = SYNTHETIC
    first = (samples / "leave_request_hr.json").read_bytes()
    second = (samples / "coding_agent_bugfix.json").read_bytes()
    at = start()
    files = [
        ("run.json", first, "application/json"),
        ("run.json", second, "application/json"),
        ("copy.json", first, "application/json"),
    ]
    at.file_uploader(key="session_uploads").set_value(files).run()
    assert not at.exception
    options = at.selectbox(key="session_choice").options
    uploads = [o for o in options if o.startswith("upload: ")]
    assert uploads == ["upload: run.json", "upload: run.json (2)"]
    assert any("copy.json: the same file as run.json, shown once" in text(i) for i in at.info)
    at.selectbox(key="session_choice").set_value("upload: run.json (2)").run()
    caption = next(c.value for c in at.caption if " turns · " in c.value)
    at.selectbox(key="session_choice").set_value("upload: run.json").run()
    assert next(c.value for c in at.caption if " turns · " in c.value) != caption


def test_picking_a_preset_again_reloads_it_and_the_editor_says_where_the_stack_came_from():
    at = start()

    def origin() -> str:
        return next(c.value for c in at.caption if c.value.startswith("From "))

    assert origin() == "From preset **pyagentic recommended**"
    eviction = entry_id(at, "ToolEvictionPolicy")
    at.slider(key=f"param_{eviction}_keep_last_n").set_value(1).run()
    assert origin() == "From preset **pyagentic recommended**, edited"
    assert metric(at, "Stubs created") == "12"
    at.selectbox(key="stack_preset").set_value("pyagentic recommended").run()
    assert at.selectbox(key="stack_preset").value is None  # back to "Load a preset…"
    assert origin() == "From preset **pyagentic recommended**"
    assert metric(at, "Stubs created") == "8"  # the preset's own keep_last_n again
    at.selectbox(key="stack_preset").set_value("pyagentic recommended").run()  # and again
    assert metric(at, "Stubs created") == "8" and not at.exception
    window = b"version: 1\nstack:\n- SlidingWindowPolicy: {max_messages: 30}\n"
    at.file_uploader(key="config_upload").set_value(("window.yaml", window, "application/x-yaml")).run()
    assert origin() == r"From config **window\.yaml**"  # an import names its file, not the last preset


def test_disabling_a_policy_marks_it_at_once():
    at = start()
    eviction = entry_id(at, "ToolEvictionPolicy")
    at.toggle(key=f"enabled_{eviction}").set_value(False).run()
    assert any(e.label == "2. ToolEvictionPolicy (disabled)" for e in at.expander)
    at.toggle(key=f"enabled_{eviction}").set_value(True).run()
    assert any(e.label == "2. ToolEvictionPolicy" for e in at.expander)


def test_a_lost_fact_is_marked_without_splitting_an_escape():
    from playground.ui.side_by_side import _marked

    assert _marked("it's 27 <b>", ("27",)) == 'it&#x27;s <mark title="lost at this turn">27</mark> &lt;b&gt;'
    # the longer of two overlapping facts is marked whole
    assert _marked("INV-2041", ("2041", "INV-2041")) == '<mark title="lost at this turn">INV-2041</mark>'


def test_a_declared_must_keep_fact_is_lost_by_a_window_and_kept_by_the_tiered_stack():
    at = start()
    at.text_area(key="must_keep_text").set_value("fixed-term contract\n/E-[0-9]{4}/").run()
    window = b"version: 1\nstack:\n- SlidingWindowPolicy: {max_messages: 30}\n"
    at.file_uploader(key="config_upload").set_value(("window.yaml", window, "application/x-yaml")).run()
    assert at.text_area(key="must_keep_text").value == ""  # the config declares none: the box says so
    at.text_area(key="must_keep_text").set_value("fixed-term contract\n/E-[0-9]{4}/").run()
    assert metric(at, "Must-keep lost") == "1 of 2"
    assert at.get("plotly_chart")  # the must-keep chart is drawn with the others
    view(at, "Export")
    export = next(c.value for c in at.code if "version: 1" in c.value)
    from playground.stacks.config import parse_config

    assert [f.text for f in parse_config(export).must_keep] == ["fixed-term contract", "/E-[0-9]{4}/"]
    tiered = export.replace(
        "SlidingWindowPolicy: {max_messages: 30}", "TieredEvictionPolicy: {budget_tokens: 3000}"
    )
    assert tiered != export
    at.file_uploader(key="config_upload").set_value(
        ("tiered.yaml", tiered.encode(), "application/x-yaml")
    ).run()
    assert at.text_area(key="must_keep_text").value == "fixed-term contract\n/E-[0-9]{4}/"
    assert metric(at, "Must-keep lost") == "0 of 2"


def test_a_must_keep_pattern_that_is_no_regex_says_which_line():
    at = start()
    at.text_area(key="must_keep_text").set_value("fine\n/[unclosed/").run()
    assert not at.exception
    assert any("entry 2" in e.value and "not a valid regular expression" in e.value for e in at.error)
    assert not any(m.label == "Must-keep lost" for m in at.metric)


def test_the_runs_of_a_200_run_file_are_listed_by_task_trial_and_reward():
    traj = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    runs = [{"task_id": i, "trial": 0, "reward": float(i % 2), "traj": traj} for i in range(200)]
    at = start()
    data = json.dumps(runs).encode()
    at.file_uploader(key="session_uploads").set_value([("tau.json", data, "application/json")]).run()
    assert not at.exception
    options = at.selectbox(key="session_choice").options
    assert at.selectbox(key="session_choice").value == "#0 task 0 · trial 0 · reward 0 — upload: tau.json"
    assert "#117 task 117 · trial 0 · reward 1 — upload: tau.json" in options
    at.selectbox(key="session_choice").set_value(
        "#117 task 117 · trial 0 · reward 1 — upload: tau.json"
    ).run()
    assert any("**task 117 · trial 0 · reward 1**" in c.value for c in at.caption)


def test_the_page_says_when_a_policy_misses_its_budget_or_never_acts():
    at = start()
    assert any(
        "3. CompactionPolicy never acted in 26 turns" in text(i) for i in at.info
    )  # the default stack's trigger (80,000) is far above this session's peak
    config = b"version: 1\nstack:\n- TieredEvictionPolicy: {budget_tokens: 1000}\n"
    at.file_uploader(key="config_upload").set_value(("tight.yaml", config, "application/x-yaml")).run()
    assert any("TieredEvictionPolicy could not meet its budget" in text(w) for w in at.warning)
    assert not any("never acted" in text(i) for i in at.info)


def test_side_by_side_steps_to_the_next_compaction_skipping_other_events():
    at = start()
    upload(at, "coding_agent_bugfix.json")
    config = b"version: 1\nstack:\n- ToolEvictionPolicy: {keep_last_n: 5}\n- CompactionPolicy: {max_input_tokens: 12000, keep_recent: 6}\n"
    at.file_uploader(key="config_upload").set_value(("c.yaml", config, "application/x-yaml")).run()
    assert view(at, "Events").session_state["events_shown"]  # the Events tab lists what happened
    view(at, "Side by side")
    at.button(key="turn_next_event").click().run()
    any_event = at.session_state["turn"]
    at.slider(key="turn").set_value(1).run()
    at.selectbox(key="step_kind").set_value("compaction").run()
    at.button(key="turn_next_event").click().run()
    first_compaction = at.session_state["turn"]
    assert first_compaction > any_event  # stubs came first; the compaction step skips them
    caption = next(c.value for c in at.caption if c.value.startswith(f"Turn {first_compaction}:"))
    assert "tokens sent" in caption
    at.selectbox(key="step_kind").set_value("violation").run()
    assert at.button(key="turn_next_event").disabled  # this stack sends no invalid request


def test_a_first_visit_says_how_to_start_and_draws_only_the_open_view():
    at = start()
    assert any("**Start:** pick or upload a session in the sidebar" in c.value for c in at.caption)
    assert at.get("plotly_chart") and not cards(at) and not at.code  # charts only, at first
    view(at, "Export")
    assert not at.get("plotly_chart") and any("version: 1" in c.value for c in at.code)


def test_must_keep_facts_are_checked_once_per_replay_not_on_every_rerun(monkeypatch):
    from playground.measures import must_keep

    calls = []
    real = must_keep.states

    def counted(result, facts):  # the replay's own frame asks with no facts: not a check
        calls.extend([1] if facts else [])
        return real(result, facts)

    monkeypatch.setattr(must_keep, "states", counted)
    at = start()
    at.text_area(key="must_keep_text").set_value("fixed-term contract").run()
    view(at, "Side by side")
    at.slider(key="turn").set_value(20).run()
    assert len(calls) == 1 and metric(at, "Must-keep lost") == "0 of 1"
    at.text_area(key="must_keep_text").set_value("fixed-term contract\n2027-02-26").run()
    assert len(calls) == 2  # a new declaration is checked anew


def test_the_editor_says_how_each_policy_lives_on_and_offers_the_choices_a_framework_allows():
    at = start()
    at.selectbox(key="stack_preset").set_value("Anthropic context editing (clear tool uses)").run()
    clear = entry_id(at, "ClearToolUsesPolicy")
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Ephemeral: edits each request, the history stays whole") for c in captions)
    choice = at.selectbox(key=f"param_{clear}_persistence")
    assert choice.options == ["persistent", "ephemeral"] and choice.value == "ephemeral"
    choice.set_value("persistent").run()
    assert not at.exception and not at.error
    assert any(c.startswith("Persistent: rewrites the stored history") for c in (c.value for c in at.caption))
    assert at.selectbox(key=f"param_{clear}_flavour").options == ["anthropic", "langchain"]


def candidate_names(at: AppTest) -> list[str]:
    return [c["name"] for c in at.session_state["candidates"]]


def test_candidates_are_saved_renamed_removed_and_exported_with_the_config():
    at = start()
    at.button(key="candidate_save").click().run()
    at.selectbox(key="candidate_preset").set_value("Sliding window of 50").run()
    assert candidate_names(at) == ["pyagentic recommended", "Sliding window of 50"]
    first, second = (c["id"] for c in at.session_state["candidates"])
    at.text_input(key=f"candidate_name_{second}").set_value("pyagentic recommended").run()
    assert "There is already a candidate 'pyagentic recommended'." in [text(w) for w in at.warning]
    assert candidate_names(at)[1] == "Sliding window of 50"  # refused: the name stays
    at.text_input(key=f"candidate_name_{second}").set_value("window").run()
    assert candidate_names(at) == ["pyagentic recommended", "window"]
    colours = [c["colour"] for c in at.session_state["candidates"]]
    assert len(set(colours)) == 2
    view(at, "Export")
    export = next(c.value for c in at.code if "version: 1" in c.value)
    assert "candidates:\n- name: pyagentic recommended\n" in export and "- name: window\n" in export
    at.button(key=f"candidate_remove_{first}").click().run()
    assert candidate_names(at) == ["window"]
    assert not at.exception


def test_an_imported_config_brings_its_candidates_and_compare_shows_them():
    at = start()
    config = (
        b"version: 1\nstack: [SlidingWindowPolicy]\ncandidates:\n"
        b"- name: short window\n  stack: [{SlidingWindowPolicy: {max_messages: 6}}]\n"
        b"- name: raw\n  stack: []\n"
    )
    at.file_uploader(key="config_upload").set_value(("two.yaml", config, "application/x-yaml")).run()
    assert candidate_names(at) == ["short window", "raw"]
    assert any("2 candidates" in s.value for s in at.success)
    view(at, "Compare")
    assert not at.exception and not at.error
    table = at.table[0].value
    assert list(table.columns) == ["stack being edited", "short window (baseline)", "raw"]
    assert table.loc["cost saved against raw history (%)", "raw"].startswith("0")


def swept(values: str) -> tuple[AppTest, int, object]:
    """A page that swept the eviction's keep_last_n over ``values``, finished and drawn: the
    page, the eviction's entry id, the sweep's job."""
    import time

    at = start()
    view(at, "Sweep")
    eviction = entry_id(at, "ToolEvictionPolicy")
    at.selectbox(key="sweep_entry_0").select_index(1).run()
    at.text_input(key=f"sweep_values_0_{eviction}_keep_last_n").set_value(values).run()
    at.button(key="sweep_run").click().run()
    job = at.session_state["sweep_job"]
    deadline = time.monotonic() + 60
    while job.running and time.monotonic() < deadline:
        time.sleep(0.1)
    at.run()
    return at, eviction, job


def test_a_sweep_runs_on_its_thread_and_its_point_loads_into_the_editor():
    at, _, job = swept("1:4")
    assert not at.exception and job.error is None
    assert [p.values for p in job.result.points] == [(1,), (2,), (3,), (4,)]
    assert any("4 points in" in c.value for c in at.caption)


def test_the_sweep_picks_outlive_a_visit_to_another_tab():
    """Only the open tab runs, so a tab's widgets are not drawn while another is open: the
    policy, parameter and values picked in Sweep must still be there on coming back."""
    at = start()
    view(at, "Sweep")
    eviction = entry_id(at, "ToolEvictionPolicy")
    at.selectbox(key="sweep_entry_0").select_index(1).run()
    values = f"sweep_values_0_{eviction}_keep_last_n"
    at.text_input(key=values).set_value("2:9").run()
    view(at, "Charts")
    view(at, "Sweep")
    assert at.selectbox(key="sweep_entry_0").value == eviction
    assert at.text_input(key=values).value == "2:9"
    assert any(b.label == "Run the sweep (8 points)" for b in at.button)
    # the other tabs' choices too: the framework to export to, the events filter
    view(at, "Export")
    at.selectbox(key="export_target").select_index(2).run()
    target = at.selectbox(key="export_target").value
    view(at, "Events")
    at.multiselect(key="events_action").select("stub").run()
    view(at, "Export")
    assert at.selectbox(key="export_target").value == target
    view(at, "Events")
    assert at.multiselect(key="events_action").value == ["stub"]


def corpus_tables(at: AppTest):
    """The Corpus tab's tables: the per-stack summary (shown a row per figure, given back a
    row per stack), the per-session table."""
    summary, sessions = (d.value for d in at.dataframe)
    return summary.T.rename_axis("stack").reset_index(), sessions


def corpus_replayed(at: AppTest) -> AppTest:
    """Wait for the Corpus tab's replays, on their thread, then draw the page again."""
    import time

    run = at.session_state["corpus_run"]
    deadline = time.monotonic() + 120
    while run.running and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not run.running, "the corpus replay did not finish in 120 s"
    return at.run()


CORPUS_SAMPLES = ("ops_incidents_multi.json", "leave_request_hr.json", "coding_agent_bugfix.json")


def test_the_corpus_tab_replays_every_run_of_an_upload_and_opens_the_worst():
    from playground.analyses.corpus import Job, session_figures
    from playground.engine.tokens import TokenCounter
    from playground.formats import read_bytes
    from playground.stacks.candidates import Candidate
    from playground.stacks.presets import PRESETS
    from tests.builders import runs_of_samples

    data = runs_of_samples(*CORPUS_SAMPLES)
    at = start()
    at.file_uploader(key="session_uploads").set_value([("runs.json", data, "application/json")]).run()
    view(at, "Corpus")
    corpus_replayed(at)
    assert not at.exception
    assert any(c.value.startswith("5 uploaded sessions, each under 1 stack") for c in at.caption)
    summary, table = corpus_tables(at)
    assert list(summary["sessions"]) == ["5"] and list(summary["sessions losing facts"]) == ["2"]
    # no model picked: each session replays at the model it records, as the page's job does
    job = Job((Candidate("default", tuple(PRESETS["pyagentic recommended"])),), Scenario(), model_given=False)
    counter = TokenCounter("gpt-4o")
    expected = {
        s.name: next(session_figures(s, job, counter))[0]["distinct_facts_lost"]
        for s in read_bytes(data, "runs.json")
    }
    assert len(table) == 5 and list(table["facts lost"]) == sorted(expected.values(), reverse=True)
    worst = table["session"][0]
    assert worst == "#3 leave-request — upload: runs.json" and table["facts lost"][0] == 3
    assert len(at.get("plotly_chart")) == 2  # a box per stack: what it saves, what it loses
    at.selectbox(key="corpus_sort").set_value("saved_cost_pct").run()
    by_saving = corpus_tables(at)[1]["cost saved %"]
    assert list(by_saving) == sorted(by_saving)  # the least saved first
    at.selectbox(key="corpus_sort").set_value("distinct_facts_lost").run()
    at.button(key="corpus_open_button").click().run()
    assert not at.exception
    assert at.session_state["session_choice"] == worst and at.session_state["view"] == "Charts"
    assert metric(at, "Facts lost").startswith("3")


def test_the_corpus_tab_without_uploads_replays_the_samples_and_a_candidate_beside_the_stack():
    at = start()
    at.selectbox(key="candidate_preset").set_value("Sliding window of 50").run()
    view(at, "Corpus")
    corpus_replayed(at)
    assert not at.exception
    assert any(" sample sessions, each under 2 stack(s)" in c.value for c in at.caption)
    at.selectbox(key="corpus_stack").set_value("Sliding window of 50").run()
    summary, table = corpus_tables(at)
    assert list(summary["stack"]) == ["stack being edited", "Sliding window of 50"]
    assert len(table) == int(list(summary["sessions"])[1]) == 6  # every session of the four samples


def test_a_candidate_one_visitor_saves_is_not_another_visitors():
    first = start()
    first.button(key="candidate_save").click().run()
    assert [c["name"] for c in first.session_state["candidates"]] == ["pyagentic recommended"]
    second = start()
    assert second.session_state["candidates"] == []


def test_the_corpus_replays_off_the_page_s_thread_and_cancel_keeps_what_ran(monkeypatch):
    """The page is drawn while the sessions replay (progress and Cancel); a cancelled run
    shows the sessions it replayed, and "Replay the rest" finishes from the kept figures."""
    import threading

    from playground.ui import corpus_view
    from tests.builders import runs_of_samples

    gate, replayed = threading.Event(), []
    real = corpus_view.session_figures

    def held(session, *args, **kwargs):  # the first session replays, the others wait for the gate
        if replayed:
            gate.wait(30)
        replayed.append(session.name)
        return real(session, *args, **kwargs)

    monkeypatch.setattr(corpus_view, "session_figures", held)
    corpus_view._figures.clear()  # kept server-wide: another test's replays of the same runs
    at = start()
    data = runs_of_samples(*CORPUS_SAMPLES)
    at.file_uploader(key="session_uploads").set_value([("runs.json", data, "application/json")]).run()
    view(at, "Corpus")
    run = at.session_state["corpus_run"]
    assert not at.exception and run.running and not at.dataframe
    assert any(b.label == "Cancel" for b in at.button)
    at.button(key="corpus_cancel").click().run()
    assert run.cancel.is_set()
    gate.set()
    corpus_replayed(at)
    assert run.done < run.planned == 5
    assert any(f"Cancelled: {run.done} of 5 sessions replayed" in w.value for w in at.warning)
    assert len(corpus_tables(at)[1]) == run.done
    at.button(key="corpus_resume").click().run()
    corpus_replayed(at)
    assert not at.warning and len(corpus_tables(at)[1]) == 5
    assert len(replayed) == 5  # the sessions replayed before Cancel came from the kept figures


def test_a_corpus_too_large_for_the_page_is_sent_to_the_cli_not_replayed(monkeypatch):
    from playground import limits
    from tests.builders import runs_of_samples

    monkeypatch.setattr(limits.LIMITS, "max_app_corpus_messages", 100)
    at = start()
    data = runs_of_samples(*CORPUS_SAMPLES)
    at.file_uploader(key="session_uploads").set_value([("runs.json", data, "application/json")]).run()
    view(at, "Corpus")
    assert not at.exception and not at.dataframe
    warning = next(w.value for w in at.warning if "PLAYGROUND_MAX_APP_CORPUS_MESSAGES" in w.value)
    from playground.formats import read_bytes

    total = sum(len(s.messages) for s in read_bytes(data, "runs.json"))
    assert f"5 sessions under 1 stack(s) are {total:,} messages to replay" in warning
    assert "playground corpus" in warning


def test_a_config_with_code_in_its_text_exports_it_as_a_literal_and_every_tab_draws():
    at = start()
    config = (
        "version: 1\nstack:\n  - ClearToolUsesPolicy:\n      flavour: langchain\n"
        '      exclude_tools: ["*\\nimport os; os.system(\'touch PWNED\')\\n#", "a\\u2028b"]\n'
    )
    at.file_uploader(key="config_upload").set_value(
        ("evil.yaml", config.encode(), "application/x-yaml")
    ).run()
    assert not at.exception
    for name in ("Charts", "Export"):
        view(at, name)
        assert not at.exception, name
    at.selectbox(key="export_target").set_value("langchain").run()
    shown = "\n".join(code.value for code in at.code)
    assert "Not expressible in LangChain" in shown and "middleware = []" in shown  # its nearest: the same
    assert "import os" not in [line.strip() for line in shown.splitlines()]
    surrogate = config.replace("\\u2028b", "\\ud800")
    at.file_uploader(key="config_upload").set_value(
        ("half.yaml", surrogate.encode(), "application/x-yaml")
    ).run()
    assert not at.exception
    assert any("lone surrogate" in error.value for error in at.error)


def test_a_corpus_of_more_sessions_than_the_page_replays_is_sent_to_the_cli(monkeypatch):
    from playground import limits
    from tests.builders import runs_of_samples

    monkeypatch.setattr(limits.LIMITS, "max_app_corpus_sessions", 4)
    at = start()
    data = runs_of_samples(*CORPUS_SAMPLES)
    at.file_uploader(key="session_uploads").set_value([("runs.json", data, "application/json")]).run()
    view(at, "Corpus")
    assert not at.exception and not at.dataframe
    warning = next(w.value for w in at.warning if "PLAYGROUND_MAX_APP_CORPUS_SESSIONS" in w.value)
    assert "5 sessions: the page replays at most 4" in warning and "playground corpus" in warning


def test_cline_history_and_ui_messages_uploaded_together_read_as_one_session_with_its_usage():
    history = [
        {"role": "user", "ts": 1, "content": [{"type": "text", "text": "<task>fix</task>"}]},
        {
            "role": "assistant",
            "ts": 2,
            "metrics": {"tokens": {"prompt": 100, "completion": 5, "cached": 0}},
            "content": [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}}],
        },
        {"role": "user", "ts": 3, "content": [{"type": "text", "text": "[read_file for 'a'] Result: x"}]},
        {"role": "assistant", "ts": 4, "content": [{"type": "text", "text": "Done."}]},
    ]
    ui = [
        {
            "ts": 2,
            "type": "say",
            "say": "api_req_started",
            "text": json.dumps({"tokensIn": 7, "tokensOut": 5, "cacheWrites": 93, "cacheReads": 0}),
        },
        {
            "ts": 4,
            "type": "say",
            "say": "api_req_started",
            "text": json.dumps({"tokensIn": 4, "tokensOut": 3, "cacheWrites": 6, "cacheReads": 93}),
        },
    ]
    at = start()
    at.file_uploader(key="session_uploads").set_value(
        [
            ("api_conversation_history.json", json.dumps(history).encode(), "application/json"),
            ("ui_messages.json", json.dumps(ui).encode(), "application/json"),
        ]
    ).run()
    assert not at.exception and not at.error
    options = at.selectbox(key="session_choice").options
    assert [o for o in options if o.startswith("upload: ")] == ["upload: api_conversation_history.json"]
    session = at.session_state["session_choice"]
    assert session == "upload: api_conversation_history.json"
    from playground.formats import read_bytes

    (read,) = read_bytes(
        json.dumps(history).encode(),
        "api_conversation_history.json",
        {"ui_messages.json": json.dumps(ui).encode()},
    )
    assert read.usage == {1: 100, 3: 103}
    alone = start()
    alone.file_uploader(key="session_uploads").set_value(
        [("ui_messages.json", json.dumps(ui).encode(), "application/json")]
    ).run()
    assert any("add api_conversation_history.json" in text(e) for e in alone.error)


def test_an_uploaded_claude_code_session_is_named_by_what_it_records():
    path = Path(__file__).parents[2] / "fixtures" / "formats" / "claude-code" / "ccviewer_fe5e1c67.jsonl"
    at = start()
    at.file_uploader(key="session_uploads").set_value(
        [(path.name, path.read_bytes(), "application/json")]
    ).run()
    assert not at.exception
    options = [o for o in at.selectbox(key="session_choice").options if "ccviewer" in o]
    assert options[0].startswith(
        "#0 Empty Repo Setup: CLAUDE.md Foundation Created · claude-sonnet-4-20250514 · 2025-"
    )
    assert all("· subagent ·" in o for o in options[1:]) and len(options) == 6


def test_names_holding_control_characters_are_listed_escaped():
    data = json.dumps({"name": "run\nforged\x1b[2J", "messages": [{"role": "user", "content": "u"}]}).encode()
    at = start()
    at.file_uploader(key="session_uploads").set_value([("e\u202evil\n.json", data, "application/json")]).run()
    assert not at.exception
    label = at.selectbox(key="session_choice").value
    assert label.isprintable() and "e\\u202evil\\n.json" in label
    assert any("no reply of the model" in i.value for i in at.info)


def test_a_claude_code_log_replays_at_its_model_and_shows_the_agent_s_own_compaction_summary():
    from pathlib import Path

    curated = Path(__file__).parents[2] / "fixtures" / "formats" / "claude-code"
    data = (curated / "curated_agent-sessions_claude_small.jsonl").read_bytes()
    at = start()
    at.file_uploader(key="session_uploads").set_value([("claude.jsonl", data, "application/jsonl")]).run()
    assert not at.exception
    assert at.session_state["model"] == "claude-opus-4-8"  # the model the log records
    assert at.session_state["context_window"] >= 200_000
    view(at, "Side by side")
    at.session_state["turn"] = 3
    at.run()
    assert not at.exception
    labels = [e.label for e in at.expander]
    assert any("The agent compacted its own history before this turn" in label for label in labels)
    at.selectbox(key="model").set_value("gpt-4o").run()  # the user's pick outlives the session's
    assert at.session_state["model_chosen"] and at.session_state["model"] == "gpt-4o"


def test_the_headline_gives_a_verdict_when_money_is_saved_as_when_it_is_lost():
    at = start()  # leave_request_hr under pyagentic's stack saves money at gpt-4o
    saved = [text(m) for m in at.markdown if "This stack saves" in text(m)]
    assert len(saved) == 1 and "against the raw history" in saved[0] and "fewer tokens" in saved[0]
    assert "its 8 cache breaks cost less than that" in saved[0]
    # the parts of the difference, each with its dollars: they add up to what it saves
    assert "cache reads −108,800 tokens (−$0.1360), uncached input +14,075 tokens (+$0.0352)" in saved[0]
    at.selectbox(key="stack_preset").set_value("Cache-friendly (batched eviction)").run()
    [saved] = [text(m) for m in at.markdown if "This stack saves" in text(m)]
    assert "never breaks the prompt cache" in saved
    at.selectbox(key="stack_preset").set_value("No policies (raw history)").run()
    assert not [m for m in at.markdown if "This stack saves" in text(m) or "This stack costs" in text(m)]


def test_add_a_policy_starts_on_the_most_used_policy():
    from playground.stacks.presets import policies_by_use

    at = start()
    choice = at.selectbox(key="stack_add_choice")
    assert (
        choice.options == policies_by_use()
        and choice.value == policies_by_use()[0] != "AdkSlidingWindowCompactionPolicy"
    )


def test_a_sweep_is_cleared_when_the_stack_changes_under_it_but_not_by_its_own_point():
    at, eviction, job = swept("1:3")
    assert not at.exception and job.error is None
    # loading a point sets the swept value: the sweep still describes this stack
    for entry in at.session_state["stack"]:
        if entry["id"] == eviction:
            entry["params"]["keep_last_n"] = 2
    at.session_state["sweep_loaded"] = "Loaded keep_last_n = 2 into the editor."
    at.run()
    assert at.session_state["sweep_job"] is job and any("Loaded keep_last_n" in text(s) for s in at.success)
    # another edit (a preset) changes what the sweep ran on: its result and note go
    at.selectbox(key="stack_preset").set_value("Sliding window of 50").run()
    view(at, "Sweep")
    assert at.session_state["sweep_job"] is None and not at.session_state["sweep_loaded"]
    assert not at.get("plotly_chart") and not any("Loaded" in text(s) for s in at.success)


def test_the_page_s_address_keeps_the_stack_model_and_candidates_so_a_refresh_or_a_link_opens_them():
    from playground.stacks.config import config_at

    at = start()
    at.selectbox(key="stack_preset").set_value("Sliding window of 50").run()
    at.selectbox(key="model").set_value("claude-sonnet-4-5").run()
    address = at.query_params["stack"]
    config = config_at(address[0] if isinstance(address, list) else address)
    assert [s.name for s in config.stack] == [
        "SlidingWindowPolicy"
    ] and config.settings.model == "claude-sonnet-4-5"
    # a new browser session (a refresh, or a link someone sent) on that address
    again = AppTest.from_file(APP, default_timeout=60)
    again.query_params["stack"] = address
    again.run()
    assert not again.exception and stack_names(again) == ["SlidingWindowPolicy"]
    assert again.session_state["model"] == "claude-sonnet-4-5"


@pytest.mark.parametrize("address", ["not base64 at all!!", "eJzLSM3JyQcABiwCFQ", "A" * 20_000])
def test_an_address_that_is_not_a_stack_is_said_and_the_page_starts_as_usual(address):
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["stack"] = address
    at.run()
    assert not at.exception
    assert any("the page's address" in text(e) for e in at.error)
    usual = AppTest.from_file(APP, default_timeout=60).run()
    assert stack_names(at) == stack_names(usual) == ["ClaudeCodeAutoCompactPolicy"]  # the sample's own


ERK = Path(__file__).parents[2] / "fixtures" / "formats" / "claude-code-erk"


def uploaded(path: Path) -> AppTest:
    """The page with ``path`` uploaded, replayed without an error."""
    at = start()
    at.file_uploader(key="session_uploads").set_value(
        [(path.name, path.read_bytes(), "application/jsonl")]
    ).run()
    assert not at.exception
    return at


def test_a_claude_code_upload_shows_its_bill_as_recorded_its_place_in_the_file_and_the_whole_file_s_bill():
    """A real 2.1 session with two subagents nested in progress lines: the page says which of
    the file's three sessions it shows, the whole file's bill, and the bill as recorded
    (ccusage's figure: $0.1148 for its 12 calls, 1-hour writes at their own price)."""
    path = ERK / "d9cb4436-f9e7-4a74-b3eb-cd20580ce667.jsonl"
    at = uploaded(path)
    captions = [text(c) for c in at.sidebar.caption]
    assert any(c.startswith("Session 1 of 3 in this file (1 main, 2 subagent).") for c in captions)
    assert any("The whole file's recorded bill: $0.1549 for 14 calls in 3 sessions" in c for c in captions)
    page = [text(c) for c in at.main.caption] + [text(m) for m in at.main.markdown]
    assert any("As recorded $0.1148 on all 12 calls" in c for c in page)
    assert any("**As recorded $0.1148**" in m for m in page)
    assert not [m for m in page if "None" in m.split()]


def test_a_session_that_compacted_at_188k_flags_the_raw_history_over_its_200k_window():
    path = ERK / "34748be3-5a05-4aa0-a05b-2b3b99a4674c.jsonl"
    at = uploaded(path)
    assert at.session_state["model"] == "claude-opus-4-6" and at.session_state["context_window"] == 200_000
    notes = [text(i) for i in at.main.info]
    assert any(n.startswith("The raw history outgrows the 200,000-token window at ") for n in notes)
    assert any("The agent compacted its own context 1 time (marked" in n for n in notes)


def test_the_hidden_prefix_is_a_block_of_its_own_in_the_composition_and_side_by_side():
    """Issue 47, 3: "13,862 tokens sent" over one 1,382-token message showed nothing of the rest."""
    from playground.charts.turns import composition_chart

    at = uploaded(ERK / "4780b26d-b8f7-4029-9088-c81b2e407b1e.jsonl")
    view(at, "Side by side")
    at.slider(key="turn").set_value(1).run()
    sent = card_columns(at)[-1]
    assert (
        'class="request-head"' in sent
        and "the system prompt and tool definitions the file does not hold" in sent
    )
    from playground.engine.replay import replay
    from playground.formats import read_path
    from playground.measures.metrics import turns_frame
    from playground.stacks.config import Config

    session = read_path(ERK / "4780b26d-b8f7-4029-9088-c81b2e407b1e.jsonl")[0]
    turns = turns_frame(replay(session, [], Config().settings_for(session)))
    parts = ["tokens_head", *(c for c in turns.columns if c.startswith("tokens_") and c != "tokens_head")]
    assert (turns[parts].sum(axis=1) == turns["context_tokens"]).all()  # the blocks add up to what is sent
    assert f"prefix: {int(turns['tokens_head'].iloc[0]):,} tokens" in sent
    names = [trace.name for trace in composition_chart(turns).data]
    assert names[0] == "prefix (system prompt, tools)"


def test_an_upload_opened_again_after_a_refresh_is_asked_for_and_nothing_else_is_shown(real_session_path):
    """Issue 47, 4: a fresh browser session whose address says an upload was showing (a refresh,
    a copied link) shows no sample in its place; removing one's own upload shows the samples."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["upload"] = "1"
    at.run()
    assert not at.exception and not at.metric
    assert any("which a refresh does not keep" in w.value for w in at.main.warning)
    at.button(key="upload_gone_samples").click().run()
    assert metric(at, "Cost with this stack") and "upload" not in at.query_params

    at = start()
    upload = (real_session_path.name, real_session_path.read_bytes(), "application/json")
    at.file_uploader(key="session_uploads").set_value(upload).run()
    assert at.query_params["upload"] == "1"
    at.file_uploader(key="session_uploads").set_value([]).run()
    assert not at.exception and not at.main.warning and "upload" not in at.query_params
    assert at.selectbox(key="session_choice").value.endswith("sample: claude_code_compacted")


def test_a_lead_figure_that_does_not_change_says_so_and_never_reads_minus_zero():
    from playground.ui.figures import _change

    assert _change(-0.0, "vs raw") == {"delta": "same (vs raw)", "delta_color": "off", "delta_arrow": "off"}
    assert _change(-0.04, "vs raw")["delta"] == "same (vs raw)"
    assert _change(-40.1, "vs raw") == {"delta": "-40.1% vs raw", "delta_color": "inverse"}
    assert _change(12.0, "stack")["delta"] == "+12.0% stack"


def test_a_hosted_page_never_looks_at_its_disk_and_playground_app_s_does(tmp_path, monkeypatch):
    """Issue 60, 5: only a page started by ``playground app`` offers this machine's sessions (the
    files named first, then the agents' folders); a page started any other way has no such box."""
    hosted = start()
    assert not [s for s in hosted.selectbox if s.key == "session_local"]

    mine = tmp_path / "mine.traj.json"
    mine.write_bytes((Path(__file__).parents[2] / "fixtures" / "msa_astropy12907.traj.json").read_bytes())
    monkeypatch.setenv("PLAYGROUND_LOCAL_PATHS", str(mine))
    monkeypatch.setenv("PLAYGROUND_LOCAL", "0")  # the files named only, as --no-agent-folders
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception and not at.error
    local = at.selectbox(key="session_local")
    assert local.value.endswith(str(mine).replace(str(Path.home()), "~", 1))
    assert at.selectbox(key="session_choice").value.startswith("this machine: mine.traj")
    assert any("astropy__astropy-12907" in text(c) for c in at.caption)
    local.set_value(local.options[0]).run()  # none: back to the samples
    assert at.selectbox(key="session_choice").value.endswith("sample: claude_code_compacted")
