"""What only a browser can prove: upload, drag to reorder, keyboard on a slider, download."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from playwright.sync_api import expect

from playground.cli.bench_browser import choose, idle
from playground.cli.main import main as cli
from playground.engine.replay import replay
from playground.formats import read_path
from playground.measures.metrics import events_frame, totals, turns_frame
from playground.stacks.config import Config, load_config, parse_config
from playground.stacks.presets import PRESETS
from playground.ui.text import WORD_JOINER
from tests.e2e.conftest import LEAVE_SAMPLE, SERVER_KEY, open_sample
from tests.playground.openai_stub import ChatStub

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).parents[2]
LEAVE = ROOT / "sample_sessions" / "leave_request_hr.json"
REAL = ROOT / "tests" / "fixtures" / "msa_astropy12907.traj.json"
DEFAULT_STACK = (
    "stack: [ToolOutputClipPolicy: {max_chars: 8000}, ToolEvictionPolicy: {keep_last_n: 5},"
    " CompactionPolicy: {max_input_tokens: 80000}]"
)


def metric(page, label: str):
    return page.get_by_test_id("stMetric").filter(has_text=label).get_by_test_id("stMetricValue")


def wait_for_metric(page, label: str, value: str) -> None:
    expect(metric(page, label)).to_have_text(value, timeout=30_000)


def downloaded(page, button: str, folder: Path) -> Path:
    """Click the download button whose label holds ``button``; the file it gave, saved as that name."""
    with page.expect_download() as download:
        page.get_by_test_id("stDownloadButton").filter(has_text=button).click()
    path = folder / button
    download.value.save_as(path)
    return path


def upload(page, label: str, path: Path) -> None:
    uploader = page.get_by_test_id("stFileUploader").filter(has_text=label)
    uploader.locator("input[type=file]").set_input_files(str(path))
    idle(page)


def replay_frame(session_path: Path, config_text: str) -> pd.DataFrame:
    config = parse_config(config_text)
    return turns_frame(replay(read_path(session_path)[0], config.stack, config.settings))


def replay_figures(session_path: Path, config_text: str) -> dict:
    return totals(replay_frame(session_path, config_text))


def test_upload_a_transcript_and_see_its_figures(page):
    upload(page, "Upload transcripts", REAL)
    expected = replay_figures(
        REAL,
        DEFAULT_STACK,
    )
    wait_for_metric(page, "Stubs created", str(expected["stubs_created"]))
    wait_for_metric(page, "Peak context", f"{expected['peak_context_tokens']:,}")
    expect(page.get_by_test_id("stSidebar")).to_contain_text("astropy__astropy-12907")


def test_a_traj_file_is_accepted_and_a_file_that_is_no_transcript_says_why(page, tmp_path):
    traj = tmp_path / "astropy.traj"  # SWE-agent's own extension
    traj.write_bytes(REAL.read_bytes())
    upload(page, "Upload transcripts", traj)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar).to_contain_text("astropy__astropy-12907 · mini-swe-agent trajectory · 129 messages")
    assert "not allowed" not in sidebar.inner_text()
    notes = tmp_path / "notes.pdf"
    notes.write_bytes(b"%PDF-1.7\n\x00\x01binary")
    upload(page, "Upload transcripts", notes)
    message = sidebar.get_by_test_id("stAlert").filter(has_text="notes.pdf")
    expect(message).to_be_visible()
    assert "Traceback" not in page.content()


def _items(page):
    frame = page.frame_locator('iframe[title="streamlit_sortables.sortable_items"]')
    return frame.locator(".sortable-item")


def _drag(page, source, target) -> None:
    start, end = source.bounding_box(), target.bounding_box()
    x, y = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    to_y = end["y"] + 3  # the upper edge of the target: land above it
    steps = 25
    for k in range(1, steps + 1):
        page.mouse.move(x, y + (to_y - y) * k / steps)
        page.wait_for_timeout(15)
    page.mouse.up()
    idle(page)


def test_drag_a_policy_to_a_new_place(page, tmp_path):
    config = "version: 1\nstack:\n- CompactionPolicy: {max_input_tokens: 3000, keep_recent: 4}\n- ToolEvictionPolicy: {keep_last_n: 1}\n"
    path = tmp_path / "order.yaml"
    path.write_text(config)
    upload(page, "Import a stack config", path)
    compaction_first = replay_figures(LEAVE, config)
    wait_for_metric(page, "Input tokens billed", f"{compaction_first['billed_context_tokens']:,}")
    items = _items(page)
    assert items.all_inner_texts() == ["CompactionPolicy", "ToolEvictionPolicy"]

    _drag(page, items.nth(1), items.nth(0))

    assert _items(page).all_inner_texts() == ["ToolEvictionPolicy", "CompactionPolicy"]
    expanders = page.get_by_test_id("stMain").get_by_test_id("stExpander").all_inner_texts()
    assert "1. ToolEvictionPolicy" in expanders[0] and "2. CompactionPolicy" in expanders[1]
    swapped = "version: 1\nstack:\n- ToolEvictionPolicy: {keep_last_n: 1}\n- CompactionPolicy: {max_input_tokens: 3000, keep_recent: 4}\n"
    eviction_first = replay_figures(LEAVE, swapped)
    assert eviction_first["billed_context_tokens"] != compaction_first["billed_context_tokens"]
    wait_for_metric(page, "Input tokens billed", f"{eviction_first['billed_context_tokens']:,}")


# plotly.js keeps the decoded trace arrays in _fullData (data holds them base64-encoded)
TOKENS_PLOT = "Array.from(document.querySelectorAll('.js-plotly-plot')).find(p => p.layout && p.layout.title && p.layout.title.text.includes('Tokens sent per turn'))"
CONTEXT_LINE = (
    f"() => {{ const plot = {TOKENS_PLOT}; const line = plot && plot._fullData && "
    "plot._fullData.find(t => t.name === 'context (stack)'); return line ? Array.from(line.y) : []; }"
)


def _tokens_chart_context(page, unlike: list | None = None) -> list:
    """The context-tokens line of the tokens chart, once drawn (and once it differs from ``unlike``)."""
    page.wait_for_function(
        f"(unlike) => {{ const y = ({CONTEXT_LINE})(); return y.length > 0 && JSON.stringify(y) !== JSON.stringify(unlike); }}",
        arg=unlike or [],
    )
    return page.evaluate(CONTEXT_LINE)


def test_move_a_slider_with_the_keyboard_and_see_the_chart_update(page):
    before = _tokens_chart_context(page)
    slider = page.get_by_test_id("stSlider").filter(has_text="keep_last_n").get_by_role("slider")
    slider.focus()
    for _ in range(4):  # 5 → 1
        page.keyboard.press("ArrowLeft")
    idle(page)
    expected = replay_figures(
        LEAVE,
        "stack: [ToolOutputClipPolicy: {max_chars: 8000}, ToolEvictionPolicy: {keep_last_n: 1}, CompactionPolicy: {max_input_tokens: 80000}]",
    )
    wait_for_metric(page, "Stubs created", str(expected["stubs_created"]))
    after = _tokens_chart_context(page, unlike=before)
    assert len(after) == len(before) == 26
    assert after != before and sum(after) < sum(before)


def test_download_the_config_and_replay_it_with_the_cli(page, tmp_path):
    page.get_by_test_id("stSlider").filter(has_text="keep_last_n").get_by_role("slider").focus()
    page.keyboard.press("ArrowLeft")  # keep_last_n 4: a stack that differs from the defaults
    idle(page)
    page.get_by_role("tab", name="Export").click()
    with page.expect_download() as download:
        page.get_by_test_id("stDownloadButton").filter(has_text="Stack config (YAML)").click()
    config_path = tmp_path / "stack.yaml"
    download.value.save_as(config_path)
    text = config_path.read_text()
    assert "- ToolEvictionPolicy: {keep_last_n: 4}" in text and "api_key" not in text
    assert load_config(config_path).to_yaml() == text  # the file round-trips unchanged

    with page.expect_download() as download:
        page.get_by_test_id("stDownloadButton").filter(has_text="Per-turn figures (CSV)").click()
    page_csv = tmp_path / "page.csv"
    download.value.save_as(page_csv)

    cli_csv = tmp_path / "cli.csv"
    assert cli(["replay", str(LEAVE), "--config", str(config_path), "--csv", str(cli_csv)]) == 0
    page_figures = pd.read_csv(page_csv)
    assert len(page_figures) == 26
    pd.testing.assert_frame_equal(page_figures, pd.read_csv(cli_csv))


def test_a_hostile_config_shows_no_environment_and_sends_no_key(page, tmp_path):
    plugins = tmp_path / "plugins.yaml"
    plugins.write_text('version: 1\nplugins: ["os:environ"]\nstack: [SlidingWindowPolicy]\n')
    upload(page, "Import a stack config", plugins)
    expect(page.get_by_test_id("stMain")).to_contain_text("plugins cannot be loaded from an uploaded config")
    sidebar = page.get_by_test_id("stSidebar")
    with ChatStub() as stub:
        foreign = tmp_path / "foreign.yaml"
        foreign.write_text(
            "version: 1\nstack: [CompactionPolicy: {max_input_tokens: 1000, keep_recent: 4}]\n"
            f"summarizer: {{kind: openai, model: m, base_url: '{stub.base_url}'}}\n"
        )
        upload(page, "Import a stack config", foreign)
        page.get_by_text("which this server does not trust with its own key").first.wait_for()
        idle(page)
        html = page.content()
        requests = list(stub.headers)
    assert SERVER_KEY not in html and "_Environ" not in html and "environ(" not in html
    assert all(SERVER_KEY not in str(h) for h in requests)  # none carries it (none is sent at all)
    assert requests == []
    expect(sidebar).to_contain_text("127.0.0.1")  # the notice names the host


def test_transcript_text_is_shown_as_text_not_markdown(page, tmp_path):
    hostile = tmp_path / "hostile.json"
    name = (
        "![pixel](http://127.0.0.1:9/pixel.png) [click](http://127.0.0.1:9/x) :red[alarm]"
        " www.example.com ops@example.com"
    )
    messages = [
        {"role": "user", "content": "hello\n\n![pixel](http://127.0.0.1:9/body.png)"},
        {"role": "assistant", "content": "<img src='http://127.0.0.1:9/html.png'> done"},
    ]
    hostile.write_text(json.dumps({"name": name, "messages": messages}))
    upload(page, "Upload transcripts", hostile)
    page.get_by_role("tab", name="Side by side").click()
    expect(page.get_by_test_id("stMain")).to_contain_text("Raw history (")  # the cards are drawn
    idle(page)
    sidebar = page.get_by_test_id("stSidebar")
    shown = sidebar.inner_text().replace(WORD_JOINER, "")  # the joiner that keeps URLs unlinked
    assert name in shown
    main = page.get_by_test_id("stMain").inner_text().replace(WORD_JOINER, "")
    assert "![pixel](http://127.0.0.1:9/body.png)" in main  # the message, in its card
    assert page.locator("img[src*='127.0.0.1:9']").count() == 0
    assert page.locator("a").filter(has_text=re.compile("127.0.0.1|www|@")).count() == 0


CODE_REPLY = """Look at django/db/__init__.py and every *.py under tests/: it's "quoted" & <b>bold</b>.
    def f(x):
        return x * 2  # a long line ----------------------------------------------------------------------------------- end
