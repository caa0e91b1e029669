// The label convention probes and the driver share: one benchmark's display name and
// parameters in Google Benchmark's label field. Probes write it (core/probe_main), the driver
// reads it (core/benchmark_json); neither needs the other's code.
#pragma once

#include <map>
#include <string>

namespace pipecheck {

// The label of one benchmark: "what=memcpy, 1 thread;threads=1;buffer_bytes=1073741824".
// Values are written printable (core/text_escape.hpp: a file name's raw bytes become \xHH,
// which the caller does with escape_name), and a ';' inside a value as \x3b, so any name can be
// a value. Keys must not contain ';' or '='.
std::string encode_label(const std::map<std::string, std::string>& params);
std::map<std::string, std::string> decode_label(const std::string& label);

}  // namespace pipecheck
