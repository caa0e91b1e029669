// Test helper: measurements as the probes label them, for the judge, findings and budget tests.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "core/measurement.hpp"

namespace pipecheck::testing {

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// One measurement whose median, min and max are `median`, over 5 samples.
inline Measurement measure(const std::string& key, const std::string& stage, double median, const std::string& unit,
                           std::map<std::string, std::string> params) {
  Measurement m;
  m.key = key;
  m.stage = stage;
  m.what = key;
  m.unit = unit;
  m.stats = {median, median, median, 5};
  m.params = std::move(params);
  return m;
}

// A decode case as the probe labels it; `corpus` facts as a generated corpus of 24 images.
inline Measurement decode_case(const std::string& op, const std::string& set, int threads, double rate,
                               std::map<std::string, std::string> corpus = {}) {
  std::map<std::string, std::string> params = {{"op", op}, {"set", set}, {"threads", std::to_string(threads)},
                                               {"train_size", "640x640"}};
  if (corpus.empty()) {
    corpus = {{"corpus", "generated"}, {"corpus_images", "24"}, {"baseline", "24"}, {"progressive", "0"},
              {"median_size", "2000x1500"}};
  }
  params.insert(corpus.begin(), corpus.end());
  const std::string suffix = set == "baseline" ? "" : "_" + set;
  return measure("decode/" + op + suffix + "/threads:" + std::to_string(threads), "decode", rate, "images/s", params);
}

}  // namespace pipecheck::testing
