"""What a browser's fetch sends and reads for Connect streams: enveloped messages.

A test helper only (the server side is connectrpc's): five bytes of flags and
length before each message, and an end-of-stream message (flag 2) that carries
the status as JSON.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from typing import Any

END_STREAM = 0x02


def envelope(message: dict[str, Any]) -> bytes:
    data = json.dumps(message).encode()
    return struct.pack(">BI", 0, len(data)) + data


def frames(chunks: Iterator[bytes]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(flags, JSON message) of each envelope as the bytes arrive."""
    buffer = b""
    for chunk in chunks:
        buffer += chunk
        while len(buffer) >= 5:
            flags, size = struct.unpack(">BI", buffer[:5])
            if len(buffer) < 5 + size:
                break
            yield flags, json.loads(buffer[5 : 5 + size] or b"{}")
            buffer = buffer[5 + size :]
