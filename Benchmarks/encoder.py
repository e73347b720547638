"""What the benchmark's two sentence encoders share (embed-server.py's MiniLM, mpnet.py's MPNet):
the weights, config and tokenizer of a sentence-transformers folder, layer norm and dense layers."""

import json
import os

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer


class Encoder:
    def __init__(self, folder, max_tokens):
        self.w = load_file(os.path.join(folder, "model.safetensors"))
        self.config = json.load(open(os.path.join(folder, "config.json")))
        self.layers = self.config["num_hidden_layers"]
        self.heads = self.config["num_attention_heads"]
        self.hidden = self.config["hidden_size"]
        self.eps = self.config["layer_norm_eps"]
        self.tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
        self.tokenizer.enable_truncation(max_tokens)
        self.tokenizer.no_padding()

    def layer_norm(self, x, name):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def dense(self, x, name):
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]
