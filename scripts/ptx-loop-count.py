#!/usr/bin/env python3
"""Instruction counts of a kernel's main loop in PTX: the loop of the file's
first entry holding the most mma/wgmma instructions (attention's key loop, a
GEMM's K loop). Prints the loop's static instruction count and the number of
instructions along the shortest and the longest path through one iteration
(an inner spin loop, such as an mbarrier wait, counts once); with -v, the
opcodes and the loop's blocks. Used for docs/compiler.md's mask-versioning
numbers:
  build/default/bin/tessera compile k.mlir --target nvptx64-nvidia-cuda:sm_90a \
      --no-cache -o /tmp/k.tsb --dump-dir /tmp/k
  scripts/ptx-loop-count.py /tmp/k/kernel.sm_90a.ptx
The static count may include blocks before the loop that share its inline-asm
labels; the per-iteration paths do not."""
import re, sys, collections
lines = open(sys.argv[1]).read().split('\n')
blocks = collections.OrderedDict(); order=[]; cur='ENTRY'; blocks[cur]=[]; order.append(cur)
inentry=False; seen=collections.Counter(); alias={}
for l in lines:
    s=l.strip()
    if s.startswith('.visible .entry') or s.startswith('.entry'):
        if inentry: break
        inentry=True; continue
    if not inentry: continue
    m=re.match(r'^([\$\w]+):$', s)
    if m:
        name=m.group(1); seen[name]+=1
        if seen[name]>1: name=f"{name}#{seen[name]}"
        alias[m.group(1)]=name
        cur=name; blocks[cur]=[]; order.append(cur); continue
    if not s or s.startswith('//') or s.startswith('.') or s in ('{','}'): continue
    blocks[cur].append((s, dict(alias)))
succ={}
for i,n in enumerate(order):
    ss=[]; fall=True
    for x,al in blocks[n]:
        m=re.search(r'\bbra(?:\.uni)?\s+([\$\w]+);', x)
        if m:
            t=m.group(1)
            # inline-asm labels: the latest definition so far, else the next one
            tgt=al.get(t)
            if tgt is None or (seen[t]>1 and order.index(tgt) < i and t.startswith('TESSERA_DONE')):
                # forward reference: next definition after this block
                for j in range(i+1,len(order)):
                    if order[j].split('#')[0]==t: tgt=order[j]; break
            ss.append(tgt)
            if not x.startswith('@'): fall=False
        if x.startswith('ret') or x.startswith('exit'): fall=False
    if fall and i+1<len(order): ss.append(order[i+1])
    succ[n]=[t for t in ss if t in blocks]
pred=collections.defaultdict(list)
for n,ss in succ.items():
    for t in ss: pred[t].append(n)
allb=set(order); dom={n:set(allb) for n in order}; dom['ENTRY']={'ENTRY'}
ch=True
while ch:
    ch=False
    for n in order[1:]:
        ps=[dom[p] for p in pred[n]]
        nd=(set.intersection(*ps) if ps else set())|{n}
        if nd!=dom[n]: dom[n]=nd; ch=True
loops=collections.defaultdict(set); latches=collections.defaultdict(set)
for n in order:
    for t in succ[n]:
        if t in dom[n]:
            body={t,n}; st=[n]
            while st:
                x=st.pop()
                for p in pred[x]:
                    if p not in body: body.add(p); st.append(p)
            loops[t]|=body; latches[t].add(n)
def ninstr(b): return len(blocks[b])
def mmas(bs): return sum(1 for b in bs for x,_ in blocks[b] if 'wgmma.mma_async' in x or 'mma.sync' in x)
h=max(loops, key=lambda k:(mmas(loops[k]), len(loops[k])))
bs=loops[h]
# paths through one iteration: DAG of the body without edges back to any loop header
heads=set(loops)
# walk from h; inner loop headers (spin waits) are entered through their own edges
def walk(n, seenh):
    outs=[t for t in succ[n] if t in bs and t!=h and not (t in heads and t in seenh)]
    c=ninstr(n)
    res=[]
    for t in set(outs):
        res.append(walk(t, seenh|({t} if t in heads else set())))
    if not res: return (c,c)
    return (c+min(r[0] for r in res), c+max(r[1] for r in res))
lo,hi=walk(h,{h})
total=sum(ninstr(b) for b in bs)
ops=collections.Counter()
for b in bs:
    for x,_ in blocks[b]:
        y=x.split(None,1)[1] if x.startswith('@') else x
        ops[re.split(r'[\s.]',y,1)[0]]+=1
print(f"main loop: {len(bs)} blocks, {total} instructions; one iteration: {lo} (shortest path) .. {hi} (longest)")
if len(sys.argv)>2:
    print("  " + ", ".join(f"{k} {v}" for k,v in ops.most_common(14)))
    for b in order:
        if b in bs: print(f"  {b:16s} {ninstr(b):4d} -> {succ[b]}")
