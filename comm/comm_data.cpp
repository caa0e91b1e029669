// Data check verdicts (the formulas are inline in comm_data.hpp, shared with the kernels).
#include "comm/comm_data.hpp"

namespace pipecheck {

std::string data_check_limit(Collective collective, CommDtype dtype, int ranks) {
  const bool sums = collective == Collective::all_reduce || collective == Collective::reduce_scatter;
  if (sums && dtype == CommDtype::bf16 && ranks > 256) {
    return "not checked: bf16 sums over more than 256 ranks are not exact";
  }
  return "";
}

std::string data_check_problem(std::uint64_t wrong, std::uint64_t checked) {
  if (wrong == 0) return "";
  return "data check: " + std::to_string(wrong) + " of " + std::to_string(checked) + " elements wrong";
}

}  // namespace pipecheck
