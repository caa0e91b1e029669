// The watch's renderers over one record: watch.json's schema and verdict, the HTML page (charts,
// everything escaped), the terminal text, and the live lines.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/file_io.hpp"
#include "tests/watch_test_support.hpp"
#include "watch/watch_csv.hpp"
#include "watch/watch_live.hpp"
#include "watch/watch_render_html.hpp"
#include "watch/watch_render_json.hpp"
#include "watch/watch_render_text.hpp"

namespace pipecheck {
namespace {

struct Rendered {
  WatchReport report;
  std::vector<WatchSample> samples;
};

Rendered storage_bound_report() {
  Rendered r;
  r.samples = parse_watch_csv(read_file(watch_test::fixture("gpu_storage_bound.csv"))).samples;
  // Strings from the job and the user must come out escaped.
  r.samples[5].procs.push_back(ProcWatch{666, "<script>x</script>", 1, 1, 1, 0, 1, 1, "<b>:666", 0.0, 0.0, 0.0, {}, 0});
  const MeasuredCeilings ceilings = load_measured_ceilings(watch_test::fixture("baseline_run"));
  WatchReport& report = r.report;
  report.host = "gpu-node";
  report.mode = "command";
  report.command = {"python", "train.py", "--name=<img src=x onerror=alert(1)>"};
  report.pid = 4242;
  report.started_utc = "2026-11-30T09:00:00.000Z";
  report.finished_utc = "2026-11-30T09:01:00.000Z";
  report.stopped_by = "job_exited";
  report.job_ending = "exit code 0";
  report.job_exit_code = 0;
  report.baseline_source = "results/gpu-node-20261129T080000Z";
  report.job_devices = {{"sda", "/data/shard-0001.tar (pid 4242)"}};
  report.devices_how = "the disks behind the files the job has open or mapped";
  report.analysis = analyze_watch(r.samples, &ceilings, watch_analysis_options(), report.job_devices, {"sda"});
  report.verdict = judge_watch(report.analysis);
  report.top_threads = {{4242, 4242, "<python>", 12.5, 3.5}};
  report.processes = {{4242, 1, "python", 40.1, 12, 1.2e10}};
  report.notes = {"no NVML: GPU columns empty (<none>)"};
  return r;
}

TEST(WatchRender, JsonCarriesTheVerdictAndTheComparisons) {
  const Rendered r = storage_bound_report();
  const nlohmann::json j = watch_report_json(r.report);
  EXPECT_EQ(j["schema"], "pipecheck.watch");
  EXPECT_EQ(j["verdict"]["rule"], "storage_bound");
  EXPECT_EQ(j["findings"][0]["stage"], "storage");
  ASSERT_FALSE(j["ceiling_comparisons"].empty());
  EXPECT_EQ(j["ceiling_comparisons"][0]["subject"], "gpu0");
  EXPECT_EQ(j["analysis"]["disks"][0]["name"], "sda");
  EXPECT_EQ(j["analysis"]["disks"][0]["evidence"], "/data/shard-0001.tar (pid 4242)");
  EXPECT_TRUE(j["analysis"]["periodic_idle"].is_null());
  EXPECT_EQ(j["job_exit_code"], 0);
  EXPECT_EQ(j["processes"][0]["read_bytes"], 1.2e10);
}

TEST(WatchRender, HtmlIsSelfContainedAndEscaped) {
  const Rendered r = storage_bound_report();
  const std::string html = render_watch_html(r.report, r.samples);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("storage bound on sda"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("GPU utilization (%)"), std::string::npos);
  EXPECT_NE(html.find("Disk utilization"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<python>"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos) << "no network reference";
}

TEST(WatchRender, TerminalTextLeadsWithTheVerdict) {
  const Rendered r = storage_bound_report();
  const std::string text = render_watch_text(r.report);
  EXPECT_NE(text.find("\nverdict: storage bound on sda\n"), std::string::npos) << text;
  EXPECT_NE(text.find("try: "), std::string::npos);
  EXPECT_NE(text.find("against the ceilings measured by pipecheck run (results/gpu-node-20261129T080000Z):"),
            std::string::npos) << text;
  EXPECT_NE(text.find("= 95.7% of its measured 190 MB/s"), std::string::npos) << text;
  EXPECT_NE(text.find("note: no NVML"), std::string::npos);
}

TEST(WatchRender, LiveLinesAndPlainDisplay) {
  const Rendered r = storage_bound_report();
  const auto lines = render_live_lines(r.samples[10], "storage bound on sda");
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines.front().rfind("job   00:10", 0), 0u) << lines.front();
  EXPECT_EQ(lines.back(), "so far: storage bound on sda");
  std::ostringstream out;
  WatchDisplay display(out, -1, 10);
  for (std::size_t i = 0; i < 25; ++i) display.update(r.samples[i], "x");
  display.finish();
  // Plain: every 10 s of samples (0, 10, 20), prefixed, no escape sequences.
  const std::string text = out.str();
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  std::size_t jobs = 0;
  for (std::size_t at = 0; (at = text.find("watch: job ", at)) != std::string::npos; ++at) ++jobs;
  EXPECT_EQ(jobs, 3u) << text;
}

// A command that ended before the first rated sample: the verdict says what was seen, and no
// empty chart card or table of zero medians stands in for figures.
TEST(WatchRender, ARunTooShortSaysWhatWasSeenWithoutEmptyCharts) {
  Rendered r = storage_bound_report();
  r.samples.resize(1);
  WatchReport& report = r.report;
  report.analysis = analyze_watch(r.samples, nullptr, watch_analysis_options());
  report.analysis.usage = JobUsage{0.3, 0.2, 0.05, 0, 9};
  report.verdict = judge_watch(report.analysis);
  report.baseline_source.clear();
  const std::string html = render_watch_html(report, r.samples);
  EXPECT_NE(html.find("too short to judge"), std::string::npos);
  EXPECT_NE(html.find("the command ran 0.3 s"), std::string::npos);
  EXPECT_EQ(html.find("Over time"), std::string::npos);
  const std::string text = render_watch_text(report);
  EXPECT_NE(text.find("verdict: too short to judge"), std::string::npos) << text;
  EXPECT_EQ(text.find("figures (medians over"), std::string::npos) << text;
}

TEST(WatchRender, NoBaselineAskedForIsSaidSo) {
  Rendered r = storage_bound_report();
  r.report.baseline_source.clear();
  r.report.baseline_wanted = false;
  r.report.analysis = analyze_watch(r.samples, nullptr, watch_analysis_options(), r.report.job_devices);
  const std::string html = render_watch_html(r.report, r.samples);
  EXPECT_NE(html.find("Not compared with measured ceilings (--no-baseline)."), std::string::npos);
  EXPECT_EQ(html.find("No results of an earlier pipecheck run"), std::string::npos);
}

TEST(WatchRender, ADiskNotKnownToBeTheJobsIsNotCalledBusy) {
  Rendered r = storage_bound_report();
  for (auto& s : r.samples) {
    for (auto& d : s.disks) {
      d.job = false;
      d.util_pct = 0;
    }
  }
  r.report.analysis = analyze_watch(r.samples, nullptr, watch_analysis_options());
  const std::string text = render_watch_text(r.report);
  EXPECT_NE(text.find("  sda (not known to be the job's): %util 0"), std::string::npos) << text;
  EXPECT_EQ(text.find("busy disk"), std::string::npos) << text;
}

// A terminal that reports its size as 0x0 (a pty nobody sized, some serial consoles) gets the
// plain lines, not nothing.
TEST(WatchRender, ATerminalOfSizeZeroGetsPlainLines) {
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(grantpt(master), 0);
  ASSERT_EQ(unlockpt(master), 0);
  const int tty = open(ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(tty, 0);
  const Rendered r = storage_bound_report();
  std::ostringstream out;
  WatchDisplay display(out, tty, 10);
  for (std::size_t i = 0; i < 12; ++i) display.update(r.samples[i], "x");
  display.finish();
  close(tty);
  close(master);
  EXPECT_NE(out.str().find("watch: job "), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace pipecheck
