// The hsaco is a code object v5 (ELF ABI version 3) for the chip, linked by
// ld.lld, and its notes carry what a runtime needs to launch each kernel:
// its symbol, LDS (the fixed part: distribution's shared tiles are dynamic
// LDS, sized at launch from the bundle's metadata), registers and wave size.
// REQUIRES: tessera, plugin-hip
// RUN: rm -rf %t && mkdir -p %t/cdna %t/rdna %t/ew %t/sm
// RUN: %tessera compile %examples/gemm.mlir --target amdgcn-amd-amdhsa:gfx942 --no-cache -o %t/cdna.tsb --dump-dir %t/cdna
// RUN: llvm-readelf -h --notes %t/cdna/kernel.gfx942.hsaco | FileCheck %s --check-prefix=CDNA
// RUN: %tessera info %t/cdna.tsb | FileCheck %s --check-prefix=INFO
// RUN: %tessera compile %examples/softmax.mlir --target amdgcn-amd-amdhsa:gfx1201 --no-cache -o %t/rdna.tsb --dump-dir %t/rdna
// RUN: llvm-readelf -h --notes %t/rdna/kernel.gfx1201.hsaco | FileCheck %s --check-prefix=RDNA
// RUN: %tessera compile %examples/elementwise_add.mlir --target amdgcn-amd-amdhsa:gfx1100 --no-cache -o %t/ew.tsb --dump-dir %t/ew
// RUN: llvm-objdump -d --mcpu=gfx1100 %t/ew/kernel.gfx1100.hsaco | FileCheck %s --check-prefix=EW
// RUN: %tessera compile %examples/softmax.mlir --target amdgcn-amd-amdhsa:gfx942 --no-cache -o %t/sm.tsb --dump-dir %t/sm
// RUN: llvm-objdump -d --mcpu=gfx942 %t/sm/kernel.gfx942.hsaco | FileCheck %s --check-prefix=SM

// CDNA: OS/ABI: AMDGPU - HSA
// CDNA: ABI Version: 3
// CDNA: Flags: {{.*}}gfx942
// CDNA: amdhsa.kernels:
// CDNA: .group_segment_fixed_size: 0
// CDNA: .kernarg_segment_size:
// CDNA: .max_flat_workgroup_size: 128
// CDNA: .name: tessera_kernel_gemm
// CDNA: .vgpr_count:
// CDNA: .wavefront_size: 64
// CDNA: amdhsa.target: amdgcn-amd-amdhsa--gfx942
// CDNA: amdhsa.version:
// CDNA-NEXT: - 1
// CDNA-NEXT: - 2

// INFO: image 0: amdgcn-amd-amdhsa:gfx942
// INFO: kernel gemm (symbol tessera_kernel_gemm): 128 threads, {{[1-9][0-9]*}} shared bytes

// RDNA: ABI Version: 3
// RDNA: Flags: {{.*}}gfx1201
// RDNA: .name: tessera_kernel_softmax
// RDNA: .wavefront_size: 32

// An element-wise kernel: 16-byte global accesses (loads through a buffer
// resource, buffer_loads.mlir), no LDS, no barrier.
// EW: <tessera_kernel_elementwise_add>:
// EW-NOT: ds_
// EW-NOT: s_barrier
// EW: buffer_load_b128
// EW-NOT: ds_
// EW-NOT: s_barrier
// EW: s_endpgm

// Softmax reduces across the wave by lane shuffles (ds_swizzle or
// ds_bpermute from gpu.shuffle) and exponentiates without ocml.
// SM: <tessera_kernel_softmax>:
// SM-DAG: buffer_load_dwordx4
// SM-DAG: v_exp_f32
// SM-DAG: ds_{{swizzle|bpermute}}_b32
// SM: s_endpgm
