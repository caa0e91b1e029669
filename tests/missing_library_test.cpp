// A library the loader could not load, read from ld.so's and dlerror()'s own words.
#include "core/missing_library.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(MissingLibrary, ReadsLdSoAndDlerror) {
  EXPECT_EQ(missing_shared_library("/usr/lib/pipecheck/pipecheck-compute: error while loading shared libraries: "
                                   "libcublas.so.13: cannot open shared object file: No such file or directory"),
            std::optional<std::string>("libcublas.so.13"));
  EXPECT_EQ(missing_shared_library("libnccl.so.2: cannot open shared object file: No such file or directory"),
            std::optional<std::string>("libnccl.so.2"));
  EXPECT_EQ(missing_shared_library("/usr/lib/x86_64-linux-gnu/libnccl.so.2: file too short"),
            std::optional<std::string>("libnccl.so.2"));
  EXPECT_FALSE(missing_shared_library("Segmentation fault").has_value());
  EXPECT_FALSE(missing_shared_library("cudaMalloc on GPU 0: out of memory").has_value());
  EXPECT_FALSE(missing_shared_library("").has_value());
}

// The real loader's words, from a dlopen that fails here.
TEST(MissingLibrary, ReadsThisLoadersOwnWords) {
  ASSERT_EQ(dlopen("libpipecheck-absent.so.7", RTLD_NOW), nullptr);
  const char* why = dlerror();
  ASSERT_NE(why, nullptr);
  EXPECT_EQ(missing_shared_library(why), std::optional<std::string>("libpipecheck-absent.so.7")) << why;
}

TEST(MissingLibrary, NamesWhatToInstall) {
  EXPECT_EQ(missing_library_reason("libcublas.so.13"),
            "libcublas.so.13 not found: install cuBLAS (NVIDIA's libcublas package for this CUDA version, or a CUDA "
            "toolkit) where the loader finds it (ldconfig or LD_LIBRARY_PATH)");
  EXPECT_NE(library_provider("libcublasLt.so.13").find("cuBLASLt"), std::string::npos);
  EXPECT_NE(library_provider("libnccl.so.2").find("libnccl2"), std::string::npos);
  EXPECT_NE(library_provider("libcuda.so.1").find("NVIDIA driver"), std::string::npos);
  EXPECT_EQ(library_provider("libfoo.so.1"), "the package that provides it");
}

}  // namespace
}  // namespace pipecheck
