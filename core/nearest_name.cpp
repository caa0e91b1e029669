// Nearest known name by edit distance (Damerau's adjacent transposition included).
#include "core/nearest_name.hpp"

#include <algorithm>

namespace pipecheck {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::string nearest_name(const std::string& typed, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const auto& name : known) {
    const std::size_t distance = edit_distance(typed, name);
    if (distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  const std::size_t allowed = std::max<std::size_t>(3, typed.size() / 4);
  return best_distance <= allowed ? best : "";
}

}  // namespace pipecheck
