"""Free loopback ports and waiting for a server to answer."""
import socket
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, proc=None, log=None, seconds=60):
    """Waits until `url` answers 200. Gives up when `proc` exits or after `seconds` (killing
    `proc`), saying why with the end of its output: the file `log`, or its piped stdout."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(url, timeout=1).status == 200:
                return
        except Exception:
            if proc is not None and proc.poll() is not None:
                break
            time.sleep(0.1)
    exited = proc is not None and proc.poll() is not None
    if proc is not None and not exited:
        proc.kill()
        proc.wait(timeout=10)
    output = ""
    if log:
        with open(log, errors="replace") as f:
            output = f.read()[-3000:]
    elif proc is not None and proc.stdout is not None:
        output = proc.stdout.read()
        output = (output.decode(errors="replace") if isinstance(output, bytes) else output)[-3000:]
    raise RuntimeError(f"{url} did not answer" + (" (the process exited)" if exited else "") + (": " + output if output else ""))


def until(condition, seconds, what):
    """Waits until `condition()` is true, checking every tenth of a second; after `seconds`,
    fails saying `what` was waited for."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what}: not seen after {seconds} s")
