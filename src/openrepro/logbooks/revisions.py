"""The newest revision of each logbook: defined in :mod:`openrepro.store.revisions` (a query on
the store's tables only, so that ``claims/`` can queue a paper's logbooks without importing
``logbooks/``); kept here under its former name for the modules that import it from here."""

from openrepro.store.revisions import latest_logbook_ids, latest_logbook_select

__all__ = ["latest_logbook_ids", "latest_logbook_select"]
