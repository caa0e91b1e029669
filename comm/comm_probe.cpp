// pipecheck-comm: bus bandwidth of NCCL collectives (all-reduce, all-gather, reduce-scatter,
// broadcast; float and bf16; sum) over a size sweep, timed and counted as nccl-tests does, each
// size data-checked. One process drives every local GPU; under mpirun/srun one rank a GPU, rank 0
// alone writing the result.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "comm/comm_args.hpp"
#include "comm/comm_cases.hpp"
#include "comm/comm_data.hpp"
#include "comm/comm_env.hpp"
#include "comm/comm_job.hpp"
#include "comm/comm_launch.hpp"
#include "comm/comm_runner.hpp"
#include "comm/rank_group.hpp"
#include "inventory/cuda_devices.hpp"
#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "inventory/gpu_inventory.hpp"
#include "inventory/gpu_topology.hpp"
#include "inventory/nccl_version.hpp"
#include "core/case_messages.hpp"
#include "core/probe_main.hpp"
#include "core/stage_names.hpp"
#include "core/repetition_rounds.hpp"
#include "inventory/software_stack.hpp"

extern char** environ;

namespace pipecheck {
namespace {

// What the cases share: the job, its communicators, the options. Reset before main returns so
// that communicators go before MPI_Finalize and CUDA's own teardown.
struct ProbeState {
  LaunchInfo launch;
  std::unique_ptr<RankGroup> group;
  std::unique_ptr<CommRunner> runner;
  CommOptions options;
  CommJobLabel label;
};
ProbeState& probe_state() {
  static ProbeState state;
  return state;
}

constexpr const char* kOneRankNote =
    "one rank (nccl-tests -g 1): every collective and its data check run on one GPU; busbw is 0 by "
    "nccl-tests' formula (broadcast: equal to algbw), so the figure is algbw and the report does not judge it";

// "no CUDA device: CUDA driver version is insufficient ...": CUDA's own reason with it.
std::string no_device_reason(const CudaReport& cuda) {
  std::string reason = "no CUDA device";
  if (!cuda.error.empty()) reason += ": " + cuda.error;
  return reason;
}

// This rank's GPU under MPI (the one for its place on its host), or why it has none.
RankFacts local_facts(const CudaReport& cuda, const RankGroup& group) {
  RankFacts facts;
  facts.host = host_name();
  if (cuda.devices.empty()) {
    facts.problem = no_device_reason(cuda);
    return facts;
  }
  int count = 0;
  for (const auto& device : cuda.devices) count = std::max(count, device.index + 1);
  const int index = device_for_rank(group.local_rank(), group.local_size(), count);
  for (const auto& device : cuda.devices) {
    if (device.index != index) continue;
    facts.device = index;
    facts.bdf = format_bdf(device.pci_domain, device.pci_bus, device.pci_device);
    facts.gpu_name = device.name;
    facts.memory_bytes = device.total_memory_bytes;
  }
  if (facts.device < 0) facts.problem = "CUDA could not read the properties of GPU " + std::to_string(index);
  return facts;
}

JobPlan plan_mpi_job(const ProbeOptions& options, const CudaReport& cuda, RankGroup& group) {
  if (options.last("gpus") || options.last("ngpus")) {
    throw UsageError("--gpus/--ngpus choose GPUs of a single process; under MPI each rank takes one GPU");
  }
  RankFacts facts;
  std::string error;
  try {
    facts = local_facts(cuda, group);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (const std::string agreed = agree_on_error(group, error); !agreed.empty()) throw RunError(agreed);
  std::vector<RankFacts> ranks;
  for (const std::string& line : group.all_gather(encode_rank_facts(facts))) ranks.push_back(decode_rank_facts(line));
  return plan_from_ranks(ranks);
}

JobPlan plan_job(const ProbeOptions& options, const CommOptions& comm, RankGroup& group) {
  const CudaReport cuda = query_cuda_devices();
  if (group.size() > 1) return plan_mpi_job(options, cuda, group);
  ProbeOptions chosen = options;
  if (comm.ngpus) {
    std::string list;
    for (int i = 0; i < *comm.ngpus; ++i) {
      if (i > 0) list += ',';
      list += std::to_string(i);
    }
    chosen.values["gpus"] = {list};
  }
  std::string skip;
  const std::vector<GpuTarget> gpus = cuda.devices.empty() ? std::vector<GpuTarget>{} : select_gpus(cuda, chosen, skip);
  return plan_single_process(gpus, host_name(), cuda.devices.empty() ? no_device_reason(cuda) : skip);
}

// "GPU0-GPU1 NV18, ...": how the job's GPUs on rank 0's host connect.
std::string job_topology(const JobPlan& plan) {
  std::vector<GpuInfo> gpus;
  for (const JobGpu& gpu : plan.gpus) {
    if (gpu.host != plan.gpus.front().host) continue;
    GpuInfo info;
    info.cuda_index = gpu.device;
    info.pci_bdf = gpu.bdf;
    gpus.push_back(info);
  }
  std::vector<std::string> notes;
  return topology_pairs_text(read_topology(SysfsRoot("/"), gpus, {}, notes));
}

std::string nccl_version_text() {
  const NcclVersion version = query_nccl_version();
  return version.code ? format_nccl_version(*version.code) : version.error;
}

void add_context(const JobPlan& plan, const ProbeState& state, const std::string& sizes_note) {
  benchmark::AddCustomContext("pipecheck_gpus", job_gpus_text(plan));
  benchmark::AddCustomContext("comm_mode", state.label.mode);
  benchmark::AddCustomContext("comm_launcher", state.launch.launcher.empty() ? "none" : state.launch.launcher);
  benchmark::AddCustomContext("comm_ranks", std::to_string(state.label.ranks));
  benchmark::AddCustomContext("comm_nodes", std::to_string(state.label.nodes));
  benchmark::AddCustomContext("comm_iters", std::to_string(state.options.iters));
  benchmark::AddCustomContext("comm_warmup_iters", std::to_string(state.options.warmup_iters));
  benchmark::AddCustomContext("comm_timeout_s", std::to_string(state.options.timeout_seconds));
  benchmark::AddCustomContext("nccl_version", state.label.nccl_version);
  benchmark::AddCustomContext("nccl_env", state.label.nccl_env);
  if (state.group->rank() == 0) benchmark::AddCustomContext("comm_topology", job_topology(plan));
  if (!sizes_note.empty()) benchmark::AddCustomContext("comm_sizes_left_out", sizes_note);
  if (state.label.ranks == 1) benchmark::AddCustomContext("comm_one_rank", kOneRankNote);
}

// The sweep, without the sizes the smallest GPU cannot hold; `note` says what was left out.
std::vector<std::uint64_t> job_sizes(const CommOptions& options, const JobPlan& plan, std::string& note) {
  const std::uint64_t cap = max_size_for_memory(smallest_memory(plan));
  std::size_t dropped = 0;
  std::vector<std::uint64_t> sizes = cap_sizes(sweep_sizes(options.sweep), cap, dropped);
  if (dropped > 0) {
    note = std::to_string(dropped) + " size(s) above " + size_text(cap) + " (a third of the smallest GPU's memory)";
  }
  return sizes;
}

void make_runner(const JobPlan& plan, std::uint64_t buffer_bytes, ProbeState& state) {
  std::vector<LocalGpu> local;
  for (const JobGpu& gpu : plan.gpus) {
    if (!plan.mpi || gpu.rank == state.group->rank()) local.push_back({gpu.device, gpu.rank});
  }
  std::string error;
  try {
    state.runner = std::make_unique<CommRunner>(local, static_cast<int>(plan.gpus.size()), buffer_bytes,
                                                state.options.timeout_seconds, *state.group);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (const std::string agreed = agree_on_error(*state.group, error); !agreed.empty()) throw RunError(agreed);
}

// Runs `step` on this rank and agrees with every rank on its error; "" when all went well.
template <typename Step>
std::string agreed_step(RankGroup& group, Step step) {
  std::string error;
  try {
    step();
  } catch (const std::exception& e) {
    error = e.what();
  }
  return agree_on_error(group, error);
}

// The data check over every rank: "yes"/"no" with the wrong count and the first wrong element
// named (the lowest rank's), or "not_checked".
std::string check_case(const CommCase& c, ProbeState& state, std::uint64_t& wrong, std::string& first,
                       std::string& error) {
  if (!state.options.check || !data_check_limit(c.collective, c.dtype, state.label.ranks).empty()) {
    return "not_checked";
  }
  CommRunner::LocalCheck local;
  error = agreed_step(*state.group, [&] { local = state.runner->check(c); });
  if (!error.empty()) return "no";
  wrong = static_cast<std::uint64_t>(state.group->sum(static_cast<double>(local.wrong)));
  for (const std::string& named : state.group->all_gather(local.first)) {
    if (first.empty()) first = named;
  }
  return wrong == 0 ? "yes" : "no";
}

void report_case(benchmark::State& bench, const CommCase& c, double mean_seconds, const std::string& verified,
                 std::uint64_t wrong, const ProbeState& state) {
  const int ranks = state.label.ranks;
  const Bandwidth bandwidth = collective_bandwidth(c.collective, c.counts, ranks, mean_seconds);
  const bool algbw = std::string(comm_figure(ranks)) == "algbw";
  const double figure_bytes =
      static_cast<double>(c.counts.bytes) * (algbw ? 1.0 : bus_factor(c.collective, ranks));
  // Rate over the manual time: busbw in bytes/s, the figure the report holds against its
  // ceiling; a one-rank job's algbw (its busbw is 0 by the formula).
  bench.counters["bytes_per_second"] =
      benchmark::Counter(figure_bytes * static_cast<double>(bench.iterations()), benchmark::Counter::kIsRate);
  bench.counters["busbw_GBps"] = bandwidth.busbw_gbps;
  bench.counters["algbw_GBps"] = bandwidth.algbw_gbps;
  bench.counters["time_us"] = mean_seconds * 1e6;
  bench.counters["wrong"] = static_cast<double>(wrong);
  bench.SetLabel(encode_label(comm_case_params(c, state.label, verified, wrong)));
}

void run_case(benchmark::State& bench, const CommCase& c) {
  ProbeState& state = probe_state();
  RankGroup& group = *state.group;
  // Every rank takes every decision below from agreed values, so no rank leaves a collective
  // the others are waiting in.
  std::string error = agreed_step(group, [&] { state.runner->warm_up(c, state.options.warmup_iters); });
  if (!error.empty()) return bench.SkipWithError(error.c_str());
  double total = 0;
  for (auto _ : bench) {
    double seconds = 0;
    error = agreed_step(group, [&] { seconds = state.runner->time_iterations(c, state.options.iters); });
    if (!error.empty()) {
      bench.SkipWithError(error.c_str());
      break;
    }
    seconds = rank_average(group, seconds);  // nccl-tests' default: the mean over ranks
    bench.SetIterationTime(seconds);
    total += seconds;
  }
  if (bench.error_occurred()) return;
  std::uint64_t wrong = 0;
  std::string first;
  const std::string verified = check_case(c, state, wrong, first, error);
  report_case(bench, c, total / static_cast<double>(bench.iterations()), verified, wrong, state);
  if (!error.empty()) return bench.SkipWithError(("data check: " + error).c_str());
  const std::string problem =
      data_check_problem(wrong, c.counts.recv_count * static_cast<std::uint64_t>(state.label.ranks), first);
  if (!problem.empty()) bench.SkipWithError(wrong_result_message(problem).c_str());
}

std::string register_cases(const ProbeOptions& options) {
  ProbeState& state = probe_state();
  state.options = parse_comm_options(options);
  if (const std::string why = comm_not_built_reason(); !why.empty()) return why;
  const JobPlan plan = plan_job(options, state.options, *state.group);
  if (!plan.error.empty()) throw RunError(plan.error);
  if (!plan.skip_reason.empty()) return plan.skip_reason;
  const int ranks = static_cast<int>(plan.gpus.size());
  std::string sizes_note;
  const std::vector<CommCase> cases = comm_cases(state.options, job_sizes(state.options, plan, sizes_note), ranks);
  if (cases.empty()) {
    throw UsageError("no size of the sweep gives each of " + std::to_string(ranks) +
                     " ranks one element: raise --maxbytes");
  }
  std::uint64_t buffer_bytes = 0;
  for (const CommCase& c : cases) buffer_bytes = std::max(buffer_bytes, c.counts.bytes);
  state.label = {ranks, plan.nodes, plan.mpi ? "mpi" : "single_process", first_host_bdfs(plan),
                 nccl_version_text(), nccl_env_text(nccl_environment(environ)), state.options.iters};
  add_context(plan, state, sizes_note);
  if (ranks == 1) std::cerr << "pipecheck-comm: " << kOneRankNote << "\n";
  make_runner(plan, buffer_bytes, state);
  // Ranks wait on each other: every rank runs the same cases in the same order, a fixed count.
  keep_registration_order();
  for (const CommCase& c : cases) {
    // One sample per repetition, the same on every rank: Google Benchmark must not size the
    // iteration count from this rank's own timing, or ranks would run different numbers of
    // collectives and wait for each other forever.
    benchmark::RegisterBenchmark(comm_case_name(c, ranks).c_str(), [c](benchmark::State& bench) { run_case(bench, c); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  }
  return "";
}

// Ranks other than 0 print nothing: rank 0 speaks for the job (errors are agreed, so it knows).
void silence_this_rank() {
  const int null = ::open("/dev/null", O_WRONLY);
  if (null < 0) return;
  ::dup2(null, STDOUT_FILENO);
  ::dup2(null, STDERR_FILENO);
  ::close(null);
}

}  // namespace
}  // namespace pipecheck

int main(int argc, char** argv) {
  using namespace pipecheck;
  ProbeState& state = probe_state();
  state.launch = detect_launch([](const char* name) { return std::getenv(name); });
  try {
    state.group = open_rank_group(&argc, &argv, state.launch);
  } catch (const std::exception& error) {
    if (state.launch.world_rank == 0) std::cerr << "pipecheck-comm: could not run: " << error.what() << "\n";
    return 3;
  }
  if (state.group->rank() != 0) silence_this_rank();
  std::vector<std::string> args = expand_short_flags(std::vector<std::string>(argv + 1, argv + argc));
  args = rank_arguments(args, state.group->rank());
  args.insert(args.begin(), argv[0]);
  std::vector<char*> probe_argv;
  for (std::string& arg : args) probe_argv.push_back(arg.data());
  int probe_argc = static_cast<int>(probe_argv.size());
  const int code = run_probe_main(probe_argc, probe_argv.data(), stage_name::comm, "pipecheck-comm", register_cases,
                                  comm_own_flags());
  state.runner.reset();
  state.group.reset();  // MPI_Finalize
  return code;
}
