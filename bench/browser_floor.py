"""The floor of bench/bench_browser.py: the least a Streamlit rerun costs, one slider and one line of text.

A slider move here costs what Streamlit itself costs (the websocket round trip, the script run, the
React update), so the explorer's moves are printed as a ratio to it.
"""

import streamlit as st

k = st.slider("K: documents per sample", 2, 600, 20, key="k")
st.write(f"K = {k}")
