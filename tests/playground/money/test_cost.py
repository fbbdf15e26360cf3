"""Money: each provider's cache rule, the price lookup, cache breaks and the calibration."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from playground.engine.replay import Settings, replay
from playground.formats import read_path
from playground.measures.metrics import totals, turns_frame
from playground.money import pricing
from playground.money.caching import cache_turns, deltas, rule_for
from playground.money.cost import Pricing, PricingError, RunningCost, cost_report
from playground.money.pricing import find_price
from playground.stacks.config import parse_config
from playground.stacks.presets import PRESETS
from policies import PolicySpec
from policies.messages import Message, ToolCall
from tests.synthetic import FOLDER as SYNTHETIC

ROOT = Path(__file__).parents[3]

CLAUDE = Settings(model="claude-sonnet-4-5", context_window=200_000)


def messages(n: int) -> list[Message]:
    return [Message("user" if i % 2 else "assistant", f"message {i}") for i in range(n)]


def split(requests, rule_name, size=100, model="", **kw):
    return cache_turns(deltas(requests), lambda m: size, rule_for(rule_name, model), **kw)


def test_openai_hits_start_at_1024_tokens_in_128_token_steps():
    m = messages(30)
    turns = split([m[:10], m[:20], m[:30]], "openai")  # 1,000, 2,000, 3,000 tokens
    assert [t.read for t in turns] == [0, 0, 1920]  # 1,000 shared is under 1,024; 2,000 -> 15 x 128
    assert all(t.write == 0 for t in turns)  # writes are free
    assert turns[2].uncached == 3000 - 1920


def test_deepseek_hits_come_in_64_token_blocks():
    m = messages(4)
    turns = split([m[:2], m[:4]], "deepseek", size=50)
    assert turns[1].read == 64  # 100 shared tokens -> one 64-token block


def test_anthropic_writes_what_it_does_not_read_and_reads_only_at_a_breakpoint():
    m = messages(30)
    edited = [*m[:15], m[15].replace(content="edited"), *m[16:30]]
    turns = split([m[:20], m[:25], edited], "anthropic")
    assert (turns[0].read, turns[0].write) == (0, 2000)
    assert (turns[1].read, turns[1].write) == (2000, 500)
    # the edit at message 15 leaves no earlier breakpoint (20, 25) intact: all written again
    assert (turns[2].read, turns[2].write, turns[2].broken_at, turns[2].repaid) == (0, 3000, 15, 1000)


def test_anthropic_minimum_length_is_the_models():
    m = messages(30)
    haiku = split([m[:30], m[:30]], "anthropic", model="claude-haiku-4-5")  # 3,000 < 4,096
    assert [(t.read, t.write, t.uncached) for t in haiku] == [(0, 0, 3000), (0, 0, 3000)]
    sonnet = split([m[:30], m[:30]], "anthropic", model="claude-sonnet-4-5")  # minimum 1,024
    assert [(t.read, t.write) for t in sonnet] == [(0, 3000), (3000, 0)]


def test_a_gap_longer_than_the_ttl_makes_the_cache_cold():
    m = messages(30)
    turns = split([m[:20], m[:25], m[:30]], "anthropic", times=[0.0, 200.0, 200.0 + 301])
    assert [t.cold for t in turns] == [False, False, True]
    assert turns[2].read == 0 and turns[2].write == 3000
    hour = split([m[:20], m[:25], m[:30]], "anthropic-1h", times=[0.0, 200.0, 200.0 + 301])
    assert not hour[2].cold and hour[2].read == 2500


def test_no_caching_pays_everything_in_full():
    m = messages(30)
    assert all(t.uncached == t.read + t.write + t.uncached for t in split([m[:20], m[:30]], "none"))


def test_prices_come_from_genai_prices_with_tiers_and_unknown_models_have_none():
    sonnet = find_price("claude-sonnet-4-5")
    assert sonnet is not None and sonnet.provider == "anthropic"
    # 10,000 in: 8,000 read at $0.30/M, 2,000 written at $3.75/M; 100 out at $15/M
    assert sonnet.cost(10_000, 8_000, 2_000, 100) == pytest.approx(0.0114)
    assert sonnet.cost(10_000, 8_000, 2_000, 100, 2_000) == pytest.approx(0.0159)  # 1 h writes at $6/M
    # over 200k input the long-context tier applies to the whole request ($6/M)
    assert sonnet.cost(300_000, 0, 0, 0) == pytest.approx(1.8)
    assert find_price("gpt-4o").cost(10_000, 8_000, 0, 0) == pytest.approx(0.015)
    assert find_price("no-such-model-9") is None


def test_an_unknown_model_keeps_its_token_figures_and_has_no_price(real_session_path):
    session = read_path(real_session_path)[0]
    frame = turns_frame(replay(session, [], Settings(model="no-such-model-9")))
    figures = totals(frame)
    assert figures["cost_usd"] is None and figures["saved_usd"] is None
    assert figures["billed_raw_tokens"] > 0 and frame.attrs["priced_as"] is None


def test_bad_pricing_settings_are_refused_naming_the_key():
    with pytest.raises(PricingError, match=r"pricing\.cache 'sometimes'"):
        Pricing.from_data({"cache": "sometimes"})
    with pytest.raises(PricingError, match="unknown key 'discount'"):
        Pricing.from_data({"discount": 0.5})
    with pytest.raises(PricingError, match=r"pricing\.provider"):
        Pricing.from_data({"provider": "acme"})


def test_a_break_is_put_down_to_the_policy_that_acted(real_session_path):
    session = read_path(real_session_path)[0]
    stack = [PolicySpec("SlidingWindowPolicy", {"max_messages": 20}), PolicySpec("ToolEvictionPolicy")]
    report = cost_report(replay(session, stack, CLAUDE))
    assert report.breaks
    # every policy that changed the request at the turn, with what it did, in stack order
    assert {b.policy for b in report.breaks} <= {
        "SlidingWindowPolicy (drop)",
        "ToolEvictionPolicy (stub)",
        "SlidingWindowPolicy (drop), ToolEvictionPolicy (stub)",
    }
    window = [b for b in report.breaks if b.policy.startswith("SlidingWindowPolicy")]
    assert window and all(b.position <= 1 for b in window)  # the window drops the oldest messages
    assert all(b.repaid > 0 for b in report.breaks)
    raw = cost_report(replay(session, [], CLAUDE))
    assert raw.breaks == []  # raw history only grows


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_engine_knows_what_each_request_keeps_of_the_last(real_session_path, preset):
    # cost reads each turn as a delta from the engine; it must be what the requests say
    result = replay(read_path(real_session_path)[0], PRESETS[preset], CLAUDE)
    assert [(t.shared, t.tail) for t in result.turns] == list(deltas(t.request for t in result.turns))


def test_predicted_cache_hits_match_what_deepseek_recorded(real_session_path):
    session = read_path(real_session_path)[0]
    frame = turns_frame(replay(session, [], Settings(model="deepseek-v4-flash")))
    recorded = frame["recorded_cache_read_tokens"].sum() / frame["recorded_prompt_tokens"].sum()
    assert round(100 * recorded, 1) == 98.4  # 1,093,760 of 1,111,619, as the issue measured
    assert abs(totals(frame)["cache_hit_pct"] - 100 * recorded) < 1
    predicted = frame["cache_read_tokens"] / frame["context_tokens"]
    actual = frame["recorded_cache_read_tokens"] / frame["recorded_prompt_tokens"]
    assert statistics.median((100 * (predicted - actual)).abs()) < 5


def test_the_default_stack_saves_tokens_but_loses_money_and_batching_saves_both(real_session_path):
    session = read_path(real_session_path)[0]
    default = totals(turns_frame(replay(session, PRESETS["pyagentic recommended"], CLAUDE)))
    batched = totals(turns_frame(replay(session, PRESETS["Cache-friendly (batched eviction)"], CLAUDE)))
    assert default["saved_pct"] > 30 and default["saved_usd"] < 0
    assert batched["saved_pct"] > 10 and batched["saved_usd"] > 0
    assert batched["cache_breaks"] < default["cache_breaks"] / 10


def test_summaries_are_priced_as_calls_of_their_own(real_session_path):
    session = read_path(real_session_path)[0]
    stack = [PolicySpec("CompactionPolicy", {"max_input_tokens": 8000, "keep_recent": 4})]
    result = replay(session, stack, CLAUDE)
    frame = turns_frame(result)
    made = len(result.summary_stats.billed)
    assert made == int(frame["compactions"].sum()) > 0
    per_turn = frame.loc[frame["summary_cost_usd"] > 0, "turn"].tolist()
    assert per_turn == frame.loc[frame["compactions"] > 0, "turn"].tolist()
    figures = totals(frame)
    assert figures["summary_cost_usd"] > 0
    assert figures["cost_usd"] == pytest.approx(frame["cost_usd"].sum() + figures["summary_cost_usd"])
    assert figures["summary_calls"] == made
    tokens_in = sum(prompt for _, prompt, _ in result.summary_stats.billed)
    tokens_out = sum(summary for _, _, summary in result.summary_stats.billed)
    assert (figures["summary_input_tokens"], figures["summary_output_tokens"]) == (tokens_in, tokens_out)
    sonnet = find_price("claude-sonnet-4-5")
    assert figures["summary_cost_usd"] == pytest.approx(sonnet.cost(tokens_in, 0, 0, tokens_out), rel=1e-4)
    assert frame.attrs["summaries_priced_as"] == sonnet.label


def test_the_config_carries_pricing():
    config = parse_config("version: 1\nstack: []\npricing: {model: claude-sonnet-4-5, cache: anthropic-1h}\n")
    assert config.pricing == Pricing(model="claude-sonnet-4-5", cache="anthropic-1h")
    assert parse_config(config.to_yaml()).pricing == config.pricing


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "gpt-5.4", "gemini-2.5-pro", "gpt-4o"])
def test_per_token_rates_give_what_genai_prices_gives_in_every_tier(model):
    import random

    price = find_price(model)
    rng = random.Random(7)
    sizes = [rng.randint(0, 600_000) for _ in range(300)] + [
        t + d for t in price.thresholds for d in (-1, 0, 1)
    ]
    for size in sizes:
        read = rng.randint(0, size)
        write = rng.randint(0, size - read)
        output, hour = rng.randint(0, 5000), rng.random() < 0.5
        write_1h = rng.randint(0, write) if hour else 0  # some writes at each tier
        expected = pricing._genai_cost(
            pricing._model_prices(price.model, price.provider), size, read, write, output, write_1h
        )
        assert price.cost(size, read, write, output, write_1h) == pytest.approx(
            expected, rel=1e-12, abs=1e-15
        )


def test_a_price_kept_from_an_earlier_run_costs_what_genai_prices_says_without_loading_it(tmp_path):
    import json

    env = {**os.environ, "PLAYGROUND_CACHE_DIR": str(tmp_path)}
    probe = (
        "import sys; from playground.money.pricing import find_price; p = find_price('claude-sonnet-4-5'); "
        "print([p.cost(n, n // 2, n // 4, 300, h * (n // 4)) for n in (10_000, 250_000) for h in (0, 1)], "
        "'genai_prices' in sys.modules, find_price('no-such-model-9'))"
    )

    def run() -> str:
        return subprocess.run(
            [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
        ).stdout

    first, second = run(), run()  # looked up in genai-prices, then read back from the file
    assert first.endswith("True None\n") and second == first.replace("True None", "False None")
    stored = json.loads(next(tmp_path.glob("prices-genai-prices-*.json")).read_text())
    # a name no price list knows is never kept (issue 58: an upload's names filled the shared file)
    assert "no-such-model-9\n" not in stored and stored["claude-sonnet-4-5\n"]["thresholds"] == [200_000]


@pytest.mark.parametrize(
    "content",
    ["", "{not json", "[]", '{"gpt-4o\\n": {"model": "gpt-4o"}}', '{"gpt-4o\\n": {"rates": 3}}', "\x00\xff"],
)
def test_a_damaged_price_file_is_looked_up_again_and_rewritten(tmp_path, monkeypatch, content):
    monkeypatch.setenv("PLAYGROUND_CACHE_DIR", str(tmp_path))
    pricing._prices_file().write_text(content)
    pricing._find_price.cache_clear()
    try:
        price = find_price("gpt-4o")
    finally:
        pricing._find_price.cache_clear()
    assert price.cost(10_000, 8_000, 0, 0) == pytest.approx(0.015)
    assert "gpt-4o\n" in pricing._stored_prices()


def test_a_cache_folder_that_cannot_be_written_leaves_prices_unstored_but_known(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("PLAYGROUND_CACHE_DIR", str(blocked / "cache"))
    pricing._find_price.cache_clear()
    try:
        assert find_price("gpt-4o").cost(10_000, 8_000, 0, 0) == pytest.approx(0.015)
    finally:
        pricing._find_price.cache_clear()
    assert blocked.read_text() == "not a folder" and not list(tmp_path.glob("**/*.part"))


def test_lookups_made_at_once_by_the_app_threads_are_all_kept(tmp_path, monkeypatch):
    import threading

    monkeypatch.setenv("PLAYGROUND_CACHE_DIR", str(tmp_path))
    models = ["gpt-4o", "gpt-4o-mini", "claude-sonnet-4-5", "gemini-2.5-pro", "gpt-5.4", "no-such-model-9"]
    pricing._find_price.cache_clear()
    try:
        threads = [threading.Thread(target=find_price, args=(m,)) for m in models]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        pricing._find_price.cache_clear()
    assert sorted(pricing._stored_prices()) == sorted(f"{m}\n" for m in models if m != "no-such-model-9")
    assert [p.name for p in tmp_path.iterdir()] == [pricing._prices_file().name]


def _stored_gpt_4o(tmp_path, monkeypatch) -> dict:
    monkeypatch.setenv("PLAYGROUND_CACHE_DIR", str(tmp_path))
    pricing._find_price.cache_clear()
    find_price("gpt-4o")
    pricing._find_price.cache_clear()
    return json.loads(pricing._prices_file().read_text())


@pytest.mark.parametrize(
    "forge",
    [
        lambda r: r["rates"]["0 0"].__setitem__(0, -1e-6),  # a negative rate (a run reported -$0.137)
        lambda r: r["rates"]["0 0"].__setitem__(1, float("nan")),
        lambda r: r["rates"]["0 0"].__setitem__(3, float("inf")),
        lambda r: r.__setitem__("provider", ["not", "a", "name"]),  # was a TypeError
        lambda r: r.__setitem__("model", "m" * 5_000),
        lambda r: r.__setitem__("thresholds", [-5]),
    ],
)
def test_a_forged_price_file_is_not_believed(tmp_path, monkeypatch, forge):
    stored = _stored_gpt_4o(tmp_path, monkeypatch)
    forge(stored["gpt-4o\n"])
    pricing._prices_file().write_text(json.dumps(stored))
    try:
        price = find_price("gpt-4o")
    finally:
        pricing._find_price.cache_clear()
    assert price.cost(10_000, 8_000, 0, 0) == pytest.approx(0.015)


def test_a_huge_price_file_is_not_read_and_long_names_are_not_stored(tmp_path, monkeypatch):
    _stored_gpt_4o(tmp_path, monkeypatch)
    pricing._prices_file().write_text(" " * (pricing.MAX_PRICES_FILE + 10))
    assert pricing._stored_prices() == {}
    assert find_price("x" * 10_000) is None
    pricing._find_price.cache_clear()
    assert not any(len(key) > 1_000 for key in pricing._stored_prices())


def test_your_own_prices_replace_genai_prices_part_by_part():
    listed = find_price("gpt-4o")
    own = Pricing(own=(1.0, None, None, 2.0)).resolve("gpt-4o")[0]
    # 10,000 in, 8,000 of them read from the cache (genai-prices' $1.25/M), 100 out
    assert own.cost(10_000, 8_000, 0, 100) == pytest.approx(2_000 / 1e6 + 8_000 * 1.25 / 1e6 + 100 * 2 / 1e6)
    assert listed.cost(10_000, 8_000, 0, 100) == pytest.approx(0.015 + 100 * 10 / 1e6)
    assert own.label.endswith(
        "(genai-prices " + pricing.genai_prices_release() + "; your prices: input $1/M, output $2/M)"
    )
    # every long-context tier at the one price given: Sonnet 4.5 over 200k is $6/M listed
    sonnet = Pricing(own=(3.0, None, None, None)).resolve("claude-sonnet-4-5")[0]
    assert sonnet.cost(300_000, 0, 0, 0) == pytest.approx(0.9)
    assert sonnet.cost(200_000, 0, 0, 0) == pytest.approx(0.6)  # on the tier's edge too


def test_a_model_genai_prices_lacks_is_priced_only_with_all_four_prices():
    assert Pricing(own=(1.0, 0.1, 1.25, 4.0)).resolve("in-house-model")[0].cost(1_000_000, 0, 0, 0) == 1.0
    assert Pricing(own=(1.0, None, None, 4.0)).resolve("in-house-model")[0] is None
    assert "no genai-prices entry" in Pricing(own=(1.0, 0.1, 1.25, 4.0)).resolve("in-house-model")[0].label


def test_the_config_carries_your_prices_and_refuses_bad_ones():
    text = "version: 1\nstack: []\npricing: {model: deepseek-chat, input: 0.07, cached_input: 0.0175, output: '$0.28'}\n"
    config = parse_config(text)
    assert config.pricing.own == (0.07, 0.0175, None, 0.28)
    assert parse_config(config.to_yaml()).pricing == config.pricing
    assert parse_config(config.to_json()).pricing == config.pricing
    for bad, said in [
        ("-1", "between 0 and"),
        (".inf", "between 0 and"),
        ("true", "got a bool"),
        ("[1]", "got a list"),
        ("cheap", "got 'cheap'"),
        ("1e300", "between 0 and"),
    ]:
        with pytest.raises(PricingError, match=rf"pricing\.output must be .*{said}"):
            Pricing.from_data({"output": yaml_value(bad)})


def yaml_value(text: str):
    import yaml

    return yaml.safe_load(text)


def test_the_recorded_calls_are_priced_with_your_prices_too(real_session_path):
    """The DeepSeek session records what it paid; prices the user types for that model bill
    the recorded calls, the stack and the raw history alike."""
    session = read_path(real_session_path)[0]
    result = replay(session, [], Settings(model="deepseek-v4-flash"))
    listed = totals(turns_frame(result))
    own = totals(turns_frame(result, Pricing(own=(0.5, 0.05, None, 1.0))))
    assert own["recorded_cost_usd"] != pytest.approx(listed["recorded_cost_usd"])
    recorded = turns_frame(result, Pricing(own=(0.5, 0.05, None, 1.0)))
    report = cost_report(result)
    calls = [(r, o) for r, o in zip(report.recorded, report.output, strict=True) if r is not None]

    def bill(output_of) -> float:
        return sum(
            (r.input - r.cache_read) * 0.5e-6 + r.cache_read * 0.05e-6 + output_of(r, o) * 1e-6
            for r, o in calls
        )

    # as recorded: the output the file records; beside it, each reply's output as the stack's
    assert recorded["recorded_cost_usd"].sum() == pytest.approx(bill(lambda r, o: r.output))
    assert recorded["recorded_counted_output_usd"].sum() == pytest.approx(bill(lambda r, o: o))


def test_a_stored_price_with_prices_of_a_user_is_not_believed(tmp_path, monkeypatch):
    stored = _stored_gpt_4o(tmp_path, monkeypatch)
    stored["gpt-4o\n"]["own"] = [0, 0, 0, 0]
    pricing._prices_file().write_text(json.dumps(stored))
    try:
        price = find_price("gpt-4o")
    finally:
        pricing._find_price.cache_clear()
    assert price.own == pricing.NO_OWN and price.cost(10_000, 8_000, 0, 0) == pytest.approx(0.015)


def test_openai_bills_writes_from_gpt_5_6_and_keeps_a_24_hour_cache_where_it_offers_one():
    """OpenAI's "Prompt caching" docs, late 2026: writes at 1.25x input from the GPT-5.6 family;
    extended (24 h) retention the default for GPT-5 and GPT-4.1; gpt-4o's in-memory cache."""
    assert (rule_for("openai", "gpt-4o").ttl_seconds, rule_for("openai", "gpt-4o").writes) == (300.0, False)
    assert (rule_for("openai", "gpt-5.5").ttl_seconds, rule_for("openai", "gpt-5.5").writes) == (
        86_400.0,
        False,
    )
    assert rule_for("openai", "gpt-4.1-mini").ttl_seconds == 86_400.0
    for model in ("gpt-5.6-sol", "gpt-5.10", "gpt-6"):
        assert rule_for("openai", model).writes and rule_for("openai", model).ttl_seconds == 86_400.0, model
    m = messages(30)
    turns = split([m[:20], m[:30]], "openai", model="gpt-5.6-sol", times=[0.0, 3600.0])  # an hour idle
    assert [(t.read, t.write) for t in turns] == [(0, 2000), (1920, 1080)]  # still warm; the rest written
    price, rule = Pricing().resolve("gpt-5.6")
    assert rule.writes and price.cost(1_000_000, 0, 1_000_000, 0) == pytest.approx(
        1.25 * price.cost(1_000_000, 0, 0, 0)
    )


