"""openrepro: run a community, claim-by-claim reproduction challenge of a research conference."""

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    """``__version__``, read from the installed package's metadata the first time it is asked
    for (``importlib.metadata`` costs more than the command line's own start)."""
    if name != "__version__":
        raise AttributeError(f"module 'openrepro' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("openrepro")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
        found = "0.0.0"
    globals()["__version__"] = found
    return found
