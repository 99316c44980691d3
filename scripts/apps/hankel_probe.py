#!/usr/bin/env python3
"""Probe for the pyopencl-clmath hang on the GPU (scripts/apps/README.md,
"H200 run of 2026-11-27"): builds a kernel that calls one part of
pyopencl's pyopencl-hankel-complex.cl per work-item over test_clmath's
inputs, runs it once and prints the build time, run time and the sums of
|h0| and |h1|, to compare implementations and to find the part that does not
finish.

  python3 scripts/apps/hankel_probe.py PART [N] [OUT.npy] [REGION]

PART: full (hankel_01_complex), u, r, a, l (hank103u/r/a/l), p (hank103p),
exp, log, sqrt, div (cdouble functions). N: points (default 4096).
REGION (optional): the half-planes the points are taken from, to see
whether the paths of hankel_01_complex hang alone or only side by side
in one work-group: all (default), u (Im z >= 0: hank103u), r (Im z < 0,
Re z >= 0: hank103r), ur (Im z < 0, Re z < 0: both), or one point's index
into the default points (N copies of it). HK_OPTIONS: build options.
HK_INLINE=1: pyopencl's Hankel functions declared always_inline (a copy
of the file, included instead of pyopencl's). The
context is PYOPENCL_CTX's (e.g. 0 with one ICD visible); run it under
`timeout`, a kernel that never ends blocks the read.
"""
import os, sys, time
import numpy as np
import pyopencl as cl
calls = {
    "full": "hankel_01_complex(a, &b, &c, 1);",
    "u": "hank103u(a, &ier, &b, &c, 1);",
    "r": "hank103r(a, &ier, &b, &c, 1);",
    "a": "hank103a(a, &b, &c, 1);",
    "l": "hank103l(a, &b, &c, 1);",
    "p": "hank103p(hank103u_c0p1, 35, a, &b);",
    "exp": "b = cdouble_exp(a);",
    "log": "b = cdouble_log(a);",
    "sqrt": "b = cdouble_sqrt(a);",
    "div": "b = cdouble_divide(a, cdouble_new(1.5, a.imag));",
}
name = sys.argv[1]
ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
inc = os.path.join(os.path.dirname(cl.__file__), "cl")
hankel = "<pyopencl-hankel-complex.cl>"
if os.environ.get("HK_INLINE") == "1":
    import re, tempfile
    text = open(os.path.join(inc, "pyopencl-hankel-complex.cl")).read()
    text = re.sub(r"^void (hank)", r"inline __attribute__((always_inline)) void \1", text, flags=re.M)
    hankel = '"' + tempfile.mkdtemp() + '/hankel-inline.cl"'
    open(hankel[1:-1], "w").write(text)
src = """
#define PYOPENCL_DEFINE_CDOUBLE
#include <pyopencl-complex.h>
#include HANKEL
__kernel void k(__global const cdouble_t *z, __global cdouble_t *h0, __global cdouble_t *h1) {
  int i = get_global_id(0); cdouble_t a = z[i], b = cdouble_new(0, 0), c = cdouble_new(0, 0); int ier = 0;
  CALL
  h0[i] = b; h1[i] = c;
}""".replace("CALL", calls[name]).replace("HANKEL", hankel)
t = time.time()
prg = cl.Program(ctx, src).build(["-I", inc] + os.environ.get("HK_OPTIONS", "").split())
print(name, "built", round(time.time() - t, 2), flush=True)
rng = np.random.default_rng(seed=11)
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
z = np.logspace(-5, 2, n) * np.exp(1j * 2 * np.pi * rng.random(n))
region = sys.argv[4] if len(sys.argv) > 4 else "all"
if region != "all":
    keep = {"u": z.imag >= 0, "r": (z.imag < 0) & (z.real >= 0), "ur": (z.imag < 0) & (z.real < 0)}
    z = z[keep[region]] if region in keep else z[[int(region)]]
    z = np.resize(z, n)
mf = cl.mem_flags
zb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=z)
h0 = cl.Buffer(ctx, mf.WRITE_ONLY, z.nbytes)
h1 = cl.Buffer(ctx, mf.WRITE_ONLY, z.nbytes)
t = time.time()
prg.k(q, (n,), None, zb, h0, h1)
r0 = np.empty_like(z); r1 = np.empty_like(z)
cl.enqueue_copy(q, r0, h0); cl.enqueue_copy(q, r1, h1); q.finish()
print(name, "ran", round(time.time() - t, 3), "sum", np.nansum(np.abs(r0)), np.nansum(np.abs(r1)), flush=True)
np.save(sys.argv[3] if len(sys.argv) > 3 else f"/tmp/{name}.npy", np.stack([r0, r1]))
