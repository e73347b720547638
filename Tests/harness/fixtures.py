"""Test files made once, by the Swift suite's builders (`TestPDF`, `TestChart`, `BarcodeImages`),
and committed under `Tests/Fixtures/made/` so the Python tiers upload the same bytes
(`FixtureFilesTests` checks they are still what the builders make)."""
import os

from harness import ROOT

FOLDER = os.path.join(ROOT, "Tests", "Fixtures", "made")

# The codes in the barcode photos (EAN-13, check digit included).
OWNED_BARCODE = "5012345678900"
UNKNOWN_BARCODE = "4006381333931"


def made(name):
    """A fixture file's bytes: chart-12-pages.pdf, chart-encrypted.pdf, chart-with-key.pdf,
    a4-chart-10-pages.pdf, a4-chart-80-pages.pdf, barcode-owned.png, barcode-unknown.png,
    no-barcode.png."""
    with open(os.path.join(FOLDER, name), "rb") as f:
        return f.read()
