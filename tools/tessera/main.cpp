//===- main.cpp - the `tessera` command-line tool -------------------------===//
//
// Dispatches `tessera <command> [args]` through the table below.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include <cstdio>
#include <cstring>

using namespace tessera::tool;

namespace {

const char kCompileHelp[] =
    "usage: tessera compile <kernel.mlir> [options]\n"
    "\n"
    "Compiles a tile program for each target into one bundle.\n"
    "\n"
    "  -t, --target TRIPLE[:CHIP]  a target (repeat for more; default: the "
    "host CPU),\n"
    "                              e.g. nvptx64-nvidia-cuda:sm_90a, "
    "amdgcn-amd-amdhsa:gfx942,\n"
    "                              spirv64-unknown-vulkan1.3:lavapipe\n"
    "  -o FILE                     the bundle (default: <kernel>.tsb)\n"
    "  -O0 .. -O3                  LLVM's optimization level (default -O3)\n"
    "  --dump-dir DIR              each target's intermediate files (LLVM IR, "
    "PTX, ptxas -v)\n"
    "  --print-ir-after-all        the IR after every pass, on stderr\n"
    "  --no-cache                  compile even when the compile cache has "
    "the bundle\n"
    "  --time                      where the compile spent its time\n";

const char kRunHelp[] =
    "usage: tessera run <bundle.tsb> [options]\n"
    "\n"
    "Runs a kernel of a bundle on random inputs, checks every tensor "
    "(against the\n"
    "bundle's CPU image when it runs on an accelerator, against the tile\n"
    "interpreter on the CPU) and times it.\n"
    "\n"
    "  --kernel NAME          the kernel (needed when the bundle has more "
    "than one)\n"
    "  --shape M=..,N=..      sizes of the kernel's symbolic dimensions\n"
    "  --scalar NAME=VALUE    a scalar argument (repeatable)\n"
    "  --device INDEX|PLUGIN  the device (default: the best one the bundle "
    "has an image for)\n"
    "  --fill uniform|normal  inputs uniform in [-1, 1) (default) or "
    "standard normal\n"
    "  --iters N, --warmup N  timed and untimed launches\n"
    "  --seed S               the inputs' random seed\n"
    "  --flops FORMULA        also print GFLOP/s, e.g. \"2*M*N*K\"\n"
    "  --no-check             skip the check against the host\n"
    "  --json                 one JSON line of results\n"
    "  --dump DIR             each tensor's input, result and reference as "
    "text\n";

const char kPluginsHelp[] =
    "usage: tessera plugins\n"
    "\n"
    "Lists the runtime plugins found, their state (ready, unavailable, "
    "refused)\n"
    "and their devices.\n";

const char kInfoHelp[] =
    "usage: tessera info <bundle.tsb>\n"
    "\n"
    "Describes a bundle: its images (target, kind, size, checksum) and each\n"
    "kernel's grid, threads and arguments.\n";

const Command kCommands[] = {
    {"compile", "<kernel.mlir>", "compile a kernel for targets into a bundle",
     runCompile, kCompileHelp},
    {"run", "<bundle.tsb>", "run a kernel on random inputs, check and time it",
     runRun, kRunHelp},
    {"plugins", "", "list runtime plugins, their state and their devices",
     runPlugins, kPluginsHelp},
    {"info", "<bundle.tsb>", "describe the images and kernels of a bundle",
     runInfo, kInfoHelp},
};

const Command *findCommand(const char *name) {
  for (const Command &command : kCommands)
    if (!std::strcmp(name, command.name))
      return &command;
  return nullptr;
}

bool isHelp(const char *arg) {
  return !std::strcmp(arg, "help") || !std::strcmp(arg, "--help") ||
         !std::strcmp(arg, "-h");
}

int usage(FILE *out) {
  std::fprintf(out, "usage: tessera <command> [arguments]\n\ncommands:\n");
  for (const Command &command : kCommands)
    std::fprintf(out, "  %-8s %-14s %s\n", command.name, command.usage,
                 command.summary);
  std::fprintf(out, "  %-8s %-14s %s\n", "help", "[<command>]",
               "show this text, or a command's options");
  return out == stderr ? 2 : 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return usage(stderr);
  const char *name = argv[1];
  if (isHelp(name)) {
    // `tessera help <command>`: that command's options.
    if (argc > 2) {
      if (const Command *command = findCommand(argv[2])) {
        std::fputs(command->help, stdout);
        return 0;
      }
      std::fprintf(stderr, "tessera: unknown command '%s'\n\n", argv[2]);
      return usage(stderr);
    }
    return usage(stdout);
  }
  if (const Command *command = findCommand(name)) {
    for (int i = 2; i < argc; ++i)
      if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
        std::fputs(command->help, stdout);
        return 0;
      }
    return command->run(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "tessera: unknown command '%s'\n\n", name);
  return usage(stderr);
}
