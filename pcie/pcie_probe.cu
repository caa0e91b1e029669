// pipecheck-pcie: host<->device copy bandwidth per GPU: H2D, D2H and both at once; pinned,
// pageable and mapped host memory; copy engines and an SM copy kernel; 4 KiB to 1 GiB; host
// memory on the GPU's NUMA node and on a remote one; every GPU alone and all GPUs together.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "inventory/cuda_devices.hpp"
#include "core/errors.hpp"
#include "inventory/pcie_link.hpp"
#include "core/case_messages.hpp"
#include "core/probe_main.hpp"
#include "core/stage_names.hpp"
#include "core/sysfs.hpp"
#include "pcie/pcie_copies.hpp"
#include "pcie/pcie_plan.hpp"

namespace pipecheck {
namespace {

struct PcieCase {
  std::vector<GpuTarget> gpus;  // one, or every selected GPU at once
  CopyKind kind;
  std::uint64_t bytes = 0;
  NumaChoice numa;              // for one GPU; all-at-once places each GPU's memory locally
  std::vector<int> nodes;       // per GPU in `gpus`: the node its host memory goes to
  std::uint64_t capacity = 0;   // buffer size of the group of cases sharing buffers
};

// The buffers of the cases being run, kept while consecutive cases share GPU, node and memory
// kind (allocation, pinning and first touch stay out of the timed region).
struct CopierSlot {
  std::string key;
  std::vector<std::unique_ptr<PcieCopier>> copiers;
};
CopierSlot& copier_slot() {
  static CopierSlot slot;
  return slot;
}

bool is_pageable(const CopyKind& kind) { return kind.memory == HostMemory::pageable; }

std::vector<PcieCopier*> prepare(const PcieCase& c, const SysfsRoot& sys) {
  CopierSlot& slot = copier_slot();
  std::string key = is_pageable(c.kind) ? "pageable" : "pinned";
  key += "/" + std::to_string(c.capacity);
  for (std::size_t g = 0; g < c.gpus.size(); ++g) {
    key += "/" + std::to_string(c.gpus[g].index) + "@" + std::to_string(c.nodes[g]);
  }
  if (slot.key != key) {
    slot.copiers.clear();  // free the previous group's pinned memory before pinning more
    slot.key.clear();
    for (std::size_t g = 0; g < c.gpus.size(); ++g) {
      // Allocated and first touched under the node's memory policy and CPUs.
      const NumaBinding binding(sys, c.nodes[g]);
      slot.copiers.push_back(std::make_unique<PcieCopier>(c.gpus[g], c.capacity, is_pageable(c.kind)));
    }
    slot.key = key;
  }
  std::vector<PcieCopier*> copiers;
  for (auto& copier : slot.copiers) copiers.push_back(copier.get());
  return copiers;
}

void run_copy(benchmark::State& state, const PcieCase& c) {
  const SysfsRoot sys;
  try {
    std::vector<PcieCopier*> copiers = prepare(c, sys);
    // The copying thread sits where the case says (pageable copies run through its memcpy).
    const NumaBinding binding(sys, c.gpus.size() == 1 ? c.numa.node : -1);
    const int copies = copies_per_iteration(c.bytes);
    for (PcieCopier* copier : copiers) copier->clear_targets(c.kind, c.bytes);
    auto one_iteration = [&](PcieLink* link) {
      for (PcieCopier* copier : copiers) copier->enqueue(c.kind, c.bytes, copies, true);
      PcieCopier::release_hold();
      // Read the link while the copies run: an idle link may sit at a lower speed.
      if (link != nullptr) *link = read_pcie_path_link(sys, c.gpus.front().bdf);
      float slowest = 0;
      for (PcieCopier* copier : copiers) slowest = std::max(slowest, copier->elapsed_ms());
      return slowest;
    };
    one_iteration(nullptr);  // warm-up, discarded
    PcieLink link;
    bool timed_out = false;
    for (auto _ : state) {
      state.SetIterationTime(static_cast<double>(one_iteration(&link)) / 1e3);
      for (PcieCopier* copier : copiers) timed_out = copier->hold_timed_out() || timed_out;
    }
    std::string problems;
    for (PcieCopier* copier : copiers) {
      const std::string problem = copier->verify(c.kind, c.bytes);
      if (!problem.empty()) {
        problems += (problems.empty() ? "" : "; ") + std::string("GPU ") + std::to_string(copier->device()) +
                    ": " + problem;
      }
    }
    const int directions = c.kind.direction == CopyDirection::bidir ? 2 : 1;
    const double bytes = static_cast<double>(c.bytes) * copies * directions * static_cast<double>(c.gpus.size());
    state.counters["bytes_per_second"] =
        benchmark::Counter(bytes * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    auto params = gpu_label_params(c.gpus.front());
    if (c.gpus.size() > 1) {
      std::string indices;
      std::string bdfs;
      for (const auto& gpu : c.gpus) {
        indices += (indices.empty() ? "" : ",") + std::to_string(gpu.index);
        bdfs += (bdfs.empty() ? "" : ",") + gpu.bdf;
      }
      params["gpu"] = indices;
      params["gpu_bdf"] = bdfs;
    } else {
      for (const auto& [key, value] : link_label_params(link)) params[key] = value;
    }
    const std::string gpu_text = c.gpus.size() > 1 ? std::to_string(c.gpus.size()) + " GPUs at once"
                                                   : "GPU " + std::to_string(c.gpus.front().index);
    params["what"] = std::string("PCIe ") + direction_name(c.kind.direction) + " " +
                     host_memory_name(c.kind.memory) + " " + engine_name(c.kind.engine) + " " +
                     std::to_string(c.bytes) + " B, " + c.numa.placement + " NUMA, " + gpu_text;
    params["direction"] = direction_name(c.kind.direction);
    params["host_memory"] = host_memory_name(c.kind.memory);
    params["engine"] = engine_name(c.kind.engine);
    params["bytes"] = std::to_string(c.bytes);
    params["numa"] = c.numa.placement;
    if (c.gpus.size() == 1 && c.numa.node >= 0) params["numa_node"] = std::to_string(c.numa.node);
    params["concurrent_gpus"] = std::to_string(c.gpus.size());
    params["copies_per_iteration"] = std::to_string(copies);
    params["verified"] = problems.empty() ? "yes" : "no";
    state.SetLabel(encode_label(params));
    if (!problems.empty()) {
      state.SkipWithError(wrong_result_message(problems).c_str());
    } else if (timed_out) {
      state.SkipWithError("the spin kernel timed out before the copies were queued: the copies did not start together");
    }
  } catch (const std::exception& error) {
    copier_slot().copiers.clear();
    copier_slot().key.clear();
    state.SkipWithError(error.what());
  }
}

std::string case_name(const PcieCase& c) {
  std::string name = std::string("pcie/") + direction_name(c.kind.direction) + "/" +
                     host_memory_name(c.kind.memory) + "/" + engine_name(c.kind.engine) + "/" +
                     std::to_string(c.bytes) + "/" + c.numa.placement + "/";
  if (c.gpus.size() > 1) return name + "all" + std::to_string(c.gpus.size()) + "gpus";
  return name + "gpu" + std::to_string(c.gpus.front().index);
}

void add_case(const PcieCase& c) {
  benchmark::RegisterBenchmark(case_name(c).c_str(), [c](benchmark::State& state) { run_copy(state, c); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

std::string register_cases(const ProbeOptions& options) {
  std::string skip_reason;
  const std::vector<GpuTarget> gpus = select_gpus(query_cuda_devices(), options, skip_reason);
  if (gpus.empty()) return skip_reason;
  benchmark::AddCustomContext("pipecheck_gpus", gpu_context_text(gpus));
  const SysfsRoot sys;
  const std::vector<std::uint64_t> sizes = pcie_sizes(options.mode);
  const std::uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  // A remote node is a placement question, asked where the bandwidth is: the large copies.
  constexpr std::uint64_t kRemoteFrom = 16ULL << 20;
  std::string numa_text;
  for (const GpuTarget& gpu : gpus) {
    const std::vector<NumaChoice> choices = numa_choices(sys, gpu.bdf);
    for (const NumaChoice& choice : choices) {
      numa_text += (numa_text.empty() ? "" : ",") + std::to_string(gpu.index) + "=" + choice.placement +
                   ":" + std::to_string(choice.node);
      // Pinned and mapped share buffers, pageable has its own: each group's cases in a row.
      for (bool pageable : {false, true}) {
        for (const CopyKind& kind : pcie_copy_kinds()) {
          if ((kind.memory == HostMemory::pageable) != pageable) continue;
          for (std::uint64_t bytes : sizes) {
            if (choice.placement == "remote" && bytes < kRemoteFrom) continue;
            add_case({{gpu}, kind, bytes, choice, {choice.node}, largest});
          }
        }
      }
    }
  }
  benchmark::AddCustomContext("pipecheck_numa", numa_text);
  if (gpus.size() > 1) {
    // GPUs behind one switch share its uplink: all at once shows what each really gets.
    PcieCase together;
    together.gpus = gpus;
    together.bytes = concurrent_copy_bytes(options.mode);
    together.capacity = together.bytes;
    together.numa = {"local", -1};
    for (const GpuTarget& gpu : gpus) {
      const std::vector<NumaChoice> choices = numa_choices(sys, gpu.bdf);
      together.nodes.push_back(choices.front().node);
      if (choices.front().placement != "local") together.numa.placement = "unknown";
    }
    for (CopyDirection direction : {CopyDirection::h2d, CopyDirection::d2h, CopyDirection::bidir}) {
      together.kind = {direction, HostMemory::pinned, CopyEngine::ce};
      add_case(together);
    }
  }
  return "";
}

}  // namespace
}  // namespace pipecheck

int main(int argc, char** argv) {
  return pipecheck::run_probe_main(argc, argv, pipecheck::stage_name::pcie, "pipecheck-pcie", pipecheck::register_cases, {pipecheck::gpus_flag()});
}
