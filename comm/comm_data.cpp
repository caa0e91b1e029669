// Data check verdicts (the formulas are inline in comm_data.hpp, shared with the kernels).
#include "comm/comm_data.hpp"

#include <cstdio>

namespace pipecheck {

std::string data_check_limit(Collective collective, CommDtype dtype, int ranks) {
  const bool sums = collective == Collective::all_reduce || collective == Collective::reduce_scatter;
  if (sums && dtype == CommDtype::bf16 && ranks > 256) {
    return "not checked: bf16 sums over more than 256 ranks are not exact";
  }
  return "";
}

std::string data_check_problem(std::uint64_t wrong, std::uint64_t checked, const std::string& first) {
  if (wrong == 0) return "";
  return "data check: " + std::to_string(wrong) + " of " + std::to_string(checked) + " elements wrong" +
         (first.empty() ? "" : ", first: " + first);
}

CommCheck comm_check_received(const float* received, Collective collective, int rank, int ranks,
                              const CollectiveCounts& counts) {
  CommCheck check;
  for (std::uint64_t i = 0; i < counts.recv_count; ++i) {
    if (!comm_element_wrong(received[i], comm_expected(collective, rank, ranks, counts, i))) continue;
    if (check.wrong++ == 0) {
      check.first_index = i;
      check.first_value = received[i];
    }
  }
  return check;
}

std::string comm_wrong_element_text(const CommCheck& check, Collective collective, int rank, int ranks,
                                    const CollectiveCounts& counts) {
  if (check.wrong == 0 || check.first_index >= counts.recv_count) return "";
  char value[32];
  std::snprintf(value, sizeof value, "%g", static_cast<double>(check.first_value));
  return "rank " + std::to_string(rank) + " element " + std::to_string(check.first_index) + " holds " + value +
         ", expected " + std::to_string(comm_expected(collective, rank, ranks, counts, check.first_index));
}

}  // namespace pipecheck
