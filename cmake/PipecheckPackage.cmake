# `make deb`: pipecheck_<version>_amd64.deb through CPack's DEB generator. Everything installs into
# /usr/lib/pipecheck (the command finds its probes beside itself and the GPU burn module in
# modules/ there, through /proc/self/exe) with /usr/bin/pipecheck a link to it; the README and the fleet script go to
# /usr/share/doc/pipecheck.
# Dependencies: dpkg-shlibdeps reads them off the binaries for every library a Debian package
# provides. CUDA's math libraries (cuBLAS, NCCL) are not Debian packages: the GPU probes and the
# burn module find them at run time (ldconfig, LD_LIBRARY_PATH, or /usr/local/cuda/lib64 through
# their RUNPATH) and are skipped with what to install where they are missing, so they are left
# out of Depends (CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS keeps dpkg-shlibdeps from asking).
include(GNUInstallDirs)
set(PIPECHECK_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/pipecheck)
if(CMAKE_INSTALL_LIBDIR MATCHES "^lib/")  # Debian's multiarch lib/x86_64-linux-gnu: keep lib/pipecheck
  set(PIPECHECK_INSTALL_DIR lib/pipecheck)
endif()

function(pipecheck_install_gpu_runpath target)
  if(PIPECHECK_HAVE_CUDA)
    set_target_properties(${target} PROPERTIES INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
  endif()
endfunction()

install(TARGETS pipecheck RUNTIME DESTINATION ${PIPECHECK_INSTALL_DIR})
foreach(old IN LISTS PIPECHECK_OLD_NAMES)
  install(FILES ${CMAKE_BINARY_DIR}/bin/${old} DESTINATION ${PIPECHECK_INSTALL_DIR})
endforeach()
foreach(probe IN LISTS PIPECHECK_PROBES)
  pipecheck_install_gpu_runpath(${probe})
  install(TARGETS ${probe} RUNTIME DESTINATION ${PIPECHECK_INSTALL_DIR})
endforeach()
if(TARGET pipecheck_gpu_burn)
  pipecheck_install_gpu_runpath(pipecheck_gpu_burn)
  # In a folder of its own: a private module, not a library for ldconfig (a .so right under
  # /usr/lib/<dir> makes CPack add ldconfig maintainer scripts).
  install(TARGETS pipecheck_gpu_burn LIBRARY DESTINATION ${PIPECHECK_INSTALL_DIR}/modules)
endif()
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/package)
file(CREATE_LINK ../${PIPECHECK_INSTALL_DIR}/pipecheck ${CMAKE_BINARY_DIR}/package/pipecheck SYMBOLIC)
install(FILES ${CMAKE_BINARY_DIR}/package/pipecheck DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(PROGRAMS scripts/fleet-run.sh DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pipecheck)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU training machine check-up: each pipeline stage against its ceiling")
set(CPACK_PACKAGE_CONTACT "pipecheck maintainers <pipecheck@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # pipecheck_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${CUDAToolkit_LIBRARY_DIR};${CUDAToolkit_LIBRARY_DIR}/stubs")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "slurm-client")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Measures storage, decode, host memory, PCIe, HBM, GEMM and NCCL against\n their ceilings, burns GPUs with verified results, and checks Slurm nodes\n (pipecheck check). cuBLAS and NCCL come from NVIDIA's packages or a CUDA install.")
include(CPack)
