"""openrepro: run a community, claim-by-claim reproduction challenge of a research conference."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("openrepro")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0"

__all__ = ["__version__"]
