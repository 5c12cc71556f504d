#!/usr/bin/env python3
"""Grows a CIFAR-10 binary file (3073-byte records: label, 3072 channel-first pixels) to TOTAL records
by the standard CIFAR-10 augmentations, deterministically, for the GPU check's 50,000-image case when
only N real images could be carried (benchmarks/gpu/README.md).

Record i of the output is variant i // N of real image i % N, labels kept:
  0 the image itself, 1 horizontal flip, 2..5 a 4-pixel shift right, left, down, up (zero fill, as
  "pad 4 and crop" leaves it), 6 flip and shift right and down, then the cycle repeats with the
  variant number taken modulo 7.
So the first N records are the real images in file order. The kernel's cost does not depend on the
pixel values; its values do: a kernel of the output is a timing and scale check, not CIFAR-10's.

  python3 augment_cifar.py IN.bin TOTAL OUT.bin
"""
import sys

REC, SIDE, PLANE = 3073, 32, 1024


def shift(img, dx, dy):
    """img: 3072 channel-first bytes; content moves by (dx, dy) pixels, vacated pixels are 0."""
    out = bytearray(3072)
    for c in range(3):
        base = c * PLANE
        for y in range(SIDE):
            sy = y - dy
            if sy < 0 or sy >= SIDE:
                continue
            src = base + sy * SIDE
            dst = base + y * SIDE
            if dx >= 0:
                out[dst + dx:dst + SIDE] = img[src:src + SIDE - dx]
            else:
                out[dst:dst + SIDE + dx] = img[src - dx:src + SIDE]
    return bytes(out)


def flip(img):
    out = bytearray(3072)
    for r in range(3 * SIDE):
        row = img[r * SIDE:(r + 1) * SIDE]
        out[r * SIDE:(r + 1) * SIDE] = row[::-1]
    return bytes(out)


VARIANTS = [
    lambda im: im,
    flip,
    lambda im: shift(im, 4, 0),
    lambda im: shift(im, -4, 0),
    lambda im: shift(im, 0, 4),
    lambda im: shift(im, 0, -4),
    lambda im: shift(flip(im), 4, 4),
]


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: augment_cifar.py IN.bin TOTAL OUT.bin")
    data = open(sys.argv[1], "rb").read()
    total = int(sys.argv[2])
    if len(data) == 0 or len(data) % REC:
        sys.exit(f"augment_cifar: {sys.argv[1]}: {len(data)} bytes is not a whole number of {REC}-byte records")
    n = len(data) // REC
    with open(sys.argv[3], "wb") as out:
        for i in range(total):
            rec = data[(i % n) * REC:(i % n + 1) * REC]
            out.write(rec[:1] + VARIANTS[(i // n) % len(VARIANTS)](rec[1:]))
    print(f"augment_cifar: {total} records from {n} real images ({min(n, total)} real, {max(0, total - n)} augmented)")


if __name__ == "__main__":
    main()
