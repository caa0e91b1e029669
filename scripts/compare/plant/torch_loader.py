#!/usr/bin/python3
"""torchvision training jobs for scripts/compare/plant-scenarios.sh: a DataLoader with worker
processes feeding a training loop, bound by one side or the other. Debian's python3-torch and
python3-torchvision (and Pillow), nothing else.

  torch_loader.py make-jpegs DIR N        N JPEGs of 800x600 in DIR/c0 (an ImageFolder of one class)
  torch_loader.py loader-bound DIR SECONDS
        DataLoader(ImageFolder(DIR, RandomResizedCrop(224) + ToTensor + Normalize), batch_size=32,
        num_workers=1): the single worker decodes and augments every image while the training
        step is simulated by a 5 ms sleep: the loop waits on the worker
  torch_loader.py step-bound DIR SECONDS
        the same loader (1 worker) feeding a real resnet18 forward + backward + SGD step on the CPU,
        torch.set_num_threads(1): the step keeps the loop's thread busy, the worker idles

Each prints what it did to stderr at the end ("truth: ..."): batches, images/s, and the share of
the loop's time spent waiting for the next batch, measured around next() in the loop itself.
"""
import os
import sys
import time

import numpy as np
from PIL import Image


def make_jpegs(folder, count):
    folder = os.path.join(folder, "c0")
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(25)
    y, x = np.mgrid[0:600, 0:800]
    for i in range(count):
        base = np.stack([(x * (i + 1) // 13) % 256, (y * (i + 2) // 11) % 256, ((x + y) // (i + 3)) % 256], axis=2)
        pixels = np.clip(base + rng.integers(0, 48, size=(600, 800, 3)), 0, 255).astype(np.uint8)
        Image.fromarray(pixels).save(os.path.join(folder, "img%04d.jpg" % i), quality=90)


def loader_of(folder):
    import torch
    from torchvision import datasets, transforms
    transform = transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ])
    dataset = datasets.ImageFolder(folder, transform=transform)
    # persistent_workers: the small dataset's epochs end every few batches; the same worker
    # carries on, as in a long epoch.
    return torch.utils.data.DataLoader(dataset, batch_size=32, shuffle=True, num_workers=1,
                                       persistent_workers=True, drop_last=True)


def train(mode, folder, seconds):
    import torch
    torch.manual_seed(25)
    loader = loader_of(folder)
    step = None
    if mode == "step-bound":
        import torchvision
        torch.set_num_threads(1)  # one thread for the step: it alone is the bound
        model = torchvision.models.resnet18(weights=None)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        loss_fn = torch.nn.CrossEntropyLoss()

        def step(images, labels):
            optimizer.zero_grad()
            loss_fn(model(images), labels).backward()
            optimizer.step()
    start = time.monotonic()
    end = start + seconds
    batches = 0
    waited = 0.0
    while time.monotonic() < end:
        it = iter(loader)
        while True:
            before = time.monotonic()
            try:
                images, labels = next(it)
            except StopIteration:
                break
            waited += time.monotonic() - before
            if step is None:
                time.sleep(0.005)  # the training step, simulated: 5 ms
            else:
                step(images, labels)
            batches += 1
            if time.monotonic() >= end:
                break
    span = time.monotonic() - start
    print("truth: %s, %d batches of 32, %.1f images/s, the loop waited for batches %.0f%% of its time" % (
        mode, batches, 32 * batches / span, 100 * waited / span), file=sys.stderr)


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "make-jpegs":
        make_jpegs(args[0], int(args[1]))
    elif mode in ("loader-bound", "step-bound"):
        train(mode, args[0], float(args[1]))
    else:
        sys.exit("torch_loader.py: unknown mode " + mode)


if __name__ == "__main__":
    main()
