"""Instagram and TikTok as a browser meets them, on a loopback port: each provider's authorize
page (an "Allow" button that sends the browser back with a code and the state, as the real pages
do), its token endpoint (form-encoded, client credentials checked; TikTok checks the PKCE verifier
against the S256 challenge it was shown) and its user-info endpoint. Only what the real flows
carry; the codes are single-use."""
import base64
import hashlib
import html
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

INSTAGRAM = {"client_id": "ig-web-client", "secret": "ig-web-secret", "user": {"id": "17841400000000009", "username": "stitchy_ig"}}
TIKTOK = {"client_key": "tt-web-client", "secret": "tt-web-secret", "user": {"open_id": "tt-open-id-9", "display_name": "Stitchy TT"}}


class StandInHandler(BaseHTTPRequestHandler):
    """A provider stand-in's request handler: quiet, and one way to answer."""
    def log_message(self, *args):
        pass

    def reply(self, status, body, kind="application/json"):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Providers:
    def __init__(self):
        self.codes = {}  # code -> {"provider", "redirect_uri", "challenge"}
        self.tokens = {}  # access token -> provider
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()

    def env(self, stitch_base):
        """The stitchuation server's settings pointing at this stand-in."""
        return {
            "INSTAGRAM_CLIENT_ID": INSTAGRAM["client_id"], "INSTAGRAM_CLIENT_SECRET": INSTAGRAM["secret"],
            "INSTAGRAM_AUTHORIZE_URL": self.base + "/instagram/oauth/authorize",
            "INSTAGRAM_TOKEN_URL": self.base + "/instagram/oauth/access_token",
            "INSTAGRAM_USERINFO_URL": self.base + "/instagram/me?fields=id,username",
            "INSTAGRAM_WEB_REDIRECT_URI": stitch_base + "/app/signin/instagram/callback",
            "TIKTOK_CLIENT_ID": TIKTOK["client_key"], "TIKTOK_CLIENT_SECRET": TIKTOK["secret"],
            "TIKTOK_AUTHORIZE_URL": self.base + "/tiktok/v2/auth/authorize/",
            "TIKTOK_TOKEN_URL": self.base + "/tiktok/v2/oauth/token/",
            "TIKTOK_USERINFO_URL": self.base + "/tiktok/v2/user/info/?fields=open_id,union_id,display_name",
            "TIKTOK_WEB_REDIRECT_URI": stitch_base + "/app/signin/tiktok/callback",
        }

    def _handler(self):
        providers = self

        class Handler(StandInHandler):

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                q = dict(urllib.parse.parse_qsl(url.query))
                if url.path in ("/instagram/oauth/authorize", "/tiktok/v2/auth/authorize/"):
                    provider = "instagram" if url.path.startswith("/instagram") else "tiktok"
                    client = q.get("client_id") if provider == "instagram" else q.get("client_key")
                    expected = INSTAGRAM["client_id"] if provider == "instagram" else TIKTOK["client_key"]
                    if client != expected or q.get("response_type") != "code" or not q.get("redirect_uri") or not q.get("state"):
                        return self.reply(400, "<p>Invalid request</p>", "text/html")
                    if provider == "tiktok" and (q.get("code_challenge_method") != "S256" or not q.get("code_challenge")):
                        return self.reply(400, "<p>PKCE required</p>", "text/html")
                    code = base64.urlsafe_b64encode(hashlib.sha256(q["state"].encode()).digest()).decode().rstrip("=")
                    with providers.lock:
                        providers.codes[code] = {"provider": provider, "redirect_uri": q["redirect_uri"], "challenge": q.get("code_challenge")}
                    back = q["redirect_uri"] + "?" + urllib.parse.urlencode({"code": code, "state": q["state"]})
                    deny = q["redirect_uri"] + "?" + urllib.parse.urlencode({"error": "access_denied", "state": q["state"]})
                    name = "Instagram" if provider == "instagram" else "TikTok"
                    page = (f"<!doctype html><title>{name}</title><h1>{name}</h1><p>Stitchuation wants to know who you are.</p>"
                            f"<a id='allow' href='{html.escape(back)}'>Allow</a> <a id='deny' href='{html.escape(deny)}'>Cancel</a>")
                    return self.reply(200, page, "text/html")
                if url.path == "/instagram/me":
                    with providers.lock:
                        ok = providers.tokens.get(q.get("access_token")) == "instagram"
                    if not ok:
                        return self.reply(400, json.dumps({"error": {"message": "Invalid OAuth access token", "type": "OAuthException", "code": 190}}))
                    return self.reply(200, json.dumps(INSTAGRAM["user"]))
                if url.path == "/tiktok/v2/user/info/":
                    token = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                    with providers.lock:
                        ok = providers.tokens.get(token) == "tiktok"
                    if not ok:
                        return self.reply(401, json.dumps({"data": {}, "error": {"code": "access_token_invalid", "message": "", "log_id": "x"}}))
                    return self.reply(200, json.dumps({"data": {"user": dict(TIKTOK["user"], union_id="u-9")}, "error": {"code": "ok", "message": "", "log_id": "x"}}))
                self.reply(404, "{}")

            def do_POST(self):
                url = urllib.parse.urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                with providers.lock:
                    grant = providers.codes.pop(form.get("code", ""), None)  # single use
                if url.path == "/instagram/oauth/access_token":
                    if (form.get("client_id"), form.get("client_secret")) != (INSTAGRAM["client_id"], INSTAGRAM["secret"]) \
                            or grant is None or grant["provider"] != "instagram" or form.get("redirect_uri") != grant["redirect_uri"]:
                        return self.reply(400, json.dumps({"error_type": "OAuthException", "code": 400, "error_message": "Invalid authorization code"}))
                    token = "IGQV-" + form["code"]
                    with providers.lock:
                        providers.tokens[token] = "instagram"
                    return self.reply(200, json.dumps({"access_token": token, "user_id": int(INSTAGRAM["user"]["id"]), "permissions": ["instagram_business_basic"]}))
                if url.path == "/tiktok/v2/oauth/token/":
                    verifier = form.get("code_verifier", "")
                    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
                    if (form.get("client_key"), form.get("client_secret")) != (TIKTOK["client_key"], TIKTOK["secret"]) \
                            or grant is None or grant["provider"] != "tiktok" or form.get("redirect_uri") != grant["redirect_uri"] \
                            or challenge != grant["challenge"]:
                        return self.reply(400, json.dumps({"error": "invalid_grant", "error_description": "Authorization code is expired or invalid", "log_id": "x"}))
                    token = "act." + form["code"]
                    with providers.lock:
                        providers.tokens[token] = "tiktok"
                    return self.reply(200, json.dumps({"access_token": token, "open_id": TIKTOK["user"]["open_id"], "scope": "user.info.basic",
                                                       "expires_in": 86400, "token_type": "Bearer"}))
                self.reply(404, "{}")

        return Handler
