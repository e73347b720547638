"""Real PDFs, written object by object with a correct cross-reference table: charts of N pages
(titled "Page N" over a grid; optionally encrypted with a user password, so nothing opens it
without one), pages of text at points (a chart's colour key), and compressed A4 charts."""
import zlib


def pdf(pages, encrypted=False):
    objs = {1: "<< /Type /Catalog /Pages 2 0 R >>"}
    font = 3 + 2 * pages
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(pages))
    objs[2] = f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>"
    for i in range(pages):
        grid = " ".join(f"{72 + x * 18} 100 m {72 + x * 18} 600 l S" for x in range(27))
        content = f"BT /F1 48 Tf 72 700 Td (Page {i + 1}) Tj ET 0.5 w {grid}"
        objs[3 + 2 * i] = (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
                           f"/Resources << /Font << /F1 {font} 0 R >> >> >>")
        objs[4 + 2 * i] = f"<< /Length {len(content)} >>\nstream\n{content}\nendstream"
    objs[font] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
    extra = ""
    if encrypted:
        objs[font + 1] = "<< /Filter /Standard /V 1 /R 2 /O <" + "ab" * 32 + "> /U <" + "cd" * 32 + "> /P -4 >>"
        extra = f" /Encrypt {font + 1} 0 R /ID [<{'01' * 16}> <{'01' * 16}>]"
    return assemble(objs, extra)


def assemble(objs, extra=""):
    """Numbered objects (1 the catalog; text, or bytes for a binary stream) as a PDF file with its
    cross-reference table."""
    out = b"%PDF-1.4\n"
    offsets = {}
    for k in sorted(objs):
        offsets[k] = len(out)
        body = objs[k] if isinstance(objs[k], bytes) else objs[k].encode()
        out += f"{k} 0 obj\n".encode() + body + b"\nendobj\n"
    size = max(objs) + 1
    xref = len(out)
    out += f"xref\n0 {size}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offsets[k]:010d} 00000 n \n".encode() for k in range(1, size))
    out += f"trailer\n<< /Size {size} /Root 1 0 R{extra} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def text_pdf(pages):
    """A PDF whose pages carry text at points, [(x, y, text, size), …] each (Helvetica), so
    `pdftotext -layout` lays it out in columns as a charting program's key is."""
    objs = {1: "<< /Type /Catalog /Pages 2 0 R >>"}
    font = 3 + 2 * len(pages)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objs[2] = f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>"
    for i, texts in enumerate(pages):
        escape = lambda t: t.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        content = "\n".join(f"BT /F1 {s} Tf {x} {y} Td ({escape(t)}) Tj ET" for x, y, t, s in texts)
        objs[3 + 2 * i] = (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
                           f"/Resources << /Font << /F1 {font} 0 R >> >> >>")
        objs[4 + 2 * i] = f"<< /Length {len(content)} >>\nstream\n{content}\nendstream"
    objs[font] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    return assemble(objs)


def chart_with_key():
    """A one-page chart on 14 count with its key as a table: DMC 310 (1 skein), DMC 3865 (5,000
    stitches: 3 skeins by the stated rule), Anchor 403 (1 skein), and a Madeira row no catalog
    has (listed as not read)."""
    rows = [["Symbol", "Strands", "Brand", "Number", "Colour name", "Stitches", "Skeins"],
            ["X", "2", "DMC", "310", "Black", "1250", "1"],
            ["O", "2", "DMC", "3865", "Winter White", "5000", ""],
            ["#", "2", "Anchor", "403", "Black", "300", "1"],
            ["%", "2", "Madeira", "2400", "White", "200", "1"]]
    columns = [72, 120, 170, 230, 290, 400, 460]
    texts = [(72, 740, "Spring Meadow - 14 count Aida", 16)]
    texts += [(72, 700 - 12 * k, "X O # X O # " * 4, 9) for k in range(6)]
    texts += [(x, 600 - 13 * n, cell, 9) for n, cells in enumerate(rows) for x, cell in zip(columns, cells) if cell]
    return text_pdf([texts])


def chart_pdf(pages):
    """A4 pages, each a compressed grid with its number: what poppler draws, page by page."""
    objs = {1: "<< /Type /Catalog /Pages 2 0 R >>", 3: "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
    kids = []
    for n in range(1, pages + 1):
        grid = b"".join(b"%d 60 m %d 780 l " % (x, x) for x in range(60, 540, 12)) + b"".join(b"60 %d m 540 %d l " % (y, y) for y in range(60, 780, 12))
        content = zlib.compress(b"0.5 w " + grid + b"S BT /F1 48 Tf 240 400 Td (Page %d) Tj ET" % n)
        stream, page = 2 + 2 * n, 3 + 2 * n
        objs[stream] = b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content) + content + b"\nendstream"
        objs[page] = f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents {stream} 0 R >>"
        kids.append(page)
    objs[2] = f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {pages} >>"
    return assemble(objs)
