tile.func @f(%a: !tile.tensor<[N], f32>) {
  tile.return
}
