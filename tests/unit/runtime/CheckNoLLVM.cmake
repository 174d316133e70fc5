# Fails when LIBRARY needs libMLIR or libLLVM, directly (readelf -d) or
# through another library (ldd).
execute_process(COMMAND readelf -d ${LIBRARY} OUTPUT_VARIABLE direct
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf -d ${LIBRARY} failed")
endif()
execute_process(COMMAND ldd ${LIBRARY} OUTPUT_VARIABLE all RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ldd ${LIBRARY} failed")
endif()
foreach(text direct all)
  if(${text} MATCHES "lib(MLIR|LLVM)[^ \n]*")
    message(FATAL_ERROR "${LIBRARY} links ${CMAKE_MATCH_0}:\n${${text}}")
  endif()
endforeach()
message(STATUS "${LIBRARY} NEEDED entries:\n${direct}")
