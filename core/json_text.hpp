// A JSON document as the text pipecheck writes: two-space indent, and any string (value or key)
// that is not valid UTF-8 written as printable_text writes it (core/text_escape.hpp: each
// invalid byte as \xHH), so the file stays valid JSON and the bytes stay recoverable. Paths,
// process names and command lines come from the system and can hold any bytes; nlohmann's
// default dump would throw on them and lose the whole file. Names are escaped where they enter
// a record (escape_name); this is the net for any that was not.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pipecheck {

std::string json_text(const nlohmann::json& document);

}  // namespace pipecheck
