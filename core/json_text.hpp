// A JSON document as the text pipecheck writes: two-space indent, and any byte that is not valid
// UTF-8 replaced by U+FFFD. Paths, process names and command lines come from the system and can
// hold any bytes; nlohmann's default dump would throw on them and lose the whole file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pipecheck {

std::string json_text(const nlohmann::json& document);

}  // namespace pipecheck
