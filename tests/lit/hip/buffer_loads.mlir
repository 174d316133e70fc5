// Copies from global tensors load through buffer resources
// (TargetHooks::loadGlobal, backends/hip/compiler/BufferLoads.h): each copy
// builds a resource from its first element to the tensor's end, with the
// chip's flags word (0x00020000 on gfx942, 0x31004000 on gfx1100); a piece
// wholly inside the tensor is one 16-byte load, a piece at a row's end is
// one load per element at the piece's VGPR offset, or at 2^31 (out of range:
// zero, no memory read) where that element is outside, the scalar offset
// placing it in the piece: no branch per element. A copy reaching
// more than 2^31 bytes from its first element stops the kernel (s_trap).
// No plain global load is left in the kernels.
//
// gemm: global -> shared through register staging (its A and B tiles).
// layernorm_f32_16k: global -> fragment (4 x 2048 f32 row chunks, the last
// one past the rows' end for any N not a multiple of 2048).
// REQUIRES: tessera, plugin-hip
// RUN: rm -rf %t && mkdir -p %t/g942 %t/g1100 %t/l942 %t/l1100
// RUN: %tessera compile %examples/gemm.mlir --target amdgcn-amd-amdhsa:gfx942 --no-cache -o %t/g942.tsb --dump-dir %t/g942 --print-ir-after-all 2>&1 | FileCheck %s --check-prefix=IR -DWORD=131072 -DELEM=i16 -DB=2
// RUN: llvm-objdump -d --mcpu=gfx942 %t/g942/kernel.gfx942.hsaco | FileCheck %s --check-prefixes=CDNA,CDNA16 --implicit-check-not=global_load
// RUN: FileCheck %s --check-prefix=LL -DWORD=131072 < %t/g942/kernel.gfx942.ll
// RUN: %tessera compile %examples/gemm.mlir --target amdgcn-amd-amdhsa:gfx1100 --no-cache -o %t/g1100.tsb --dump-dir %t/g1100 --print-ir-after-all 2>&1 | FileCheck %s --check-prefix=IR -DWORD=822099968 -DELEM=i16 -DB=2
// RUN: llvm-objdump -d --mcpu=gfx1100 %t/g1100/kernel.gfx1100.hsaco | FileCheck %s --check-prefixes=RDNA,RDNA16 --implicit-check-not=global_load
// RUN: FileCheck %s --check-prefix=LL -DWORD=822099968 < %t/g1100/kernel.gfx1100.ll
// RUN: %tessera compile %examples/zoo/layernorm_f32_16k.mlir --target amdgcn-amd-amdhsa:gfx942 --no-cache -o %t/l942.tsb --dump-dir %t/l942 --print-ir-after-all 2>&1 | FileCheck %s --check-prefix=IR -DWORD=131072 -DELEM=i32 -DB=4
// RUN: llvm-objdump -d --mcpu=gfx942 %t/l942/kernel.gfx942.hsaco | FileCheck %s --check-prefixes=CDNA,CDNA32 --implicit-check-not=global_load
// RUN: %tessera compile %examples/zoo/layernorm_f32_16k.mlir --target amdgcn-amd-amdhsa:gfx1100 --no-cache -o %t/l1100.tsb --dump-dir %t/l1100 --print-ir-after-all 2>&1 | FileCheck %s --check-prefix=IR -DWORD=822099968 -DELEM=i32 -DB=4
// RUN: llvm-objdump -d --mcpu=gfx1100 %t/l1100/kernel.gfx1100.hsaco | FileCheck %s --check-prefixes=RDNA,RDNA32 --implicit-check-not=global_load

