// The one way pipecheck parses JSON it did not just build (report.json, inventory.json,
// baseline.json, summary.json, a probe's output): with a nesting limit and a size limit, each a
// named error. nlohmann parses any depth, but copying, printing or comparing the result recurses
// once a level: 300,000 nested '[' (600 kB) ended compare, run --baseline and watch --baseline
// in SIGSEGV. No document pipecheck writes comes near either limit.
#pragma once

#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pipecheck {

constexpr std::size_t kJsonMaxDepth = 256;
constexpr std::size_t kJsonMaxBytes = std::size_t{512} << 20;  // 512 MiB

// Parses `text`; nlohmann::json::parse_error for text that is not JSON, for nesting deeper than
// kJsonMaxDepth ("nested deeper than 256 levels") and for text larger than `max_bytes` ("larger
// than 512 MiB"), so every caller's existing "not valid JSON" path names the file.
nlohmann::json parse_json(std::string_view text, std::size_t max_bytes = kJsonMaxBytes);

// The deepest nesting of arrays and objects in `text`, counted outside strings, stopping as soon
// as it passes `limit` (linear, no recursion).
std::size_t json_nesting_depth(std::string_view text, std::size_t limit);

}  // namespace pipecheck
