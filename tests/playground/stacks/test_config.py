import pytest

from playground.engine.replay import Settings
from playground.stacks.config import Config, ConfigError, parse_config
from playground.summaries.summarizers import SummarizerSpec
from policies import POLICY_TYPES, PolicySpec, SpecError

CANONICAL = """\
version: 1
model: gpt-4o
context_window: 128000
stack:
- ToolOutputClipPolicy: {max_chars: 8000}
- ToolEvictionPolicy: {keep_last_n: 5}
- CompactionPolicy: {max_input_tokens: 80000, keep_recent: 10}
- SlidingWindowPolicy
summarizer: {kind: extractive}
"""


def test_the_design_example_round_trips_unchanged():
    config = parse_config(CANONICAL)
    assert [s.name for s in config.stack][:3] == [
        "ToolOutputClipPolicy",
        "ToolEvictionPolicy",
        "CompactionPolicy",
    ]
    assert config.stack[3] == PolicySpec("SlidingWindowPolicy", {})
    assert config.to_yaml() == CANONICAL


def test_json_is_accepted_and_round_trips():
    config = parse_config(CANONICAL)
    again = parse_config(config.to_json(), "stack.json")
    assert again.to_yaml() == CANONICAL


def _non_default(param):
    if param.type is bool:
        return not param.default
    if param.type is str and param.choices:
        return next(c for c in param.choices if c != param.default)
    if param.type is str:
        return param.default + " (edited)"
    if param.type is list:
        return ["edited_*"]
    if param.maximum is not None:
        return param.type(param.maximum)
    return param.type(param.default) + 1


def test_every_registered_policy_round_trips_with_every_parameter_set():
    stack = []
    for name, cls in sorted(POLICY_TYPES.items()):
        if cls.__module__.startswith("tests."):  # registered by other tests
            continue
        every = PolicySpec(name, {p.name: _non_default(p) for p in cls.params})
        try:
            every.build()
            stack.append(every)
        except SpecError:  # some values exclude each other: then each one on its own
            stack += [PolicySpec(name, {p.name: _non_default(p)}) for p in cls.params]
        stack.append(PolicySpec(name, {}, enabled=False))
    for start in range(0, len(stack), 40):  # in stacks the size limit allows
        part = stack[start : start + 40]
        text = Config(stack=part).to_yaml()
        assert parse_config(text).to_yaml() == text
        assert [s.key() for s in parse_config(text).stack] == [s.key() for s in part]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("stack: [Nope]", "stack.yaml: stack entry 1: unknown policy 'Nope'"),
        (
            "stack: [{SlidingWindowPolicy: {max_messages: 0}}]",
            "stack.yaml: stack entry 1: SlidingWindowPolicy: max_messages must be at least 2, got 0",
        ),
        (
            "stack: [{SlidingWindowPolicy: {max_messages: many}}]",
            "stack.yaml: stack entry 1: SlidingWindowPolicy: max_messages must be a number, got 'many'",
        ),
        (
            "stack: [ToolEvictionPolicy, {ToolEvictionPolicy: {keep: 2}}]",
            "stack.yaml: stack entry 2: ToolEvictionPolicy: unknown parameter 'keep'",
        ),
        (
            "stack: [{SlidingWindowPolicy: 3}]",
            "stack.yaml: stack entry 1 (SlidingWindowPolicy): parameters must be a mapping, got 3",
        ),
        ("stack: {a: 1}", "stack.yaml: stack must be a list"),
        ("version: 2", "stack.yaml: version 2 is not supported"),
        ("modle: gpt-4o", "stack.yaml: unknown key 'modle'"),
        ("context_window: lots", "stack.yaml: context_window must be a whole number, got 'lots'"),
        ("summarizer: {kind: magic}", "stack.yaml: summarizer: unknown kind 'magic'"),
        ("summarizer: {kind: extractive, api_key: sk-123}", "stack.yaml: summarizer: 'api_key' is a secret"),
        ("stack: [", "stack.yaml: line 1: not valid YAML or JSON"),
        ("- just a list", "stack.yaml: expected a mapping"),
    ],
)
def test_bad_configs_are_refused_naming_the_entry(text, message):
    with pytest.raises(ConfigError) as error:
        parse_config(text, "stack.yaml")
    assert str(error.value).startswith(message)


def test_exports_never_carry_a_secret():
    config = Config(Settings(summarizer=SummarizerSpec.of({"kind": "extractive", "api_key": "sk-secret"})))
    assert "sk-secret" not in config.to_yaml() and "sk-secret" not in config.to_json()


def test_a_page_address_carries_a_config_both_ways_and_refuses_a_bomb():
    import base64
    import zlib

    from playground.stacks.config import ConfigError, address_of, config_at
    from playground.stacks.presets import PRESETS

    config = Config(Settings(model="gpt-4.1"), stack=list(PRESETS["pyagentic recommended"]))
    back = config_at(address_of(config))
    assert back.settings.model == "gpt-4.1" and back.stack == config.stack and len(address_of(config)) < 600
    bomb = base64.urlsafe_b64encode(zlib.compress(b" " * 10_000_000, 9)).decode().rstrip("=")
    with pytest.raises(ConfigError, match="inflates past"):
        config_at(bomb)
    with pytest.raises(ConfigError, match="plugins cannot be loaded"):
        config_at(base64.urlsafe_b64encode(zlib.compress(b'{"plugins": ["os:system"]}')).decode())
