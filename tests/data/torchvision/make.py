#!/usr/bin/python3
# Makes the torchvision references the loader-transform tests compare with (run from this folder
# with Debian 12's /usr/bin/python3, python3-torchvision 0.14.1 and python3-pil 9.4.0; the files are
# committed, so tests need neither):
#   resized-crop.ppm       ../pillow/photo.ppm through F.resized_crop(top 5, left 9, 40 x 57, to
#                          24 x 32), bilinear with antialias: RandomResizedCrop's work for one box
#   resized-crop-flip.ppm  the same, then F.hflip: RandomHorizontalFlip's
#   center.ppm             Resize(36) then CenterCrop((24, 32)): the evaluation transform for
#                          train=32x24 (36 = 8/7 of 32)
#   center.f32             center.ppm through ToTensor + Normalize(ImageNet mean, std): float32
#                          little-endian, 3 x 24 x 32
#   crop-stats.txt         RandomResizedCrop.get_params over 20000 draws on 500x375 and on 1000x100
#                          images: mean area fraction, mean log aspect, share of the central fallback
import math

import torch
import torchvision.transforms as T
import torchvision.transforms.functional as F
from PIL import Image

photo = Image.open("../pillow/photo.ppm").convert("RGB")
crop = F.resized_crop(photo, 5, 9, 40, 57, [24, 32], interpolation=T.InterpolationMode.BILINEAR)
crop.save("resized-crop.ppm")
F.hflip(crop).save("resized-crop-flip.ppm")
center = T.Compose([T.Resize(36), T.CenterCrop((24, 32))])(photo)
center.save("center.ppm")
tensor = T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])(T.ToTensor()(center))
tensor.numpy().astype("<f4").tofile("center.f32")

torch.manual_seed(25)
lines = []
for w, h in ((500, 375), (1000, 100)):
    img = Image.new("RGB", (w, h))
    area = log_aspect = fallback = 0.0
    n = 20000
    for _ in range(n):
        i, j, ch, cw = T.RandomResizedCrop.get_params(img, [0.08, 1.0], [3 / 4, 4 / 3])
        area += cw * ch / (w * h)
        log_aspect += math.log(cw / ch)
        fallback += (ch == h and cw == w) or (ch == h and i == 0 and j == (w - cw) // 2 and cw == round(h * 4 / 3))
    lines.append(f"{w}x{h} mean_area {area / n:.4f} mean_log_aspect {log_aspect / n:.4f} fallback {fallback / n:.4f}")
open("crop-stats.txt", "w").write("\n".join(lines) + "\n")
