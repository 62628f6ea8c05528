# Runs a firmware image and checks its summary line and exit status.
#   cmake -DRUNNER=<cmd;args> -DIMAGE=<elf> -DEXPECT=<text;...> [-DREJECT=<text;...>]
#         -DEXIT_NONZERO=ON|OFF -P run_expecting.cmake
execute_process(COMMAND ${RUNNER} ${IMAGE} RESULT_VARIABLE rc
  OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
set(all "${out}${err}")
message("${all}")
foreach(text IN LISTS EXPECT)
  string(FIND "${all}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${text}' in the output")
  endif()
endforeach()
foreach(text IN LISTS REJECT)
  string(FIND "${all}" "${text}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "did not expect '${text}' in the output")
  endif()
endforeach()
if(EXIT_NONZERO AND rc EQUAL 0)
  message(FATAL_ERROR "expected a non-zero exit status, got ${rc}")
elseif(NOT EXIT_NONZERO AND NOT rc EQUAL 0)
  message(FATAL_ERROR "expected exit status 0, got ${rc}")
endif()