- first item
- second item

1. one
Value: 27 and it's 27"""


def test_message_text_in_side_by_side_reads_character_for_character(page, tmp_path):
    session = tmp_path / "code.json"
    call = {"name": "bash", "arguments": json.dumps({"cmd": "grep -rn 'x' *.py __init__.py"})}
    messages = [
        {"role": "user", "content": "find it"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": call}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": CODE_REPLY},
        {"role": "assistant", "content": "done: __init__.py has 27"},
    ]
    session.write_text(json.dumps({"name": "code", "messages": messages}))
    upload(page, "Upload transcripts", session)
    page.get_by_role("tab", name="Side by side").click()
    page.get_by_test_id("stSlider").filter(has_text="Turn").get_by_role("slider").press("End")
    card = page.locator(".msg").filter(has_text="· tool ·").first  # it recorded no name: none is shown
    expect(card).to_be_visible()
    card.locator("details").evaluate("d => d.open = true")
    assert card.locator("details > div").inner_text() == CODE_REPLY
    assert card.locator(".body").inner_text() == CODE_REPLY[:240] + "…"
    caller = page.locator(".msg").filter(has_text="assistant").first
    assert "→ bash(" + call["arguments"] + ")" in caller.inner_text()
    wide = card.evaluate("c => c.scrollWidth <= c.clientWidth")  # long lines wrap inside the card
    assert wide
    assert card.locator(".body *, details > div *").count() == 0  # text only: no markdown made of it


