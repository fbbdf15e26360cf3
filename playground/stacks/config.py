"""The stack config file (DESIGN §9): YAML or JSON, versioned, no secrets, round-trips.

```yaml
version: 1
model: gpt-4o
context_window: 128000
stack:
  - ToolOutputClipPolicy: {max_chars: 8000}
  - SlidingWindowPolicy
summarizer: {kind: extractive}
must_keep: ["fixed-term contract", "/INV-[0-9]+/"]
candidates:              # optional: named stacks to compare (same entry form as stack)
  - name: batched eviction
    stack: [{ToolEvictionPolicy: {keep_last_n: 5, min_freed_tokens: 5000}}]
```

A stack entry is a bare name or ``{Name: {param: value}}``; ``enabled: false`` inside
the mapping keeps a disabled entry. Only the parameters given are written back.
"""

from __future__ import annotations

import base64
import json
import os
import zlib
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from playground.engine.replay import Settings
from playground.engine.session import Session
from playground.limits import LIMITS, LimitError, check_stack_size, over, read_limited
from playground.measures.evaluate import Scenario
from playground.measures.must_keep import MustKeep, MustKeepError
from playground.measures.must_keep import parse as parse_must_keep
from playground.models.catalogue import window_of
from playground.money.cost import Pricing, PricingError
from playground.stacks.candidates import Candidate
from playground.summaries.base import SummarizerError
from playground.summaries.secrets import secret_in
from playground.summaries.summarizers import SummarizerSpec, summarizer_settings
from policies.base import shown
from policies.registry import PolicySpec, SpecError, load_policy_class

VERSION = 1
TOP_LEVEL_KEYS = (
    "version",
    "model",
    "context_window",
    "pin_standing_rules",
    "calibrate",
    "plugins",
    "stack",
    "summarizer",
    "pricing",
    "must_keep",
    "candidates",
)
SECRET_KEYS = ("api_key", "key", "token", "secret", "password")


class ConfigError(ValueError):
    """A config that cannot be used; the message names the file and the entry."""


@dataclass
class Config:
    """A config file's content: the replay's settings, the stack, and what the replays share."""

    settings: Settings = field(default_factory=Settings)
    stack: list[PolicySpec] = field(default_factory=list)
    plugins: list[str] = field(default_factory=list)
    pricing: Pricing = field(default_factory=Pricing)
    must_keep: tuple[MustKeep, ...] = ()
    candidates: tuple[Candidate, ...] = ()
    model_given: bool = False  # the file (or the user) named the model: a session's own is not used
    window_given: bool = False  # the file named the context window: a model's own is not used

    def name_model(self, model: str) -> None:
        """The model the user named (CLI ``--model``): its context window too, where the file
        named none (as the app's model picker does)."""
        window = self.settings.context_window
        if not self.window_given:
            window = window_of(model, window)
        self.settings = replace(self.settings, model=model, context_window=window)
        self.model_given = True

    def settings_for(self, session: Session) -> Settings:
        """The settings a replay of ``session`` runs with (``scenario_for``)."""
        return self.scenario_for(session).settings

    @property
    def scenario(self) -> Scenario:
        """The settings, pricing and must-keep facts every replay of this config shares."""
        return Scenario(self.settings, self.pricing, self.must_keep)

    def scenario_for(self, session: Session) -> Scenario:
        """The scenario a replay of ``session`` runs under: at the model the session records,
        unless a model was named."""
        return self.scenario.for_session(session, self.model_given)

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "version": VERSION,
            "model": self.settings.model,
            "context_window": self.settings.context_window,
        }
        if not self.settings.pin_standing_rules:
            data["pin_standing_rules"] = False
        if not self.settings.calibrate:
            data["calibrate"] = False
        if self.plugins:
            data["plugins"] = list(self.plugins)
        data["stack"] = [_entry(spec) for spec in self.stack]
        data["summarizer"] = {
            k: v for k, v in self.settings.summarizer.to_data().items() if k not in SECRET_KEYS
        }
        if self.pricing.to_data():
            data["pricing"] = self.pricing.to_data()
        if self.must_keep:
            data["must_keep"] = [fact.text for fact in self.must_keep]
        if self.candidates:
            data["candidates"] = [
                {"name": c.name, "stack": [_entry(spec) for spec in c.stack]} for c in self.candidates
            ]
        return data

    def to_yaml(self) -> str:
        import yaml

        return yaml.dump(
            self.to_data(), Dumper=_dumper(), sort_keys=False, default_flow_style=None, allow_unicode=True
        )

    def to_json(self) -> str:
        return json_text(self.to_data())


def json_text(document: Any) -> str:
    """A JSON file's text: readable non-ASCII kept, what does not print escaped (a lone
    surrogate cannot be written as UTF-8; U+2028 ends a line for JavaScript). json.dumps
    has already escaped the control characters, so every newline left is the indent's."""
    text = json.dumps(document, indent=2, ensure_ascii=False)
    return "".join(c if c.isprintable() or c == "\n" else json.dumps(c)[1:-1] for c in text) + "\n"


