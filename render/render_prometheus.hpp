// A Prometheus textfile (node_exporter textfile collector format) of one run, named as Prometheus
// asks: one family per quantity in base units, every dimension its own label, GPU series
// labelled as dcgm-exporter labels them so the two join.
#pragma once

#include <filesystem>
#include <string>

#include "core/inventory.hpp"
#include "render/render_support.hpp"
#include "report/report.hpp"

namespace pipecheck {

// Metric families (all gauges, each with # HELP and # TYPE):
//   pipecheck_run_info{Hostname,version,mode} 1
//   pipecheck_overall_verdict{verdict}                  the run's worst verdict as a number
//   pipecheck_verdict{subject,stage,verdict,[GPU]}      one per judgement; core/outcome.hpp's
//                                                       prometheus_verdict_value: skipped 0, info 1,
//                                                       pass 2, warn 3, inconclusive 4, fail 5, invalid 6
//   pipecheck_measured_<quantity>{stage,dims,[GPU]}     median of the repetitions, base units:
//   pipecheck_ceiling_<quantity>{...same labels}        bytes_per_second (GB/s x 1e9),
//                                                       flop_per_second (TFLOP/s x 1e12),
//                                                       operations_per_second (TOPS x 1e12),
//                                                       io_operations_per_second (IOPS),
//                                                       images_per_second, items_per_second
//   pipecheck_ceiling_ratio{...same labels}             measured / ceiling (0.838, not 83.8)
//   pipecheck_probe_ok{probe,stage,status}              1 when the probe ran to the end
//   pipecheck_probe_duration_seconds{probe,stage}
//   pipecheck_findings{severity}                        findings of the run per severity
//   pipecheck_budget_samples_per_second{stage}          with a workload
//   pipecheck_run_start_timestamp_seconds, pipecheck_run_finished_timestamp_seconds
// Dimensions (labels, where the measurement has them): op, set, pattern, device (a disk, as
// node_exporter names it), direction, host_memory, engine, numa, collective, dtype, shape,
// threads, bytes, bs, qd, ranks, nodes, concurrent_gpus. A measurement on one GPU also carries
// dcgm-exporter's gpu (NVML index: position by PCI bus id), UUID, pci_bus_id ("00000000:18:00.0"),
// modelName and Hostname. Two measurements a family would otherwise give the same label set
// also carry their `key`. Unknown values are left out, never written as NaN; label values are
// escaped (\\ \" \n).
std::string render_prometheus(const Report& report, const Inventory& inventory, const Judged& judged,
                              const RenderExtras& extras);

// "0000:af:00.0" -> "00000000:AF:00.0", the form NVML and dcgm-exporter print; other text as is.
std::string nvml_bus_id(const std::string& pci_bdf);

}  // namespace pipecheck