_choose = choose


# where the first cache-break marker of the cost chart is drawn, in page pixels
BREAK_MARKER = """() => {
  const plot = Array.from(document.querySelectorAll('.js-plotly-plot')).find(
    p => p.layout && p.layout.title && p.layout.title.text.includes('Cost per turn (USD)'));
  if (!plot || !plot._fullData) return null;
  const trace = plot._fullData.find(t => t.name.startsWith('cache break'));
  if (!trace) return null;
  const box = plot.getBoundingClientRect(), xa = plot._fullLayout.xaxis, ya = plot._fullLayout.yaxis;
  return {x: box.left + xa._offset + xa.l2p(trace.x[0]), y: box.top + ya._offset + ya.l2p(trace.y[0]),
          breaks: trace.x.length};
}"""


def test_priced_at_anthropic_the_headline_flips_from_lost_to_saved_with_batched_eviction(page):
    from playground.ui.figures import dollars

    upload(page, "Upload transcripts", REAL)
    _choose(page, "Model", "claude-sonnet-4-5")
    settings = "model: claude-sonnet-4-5\ncontext_window: 200000\n"
    default = replay_figures(
        REAL,
        settings + DEFAULT_STACK,
    )
    assert default["saved_usd"] < 0 < default["saved_pct"]
    wait_for_metric(page, "Money lost", dollars(-default["saved_usd"]))
    idle(page)  # the metric is in the fold: its text comes before the charts are drawn again
    expect(page.get_by_text("its 58 cache breaks write the cache again", exact=False)).to_be_visible()
    expect(page.get_by_test_id("stMain")).to_contain_text("claude-sonnet-4-5 at Anthropic")

    page.locator(".st-key-chart_cost:not([data-stale='true'])").scroll_into_view_if_needed()
    page.wait_for_function(f"() => ({BREAK_MARKER})() !== null")
    page.wait_for_timeout(500)
    marker = page.evaluate(BREAK_MARKER)
    assert marker["breaks"] == default["cache_breaks"] == 58
    page.mouse.move(marker["x"] - 30, marker["y"] - 30)
    page.mouse.move(marker["x"], marker["y"], steps=10)
    hover = page.locator(".st-key-chart_cost .hoverlayer")
    expect(hover).to_contain_text("cache break at message", timeout=10_000)
    expect(hover).to_contain_text("ToolEvictionPolicy")

    preset = page.get_by_test_id("stMain").get_by_test_id("stSelectbox").filter(has_text="Preset")
    # scrolled back up from the charts, the page settles (charts taking clicks re-lay out on
    # scroll) before a person's click; a click in the same instant only focuses the box
    preset.scroll_into_view_if_needed()
    page.wait_for_timeout(1000)
    preset.click()
    page.get_by_role("option", name="Playground · Cache-friendly (batched eviction)", exact=True).click()
    idle(page)
    batched = replay_figures(
        REAL,
        settings
        + "stack: [ToolOutputClipPolicy: {max_chars: 8000}, ToolEvictionPolicy: {keep_last_n: 5, min_freed_tokens: 5000}, CompactionPolicy: {max_input_tokens: 80000}]",
    )
    assert batched["saved_usd"] > 0
    wait_for_metric(page, "Money saved", dollars(batched["saved_usd"]))


# where a turn of the "Tokens sent per turn" chart's stack line is drawn, in page pixels
TOKENS_POINT = """(turn) => {
  const plot = Array.from(document.querySelectorAll('.js-plotly-plot')).find(
    p => p.layout && p.layout.title && p.layout.title.text.includes('Tokens sent per turn'));
  if (!plot || !plot._fullData) return null;
  const trace = plot._fullData.find(t => t.name === 'context (stack)');
  const i = trace.x.indexOf(turn);
  const box = plot.getBoundingClientRect(), xa = plot._fullLayout.xaxis, ya = plot._fullLayout.yaxis;
  return {x: box.left + xa._offset + xa.l2p(trace.x[i]), y: box.top + ya._offset + ya.l2p(trace.y[i])};
}"""


def test_a_click_on_a_chart_point_or_an_event_row_opens_that_turn(page):
    tokens = page.locator(".st-key-chart_tokens")
    tokens.scroll_into_view_if_needed()
    page.wait_for_function(f"() => ({TOKENS_POINT})(17) !== null")
    point = page.evaluate(f"({TOKENS_POINT})(17)")
    page.mouse.move(point["x"], point["y"])
    page.mouse.click(point["x"], point["y"])
    idle(page)  # the click opens the side-by-side view at that turn
    expect(page.get_by_text("Turn 17: the request before recorded reply")).to_be_visible()

    page.get_by_role("tab", name="Events").click()
    idle(page)  # the Events view runs when opened: wait until it is drawn and still
    grid = page.get_by_test_id("stDataFrame").first
    expect(grid).to_be_visible()
    grid.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    config = parse_config(DEFAULT_STACK)
    result = replay(read_path(LEAVE)[0], config.stack, config.settings)
    first = int(events_frame(result, turns_frame(result)).iloc[0]["turn"])
    assert first != 17
    box = grid.bounding_box()
    page.mouse.click(box["x"] + 12, box["y"] + 35 + 17)  # the first row's selection box
    idle(page)
    expect(page.get_by_text(f"Turn {first}: the request before recorded reply")).to_be_visible()


def test_adding_a_fourth_policy_keeps_the_panels_open_and_buttons_read_as_words(page):
    # the stack's panels (the results' "All figures" fold is not one of them)
    panels = (
        page.get_by_test_id("stMain")
        .locator("[data-testid='stExpander'] details")
        .filter(has_not_text="All figures")
    )
    expect(panels).to_have_count(3)
    assert all(p.get_attribute("open") is not None for p in panels.all())  # a short stack: all open
    page.get_by_role("button", name="Add", exact=True).click()
    idle(page)
    expect(panels).to_have_count(4)
    assert [p.get_attribute("open") is not None for p in panels.all()] == [True] * 4  # the new one too
    assert page.get_by_role("button", name="Remove", exact=True).count() == 4  # not "delete Remove"


def test_on_a_phone_the_results_come_before_the_editor(browser, app_url):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    phone = context.new_page()
    phone.goto(app_url)
    phone.get_by_text("Cost with this stack", exact=True).wait_for(timeout=30_000)
    idle(phone)
    figures = phone.get_by_test_id("stMetric").first.bounding_box()
    editor = phone.get_by_role("heading", name="Policy stack").bounding_box()
    context.close()
    assert figures["y"] < editor["y"]


