"""What the Python test tiers share — the browser tests, the cluster tier and the
real-model tier — so each is written once:

- `harness.net`: free loopback ports, waiting for a URL to answer;
- `harness.stitch`: a Stitchuation server process;
- `harness.selene`: a Selene server process, its API and web sign-in, and the model stand-in
  (`selene-ollama-stub`) as a process;
- `harness.images`: real PNG files built byte by byte;
- `harness.fixtures`: the charts and barcode photos the Swift suite makes, committed, read here.

`Tests/pytest.ini` puts `Tests/` on the import path, so a test imports `harness` directly.
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def binary(name, variable=None):
    """A built executable: the path in `variable` when set, else in BIN_PATH's folder, else the
    debug build's."""
    if variable and os.environ.get(variable):
        return os.environ[variable]
    return os.path.join(os.environ.get("BIN_PATH") or os.path.join(ROOT, ".build", "debug"), name)
