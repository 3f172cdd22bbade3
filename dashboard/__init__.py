"""The dashboard's support code (app.py and pages/ import it as a package), one module per concern.

``sources``      the per-chunk data sources of the sidebar (bundled samples, upload, your corpus in any language,
                 synthetic population, chunk sizes computed live from a corpus) and the column peek of an upload
``run_sources``  the runs and qrels of the Ranking metrics page (bundled sample run and runs, a worked example,
                 upload)
``cache``        ``cached(...)``, the one LRU helper every cached ragunc call goes through (keyed by its
                 arguments' contents), and ``figure(...)``
``evalset_work`` where the evaluation-set page keeps a visitor's uploads and one folder per set
``explorer_view`` the explorer's component (drawn in the browser from the view of every K)
``lesson``       the lesson's data, its view of every step and control value, and its component
``in_browser``   what the components drawn in the browser share: their served files and published views
``url_state``    controls bound to the URL's query parameters (``bind``, ``sync_url``, ``clamp``, ``one_of``, ...)
``routing``      every page under app.py's router, also for a first visitor's deep link
``serving``      the server ``streamlit run app.py`` starts: each page's own URL names where the server is
``widgets``      controls shared by pages (confidence level, seed, K, estimator, config, B/R choices), page intro

No statistics here: every number comes from ``ragunc``.  It is importable wherever app.py runs
(``streamlit run app.py`` puts app.py's folder on the import path; the tests get it from pytest's
``pythonpath`` setting), so nothing in the app edits the import path.
"""
