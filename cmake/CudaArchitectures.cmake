# sr_cuda_architectures(OUT WHY): the CUDA architectures to build when none were given.
# With a GPU present at configure time: the compute capabilities nvidia-smi reports ("9.0" ->
# 90; one entry per kind of GPU), machine code for those alone: every kernel is compiled once
# per entry, so one GPU builds one target instead of six. Without one (no nvidia-smi, no
# driver, no GPU): the portable list, Turing (75) to Hopper (90) as machine code plus PTX for
# newer GPUs. WHY says which, for the configure output. nvidia-smi rather than CMake's `native`: `native` needs CMake 3.24 and
# stops the configure when it finds no GPU.
set(SR_CUDA_PORTABLE_ARCHITECTURES "75-real;80-real;86-real;89-real;90-real;90-virtual")

function(sr_cuda_architectures out why)
  execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                  RESULT_VARIABLE code OUTPUT_VARIABLE caps ERROR_QUIET TIMEOUT 20)
  set(found "")
  set(seen "")
  if(code STREQUAL "0")
    string(REPLACE "\n" ";" caps "${caps}")
    foreach(cap IN LISTS caps)
      string(STRIP "${cap}" cap)
      if(cap STREQUAL "")
        continue()
      elseif(cap MATCHES "^([0-9]+)\\.([0-9]+)$")
        list(APPEND found "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
        list(APPEND seen "${cap}")
      else()
        set(found "")   # a line that is not a compute capability: trust none of it
        break()
      endif()
    endforeach()
  endif()
  if(found)
    list(REMOVE_DUPLICATES found)
    list(SORT found COMPARE NATURAL)
    set(${out} "${found}" PARENT_SCOPE)
    list(REMOVE_DUPLICATES seen)
    string(REPLACE ";" ", " seen "${seen}")
    string(CONCAT text "the GPU found at configure time (nvidia-smi: compute capability ${seen}); "
           "-DCMAKE_CUDA_ARCHITECTURES=\"${SR_CUDA_PORTABLE_ARCHITECTURES}\" builds for any GPU")
    set(${why} "${text}" PARENT_SCOPE)
  else()
    set(${out} "${SR_CUDA_PORTABLE_ARCHITECTURES}" PARENT_SCOPE)
    string(CONCAT text "no GPU found at configure time, so the portable list (Turing to Hopper, PTX for newer); "
           "-DCMAKE_CUDA_ARCHITECTURES=90 builds for one GPU, faster")
    set(${why} "${text}" PARENT_SCOPE)
  endif()
endfunction()
