"""Photos of EAN-13 barcodes for the scan tests, drawn here (no imaging library): the bars module
by module, turned by an angle, grey on grey, written as a greyscale PNG."""
import math

from harness.images import png

L = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
R = ["".join("1" if c == "0" else "0" for c in code) for code in L]
G = [code[::-1] for code in R]
PARITY = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLG", "LGLGGL", "LGLGLL", "LGGLGL"]


def ean13(payload):
    """A valid EAN-13 from its first 12 digits."""
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(payload)))
    return payload + str((10 - total % 10) % 10)


def modules(code):
    digits = [int(c) for c in code]
    bits = "101"
    for i, p in enumerate(PARITY[digits[0]]):
        bits += (L if p == "L" else G)[digits[i + 1]]
    bits += "01010" + "".join(R[d] for d in digits[7:]) + "101"
    return [b == "1" for b in bits]


def photo(code, module=3, degrees=0.0, ink=30, paper=225):
    bars = modules(code)
    code_w, code_h = (len(bars) + 20) * module, 60 * module
    side = int(math.hypot(code_w, code_h)) + 20
    cos_a, sin_a = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))

    def pixel(x, y):
        dx, dy = x - side / 2, y - side / 2
        u, v = dx * cos_a + dy * sin_a + code_w / 2, -dx * sin_a + dy * cos_a + code_h / 2
        if 0 <= u < code_w and 0 <= v < code_h:
            index = int(u) // module - 10
            if 0 <= index < len(bars) and bars[index]:
                return ink
        return paper

    return png(side, side, pixel)


def no_barcode(width=320, height=240):
    return png(width, height, lambda x, y: 90 + x * 60 // width + y * 40 // height + ((x // 40 + y // 30) % 3) * 30)
