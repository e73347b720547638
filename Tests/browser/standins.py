"""Apple, Instagram and TikTok as a browser meets them: the `provider-standins` executable
(PROVIDER_STANDINS_BIN; the stand-ins the server's Swift suites run in process, `ProviderStandIns`,
with the web app's settings) on a free loopback port. Each provider's authorize page ("Allow" /
"Continue" back to the site, "Cancel"), token and user-info endpoints, Apple's keys, and Apple's
`/apple/mint` (a token for any Apple ID and nonce: what an attacker gets by starting a sign-in of
their own) and `/apple/lure` (an attacker's page finishing it in the visitor's browser)."""
import json
import subprocess

from harness import binary


class StandIns:
    def __init__(self):
        self.proc = subprocess.Popen([binary("provider-standins", "PROVIDER_STANDINS_BIN")],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        ready = json.loads(self.proc.stdout.readline())
        self.base = ready["base"]
        self._env = ready["env"]

    def env(self, site):
        """The stitchuation server's settings pointing at the stand-ins, for a site at `site`."""
        return {name: value.replace("{site}", site) for name, value in self._env.items()}

    def stop(self):
        self.proc.kill()
        self.proc.wait()
