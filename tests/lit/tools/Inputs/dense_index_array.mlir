// A dense array of index elements, which the MLIR 22 parser would crash on.
tile.func @f(%A: !tile.tensor<[N], f32>) {
  tile.return
}
"test.op"() {a = array<index: 1>} : () -> ()
