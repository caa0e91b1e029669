#!/usr/bin/python3
# Makes the Pillow references the decoder tests compare with (run from this folder with Debian
# 12's /usr/bin/python3 and python3-pil 9.4.0; the files are committed, so tests need no Pillow):
#   cmyk.jpg            a CMYK JPEG as Pillow writes one (Adobe marker, no YCCK transform)
#   cmyk-rgb.ppm        what a Pillow loader gets from it: Image.open(...).convert("RGB")
#   photo.ppm           a small photo-like RGB image (gradients, edges, grain)
#   photo-down.ppm      photo.ppm resized to 41x29 with Image.BILINEAR (a 2.3x / 2.2x shrink)
#   photo-up.ppm        photo.ppm resized to 131x83 with Image.BILINEAR (an enlargement)
import math
import random

from PIL import Image

W, H = 96, 64
rng = random.Random(18)


def photo_like():
    pixels = []
    for y in range(H):
        for x in range(W):
            r = 120 + 80 * math.sin(x / 9.0) + rng.randint(-6, 6)
            g = 90 + 120 * y / H + rng.randint(-6, 6)
            b = 200 - 150 * x / W + (60 if (x - 60) ** 2 + (y - 30) ** 2 < 200 else 0)
            pixels.append(tuple(max(0, min(255, int(v))) for v in (r, g, b)))
    img = Image.new("RGB", (W, H))
    img.putdata(pixels)
    return img


photo = photo_like()
photo.save("photo.ppm")
photo.resize((41, 29), Image.BILINEAR).save("photo-down.ppm")
photo.resize((131, 83), Image.BILINEAR).save("photo-up.ppm")

cmyk = Image.new("CMYK", (W, H))
cmyk.putdata([(int(255 * x / W), int(255 * y / H), (x * y) % 256, 40 + (x + y) % 90) for y in range(H) for x in range(W)])
cmyk.save("cmyk.jpg", quality=92)
Image.open("cmyk.jpg").convert("RGB").save("cmyk-rgb.ppm")