@cache
def _dumper() -> type:
    import yaml

    class Dumper(yaml.SafeDumper):
        """Text holding anything that does not print (U+0085, which YAML reads as a line break;
        a tab; a NUL) is written double-quoted, where YAML escapes it, so it reads back the same."""

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        style = None if value.isprintable() else '"'
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return Dumper


def _entry(spec: PolicySpec) -> Any:
    params = {k: list(v) if isinstance(v, tuple) else v for k, v in spec.params.items()}
    if not spec.enabled:
        params["enabled"] = False
    return {spec.name: params} if params else spec.name


def load_config(path: str | os.PathLike) -> Config:
    file = os.fspath(path)
    try:
        text = read_limited(file, "max_config_bytes").decode("utf-8")
    except LimitError as error:
        raise ConfigError(f"{file}: {error}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{file}: cannot read: {getattr(error, 'strerror', None) or error}") from None
    return parse_config(text, file)


@cache
def _config_loader() -> type:
    """yaml's safe loader without aliases (a few bytes of them expand to gigabytes) and with a
    depth bound; built at the first config read (a replay of a preset reads none)."""
    import yaml

    class ConfigLoader(yaml.SafeLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                mark = self.peek_event().start_mark
                raise ConfigError(f"line {mark.line + 1}: aliases (*name) are not allowed in a config")
            self._depth = getattr(self, "_depth", 0) + 1
            try:
                if self._depth > LIMITS.max_config_nesting:
                    mark = self.peek_event().start_mark
                    raise over("max_config_nesting", f"line {mark.line + 1}: nested deeper")
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    return ConfigLoader


def parse_config(text: str, file: str = "config", *, allow_plugins: bool = True) -> Config:
    """A Config from YAML or JSON text; ConfigError names the file and the bad entry.

    ``allow_plugins=False`` (the app) refuses a ``plugins`` key: code to import is named
    by whoever starts the server, never by an uploaded file."""
    import yaml

    if len(text) > LIMITS.max_config_bytes:
        raise ConfigError(f"{file}: {over('max_config_bytes', f'{len(text):,} characters')}")
    try:
        data = yaml.load(text, Loader=_config_loader())  # JSON is YAML too
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark else ""
        problem = shown(str(getattr(error, "problem", None) or error))
        raise ConfigError(f"{file}: {where}not valid YAML or JSON ({problem})") from None
    except (ConfigError, LimitError) as error:
        raise ConfigError(f"{file}: {error}") from None
    except ValueError as error:  # e.g. an integer of more than 4,300 digits
        raise ConfigError(f"{file}: a value cannot be read ({shown(str(error))})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{file}: expected a mapping with version, model and stack")
    if "plugins" in data and not allow_plugins:
        raise ConfigError(
            f"{file}: plugins cannot be loaded from an uploaded config; whoever starts the server "
            "names them (installed entry points, or PLAYGROUND_PLUGINS)"
        )
    try:
        return config_from_data(data)
    except (ConfigError, SpecError, SummarizerError, LimitError) as error:
        raise ConfigError(f"{file}: {error}") from None


def config_from_data(data: dict[str, Any]) -> Config:
    unknown = [k for k in data if k not in TOP_LEVEL_KEYS]
    if unknown:
        raise ConfigError(f"unknown key {shown(unknown[0])} (known: {', '.join(TOP_LEVEL_KEYS)})")
    version = data.get("version", VERSION)
    if type(version) is not int or version != VERSION:
        raise ConfigError(
            f"version {shown(version)} is not supported (this playground reads version {VERSION})"
        )
    config, defaults = Config(), Settings()
    model = _typed(data, "model", str, defaults.model)
    config.model_given = "model" in data
    if secret_in(model):
        raise ConfigError("model looks like it holds a secret (an API key); name the model only")
    config.window_given = "context_window" in data
    default_window = (
        window_of(model, defaults.context_window) if config.model_given else defaults.context_window
    )
    window = _typed(data, "context_window", int, default_window)
    if not 1_000 <= window <= 100_000_000:
        raise ConfigError(f"context_window must be from 1000 to 100000000, got {shown(window)}")
    config.plugins = _typed(data, "plugins", list, [])
    for plugin in config.plugins:
        if not isinstance(plugin, str):
            raise ConfigError(f"plugins: each entry must be text ('module:Class'), got {shown(plugin)}")
        load_policy_class(plugin)
    summarizer = _typed(data, "summarizer", dict, defaults.summarizer.to_data())
    secrets = [k for k in summarizer if k in SECRET_KEYS]
    if secrets:
        raise ConfigError(
            f"summarizer: {secrets[0]!r} is a secret; set it in the environment, not in a config file"
        )
    summarizer_settings(summarizer)  # validates
    config.settings = Settings(
        model,
        window,
        _typed(data, "pin_standing_rules", bool, defaults.pin_standing_rules),
        SummarizerSpec.of(summarizer),
        _typed(data, "calibrate", bool, defaults.calibrate),
    )
    if data.get("pricing") is not None:
        try:
            config.pricing = Pricing.from_data(data["pricing"])
        except PricingError as error:
            raise ConfigError(str(error)) from None
        if secret_in(config.pricing.model):
            raise ConfigError("pricing.model looks like it holds a secret (an API key); name the model only")
    try:
        config.must_keep = parse_must_keep(_typed(data, "must_keep", list, []))
    except MustKeepError as error:
        raise ConfigError(str(error)) from None
    if any(secret_in(fact.text) for fact in config.must_keep):
        raise ConfigError("must_keep: an entry looks like a secret (an API key); declare facts only")
    stack = _typed(data, "stack", list, [])
    check_stack_size(len(stack))
    config.stack = [parse_entry(entry, n) for n, entry in enumerate(stack, start=1)]
    config.candidates = parse_candidates(_typed(data, "candidates", list, []))
    return config


def parse_candidates(entries: list) -> tuple[Candidate, ...]:
    """The ``candidates:`` list: each ``{name: text, stack: [entries]}``, names distinct."""
    if len(entries) > LIMITS.max_candidates:
        raise over("max_candidates", f"candidates: {len(entries):,} given")
    candidates: list[Candidate] = []
    for n, entry in enumerate(entries, start=1):
        where = f"candidates entry {n}"
        if not isinstance(entry, dict) or set(entry) - {"name", "stack"} or "name" not in entry:
            raise ConfigError(f"{where}: expected {{name: text, stack: [policies]}}, got {shown(entry)}")
        name = entry["name"]
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_CANDIDATE_NAME:
            raise ConfigError(f"{where}: name must be a text of 1 to {MAX_CANDIDATE_NAME} characters")
        if secret_in(name):
            raise ConfigError(f"{where}: the name looks like a secret (an API key)")
        if name in (c.name for c in candidates):
            raise ConfigError(f"{where}: the name {shown(name)} is given twice")
        stack = entry.get("stack") or []
        if not isinstance(stack, list):
            raise ConfigError(f"{where} ({name}): stack must be a list, got {shown(stack)}")
        check_stack_size(len(stack))
        try:
            specs = tuple(parse_entry(e, k) for k, e in enumerate(stack, start=1))
        except ConfigError as error:
            raise ConfigError(f"{where} ({name}): {error}") from None
        candidates.append(Candidate(name, specs))
    return tuple(candidates)


MAX_CANDIDATE_NAME = 80


def _typed(data: dict, key: str, kind: type, default: Any) -> Any:
    value = data.get(key, default)
    if value is None:
        return default
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(f"{key} must be {_TYPE_NAMES[kind]}, got {shown(value)}")
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
        if not isinstance(name, str):
            raise ConfigError(f"{where}: a policy name must be text, got {shown(name)}")
        if not isinstance(params, dict):
            raise ConfigError(f"{where} ({name}): parameters must be a mapping, got {shown(params)}")
    else:
        raise ConfigError(f"{where}: expected a policy name or {{Name: {{parameters}}}}, got {shown(entry)}")
    params = dict(params)
    enabled = params.pop("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError(f"{where} ({name}): enabled must be true or false, got {shown(enabled)}")
    spec = PolicySpec(name, params, enabled)
    try:
        built = spec.build()
    except SpecError as error:
        raise ConfigError(f"{where}: {error}") from None
    return PolicySpec(spec.name, {k: built.given[k] for k in params}, enabled)


MAX_ADDRESS = 16_384  # characters of a page address read; a longer one is refused, not decoded
MAX_ADDRESS_CONFIG = 262_144  # bytes it may inflate to


def address_of(config: Config) -> str:
    """The config as the page's address holds it: compact JSON, deflated, base64url."""
    data = json.dumps(config.to_data(), separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return base64.urlsafe_b64encode(zlib.compress(data, 9)).decode("ascii").rstrip("=")


def config_at(address: str) -> Config:
    """The config a page address holds; ConfigError naming the address for anything else (it is
    a link anyone may have written: bounded before it is inflated, parsed as an upload is)."""
    where = "the page's address"
    if len(address) > MAX_ADDRESS:
        raise ConfigError(f"{where}: a stack of {len(address):,} characters (at most {MAX_ADDRESS:,})")
    try:
        packed = base64.urlsafe_b64decode(address + "=" * (-len(address) % 4))
        inflater = zlib.decompressobj()
        data = inflater.decompress(packed, MAX_ADDRESS_CONFIG)
        text = "" if inflater.unconsumed_tail else data.decode("utf-8")
    except (ValueError, zlib.error, UnicodeDecodeError):
        raise ConfigError(f"{where}: not a stack this playground wrote (it does not decode)") from None
    if inflater.unconsumed_tail:
        raise ConfigError(f"{where}: the stack inflates past {MAX_ADDRESS_CONFIG:,} bytes")
    return parse_config(text, where, allow_plugins=False)
