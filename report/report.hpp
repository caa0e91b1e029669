// The report of one run: what each probe produced, each measurement held against its ceiling.
// The probes measure; this is where ceilings are attached (DESIGN principle 1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/inventory.hpp"
#include "core/probe_outcome.hpp"
#include "report/verdict.hpp"

namespace pipecheck {

// ---- The measurement contract: params a probe emits so the report finds its ceiling ----------
// (issues 4/5 and the probes of issue 3 write these; ceiling_for and the judge read them; keys
// are Measurement::params entries, values are strings.)
//   stage "compute":  gpu (CUDA index), gpu_bdf ("0000:17:00.0", preferred to join the
//                     inventory), dtype (fp64|fp32|tf32|fp16|bf16|fp8|int8); unit TFLOP/s, or
//                     TOPS for int8. Ceiling: gpu_compute_ceiling(gpu, dtype).preferred().
//   stage "memory":   gpu, gpu_bdf, op (copy|read|write|triad|d2d_memcpy); unit GB/s.
//                     Ceiling: gpu_memory_ceiling(gpu).preferred().
//   stage "pcie":     gpu, gpu_bdf, direction (h2d|d2h|bidir), host_memory (pinned|pageable|
//                     mapped), numa (local|remote); unit GB/s. Ceiling: pcie_link_ceiling of the
//                     GPU's link, per direction; bidir (both directions summed) against twice it.
//   stage "comm":     collective (all_reduce|all_gather|reduce_scatter|broadcast), dtype, op,
//                     bytes, count, ranks, nodes, mode, gpu_bdfs (the job's GPUs), bus_factor,
//                     iters, verified, wrong, nccl_version, nccl_env; unit GB/s as bus bandwidth
//                     (nccl-tests busbw). Ceiling: collective_ceiling (NVLink when every pair of
//                     the job's GPUs shares it, else the slowest PCIe link, across nodes the NIC
//                     when lower); the derivation names which bounds. Judged at the largest size.
//   stage "decode" also carries op nvjpeg (GPU decode: device, batch, backend; no threads).
//   stage "storage":  device (sysfs name), disk_kind, pattern (seq_read|rand_read|dataset_read|
//                     seq_read_buffered_cold|dataset_read_buffered_cold|pread_baseline; the short
//                     forms seq|rand|dataset|cold_buffered|baseline_pread are accepted too),
//                     bs (bytes a read), target (scratch_file|file|directory|device); unit GB/s
//                     or IOPS. Ceiling: disk_read_ceiling of the device (GB/s only).
//   stage "decode":   threads, op (full|resize|resize_plain|dct_1_2|dct_1_4) or case (same
//                     names; "scale_1_2" etc. accepted), set (baseline|progressive); unit
//                     images/s. Ceiling: threads x the 1-thread rate (scaling efficiency).
//   stage "hostmem":  op (memcpy|read|write), threads; unit GB/s. Ceiling: dram_ceiling.
//   stage "stress":   gpu, gpu_bdf, wrong_results (count), thermal_slowdown_seconds (seconds with
//                     a thermal slowdown reason set); no ceiling: judged by stress.* keys.
//   any stage:        verified (yes|no): "no" is judged by probe.unverified.

struct Report {
  int version = kReportSchemaVersion;
  std::string pipecheck_version;
  std::string host;
  std::string started_utc;
  std::string finished_utc;
  std::string mode;  // quick, standard, full
  std::vector<ProbeOutcome> probes;  // each with its measurements
  // The quiet-machine check before the first probe (app/quiet_check); absent in older reports.
  std::optional<QuietCheck> quiet_check;
  // Verdicts, findings and the budget (judge/judge.hpp); empty until judged. In report.json:
  // "overall", "verdicts", "findings", "budget" (null without a workload).
  Judged judged;
};

// The ceiling one measurement is held against, from the inventory, by its stage and params;
// `siblings` are the other measurements of the same probe.
CeilingResult ceiling_for(const Measurement& measurement, const Inventory& inventory,
                          const std::vector<Measurement>& siblings = {});
// The GPU a measurement ran on: params gpu_bdf (PCI bus id, domain optional), else gpu (CUDA
// index); nullptr when it names none or the inventory lacks it.
const GpuInfo* find_gpu(const Measurement& measurement, const Inventory& inventory);
// Fills ceiling and percent_of_ceiling of every measurement of every probe.
void attach_ceilings(Report& report, const Inventory& inventory);

// JSON of the judging records (the renderers and compare read report.json through these).
void to_json(nlohmann::json& j, const Judgement& judgement);
void from_json(const nlohmann::json& j, Judgement& judgement);
void to_json(nlohmann::json& j, const Finding& finding);
void from_json(const nlohmann::json& j, Finding& finding);
void to_json(nlohmann::json& j, const BudgetStage& stage);
void from_json(const nlohmann::json& j, BudgetStage& stage);
void to_json(nlohmann::json& j, const PipelineBudget& budget);
void from_json(const nlohmann::json& j, PipelineBudget& budget);

nlohmann::json report_to_json(const Report& report);
// Throws std::runtime_error naming what is wrong with the document.
Report report_from_json(const nlohmann::json& document);

}  // namespace pipecheck
