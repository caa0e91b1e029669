// Planning a collective job from local GPUs or from every rank's facts.
#include "comm/comm_job.hpp"

#include <map>
#include <set>

#include "core/errors.hpp"

namespace pipecheck {

namespace {

constexpr char kSeparator = '\t';

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = line.find(kSeparator, start);
    fields.push_back(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return fields;
}

std::string no_tabs(std::string text) {
  for (char& c : text) {
    if (c == kSeparator || c == '\n') c = ' ';
  }
  return text;
}

std::string too_few(std::size_t found, const std::string& why) {
  std::string text = "needs 2 or more GPUs (found " + std::to_string(found);
  if (!why.empty()) text += ": " + why;
  return text + ")";
}

std::string no_gpu(const std::string& why) { return "needs a GPU (found 0" + (why.empty() ? "" : ": " + why) + ")"; }

int count_hosts(const std::vector<JobGpu>& gpus) {
  std::set<std::string> hosts;
  for (const auto& gpu : gpus) hosts.insert(gpu.host);
  return static_cast<int>(hosts.size());
}

}  // namespace

std::string encode_rank_facts(const RankFacts& facts) {
  std::string line = no_tabs(facts.host);
  for (const std::string& field : {std::to_string(facts.device), no_tabs(facts.bdf), no_tabs(facts.gpu_name),
                                   std::to_string(facts.memory_bytes), no_tabs(facts.problem)}) {
    line += kSeparator;
    line += field;
  }
  return line;
}

RankFacts decode_rank_facts(const std::string& line) {
  const std::vector<std::string> fields = split_tabs(line);
  if (fields.size() != 6) throw RunError("a rank sent facts pipecheck cannot read: '" + line + "'");
  RankFacts facts;
  facts.host = fields[0];
  facts.bdf = fields[2];
  facts.gpu_name = fields[3];
  facts.problem = fields[5];
  try {
    facts.device = std::stoi(fields[1]);
    facts.memory_bytes = std::stoull(fields[4]);
  } catch (const std::exception&) {
    throw RunError("a rank sent facts pipecheck cannot read: '" + line + "'");
  }
  return facts;
}

JobPlan plan_single_process(const std::vector<GpuTarget>& gpus, const std::string& host,
                            const std::string& cuda_skip) {
  JobPlan plan;
  for (const GpuTarget& gpu : gpus) {
    plan.gpus.push_back({static_cast<int>(plan.gpus.size()), host, gpu.index, gpu.bdf, gpu.name, gpu.memory_bytes});
  }
  plan.nodes = plan.gpus.empty() ? 0 : 1;
  // One GPU runs one rank, as nccl-tests' -g 1 does: NCCL's path and its data check, not judged.
  if (plan.gpus.empty()) plan.skip_reason = no_gpu(cuda_skip);
  return plan;
}

JobPlan plan_from_ranks(const std::vector<RankFacts>& ranks) {
  JobPlan plan;
  plan.mpi = true;
  std::string first_problem;
  std::map<std::string, int> used;  // "host/bdf" -> rank
  for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
    const RankFacts& facts = ranks[rank];
    if (facts.device < 0) {
      if (first_problem.empty()) {
        first_problem = "rank " + std::to_string(rank) + " on " + facts.host + ": " +
                        (facts.problem.empty() ? "no GPU" : facts.problem);
      }
      continue;
    }
    const std::string where = facts.host + "/" + facts.bdf;
    if (const auto it = used.find(where); it != used.end() && plan.error.empty()) {
      plan.error = "ranks " + std::to_string(it->second) + " and " + std::to_string(rank) + " on " + facts.host +
                   " both took GPU " + facts.bdf + ": start one rank per GPU";
    }
    used[where] = static_cast<int>(rank);
    plan.gpus.push_back({static_cast<int>(rank), facts.host, facts.device, facts.bdf, facts.gpu_name,
                         facts.memory_bytes});
  }
  plan.nodes = count_hosts(plan.gpus);
  if (plan.gpus.size() < 2) {
    plan.skip_reason = too_few(plan.gpus.size(), first_problem);
  } else if (!first_problem.empty()) {
    plan.skip_reason = "needs a GPU for every rank (" + first_problem + ")";
  }
  return plan;
}

std::uint64_t smallest_memory(const JobPlan& plan) {
  std::uint64_t smallest = 0;
  for (const auto& gpu : plan.gpus) {
    if (gpu.memory_bytes == 0) return 0;
    if (smallest == 0 || gpu.memory_bytes < smallest) smallest = gpu.memory_bytes;
  }
  return smallest;
}

std::string first_host_bdfs(const JobPlan& plan) {
  std::string text;
  for (const auto& gpu : plan.gpus) {
    if (gpu.host != plan.gpus.front().host || gpu.bdf.empty()) continue;
    if (!text.empty()) text += ',';
    text += gpu.bdf;
  }
  return text;
}

std::string job_gpus_text(const JobPlan& plan) {
  std::string text;
  for (const auto& gpu : plan.gpus) {
    if (!text.empty()) text += ',';
    text += "rank" + std::to_string(gpu.rank) + "=" + gpu.name + "@" + gpu.host + ":" + gpu.bdf;
  }
  return text;
}

}  // namespace pipecheck
