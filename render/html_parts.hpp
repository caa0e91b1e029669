// The pieces report.html is built from, one file a section where a section is a concept of its
// own (curves, stress telemetry, inventory, why this failed), and the helpers they share. Every
// string from the records goes through h() (html_escape) on its way out.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

#include "core/inventory.hpp"
#include "telemetry/telemetry_csv_reader.hpp"
#include "report/report.hpp"

namespace pipecheck::html {

std::string h(std::string_view text);
// A verdict's CSS class ("v-fail"); nullptr (not judged) gets the neutral "v-none". A pointer,
// not an optional: GCC 12 at -O3 warns (falsely) of an uninitialized optional<enum> here.
std::string verdict_class(const Verdict* verdict);
std::string verdict_class(Verdict verdict);
// A coloured chip with the verdict's name.
std::string chip(const Verdict* verdict);
std::string chip(Verdict verdict);
std::string fmt(double value, const char* format = "%.1f");

// "Why this failed": every invalid, fail and inconclusive verdict with its figure, threshold and
// what to do; nothing when there is none.
void render_attention(std::ostringstream& out, const Report& report, const Judged& judged);
// That section's title ("Why this failed", "Why this is inconclusive"), "" when it has none.
std::string attention_title(const Judged& judged);
// Thread-scaling and size-sweep line charts; "" when no measurement forms a curve.
std::string render_curves(const Report& report);
// A stress run's telemetry.csv: charts over time, then a summary per GPU and one for the host CPU.
void render_telemetry(std::ostringstream& out, const TelemetryLog& log);
// The machine: CPU, memory, software, GPUs, disks, notes.
void render_inventory(std::ostringstream& out, const Inventory& inventory);

}  // namespace pipecheck::html