def test_download_the_langchain_export_of_a_langchain_preset(page, tmp_path):
    preset = page.get_by_test_id("stMain").get_by_test_id("stSelectbox").filter(has_text="Preset")
    preset.click()
    page.get_by_role(
        "option",
        name="LangChain 1.x: summarization (docs example: 4,000 tokens, keep 20 messages)",
        exact=True,
    ).click()
    idle(page)
    _choose(page, "Add a policy", "ToolOutputClipPolicy")  # a policy LangChain has no middleware for
    page.get_by_role("button", name="Add", exact=True).click()
    idle(page)
    page.get_by_role("tab", name="Export").click()
    idle(page)  # the tab's first draw: a pick while it redraws finds the list moving
    _choose(page, "Framework", "LangChain v1 middleware (Python)")
    name = "ToolOutputClipPolicy"
    warning = page.get_by_test_id("stAlert").filter(has_text="Not expressible in LangChain")
    expect(warning).to_contain_text(f"{name}: left out (nothing in langchain does it)")  # before the download
    path = downloaded(page, "middleware_langchain.py", tmp_path)
    text = path.read_text()
    assert text.startswith(
        "# A context-policy stack exported by the Context Policy Playground for LangChain v1."
    )
    assert "# Written for langchain==1.5.2" in text
    assert f"# - {name}: left out (nothing in langchain does it)" in text
    middleware = text.split("middleware = [\n", 1)[1].split("\n]\n", 1)[0]
    assert (
        middleware.strip().startswith("SummarizationMiddleware(") and 'trigger=("tokens", 4000)' in middleware
    )
    compile(text, str(path), "exec")


# each line of the compare view's context-tokens chart: name -> its y values
COMPARE_LINES = """() => {
  const plot = Array.from(document.querySelectorAll('.js-plotly-plot')).find(
    p => p.layout && p.layout.title && p.layout.title.text.includes('Context tokens per turn'));
  if (!plot || !plot._fullData) return null;
  return Object.fromEntries(plot._fullData.map(t => [t.name, Array.from(t.y)]));
}"""


def test_save_two_candidates_and_compare_them_on_the_chart_and_the_table(page):
    page.get_by_role("button", name="Save the stack as a candidate").click()
    idle(page)
    expect(page.locator(".st-key-candidate_0 input")).to_have_value("pyagentic recommended")
    _choose(page, "Add a built-in stack as a candidate", "Playground · Cache-friendly (batched eviction)")
    page.get_by_role("tab", name="Compare").click()
    idle(page)
    page.wait_for_function(f"() => ({COMPARE_LINES})() !== null")
    lines = page.evaluate(COMPARE_LINES)
    default = replay_frame(LEAVE, DEFAULT_STACK)
    batched = replay_frame(
        LEAVE,
        "stack: [ToolOutputClipPolicy: {max_chars: 8000}, "
        "ToolEvictionPolicy: {keep_last_n: 5, min_freed_tokens: 5000}, "
        "CompactionPolicy: {max_input_tokens: 80000}]",
    )
    # the stack being edited is the candidate saved from it: one line, named by both (issue 47, 2)
    assert set(lines) == {
        "raw history",
        "stack being edited = pyagentic recommended",
        "Cache-friendly (batched eviction)",
    }
    expect(page.get_by_test_id("stMain")).to_contain_text(
        "stack being edited and pyagentic recommended give the same figures on this session"
    )
    legends = page.evaluate(
        """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
             .filter(p => p._fullData && p.layout.title.text.match(/per turn|Cumulative/))
             .map(p => p._fullData.filter(t => t.showlegend).length)"""
    )
    assert legends == [3, 0, 0, 0]  # one legend for the four charts
    assert lines["stack being edited = pyagentic recommended"] == list(default["context_tokens"])
    assert lines["Cache-friendly (batched eviction)"] == list(batched["context_tokens"])
    assert lines["raw history"] == list(default["raw_tokens"])
    table = page.locator(".st-key-compare_table table")
    # the table is drawn after the chart: wait for it before reading it
    expect(table.locator("thead")).to_contain_text("Cache-friendly (batched eviction)")
    headers = table.locator("thead th").all_inner_texts()
    assert "pyagentic recommended (baseline)" in headers and "Cache-friendly (batched eviction)" in headers
    row = table.locator("tbody tr").filter(has_text="input tokens billed")
    cells = row.locator("td").all_inner_texts()
    billed = int(default["context_tokens"].sum()), int(batched["context_tokens"].sum())
    delta = billed[1] - billed[0]
    assert cells[1] == f"{billed[0]:,}" and cells[2] == f"{billed[1]:,} (+{delta:,})"
    # the fewest tokens billed is marked best in its row (the stack being edited ties with its copy)
    weights = row.locator("td").evaluate_all("(tds) => tds.map(td => getComputedStyle(td).fontWeight)")
    assert weights == ["600", "600", "400"]
    page.get_by_role("button", name="Load Cache-friendly (batched eviction)").click()
    idle(page)
    expect(page.get_by_text("From candidate Cache-friendly (batched eviction)")).to_be_visible()
    wait_for_metric(page, "Input tokens billed", f"{billed[1]:,}")


# where the point of a sweep chart whose hover names ``label`` is drawn, in page pixels
SWEEP_POINT = """(label) => {
  const plot = Array.from(document.querySelectorAll('.js-plotly-plot')).find(
    p => p.layout && p.layout.title && p.layout.title.text.includes(' against '));
  if (!plot || !plot._fullData) return null;
  for (const trace of plot._fullData) {
    if (!trace.text || trace.mode !== 'markers') continue;
    const i = Array.from(trace.text).indexOf(label);
    if (i < 0) continue;
    const box = plot.getBoundingClientRect(), xa = plot._fullLayout.xaxis, ya = plot._fullLayout.yaxis;
    return {x: box.left + xa._offset + xa.l2p(trace.x[i]), y: box.top + ya._offset + ya.l2p(trace.y[i]),
            trace: trace.name};
  }
  return null;
}"""


def _pick(page, label: str, option: str) -> None:
    """Pick ``option`` in the select box ``label``: typed to filter the list, then clicked
    there (Enter pressed before the list has filtered picks nothing, and the typed text
    alone would read as the value until the box loses focus), and seen to take."""
    box = page.get_by_role("combobox", name=label)
    box.click()
    box.fill(option)
    page.get_by_role("option", name=option, exact=True).click()
    idle(page)
    expect(box).to_have_value(option)


