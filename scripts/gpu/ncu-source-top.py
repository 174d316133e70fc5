#!/usr/bin/env python3
"""Summarizes `ncu --page source --csv --print-source sass`: the warp stall
samples per SASS instruction -- the top 40, and the share of the samples
before the first and after the last tensor-core instruction (HGMMA, QGMMA, ...)."""
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
head = next(i for i, r in enumerate(rows) if any("Source" == c for c in r))
cols = rows[head]
body = [r for r in rows[head + 1:] if len(r) == len(cols)]
src = cols.index("Source")
samp = next(i for i, c in enumerate(cols) if c.startswith("Warp Stall Sampling (All"))
addr = cols.index("Address") if "Address" in cols else 0
def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return 0.0
total = sum(num(r[samp]) for r in body) or 1.0
print(f"columns: {cols}")
print(f"instructions {len(body)}, samples {total:.0f}")
mma = [i for i, r in enumerate(body) if "GMMA" in r[src]]
if mma:
    before = sum(num(r[samp]) for r in body[:mma[0]])
    after = sum(num(r[samp]) for r in body[mma[-1] + 1:])
    print(f"before first GMMA {before / total:.1%}, after last GMMA {after / total:.1%}")
stall_cols = [i for i, c in enumerate(cols) if c.startswith("stall_") or "Stall" in c]
top = sorted(range(len(body)), key=lambda i: -num(body[i][samp]))[:40]
for i in sorted(top):
    r = body[i]
    print(f"{i:5d} {r[addr]:>8s} {num(r[samp]) / total:6.1%}  {r[src][:90]}")
