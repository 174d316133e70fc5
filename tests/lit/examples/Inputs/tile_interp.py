# A tiny reference interpreter (numpy) for the subset of the tile dialect the
# examples use, written from the semantics in docs/dialect.md. Line-based:
# it reads the examples as written (one op per line), not arbitrary IR.
import re, numpy as np
F = {'f16': np.float16, 'f32': np.float32, 'bf16': np.float32, 'i32': np.int32, 'i64': np.int64, 'i1': np.bool_, 'index': np.int64}

def parse_block(lines, i):
    out = []
    while i < len(lines):
        l = lines[i]
        if l == '}':
            return out, i + 1
        if l.endswith('{'):
            body, i = parse_block(lines, i + 1)
            out.append((l, body))
        else:
            out.append((l, None)); i += 1
    return out, i

def tiletype(t):
    m = re.match(r'!tile\.tile<([0-9x]+)x(\w+), (\w+)', t.strip())
    return tuple(int(d) for d in m.group(1).split('x')), m.group(2)

class Interp:
    def __init__(self, text):
        lines = [l.split('//')[0].strip() for l in text.splitlines()]
        lines = [l for l in lines if l]
        # join the multi-line func header
        src = ' '.join(lines)
        m = re.search(r'tile\.func @\w+\((.*?)\) \{', src)
        self.params = re.findall(r'(%\w+): ([^,%]+(?:<\[[^\]]*\][^>]*>)?)', m.group(1))
        self.params = [p for p, _ in re.findall(r'(%\w+):\s*(!tile\.tensor<\[[^\]]*\], \w+>|\w+)', m.group(1))]
        # body starts after the line ending the func header
        hdr_end = next(k for k, l in enumerate(lines) if l.endswith('{') and k >= next(j for j, x in enumerate(lines) if x.startswith('tile.func')))
        self.body, _ = parse_block(lines, hdr_end + 1)

    def run(self, *args):
        env = dict(zip(self.params, args))
        self.block(self.body, env)

    def v(self, env, name):
        return env[name.strip()]

    def block(self, stmts, env):
        for l, body in stmts:
            self.stmt(l, body, env)

    def stmt(self, l, body, env):
        g = lambda n: env[n]
        if l.startswith('tile.return'): return
        m = re.match(r'tile\.kernel blocks\(([^)]*)\) in \(([^)]*)\)', l)
        if m:
            ivs = [s.strip() for s in m.group(1).split(',')]
            grid = [int(g(s.strip())) for s in m.group(2).split(',')]
            for idx in np.ndindex(*grid):
                e = dict(env); e.update(zip(ivs, idx)); self.block(body, e)
            return
        m = re.match(r'(tile\.pipelined|scf\.for) (%\w+) = (%\w+) to (%\w+) step (%\w+)', l)
        if m:
            for k in range(int(g(m.group(3))), int(g(m.group(4))), int(g(m.group(5)))):
                env[m.group(2)] = k; self.block(body, env)
            return
        m = re.match(r'tile\.parallel \(([^)]*)\) in \[([^\]]*)\]', l)
        if m:
            ivs = [s.strip() for s in m.group(1).split(',')]
            shape = [int(s) for s in m.group(2).split(',')]
            grids = np.indices(shape)
            e = dict(env); e.update(zip(ivs, grids)); self.block(body, e)
            return
        m = re.match(r'(%\w+) = (.*)', l)
        if m:
            env[m.group(1)] = self.expr(m.group(2), env); return
        m = re.match(r'tile\.fill (%\w+), (%\w+)', l)
        if m: g(m.group(1))[...] = g(m.group(2)); return
        m = re.match(r'tile\.clear (%\w+)', l)
        if m: g(m.group(1))[...] = 0; return
        m = re.match(r'tile\.store (%\w+), (%\w+)\[([^\]]*)\]', l)
        if m:
            idx = tuple(g(s.strip()) for s in m.group(3).split(','))
            t = g(m.group(2)); t[idx] = g(m.group(1)); return
        m = re.match(r'tile\.gemm (%\w+), (%\w+), (%\w+)( transpose_b)?( clear)? :', l)
        if m:
            a, b, c = g(m.group(1)), g(m.group(2)), g(m.group(3))
            if m.group(4): b = b.T
            if m.group(5): c[...] = 0
            c[...] += (a.astype(np.float32) @ b.astype(np.float32)); return
        m = re.match(r'tile\.reduce (\w+) (%\w+), (%\w+) dim = (\d+)( accumulate)?', l)
        if m:
            fn = {'sum': np.sum, 'max': np.max, 'min': np.min}[m.group(1)]
            s, d = g(m.group(2)), g(m.group(3)); r = fn(s, axis=int(m.group(4)))
            if m.group(5):
                r = {'sum': d + r, 'max': np.maximum(d, r), 'min': np.minimum(d, r)}[m.group(1)]
            d[...] = r; return
        m = re.match(r'tile\.copy (%\w+)(?:\[([^\]]*)\])?, (%\w+)(?:\[([^\]]*)\])?( transpose)? : (.*)', l)
        if m:
            src, dst = g(m.group(1)), g(m.group(3))
            if m.group(2) is None and m.group(4) is None:
                dst[...] = (src.T if m.group(5) else src).astype(dst.dtype); return
            if m.group(2) is not None:  # global -> tile
                offs = [int(g(s.strip())) for s in m.group(2).split(',')]
                r = dst.ndim; lead = tuple(offs[:-r]) if len(offs) > r else ()
                if any(o >= n for o, n in zip(lead, src.shape)): dst[...] = 0; return
                sub = src[lead] if lead else src
                tile = np.zeros(dst.shape, dtype=src.dtype)
                sl = tuple(slice(o, o + n) for o, n in zip(offs[-r:], dst.shape))
                part = sub[sl]
                tile[tuple(slice(0, n) for n in part.shape)] = part
                dst[...] = tile.astype(dst.dtype); return
            offs = [int(g(s.strip())) for s in m.group(4).split(',')]
            r = src.ndim; lead = tuple(offs[:-r]) if len(offs) > r else ()
            if any(o >= n for o, n in zip(lead, dst.shape)): return
            sub = dst[lead] if lead else dst
            sl = tuple(slice(o, o + n) for o, n in zip(offs[-r:], src.shape))
            part = sub[sl]
            part[...] = src[tuple(slice(0, n) for n in part.shape)].astype(dst.dtype); return
        raise Exception('unknown stmt: ' + l)

    def expr(self, x, env):
        g = lambda n: env[n.strip()]
        m = re.match(r'arith\.constant (\S+) : (\w+)', x)
        if m:
            s, t = m.group(1), m.group(2)
            if s == 'true': return True
            if s.startswith('0x'):
                return np.frombuffer(int(s, 16).to_bytes(4, 'little'), dtype=np.float32)[0]
            return F[t](float(s)) if t.startswith('f') else int(s)
        m = re.match(r'arith\.constant (true|false)', x)
        if m: return m.group(1) == 'true'
        m = re.match(r'tile\.dim (%\w+), (\d+)', x)
        if m: return g(m.group(1)).shape[int(m.group(2))]
        m = re.match(r'tile\.alloc : (.*)', x)
        if m:
            shape, t = tiletype(m.group(1)); return np.zeros(shape, dtype=F[t])
        m = re.match(r'tile\.load (%\w+)\[([^\]]*)\]', x)
        if m:
            return g(m.group(1))[tuple(g(s) for s in m.group(2).split(','))]
        m = re.match(r'arith\.cmpi (\w+), (%\w+), (%\w+)', x)
        if m:
            a, b = g(m.group(2)), g(m.group(3))
            return {'ult': a < b, 'ugt': a > b, 'eq': a == b, 'ne': a != b}[m.group(1)]
        m = re.match(r'arith\.select (%\w+), (%\w+), (%\w+)', x)
        if m: return np.where(g(m.group(1)), g(m.group(2)), g(m.group(3)))
        m = re.match(r'arith\.(\w+) (%\w+), (%\w+)', x)
        if m:
            a, b = g(m.group(2)), g(m.group(3))
            with np.errstate(all='ignore'):
                return {'ceildivui': lambda: -(-a // b), 'muli': lambda: a * b, 'addi': lambda: a + b,
                        'minui': lambda: min(a, b), 'addf': lambda: a + b, 'subf': lambda: a - b,
                        'mulf': lambda: a * b, 'divf': lambda: a / b, 'maximumf': lambda: np.maximum(a, b),
                        'andi': lambda: np.logical_and(a, b), 'xori': lambda: np.logical_xor(a, b)}[m.group(1)]()
        m = re.match(r'arith\.(index_castui|uitofp) (%\w+)', x)
        if m: return np.float32(g(m.group(2))) if m.group(1) == 'uitofp' else g(m.group(2))
        m = re.match(r'math\.(exp|rsqrt) (%\w+)', x)
        if m:
            a = g(m.group(2))
            with np.errstate(all='ignore'):
                return np.exp(a) if m.group(1) == 'exp' else np.float32(1) / np.sqrt(a)
        raise Exception('unknown expr: ' + x)
