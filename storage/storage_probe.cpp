// pipecheck-storage: what the disks under a training job's data can deliver. Sequential 1 MiB
// and random 4 KiB reads through io_uring (O_DIRECT), whole-file dataset reads, a cold buffered
// pass (what a loader reading through the page cache gets), the naive one-thread pread
// baseline and, for a dataset, whole files read cold by the loader's workers (files/s), each
// labelled with the device it ran on.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "core/case_messages.hpp"
#include "core/cpu_allowance.hpp"
#include "core/errors.hpp"
#include "core/probe_main.hpp"
#include "core/stage_names.hpp"
#include "core/text_escape.hpp"
#include "storage/storage_latency.hpp"
#include "storage/storage_run.hpp"
#include "storage/storage_scratch.hpp"
#include "storage/storage_target.hpp"
#include "storage/storage_workloads.hpp"

namespace pipecheck {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;
constexpr std::uint32_t kBaselineBlock = 128 * kKiB;  // a loader's plain read() size
constexpr std::uint64_t kConsistencyBytes = 8 * kMiB;  // compared between the two engines

// A size flag: parse_size's own message, naming the flag, when the text is not a size.
FlagCheck size_flag(const std::string& name) {
  return [name](const std::string& text) {
    parse_size(name, text);
    return std::string();
  };
}

const std::vector<ProbeFlag> kFlags = {
    {"path", "PATH", "a file, a dataset folder or a block device to read (repeatable); default: a scratch file", some_text()},
    {"scratch-dir", "DIR", "where the scratch file is created (default: the current folder)", some_text()},
    {"file-size", "SIZE", "scratch file size, e.g. 1G (at least 16M)", size_flag("file-size")},
    {"qd", "N", "queue depth of the io_uring cases (default 32)", whole_number(1, 4096)},
    {"bs", "SIZE", "sequential block size, a multiple of 512 up to 64M (default 1M)", size_flag("bs")},
    {"rand-bs", "SIZE", "random block size, a multiple of 512 up to 64M (default 4K)", size_flag("rand-bs")},
    {"threads", "N", "reader threads (default 1)", whole_number(1, 256)},
    {"workers", "N", "a dataset read as a loader reads it: N workers, each one whole file at a time (default: the usable CPUs)",
     whole_number(1, 1024)},
    {"buffers", "huge|pages", "read buffers in huge pages or normal pages", one_of({"huge", "pages"})},
    {"sqpoll", "on|off", "io_uring kernel submission thread (default off)",
     one_of({"on", "off", "1", "0", "yes", "no", "true", "false"})},
    {"engine", "io_uring|pread", "force the read engine (default: io_uring where permitted)",
     one_of({"io_uring", "uring", "pread"})},
};

struct Settings {
  std::vector<std::string> paths;
  std::string scratch_dir = ".";
  std::uint64_t file_size = 0;
  std::uint64_t window = 0;  // bytes one sequential or dataset iteration reads
  double random_pass_seconds = 1.0;  // one random-read iteration issues reads this long
  unsigned qd = 32;
  std::uint32_t bs = 1 * kMiB;
  std::uint32_t rand_bs = 4 * kKiB;
  unsigned threads = 1;
  unsigned workers = 1;  // a data loader's worker processes, each reading one file at a time
  bool sqpoll = false;
  bool huge_pages = true;  // --buffers=huge|pages
  EngineChoice engine;
};

// One --path (or the scratch file) and what its cases share.
struct Target {
  StorageTarget target;
  std::string key;  // the measurement key's last part: "vda", "vda-2"
  std::unique_ptr<ScratchFile> scratch;
  int direct_fd = -1;
  int buffered_fd = -1;
  std::string direct_refused;
  std::uint64_t cursor = 0;          // where the next sequential window starts
  std::size_t dataset_cursor = 0;    // the next dataset file
  std::optional<std::string> consistency;
  std::string consistency_difference;  // where the engines disagreed, when they did
  bool unreadable_said = false;      // the stderr line about unopenable dataset files, once
  std::vector<std::string> notes;    // what the figures are not (a file smaller than the queue's span, ...)
  std::string notes_short;           // the same in a few words, for the measurement's name

