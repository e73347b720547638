"""Real PNG files, written chunk by chunk."""
import struct
import zlib


def png(width, height, pixel):
    """A PNG whose pixel at (x, y) is `pixel(x, y)`: a grey level (0–255), or an (r, g, b) tuple
    for a colour image (the first pixel decides which)."""
    colour = isinstance(pixel(0, 0), tuple)
    raw = bytearray()
    for y in range(height):
        raw.append(0)
        for x in range(width):
            value = pixel(x, y)
            if colour:
                raw.extend(value)
            else:
                raw.append(value)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2 if colour else 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(raw), 6)) + chunk(b"IEND", b""))
