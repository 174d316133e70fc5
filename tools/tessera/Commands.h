//===- Commands.h - the subcommands of the `tessera` tool -------*- C++ -*-===//
//
// Each `tessera <command>` lives in its own Cmd<Name>.cpp and is declared
// here; main.cpp lists them in one table. To add a command: write
// Cmd<Name>.cpp, declare its function below, add one row to kCommands in
// main.cpp and the file to CMakeLists.txt.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TOOLS_TESSERA_COMMANDS_H
#define TESSERA_TOOLS_TESSERA_COMMANDS_H

namespace tessera::tool {

/// A command's entry point: argv[0] is the command name, argv[1..] its
/// arguments. Returns the process exit code.
using CommandFn = int (*)(int argc, char **argv);

struct Command {
  const char *name;
  const char *usage;   // arguments, e.g. "<bundle.tsb>"
  const char *summary; // one line for `tessera help`
  CommandFn run;
  const char *help; // `tessera <command> --help`, `tessera help <command>`
};

int runPlugins(int argc, char **argv);
int runInfo(int argc, char **argv);
int runCompile(int argc, char **argv);
int runRun(int argc, char **argv);

} // namespace tessera::tool

#endif // TESSERA_TOOLS_TESSERA_COMMANDS_H
