// tessera-opt --dump-layouts prints named layouts (and SVG with --svg=).
// RUN: %tessera-opt --dump-layouts mma_m16n8k16_c | FileCheck %s
// RUN: %tessera-opt --dump-layouts mma_m16n8k16_c --svg=%t.svg && FileCheck %s --check-prefix=SVG < %t.svg
// RUN: not %tessera-opt --dump-layouts no_such_layout 2>&1 | FileCheck %s --check-prefix=ERR
// CHECK: T0:r0  T0:r1  T1:r0
// SVG: <svg
// ERR: no_such_layout
