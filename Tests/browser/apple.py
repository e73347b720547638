"""Sign in with Apple as a browser meets it, on a loopback port: the authorize page (a "Continue"
button that posts the identity token and the state back to the site, as Apple's form_post does),
the JWKS the site checks the token's RS256 signature with, and `mint`, which issues a token for
any Apple ID and nonce — what an attacker gets by starting a sign-in of their own."""
import base64
import html
import json
import threading
import time
import urllib.parse
from http.server import ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from providers import StandInHandler

CLIENT_ID = "com.stitchuation.web"


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Apple:
    def __init__(self):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "stand-in-key"
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()

    def env(self, stitch_base):
        return {"APPLE_CLIENT_ID": CLIENT_ID, "APPLE_JWKS_URL": self.base + "/auth/keys",
                "APPLE_AUTHORIZE_URL": self.base + "/auth/authorize",
                "APPLE_WEB_REDIRECT_URI": stitch_base + "/app/signin/apple/callback"}

    def token(self, sub, nonce, email=None):
        header = {"alg": "RS256", "kid": self.kid, "typ": "JWT"}
        now = int(time.time())
        claims = {"iss": "https://appleid.apple.com", "aud": CLIENT_ID, "sub": sub, "iat": now, "exp": now + 600, "nonce": nonce}
        if email:
            claims["email"] = email
        signing_input = (b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())).encode()
        signature = self.key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        return signing_input.decode() + "." + b64(signature)

    def form_post(self, action, fields, auto=False):
        inputs = "".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">' for k, v in fields.items())
        script = "<script>document.forms[0].submit()</script>" if auto else ""
        return (f'<!doctype html><title>Apple</title><h1>Apple ID</h1><form method="post" action="{html.escape(action)}">{inputs}'
                f'<button id="allow" type="submit">Continue</button></form>{script}')

    def _handler(self):
        apple = self

        class Handler(StandInHandler):
            def answer(self, status, body, kind="text/html; charset=utf-8"):
                self.reply(status, body, kind)

            def do_GET(self):
                url = urllib.parse.urlparse(self.path)
                q = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
                if url.path == "/auth/keys":
                    numbers = apple.key.public_key().public_numbers()
                    jwk = {"kty": "RSA", "kid": apple.kid, "use": "sig", "alg": "RS256",
                           "n": b64(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")), "e": b64(numbers.e.to_bytes(3, "big"))}
                    return self.answer(200, json.dumps({"keys": [jwk]}), "application/json")
                if url.path == "/auth/authorize":
                    # The person signs in with their Apple ID ("ann-apple"); Apple posts back.
                    token = apple.token("ann-apple-id", q["nonce"], "ann@privaterelay.appleid.com")
                    return self.answer(200, apple.form_post(q["redirect_uri"], {"state": q["state"], "id_token": token}))
                if url.path == "/mint":
                    return self.answer(200, apple.token(q["sub"], q["nonce"]), "text/plain")
                if url.path == "/lure":
                    # An attacker's page: finishes the attacker's own sign-in in the visitor's browser.
                    return self.answer(200, apple.form_post(q["action"], {"state": q["state"], "id_token": q["id_token"]}, auto=True))
                self.answer(404, "not found")

        return Handler