// After distribution: the reach check, the resource, whole pieces as one
// vector<4xi32> load, and the elements of a piece at a row's end, each at
// the piece's offset or 2^31, with no scf.if among them.
// IR-LABEL: IR Dump After TesseraDistribute
// IR:      %[[FAR:.*]] = arith.cmpi ugt, %{{.*}}, %c2147483648{{(_[0-9]+)?}} : index
// IR-NEXT: scf.if %[[FAR]] {
// IR-NEXT:   llvm.intr.trap
// IR:      %[[RSRC:.*]] = rocdl.make.buffer.rsrc %{{.*}}, %c0_i16{{(_[0-9]+)?}}, %{{.*}}, %c[[WORD]]_i32{{(_[0-9]+)?}} : <1> to <8>
// IR:      rocdl.raw.ptr.buffer.load %[[RSRC]], %{{.*}}, %c0_i32{{(_[0-9]+)?}}, %{{.*}} : vector<4xi32>
// IR:      %[[E0:[0-9]+]] = arith.select %{{[0-9]+}}, %[[PIECE:[0-9]+]], %c-2147483648_i32{{(_[0-9]+)?}} : i32
// IR-NOT:  scf.if
// IR:      rocdl.raw.ptr.buffer.load %[[RSRC]], %[[E0]], %c0_i32{{(_[0-9]+)?}}, %{{.*}} : [[ELEM]]
// IR-NOT:  scf.if
// IR:      %[[E1:[0-9]+]] = arith.select %{{[0-9]+}}, %[[PIECE]], %c-2147483648_i32{{(_[0-9]+)?}} : i32
// IR-NOT:  scf.if
// IR:      rocdl.raw.ptr.buffer.load %[[RSRC]], %[[E1]], %c[[B]]_i32{{(_[0-9]+)?}}, %{{.*}} : [[ELEM]]
// IR-LABEL: IR Dump After Canonicalizer

// In the optimized LLVM IR, the resource word, the out-of-range offset and
// the trap of the reach check.
// LL-DAG: call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %{{.*}}, i16 0, i64 %{{.*}}, i32 [[WORD]])
// LL-DAG: select i1 %{{.*}}, i32 %{{.*}}, i32 -2147483648
// LL-DAG: call void @llvm.trap()

// The disassembly: whole pieces in 16-byte loads.
// CDNA: buffer_load_dwordx4 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], 0 offen
// RDNA: buffer_load_b128 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], 0 offen

// The elements of one piece at a row's end (placed by the scalar offset; the
// scheduler may order them), with no branch among them.
// CDNA16:      buffer_load_ushort v{{[0-9]+}}, v{{[0-9]+}}, [[S:s\[[0-9]+:[0-9]+\]]], {{[0-9]+}} offen
// CDNA16-NOT:  s_cbranch
// CDNA16:      buffer_load_ushort v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// CDNA16-NOT:  s_cbranch
// CDNA16:      buffer_load_ushort v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// CDNA16-NOT:  s_cbranch
// CDNA16:      buffer_load_ushort v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// CDNA16-NOT:  s_cbranch
// CDNA16:      buffer_load_ushort v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// CDNA16-NOT:  s_cbranch
// CDNA16:      buffer_load_ushort v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// CDNA16-NOT:  s_cbranch
// CDNA16:      buffer_load_ushort v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// CDNA16-NOT:  s_cbranch
// CDNA16:      buffer_load_ushort v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen

// RDNA16:      buffer_load_u16 v{{[0-9]+}}, v{{[0-9]+}}, [[S:s\[[0-9]+:[0-9]+\]]], {{[0-9]+}} offen
// RDNA16-NOT:  s_cbranch
// RDNA16:      buffer_load_u16 v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// RDNA16-NOT:  s_cbranch
// RDNA16:      buffer_load_u16 v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// RDNA16-NOT:  s_cbranch
// RDNA16:      buffer_load_u16 v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// RDNA16-NOT:  s_cbranch
// RDNA16:      buffer_load_u16 v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// RDNA16-NOT:  s_cbranch
// RDNA16:      buffer_load_u16 v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// RDNA16-NOT:  s_cbranch
// RDNA16:      buffer_load_u16 v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// RDNA16-NOT:  s_cbranch
// RDNA16:      buffer_load_u16 v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen

// CDNA32:      buffer_load_dword v{{[0-9]+}}, v{{[0-9]+}}, [[S:s\[[0-9]+:[0-9]+\]]], {{[0-9]+}} offen
// CDNA32-NOT:  s_cbranch
// CDNA32:      buffer_load_dword v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// CDNA32-NOT:  s_cbranch
// CDNA32:      buffer_load_dword v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// CDNA32-NOT:  s_cbranch
// CDNA32:      buffer_load_dword v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen

// RDNA32:      buffer_load_b32 v{{[0-9]+}}, v{{[0-9]+}}, [[S:s\[[0-9]+:[0-9]+\]]], {{[0-9]+}} offen
// RDNA32-NOT:  s_cbranch
// RDNA32:      buffer_load_b32 v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// RDNA32-NOT:  s_cbranch
// RDNA32:      buffer_load_b32 v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen
// RDNA32-NOT:  s_cbranch
// RDNA32:      buffer_load_b32 v{{[0-9]+}}, v{{[0-9]+}}, [[S]], {{[0-9]+}} offen

// The reach checks' traps, placed after the code.
// CDNA: s_trap 2
// RDNA: s_trap 2
