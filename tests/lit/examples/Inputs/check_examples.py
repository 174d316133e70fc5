# Runs every example kernel through tile_interp.py on random inputs (with
# partial tiles at every edge) and compares with numpy; prints one line per
# kernel with the max abs error and the bound it must stay within.
import os, sys, numpy as np
sys.path.insert(0, os.path.dirname(__file__)); from tile_interp import Interp
E = sys.argv[1] + '/'
rng = np.random.default_rng(0)
def load(n): return Interp(open(E + n).read())
def err(a, b): return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))
def report(what, e, bound):
    print('%s: %s (max error %.3g)' % (what, 'ok' if e <= bound else 'FAIL', e))

# gemm / gemm_relu / gemm_f32
for name, dt, relu in [('gemm.mlir', np.float16, False), ('gemm_relu.mlir', np.float16, True), ('gemm_f32.mlir', np.float32, False)]:
    M, N, K = 130, 200, 70
    A = rng.standard_normal((M, K)).astype(dt); B = rng.standard_normal((K, N)).astype(dt)
    C = np.full((M, N), 7, dtype=dt)
    load(name).run(A, B, C)
    ref = A.astype(np.float32) @ B.astype(np.float32)
    if relu: ref = np.maximum(ref, 0)
    report(name, err(C, ref), 0.05 if dt == np.float16 else 1e-4)

N = 2500
A = rng.standard_normal(N).astype(np.float32); B = rng.standard_normal(N).astype(np.float32); C = np.zeros(N, np.float32)
load('elementwise_add.mlir').run(A, B, C); report('elementwise_add.mlir', err(C, A + B), 0)

for (M, N) in [(6, 100), (9, 2100)]:
    X = (rng.standard_normal((M, N)) * 5).astype(np.float32) - 3; Y = np.zeros_like(X)
    load('softmax.mlir').run(X, Y)
    e = np.exp(X - X.max(1, keepdims=True)); report('softmax.mlir %dx%d' % (M, N), err(Y, e / e.sum(1, keepdims=True)), 1e-5)
    W = rng.standard_normal(N).astype(np.float32); Y = np.zeros_like(X); eps = np.float32(1e-5)
    load('rmsnorm.mlir').run(X, W, Y, eps)
    report('rmsnorm.mlir %dx%d' % (M, N), err(Y, X / np.sqrt((X * X).mean(1, keepdims=True) + eps) * W), 1e-4)

for causal in [0, 1]:
    Bb, H, S, D = 2, 2, 150, 128
    Q, K, V = [rng.standard_normal((Bb, H, S, D)).astype(np.float16) for _ in range(3)]
    scale = np.float32(1 / np.sqrt(D))
    s = np.einsum('bhqd,bhkd->bhqk', Q.astype(np.float64), K.astype(np.float64)) * scale
    if causal: s = np.where(np.tril(np.ones((S, S), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True)); p /= p.sum(-1, keepdims=True)
    for name in ['flash_attention_fwd.mlir', 'flash_attention_fwd_q128.mlir']:
        O = np.zeros_like(Q)
        load(name).run(Q, K, V, O, causal, scale)
        report('%s causal=%d' % (name, causal), err(O, np.einsum('bhqk,bhkd->bhqd', p, V.astype(np.float64))), 5e-3)