def _sweep_policy(page, option: str) -> None:
    """Open Sweep and pick the policy to sweep, and its parameter keep_last_n."""
    page.get_by_role("tab", name="Sweep").click()
    idle(page)
    _pick(page, "Policy to sweep", option)
    _pick(page, "Parameter to sweep", "keep_last_n")


def test_sweep_keep_last_n_and_click_a_front_point_to_load_it(page):
    _sweep_policy(page, "2. ToolEvictionPolicy")
    expect(page.get_by_role("combobox", name="Policy to sweep")).to_have_value("2. ToolEvictionPolicy")
    expect(page.get_by_role("combobox", name="Parameter to sweep")).to_have_value("keep_last_n")
    values = page.get_by_role("textbox", name="Values")
    expect(values).to_be_visible()
    values.fill("1:15")
    values.press("Enter")
    idle(page)
    page.get_by_role("button", name="Run the sweep (15 points)").click()
    # the points are what the user reads: wait for them (a full run once saw the chart drawn
    # but not yet the "15 points in ..." line above it)
    page.locator(".st-key-sweep_chart").wait_for(timeout=120_000)
    idle(page)
    page.locator(".st-key-sweep_chart").scroll_into_view_if_needed()
    page.wait_for_function(f"() => ({SWEEP_POINT})('2.keep_last_n = 2') !== null", timeout=60_000)
    point = page.evaluate(f"({SWEEP_POINT})('2.keep_last_n = 2')")
    assert point["trace"] == "on the front"  # fewer results kept: cheaper, and more facts lost
    assert page.evaluate(f"({SWEEP_POINT})('2.keep_last_n = 8')")["trace"] == "dominated"
    assert all(page.evaluate(f"({SWEEP_POINT})('2.keep_last_n = {n}')") for n in range(1, 16))  # all 15 ran
    page.mouse.move(point["x"], point["y"])
    page.mouse.click(point["x"], point["y"])
    idle(page)
    expect(page.get_by_text("Loaded keep_last_n = 2 into the editor.")).to_be_visible()
    slider = page.get_by_test_id("stSlider").filter(has_text="keep_last_n")
    expect(slider.get_by_role("slider")).to_have_attribute("aria-valuetext", "2")
    expected = replay_figures(
        LEAVE,
        "stack: [ToolOutputClipPolicy: {max_chars: 8000}, ToolEvictionPolicy: {keep_last_n: 2}, "
        "CompactionPolicy: {max_input_tokens: 80000}]",
    )
    wait_for_metric(page, "Input tokens billed", f"{expected['billed_context_tokens']:,}")
    # the cost axis fits the points, with the raw history drawn as a reference line
    axis = page.evaluate(SWEEP_AXIS)
    assert axis["range"][0] > 0 and "raw history" in axis["annotations"]
    # a stack picked under the sweep: its result and its note describe another stack, and go
    preset = page.get_by_test_id("stMain").get_by_test_id("stSelectbox").filter(has_text="Preset")
    preset.click()
    page.keyboard.type("Sliding window of 50")  # the list draws only the options in view
    page.get_by_role("option", name="Playground · Sliding window of 50", exact=True).click()
    idle(page)
    expect(page.locator(".st-key-sweep_chart")).to_have_count(0)
    expect(page.get_by_text("Loaded keep_last_n = 2 into the editor.")).to_have_count(0)


SWEEP_AXIS = """() => {
  const plot = document.querySelector('.st-key-sweep_chart .js-plotly-plot');
  return {range: Array.from(plot._fullLayout.xaxis.range),
          annotations: (plot.layout.annotations || []).map(a => a.text)};
}"""


def test_upload_a_multi_run_file_sort_the_corpus_by_facts_lost_and_open_the_worst(page, tmp_path):
    from tests.builders import runs_of_samples

    runs = tmp_path / "runs.json"
    runs.write_bytes(
        runs_of_samples("ops_incidents_multi.json", "leave_request_hr.json", "coding_agent_bugfix.json")
    )
    upload(page, "Upload transcripts", runs)
    page.get_by_role("tab", name="Corpus").click()
    idle(page)
    expect(page.get_by_text("5 uploaded sessions, each under 1 stack(s)")).to_be_visible(timeout=30_000)
    expect(page.locator(".st-key-corpus_table [data-testid=stDataFrame]")).to_be_visible()
    # at 1440 px both tables fit the page: no column hidden behind a horizontal scroll
    for table in (".st-key-corpus_summary", ".st-key-corpus_table"):
        widths = page.evaluate(TABLE_WIDTHS, table)
        assert widths and widths["scroll"] <= widths["client"] + 1, (table, widths)
    boxes = page.locator(".js-plotly-plot")
    expect(boxes).to_have_count(2)
    opener = page.get_by_role("combobox", name="Session to open")
    _choose(page, "Sort by", "tokens saved %")
    expect(opener).to_have_value(re.compile("incident"))  # the ops runs save the least
    _choose(page, "Sort by", "facts lost")
    expect(opener).to_have_value("#3 leave-request — upload: runs.json")
    page.get_by_role("button", name="Open this session").click()
    idle(page)
    session = page.get_by_test_id("stSidebar").get_by_role("combobox", name="Session", exact=True)
    expect(session).to_have_value("#3 leave-request — upload: runs.json")
    expected = replay_figures(LEAVE, DEFAULT_STACK)
    wait_for_metric(page, "Facts lost", str(expected["distinct_facts_lost"]))
    assert page.get_by_role("tab", name="Charts").get_attribute("aria-selected") == "true"


# a data frame's scrolling area: how wide its columns are against how wide it is shown
TABLE_WIDTHS = """(key) => {
  const scroller = document.querySelector(key + ' [data-testid=stDataFrame] .dvn-scroller');
  return scroller ? {scroll: scroller.scrollWidth, client: scroller.clientWidth} : null;
}"""
CLAUDE_CODE = ROOT / "tests" / "fixtures" / "formats" / "claude-code" / "sniffly_d3ad4cdc.jsonl"
# where the last point of the cumulative cost chart's "as recorded" line is drawn, in page pixels
RECORDED_POINT = """() => {
  const plot = Array.from(document.querySelectorAll('.js-plotly-plot')).find(
    p => p.layout && p.layout.title && p.layout.title.text.includes('Cumulative cost (USD)'));
  if (!plot || !plot._fullData) return null;
  const trace = plot._fullData.find(t => t.name === 'as recorded');
  if (!trace) return null;
  const n = trace.x.length - 1, box = plot.getBoundingClientRect();
  const xa = plot._fullLayout.xaxis, ya = plot._fullLayout.yaxis;
  return {x: box.left + xa._offset + xa.l2p(trace.x[n]), y: box.top + ya._offset + ya.l2p(trace.y[n])};
}"""


