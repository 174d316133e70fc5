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

const Command kCommands[] = {
    {"compile", "<kernel.mlir>", "compile a kernel for targets into a bundle",
     runCompile},
    {"run", "<bundle.tsb>", "run a kernel on random inputs, check and time it",
     runRun},
    {"plugins", "", "list runtime plugins, their state and their devices",
     runPlugins},
    {"info", "<bundle.tsb>", "describe the images and kernels of a bundle",
     runInfo},
};

int usage(FILE *out) {
  std::fprintf(out, "usage: tessera <command> [arguments]\n\ncommands:\n");
  for (const Command &command : kCommands)
    std::fprintf(out, "  %-8s %-14s %s\n", command.name, command.usage,
                 command.summary);
  std::fprintf(out, "  %-8s %-14s %s\n", "help", "", "show this text");
  return out == stderr ? 2 : 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return usage(stderr);
  const char *name = argv[1];
  if (!std::strcmp(name, "help") || !std::strcmp(name, "--help") ||
      !std::strcmp(name, "-h"))
    return usage(stdout);
  for (const Command &command : kCommands)
    if (!std::strcmp(name, command.name))
      return command.run(argc - 1, argv + 1);
  std::fprintf(stderr, "tessera: unknown command '%s'\n\n", name);
  return usage(stderr);
}
