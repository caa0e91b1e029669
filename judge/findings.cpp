// Findings: each rule looks for one pattern in the figures and says, in the words a training
// engineer would use, what it means and what to do. Thresholds live beside their rule.
#include "judge/findings.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "ceilings/ceilings.hpp"
#include "core/figure_text.hpp"
#include "ceilings/physical_ceiling.hpp"
#include "core/stage_names.hpp"

namespace pipecheck {

namespace {

std::string param(const Measurement& m, const std::string& name) { return param_or_empty(m.params, name); }

std::vector<const Measurement*> measurements_of(const Report& report, const std::string& stage) {
  std::vector<const Measurement*> found;
  for (const auto& probe : report.probes) {
    for (const auto& m : probe.measurements) {
      if (m.stage == stage) found.push_back(&m);
    }
  }
  return found;
}

std::string gpu_name_of(const Measurement& m) {
  const std::string gpu = param(m, "gpu");
  if (!gpu.empty()) return "GPU " + gpu;
  const std::string bdf = param(m, "gpu_bdf");
  return bdf.empty() ? "the GPU" : "GPU " + bdf;
}

// The GPU a PCIe measurement ran on, as a join key ("" when it names none).
std::string gpu_key(const Measurement& m) { return param(m, "gpu_bdf") + "|" + param(m, "gpu"); }

// Pageable copies go through a bounce buffer the driver pins per call; below this share of
// the pinned rate the loader is paying for it.
constexpr double kPageableShare = 0.7;

std::vector<Finding> pageable_vs_pinned(const Report& report, const Inventory&) {
  std::vector<Finding> findings;
  std::map<std::string, const Measurement*> pinned, pageable;
  for (const Measurement* m : measurements_of(report, stage_name::pcie)) {
    if (m->unit != "GB/s" || param(*m, "direction") != "h2d" || param(*m, "numa") == "remote") continue;
    const std::string memory = param(*m, "host_memory");
    if (memory != "pinned" && memory != "pageable") continue;
    auto& slot = memory == "pinned" ? pinned : pageable;
    const Measurement*& best = slot[gpu_key(*m)];
    if (!best || m->stats.median > best->stats.median) best = m;
  }
  for (const auto& [gpu, slow] : pageable) {
    const auto fast = pinned.find(gpu);
    if (fast == pinned.end() || slow->stats.median >= kPageableShare * fast->second->stats.median) continue;
    findings.push_back({Verdict::warn, stage_name::pcie,
                        "pageable H2D reaches " + figure(slow->stats.median, "GB/s") + " against " +
                            figure(fast->second->stats.median, "GB/s") + " pinned on " + gpu_name_of(*slow) +
                            ": use pinned host memory (pin_memory=True in the DataLoader)",
                        {slow->key, fast->second->key}});
  }
  return findings;
}

// Pinned copies from the far socket cross the inter-socket link.
constexpr double kRemoteNumaShare = 0.85;

std::vector<Finding> remote_numa_copies(const Report& report, const Inventory&) {
  std::vector<Finding> findings;
  std::map<std::string, const Measurement*> local, remote;
  for (const Measurement* m : measurements_of(report, stage_name::pcie)) {
    if (m->unit != "GB/s" || param(*m, "direction") != "h2d" || param(*m, "host_memory") != "pinned") continue;
    const std::string numa = param(*m, "numa");
    if (numa != "local" && numa != "remote") continue;
    (numa == "local" ? local : remote)[gpu_key(*m)] = m;
  }
  for (const auto& [gpu, far] : remote) {
    const auto near = local.find(gpu);
    if (near == local.end() || far->stats.median >= kRemoteNumaShare * near->second->stats.median) continue;
    findings.push_back({Verdict::warn, stage_name::pcie,
                        "pinned H2D from the far NUMA node reaches " + figure(far->stats.median, "GB/s") + " against " +
                            figure(near->second->stats.median, "GB/s") + " from the GPU's own node on " +
                            gpu_name_of(*far) + ": bind each loader to its GPU's NUMA node (numactl --cpunodebind)",
                        {far->key, near->second->key}});
  }
  return findings;
}

// Below this many random reads a second, one file a sample (loose JPEGs) starves a GPU that
// trains on a few thousand images a second.
constexpr double kLooseFileIops = 1000;

std::vector<Finding> slow_random_reads(const Report& report, const Inventory&) {
  std::vector<Finding> findings;
  for (const Measurement* m : measurements_of(report, stage_name::storage)) {
    const std::string pattern = param(*m, "pattern");
    if (pattern != "rand_read" && pattern != "rand") continue;
    double iops = 0;
    if (m->unit == "IOPS") {
      iops = m->stats.median;
    } else if (m->unit == "GB/s" && int_param(m->params, "bs", 0) > 0) {
      iops = m->stats.median * 1e9 / int_param(m->params, "bs", 0);
    } else {
      continue;
    }
    if (iops >= kLooseFileIops) continue;
    const std::string kind = param(*m, "disk_kind");
    const std::string where = param(*m, "path").empty() ? param(*m, "device") : param(*m, "path");
    const int bs = int_param(m->params, "bs", 4096);
    const std::string size = bs % 1024 == 0 ? std::to_string(bs / 1024) + " KiB" : std::to_string(bs) + " B";
    const std::string kind_words = kind == "sata_hdd" ? "HDD" : kind.empty() ? "disk" : kind;
    findings.push_back({Verdict::warn, stage_name::storage,
                        "random " + size + " reads on " + where + " (" + param(*m, "device") + ", " + kind_words +
                            ") reach " + figure(iops, "IOPS") +
                            ": a loader reading loose JPEGs from it cannot feed the GPU; pack the dataset into "
                            "large shards (WebDataset, TFRecord) or copy it to NVMe",
                        {m->key}});
  }
  return findings;
}

// Progressive JPEGs decode in several passes; this much slower is worth re-encoding for.
constexpr double kProgressiveSlowdown = 2.0;

std::vector<Finding> progressive_jpeg(const Report& report, const Inventory&) {
  std::vector<Finding> findings;
  // The same op at the same threads in the two sets; the fewest threads say it most cleanly.
  std::map<std::string, const Measurement*> baseline, progressive;
  for (const Measurement* m : measurements_of(report, stage_name::decode)) {
    if (m->unit != "images/s") continue;
    std::string op = param(*m, "op").empty() ? param(*m, "case") : param(*m, "op");
    // CMYK images are their own set (cmyk_jpeg below): never the baseline side of this pair.
    if (param(*m, "set") != "" && param(*m, "set") != "baseline" && param(*m, "set") != "progressive") continue;
    const bool is_progressive = param(*m, "set") == "progressive" || op.find("progressive") != std::string::npos;
    if (const auto at = op.find("_progressive"); at != std::string::npos) op = op.substr(0, at);
    if (op.empty()) op = "full";
    (is_progressive ? progressive : baseline)[op + "|" + param(*m, "threads")] = m;
  }
  const Measurement* slowest_pair[2] = {nullptr, nullptr};
  int fewest_threads = 0;
  for (const auto& [key, slow] : progressive) {
    const auto fast = baseline.find(key);
    if (fast == baseline.end() || slow->stats.median <= 0) continue;
    const int threads = int_param(slow->params, "threads", 1);
    if (slowest_pair[0] && threads >= fewest_threads) continue;
    slowest_pair[0] = slow;
    slowest_pair[1] = fast->second;
    fewest_threads = threads;
  }
  if (!slowest_pair[0]) return findings;
  const double ratio = slowest_pair[1]->stats.median / slowest_pair[0]->stats.median;
  if (ratio < kProgressiveSlowdown) return findings;
  findings.push_back({Verdict::warn, stage_name::decode,
                      "progressive JPEGs decode " + ratio_text(ratio) + "x slower than baseline ones (" +
                          figure(slowest_pair[0]->stats.median, "images/s") + " against " +
                          figure(slowest_pair[1]->stats.median, "images/s") + ", " + std::to_string(fewest_threads) +
                          (fewest_threads == 1 ? " thread" : " threads") +
                          "): re-encode the dataset as baseline JPEG (jpegtran without -progressive)",
                      {slowest_pair[0]->key, slowest_pair[1]->key}});
  return findings;
}

// CMYK/YCCK JPEGs are images (Pillow opens them; ImageNet's train set holds some) but not RGB:
// a loader must convert them, or its batches get 4 channels. Named with their decode rate.
std::vector<Finding> cmyk_jpeg(const Report& report, const Inventory&) {
  std::vector<Finding> findings;
  // Full decode at the fewest threads measured, CMYK and baseline alike; a dataset's run times
  // CMYK files only through the loader's path, so that op where full decode is absent.
  std::map<std::string, std::map<std::string, std::map<int, const Measurement*>>> by_op;  // op -> set -> threads
  for (const Measurement* m : measurements_of(report, stage_name::decode)) {
    if (m->unit == "images/s" && (param(*m, "op") == "full" || param(*m, "op") == "loader")) {
      by_op[param(*m, "op")][param(*m, "set")][int_param(m->params, "threads", 0)] = m;
    }
  }
  auto& full = by_op["full"]["cmyk"].empty() ? by_op["loader"] : by_op["full"];
  if (full["cmyk"].empty()) return findings;
  const auto [threads, cmyk] = *full["cmyk"].begin();
  const Measurement* baseline = full["baseline"].count(threads) ? full["baseline"][threads] : nullptr;
  const int count = int_param(cmyk->params, "cmyk", 0);
  std::string text = std::to_string(count) + (count == 1 ? " file of " : " files of ") + param(*cmyk, "corpus") +
                     (count == 1 ? " is a CMYK JPEG (" : " are CMYK JPEGs (") + param(*cmyk, "cmyk_file_names") +
                     "): decoded as a loader does, to CMYK then to RGB as Pillow's convert(\"RGB\"), at " +
                     figure(cmyk->stats.median, "images/s");
  std::vector<std::string> evidence = {cmyk->key};
  if (baseline) {
    text += " against " + figure(baseline->stats.median, "images/s") + " for baseline ones (" + std::to_string(threads) +
            (threads == 1 ? " thread)" : " threads)");
    evidence.push_back(baseline->key);
  }
  text += "; a loader that does not convert them gets 4-channel images (torchvision's default loader converts): "
          "convert them to RGB once, offline";
  findings.push_back({Verdict::warn, stage_name::decode, text, evidence});
  return findings;
}

// Decode scaling below this share of linear means more loader workers buy little.
constexpr double kPoorScalingPercent = 60;

std::vector<Finding> poor_decode_scaling(const Report& report, const Inventory& inventory) {
  std::vector<Finding> findings;
  // Per op and set: the measurement with the most threads within the physical cores.
  std::map<std::string, const Measurement*> widest;
  const int cores = inventory.cpu.physical_cores.value_or(0);
  for (const Measurement* m : measurements_of(report, stage_name::decode)) {
    const int threads = int_param(m->params, "threads", 0);
    if (threads <= 1 || !m->percent_of_ceiling || (cores > 0 && threads > cores)) continue;
    const std::string key = param(*m, "op") + param(*m, "case") + "|" + param(*m, "set");
    const Measurement*& best = widest[key];
    if (!best || threads > int_param(best->params, "threads", 0)) best = m;
  }
  for (const auto& [key, m] : widest) {
    if (*m->percent_of_ceiling >= kPoorScalingPercent) continue;
    const int threads = int_param(m->params, "threads", 0);
    const double speedup = threads * *m->percent_of_ceiling / 100;
    findings.push_back({Verdict::warn, stage_name::decode,
                        m->what + " scales to " + ratio_text(speedup) + "x on " + std::to_string(threads) + " threads (" +
                            percent_text(*m->percent_of_ceiling) + " of linear, " + figure(m->stats.median, "images/s") +
                            "): memory bandwidth, caches or a shared lock limit it, so more loader workers buy little; "
                            "consider GPU decode (nvJPEG, DALI)",
                        {m->key}});
  }
  return findings;
}

// GPU decode against the CPU's best full decode: how many CPU cores one GPU's decoder is worth,
// the figure that decides whether moving decode to the GPU (DALI, nvJPEG) is worth it.
std::vector<Finding> gpu_decode_vs_cpu(const Report& report, const Inventory&) {
  std::vector<Finding> findings;
  const Measurement* gpu = nullptr;
  const Measurement* cpu = nullptr;
  for (const Measurement* m : measurements_of(report, stage_name::decode)) {
    if (m->unit != "images/s" || param(*m, "set") != "baseline") continue;
    if (param(*m, "op") == "nvjpeg" && (!gpu || m->stats.median > gpu->stats.median)) gpu = m;
    if (param(*m, "op") == "full" && (!cpu || m->stats.median > cpu->stats.median)) cpu = m;
  }
  if (!gpu || !cpu || cpu->stats.median <= 0) return findings;
  const int threads = int_param(cpu->params, "threads", 1);
  findings.push_back({Verdict::info, stage_name::decode,
                      "GPU decode (nvJPEG, " + param(*gpu, "backend") + ") reaches " + figure(gpu->stats.median, "images/s") +
                          ", " + ratio_text(gpu->stats.median / cpu->stats.median) + "x the CPU's best full decode (" +
                          figure(cpu->stats.median, "images/s") + " on " + std::to_string(threads) +
                          (threads == 1 ? " thread" : " threads") + ")",
                      {gpu->key, cpu->key}});
  return findings;
}

// One thread far below all cores: a single-process loader gets only this share of memory.
constexpr double kSingleThreadShare = 0.25;

std::vector<Finding> single_thread_memcpy(const Report& report, const Inventory&) {
  std::vector<Finding> findings;
  const Measurement* one = nullptr;
  const Measurement* most = nullptr;
  for (const Measurement* m : measurements_of(report, stage_name::hostmem)) {
    if (param(*m, "op") != "memcpy" || m->unit != "GB/s") continue;
    const int threads = int_param(m->params, "threads", 0);
    if (threads == 1) one = m;
    if (!most || threads > int_param(most->params, "threads", 0)) most = m;
  }
  if (!one || !most || most == one || one->stats.median >= kSingleThreadShare * most->stats.median) return findings;
  findings.push_back({Verdict::info, stage_name::hostmem,
                      "one thread copies " + figure(one->stats.median, "GB/s") + " against " +
                          figure(most->stats.median, "GB/s") + " with " + param(*most, "threads") +
                          " threads: a loader in one process (num_workers=0) or a single pinning thread gets " +
                          percent_text(100 * one->stats.median / most->stats.median) +
                          " of the machine's memory bandwidth; use several workers",
                      {one->key, most->key}});
  return findings;
}

std::vector<Finding> virtual_disk(const Report& report, const Inventory& inventory) {
  std::vector<Finding> findings;
  std::map<std::string, const Measurement*> best;  // per device: the fastest GB/s figure
  for (const Measurement* m : measurements_of(report, stage_name::storage)) {
    const std::string device = param(*m, "device");
    bool is_virtual = param(*m, "disk_kind") == "virtual_disk";
    for (const auto& disk : inventory.disks) {
      if (disk.name == device && disk.kind == DiskKind::virtual_disk) is_virtual = true;
    }
    if (!is_virtual || m->unit != "GB/s") continue;
    const Measurement*& slot = best[device];
    if (!slot || m->stats.median > slot->stats.median) slot = m;
  }
  for (const auto& [device, m] : best) {
    findings.push_back({Verdict::info, stage_name::storage,
                        device + " is a virtual disk: it has no hardware ceiling, and its best " +
                            figure(m->stats.median, "GB/s") +
                            " is what the hypervisor grants today; it can change with other tenants' load",
                        {m->key}});
  }
  return findings;
}

std::vector<Finding> downtrained_gpu_link(const Report&, const Inventory& inventory) {
  std::vector<Finding> findings;
  for (std::size_t i = 0; i < inventory.gpus.size(); ++i) {
    const GpuInfo& gpu = inventory.gpus[i];
    const PcieLink& link = gpu.pcie;
    if (!link.downtrained() || !link.current_gts || !link.current_width || !link.max_gts || !link.max_width) continue;
    const CeilingResult now = pcie_link_ceiling(link);
    PcieLink full = link;
    full.current_gts = link.max_gts;
    full.current_width = link.max_width;
    const CeilingResult max = pcie_link_ceiling(full);
    const int index = gpu.cuda_index >= 0 ? gpu.cuda_index : static_cast<int>(i);
    std::string text = "GPU " + std::to_string(index) + (gpu.pci_bdf.empty() ? "" : " (" + gpu.pci_bdf + ")") +
                       " link runs at " + gts_text(*link.current_gts) + " GT/s x" + std::to_string(*link.current_width) +
                       " against " + gts_text(*link.max_gts) + " GT/s x" + std::to_string(*link.max_width);
    if (now.ceiling && max.ceiling) {
      text += ": host copies are capped at " + figure(now.ceiling->value, "GB/s") + " instead of " +
              figure(max.ceiling->value, "GB/s");
    }
    text += *link.current_width < *link.max_width
                ? "; reseat the card or check the slot and riser"
                : "; if it stays there under load, check the BIOS slot speed setting and the riser";
    findings.push_back({Verdict::warn, stage_name::pcie, text, {"inventory/gpu" + std::to_string(index) + "/pcie_link"}});
  }
  return findings;
}

// Files of the user's dataset the probes had to leave out: a loader meets them too, and either
// fails on them or skips them silently. Once per dataset, from the first measurement naming it.
std::vector<Finding> bad_dataset_files(const Report& report, const Inventory&) {
  std::vector<Finding> findings;
  for (const Measurement* m : measurements_of(report, stage_name::decode)) {
    if (int_param(m->params, "bad_files", 0) == 0 || param(*m, "corpus") == "generated") continue;
    const bool one = int_param(m->params, "bad_files", 0) == 1;
    findings.push_back({Verdict::warn, stage_name::decode,
                        param(*m, "bad_files") + (one ? " file of " : " files of ") + param(*m, "corpus") +
                            (one ? " is not a sound JPEG and was" : " are not sound JPEGs and were") +
                            " left out of the decode figures: " +
                            param(*m, "bad_file_names") + "; a data loader fails or skips on them too",
                        {m->key}});
    break;
  }
  std::set<std::string> datasets;
  for (const Measurement* m : measurements_of(report, stage_name::storage)) {
    if (int_param(m->params, "files_unreadable", 0) == 0 || !datasets.insert(param(*m, "path")).second) continue;
    const bool one = int_param(m->params, "files_unreadable", 0) == 1;
    findings.push_back({Verdict::warn, stage_name::storage,
                        param(*m, "files_unreadable") + (one ? " file of " : " files of ") + param(*m, "path") +
                            (one ? " could not be opened and was" : " could not be opened and were") +
                            " not read (first: " + param(*m, "first_unreadable") +
                            "): the read figures leave them out",
                        {m->key}});
  }
  std::set<std::string> folders;
  for (const Measurement* m : measurements_of(report, stage_name::storage)) {
    if (int_param(m->params, "dirs_unreadable", 0) == 0 || !folders.insert(param(*m, "path")).second) continue;
    findings.push_back({Verdict::warn, stage_name::storage,
                        param(*m, "dirs_unreadable") + " sub-folder(s) of " + param(*m, "path") +
                            " could not be read and were left out (first: " + param(*m, "first_unreadable_dir") +
                            "): the read figures leave out their files",
                        {m->key}});
  }
  return findings;
}

// What a storage target made of its figures (core of the note: a file smaller than one queue's
// span, a sparse file whose holes never touch the disk): once per target.
std::vector<Finding> storage_target_notes(const Report& report, const Inventory&) {
  std::vector<Finding> findings;
  std::set<std::string> targets;
  for (const Measurement* m : measurements_of(report, stage_name::storage)) {
    if (param(*m, "note").empty() || !targets.insert(param(*m, "path")).second) continue;
    findings.push_back({Verdict::warn, stage_name::storage, param(*m, "path") + ": " + param(*m, "note"), {m->key}});
  }
  return findings;
}

// A figure above what the hardware can do is a broken measurement, not a fast machine: say
// what usually causes it, so the reader fixes the probe or the inventory, not the machine.
std::vector<Finding> above_physical_ceiling(const Report& report, const Inventory& inventory) {
  std::vector<Finding> findings;
  const PhysicalCeilings physical(inventory);
  for (const auto& probe : report.probes) {
    for (const auto& m : probe.measurements) {
      const auto violation = physical.violation(m);
      if (!violation) continue;
      findings.push_back({Verdict::invalid, m.stage,
                          m.what + ": " + *violation +
                              ". Usual causes: a cache or the page cache served the data, the timing missed part "
                              "of the work, or the inventory misread a clock, a link or a channel count; trust no "
                              "comparison made with this figure until it is explained",
                          {m.key}});
    }
  }
  return findings;
}

std::vector<Finding> crashed_probe(const Report& report, const Inventory&) {
  std::vector<Finding> findings;
  for (const auto& probe : report.probes) {
    if (probe.status != ProbeStatus::failed) continue;
    findings.push_back({Verdict::fail, probe.stage,
                        "the " + probe.stage + " probe (" + probe.probe + ") failed" +
                            (probe.reason.empty() ? "" : " (" + probe.reason + ")") + ": the " + probe.stage +
                            " stage is not measured; its log is " + probe.stage + ".log in the results folder",
                        {"probe/" + probe.stage}});
  }
  return findings;
}

}  // namespace

const std::vector<FindingRuleEntry>& finding_rules() {
  static const std::vector<FindingRuleEntry> rules = {
      {"crashed_probe", crashed_probe},
      {"above_physical_ceiling", above_physical_ceiling},
      {"downtrained_gpu_link", downtrained_gpu_link},
      {"pageable_vs_pinned", pageable_vs_pinned},
      {"remote_numa_copies", remote_numa_copies},
      {"slow_random_reads", slow_random_reads},
      {"virtual_disk", virtual_disk},
      {"progressive_jpeg", progressive_jpeg},
      {"cmyk_jpeg", cmyk_jpeg},
      {"poor_decode_scaling", poor_decode_scaling},
      {"gpu_decode_vs_cpu", gpu_decode_vs_cpu},
      {"single_thread_memcpy", single_thread_memcpy},
      {"bad_dataset_files", bad_dataset_files},
      {"storage_target_notes", storage_target_notes},
  };
  return rules;
}

std::vector<Finding> find_findings(const Report& report, const Inventory& inventory) {
  std::vector<Finding> all;
  for (const auto& entry : finding_rules()) {
    for (auto& finding : entry.rule(report, inventory)) all.push_back(std::move(finding));
  }
  return all;
}

}  // namespace pipecheck
