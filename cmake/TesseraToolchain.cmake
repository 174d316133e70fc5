# Compiler-wide settings: ccache when present, lld, warnings, sanitizers.
find_program(TESSERA_CCACHE ccache)
if(TESSERA_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${TESSERA_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${TESSERA_CCACHE})
endif()

if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  add_link_options(-fuse-ld=lld)
  add_compile_options(-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)
endif()

if(TESSERA_ENABLE_SANITIZERS)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# Catch a missing library when a shared library links. Not with sanitizers:
# their runtimes live in the executable, so a sanitized shared library has
# undefined references by design.
function(tessera_no_undefined target)
  if(NOT TESSERA_ENABLE_SANITIZERS AND NOT CMAKE_CXX_FLAGS MATCHES "sanitize")
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
endfunction()

# TOML++ is header-only and its internals are inline functions shared by name
# across translation units: every TU must see the same configuration, or the
# linker keeps one layout for code compiled against another (ASan caught a
# stack overflow from exactly that). Errors come back as values everywhere.
add_compile_definitions(TOML_EXCEPTIONS=0)
