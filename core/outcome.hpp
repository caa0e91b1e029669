// The one model of outcomes every command uses: a probe's status, a verdict's name and order,
// the exit codes of run, report, compare, stress, watch and check, how verdicts map to JUnit and
// Prometheus, and the schema versions of the documents pipecheck writes and reads back.
// docs/outputs.md's "Outcomes" table is this file in words; change both together.
#pragma once

#include <optional>
#include <string>

namespace pipecheck {

// What running one probe executable produced.
//   ok           it ran and printed measurements
//   skipped      it could not apply here and said why (no GPU, no nvJPEG): no timing recorded
//   not_built    this build lacks it (no CUDA toolkit at configure time)
//   failed       it crashed, timed out, exited non-zero or printed garbage
//   interrupted  SIGINT/SIGTERM reached the run while it was running
enum class ProbeStatus { ok, skipped, not_built, failed, interrupted };
const char* to_string(ProbeStatus status);
// Unknown text reads as failed: a status this version cannot name is not a success.
ProbeStatus parse_probe_status(const std::string& text);

// A verdict on one measurement, inventory fact or probe.
//   pass          at or above its threshold
//   warn          above the threshold but within its warn margin
//   fail          below the threshold: the machine does not deliver
//   invalid       above the physical ceiling: the probe measured something else, or the ceiling
//                 is wrong; never a pass
//   inconclusive  the noise could have produced a failure (a busy machine, a spread straddling
//                 the threshold): rerun on a quiet machine
//   info          shown, not judged (no threshold or no ceiling)
//   skipped       nothing to judge (the probe was skipped or not built)
enum class Verdict { pass, warn, fail, invalid, inconclusive, info, skipped };
const char* to_string(Verdict verdict);
std::optional<Verdict> parse_verdict(const std::string& text);
// Order for the overall verdict, worst first:
// invalid > fail > inconclusive > warn > pass > info > skipped.
int severity(Verdict verdict);
Verdict worse(Verdict a, Verdict b);
// fail and invalid: the run failed.
bool is_failure(Verdict verdict);

// Exit codes, the same for every command. A command that found a failure and something
// inconclusive exits 1: "inconclusive" never hides a failure.
enum class ExitCode : int {
  ok = 0,             // nothing failed (pass, warn, info, skipped); check: healthy
  failed = 1,         // a verdict fail or invalid, a failed probe, a regression, an outlier host,
                      // a stress failure; check: unhealthy
  usage = 2,          // bad input: unknown flag, bad value, unreadable file; nothing was run
  could_not_run = 3,  // the command could not do its work (no device, a write failed)
  inconclusive = 4,   // nothing failed, but a verdict was inconclusive: rerun on a quiet machine
  interrupted = 130,  // SIGINT or SIGTERM (128 + 2, as shells report it)
};
int code(ExitCode exit_code);
// The exit code of a judged run whose worst verdict is `overall`.
ExitCode exit_code_for(Verdict overall);
// Two outcomes of one command (the run's verdicts and its baseline comparison): the one that
// matters more, interrupted > could_not_run > usage > failed > inconclusive > ok.
ExitCode combine(ExitCode a, ExitCode b);
// Reads an int back (a child's exit status); unknown codes read as could_not_run.
ExitCode exit_code_from_int(int value);

// JUnit (junit-10.xsd, as Jenkins' xunit plugin validates): each verdict is one <testcase>.
//   fail             <failure type="fail">
//   invalid          <error type="invalid">: the check itself is broken, not the machine
//   a failed probe   <error type="probe_failed">: the probe crashed, hung or printed garbage
//   inconclusive     <skipped message="inconclusive: ...">
//   skipped          <skipped>
//   pass, warn, info a passing test case (warn and info say so in <system-out>)
enum class JunitElement { none, failure, error, skipped };
JunitElement junit_element(Verdict verdict, bool probe_failed);
const char* to_string(JunitElement element);

// Prometheus: one gauge per judged subject with its verdict as a number (worse is higher), and
// the verdict's name as a label, so alerts can say `> 4` ("failed") or match a name.
//   skipped 0, info 1, pass 2, warn 3, inconclusive 4, fail 5, invalid 6
int prometheus_verdict_value(Verdict verdict);

// Schema versions of the documents pipecheck writes. A reader reads its own version and every
// older one (fields added later read as absent), and refuses a newer one by name.
constexpr int kReportSchemaVersion = 2;         // report.json ("pipecheck.report")
constexpr int kInventorySchemaVersion = 2;      // inventory.json ("pipecheck.inventory")
constexpr int kBaselineSchemaVersion = 1;       // baseline.json ("pipecheck.baseline")
constexpr int kStressSummarySchemaVersion = 2;  // stress summary.json ("pipecheck.stress_summary")
constexpr int kWatchSchemaVersion = 1;          // watch.json ("pipecheck.watch")

// Throws UsageError (exit 2) "<document>: schema version 3 is newer than this pipecheck reads
// (2): use a newer pipecheck".
void check_schema_version(const std::string& document, int found, int supported);

}  // namespace pipecheck
