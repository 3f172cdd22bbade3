"""Page "Lesson": why 10,000 chunks of 20 documents are not 10,000 cases, for teachers, one step per
screen (a figure, a control, two sentences), sized for a projector.

Every step at every value of its control is computed once per data choice (dashboard.lesson, with the
figures and sentences of ragunc.present.lesson) and drawn in the browser, so Next, Back and the controls
switch there without a round trip.  The step and each step's control are in the URL (``?step=3``).
"""

from __future__ import annotations

import streamlit as st

from dashboard import lesson
from dashboard.routing import require_app
from dashboard.url_state import stop, sync_url

require_app()  # before anything: a first visitor's deep link reruns through app.py

shown = st.container()
data = lesson.lesson_data(lesson.data_choice())
if data.error:
    with shown:
        stop(lesson.data_error(data))
view = lesson.lesson_view(data)
with shown:
    lesson.draw(view, lesson.shown_state(view))
sync_url()
