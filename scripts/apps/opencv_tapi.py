"""OpenCV's transparent API (cv2.UMat: OpenCL kernels) against its CPU path.

Runs on the device OpenCV picks (the suite sets OPENCV_OPENCL_DEVICE) with
OPENCV_OPENCL_RAISE_ERROR=1, so an OpenCL failure raises instead of falling
back to the CPU. Each operation's UMat result must match the numpy/Mat one
within its bound. Prints one line per operation, then "passed N/M"; exits 0
only if all passed.
"""

import sys

import cv2
import numpy as np


def image(h=480, w=640):
    y, x = np.mgrid[0:h, 0:w]
    rng = np.random.default_rng(7)
    img = np.stack([(x * 255 // w), (y * 255 // h), ((x + y) * 255 // (w + h))], axis=-1).astype(np.uint8)
    cv2.rectangle(img, (100, 80), (300, 260), (250, 40, 90), -1)
    cv2.circle(img, (450, 300), 90, (20, 200, 240), -1)
    noise = rng.integers(-12, 13, img.shape)
    return np.clip(img.astype(np.int32) + noise, 0, 255).astype(np.uint8)


def main():
    cv2.ocl.setUseOpenCL(True)
    if not cv2.ocl.useOpenCL():
        print("OpenCL unavailable to OpenCV")
        return 1
    print("device", cv2.ocl.Device.getDefault().name())
    img = image()
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    f32 = gray.astype(np.float32) / 255
    rng = np.random.default_rng(3)
    a, b = rng.random((256, 192), np.float32), rng.random((192, 128), np.float32)
    affine = cv2.getRotationMatrix2D((320, 240), 17.0, 0.8)
    kernel = np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], np.float32)
    # name, source, operation (applied to a Mat and to a UMat), bound on the largest difference:
    # absolute for integer results, relative to the largest |value| for float ones
    # (None: at most 0.5 % of the pixels differ, for thresholded outputs such as edges)
    ops = [
        ("cvtColor-gray", img, lambda m: cv2.cvtColor(m, cv2.COLOR_BGR2GRAY), 1),
        ("cvtColor-hsv", img, lambda m: cv2.cvtColor(m, cv2.COLOR_BGR2HSV), 1),
        ("GaussianBlur", img, lambda m: cv2.GaussianBlur(m, (5, 5), 1.5), 1),
        ("boxFilter", gray, lambda m: cv2.blur(m, (7, 7)), 1),
        ("medianBlur", gray, lambda m: cv2.medianBlur(m, 5), 0),
        ("resize-linear", img, lambda m: cv2.resize(m, (333, 250), interpolation=cv2.INTER_LINEAR), 1),
        ("resize-area", img, lambda m: cv2.resize(m, (320, 240), interpolation=cv2.INTER_AREA), 1),
        ("warpAffine", img, lambda m: cv2.warpAffine(m, affine, (640, 480)), 2),
        ("erode", gray, lambda m: cv2.erode(m, np.ones((5, 5), np.uint8)), 0),
        ("dilate", img, lambda m: cv2.dilate(m, np.ones((3, 3), np.uint8)), 0),
        ("filter2D", f32, lambda m: cv2.filter2D(m, -1, kernel), 1e-4),
        ("Sobel", f32, lambda m: cv2.Sobel(m, cv2.CV_32F, 1, 0, ksize=3), 1e-4),
        ("threshold", gray, lambda m: cv2.threshold(m, 127, 255, cv2.THRESH_BINARY)[1], 0),
        ("equalizeHist", gray, lambda m: cv2.equalizeHist(m), 1),
        ("Canny", gray, lambda m: cv2.Canny(m, 50, 150), None),
        ("addWeighted", img, lambda m: cv2.addWeighted(m, 0.7, m, 0.2, 3), 1),
        ("absdiff", img, lambda m: cv2.absdiff(m, cv2.flip(m, 1)), 0),
        ("transpose", f32, lambda m: cv2.transpose(m), 0),
        ("gemm", a, lambda m: cv2.gemm(m, b if isinstance(m, np.ndarray) else cv2.UMat(b), 1.0, None, 0.0), 1e-5),
        ("dft", f32, lambda m: cv2.dft(m, flags=cv2.DFT_COMPLEX_OUTPUT), 1e-5),
        ("matchTemplate", f32, lambda m: cv2.matchTemplate(m, f32[100:140, 200:260] if isinstance(m, np.ndarray)
                                                           else cv2.UMat(f32[100:140, 200:260]), cv2.TM_SQDIFF), 3e-4),
        ("integral", gray, lambda m: cv2.integral(m, sdepth=cv2.CV_32S), 0),
    ]
    passed = 0
    for name, src, op, bound in ops:
        try:
            want = op(src)
            got = op(cv2.UMat(src))
            got = got.get() if isinstance(got, cv2.UMat) else got
            diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
            if bound is None:
                frac = np.count_nonzero(diff) / diff.size
                ok, what = frac <= 0.005, f"{frac:.4%} of the pixels differ"
            else:
                scale = max(1.0, float(np.abs(want).max())) if want.dtype.kind == "f" else 1.0
                ok, what = diff.max() <= bound * scale, f"max difference {diff.max():.3g} (bound {bound * scale:.3g})"
        except cv2.error as err:
            ok, what = False, "OpenCV error: " + " ".join(str(err).split())[-300:]
        passed += ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {what}")
    for name, src, stat in (("sum", img, cv2.sumElems), ("countNonZero", gray, cv2.countNonZero),
                            ("minMaxLoc", gray, cv2.minMaxLoc), ("norm", f32, cv2.norm)):
        want, got = stat(src), stat(cv2.UMat(src))
        flat = lambda v: np.hstack([np.ravel(x) for x in (v if isinstance(v, tuple) else (v,))]).astype(np.float64)
        ok = np.allclose(flat(want), flat(got), rtol=1e-5)
        passed += ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {got} (CPU {want})")
    total = len(ops) + 4
    print(f"passed {passed}/{total}")
    return 0 if passed == total else 1


if __name__ == "__main__":
    sys.exit(main())
