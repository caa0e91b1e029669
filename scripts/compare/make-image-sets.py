#!/usr/bin/python3
# Makes the two datasets compare-torchvision.sh measures, with Debian's python3-pil and numpy:
#   small DIR N   ImageNet-like: N JPEGs of 300-900 px in 10 class folders (n0000000..), quality
#                 75-95, about 1 in 10 progressive, 1 in 30 grayscale, 1 in 100 CMYK
#   large DIR N   photos: N JPEGs of 3840x2400, quality 92, one in five progressive
# The content is photo-like (gradients, shapes, grain), so decode costs what a photo's does.
import pathlib
import sys

import numpy as np
from PIL import Image


def photo(rng, w, h):
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.empty((h, w, 3), np.float32)
    for c in range(3):
        fx, fy, ph = rng.uniform(1, 6), rng.uniform(1, 5), rng.uniform(0, 6.3)
        img[..., c] = 60 + rng.uniform(0, 120) + 50 * np.sin(x / w * fx * 3.1 + ph) * np.cos(y / h * fy * 3.1)
    for _ in range(12):  # hard-edged objects
        x0, y0 = rng.integers(0, w), rng.integers(0, h)
        x1, y1 = min(w, x0 + rng.integers(1, w // 3 + 2)), min(h, y0 + rng.integers(1, h // 3 + 2))
        img[y0:y1, x0:x1] = rng.uniform(0, 255, 3)
    img += rng.normal(0, 6, (h, w, 3)).astype(np.float32)  # sensor grain
    return Image.fromarray(np.clip(img, 0, 255).astype(np.uint8), "RGB")


def main():
    kind, root, count = sys.argv[1], pathlib.Path(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(25)
    for i in range(count):
        folder = root / f"n{i % 10:07d}"
        folder.mkdir(parents=True, exist_ok=True)
        if kind == "small":
            w, h = int(rng.integers(300, 901)), int(rng.integers(300, 901))
            img, quality, progressive = photo(rng, w, h), int(rng.integers(75, 96)), i % 10 == 3
            if i % 30 == 7:
                img = img.convert("L")
            elif i % 100 == 11:
                img = img.convert("CMYK")
        else:
            img, quality, progressive = photo(rng, 3840, 2400), 92, i % 5 == 4
        img.save(folder / f"img_{i:06d}.JPEG", quality=quality, progressive=progressive)


main()
