"""The demo participants' experiment scripts: real, small, pure-Python reproductions.

Each script is copied into a participant's workspace and run there through
``trackio logbook run -- python <script>.py ...``; it logs its measured values with
``trackio.log`` under ``claims/<paper>/<key>/<metric>``, as ``INSTRUCTIONS.md`` asks.
"""
