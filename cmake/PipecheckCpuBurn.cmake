# The CPU burn's variants (stress/cpu_burn_kernel_<isa>.cpp), each compiled for its own ISA so
# that the binary stays portable: the widest one the CPU runs is picked by CPUID at run time
# (stress/cpu_burn_isa.cpp), never by -march=native at build time.
#   -ffp-contract=fast  where the ISA has FMA: x * a + b becomes one fused instruction, which the
#                       scalar reference (std::fma) matches bit for bit
#   -ffp-contract=off   where it has none: a multiply then an add, as the reference does
#   -fno-tree-vectorize the scalar reference stays scalar (the burn's vectors are explicit)
# tests/check_burn_code.sh (ctest build.cpu_burn_code) checks the object code of each.
function(pipecheck_cpu_burn_sources sources_var)
  set(dir ${CMAKE_SOURCE_DIR}/stress)
  set(sources ${${sources_var}})
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    set_source_files_properties(${dir}/cpu_burn_kernel_avx512.cpp PROPERTIES
                                COMPILE_OPTIONS "-mavx512f;-mfma;-ffp-contract=fast;-fno-tree-vectorize")
    set_source_files_properties(${dir}/cpu_burn_kernel_avx2.cpp PROPERTIES
                                COMPILE_OPTIONS "-mavx2;-mfma;-ffp-contract=fast;-fno-tree-vectorize")
    set_source_files_properties(${dir}/cpu_burn_kernel_baseline.cpp PROPERTIES
                                COMPILE_OPTIONS "-ffp-contract=off;-fno-tree-vectorize")
  else()
    list(FILTER sources EXCLUDE REGEX "cpu_burn_kernel_avx(2|512)\\.cpp$")
    if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
      set(contract -ffp-contract=fast)  # FMA is in the base ISA (the variant says fused)
    else()
      set(contract -ffp-contract=off)
    endif()
    set_source_files_properties(${dir}/cpu_burn_kernel_baseline.cpp PROPERTIES
                                COMPILE_OPTIONS "${contract};-fno-tree-vectorize")
  endif()
  set(${sources_var} ${sources} PARENT_SCOPE)
endfunction()
