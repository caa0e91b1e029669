// The GPU burn is a module loaded at run time, so the command links no CUDA library: it loads
// where its libraries are, and says why not where they are missing or the file is not ours.
#include <gtest/gtest.h>

#include <filesystem>

#include "pipecheck_config.hpp"
#include "stress/gpu_burn.hpp"

namespace pipecheck {
namespace {

const std::filesystem::path kModule = std::filesystem::path(PIPECHECK_BIN_DIR) / gpu_burn_module_name;

TEST(GpuBurnLoader, TheBuiltModuleLoads) {
  if (!PIPECHECK_HAVE_CUDA) {
    ASSERT_TRUE(gpu_burn_unavailable().has_value());
    EXPECT_NE(gpu_burn_unavailable()->find("not built: no CUDA toolkit"), std::string::npos);
    GTEST_SKIP() << "built without CUDA: no GPU burn module";
  }
  ASSERT_TRUE(std::filesystem::exists(kModule)) << kModule;
  EXPECT_EQ(load_gpu_burn_module_for_test(kModule.string()), std::nullopt);
  // Beside this test binary, as beside the command.
  EXPECT_EQ(gpu_burn_unavailable(), std::nullopt);
}

TEST(GpuBurnLoader, AFileThatIsNotTheModuleIsRefused) {
  const auto not_ours = load_gpu_burn_module_for_test("libm.so.6");
  ASSERT_TRUE(not_ours.has_value());
  EXPECT_EQ(*not_ours, "GPU burn unavailable: libm.so.6 is not a pipecheck GPU burn module");
  const auto absent = load_gpu_burn_module_for_test("/nonexistent/pipecheck-gpu-burn.so");
  ASSERT_TRUE(absent.has_value());
  EXPECT_NE(absent->find("cannot load /nonexistent/pipecheck-gpu-burn.so"), std::string::npos) << *absent;
}

}  // namespace
}  // namespace pipecheck