def test_anthropic_finds_an_earlier_breakpoint_at_most_20_blocks_back():
    m = messages(60)
    near = split([m[:20], m[:40]], "anthropic")  # 20 blocks since the entry at 20
    far = split([m[:20], m[:41]], "anthropic")  # 21: the lookback does not reach it
    assert (near[1].read, near[1].write) == (2000, 2000)
    assert (far[1].read, far[1].write) == (0, 4100)
    # a call with its tool uses counts a block each
    calls = Message("assistant", "", tool_calls=tuple(ToolCall(f"c{i}", "read") for i in range(12)))
    results = [Message("tool", "out", tool_call_ids=(f"c{i}",)) for i in range(12)]
    wide = split([m[:20], [*m[:20], calls, *results]], "anthropic")
    assert wide[1].read == 0  # 12 + 12 blocks after the entry


@pytest.mark.parametrize("model", ["claude-haiku-4-5", "claude-opus-4-5", "claude-opus-4-6"])
def test_anthropic_s_4096_token_minimum_models(model):
    assert rule_for("anthropic", model).min_tokens == 4096
    m = messages(40)
    turns = split([m[:40], m[:40]], "anthropic", model=model)  # 4,000 tokens: under the minimum
    assert all(t.read == t.write == 0 for t in turns)


