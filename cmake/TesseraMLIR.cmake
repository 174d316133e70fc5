# Finds LLVM/MLIR 22 and links the shared libMLIR.so / libLLVM.so only: a static
# MLIR linked into a plugin would register every dialect a second time.
find_package(MLIR REQUIRED CONFIG
  HINTS /usr/lib/llvm-22/lib/cmake/mlir)
find_package(LLVM REQUIRED CONFIG
  HINTS /usr/lib/llvm-22/lib/cmake/llvm)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "tessera needs LLVM/MLIR 22, found ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR}")
endif()
message(STATUS "tessera: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
set(LLVM_RUNTIME_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/bin)
set(LLVM_LIBRARY_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/lib)
set(MLIR_BINARY_DIR ${CMAKE_BINARY_DIR})
include(TableGen)
include(AddLLVM)
include(AddMLIR)

# The shared libraries exported by Debian's llvm-22 packages.
set(TESSERA_MLIR_LIBS MLIR LLVM)
set(LLVM_TOOLS_DIR ${LLVM_TOOLS_BINARY_DIR})

# LLVM_DEFINITIONS is one string of -D flags; split it into definitions.
separate_arguments(_tessera_llvm_defs UNIX_COMMAND "${LLVM_DEFINITIONS}")
set(TESSERA_LLVM_DEFINITIONS)
foreach(def ${_tessera_llvm_defs})
  string(REGEX REPLACE "^-D" "" def "${def}")
  list(APPEND TESSERA_LLVM_DEFINITIONS "${def}")
endforeach()

function(tessera_use_mlir target)
  target_include_directories(${target} SYSTEM PUBLIC ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
  target_compile_definitions(${target} PUBLIC ${TESSERA_LLVM_DEFINITIONS})
  target_link_libraries(${target} PUBLIC ${TESSERA_MLIR_LIBS})
endfunction()

# mlir_tablegen reads the directory's include path for .td files.
include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
