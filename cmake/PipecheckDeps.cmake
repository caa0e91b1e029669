# The Debian packages pipecheck builds against (scripts/install-deps.sh installs them).
# Found through CMake configs or pkg-config, so CMAKE_PREFIX_PATH / PKG_CONFIG_* prefixes work.
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(benchmark REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBURING REQUIRED IMPORTED_TARGET liburing)
pkg_check_modules(TURBOJPEG REQUIRED IMPORTED_TARGET libturbojpeg)
# libjpeg's own API: the decode probe reads a row at a time as Pillow does (decode/pillow_decode.hpp).
pkg_check_modules(LIBJPEG REQUIRED IMPORTED_TARGET libjpeg)
# hwloc (Debian 12: 2.9) reads the machine's topology: packages, cores, caches, NUMA nodes, PCI tree.
# 2.8 for the NO_DISTANCES/NO_MEMATTRS/NO_CPUKINDS load flags (set_components is 2.1).
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc>=2.8)
# The history store (history/): SQLite for a node's own file, libpq for a fleet's PostgreSQL.
# 3.35 for RETURNING.
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3>=3.35)
pkg_check_modules(LIBPQ REQUIRED IMPORTED_TARGET libpq)
# GoogleTest only with the tests (make test; install-deps --with-tests): make bench configures
# with PIPECHECK_BUILD_TESTS=OFF on a node that has none.
if(PIPECHECK_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# MPI only carries pipecheck-comm's multi-process/multi-node runs (one rank a GPU under mpirun or
# srun); without it the probe still drives every local GPU from one process.
set(PIPECHECK_HAVE_MPI OFF)
if(PIPECHECK_WITH_MPI)
  find_package(MPI QUIET COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(PIPECHECK_HAVE_MPI ON)
    message(STATUS "pipecheck: MPI ${MPI_CXX_VERSION} (pipecheck-comm runs under mpirun/srun)")
  else()
    message(STATUS "pipecheck: MPI not found; pipecheck-comm runs as a single process only "
                   "(install libopenmpi-dev and reconfigure for mpirun/srun)")
  endif()
else()
  message(STATUS "pipecheck: MPI disabled (-DPIPECHECK_WITH_MPI=OFF); pipecheck-comm runs as a single process only")
endif()
