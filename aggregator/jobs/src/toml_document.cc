#include "edgeadmm/jobs/toml_document.h"

#include <sstream>

namespace edgeadmm::jobs {

Status ParseTomlDocument(std::string_view text, toml::table& out,
                         std::string* error) {
  try {
    out = toml::parse(text);
  } catch (const toml::parse_error& e) {
    if (error != nullptr) {
      std::ostringstream message;
      message << "TOML syntax error at line " << e.source().begin.line << ": "
              << e.description();
      *error = message.str();
    }
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

}  // namespace edgeadmm::jobs
