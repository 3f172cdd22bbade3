"""Presentation: Plotly figure builders (pure, return ``go.Figure``), the one-page HTML summary and
the plain-language reading.  May import every layer below it; nothing but ``cli`` imports it."""
