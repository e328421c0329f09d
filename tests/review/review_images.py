"""Small PNG pairs for the review tests: pair ``i`` has a grey A and B image; the brighter side
is the right answer to "which image is brighter?" (equal brightness: ``same``)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

__all__ = ["brightness_of", "make_pairs", "truth"]


def truth(i: int) -> str:
    """The unblinded right answer for pair ``i``: ``A``, ``B`` or ``same``."""
    return ("A", "B", "same")[i % 3]


def make_pairs(root: Path, count: int) -> tuple[Path, Path]:
    a_dir, b_dir = root / "full", root / "quantized"
    a_dir.mkdir(parents=True)
    b_dir.mkdir(parents=True)
    for i in range(count):
        a = 90 + i % 40
        b = {"A": a - 40, "B": a + 40, "same": a}[truth(i)]
        Image.new("L", (16, 16), a).save(a_dir / f"pair_{i:03d}.png")
        Image.new("L", (16, 16), b).save(b_dir / f"pair_{i:03d}.png")
    (a_dir / "only_here.png").write_bytes((a_dir / "pair_000.png").read_bytes())  # unmatched
    return a_dir, b_dir


def brightness_of(data: bytes) -> float:
    from io import BytesIO

    with Image.open(BytesIO(data)) as image:
        pixels = image.convert("L").tobytes()
    return sum(pixels) / len(pixels)
