#include "core/json_text.hpp"

namespace pipecheck {

std::string json_text(const nlohmann::json& document) {
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace pipecheck
