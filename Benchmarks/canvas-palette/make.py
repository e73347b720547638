#!/usr/bin/env python3
"""Painted canvases with known paint, photographed badly: the benchmark of `stitch-bench --only palette`.

Each canvas is a design of painted regions (random Voronoi cells, 6-30 DMC colours from
Sources/StitchServer/Resources/catalogs/dmc-floss.csv) on a white or ecru mono canvas with an
unpainted border, then "photographed": the mesh's threads and holes, a colour cast (a white
balance a phone got wrong), light falling off across the canvas, a slight blur, noise and JPEG.
The true colours, their share of the painted area, the design's size and mesh are in truth.json.
Canvases with an even index are the tuning half, odd the held-out half.

    python3 -m pip install pillow numpy
    python3 Benchmarks/canvas-palette/make.py [--count 40] [--out /tmp/canvas-palette]

The photos are made (not committed): the same seed makes the same set.
"""
import argparse
import csv
import json
import math
import os
import random

import numpy as np
from PIL import Image, ImageFilter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GROUNDS = {"white": (242, 240, 234), "ecru": (230, 220, 196)}


def dmc():
    with open(os.path.join(ROOT, "Sources/StitchServer/Resources/catalogs/dmc-floss.csv"), encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    return [(r[0], tuple(int(r[2][i:i + 2], 16) for i in (0, 2, 4))) for r in rows if len(r) >= 3 and len(r[2]) == 6]


def lab(rgb):
    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = map(lin, rgb)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
    f = lambda t: t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def distinct(threads, count, rng, ground):
    """`count` DMC colours at least 8 (Euclidean L*a*b*) from each other and from the bare canvas:
    a painter's palette, not two near-twins a photo can't tell apart."""
    chosen, g = [], lab(ground)
    for number, rgb in rng.sample(threads, len(threads)):
        l = lab(rgb)
        if math.dist(l, g) < 12 or any(math.dist(l, lab(c[1])) < 8 for c in chosen):
            continue
        chosen.append((number, rgb))
        if len(chosen) == count:
            break
    return chosen


def canvas(index, threads, out, width, height):
    rng = random.Random(index)
    ground_name = "white" if index % 3 else "ecru"
    ground = GROUNDS[ground_name]
    colours = distinct(threads, rng.randint(6, 30), rng, ground)
    mesh = rng.choice([13, 18])
    design = (rng.choice([8, 10, 12, 14]), rng.choice([8, 10, 12]))
    # The painted area inside a bare border; regions as Voronoi cells of random seeds, each a colour
    # (every colour at least one region), sized unevenly as designs are.
    border = int(min(width, height) * rng.uniform(0.08, 0.14))
    seeds = max(len(colours) * 2, 40)
    points = np.array([(rng.uniform(border, width - border), rng.uniform(border, height - border)) for _ in range(seeds)])
    weights = np.array([rng.uniform(0.6, 1.6) for _ in range(seeds)])
    assign = [i % len(colours) for i in range(seeds)]
    ys, xs = np.mgrid[0:height, 0:width]
    best = np.full((height, width), np.inf)
    region = np.zeros((height, width), dtype=np.int32)
    for i, (px, py) in enumerate(points):
        d = ((xs - px) ** 2 + (ys - py) ** 2) / weights[i]
        closer = d < best
        best[closer] = d[closer]
        region[closer] = assign[i]
    inside = (xs >= border) & (xs < width - border) & (ys >= border) & (ys < height - border)
    palette = np.array([c[1] for c in colours], dtype=np.float64)
    img = np.where(inside[..., None], palette[region], np.array(ground, dtype=np.float64))
    # The mesh: threads every `period` px each way, holes between them dark; paint thin at the
    # threads' crossings shows the canvas's own colour.
    period = rng.choice([6, 8, 10, 12])
    holes = ((xs % period) < period // 4) & ((ys % period) < period // 4)
    img[holes] *= 0.35
    thin = ((xs % period) == period // 2) & ((ys % period) == period // 2) & inside
    img[thin] = 0.5 * img[thin] + 0.5 * np.array(ground)
    # Light falling off from one side, and a cast.
    angle = rng.uniform(0, 2 * math.pi)
    fall = 1.05 - rng.uniform(0.05, 0.25) * (0.5 + 0.5 * ((xs / width - 0.5) * math.cos(angle) + (ys / height - 0.5) * math.sin(angle)))
    cast = np.array([rng.uniform(0.92, 1.06), 1.0, rng.uniform(0.78, 1.02)])
    img = img * fall[..., None] * cast
    img += np.random.default_rng(index).normal(0, 3, img.shape)
    photo = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.0)))
    name = f"canvas-{index:03d}.jpg"
    photo.save(os.path.join(out, name), quality=rng.choice([75, 85, 92]))
    painted = inside.sum()
    shares = {colours[k][0]: float(((region == k) & inside).sum() / painted) for k in range(len(colours))}
    return {"file": name, "half": "tuning" if index % 2 == 0 else "held-out", "ground": ground_name, "mesh": mesh,
            "size": f"{design[0]} x {design[1]}", "colours": [{"dmc": n, "hex": "#%02X%02X%02X" % rgb, "share": shares[n]} for n, rgb in colours]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--out", default="/tmp/canvas-palette")
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--height", type=int, default=1200)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    threads = dmc()
    truth = [canvas(i, threads, args.out, args.width, args.height) for i in range(args.count)]
    with open(os.path.join(args.out, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=1)
    print(f"{len(truth)} canvases in {args.out} ({sum(len(t['colours']) for t in truth)} painted colours)")


if __name__ == "__main__":
    main()
