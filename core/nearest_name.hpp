// "Did you mean ...?": the known name nearest to a mistyped one (a profile key, a probe flag).
#pragma once

#include <string>
#include <vector>

namespace pipecheck {

// Edit distance where swapping two neighbours counts as one edit ("bf61" for "bf16").
std::size_t edit_distance(const std::string& a, const std::string& b);

// The name of `known` nearest to `typed`; "" when none is within max(3, typed.size() / 4)
// edits, so a suggestion is only made when it is plausibly what was meant.
std::string nearest_name(const std::string& typed, const std::vector<std::string>& known);

}  // namespace pipecheck
