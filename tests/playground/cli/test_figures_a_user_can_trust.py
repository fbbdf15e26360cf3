"""Issue "figures a user can trust", items 8 to 10: the CLI's window, a plugin that is not a
class, and the CLI's analyses on the user's own machine."""

from __future__ import annotations

import json
import sys

import pytest

from playground.cli.main import main
from playground.money.pricing import find_price
from playground.stacks.config import Config, parse_config
from policies.registry import SpecError, load_policy_class
from tests.synthetic import FOLDER as SYNTHETIC

SAMPLES = SYNTHETIC


def test_a_config_naming_a_model_and_no_window_replays_in_that_model_s_window(tmp_path):
    window = find_price("gpt-3.5-turbo").context_window
    assert window and window < 128_000
    assert parse_config("version: 1\nmodel: gpt-3.5-turbo\nstack: []\n").settings.context_window == window
    given = parse_config("version: 1\nmodel: gpt-3.5-turbo\ncontext_window: 64000\nstack: []\n")
    assert given.settings.context_window == 64_000  # a window the file names is kept
    named = Config()
    named.name_model("gpt-3.5-turbo")  # --model, no config
    assert named.settings.context_window == window
    config = tmp_path / "c.yaml"
    config.write_text("version: 1\nmodel: gpt-3.5-turbo\nstack: []\n")
    out = tmp_path / "out.json"
    assert (
        main(
            [
                "replay",
                str(SAMPLES / "web_research_anthropic.json"),
                "--config",
                str(config),
                "--json",
                str(out),
            ]
        )
        == 0
    )
    data = json.loads(out.read_text())
    assert data["settings"]["context_window"] == window
    assert data["summary"]["turns_with_violations"] > 0  # its requests outgrow a 16K window: flagged


def test_a_plugin_that_is_not_a_class_is_named_by_type_never_by_value(capsys):
    with pytest.raises(SpecError) as error:
        load_policy_class("sys:path")
    assert str(error.value) == "custom policy 'sys:path': a list object is not a Policy subclass"
    assert not any(entry and entry in str(error.value) for entry in sys.path)


def test_compare_takes_more_stacks_than_the_app_s_limit_on_the_user_s_machine(tmp_path, capsys):
    presets = ["No policies (raw history)", "pyagentic recommended", "Sliding window of 50",
               "Cache-friendly (batched eviction)", "selectools prompt compression",
               "Cut in this order (tiered eviction)", "Claude Code: auto-compact"]  # fmt: skip
    out = tmp_path / "compare.json"
    assert main(["compare", str(SAMPLES / "coding_agent_bugfix.json"), *presets, "--json", str(out)]) == 0
    assert len(json.loads(out.read_text())["candidates"]) == 7


def test_corpus_with_a_path_that_does_not_exist_exits_2_naming_it(tmp_path, capsys):
    missing = tmp_path / "no-such-folder"
    assert (
        main(
            ["corpus", str(SAMPLES / "coding_agent_bugfix.json"), str(missing), "--out", str(tmp_path / "o")]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "no such file or directory" in err and str(missing) in err
    assert not (tmp_path / "o").exists()  # nothing ran
