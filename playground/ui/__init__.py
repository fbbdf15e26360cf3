"""Streamlit components: each owns its session keys and holds no domain logic.

May import any room but `cli`; `app.py` wires these components together.
"""
