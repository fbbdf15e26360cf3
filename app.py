"""The page's entry point in a checkout: ``streamlit run app.py`` (``make run``). The page itself is
``playground/ui/page.py``, which an installed package runs through ``playground app``."""

from playground.ui.page import main

# the idiom multiprocessing asks for: a sweep's worker processes import this file as
# __mp_main__, and must not run the page
if __name__ == "__main__":
    main()
