// Host logic of the GPU probes that needs no GPU: which GPUs (--gpus 0,2), how results name
// them, the PCIe probe's size list and cases, NUMA placement from sysfs, and the copy checksum.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "inventory/cuda_devices.hpp"
#include "core/inventory.hpp"
#include "core/probe_main.hpp"
#include "core/sysfs.hpp"

// The pattern and checksum are computed on both sides of a copy: one definition for both.
#ifdef __CUDACC__
#define PIPECHECK_HOST_DEVICE __host__ __device__
#else
#define PIPECHECK_HOST_DEVICE
#endif

namespace pipecheck {

// One GPU a probe runs on, with the facts its cases are sized from.
struct GpuTarget {
  int index = -1;     // CUDA ordinal
  std::string bdf;    // "0000:17:00.0", as sysfs and normalize_bdf spell it
  std::string name;   // "NVIDIA H200"
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t memory_bytes = 0;
};

// "0,2" -> {0, 2}; "all" or "" -> every device. Throws UsageError naming the text on anything
// else: a non-number, a negative or out-of-range index, a repeated index.
std::vector<int> parse_gpu_list(const std::string& text, int device_count);

// The GPUs to run on, from the CUDA report and --gpus (own flag or --pipecheck_gpus). Empty with
// `skip_reason` "no CUDA device" when CUDA sees none.
std::vector<GpuTarget> select_gpus(const CudaReport& cuda, const ProbeOptions& options,
                                   std::string& skip_reason);

// The label parameters every GPU result carries: gpu, gpu_bdf, gpu_name.
std::map<std::string, std::string> gpu_label_params(const GpuTarget& gpu);
// For AddCustomContext("pipecheck_gpus", ...): "0=NVIDIA H200@0000:17:00.0,1=...".
std::string gpu_context_text(const std::vector<GpuTarget>& gpus);

// ---- PCIe cases --------------------------------------------------------------------------

enum class CopyDirection { h2d, d2h, bidir };
enum class HostMemory { pinned, pageable, mapped };
enum class CopyEngine { ce, sm };

const char* direction_name(CopyDirection direction);
const char* host_memory_name(HostMemory memory);
const char* engine_name(CopyEngine engine);

// Copy sizes from 4 KiB to 1 GiB: powers of 4 (standard), powers of 2 (full); quick: 256 MiB, the
// size the link's bandwidth is judged on.
std::vector<std::uint64_t> pcie_sizes(ProbeMode mode);

struct CopyKind {
  CopyDirection direction;
  HostMemory memory;
  CopyEngine engine;
};
// The combinations measured: pinned and pageable through the copy engines, mapped pinned
// memory through an SM copy kernel. Pageable has no bidir: a pageable copy blocks the host
// thread, so two directions from one thread never overlap.
std::vector<CopyKind> pcie_copy_kinds();

// Copies of `bytes` per timed iteration: enough that launch gaps vanish (64 MiB per
// iteration), at most 128 so the queue behind the spin kernel never fills.
int copies_per_iteration(std::uint64_t bytes);

// ---- NUMA --------------------------------------------------------------------------------

// Where host memory and the host thread go for one case.
struct NumaChoice {
  std::string placement;  // "local", "remote", or "unknown" (the GPU's node is not known)
  int node = -1;          // -1: leave placement to the OS
};

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; throws UsageError on malformed text (a recorded tree may
// be wrong: say which text).
std::vector<int> parse_cpu_list(const std::string& text);

// NUMA nodes with memory and CPUs (online ones), from /sys/devices/system/node.
std::vector<int> numa_nodes_with_cpus(const SysfsRoot& sys);
// The GPU's node from /sys/bus/pci/devices/BDF/numa_node; nullopt when -1 or absent.
std::optional<int> gpu_numa_node(const SysfsRoot& sys, const std::string& bdf);

// Local (the GPU's node) and, where there are two or more nodes, remote: the node farthest from
// the GPU's by /sys/devices/system/node/nodeN/distance (the other socket, not a sibling
// sub-NUMA cluster). With one node: local only, not bound (-1). With an unknown GPU node on a
// multi-node machine: "unknown", not placed.
std::vector<NumaChoice> numa_choices(const SysfsRoot& sys, const std::string& bdf);

// Binds the calling thread's CPUs and memory policy to `node` (sched_setaffinity +
// set_mempolicy, no libnuma), and restores both when destroyed. node < 0 does nothing.
class NumaBinding {
 public:
  NumaBinding(const SysfsRoot& sys, int node);
  ~NumaBinding();
  NumaBinding(const NumaBinding&) = delete;
  NumaBinding& operator=(const NumaBinding&) = delete;
  bool bound() const { return bound_; }

 private:
  bool bound_ = false;
  bool affinity_saved_ = false;
  std::vector<unsigned char> saved_affinity_;
};

// The link parameters a PCIe result carries (read while copies run: an idle link may have
// downtrained to save power): link_gts, link_width, link_max_gts, link_max_width and
// link_downtrained yes/no; a fact sysfs does not give is left out.
std::map<std::string, std::string> link_label_params(const PcieLink& link);

// The copy size of the all-GPUs-at-once case: large enough that every
// GPU's copies overlap for tens of milliseconds.
std::uint64_t concurrent_copy_bytes(ProbeMode mode);

// The case names pipecheck-pcie registers for `gpus` GPUs, each at its local NUMA node, for
// `run --plan` where the probe cannot list them itself (no GPU here). A GPU whose node has
// remote CPUs adds remote cases for the copies from 16 MiB: not counted, said by the plan.
std::vector<std::string> planned_pcie_cases(int gpus, ProbeMode mode);

// ---- checksum of copied bytes --------------------------------------------------------------

// The word at index i of a copy's source: splitmix64, so every word differs and a misplaced or
// stale word changes the checksum.
PIPECHECK_HOST_DEVICE inline std::uint64_t pattern_word(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// One word's share of the checksum: position-weighted so that swapped words change the sum.
PIPECHECK_HOST_DEVICE inline std::uint64_t checksum_term(std::uint64_t word, std::uint64_t i) {
  return word * (2 * i + 1) + i;
}
// Wrapping sum of checksum_term over `count` words (the host side of the check).
std::uint64_t checksum_words(const std::uint64_t* words, std::uint64_t count);
// The checksum the pattern itself has, without materialising it.
std::uint64_t pattern_checksum(std::uint64_t seed, std::uint64_t count);
// Where copied words differ from the pattern, to name what a wrong checksum caught: "" when
// none does, else "word 17 (byte 136) is 0x..., the source's 0x...; 1 word differs". The words
// are [first_index, first_index + count) of the copy (the device side is scanned in chunks).
struct PatternDifference {
  std::uint64_t first_index = 0;
  std::uint64_t found = 0;
  std::uint64_t expected = 0;
  std::uint64_t count = 0;  // words that differ
};
PatternDifference pattern_differences(const std::uint64_t* words, std::uint64_t count, std::uint64_t seed,
                                      std::uint64_t first_index = 0);
std::string describe(const PatternDifference& difference);

}  // namespace pipecheck
