#!/usr/bin/python3
"""Ordinary data loaders for scripts/compare/plant-scenarios.sh: each plants one bottleneck that
`pipecheck watch` should name. Debian's python3-pil and python3-numpy, nothing else.

  loader.py make-images DIR N          N JPEGs of 800x600 (smooth, with texture) to decode
  loader.py make-files DIR N MIB       N files of MIB MiB of random bytes to read cold
  loader.py cold-read DIR SECONDS      one process reads whole files one at a time, 1 MiB reads,
                                       dropping each file's pages after (posix_fadvise DONTNEED)
  loader.py direct-rand FILE SECONDS   one thread of random 4 KiB O_DIRECT reads
  loader.py pool N DIR SECONDS         N worker processes decode + resize to 640x640 + numpy,
                                       batches of 32 (the train step is not simulated)
  loader.py stall N DIR SECONDS WORK_S STALL_S
                                       the pool, stopping STALL_S seconds after each WORK_S
                                       seconds of batches (a checkpoint); prints the truth

Each prints one line of what it did to stderr at the end ("truth: ...").
"""
import mmap
import multiprocessing
import os
import random
import sys
import time

import numpy as np
from PIL import Image


def make_images(folder, count):
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(18)
    y, x = np.mgrid[0:600, 0:800]
    for i in range(count):
        base = np.stack([(x * (i + 1) // 13) % 256, (y * (i + 2) // 11) % 256, ((x + y) // (i + 3)) % 256], axis=2)
        noise = rng.integers(0, 48, size=(600, 800, 3))
        pixels = np.clip(base + noise, 0, 255).astype(np.uint8)
        Image.fromarray(pixels).save(os.path.join(folder, "img%04d.jpg" % i), quality=90)


def make_files(folder, count, mib):
    os.makedirs(folder, exist_ok=True)
    block = os.urandom(1 << 20)
    for i in range(count):
        with open(os.path.join(folder, "part%04d.bin" % i), "wb") as f:
            for k in range(mib):
                f.write(block[k % 7:] + block[:k % 7])
            f.flush()
            os.fsync(f.fileno())


def drop(path):
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


def cold_read(folder, seconds):
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder))
    for path in files:
        drop(path)
    end = time.monotonic() + seconds
    done = total = 0
    while time.monotonic() < end:
        for path in files:
            with open(path, "rb", buffering=0) as f:
                while True:
                    chunk = f.read(1 << 20)
                    if not chunk:
                        break
                    total += len(chunk)
            drop(path)
            done += 1
            if time.monotonic() >= end:
                break
    print("truth: cold-read %d files, %.0f MB/s" % (done, total / 1e6 / seconds), file=sys.stderr)


def direct_rand(path, seconds):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    blocks = os.fstat(fd).st_size // 4096
    buf = mmap.mmap(-1, 4096)  # page-aligned, as O_DIRECT wants
    rng = random.Random(18)
    end = time.monotonic() + seconds
    reads = 0
    while time.monotonic() < end:
        for _ in range(256):
            os.preadv(fd, [buf], rng.randrange(blocks) * 4096)
        reads += 256
    os.close(fd)
    print("truth: direct-rand %.0f IOPS, one read in flight" % (reads / seconds), file=sys.stderr)


def decode(path):
    with Image.open(path) as image:
        image = image.convert("RGB").resize((640, 640), Image.BILINEAR)
        return np.asarray(image, dtype=np.float32).mean()


def batches(folder):
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder))
    while True:
        random.shuffle(files)
        for k in range(0, len(files) - 31, 32):
            yield files[k:k + 32]


def pool(workers, folder, seconds, work_s=None, stall_s=0.0):
    end = time.monotonic() + seconds
    images = 0
    stalls = []
    with multiprocessing.Pool(workers) as p:
        last = time.monotonic()
        for batch in batches(folder):
            p.map(decode, batch, chunksize=1)
            images += len(batch)
            now = time.monotonic()
            if now >= end:
                break
            if work_s is not None and now - last >= work_s:
                stalls.append(now)
                time.sleep(stall_s)  # the checkpoint: nothing decodes meanwhile
                last = time.monotonic()
    line = "truth: pool of %d, %.1f images/s" % (workers, images / seconds)
    if len(stalls) > 1:
        gaps = [b - a for a, b in zip(stalls, stalls[1:])]
        period = sum(gaps) / len(gaps)
        line += ", %d stalls of %.1f s every %.2f s = %.1f%% of the time" % (
            len(stalls), stall_s, period, 100 * stall_s / period)
    print(line, file=sys.stderr)


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "make-images":
        make_images(args[0], int(args[1]))
    elif mode == "make-files":
        make_files(args[0], int(args[1]), int(args[2]))
    elif mode == "cold-read":
        cold_read(args[0], float(args[1]))
    elif mode == "direct-rand":
        direct_rand(args[0], float(args[1]))
    elif mode == "pool":
        pool(int(args[0]), args[1], float(args[2]))
    elif mode == "stall":
        pool(int(args[0]), args[1], float(args[2]), float(args[3]), float(args[4]))
    else:
        sys.exit("loader.py: unknown mode " + mode)


if __name__ == "__main__":
    main()
