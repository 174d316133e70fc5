tile.func @f(%A: !tile.tensor<[N], f32>) {
  %c = arith.constant 1 : index
  tile.bogus
  tile.return
}
