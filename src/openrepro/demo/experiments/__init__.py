"""The demo participants' experiment scripts: real, small reproductions (pure Python, numpy).

Each script is copied into a participant's workspace and run there through
``trackio logbook run -- python <script>.py ...``; it logs its measured values with
``trackio.log`` under the keys the claim's check names (``claims/<claim id>/<quantity>``, given
as ``--metric``, ``--baseline-metric`` and ``--sweep-metric``), as ``INSTRUCTIONS.md`` asks:
each seed in its own Trackio run, and one run per point of a sweep.
"""
