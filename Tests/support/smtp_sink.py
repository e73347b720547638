#!/usr/bin/env python3
"""A real SMTP server (aiosmtpd, PyPI) on a loopback port for the tests of Stitchuation's mail.

Every message it accepts is written to DIR/NNNN.json: the envelope, the decoded subject, headers
and plain-text body, whether it came over TLS and who signed in. With --tls starttls (the default)
it offers STARTTLS with a self-signed certificate for "localhost" (DIR/cert.pem, for the client to
trust) and refuses MAIL before it; with --tls implicit it speaks TLS from the first byte; with
--tls none, plain text. With --user NAME:PASSWORD it requires AUTH (PLAIN or LOGIN) over TLS.

Prints "port N" once it listens, then runs until killed (or, with --until-stdin-closes, until its
standard input closes: a test's sink ends with the test's process whatever happens to it).
"""
import argparse
import email
import email.policy
import json
import logging
import os
import socket
import ssl
import subprocess
import sys
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Sink:
    def __init__(self, folder, implicit_tls):
        self.folder = folder
        self.implicit_tls = implicit_tls
        self.count = 0

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        body = message.get_body(preferencelist=("plain",))
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "from": str(message["from"]),
            "to": str(message["to"]),
            "subject": str(message["subject"]),
            "message_id": str(message["message-id"]),
            "date": str(message["date"]),
            "body": body.get_content() if body is not None else "",
            "tls": self.implicit_tls or session.ssl is not None,
            "user": session.auth_data.login.decode() if session.authenticated and isinstance(session.auth_data, LoginPassword) else None,
        }
        self.count += 1
        path = os.path.join(self.folder, "%04d.json" % self.count)
        with open(path + ".part", "w") as out:
            json.dump(record, out)
        os.rename(path + ".part", path)
        return "250 Message accepted for delivery"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    # aiosmtpd warns of its own deprecated login_data on every AUTH; what went wrong still shows.
    logging.getLogger("mail.log").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--tls", choices=["starttls", "implicit", "none"], default="starttls")
    parser.add_argument("--user", help="NAME:PASSWORD required to send")
    parser.add_argument("--until-stdin-closes", action="store_true", help="stop when standard input closes (the test that started it ended or died)")
    args = parser.parse_args()
    os.makedirs(args.folder, exist_ok=True)

    context = None
    if args.tls != "none":
        cert, key = os.path.join(args.folder, "cert.pem"), os.path.join(args.folder, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                        "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                       check=True, capture_output=True)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)

    def authenticate(server, session, envelope, mechanism, auth_data):
        name, _, password = (args.user or "").partition(":")
        ok = isinstance(auth_data, LoginPassword) and auth_data.login.decode() == name and auth_data.password.decode() == password
        return AuthResult(success=ok, handled=False, auth_data=auth_data)

    options = {}
    if args.user:
        # aiosmtpd knows of TLS only from STARTTLS: with TLS from the first byte it must not ask for more.
        options.update(authenticator=authenticate, auth_required=True, auth_require_tls=args.tls == "starttls")
    if args.tls == "starttls":
        options.update(tls_context=context, require_starttls=True)
    port = free_port()
    controller = Controller(Sink(args.folder, args.tls == "implicit"), hostname="127.0.0.1", port=port,
                            ssl_context=context if args.tls == "implicit" else None,
                            server_hostname="localhost", **options)
    controller.start()
    print("port %d" % port, flush=True)
    try:
        if args.until_stdin_closes:
            sys.stdin.buffer.read()
        else:
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        controller.stop()


if __name__ == "__main__":
    sys.exit(main())
