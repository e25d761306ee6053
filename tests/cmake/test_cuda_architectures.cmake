# cmake -DSR_SOURCE_DIR=... -DSR_TMP=... -P test_cuda_architectures.cmake: the architectures
# cmake/CudaArchitectures.cmake chooses, with a fake nvidia-smi first on the PATH (one GPU, two
# kinds of GPU, a failing driver, output that is no compute capability) and with none at all.
include(${SR_SOURCE_DIR}/cmake/CudaArchitectures.cmake)
set(portable "${SR_CUDA_PORTABLE_ARCHITECTURES}")
set(failures 0)

# The choice with a PATH of one folder holding an nvidia-smi that prints `text` and exits
# `code`; an empty `text` and code "none": no nvidia-smi at all.
function(expect name text code expected)
  set(dir "${SR_TMP}/cuda_arch_${name}")
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}")
  if(NOT code STREQUAL "none")
    file(WRITE "${dir}/nvidia-smi.in" "#!/bin/sh\nprintf '${text}'\nexit ${code}\n")
    file(COPY "${dir}/nvidia-smi.in" DESTINATION "${dir}/bin"
         FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
    file(RENAME "${dir}/bin/nvidia-smi.in" "${dir}/bin/nvidia-smi")
  else()
    file(MAKE_DIRECTORY "${dir}/bin")
  endif()
  set(saved "$ENV{PATH}")
  set(ENV{PATH} "${dir}/bin")
  sr_cuda_architectures(got why)
  set(ENV{PATH} "${saved}")
  if(got STREQUAL expected)
    message(STATUS "ok   ${name}: ${got} (${why})")
  else()
    message(STATUS "FAIL ${name}: got '${got}', expected '${expected}' (${why})")
    math(EXPR n "${failures} + 1")
    set(failures ${n} PARENT_SCOPE)
  endif()
endfunction()

expect(one_gpu "9.0\\n" 0 "90")
expect(two_kinds "9.0\\n8.6\\n9.0\\n" 0 "86;90")
expect(blackwell "12.0\\n" 0 "120")
expect(no_driver "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\\n" 9 "${portable}")
expect(not_a_capability "[N/A]\\n" 0 "${portable}")
expect(no_nvidia_smi "" none "${portable}")

if(failures)
  message(FATAL_ERROR "${failures} of the architecture choices above are wrong")
endif()