  Target() = default;
  Target(const Target&) = delete;
  Target& operator=(const Target&) = delete;
  ~Target() {
    if (scratch) return;  // the scratch file owns its descriptors
    if (direct_fd >= 0) close(direct_fd);
    if (buffered_fd >= 0) close(buffered_fd);
  }
};

// Kept until the process ends: Google Benchmark runs the cases after registration returns.
std::vector<std::unique_ptr<Target>>& targets() {
  static std::vector<std::unique_ptr<Target>> all;
  return all;
}

struct CaseSpec {
  std::string pattern;  // seq_read, rand_read, seq_read_buffered_cold, dataset_read, ...
  bool uring = true;
  bool direct = true;
  bool cold = false;    // evict the file's pages before each pass
  bool dataset = false;
  bool random = false;
  std::uint32_t bs = 0;
  unsigned qd = 1;
  unsigned threads = 1;
  std::string engine_label;
};

unsigned parse_count(const ProbeOptions& options, const std::string& flag, unsigned fallback,
                     unsigned most) {
  const std::string* text = options.last(flag);
  if (text == nullptr) return fallback;
  unsigned long value = 0;
  std::size_t used = 0;
  try {
    value = std::stoul(*text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text->size() || value < 1 || value > most) {
    throw UsageError("--" + flag + "=" + shortened(*text) + ": expected a whole number from 1 to " +
                     std::to_string(most));
  }
  return static_cast<unsigned>(value);
}

std::uint32_t parse_block(const ProbeOptions& options, const std::string& flag,
                          std::uint32_t fallback) {
  const std::string* text = options.last(flag);
  if (text == nullptr) return fallback;
  const std::uint64_t bytes = parse_size(flag, *text);
  if (bytes % 512 != 0 || bytes > 64 * kMiB) {
    throw UsageError("--" + flag + "=" + shortened(*text) + ": expected a multiple of 512 up to 64M");
  }
  return static_cast<std::uint32_t>(bytes);
}

bool parse_switch(const ProbeOptions& options, const std::string& flag) {
  const std::string* text = options.last(flag);
  if (text == nullptr) return false;
  if (*text == "1" || *text == "yes" || *text == "on" || *text == "true") return true;
  if (*text == "0" || *text == "no" || *text == "off" || *text == "false") return false;
  throw UsageError("--" + flag + "=" + shortened(*text) + ": expected on or off");
}

std::uint64_t physical_memory_bytes() {
  return static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
         static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

Settings read_settings(const ProbeOptions& options) {
  Settings settings;
  settings.paths = options.all("path");
  if (const std::string* dir = options.last("scratch-dir")) settings.scratch_dir = *dir;
  // Large enough that the page cache of a CI runner cannot hold it; full mode defeats any cache.
  settings.file_size = options.mode == ProbeMode::quick  ? 256 * kMiB
                       : options.mode == ProbeMode::full ? 2 * physical_memory_bytes()
                                                         : 1024 * kMiB;
  if (const std::string* size = options.last("file-size")) {
    settings.file_size = parse_size("file-size", *size);
    // The scratch file's smallest size (scratch_size_for): say so rather than blame free space.
    if (settings.file_size < 16 * kMiB) throw UsageError("--file-size=" + *size + ": at least 16M");
  }
  settings.window = options.mode == ProbeMode::quick ? 256 * kMiB : 1024 * kMiB;
  settings.random_pass_seconds = options.mode == ProbeMode::quick ? 0.25 : 1.0;
  settings.qd = parse_count(options, "qd", 32, 4096);
  settings.bs = parse_block(options, "bs", 1 * kMiB);
  settings.rand_bs = parse_block(options, "rand-bs", 4 * kKiB);
  settings.threads = parse_count(options, "threads", 1, 256);
  // A loader's default: one worker per usable CPU (PyTorch users set num_workers near it).
  settings.workers = parse_count(options, "workers", static_cast<unsigned>(std::max(1, usable_cpu_count())), 1024);
  settings.sqpoll = parse_switch(options, "sqpoll");
  if (const std::string* buffers = options.last("buffers")) {
    if (*buffers != "huge" && *buffers != "pages") throw UsageError("--buffers=" + *buffers + ": expected huge or pages");
    settings.huge_pages = *buffers == "huge";
  }
  const std::string* engine = options.last("engine");
  settings.engine = choose_engine(engine ? *engine : "");
  return settings;
}


std::string size_text(std::uint64_t bytes) {
  if (bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  return std::to_string(bytes) + " B";
}

// --- the work of one pass ---------------------------------------------------------------

ReadCheck check_for(const Target& t) {
  if (t.scratch) return {ReadCheck::pattern, t.scratch->seed()};
  return {};
}

int fd_for(const Target& t, bool direct) { return direct ? t.direct_fd : t.buffered_fd; }

std::vector<DatasetFile> next_dataset_files(Target& t, std::uint64_t budget) {
  std::vector<DatasetFile> chosen;
  std::uint64_t bytes = 0;
  const auto& files = t.target.files;
  for (std::size_t n = 0; n < files.size() && (bytes < budget || chosen.empty()); ++n) {
    const DatasetFile& file = files[t.dataset_cursor];
    t.dataset_cursor = (t.dataset_cursor + 1) % files.size();
    chosen.push_back(file);
    bytes += file.size;
  }
  return chosen;
}

std::vector<std::unique_ptr<ReadWorkload>> make_workloads(Target& t, const CaseSpec& spec,
                                                          std::size_t readers,
                                                          const Settings& settings,
                                                          std::uint64_t pass_number) {
  std::vector<std::unique_ptr<ReadWorkload>> workloads;
  const std::uint32_t align = static_cast<std::uint32_t>(t.target.identity.logical_block_size);
  const ReadCheck check = check_for(t);
  if (spec.dataset) {
    const auto files = next_dataset_files(t, settings.window);
    std::vector<std::vector<DatasetFile>> shares(readers);
    for (std::size_t i = 0; i < files.size(); ++i) shares[i % readers].push_back(files[i]);
    for (auto& share : shares) {
      workloads.push_back(std::make_unique<DatasetWorkload>(std::move(share), spec.bs, align, spec.direct, check));
    }
    return workloads;
  }
  const std::uint64_t size = t.scratch ? t.scratch->size() : t.target.size_bytes;
  const int fd = fd_for(t, spec.direct);
  if (spec.random) {
    // Each pass ends by draining the queue, at a falling depth: long passes keep that ramp-down
    // a small share (0.1% for a 1 s pass at 1 ms latency), and a deadline keeps an HDD's pass
    // as short as an NVMe's (4096 reads at 150 IOPS would be 27 s).
    const std::uint64_t total = std::max<std::uint64_t>(4096, std::uint64_t{spec.qd} * spec.threads * 1024);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(settings.random_pass_seconds));
    for (std::size_t i = 0; i < readers; ++i) {
      workloads.push_back(std::make_unique<RandomWorkload>(
          fd, size, spec.bs, total / readers, pass_number * 1000003 + i + 1, check, deadline));
    }
    return workloads;
  }
  const std::uint64_t window = std::min(size, settings.window);
  if (t.cursor + window > size) t.cursor = 0;
  const std::uint64_t begin = t.cursor;
  const std::uint64_t end = begin + window;
  t.cursor = end;
  const std::uint64_t share = round_up((window + readers - 1) / readers, spec.bs);
  for (std::size_t i = 0; i < readers; ++i) {
    const std::uint64_t from = std::min(end, begin + i * share);
    workloads.push_back(std::make_unique<SequentialWorkload>(
        fd, from, std::min(end, from + share), spec.bs, align, check));
  }
  return workloads;
}

// posix_fadvise(DONTNEED) drops the clean cached pages, as fio's invalidate=1 does. For a
// dataset only the files this pass reads: a million-file dataset is not reopened every pass.
void evict(const Target& t, const std::vector<std::unique_ptr<ReadWorkload>>& workloads) {
  if (t.target.kind != TargetKind::directory) {
    posix_fadvise(t.buffered_fd, 0, 0, POSIX_FADV_DONTNEED);
    return;
  }
  for (const auto& workload : workloads) {
    const auto* dataset = dynamic_cast<const DatasetWorkload*>(workload.get());
    if (dataset == nullptr) continue;
    for (const auto& file : dataset->files()) {
      const int fd = open(file.path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      close(fd);
    }
  }
}

// What the passes of a dataset case met: files read whole (for files/s), and files that could
// not be opened (each counted once however many passes met it) with the first one's error.
struct DatasetTally {
  std::uint64_t files_read = 0;
  std::set<std::string> paths;
  std::string first;
  std::size_t count() const { return paths.size(); }
  void add(const std::vector<std::unique_ptr<ReadWorkload>>& workloads) {
    for (const auto& workload : workloads) {
      const auto* dataset = dynamic_cast<const DatasetWorkload*>(workload.get());
      if (dataset == nullptr) continue;
      files_read += dataset->files_read();
      if (dataset->files_unreadable() == 0) continue;
      paths.insert(dataset->unreadable_paths().begin(), dataset->unreadable_paths().end());
      if (first.empty()) first = dataset->first_open_error();
    }
  }
};

// --- verification of user data: the same first bytes through both engines ---------------

// Each 4 KiB piece's sum over the first kConsistencyBytes, through one engine.
std::vector<PieceSum> checksum_pass(Target& t, bool uring, bool direct, const Settings& settings) {
  EngineSettings engine{settings.qd, static_cast<std::uint32_t>(kMiB), false, false};
  std::vector<std::unique_ptr<Reader>> readers;
  readers.push_back(make_reader(uring, engine));
  std::vector<std::unique_ptr<ReadWorkload>> workloads;
  const ReadCheck check{ReadCheck::checksum, 0, true};
  const std::uint32_t align = static_cast<std::uint32_t>(t.target.identity.logical_block_size);
  if (t.target.kind == TargetKind::directory) {
    std::vector<DatasetFile> files;
    std::uint64_t bytes = 0;
    for (const auto& file : t.target.files) {
      if (bytes >= kConsistencyBytes) break;
      files.push_back(file);
      bytes += file.size;
    }
    workloads.push_back(std::make_unique<DatasetWorkload>(files, engine.block_size, align, direct, check));
  } else {
    const std::uint64_t end = std::min(t.target.size_bytes, kConsistencyBytes);
    workloads.push_back(std::make_unique<SequentialWorkload>(fd_for(t, direct), 0, end,
                                                             engine.block_size, align, check));
  }
  const PassResult pass = run_pass(readers, workloads);
  if (!pass.error.empty()) throw RunError(pass.error);
  return static_cast<CheckedWorkload&>(*workloads[0]).pieces();
}

// The path as every output shows it: escaped (core/text_escape.hpp), so any name is one value.
std::string label_path(const Target& t) {
  return escape_name(t.scratch ? t.scratch->dir() + "/(scratch file)" : t.target.path);
}

// "bytes [4096, 8192) of /data/x.bin": a piece the consistency pass names (a dataset's tag is
// the index of its file, which the pass takes in order from the first).
std::string piece_place(const Target& t, const PieceSum& piece) {
  const bool dataset = t.target.kind == TargetKind::directory;
  const std::string file = dataset ? (piece.tag < t.target.files.size() ? escape_name(t.target.files[piece.tag].path) : "?")
                                   : label_path(t);
  return "bytes [" + std::to_string(piece.offset) + ", " + std::to_string(piece.offset + 4096) + ") of " + file;
}

std::string consistency_of(Target& t, const Settings& settings) {
  if (t.consistency) return *t.consistency;
  if (!settings.engine.uring) {
    t.consistency = "single_engine";
  } else {
    try {
      const bool direct = t.direct_refused.empty();
      const auto by_pread = checksum_pass(t, false, false, settings);
      const auto by_uring = checksum_pass(t, true, direct, settings);
      const auto difference = first_piece_difference(by_pread, by_uring);
      t.consistency = difference ? "no" : "yes";
      if (difference) t.consistency_difference = piece_place(t, *difference);
    } catch (const std::exception& error) {
      // The check itself could not run (no memory for a ring, EIO): not evidence of bad bytes.
      t.consistency = std::string("error (") + error.what() + ")";
    }
  }
  return *t.consistency;
}

// --- one case ------------------------------------------------------------------------------

std::string what_of(const Target& t, const CaseSpec& spec) {
  std::string what;
  if (spec.pattern == "pread_baseline") {
    what = "pread " + size_text(spec.bs) + " 1 thread (num_workers=0), cold cache";
  } else if (spec.pattern == "dataset_read_workers") {
    what = "whole files, " + std::to_string(spec.threads) + " loader workers (pread " + size_text(spec.bs) +
           ", page cache, cold)";
  } else {
    what = spec.dataset ? "dataset read, whole files," : spec.random ? "rand read" : "seq read";
    if (!spec.direct) what += " buffered cold";
    what += " " + size_text(spec.bs) + " QD" + std::to_string(spec.qd);
    if (spec.threads > 1) what += " x" + std::to_string(spec.threads) + " threads";
  }
  const auto& id = t.target.identity;
  what += ", " + escape_name(id.device) + " (" + id.disk_kind + ")";
  // What the figure is not, in the line a reader sees (the note says it in full).
  if (!t.notes.empty() && spec.pattern != "pread_baseline") what += ", " + t.notes_short;
  return what;
}

void set_label(benchmark::State& state, const Target& t, const CaseSpec& spec, std::uint64_t bytes_read,
               const std::string& engine_detail, const std::string& verified,
               const std::optional<LatencyPercentiles>& latency, const DatasetTally& tally) {
  const auto& id = t.target.identity;
  std::map<std::string, std::string> params = {
      {"what", what_of(t, spec)},
      {"pattern", spec.pattern},
      {"engine", spec.engine_label},
      {"engine_detail", engine_detail},
      {"bs", std::to_string(spec.bs)},
      {"qd", std::to_string(spec.qd)},
      {"threads", std::to_string(spec.threads)},
      {"cache", spec.direct ? "direct" : "buffered_cold"},
      {"path", label_path(t)},
      {"target", t.scratch ? "scratch_file" : to_string(t.target.kind)},
      {"size_bytes", std::to_string(t.scratch ? t.scratch->size() : t.target.size_bytes)},
      {"device", escape_name(id.device)},
      {"disk_kind", id.disk_kind},
      {"model", escape_name(id.model)},
      {"logical_block_size", std::to_string(id.logical_block_size)},
      {"verified", verified},
  };
  if (t.target.kind == TargetKind::directory) params["files"] = std::to_string(t.target.files.size());
  if (spec.dataset && tally.files_read > 0) {
    // Files/s = GB/s / this: the bytes of the files these passes read, not the dataset's mean.
    params["files_read"] = std::to_string(tally.files_read);
    params["mean_file_bytes"] = std::to_string(bytes_read / tally.files_read);
  }
  if (tally.count() > 0) {
    params["files_unreadable"] = std::to_string(tally.count());
    params["first_unreadable"] = tally.first;
  }
  if (!t.target.unreadable_dirs.empty()) {
    params["dirs_unreadable"] = std::to_string(t.target.unreadable_dirs.size());
    params["first_unreadable_dir"] = escape_name(t.target.unreadable_dirs.front().path) + ": " +
                                     t.target.unreadable_dirs.front().why;
  }
  if (!t.target.left_out.empty()) {  // links out of the dataset, loops, FIFOs: named, not read
    params["entries_left_out"] = std::to_string(t.target.left_out.size());
    params["first_left_out"] = escape_name(t.target.left_out.front().path) + ": " + t.target.left_out.front().why;
  }
  if (!t.notes.empty()) {
    std::string note;
    for (const auto& line : t.notes) note += (note.empty() ? "" : ". ") + line;  // no ";": labels split on it
    params["note"] = note;
  }
  if (latency) {
    params["lat_p50_us"] = std::to_string(latency->p50_us);
    params["lat_p99_us"] = std::to_string(latency->p99_us);
    params["lat_p999_us"] = std::to_string(latency->p999_us);
  }
  state.SetLabel(encode_label(params));
}

void run_case(benchmark::State& state, Target& t, const CaseSpec& spec, const Settings& settings) {
  if (spec.direct && !t.direct_refused.empty()) {
    // The filesystem has no direct I/O (tmpfs): nothing to time, a skip with the reason.
    state.SkipWithError(skipped_case_message("O_DIRECT refused: " + t.direct_refused).c_str());
    return;
  }
  const EngineSettings engine{spec.uring ? spec.qd : 1, spec.bs, settings.sqpoll && spec.uring,
                              spec.random, settings.huge_pages, spec.random};
  // pread has one read in flight per thread: the fallback gets qd threads per reader instead.
  const unsigned reader_count = spec.uring ? spec.threads : spec.threads * spec.qd;
  std::vector<std::unique_ptr<Reader>> readers;
  try {
    for (unsigned i = 0; i < reader_count; ++i) readers.push_back(make_reader(spec.uring, engine));
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  PassResult total;
  DatasetTally tally;
  std::string first_mismatch;
  std::uint64_t pass_number = 0;
  for (auto _ : state) {
    auto workloads = make_workloads(t, spec, readers.size(), settings, pass_number++);
    if (spec.cold) evict(t, workloads);
    PassResult pass = run_pass(readers, workloads);
    tally.add(workloads);
    state.SetIterationTime(pass.seconds);
    total.bytes += pass.bytes;
    total.ops += pass.ops;
    total.mismatches += pass.mismatches;
    if (first_mismatch.empty()) first_mismatch = pass.first_mismatch;
    total.latencies_ns.insert(total.latencies_ns.end(), pass.latencies_ns.begin(), pass.latencies_ns.end());
    if (!pass.error.empty()) {
      // A dataset's error names its file; a single file or device is named here.
      const std::string where = t.target.kind == TargetKind::directory ? "" : label_path(t) + ": ";
      state.SkipWithError((where + pass.error).c_str());
      return;
    }
    if (pass.bytes == 0) {
      const std::string why = tally.first.empty() ? "" : " (" + tally.first + ")";
      state.SkipWithError(("nothing read from " + label_path(t) + why).c_str());
      return;
    }
  }
  std::optional<LatencyPercentiles> latency;
  if (spec.random) {
    // Random reads are counted in IOPS only: a bytes rate would take precedence in the report.
    state.counters["iops"] = benchmark::Counter(static_cast<double>(total.ops), benchmark::Counter::kIsRate);
    latency = latency_percentiles(total.latencies_ns);
    state.counters["lat_p50_us"] = latency->p50_us;
    state.counters["lat_p99_us"] = latency->p99_us;
    state.counters["lat_p999_us"] = latency->p999_us;
  } else {
    state.SetBytesProcessed(static_cast<std::int64_t>(total.bytes));
  }
  if (spec.dataset) {
    state.counters["files_per_second"] = benchmark::Counter(static_cast<double>(tally.files_read), benchmark::Counter::kIsRate);
  }
  std::string verified;
  if (t.scratch) {
    verified = total.mismatches == 0 ? "yes" : "no";
  } else {
    verified = consistency_of(t, settings);
  }
  set_label(state, t, spec, total.bytes, spec.uring ? readers[0]->description() : "sync", verified, latency, tally);
  if (tally.count() > 0 && !t.unreadable_said) {
    t.unreadable_said = true;
    std::fprintf(stderr, "pipecheck-storage: %s: %llu files could not be opened and were skipped, first: %s\n",
                 label_path(t).c_str(), static_cast<unsigned long long>(tally.count()),
                 printable_text(tally.first).c_str());
  }
  if (total.mismatches > 0) {
    state.SkipWithError(wrong_result_message(std::to_string(total.mismatches) +
                                             " reads did not hold the bytes written to the scratch file, first at " +
                                             first_mismatch).c_str());
  } else if (verified == "no") {
    state.SkipWithError(wrong_result_message("io_uring and pread read different bytes from " + label_path(t) +
                                             ", first " + t.consistency_difference).c_str());
  } else if (verified.rfind("error", 0) == 0) {
    state.SkipWithError(("could not compare io_uring and pread reads of " + label_path(t) + ": " + verified).c_str());
  }
}

// --- registration ---------------------------------------------------------------------------

std::string unique_key(const std::string& device) {
  std::string key = device;
  for (int n = 2;; ++n) {
    const bool taken = std::any_of(targets().begin(), targets().end(),
                                   [&](const auto& t) { return t->key == key; });
    if (!taken) return key;
    key = device + "-" + std::to_string(n);
  }
}

void open_user_target(Target& t) {
  if (t.target.kind == TargetKind::directory) return;  // dataset files are opened as read
  const char* path = t.target.path.c_str();
  t.buffered_fd = open(path, O_RDONLY | O_CLOEXEC);
  if (t.buffered_fd < 0) throw UsageError("--path " + label_path(t) + ": " + errno_message("open", t.target.path, errno));
  t.direct_fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (t.direct_fd < 0) t.direct_refused = errno_message("open O_DIRECT", t.target.path, errno);
}

// What a user's file makes of the figures, said with them rather than left for the reader to
// guess: a file smaller than one queue's span never has QD reads in flight; one smaller than a
// random block has no random case; holes of a sparse file read as zeros without the disk.
void note_limits(Target& t, const Settings& settings) {
  if (t.scratch || t.target.kind == TargetKind::block_device) return;
  std::vector<std::string> shorts;
  const std::uint64_t size = t.target.size_bytes;
  const std::uint64_t span = static_cast<std::uint64_t>(settings.qd) * settings.bs * settings.threads;
  if (t.target.kind == TargetKind::file && size < span) {
    t.notes.push_back("the file (" + size_text(size) + ") is smaller than one queue's span (QD" +
                      std::to_string(settings.qd) + " x " + size_text(settings.bs) +
                      (settings.threads > 1 ? " x " + std::to_string(settings.threads) + " threads" : "") + " = " +
                      size_text(span) + "): fewer reads are ever in flight, so the figures are not the device's");
    shorts.push_back("file smaller than the queue's span");
  }
  if (t.target.kind == TargetKind::file && size < settings.rand_bs) {
    t.notes.push_back("random reads left out: the file is smaller than one " + size_text(settings.rand_bs) + " block");
    shorts.push_back("no random case");
  }
  // Holes: 1% or more of the bytes have no blocks on disk.
  if (t.target.allocated_bytes < size && size - t.target.allocated_bytes >= size / 100) {
    const std::uint64_t percent = (size - t.target.allocated_bytes) * 100 / size;
    t.notes.push_back(std::string(t.target.kind == TargetKind::directory ? "sparse files: " : "a sparse file: ") +
                      std::to_string(percent) + "% of its " + size_text(size) +
                      " are holes, which read as zeros without touching the disk, so the figures are not the device's");
    shorts.push_back(t.target.kind == TargetKind::directory ? "sparse files" : "sparse file");
  }
  for (const auto& text : shorts) t.notes_short += (t.notes_short.empty() ? "" : ", ") + text;
  for (const auto& note : t.notes) {
    std::fprintf(stderr, "pipecheck-storage: %s: %s\n", label_path(t).c_str(), note.c_str());
  }
  if (!t.target.unreadable_dirs.empty()) {
    std::fprintf(stderr, "pipecheck-storage: %s: %zu sub-folders could not be read and were skipped, first: %s: %s\n",
                 label_path(t).c_str(), t.target.unreadable_dirs.size(),
                 escape_name(t.target.unreadable_dirs.front().path).c_str(),
                 printable_text(t.target.unreadable_dirs.front().why).c_str());
  }
  if (!t.target.left_out.empty()) {
    std::fprintf(stderr, "pipecheck-storage: %s: %zu entries left out (not read), first: %s: %s\n",
                 label_path(t).c_str(), t.target.left_out.size(), escape_name(t.target.left_out.front().path).c_str(),
                 printable_text(t.target.left_out.front().why).c_str());
  }
}

void register_target(Target& t, const Settings& settings) {
  note_limits(t, settings);
  const std::uint32_t align = static_cast<std::uint32_t>(t.target.identity.logical_block_size);
  for (std::uint32_t bs : {settings.bs, settings.rand_bs}) {
    if (bs % align != 0) {
      throw UsageError("block size " + std::to_string(bs) + " is not a multiple of the logical block size " +
                       std::to_string(align) + " of " + escape_name(t.target.identity.device) + " (" + label_path(t) + ")");
    }
  }
  const bool uring = settings.engine.uring;
  const std::string engine = settings.engine.label;
  const unsigned qd = settings.qd;
  const unsigned threads = settings.threads;
  std::vector<CaseSpec> specs;
  if (t.target.kind == TargetKind::directory) {
    specs.push_back({"dataset_read", uring, true, false, true, false, settings.bs, qd, threads, engine});
    specs.push_back({"dataset_read_buffered_cold", uring, false, true, true, false, settings.bs, qd, threads, engine});
    specs.push_back({"pread_baseline", false, false, true, true, false, kBaselineBlock, 1, 1, "pread"});
    // The loader: each worker reads one whole file at a time through the page cache, cold.
    if (settings.workers > 1) {
      specs.push_back({"dataset_read_workers", false, false, true, true, false, kBaselineBlock, 1, settings.workers, "pread"});
    }
  } else {
    const std::uint64_t size = t.scratch ? t.scratch->size() : t.target.size_bytes;
    specs.push_back({"seq_read", uring, true, false, false, false, settings.bs, qd, threads, engine});
    if (size >= settings.rand_bs) {
      specs.push_back({"rand_read", uring, true, false, false, true, settings.rand_bs, qd, threads, engine});
    }
    specs.push_back({"seq_read_buffered_cold", uring, false, true, false, false, settings.bs, qd, threads, engine});
    specs.push_back({"pread_baseline", false, false, true, false, false, kBaselineBlock, 1, 1, "pread"});
  }
  for (const CaseSpec& spec : specs) {
    Target* target = &t;
    benchmark::RegisterBenchmark(("storage/" + spec.pattern + "/" + t.key).c_str(),
                                 [target, spec, settings](benchmark::State& state) {
                                   run_case(state, *target, spec, settings);
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
}

// A scratch file the user sized (--file-size) is written whole or refused: capped silently at
// half the free space it once wrote 41 GB where 200G was asked. The mode's own size is capped.
void check_requested_scratch(const ProbeOptions& options, const Settings& settings) {
  const std::string* asked = options.last("file-size");
  if (asked == nullptr || !settings.paths.empty()) return;
  const std::uint64_t free_bytes = free_bytes_in(settings.scratch_dir);
  if (settings.file_size > free_bytes / 2) {
    throw UsageError("--file-size=" + shortened(*asked) + ": more than half of the " + size_text(free_bytes) +
                     " free in --scratch-dir " + escape_name(settings.scratch_dir) +
                     " (a scratch file may take at most half)");
  }
}

std::string register_cases(const ProbeOptions& options) {
  const Settings settings = read_settings(options);
  const SysfsRoot sys("/");
  add_probe_context("pipecheck_storage_engine", settings.engine.label);
  for (const std::string& path : settings.paths) {
    auto t = std::make_unique<Target>();
    t->target = resolve_target(path, sys);
    t->key = unique_key(t->target.identity.device);
    open_user_target(*t);
    targets().push_back(std::move(t));
  }
  if (settings.paths.empty()) {
    check_requested_scratch(options, settings);
    auto t = std::make_unique<Target>();
    t->scratch = ScratchFile::create(settings.scratch_dir, settings.file_size, 0x5eed0000ULL ^ static_cast<std::uint64_t>(getpid()));
    t->target.path = settings.scratch_dir;
    t->target.kind = TargetKind::file;
    t->target.size_bytes = t->scratch->size();
    t->target.identity = identify_device(settings.scratch_dir, sys);
    t->buffered_fd = t->scratch->buffered_fd();
    t->direct_fd = t->scratch->direct_fd();
    t->direct_refused = t->scratch->direct_refused();
    t->key = unique_key(t->target.identity.device);
    targets().push_back(std::move(t));
  }
  for (auto& t : targets()) register_target(*t, settings);
  return "";
}

// What `pipecheck run` checks before its first probe: every --path names something to read.
// The same storage named twice (a path and a link to it, `dir` and `dir/.`) is refused: each is
// measured once.
void check_inputs(const ProbeOptions& options) {
  const Settings settings = read_settings(options);
  const SysfsRoot sys("/");
  check_requested_scratch(options, settings);
  std::map<std::pair<dev_t, ino_t>, std::string> seen;
  for (const std::string& path : settings.paths) {
    resolve_target(path, sys);
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) continue;
    const auto [it, added] = seen.emplace(std::make_pair(info.st_dev, info.st_ino), path);
    if (!added) {
      throw UsageError("--path " + escape_name(path) + ": given twice (the same as --path " + escape_name(it->second) +
                       "); each is measured once");
    }
  }
}

}  // namespace
}  // namespace pipecheck

int main(int argc, char** argv) {
  return pipecheck::run_probe_main(argc, argv, pipecheck::stage_name::storage, "pipecheck-storage",
                                   pipecheck::register_cases, pipecheck::kFlags, pipecheck::check_inputs);
}
