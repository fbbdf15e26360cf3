"""No text from a config reaches an export's source except through an escaping literal: a
hostile value in any text or list parameter, on every target, leaves the same statements."""

from __future__ import annotations

import ast
import json
import tomllib

import pytest

from playground.engine.replay import Settings
from playground.export import TARGETS, ExportError, export
from playground.stacks.config import Config, parse_config
from policies.registry import POLICY_TYPES, PolicySpec

HOSTILE = [
    "*\nimport os; os.system('touch PWNED')\n#",
    "x\rimport os\r#",
    "\x00nul",
    "line\u2028separator\u2029para",
    "next\x85line",
    "\"\"\"'''; import os #",
    "{__import__('os')}",
    "\\",
    "\x1b[31mred",
]

# every free-text or list parameter of every policy (a choice list only takes its choices)
TEXT_PARAMS = [
    (name, param.name, param.type)
    for name, cls in sorted(POLICY_TYPES.items())
    for param in cls.params
    if param.type in (str, list) and not param.choices
]
FLAVOURS = {"ClearToolUsesPolicy": [{}, {"flavour": "langchain"}]}


def _strings(tree: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _json_strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _json_strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _json_strings(v)]
    return []


def _found(value: str, strings: list[str]) -> bool:
    """The value, whole, in a literal: as given, or as a message quotes it (its repr)."""
    return any(value in s or repr(value) in s for s in strings)


def _shape(text: str) -> list[str]:
    """The module's statements with every constant blanked: what the file does, not what it says."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant):
            node.value = None
    return [ast.dump(statement) for statement in tree.body]


@pytest.mark.parametrize(("policy", "param", "kind"), TEXT_PARAMS)
def test_a_hostile_value_in_any_text_parameter_exports_as_an_escaped_literal(policy, param, kind):
    for extra in FLAVOURS.get(policy, [{}]):
        for value in HOSTILE:
            given = [value] if kind is list else value
            stand_in = "benign*" if any(c in value for c in "*?[") else "benign"  # a glob stays a glob
            benign = [stand_in] if kind is list else stand_in
            for target in TARGETS:
                hostile = export([PolicySpec(policy, {**extra, param: given})], Settings(), target)
                plain = export([PolicySpec(policy, {**extra, param: benign})], Settings(), target)
                expressed = stand_in == "benign"  # a glob may be listed as not expressible instead
                hostile.text.encode("utf-8")  # writable as UTF-8, lone surrogates included
                assert "\x00" not in hostile.text and "PWNED')\n" not in hostile.text
                if hostile.language == "python":
                    assert _shape(hostile.text) == _shape(plain.text), (target, policy, param, value)
                    tree = ast.parse(hostile.text)
                    for line in hostile.text.splitlines():  # comments end where the line does
                        assert not line.lstrip().startswith("import os")
                    if expressed and "benign" in "".join(_strings(ast.parse(plain.text))):
                        assert _found(value, _strings(tree)), (target, policy, param, value)
                elif hostile.language == "toml":
                    document, reference = tomllib.loads(hostile.text), tomllib.loads(plain.text)
                    assert set(document) == set(reference), (target, policy, param, value)
                    for line in hostile.text.splitlines():  # a comment ends where its line does
                        assert line.startswith("#") or line.split(" = ")[0] in document
                    if expressed and "benign" in "".join(_json_strings(reference)):
                        assert _found(value, _json_strings(document)), (target, param, value)
                else:
                    document = json.loads(hostile.text)
                    if expressed and "benign" in "".join(_json_strings(json.loads(plain.text))):
                        assert _found(value, _json_strings(document)), (target, param, value)


def test_the_reported_exploit_is_a_list_item_in_the_langchain_export(tmp_path):
    value = "*\nimport os; os.system('touch PWNED')\n#"
    spec = PolicySpec("ClearToolUsesPolicy", {"flavour": "langchain", "exclude_tools": [value, "Bash"]})
    result = export([spec], Settings(), "langchain")
    namespace: dict = {}
    tree = ast.parse(result.text)
    imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    assert all(getattr(n, "module", "") and n.module.startswith("langchain") for n in imports)
    assert "import os" not in [line.strip() for line in result.text.splitlines()]
    del namespace


@pytest.mark.parametrize(("policy", "param", "kind"), TEXT_PARAMS)
def test_half_a_character_is_refused_by_name_not_exported(policy, param, kind):
    value = "lone \ud800 surrogate"
    for target in TARGETS:
        with pytest.raises(ExportError, match=f"{param} holds a lone surrogate"):
            export([PolicySpec(policy, {param: [value] if kind is list else value})], Settings(), target)


@pytest.mark.parametrize("value", HOSTILE)
def test_a_config_with_any_text_reads_back_the_same_from_yaml_and_json(value):
    config = Config(
        stack=[PolicySpec("ClearToolUsesPolicy", {"exclude_tools": [value], "placeholder": value})],
        must_keep=(),
    )
    for text in (config.to_yaml(), config.to_json()):
        text.encode("utf-8")
        back = parse_config(text, "round.yaml", allow_plugins=False)
        assert list(back.stack[0].params["exclude_tools"]) == [value]
        assert back.stack[0].params["placeholder"] == value


def test_the_cli_writes_an_export_whole_or_not_at_all(tmp_path, capsys):
    from playground.cli.main import main

    out = tmp_path / "out.py"
    out.write_text("the user's file\n")
    config = tmp_path / "c.yaml"
    config.write_text(
        "version: 1\nstack:\n  - ClearToolUsesPolicy: {flavour: langchain, exclude_tools: ['a\u2028']}\n"
    )
    assert main(["export", str(config), "--to", "langchain", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "ClearToolUsesEdit" in text and "\\u2028" in text
    blocked = tmp_path / "no such folder" / "out.py"
    assert main(["export", str(config), "--to", "langchain", "-o", str(blocked)]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert not blocked.parent.exists()
