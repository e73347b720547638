"""A Web Push service stand-in for the browser tests: it receives what Selene sends to a
subscription, checks the VAPID JWT (ES256 by the key in `k=`, audience, expiry) and decrypts
the message (RFC 8291 / RFC 8188) with the subscription's private key and auth secret, as a
browser would. Written apart from the server's Swift code (with Python's `cryptography`)."""
import base64
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hkdf(salt, ikm, info, length):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


class PushService:
    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.public = self.key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.auth = os.urandom(16)
        self.received = []
        self.errors = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    service.received.append(service.open(self.headers, body, f"http://127.0.0.1:{self.server.server_port}"))
                    self.send_response(201)
                except Exception as error:  # noqa: BLE001  (the test reads what went wrong)
                    service.errors.append(repr(error))
                    self.send_response(400)
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def subscription(self):
        return {"endpoint": self.url + "/push/browser-1", "keys": {"p256dh": b64url(self.public), "auth": b64url(self.auth)}}

    def open(self, headers, body, audience):
        assert headers["Content-Encoding"] == "aes128gcm" and int(headers["TTL"]) > 0
        scheme, _, params = headers["Authorization"].partition(" ")
        assert scheme == "vapid", headers["Authorization"]
        fields = dict(part.strip().split("=", 1) for part in params.split(","))
        signer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(fields["k"]))
        head, claims, signature = fields["t"].split(".")
        raw = unb64url(signature)
        signer.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
                      f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
        claims = json.loads(unb64url(claims))
        assert claims["aud"] == audience and claims["exp"] > time.time() and claims["sub"].startswith("mailto:"), claims
        salt, record_size, id_length = body[:16], int.from_bytes(body[16:20], "big"), body[20]
        sender = body[21:21 + id_length]
        assert record_size >= 18 and id_length == 65
        shared = self.key.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender))
        ikm = hkdf(self.auth, shared, b"WebPush: info\x00" + self.public + sender, 32)
        cek = hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
        nonce = hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
        plain = AESGCM(cek).decrypt(nonce, body[21 + id_length:], None).rstrip(b"\x00")
        assert plain.endswith(b"\x02"), plain
        return {"server_key": fields["k"], "payload": json.loads(plain[:-1])}

    def stop(self):
        self.server.shutdown()
