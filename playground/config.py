"""The stack config file (DESIGN §9): YAML or JSON, versioned, no secrets, round-trips.

```yaml
version: 1
model: gpt-4o
context_window: 128000
stack:
  - ToolOutputClipPolicy: {max_chars: 8000}
  - SlidingWindowPolicy
summarizer: {kind: extractive}
```

A stack entry is a bare name or ``{Name: {param: value}}``; ``enabled: false`` inside
the mapping keeps a disabled entry. Only the parameters given are written back.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

import yaml

from playground.replay import Settings
from playground.summarizers import SummarizerError, make_summarizer
from policies.registry import PolicySpec, SpecError, load_policy_class

VERSION = 1
TOP_LEVEL_KEYS = (
    "version",
    "model",
    "context_window",
    "pin_standing_rules",
    "plugins",
    "stack",
    "summarizer",
)
SECRET_KEYS = ("api_key", "key", "token", "secret", "password")


class ConfigError(ValueError):
    """A config that cannot be used; the message names the file and the entry."""


@dataclass
class Config:
    model: str = "gpt-4o"
    context_window: int = 128_000
    stack: list[PolicySpec] = field(default_factory=list)
    summarizer: dict[str, Any] = field(default_factory=lambda: {"kind": "extractive"})
    pin_standing_rules: bool = True
    plugins: list[str] = field(default_factory=list)

    @property
    def settings(self) -> Settings:
        return Settings(self.model, self.context_window, self.pin_standing_rules, dict(self.summarizer))

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "version": VERSION,
            "model": self.model,
            "context_window": self.context_window,
        }
        if not self.pin_standing_rules:
            data["pin_standing_rules"] = False
        if self.plugins:
            data["plugins"] = list(self.plugins)
        data["stack"] = [_entry(spec) for spec in self.stack]
        data["summarizer"] = {k: v for k, v in self.summarizer.items() if k not in SECRET_KEYS}
        return data

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_data(), sort_keys=False, default_flow_style=None, allow_unicode=True)

    def to_json(self) -> str:
        return json.dumps(self.to_data(), indent=2, ensure_ascii=False) + "\n"


def _entry(spec: PolicySpec) -> Any:
    params = {k: list(v) if isinstance(v, tuple) else v for k, v in spec.params.items()}
    if not spec.enabled:
        params["enabled"] = False
    return {spec.name: params} if params else spec.name


def load_config(path: str | os.PathLike) -> Config:
    file = os.fspath(path)
    try:
        with open(file, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{file}: cannot read: {getattr(error, 'strerror', None) or error}") from None
    return parse_config(text, file)


def parse_config(text: str, file: str = "config") -> Config:
    """A Config from YAML or JSON text; ConfigError names the file and the bad entry."""
    try:
        data = yaml.safe_load(text)  # JSON is YAML too
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark else ""
        raise ConfigError(
            f"{file}: {where}not valid YAML or JSON ({getattr(error, 'problem', error)})"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{file}: expected a mapping with version, model and stack")
    try:
        return config_from_data(data)
    except (ConfigError, SpecError, SummarizerError) as error:
        raise ConfigError(f"{file}: {error}") from None


def config_from_data(data: dict[str, Any]) -> Config:
    unknown = [k for k in data if k not in TOP_LEVEL_KEYS]
    if unknown:
        raise ConfigError(f"unknown key {unknown[0]!r} (known: {', '.join(TOP_LEVEL_KEYS)})")
    if data.get("version", VERSION) != VERSION:
        raise ConfigError(
            f"version {data['version']!r} is not supported (this playground reads version {VERSION})"
        )
    config = Config()
    config.model = _typed(data, "model", str, config.model)
    config.context_window = _typed(data, "context_window", int, config.context_window)
    if config.context_window < 1_000:
        raise ConfigError(f"context_window must be at least 1000, got {config.context_window}")
    config.pin_standing_rules = _typed(data, "pin_standing_rules", bool, True)
    config.plugins = _typed(data, "plugins", list, [])
    for plugin in config.plugins:
        load_policy_class(str(plugin))
    summarizer = _typed(data, "summarizer", dict, config.summarizer)
    secrets = [k for k in summarizer if k in SECRET_KEYS]
    if secrets:
        raise ConfigError(
            f"summarizer: {secrets[0]!r} is a secret; set it in the environment, not in a config file"
        )
    make_summarizer(summarizer)  # validates
    config.summarizer = dict(summarizer)
    stack = _typed(data, "stack", list, [])
    config.stack = [parse_entry(entry, n) for n, entry in enumerate(stack, start=1)]
    return config


def _typed(data: dict, key: str, kind: type, default: Any) -> Any:
    value = data.get(key, default)
    if value is None:
        return default
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(f"{key} must be {_TYPE_NAMES[kind]}, got {value!r}")
    return value


_TYPE_NAMES = {str: "text", int: "a whole number", bool: "true or false", list: "a list", dict: "a mapping"}


def parse_entry(entry: Any, position: int) -> PolicySpec:
    """One stack entry: ``Name`` or ``{Name: {params}}``; the spec is built once to validate it."""
    where = f"stack entry {position}"
    if isinstance(entry, str):
        name, params = entry, {}
    elif isinstance(entry, dict) and len(entry) == 1:
        name, params = next(iter(entry.items()))
        params = {} if params is None else params
        if not isinstance(params, dict):
            raise ConfigError(f"{where} ({name}): parameters must be a mapping, got {params!r}")
    else:
        raise ConfigError(f"{where}: expected a policy name or {{Name: {{parameters}}}}, got {entry!r}")
    params = dict(params)
    enabled = params.pop("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError(f"{where} ({name}): enabled must be true or false, got {enabled!r}")
    spec = PolicySpec(str(name), params, enabled)
    try:
        built = spec.build()
    except SpecError as error:
        raise ConfigError(f"{where}: {error}") from None
    return PolicySpec(spec.name, {k: built.given[k] for k in params}, enabled)
