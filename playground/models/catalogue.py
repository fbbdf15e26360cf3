"""One model, every fact the playground uses about it, from one lookup.

The facts come from three places, each read in one place: genai-prices (the price entry, the
provider and, where it knows it, the window: ``money.pricing.find_price``, which also reads the
names a router or an agent gives a model), the providers' own documents where genai-prices
lacks a window or gives another than the provider documents (``DOCUMENTED_WINDOWS`` below,
each with its source), and OpenAI's tokenizer table (``engine.tokens.encoding_for_model``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from playground.engine.defaults import DEFAULT_WINDOW  # a model no source knows: this window
from playground.engine.replay import Settings
from playground.engine.session import Session
from playground.engine.tokens import encoding_for_model
from playground.money.caching import CacheRule
from playground.money.pricing import Price, default_cache_rule, find_price, genai_prices_release

# (window, source) where genai-prices has no window or another than the provider documents
_GPT_41 = (1_047_576, "OpenAI's model page: 1,047,576 tokens (genai-prices gives 1,000,000)")
DOCUMENTED_WINDOWS: dict[str, tuple[int, str]] = {
    "gpt-4.1": _GPT_41,
    "gpt-4.1-mini": _GPT_41,
    "gpt-4.1-nano": _GPT_41,
    "gemini-2.5-pro": (
        1_048_576,
        "Google's Gemini API model page: 1,048,576 input tokens (genai-prices has none)",
    ),
    "deepseek-chat": (128_000, "DeepSeek's API docs: 128K context (genai-prices gives 64,000)"),
    "deepseek-reasoner": (128_000, "DeepSeek's API docs: 128K context (genai-prices gives 64,000)"),
}

# Anthropic serves a model's 1M-token window only to a request that asks for it (the context-1m
# beta header; Claude Code's model names ending "[1m]"): every other request has 200,000, the
# window Claude Code runs claude-opus-4-6 and claude-sonnet-4-6 in by default (it compacts at
# about 160,000). genai-prices gives the larger figure.
ANTHROPIC_WINDOW = 200_000
ASKS_FOR_1M = "[1m]"

# the app's model picker: the models most sessions run on (any other name can be typed in a
# config or read from a session)
PICKER = (
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4.1",
    "gpt-5",
    "o3",
    "gpt-4-turbo",
    "gpt-3.5-turbo",
    "claude-sonnet-4-5",
    "claude-sonnet-4-6",
    "claude-haiku-4-5",
    "claude-opus-4-1",
    "gemini-2.5-pro",
    "gemini-2.5-flash",
    "deepseek-chat",
)


@dataclass(frozen=True)
class Model:
    """What the playground uses about a model."""

    name: str  # as given (a session's, a config's, the picker's)
    window: int  # the context window a request has, unless it asks for more
    window_source: str  # where that figure comes from
    extended_window: int | None  # the larger window a request may ask for (Anthropic's 1M), if any
    encoding: str  # the tokenizer the playground counts with
    encoding_exact: bool  # False: another vendor's model, counted with o200k_base (approximate)
    price: Price | None  # genai-prices' entry, None where it knows the model under no name
    cache_rule: CacheRule  # the prompt-cache rule of the provider that serves it

    @property
    def provider(self) -> str | None:
        return self.price.provider if self.price else None


def model(name: str, otherwise: int = DEFAULT_WINDOW, seen: int = 0) -> Model:
    """Everything about model ``name``; ``otherwise`` is the window where no source knows one,
    and ``seen`` the largest request the session recorded (a request over Anthropic's default
    window tells that the agent had asked for the larger one)."""
    price = find_price(name)
    base = name.removesuffix(ASKS_FOR_1M)
    documented = DOCUMENTED_WINDOWS.get(price.model if price else base) or DOCUMENTED_WINDOWS.get(base)
    if documented:
        window, source = documented
    elif price and price.context_window:
        window, source = price.context_window, f"genai-prices {genai_prices_release()}"
    else:
        window, source = otherwise, "no source knows it: the window given"
    extended = None
    if price and price.provider == "anthropic" and window > ANTHROPIC_WINDOW:
        extended = window
        if not (name.endswith(ASKS_FOR_1M) or seen > ANTHROPIC_WINDOW):
            window, source = ANTHROPIC_WINDOW, "Anthropic's default window (1M only on request)"
    encoding, exact = encoding_for_model(base)
    return Model(name, window, source, extended, encoding, exact, price, default_cache_rule(price, base))


def window_of(name: str, otherwise: int = DEFAULT_WINDOW, seen: int = 0) -> int:
    """Model ``name``'s context window (``model``'s rule)."""
    return model(name, otherwise, seen).window


def at_recorded_model(settings: Settings, session: Session) -> Settings:
    """``settings`` at the model ``session`` records answering most of its calls, with the
    window the agent had: the one its file records where it records one (Codex's
    ``model_context_window``), else ``window_of`` (a call recorded over the default window
    telling that it asked for the larger one); as they are where it records neither."""
    model = session.recorded_model or settings.model
    if session.recorded_window:
        window = session.recorded_window
    elif session.recorded_model and model != settings.model:
        window = window_of(model, settings.context_window, max(session.usage.values(), default=0))
    else:
        return settings
    if (model, window) == (settings.model, settings.context_window):
        return settings
    return replace(settings, model=model, context_window=window)


def window_words(session: Session, window: int) -> str:
    """Where a replay's window differs from the one the agent's file records: a sentence
    saying so (a config's ``context_window`` is used as given, never overridden in silence);
    "" where they agree or the file records none."""
    recorded = session.recorded_window
    if not recorded or recorded == window:
        return ""
    return (
        f"The replay's window is {window:,} tokens; the agent's file records {recorded:,} "
        "(its model_context_window): the triggers, the over-window flags and the prices follow the "
        "window given."
    )
