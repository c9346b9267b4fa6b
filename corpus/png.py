"""PNG files written with zlib alone: a page image needs no imaging library.

deepread draws a cited page with PDFium (pypdfium2, already a dependency) into an RGB
array; writing it as a PNG is a signature, three chunks and one zlib stream of filtered
rows. Pillow is in some installs' tree (matplotlib's, fpdf2's) but not deepread's own, so
the picture is written here rather than adding a dependency for it.
"""

from __future__ import annotations

import struct
import zlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = ["png_bytes"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data))
        + kind
        + data
        + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


def png_bytes(rgb: np.ndarray, *, dpi: float | None = None, level: int = 6) -> bytes:
    """The PNG file of ``rgb`` (height × width × 3, uint8), its resolution recorded
    when ``dpi`` is given. Each row is filtered by "Up" (its difference to the row
    above), which suits a page's runs of text lines and blank paper."""
    import numpy as np

    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected an RGB uint8 image, got {rgb.dtype} {rgb.shape}")
    height, width = int(rgb.shape[0]), int(rgb.shape[1])
    rows = np.ascontiguousarray(rgb).reshape(height, width * 3)
    up = rows.copy()
    up[1:] -= rows[:-1]  # uint8 arithmetic wraps, as the filter's modulo 256 wants
    raw = np.empty((height, width * 3 + 1), dtype=np.uint8)
    raw[:, 0] = 2  # filter type "Up" (the first row's "above" is zeros: the row itself)
    raw[:, 1:] = up
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    out = [_SIGNATURE, _chunk(b"IHDR", header)]
    if dpi:
        per_metre = round(dpi / 0.0254)
        out.append(_chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)))
    out.append(_chunk(b"IDAT", zlib.compress(raw.tobytes(), level)))
    out.append(_chunk(b"IEND", b""))
    return b"".join(out)
