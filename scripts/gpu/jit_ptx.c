/* Times the CUDA driver's JIT of a PTX file and writes the cubin it makes,
 * for comparing with ptxas (scripts/gpu/jit-vs-ptxas.sh):
 *   jit_ptx <in.ptx> <out.cubin>
 * Prints the wall time of cuModuleLoadDataEx on the PTX (what a PTX image
 * costs at module load) and of a cuLink* run over it (which returns the
 * cubin). Built on the GPU machine: cc jit_ptx.c -I<cuda>/include -lcuda. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

#define CHECK(call)                                                            \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char *s_ = "?";                                                    \
      cuGetErrorName(r_, &s_);                                                 \
      fprintf(stderr, "%s failed: %s\n%s\n", #call, s_, log);                  \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  static char log[1 << 16];
  if (argc != 3) {
    fprintf(stderr, "usage: jit_ptx <in.ptx> <out.cubin>\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f)
    return perror(argv[1]), 1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *ptx = calloc(n + 1, 1);
  if (fread(ptx, 1, n, f) != (size_t)n)
    return fprintf(stderr, "short read\n"), 1;
  fclose(f);

  CUdevice dev;
  CUcontext ctx;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));

  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER,
                         CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {log, (void *)(size_t)(sizeof log - 1)};
  double t0 = now();
  CUmodule m;
  CHECK(cuModuleLoadDataEx(&m, ptx, 2, opts, vals));
  double t1 = now();
  CHECK(cuModuleUnload(m));

  CUlinkState link;
  void *cubin = NULL;
  size_t size = 0;
  double t2 = now();
  CHECK(cuLinkCreate(2, opts, vals, &link));
  CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, n + 1, "in.ptx", 0, NULL,
                      NULL));
  CHECK(cuLinkComplete(link, &cubin, &size));
  double t3 = now();
  FILE *o = fopen(argv[2], "wb");
  if (!o || fwrite(cubin, 1, size, o) != size)
    return perror(argv[2]), 1;
  fclose(o);
  CHECK(cuLinkDestroy(link));
  printf("%s: cuModuleLoadDataEx %.1f ms, cuLink %.1f ms, %zu bytes\n", argv[1],
         t1 - t0, t3 - t2, size);
  return 0;
}
