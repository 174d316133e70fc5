/*===- tessera/compiler_entry.h - the compiler library's C entry points ===*\
|*                                                                          *|
|* The `tessera` tool links no MLIR or LLVM: it answers cached compiles and  *|
|* runs bundles by itself, and dlopens libtessera_compiler.so               *|
|* (RTLD_NOW | RTLD_LOCAL) only to compile or to compute a host reference.   *|
|* These are the symbols it looks up there. Plain C so the two sides need    *|
|* agree on nothing but this header; TESSERA_COMPILER_ENTRY_VERSION changes  *|
|* whenever a struct or signature below does, and the tool refuses a library *|
|* reporting another one.                                                    *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/

#ifndef TESSERA_COMPILER_ENTRY_H
#define TESSERA_COMPILER_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSERA_COMPILER_ENTRY_VERSION 2

/* What to compile. Strings are NUL-terminated and owned by the caller. */
typedef struct tessera_compile_request {
  const char *source_path;
  /* "triple[:chip]" each; none means the host triple. */
  const char *const *targets;
  size_t num_targets;
  int opt_level;          /* 0..3 */
  int print_ir_after_all; /* nonzero: print the module after each pass */
  const char *dump_dir;   /* NULL or "": keep no intermediate files */
  int use_cache;          /* zero: neither read nor write the cache */
  /* Plugin folder searched after TESSERA_PLUGIN_PATH; NULL or "": the
   * library's own <lib dir>/tessera/plugins. */
  const char *default_plugin_dir;
} tessera_compile_request;

typedef struct tessera_compile_result {
  /* The bundle, allocated by the library: release with
   * tessera_compiler_free_result. */
  char *bytes;
  size_t size;
  /* "hit", "miss", "corrupt" (recompiled) or "off". */
  char cache_state[16];
  /* The compile cache key (64 hex digits), "" when it was not computed. */
  char key[65];
  /* Wall time of the compile's phases, one per line (`tessera compile
   * --time`), allocated by the library like `bytes`; NULL when nothing was
   * compiled (a cache hit). */
  char *phase_times;
} tessera_compile_result;

/* Returns TESSERA_COMPILER_ENTRY_VERSION of the library. */
typedef int (*tessera_compiler_entry_version_fn)(void);
int tessera_compiler_entry_version(void);

/* Compiles through the compile cache (when use_cache). Diagnostics are
 * printed to stderr as `file:line:col: error: message`. Returns 0 on
 * success (result filled), nonzero after reporting an error. */
typedef int (*tessera_compiler_compile_fn)(const tessera_compile_request *,
                                           tessera_compile_result *);
int tessera_compiler_compile(const tessera_compile_request *request,
                             tessera_compile_result *result);

typedef void (*tessera_compiler_free_result_fn)(tessera_compile_result *);
void tessera_compiler_free_result(tessera_compile_result *result);

/* One tensor argument of the reference: `data` holds the elements widened
 * to double, row-major, and receives the results in place. */
typedef struct tessera_reference_tensor {
  const int64_t *dims;
  size_t rank;
  double *data;
} tessera_reference_tensor;

/* Interprets tile.func @kernel of `source` (tile dialect text) on the given
 * tensors and scalars, in argument order within each list. Returns 0 on
 * success; otherwise writes why no reference could be computed into `why`
 * (NUL-terminated, truncated to why_size). */
typedef int (*tessera_compiler_reference_fn)(
    const char *source, size_t source_size, const char *kernel,
    tessera_reference_tensor *tensors, size_t num_tensors,
    const double *scalars, size_t num_scalars, char *why, size_t why_size);
int tessera_compiler_reference(const char *source, size_t source_size,
                               const char *kernel,
                               tessera_reference_tensor *tensors,
                               size_t num_tensors, const double *scalars,
                               size_t num_scalars, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_COMPILER_ENTRY_H */