def test_xai_caches_any_prefix_without_a_write_charge_and_reads_at_its_cached_price():
    price, rule = Pricing().resolve("grok-4.6")
    assert rule.name == "xai" and not rule.writes and not rule.breakpoints
    m = messages(30)
    turns = split([m[:20], m[:30]], "xai")
    assert [(t.read, t.write) for t in turns] == [(0, 0), (2000, 0)]
    assert price.cost(1_000_000, 1_000_000, 0, 0) == pytest.approx(0.25 * price.cost(1_000_000, 0, 0, 0))


SESSIONS = [
    *sorted(SYNTHETIC.glob("*.json*")),
    *sorted((ROOT / "tests" / "fixtures" / "formats").glob("c*/*.jsonl")),  # Claude Code, Codex
]


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
@pytest.mark.parametrize(
    "preset",
    [
        "pyagentic recommended",
        "Cache-friendly (batched eviction)",
        "LangChain 1.x: summarization (docs example: 4,000 tokens, keep 20 messages)",
    ],
)
def test_the_running_cost_climbs_to_the_final_one_and_never_passes_it(path, preset):
    """What a search stops a stack on: dollars turn by turn, the summaries included, that reach
    the headline's where the cache is modelled as its rule allows, and stay under it where a
    session's recorded share of cache hits scales the reads down."""
    for session in read_path(path):
        settings = Settings(model="gpt-5" if "codex" in str(path) else "claude-sonnet-4-5")
        running, seen = RunningCost(), []

        def watch(result, running=running, seen=seen):
            running(result)
            seen.append(running.spent)

        result = replay(session, list(PRESETS[preset]), settings, watch=watch)
        final = totals(turns_frame(result))["cost_usd"]
        assert len(seen) == len(result.turns) and seen == sorted(seen)
        assert seen[-1] <= final + 1e-6
        if cost_report(result).served is None:
            assert seen[-1] == pytest.approx(final, abs=1e-6)


def test_a_price_that_changes_with_the_hour_is_the_same_whatever_the_hour_the_replay_runs(monkeypatch):
    """genai-prices gives DeepSeek V4 double prices at its peak hours: the figures of one replay
    moved with the clock (a test kept at 09:00 UTC failed at 10:00). One hour of the day prices
    every replay, and the label says so."""
    from datetime import UTC, datetime

    from genai_prices import Usage, calc_price

    at = {hour: calc_price(Usage(input_tokens=10**6), "deepseek-v4-flash", genai_request_timestamp=datetime.now(UTC).replace(hour=hour)).input_price for hour in range(24)}  # fmt: skip
    assert len(set(at.values())) > 1  # the provider's price does change with the hour
    pricing._find_price.cache_clear()
    price = pricing._looked_up("deepseek-v4-flash", None)
    assert price.varies_by_hour and "the 12:00 UTC price is used" in price.label
    assert price.rates["0 0"][0] * 10**6 == pytest.approx(float(at[pricing.PRICED_AT_HOUR]))
    assert not pricing._looked_up("gpt-4o", None).varies_by_hour
