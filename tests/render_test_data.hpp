// Test helpers for the renderer tests: the recorded results folders under tests/data/golden
// (h200: a GPU node written by hand; host: a real `pipecheck run --quick` on a VM) and a
// golden comparison that rewrites the file when PIPECHECK_UPDATE_GOLDEN is set.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/file_io.hpp"
#include "core/json_records.hpp"
#include "render/render_support.hpp"
#include "report/report.hpp"

namespace pipecheck::testing {

inline std::filesystem::path golden_folder(const std::string& name) {
  return std::filesystem::path(PIPECHECK_TEST_DATA) / "golden" / name;
}

struct RecordedRun {
  Report report;
  Inventory inventory;
  RenderExtras extras;
};

// report.json (with its verdicts), inventory.json and, where present, telemetry.csv.
inline RecordedRun load_recorded_run(const std::string& name) {
  const auto folder = golden_folder(name);
  RecordedRun run;
  run.report = report_from_json(nlohmann::json::parse(read_file(folder / "report.json")));
  run.inventory = nlohmann::json::parse(read_file(folder / "inventory.json")).get<Inventory>();
  if (std::filesystem::exists(folder / "telemetry.csv")) {
    run.extras.telemetry = read_telemetry_log(folder / "telemetry.csv");
  }
  return run;
}

// Compares `rendered` with the golden file; PIPECHECK_UPDATE_GOLDEN=1 rewrites it first (review
// the diff after an intended change).
inline void expect_golden(const std::string& rendered, const std::filesystem::path& path) {
  if (std::getenv("PIPECHECK_UPDATE_GOLDEN") != nullptr) write_file_atomically(path, rendered);
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " missing: run with PIPECHECK_UPDATE_GOLDEN=1";
  EXPECT_EQ(rendered, read_file(path)) << "differs from " << path;
}

}  // namespace pipecheck::testing
