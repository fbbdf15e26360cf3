"""Page layout rules that Streamlit has no parameter for."""

from __future__ import annotations

# Streamlit stacks columns under each other below 640 px, in their order: the editor would
# push every figure below the fold on a phone. Wrapping the page's own two columns in reverse
# puts the results first there; wide screens keep the editor on the left. Only the columns of
# the keyed "layout" container are touched, never the rows of metrics inside the results.
# The page starts closer to the top than Streamlit's 6rem: the lead figures fit a laptop's
# first screen with the first chart.
NARROW_SCREEN_CSS = """<style>
@media (max-width: 640px) {
  .st-key-layout > [data-testid="stHorizontalBlock"],
  .st-key-layout > div > [data-testid="stHorizontalBlock"] { flex-wrap: wrap-reverse; }
}
/* the answer above the fold on a laptop: less empty space above the title */
.stMainBlockContainer { padding-top: 2.5rem; }
</style>"""
