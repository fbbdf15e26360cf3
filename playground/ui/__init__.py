"""Streamlit components: each owns its session keys and holds no domain logic."""