def test_a_claude_code_session_is_priced_as_recorded_beside_the_stack_and_the_raw_history(page):
    """Upload a real Claude Code log: it replays as the model it records, the headline reads
    "As recorded $X", and the charts draw the recorded line beside the stack and the raw one."""
    from playground.stacks.config import Config
    from playground.ui.figures import dollars

    upload(page, "Upload transcripts", CLAUDE_CODE)
    (session,) = read_path(CLAUDE_CODE)
    # a Claude Code upload opens with the agent's own policy as the stack
    expect(page.get_by_test_id("stMain")).to_contain_text("From preset Claude Code: auto-compact")
    settings = Config().settings_for(session)
    figures = totals(turns_frame(replay(session, PRESETS["Claude Code: auto-compact"], settings)))
    main = page.get_by_test_id("stMain")
    expect(main).to_contain_text(f"As recorded {dollars(figures['recorded_cost_usd'])}", timeout=30_000)
    expect(main).to_contain_text(f"this stack {dollars(figures['cost_usd'])}")
    expect(main).to_contain_text("hidden prefix of")
    expect(main).to_contain_text("Priced as claude-sonnet-4-0 at Anthropic")  # the model it records

    idle(page)
    page.get_by_test_id("stCheckbox").filter(has_text="More charts").click()  # the cumulative cost
    idle(page)
    expect(page.locator(".st-key-chart_cumulative")).to_be_attached(timeout=30_000)
    page.locator(".st-key-chart_cumulative").scroll_into_view_if_needed()
    page.wait_for_function(f"() => ({RECORDED_POINT})() !== null")
    page.wait_for_timeout(500)
    point = page.evaluate(RECORDED_POINT)
    page.mouse.move(point["x"] - 30, point["y"] - 30)
    page.mouse.move(point["x"], point["y"], steps=10)
    hover = page.locator(".st-key-chart_cumulative .hoverlayer")
    expect(hover).to_contain_text("as recorded", timeout=10_000)
    expect(hover).to_contain_text("raw history")


def test_a_refresh_keeps_the_stack_and_its_address_opens_it_in_another_browser(page, browser):
    preset = page.get_by_test_id("stMain").get_by_test_id("stSelectbox").filter(has_text="Preset")
    preset.click()
    page.keyboard.type("Sliding window of 50")
    page.get_by_role("option", name="Playground · Sliding window of 50", exact=True).click()
    idle(page)
    page.wait_for_function("() => location.search.includes('stack=')")
    address = page.url

    def stack_of(p) -> list[str]:
        p.get_by_text("Cost with this stack", exact=True).wait_for()
        idle(p)
        return p.get_by_test_id("stMain").get_by_test_id("stExpander").all_inner_texts()

    page.reload()
    expanders = stack_of(page)
    assert any("SlidingWindowPolicy" in e for e in expanders)
    assert not any("ToolEvictionPolicy" in e for e in expanders)
    other = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
    other.goto(address)  # a link sent to someone else
    assert any("SlidingWindowPolicy" in e for e in stack_of(other))
    other.context.close()


COMPACTING = (
    "model: claude-sonnet-4-5\ncontext_window: 200000\n"
    "stack: [ToolOutputClipPolicy: {max_chars: 8000}, ToolEvictionPolicy: {keep_last_n: 5},"
    " CompactionPolicy: {max_input_tokens: 20000}]"
)


def _dollars_in(text: str, before: str) -> float:
    """The dollar figure that follows ``before`` in the headline's text."""
    match = re.search(re.escape(before) + r" \$([0-9,]+\.[0-9]+)", text)
    assert match, f"no dollar figure after {before!r} in {text!r}"
    return float(match.group(1).replace(",", ""))


def test_the_red_headline_adds_up_and_side_by_side_names_the_compaction_that_broke_the_cache(page):
    """Issue 33, 4 and 44, 11: the reason's parts, each with its dollars, add up to the
    difference the headline states, and at a compaction turn the break names the compaction,
    not only the eviction before it."""
    from playground.stacks.config import address_of

    page.goto(page.url.split("?")[0] + "?stack=" + address_of(parse_config(COMPACTING)))
    page.get_by_text("Cost with this stack", exact=True).wait_for()
    upload(page, "Upload transcripts", REAL)
    figures = replay_figures(REAL, COMPACTING)
    assert figures["saved_usd"] < 0 and figures["compactions"] > 0
    from playground.ui.figures import dollars

    wait_for_metric(page, "Cost with this stack", dollars(figures["cost_usd"]))  # the upload's replay
    headline = (
        page.get_by_test_id("stMarkdownContainer")
        .filter(has_text="This stack costs")
        .filter(has_text="The difference:")
    )
    expect(headline).to_be_visible()
    text = headline.inner_text()
    more = _dollars_in(text, "This stack costs")
    parts = re.findall(r"\(([+−])\$([0-9.,]+)\)", text.split("The difference:")[1])
    assert len(parts) >= 3 and "summaries" in text  # reads, writes, uncached input and the summaries
    shown = sum(float(value.replace(",", "")) * (1 if sign == "+" else -1) for sign, value in parts)
    assert abs(shown - more) <= 0.0001 * (len(parts) + 1)  # the shown figures, each rounded
    kinds = ("read", "write", "uncached", "output")
    exact = sum(figures[f"difference_{k}_usd"] for k in kinds) + figures["summary_cost_usd"]
    assert abs(exact + figures["saved_usd"]) < 1e-5

    page.get_by_role("tab", name="Side by side").click()
    idle(page)
    _choose(page, "Step to", "compaction")
    page.get_by_role("button", name="next ▶").click()
    idle(page)
    frame = replay_frame(REAL, COMPACTING)
    compacted = int(frame.loc[frame["compactions"] > 0, "turn"].iloc[0])
    expect(page.get_by_text(f"Turn {compacted}: the request before recorded reply")).to_be_visible()
    line = page.locator(".cache-break")
    expect(line).to_contain_text("CompactionPolicy (compact)")


