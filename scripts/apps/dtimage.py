"""Test image and comparison for the darktable cases of scripts/apps/run.

write_dng: a synthetic raw (DNG: one 16-bit Bayer RGGB plane, 12-bit data)
of a scene with smooth gradients, saturated patches, hard edges, a zone
plate (fine detail up to the sensor's Nyquist frequency) and deterministic
photon-like noise, so that demosaicing, denoising, sharpening and local
contrast all have something to do. No free raw sample is small enough to
ship, and this one is the same on every machine.

read_pfm, psnr: darktable writes its result as a PFM (32-bit float RGB), so
the OpenCL and CPU outputs are compared without 8-bit rounding.

Python 3 standard library only.
"""

import array
import math
import struct

BLACK, WHITE = 256, 4095


def scene(x, y, w, h):
    """Linear RGB in [0, 1] at pixel (x, y)."""
    u, v = x / w, y / h
    r, g, b = 0.05 + 0.5 * u, 0.05 + 0.4 * v, 0.3 - 0.25 * u * v  # background gradients
    # saturated patches in a 6x2 grid across the top third
    if 0.05 < v < 0.3:
        col, row = int(u * 6), int((v - 0.05) / 0.125)
        if 0.02 < (u * 6) % 1 < 0.9 and 0.02 < ((v - 0.05) / 0.125) % 1 < 0.9:
            k = row * 6 + col
            r = (0.9, 0.1, 0.1, 0.8, 0.1, 0.7, 0.02, 0.2, 0.5, 0.9, 0.3, 0.6)[k]
            g = (0.1, 0.8, 0.1, 0.8, 0.7, 0.1, 0.02, 0.2, 0.5, 0.5, 0.6, 0.3)[k]
            b = (0.1, 0.1, 0.9, 0.1, 0.8, 0.8, 0.02, 0.2, 0.5, 0.1, 0.9, 0.4)[k]
    # a zone plate in the lower left quarter
    cx, cy, rad = 0.25 * w, 0.7 * h, 0.22 * h
    d2 = (x - cx) ** 2 + (y - cy) ** 2
    if d2 < rad * rad:
        s = 0.5 + 0.45 * math.cos(math.pi * d2 / (2 * rad))
        r, g, b = s * 0.8, s * 0.8, s * 0.8
    # hard-edged bars and a bright disc (highlights near clipping) on the right
    if 0.6 < u < 0.95 and 0.45 < v < 0.9:
        bar = int((u - 0.6) * 40) % 2
        r, g, b = (0.85, 0.85, 0.8) if bar else (0.03, 0.03, 0.04)
    if (x - 0.8 * w) ** 2 + (y - 0.2 * h) ** 2 < (0.06 * h) ** 2:
        r, g, b = 1.2, 1.1, 0.9
    return r, g, b


