"""Streamlit entry point: page setup and wiring only (the app itself lives in playground/ui)."""

import streamlit as st

st.set_page_config(page_title="Context Policy Playground", layout="wide")
st.title("Context Policy Playground")
st.info("The app is being built; use the CLI meanwhile: `playground replay FILE`.")