def test_the_export_of_the_default_stack_is_its_nearest_with_both_figures_before_the_download(page, tmp_path):
    """Issue 33, 7: LangChain gets middleware, not an empty list, and the page says what the
    approximation costs on the session before the download; the Anthropic file is a body."""
    page.get_by_role("tab", name="Export").click()
    idle(page)
    _choose(page, "Framework", "LangChain v1 middleware (Python)")
    idle(page)
    warning = page.get_by_test_id("stAlert").filter(has_text="Not expressible in LangChain")
    expect(warning).to_contain_text("ToolEvictionPolicy: replaced by ClearToolUsesPolicy")
    expect(warning).to_contain_text("CompactionPolicy: replaced by LangChainSummarizationPolicy")
    yours = page.get_by_test_id("stMetric").filter(has_text="Your stack")
    exported = page.get_by_test_id("stMetric").filter(has_text="Exported stack")
    expect(yours).to_contain_text("lost")
    expect(exported).to_contain_text("lost")
    expect(page.get_by_text("exported stack: ", exact=False).first).to_be_visible()
    path = downloaded(page, "middleware_langchain.py", tmp_path)
    text = path.read_text()
    assert "ClearToolUsesEdit(" in text and "SummarizationMiddleware(" in text
    assert "middleware = []" not in text
    compile(text, str(path), "exec")

    _choose(page, "Framework", "Anthropic Messages API context_management (JSON)")
    idle(page)
    path = downloaded(page, "context_management_anthropic.json", tmp_path)
    body = json.loads(path.read_text())
    assert set(body) == {"betas", "context_management"}  # a body the SDK sends: no notes inside
    assert [e["type"] for e in body["context_management"]["edits"]] == [
        "clear_tool_uses_20250919",
        "compact_20260112",
    ]


def test_recommend_a_stack_see_progress_load_it_into_the_editor_and_export_it(page, tmp_path):
    """Issue 34: the Recommend tab searches on the page's session off the script thread."""
    page.get_by_role("tab", name="Recommend").click()
    idle(page)
    trials = page.get_by_label("Stacks to propose")
    trials.fill("60")
    trials.press("Enter")
    idle(page)
    page.get_by_role("button", name="Recommend a stack").click()
    expect(page.get_by_text(re.compile(r"\d+ of \d+ stacks tried"))).to_be_visible(timeout=20_000)
    expect(page.get_by_role("button", name="Cancel")).to_be_visible()
    answer = page.get_by_text(re.compile(r"^Recommended \("))
    expect(answer).to_be_visible(timeout=120_000)
    expect(page.get_by_text("Why it wins", exact=False)).to_be_visible()
    # every value of the answer is said: Name(param=value, ...) → ...
    said = answer.inner_text().split("): ", 1)[1]
    parts = re.findall(r"(\w+Policy)\(([^)]*)\)", said)
    assert parts and " → ".join(f"{n}({v})" for n, v in parts) == said
    stack = [name for name, _ in parts]
    values = {
        (name, key): value.replace(",", "")
        for name, args in parts
        for key, value in (pair.split("=", 1) for pair in args.split(", ") if pair)
    }
    assert values, "the answer names no value"
    # the budget is drawn on the chart of every stack tried
    chart = page.locator(".st-key-recommend_chart")
    chart.scroll_into_view_if_needed()
    expect(chart.get_by_text("budget: 0 facts lost")).to_be_visible()
    expect(page.get_by_text(re.compile(r"The chart draws the \d+ that ran to the end"))).to_be_visible()
    page.get_by_role("button", name="Load it into the editor").click()
    idle(page)
    expect(page.get_by_text("From recommendation", exact=False)).to_be_visible()
    expanders = page.get_by_test_id("stMain").get_by_test_id("stExpander").all_inner_texts()
    assert [n for n in stack if any(n in e for e in expanders)] == stack  # the editor holds the answer
    from urllib.parse import parse_qs, urlparse

    from playground.stacks.config import config_at

    page.wait_for_function("() => new URL(location.href).searchParams.get('stack') !== null")
    loaded = config_at(parse_qs(urlparse(page.url).query)["stack"][0])  # the stack the page now holds
    held = {(spec.name, key): str(value) for spec in loaded.stack for key, value in spec.params.items()}
    assert {k: held.get(k) for k in values} == values  # with every value the answer said
    page.get_by_role("tab", name="Export").click()
    idle(page)
    _choose(page, "Framework", "pyagentic (Python)")
    idle(page)
    path = downloaded(page, "policies_pyagentic.py", tmp_path)
    text = path.read_text()
    compile(text, str(path), "exec")
    for name in stack:
        assert name in text or f"- {name}:" in text  # exported, or listed as what pyagentic lacks


def test_recommend_on_a_compacting_session_answers_against_the_agent_s_own_policy_as_the_cli_does(page):
    """Issue 56: on a session whose agent compacted, the Recommend tab's default budget is no more
    loss than the agent's own policy, and its answer is the command line's, word for word."""
    from playground.analyses.recommend import recommend
    from playground.analyses.runner import default_workers

    upload(page, "Upload transcripts", ERK)
    page.get_by_role("tab", name="Recommend").click()
    idle(page)
    expect(page.get_by_text("No more loss than your agent's own policy", exact=True)).to_be_visible()
    trials = page.get_by_label("Stacks to propose")
    trials.fill("8")
    trials.press("Enter")
    idle(page)
    page.get_by_role("button", name="Recommend a stack").click()
    answer = page.get_by_text(re.compile(r"^Answer: "))
    expect(answer).to_be_visible(timeout=120_000)
    (session,) = read_path(ERK)
    expected = recommend(
        [session], [Config().settings_for(session)], None, trials=8, seed=0, workers=default_workers()
    )
    verdict = expected.verdict()
    assert answer.inner_text() == f"Answer: {verdict[0].upper() + verdict[1:]}."
    assert "your agent's own policy" in verdict
    expect(page.get_by_text("no more loss than your agent's own policy (", exact=False)).to_be_visible()


LAPTOP = {"width": 1366, "height": 768}


