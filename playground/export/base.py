"""What every export target shares: the result, the header of what cannot be expressed, and
the reading of a stack entry's parameters with their defaults."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from policies.base import Policy, visible
from policies.registry import POLICY_TYPES, PolicySpec


class ExportError(ValueError):
    """A target that does not exist, or a stack that cannot be built."""


@dataclass(frozen=True)
class Unexpressible:
    """One policy (or one of its settings) a target cannot express, and what to do instead."""

    policy: str
    reason: str

    def __str__(self) -> str:
        return f"{self.policy}: {self.reason}"


class Stack(list):
    """A stack made to fit a target, with each change made to reach it (``Unexpressible``
    lines): every target lists them first, where it lists what it cannot express."""

    def __init__(self, specs: list[PolicySpec], changes: list[Unexpressible]) -> None:
        super().__init__(specs)
        self.changes = tuple(changes)


@dataclass(frozen=True)
class Export:
    target: str
    text: str
    filename: str
    language: str  # for the app's code view: python, json, toml
    unexpressible: tuple[Unexpressible, ...] = field(default_factory=tuple)
    notes_in_file: bool = True  # the list above opens the file (a settings file holds only its keys)


def values(spec: PolicySpec) -> dict[str, Any]:
    """Every parameter of a stack entry: what it gives, else the declared default."""
    cls = POLICY_TYPES[spec.name]
    return {p.name: spec.params.get(p.name, p.default) for p in cls.params}


def defaults(spec: PolicySpec) -> dict[str, Any]:
    return {p.name: p.default for p in POLICY_TYPES[spec.name].params}


def translate(
    specs: list[PolicySpec],
    translators: dict[type[Policy], Callable[..., Any]],
    framework: str,
    advice: dict[type[Policy], str],
    fallback: str = "",
) -> tuple[list[Any], list[Unexpressible]]:
    """Each enabled entry through its target's translator (``translator(spec, values,
    missing) -> part or None``); every other entry becomes a header line, with the
    ``advice`` for it (else ``fallback``)."""
    out: list[Any] = []
    missing: list[Unexpressible] = list(getattr(specs, "changes", ()))  # a Stack's, said first
    for spec in specs:
        if not spec.enabled:
            missing.append(Unexpressible(spec.name, "disabled in the stack: not exported"))
            continue
        translator = translators.get(spec.policy)
        if translator is None:
            hint = advice.get(spec.policy, fallback)
            missing.append(
                Unexpressible(spec.name, f"no exact {framework} equivalent" + (f": {hint}" if hint else ""))
            )
            continue
        part = translator(spec, values(spec), missing)
        if part is not None:
            out.append(part)
    return out, missing


def only_one(body: list[Any], missing: list[Unexpressible], policy: type[Policy], why: str) -> list[Any]:
    """A target that holds one such setting: the first; the others listed."""
    missing += [Unexpressible(policy.__name__, why)] * (len(body) - 1)
    return body[:1]


def python_header(framework: str, version: str, lines: list[Unexpressible]) -> str:
    """The comment block every Python export opens with."""
    out = [
        f"# A context-policy stack exported by the Context Policy Playground for {framework}.",
        f"# Written for {version}. Names no key: configure your model's credentials as you do today.",
    ]
    if lines:
        out.append(f"# Not expressible in {framework} as it is (replaced by its nearest, or left out):")
        # visible: no value can end the comment (a newline, U+2028) or the file's encoding
        out += [f"# - {visible(str(line))}" for line in lines]
    else:
        out.append(f"# Every policy of the stack is expressed exactly in {framework}.")
    return "\n".join(out) + "\n"


def py(value: Any) -> str:
    """A parameter value as Python source (plain data only: text, numbers, booleans, lists).
    Text is only ever an escaping literal: ``repr`` where anything in it does not print."""
    if isinstance(value, tuple | list):
        return "[" + ", ".join(py(v) for v in value) + "]"
    if isinstance(value, str):
        if not value.isprintable():
            return repr(value)  # escapes what does not print, lone surrogates included
        return json.dumps(value, ensure_ascii=False)  # a valid Python string literal too
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return f"{value:_}" if abs(value) >= 10_000 else str(value)
    return repr(value)


def call(name: str, arguments: dict[str, Any], indent: str = "    ") -> str:
    """``name(a=1, b=2)``, one argument per line when long."""
    parts = [f"{k}={v if isinstance(v, Raw) else py(v)}" for k, v in arguments.items()]
    flat = f"{name}({', '.join(parts)})"
    if len(flat) + len(indent) <= 100:
        return flat
    inner = indent + "    "
    return f"{name}(\n" + "".join(f"{inner}{p},\n" for p in parts) + f"{indent})"


class Raw(str):
    """Source text placed as is (a name, an expression), not quoted."""
