#!/usr/bin/env python3
"""Writes the split variants of h200-seed7003-p7-k4.cl (README) into DIR:
the one statement left by the reduction, taken apart. Each variant is a
ferrocl-fuzz program: `ferrocl-fuzz --check DIR/p7-<name>.cl`."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "h200-seed7003-p7-k4.cl")).read()
target = "a1[0].f2[(((char)237)) & 3].f0"
count = "max(((short4)((((short4)(37))) | a1[(((short)in[0 & 63])) & 3].f2[0 & 3].f0)), (-(a1[(v2) & 3].f0.f0)))"
stmt = f"{target} >>= {count};"
assert stmt in src, "the statement of the reduced program changed"
variants = {
    "const_count": f"{target} >>= (short4)(37);",
    "no_max": f"{target} >>= ((short4)((((short4)(37))) | a1[(((short)in[0 & 63])) & 3].f2[0 & 3].f0));",
    "const_neg": f"{target} >>= {count.replace('(-(a1[(v2) & 3].f0.f0))', '(short4)(-32768)')};",
    "masked": f"{target} = {target} >> ({count} & (short4)(15));",
    "store_count": f"{{ short4 c = {count}; out[ob + 1] = as_ulong(c); {target} >>= c; }}",
    "store_shifted": f"{{ short4 r = {target} >> {count}; out[ob + 2] = as_ulong(r); {target} = r; }}",
}
out = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out, exist_ok=True)
for name, s in variants.items():
    with open(os.path.join(out, f"p7-{name}.cl"), "w") as f:
        f.write(src.replace(stmt, s))
