"""The real `stitchuation` binary as a process: on a free loopback port with a data folder (its
own, or one it shares with another instance), its output in a log file; `kill()` is a SIGKILL,
`stop()` and `start()` again keep its port and data: a server that goes away and comes back."""
import os
import shutil
import signal
import subprocess
import tempfile

from harness import binary
from harness.net import free_port, wait_for

STITCHUATION = binary("stitchuation", "STITCH_SERVER_BIN")


class Stitchuation:
    def __init__(self, env, data=None, log=None, port=None):
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.owns_data = data is None
        self.data = data or tempfile.mkdtemp(prefix="stitch-")
        self.log = log or os.path.join(self.data, "stitchuation.log")
        self.env = dict(env, DATA_DIR=self.data, PORT=str(self.port), HOST="127.0.0.1")
        self.proc = None

    def launch(self):
        """Starts it without waiting (two instances start at once)."""
        self.proc = subprocess.Popen([STITCHUATION, "serve"], env=self.env, stdout=open(self.log, "a"), stderr=subprocess.STDOUT)
        return self

    def ready(self, seconds=60):
        wait_for(self.base + "/health", self.proc, self.log, seconds)
        return self

    def start(self):
        return self.launch().ready()

    def kill(self):
        """SIGKILL: no shutdown, no flush: what a crash leaves."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc = None

    def close(self):
        self.stop()
        if self.owns_data:
            shutil.rmtree(self.data, ignore_errors=True)
