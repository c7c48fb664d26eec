#!/usr/bin/env python3
"""Calibration data the way seed 001 §3.5 writes it, without PIL or numpy.

The seed's script loads images, resizes them to 224x224 RGB, scales to [0, 1], normalizes with the
ImageNet mean and std, transposes HWC -> CHW and writes `np.stack(images).tofile("calib_data.bin")`:
N float32 samples of 3x224x224 back to back, little-endian, no header. Here the "images" are
seeded synthetic photographs (smooth gradients, a bright disc and noise, some of them dark), and
the same steps are applied. The first sample is also written as sample0.npy (shape [1,3,S,S]).

    seed_calib_data.py OUT_DIR [COUNT=8] [SIDE=224]
"""
import array
import os
import random
import struct
import sys

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def synthetic_image(rng, side):
    """An 8-bit RGB image as rows of (r, g, b) tuples."""
    cx, cy, radius = rng.uniform(0.2, 0.8) * side, rng.uniform(0.2, 0.8) * side, rng.uniform(0.1, 0.3) * side
    base = [rng.uniform(20, 200) for _ in range(3)]
    slope = [rng.uniform(-0.5, 0.5) for _ in range(3)]
    dark = rng.random() < 0.3  # low-light samples, as seed 003 §3.4 advises for calibration sets
    img = []
    for y in range(side):
        row = []
        for x in range(side):
            inside = (x - cx) ** 2 + (y - cy) ** 2 < radius ** 2
            px = []
            for c in range(3):
                v = base[c] + slope[c] * (x + y) + (60 if inside else 0) + rng.gauss(0, 6)
                if dark:
                    v *= 0.25
                px.append(min(255, max(0, int(round(v)))))
            row.append(px)
        img.append(row)
    return img


def preprocess(img):
    """/255, (x - mean) / std, HWC -> CHW, float32."""
    side = len(img)
    out = array.array('f', bytes(4 * 3 * side * side))
    for c in range(3):
        for y in range(side):
            for x in range(side):
                out[(c * side + y) * side + x] = (img[y][x][c] / 255.0 - MEAN[c]) / STD[c]
    return out


def write_npy(path, shape, data):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % ''.join(f'{d}, ' for d in shape)
    header += ' ' * ((64 - (10 + len(header) + 1) % 64) % 64) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode('latin1'))
        data.tofile(f)


def main():
    out_dir = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    side = int(sys.argv[3]) if len(sys.argv) > 3 else 224
    rng = random.Random(2026)
    samples = [preprocess(synthetic_image(rng, side)) for _ in range(count)]
    if sys.byteorder != 'little':
        for s in samples:
            s.byteswap()
    with open(os.path.join(out_dir, 'calib_data.bin'), 'wb') as f:
        for s in samples:
            s.tofile(f)
    write_npy(os.path.join(out_dir, 'sample0.npy'), (1, 3, side, side), samples[0])


if __name__ == '__main__':
    main()