def write_dng(path, w=640, h=480, seed=1):
    """A minimal uncompressed DNG 1.4 (RGGB, black 256, white 4095, D65 matrix)."""
    data = array.array("H", bytes(2 * w * h))
    rng = seed
    for y in range(h):
        for x in range(w):
            c = (y & 1) + (x & 1)  # 0 R, 1 G, 2 B (RGGB)
            val = scene(x, y, w, h)[c] * (0.55, 1.0, 0.7)[c]  # a daylight-like white balance to undo
            rng = (rng * 6364136223846793005 + 1442695040888963407) % 2**64
            noise = ((rng >> 40) / 2**24 - 0.5) * 2 * math.sqrt(max(val, 0) * 0.0006 + 0.00002)
            data[y * w + x] = max(0, min(WHITE, round(BLACK + (val + noise) * (WHITE - BLACK))))
    pixels = data.tobytes()

    entries = []  # (tag, type, count, bytes)

    def add(tag, typ, values):
        fmt = {1: "B", 2: "s", 3: "H", 4: "I", 5: "II", 10: "ii"}[typ]
        if typ == 2:
            raw = values.encode() + b"\0"
            entries.append((tag, typ, len(raw), raw))
            return
        flat = [v for pair in values for v in pair] if typ in (5, 10) else list(values)
        entries.append((tag, typ, len(values), struct.pack("<" + fmt[0] * len(flat), *flat)))

    def rational(v, signed):
        den = 10000
        return (round(v * den), den)

    # XYZ (D65) -> camera: sRGB's matrix, so that the camera is "sRGB primaries"
    xyz_to_rgb = (3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570)
    add(254, 4, [0])  # NewSubFileType: main image
    add(256, 4, [w])
    add(257, 4, [h])
    add(258, 3, [16])  # BitsPerSample
    add(259, 3, [1])  # no compression
    add(262, 3, [32803])  # CFA
    add(271, 2, "ferrocl")  # Make
    add(272, 2, "synthetic RGGB")  # Model
    add(273, 4, [0])  # StripOffsets, patched below
    add(274, 3, [1])  # Orientation
    add(277, 3, [1])  # SamplesPerPixel
    add(278, 4, [h])  # RowsPerStrip
    add(279, 4, [len(pixels)])
    add(284, 3, [1])  # PlanarConfiguration
    add(33421, 3, [2, 2])  # CFARepeatPatternDim
    add(33422, 1, [0, 1, 1, 2])  # CFAPattern RGGB
    add(50706, 1, [1, 4, 0, 0])  # DNGVersion
    add(50707, 1, [1, 1, 0, 0])  # DNGBackwardVersion
    add(50708, 2, "ferrocl synthetic RGGB")  # UniqueCameraModel
    add(50714, 3, [BLACK])  # BlackLevel
    add(50717, 3, [WHITE])  # WhiteLevel
    add(50721, 10, [rational(v, True) for v in xyz_to_rgb])  # ColorMatrix1
    add(50728, 5, [rational(v, False) for v in (0.55, 1.0, 0.7)])  # AsShotNeutral
    add(50778, 3, [21])  # CalibrationIlluminant1: D65
    entries.sort()

    ifd_size = 2 + 12 * len(entries) + 4
    extra_at = 8 + ifd_size
    extra = b""
    table = b""
    for tag, typ, count, raw in entries:
        if len(raw) <= 4:
            field = raw.ljust(4, b"\0")
        else:
            field = struct.pack("<I", extra_at + len(extra))
            extra += raw + (b"\0" if len(raw) % 2 else b"")
        table += struct.pack("<HHI", tag, typ, count) + field
    strip_at = extra_at + len(extra)
    i = [e[0] for e in entries].index(273)
    table = table[: 12 * i + 8] + struct.pack("<I", strip_at) + table[12 * i + 12 :]
    with open(path, "wb") as f:
        f.write(b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", len(entries)) + table + b"\0\0\0\0")
        f.write(extra)
        f.write(pixels)


def read_pfm(path):
    """(width, height, channels, floats) of a PFM file."""
    with open(path, "rb") as f:
        kind = f.readline().strip()
        dims = f.readline().split()
        while len(dims) < 2:
            dims += f.readline().split()
        scale = float(f.readline())
        data = array.array("f")
        data.frombytes(f.read())
    if scale > 0:  # big-endian
        data.byteswap()
    channels = 3 if kind == b"PF" else 1
    return int(dims[0]), int(dims[1]), channels, data


def psnr(a, b):
    """PSNR (dB) of two PFM images, values clipped to [0, 1] (the displayable range)."""
    wa, ha, ca, da = read_pfm(a)
    wb, hb, cb, db = read_pfm(b)
    if (wa, ha, ca) != (wb, hb, cb):
        raise ValueError(f"sizes differ: {wa}x{ha}x{ca} and {wb}x{hb}x{cb}")
    err = 0.0
    for x, y in zip(da, db):
        if x != x or y != y:  # NaN
            return float("-inf")
        d = min(max(x, 0.0), 1.0) - min(max(y, 0.0), 1.0)
        err += d * d
    mse = err / len(da)
    return float("inf") if mse == 0 else 10 * math.log10(1 / mse)


# Modules added on top of darktable's default raw pipeline by
# darktable-raw-modules: (operation, module version, parameters), the
# parameters packed as darktable 4.2's dt_iop_<module>_params_t (all 32-bit
# fields, little-endian). Not soften: its OpenCL path blurs with a
# Gaussian where the CPU path iterates box blurs (darktable's own
# approximation), 36 dB apart on every device.
MODULES = [
    # highlight reconstruction, "guided laplacians" (mode 3), which has an
    # OpenCL path (4.2's default mode has none): mode, blendL, blendC,
    # strength, clip, noise_level, iterations, scales (6: 128 px),
    # candidating, combine, recovery (off), solid_color
    ("highlights", 4, struct.pack("<i4f f i i 2f i f", 3, 1.0, 0.0, 0.0, 1.0, 0.0, 2, 5, 0.4, 2.0, 0, 0.0)),
    # astrophoto denoise (non-local means): radius, strength, luma, chroma
    ("nlmeans", 2, struct.pack("<4f", 2.0, 50.0, 0.5, 1.0)),
    # local contrast, local laplacian mode: mode, sigma_r, sigma_s, detail, midtone
    ("bilat", 3, struct.pack("<i4f", 1, 0.5, 0.5, 0.33, 0.5)),
    # haze removal: strength, distance
    ("hazeremoval", 1, struct.pack("<2f", 0.2, 0.2)),
    # diffuse or sharpen, "sharpen demosaicing (AA filter)": iterations,
    # sharpness, radius, regularization, variance_threshold, anisotropy
    # first..fourth, threshold, speed first..fourth, radius_center
    ("diffuse", 2, struct.pack("<i f i 2f 4f f 4f i", 1, 0.0, 8, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0,
                               -0.25, -0.25, -0.25, -0.25, 0)),
    # sharpen: radius, amount, threshold
    ("sharpen", 1, struct.pack("<3f", 2.0, 0.5, 0.5)),
]


def write_xmp(path, modules=MODULES):
    """A darktable sidecar whose history holds `modules`; darktable applies
    its default (auto-applied) raw pipeline first (auto_presets_applied 0)."""
    items = "".join(
        f"""     <rdf:li darktable:num="{n}" darktable:operation="{op}" darktable:enabled="1"
      darktable:modversion="{version}" darktable:params="{params.hex()}"
      darktable:multi_name="" darktable:multi_priority="0"/>
"""
        for n, (op, version, params) in enumerate(modules)
    )
    with open(path, "w") as f:
        f.write(f"""<?xml version="1.0" encoding="UTF-8"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0-Exiv2">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:darktable="http://darktable.sf.net/"
    darktable:xmp_version="4"
    darktable:auto_presets_applied="0"
    darktable:iop_order_version="2"
    darktable:history_end="{len(modules)}">
   <darktable:history>
    <rdf:Seq>
{items}    </rdf:Seq>
   </darktable:history>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
""")