def test_on_a_laptop_the_answer_is_above_the_fold_and_the_rest_is_folded(browser, app_url):
    """Issue 47, 2: the cost against the raw history, what was lost and the one-line reason on
    the first screen, with the first chart; the other figures one click away."""
    from playground.ui.figures import dollars

    page = browser.new_context(viewport=LAPTOP).new_page()
    page.goto(app_url)
    page.get_by_text("Cost with this stack", exact=True).wait_for(timeout=60_000)
    idle(page)
    open_sample(page, LEAVE_SAMPLE)
    figures = replay_figures(LEAVE, DEFAULT_STACK)
    wait_for_metric(page, "Cost with this stack", dollars(figures["cost_usd"]))
    wait_for_metric(page, "Facts lost", str(figures["distinct_facts_lost"]))
    wait_for_metric(page, "Re-fetches", str(figures["refetches"]))
    reason = page.get_by_test_id("stMarkdownContainer").filter(has_text="This stack saves").first
    for shown in (*(metric(page, label) for label in ("Cost with this stack", "Facts lost")), reason):
        box = shown.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= LAPTOP["height"], box
    expect(reason).to_contain_text(f"This stack saves {dollars(figures['saved_usd'])}")
    chart = page.locator(".js-plotly-plot").first
    assert chart.bounding_box()["y"] < LAPTOP["height"]  # the first chart starts on the first screen
    details = page.get_by_text("Peak context", exact=True)
    expect(details).to_be_hidden()
    page.get_by_test_id("stExpander").filter(has_text="All figures").locator("summary").click()
    expect(details).to_be_visible()
    wait_for_metric(page, "Peak context", f"{figures['peak_context_tokens']:,}")
    page.context.close()


def test_a_refresh_after_an_upload_says_to_upload_it_again_and_shows_no_other_session(page):
    """Issue 47, 4: a refresh kept the stack but silently showed a sample in the upload's place."""
    upload(page, "Upload transcripts", REAL)
    expect(page.get_by_test_id("stSidebar")).to_contain_text("Now showing your upload")
    page.wait_for_function("() => location.search.includes('upload=1')")
    assert "astropy" not in page.url  # the address says an upload is showing, never which
    page.reload()
    main = page.get_by_test_id("stMain")
    expect(main).to_contain_text("This page showed an uploaded transcript, which a refresh does not keep")
    idle(page)
    expect(page.get_by_test_id("stMetric")).to_have_count(0)  # nothing of another session
    expect(page.get_by_test_id("stSidebar")).not_to_contain_text("A real session recorded by")
    page.get_by_role("button", name="Show the sample sessions instead").click()
    page.get_by_text("Cost with this stack", exact=True).wait_for()
    expect(page.get_by_test_id("stSidebar")).to_contain_text("A real session recorded by Claude Code")
    assert "upload=" not in page.url


ERK = (
    ROOT / "tests" / "fixtures" / "formats" / "claude-code-erk" / "a5c478e1-0d31-46d4-9fd6-3b6b203b3752.jsonl"
)


def test_a_claude_code_session_opening_with_a_command_reads_by_its_words_and_shows_its_prefix(page):
    """Issue 47, 3 and 4: named by its plain words, not <command-message> markup, and the hidden
    prefix the calibration finds is a block of its own in the composition chart and Side by side."""
    upload(page, "Upload transcripts", ERK)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar).to_contain_text("erk:plan-implement is running…")
    expect(sidebar).not_to_contain_text("<command")
    (session,) = read_path(ERK)
    config = parse_config("version: 1\n" + DEFAULT_STACK, "default.yaml")
    frame = turns_frame(replay(session, config.stack, Config().settings_for(session)))
    head = int(frame["tokens_head"].iloc[0])
    assert head > 20_000
    idle(page)
    page.get_by_test_id("stCheckbox").filter(has_text="More charts").click()  # the composition chart
    idle(page)
    page.wait_for_function(
        """() => Array.from(document.querySelectorAll('.js-plotly-plot')).some(
             p => p._fullData && p._fullData.some(t => t.name === 'prefix (system prompt, tools)'))"""
    )
    page.get_by_role("tab", name="Side by side").click()
    idle(page)
    expect(page.locator(".request-head").first).to_contain_text(f"prefix: {head:,} tokens")


def test_a_compacting_claude_code_session_leads_with_its_agent_s_own_policy_and_reports_each_compaction(page):
    """Issue 55: a real session whose agent compacted opens with the agent's own policy as the
    stack; the lead reads it replayed beside what the agent paid, and the Charts tab tables the
    compaction the agent made, at the call the file records."""
    from playground.analyses.own_policy import own_policy
    from playground.measures.evaluate import Scenario
    from playground.ui.figures import dollars

    upload(page, "Upload transcripts", ERK)  # a real Claude Code 2.0.67 session that compacted once
    (session,) = read_path(ERK)
    own = own_policy(session, Scenario().for_session(session, False))
    assert own is not None and own.cost_usd is not None
    main = page.get_by_test_id("stMain")
    expect(main).to_contain_text("From preset Claude Code: auto-compact", timeout=30_000)
    wait_for_metric(page, "Agent's own policy", dollars(own.cost_usd))
    expect(main).to_contain_text("This stack is your agent's own policy.")
    expect(main).to_contain_text("no residual; 1 compaction where the agent made 1")
    # the compaction report, from the file's own figures
    report = page.locator(".st-key-compactions_report")
    report.scroll_into_view_if_needed()
    expect(main).to_contain_text("Your agent's own compactions")
    expect(main).to_contain_text("The agent compacted 1 time")
    expect(report).to_contain_text("155,395")  # the agent's own count (preTokens) at call 74
    expect(report).to_contain_text("74")
    # another stack is said against the agent's own policy, not against the raw history
    choose(page, "Preset", "Playground · Cache-friendly (batched eviction)")
    idle(page)
    expect(main).to_contain_text("than your agent's own policy", timeout=30_000)
    expect(metric(page, "Cost with this stack").locator("..")).to_contain_text("vs own policy")


def test_the_browser_bench_times_a_slider_step_and_a_preset_change_on_the_charts_tab(chromium_path):
    """Issue 47, 6: `playground bench` reports, in Chromium, the latency a user waits; here on a
    small session, that it runs and measures what it says (the figures are for the bench). In a
    process of its own: Playwright's sync API runs once per process."""
    import subprocess
    import sys

    script = (
        "import json; from playground.cli.bench_browser import charts_latency\n"
        "said = []; figures = charts_latency(60, said.append, steps=2)\n"
        "print(json.dumps([figures, said]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures, said = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(figures) == {"first_chart_chromium_s", "slider_step_chromium_s", "preset_change_chromium_s"}
    assert all(0 < seconds < 60 for seconds in figures.values())
    assert "a slider step median" in said[0] and "a preset change median" in said[0]
