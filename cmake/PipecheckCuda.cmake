# Finds the CUDA toolkit (in /usr/local/cuda or on PATH) and NCCL. Sets PIPECHECK_HAVE_CUDA and
# PIPECHECK_HAVE_NCCL; when absent, the host-only parts still build and the GPU parts say
# "not built: no CUDA toolkit".
set(PIPECHECK_HAVE_CUDA OFF)
set(PIPECHECK_HAVE_NCCL OFF)
set(PIPECHECK_CUDA_ARCHS_TEXT "")
set(PIPECHECK_CUDA_RUNTIME_VERSION 0)
if(NOT PIPECHECK_WITH_CUDA)
  message(STATUS "pipecheck: CUDA disabled (-DPIPECHECK_WITH_CUDA=OFF)")
  return()
endif()

if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
  find_program(PIPECHECK_NVCC nvcc HINTS ENV CUDA_HOME ENV CUDA_PATH PATH_SUFFIXES bin
               PATHS /usr/local/cuda/bin /usr/local/cuda)
  if(PIPECHECK_NVCC)
    set(CMAKE_CUDA_COMPILER ${PIPECHECK_NVCC})
  endif()
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(STATUS "pipecheck: no CUDA toolkit found; GPU parts: not built: no CUDA toolkit")
  return()
endif()

# `native` only when a GPU is visible now; otherwise a short list covering sm_80 and sm_90,
# to keep CI compile time small.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE smi_rc OUTPUT_VARIABLE smi_out ERROR_QUIET)
  if(smi_rc EQUAL 0 AND smi_out MATCHES "GPU [0-9]")
    set(CMAKE_CUDA_ARCHITECTURES native)
  else()
    set(CMAKE_CUDA_ARCHITECTURES 80 90)
  endif()
endif()
enable_language(CUDA)
set(CMAKE_CUDA_STANDARD 20)  # .cu files include the same headers as the host code
# CMake 3.25 (Debian 12) knows no C++20 flag for nvcc, which accepts -std=c++20 since CUDA 12.
if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
# Debian 12's CMake 3.25.1 FindCUDAToolkit marks CUDA::nvToolsExt deprecated, when the project
# requires CMake >= 3.25, without checking that the target exists; CUDA 12.9 and later ship no
# libnvToolsExt, so that set_property fails the configure (seen in a bare Debian 12 root with
# CUDA 13, scripts/rehearse-gpu-check.sh). The minimum version is hidden from that one check
# for the call; it only decides that deprecation note, no policy.
set(pipecheck_minimum_version ${CMAKE_MINIMUM_REQUIRED_VERSION})
set(CMAKE_MINIMUM_REQUIRED_VERSION 3.24)
find_package(CUDAToolkit REQUIRED)
set(CMAKE_MINIMUM_REQUIRED_VERSION ${pipecheck_minimum_version})
set(PIPECHECK_HAVE_CUDA ON)
math(EXPR PIPECHECK_CUDA_RUNTIME_VERSION "${CUDAToolkit_VERSION_MAJOR} * 1000 + ${CUDAToolkit_VERSION_MINOR} * 10")
message(STATUS "pipecheck: CUDA ${CUDAToolkit_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")

find_path(PIPECHECK_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV NCCL_HOME
          PATH_SUFFIXES include)
find_library(PIPECHECK_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} ENV NCCL_HOME
             PATH_SUFFIXES lib lib64)
if(PIPECHECK_NCCL_INCLUDE AND PIPECHECK_NCCL_LIBRARY)
  add_library(pipecheck::nccl UNKNOWN IMPORTED)
  set_target_properties(pipecheck::nccl PROPERTIES IMPORTED_LOCATION ${PIPECHECK_NCCL_LIBRARY}
                        INTERFACE_INCLUDE_DIRECTORIES ${PIPECHECK_NCCL_INCLUDE})
  set(PIPECHECK_HAVE_NCCL ON)
  message(STATUS "pipecheck: NCCL ${PIPECHECK_NCCL_LIBRARY}")
else()
  message(STATUS "pipecheck: NCCL not found; comm/ not built: no NCCL")
endif()
