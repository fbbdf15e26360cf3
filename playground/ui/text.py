"""Transcript text on the page as text: never markdown, never HTML, whatever it holds.

Anything read from an upload (session names, message text, reader warnings, error
messages that quote a file) goes through one of these before Streamlit renders it.
"""

from __future__ import annotations

import html
import re

# CommonMark lets a backslash escape any ASCII punctuation; Streamlit adds :emoji:,
# :color[...] directives and $math$, all covered by escaping every punctuation character.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
# GitHub-flavoured markdown links bare URLs and e-mail addresses after parsing, escapes or not
# (mdast-util-gfm-autolink-literal matches `https?://`, `www.` and `x@y.z` in the text). An
# invisible word joiner inside each such prefix leaves the text as it reads and unlinked.
_AUTOLINK = re.compile(r"(?i)(?<=https)(?=:)|(?<=http)(?=:)|(?<=www)(?=\.)|(?=@)")
WORD_JOINER = "\u2060"


def escape_markdown(text: str) -> str:
    """``text`` for st.markdown, st.caption, st.error and friends: shown exactly, no links or images."""
    return _PUNCTUATION.sub(r"\\\1", _AUTOLINK.sub(WORD_JOINER, str(text)))


def html_text(text: str) -> str:
    """``text`` inside our own HTML (``unsafe_allow_html``): escaped, and with no blank line
    that would end the HTML block and let markdown parse the rest."""
    return html.escape(str(text)).replace("\n", "&#10;")
