// The Prometheus textfile: every line parses as the exposition format (our own regex, then the
// Prometheus client library's parser with the naming rules in tests/check_prometheus.py), one
// family per quantity in base units, dimensions as labels, GPU series labelled as dcgm-exporter
// does, what is unknown left out instead of written as NaN, and the textfile written atomically.
#include "render/render_prometheus.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>
#include <sstream>

#include "core/errors.hpp"
#include "render/render_files.hpp"
#include "tests/render_test_data.hpp"
#include "tests/tool_runner.hpp"

namespace pipecheck {
namespace {

const std::regex kSample(
    R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*")*\})? (-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)$)");
const std::regex kHelp(R"(^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+$)");
const std::regex kType(R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (gauge|counter|untyped)$)");

// Checks the text line by line; returns the number of samples per family.
std::map<std::string, int> check_exposition(const std::string& text) {
  std::map<std::string, int> samples;
  std::map<std::string, int> helps;
  std::string current_type;
  std::istringstream lines(text);
  std::string line;
  std::set<std::string> seen_samples;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (std::regex_match(line, match, kHelp)) {
      EXPECT_EQ(++helps[match[1]], 1) << "HELP twice: " << line;
    } else if (std::regex_match(line, match, kType)) {
      current_type = match[1];
      EXPECT_EQ(helps[current_type], 1) << "TYPE without HELP: " << line;
      EXPECT_EQ(samples.count(current_type), 0u) << "family declared after its samples: " << line;
    } else if (std::regex_match(line, match, kSample)) {
      EXPECT_EQ(match[1], current_type) << "sample outside its family: " << line;
      EXPECT_TRUE(seen_samples.insert(match[1].str() + match[2].str()).second) << "duplicate: " << line;
      ++samples[match[1]];
    } else {
      ADD_FAILURE() << "line does not parse: '" << line << "'";
    }
  }
  EXPECT_TRUE(text.empty() || text.back() == '\n');
  return samples;
}

TEST(RenderPrometheus, EveryLineOfBothRecordedRunsParses) {
  for (const char* name : {"h200", "host"}) {
    SCOPED_TRACE(name);
    const auto run = testing::load_recorded_run(name);
    const auto samples = check_exposition(render_prometheus(run.report, run.inventory, run.report.judged, run.extras));
    EXPECT_GT(samples.at("pipecheck_measured_bytes_per_second"), 5);
    EXPECT_EQ(samples.count("pipecheck_overall_verdict"), 1u);
    EXPECT_EQ(samples.at("pipecheck_run_info"), 1);
    int judgements = static_cast<int>(run.report.judged.judgements.size());
    EXPECT_EQ(samples.count("pipecheck_verdict") ? samples.at("pipecheck_verdict") : 0, judgements);
  }
}

std::string checker() { return std::string(PIPECHECK_TEST_DATA) + "/../check_prometheus.py"; }

// The Prometheus client library's parser and the naming rules, on both recorded runs; and the
// same checker refuses the old layout (a unit label, percent, dimensions packed in a key).
TEST(RenderPrometheus, PrometheusParserAndNamingRulesAcceptIt) {
  if (!testing::python_has("prometheus_client")) {
    GTEST_SKIP() << "python3-prometheus-client not installed for /usr/bin/python3 (scripts/install-deps.sh --with-tests installs it)";
  }
  const auto folder = testing::fresh_temp_folder("prom");
  std::string files;
  for (const char* name : {"h200", "host"}) {
    const auto run = testing::load_recorded_run(name);
    const auto path = folder / (std::string(name) + ".prom");
    write_file_atomically(path, render_prometheus(run.report, run.inventory, run.report.judged, run.extras));
    files += " " + path.string();
  }
  const auto good = testing::run_tool("/usr/bin/python3 " + checker() + files);
  EXPECT_EQ(good.status, 0) << good.output;
  EXPECT_EQ(good.output, "");

  write_file_atomically(folder / "old.prom",
                        "# HELP pipecheck_measurement_value Measured figure.\n# TYPE pipecheck_measurement_value gauge\n"
                        "pipecheck_measurement_value{key=\"hostmem/read/threads:1\",unit=\"GB/s\"} 18.7\n");
  const auto old = testing::run_tool("/usr/bin/python3 " + checker() + " " + (folder / "old.prom").string());
  EXPECT_EQ(old.status, 1) << old.output;
  EXPECT_NE(old.output.find("does not end in a base unit"), std::string::npos) << old.output;
  EXPECT_NE(old.output.find("has a 'unit' label"), std::string::npos) << old.output;
  EXPECT_NE(old.output.find("packs its dimensions into 'key'"), std::string::npos) << old.output;

  write_file_atomically(folder / "broken.prom", "pipecheck_x{a=\"b} 1\n");
  EXPECT_EQ(testing::run_tool("/usr/bin/python3 " + checker() + " " + (folder / "broken.prom").string()).status, 1);
  std::filesystem::remove_all(folder);
}

TEST(RenderPrometheus, BaseUnitsAndDimensionLabels) {
  const auto run = testing::load_recorded_run("h200");
  const std::string text = render_prometheus(run.report, run.inventory, run.report.judged, run.extras);
  // 318 GB/s memcpy on 112 threads, in bytes per second, its op and threads as labels.
  EXPECT_NE(text.find("\npipecheck_measured_bytes_per_second{stage=\"hostmem\",op=\"memcpy\",threads=\"112\"} 3.18e+11\n"),
            std::string::npos);
  EXPECT_NE(text.find("pipecheck_measured_io_operations_per_second{stage=\"storage\",pattern=\"rand_read\",device=\"sda\""),
            std::string::npos);
  // 51.8% of the ceiling as a ratio, not a percentage.
  EXPECT_NE(text.find("\npipecheck_ceiling_ratio{stage=\"hostmem\",op=\"memcpy\",threads=\"112\"} 0.5"),
            std::string::npos);
  EXPECT_EQ(text.find("key=\""), std::string::npos);  // nothing collides here: no key label
  EXPECT_EQ(text.find("unit=\""), std::string::npos);
  EXPECT_EQ(text.find("percent"), std::string::npos);
}

TEST(RenderPrometheus, GpuSeriesJoinDcgmExporters) {
  const auto run = testing::load_recorded_run("h200");
  const std::string text = render_prometheus(run.report, run.inventory, run.report.judged, run.extras);
  // GPU 5 at 0000:ab:00.0: dcgm-exporter's gpu (NVML order by bus id), UUID, pci_bus_id, Hostname.
  const std::string gpu5 = "gpu=\"5\",UUID=\"GPU-5c1f0e2a-77b3-4d0e-9a3c-000000000005\",pci_bus_id=\"00000000:AB:00.0\","
                           "modelName=\"NVIDIA H200\",Hostname=\"gpu-h200-07\"";
  EXPECT_NE(text.find("pipecheck_measured_flop_per_second{stage=\"compute\",dtype=\"bf16\"," + gpu5 + "} 6.55e+14"),
            std::string::npos) << text.substr(0, 2000);
  EXPECT_NE(text.find("pipecheck_verdict{subject=\"compute/gemm/bf16/gpu5\",stage=\"compute\",verdict=\"fail\"," + gpu5 +
                      "} 5"),
            std::string::npos);
  // An inventory fact about a GPU carries the same identity.
  EXPECT_NE(text.find("pipecheck_verdict{subject=\"inventory/gpu3/pcie_link\",stage=\"pcie\",verdict=\"fail\",gpu=\"3\""),
            std::string::npos);
}

TEST(NvmlBusId, AsNvmlPrintsIt) {
  EXPECT_EQ(nvml_bus_id("0000:ab:00.0"), "00000000:AB:00.0");
  EXPECT_EQ(nvml_bus_id("00000001:1b:00.1"), "00000001:1B:00.1");
  EXPECT_EQ(nvml_bus_id("ab:00.0"), "ab:00.0");  // not a bus id with a domain: as is
}

Measurement measurement(const std::string& key, double median) {
  Measurement m;
  m.key = key;
  m.stage = "hostmem";
  m.unit = "GB/s";
  m.stats.median = median;
  m.params = {{"op", "read"}, {"threads", "1"}};
  return m;
}

TEST(RenderPrometheus, UnknownValuesAreLeftOutNotNaN) {
  Report report;
  ProbeOutcome probe;
  probe.probe = "pipecheck-hostmem";
  probe.stage = "hostmem";
  probe.status = ProbeStatus::ok;
  Measurement known = measurement("hostmem/read/threads:1", 10);
  known.ceiling = CeilingResult::known({20, "GB/s", "theoretical", "d"});
  known.percent_of_ceiling = 50;
  Measurement unknown = measurement("hostmem/read/threads:2", 10);
  unknown.params["threads"] = "2";
  unknown.ceiling = CeilingResult::unknown("unknown: memory channel count not reported");
  Measurement nan = measurement("hostmem/read/threads:4", std::nan(""));
  nan.params["threads"] = "4";
  probe.measurements = {known, unknown, nan};
  report.probes.push_back(probe);
  const std::string text = render_prometheus(report, Inventory{}, Judged{}, RenderExtras{});
  check_exposition(text);
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_EQ(text.find("nan"), std::string::npos);
  EXPECT_NE(text.find("pipecheck_ceiling_bytes_per_second{stage=\"hostmem\",op=\"read\",threads=\"1\"} 2e+10"),
            std::string::npos) << text;
  EXPECT_NE(text.find("pipecheck_ceiling_ratio{stage=\"hostmem\",op=\"read\",threads=\"1\"} 0.5\n"), std::string::npos);
  EXPECT_EQ(text.find("pipecheck_ceiling_bytes_per_second{stage=\"hostmem\",op=\"read\",threads=\"2\"}"), std::string::npos);
  EXPECT_EQ(text.find("pipecheck_ceiling_ratio{stage=\"hostmem\",op=\"read\",threads=\"2\"}"), std::string::npos);
  EXPECT_EQ(text.find("threads=\"4\""), std::string::npos);
  // Not judged: no overall sample rather than a made-up pass.
  EXPECT_EQ(text.find("pipecheck_overall_verdict"), std::string::npos);
}

// Two measurements whose dimensions do not tell them apart keep both samples, told apart by key.
TEST(RenderPrometheus, CollidingSeriesAreToldApartByTheirKey) {
  Report report;
  ProbeOutcome probe;
  probe.stage = "hostmem";
  probe.status = ProbeStatus::ok;
  Measurement a = measurement("hostmem/read/threads:1/buffer:small", 10);
  Measurement b = measurement("hostmem/read/threads:1/buffer:large", 12);
  Measurement c = measurement("hostmem/write/threads:1", 8);
  c.params["op"] = "write";
  probe.measurements = {a, b, c};
  report.probes.push_back(probe);
  const std::string text = render_prometheus(report, Inventory{}, Judged{}, RenderExtras{});
  check_exposition(text);
  EXPECT_NE(text.find("{stage=\"hostmem\",op=\"read\",threads=\"1\",key=\"hostmem/read/threads:1/buffer:small\"} 1e+10"),
            std::string::npos) << text;
  EXPECT_NE(text.find("{stage=\"hostmem\",op=\"read\",threads=\"1\",key=\"hostmem/read/threads:1/buffer:large\"} 1.2e+10"),
            std::string::npos);
  EXPECT_NE(text.find("{stage=\"hostmem\",op=\"write\",threads=\"1\"} 8000000000"), std::string::npos);
}

TEST(RenderPrometheus, OverallVerdictFollowsTheOutcomeModel) {
  auto overall_line = [](const Judged& judged) {
    const std::string text = render_prometheus(Report{}, Inventory{}, judged, RenderExtras{});
    const auto at = text.find("\npipecheck_overall_verdict{");
    return at == std::string::npos ? std::string() : text.substr(at + 1, text.find('\n', at + 1) - at - 1);
  };
  Judged judged;
  judged.judgements.push_back({"a", "compute", "a", Verdict::warn, "", ""});
  judged.overall = Verdict::warn;
  EXPECT_EQ(overall_line(judged), "pipecheck_overall_verdict{verdict=\"warn\"} 3");
  judged.judgements.push_back({"b", "compute", "b", Verdict::fail, "", ""});
  judged.overall = Verdict::fail;
  EXPECT_EQ(overall_line(judged), "pipecheck_overall_verdict{verdict=\"fail\"} 5");
  EXPECT_NE(render_prometheus(Report{}, Inventory{}, judged, RenderExtras{})
                .find("pipecheck_verdict{subject=\"b\",stage=\"compute\",verdict=\"fail\"} 5"),
            std::string::npos);
  judged.judgements = {{"c", "decode", "c", Verdict::inconclusive, "", ""}};
  judged.overall = Verdict::inconclusive;
  EXPECT_EQ(overall_line(judged), "pipecheck_overall_verdict{verdict=\"inconclusive\"} 4");
  judged.judgements = {{"d", "hostmem", "d", Verdict::invalid, "", ""}};
  judged.overall = Verdict::invalid;
  EXPECT_EQ(overall_line(judged), "pipecheck_overall_verdict{verdict=\"invalid\"} 6");
}

TEST(PromTextfile, WrittenAtomicallyIntoTheCollectorsFolder) {
  const auto folder = testing::fresh_temp_folder("textfile");
  const auto run = testing::load_recorded_run("host");
  check_prom_textfile_dir(folder);
  const auto path = write_prom_textfile(folder, run.report, run.inventory, run.extras);
  EXPECT_EQ(path, folder / "pipecheck.prom");
  EXPECT_EQ(read_file(path), render_prometheus(run.report, run.inventory, run.report.judged, run.extras));
  // Only the .prom file is left: the temporary name the collector would skip is gone.
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(folder)) ++entries;
  EXPECT_EQ(entries, 1);
  std::filesystem::remove_all(folder);
}

TEST(PromTextfile, AFolderThatIsNotOneIsRefusedByName) {
  const auto folder = testing::fresh_temp_folder("textfile-bad");
  try {
    check_prom_textfile_dir(folder / "missing");
    ADD_FAILURE() << "a missing folder was accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--prom-textfile " + (folder / "missing").string() + ": no such folder"),
              std::string::npos) << error.what();
  }
  write_file_atomically(folder / "file.prom", "x");
  EXPECT_THROW(check_prom_textfile_dir(folder / "file.prom"), UsageError);
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace pipecheck
