#include "edgeadmm/jobs/toml_document.h"

#include <sstream>

namespace edgeadmm::jobs {

host::ErrorOr<toml::table> ParseTomlDocument(std::string_view text) {
  try {
    return toml::parse(text);
  } catch (const toml::parse_error& e) {
    std::ostringstream message;
    message << "TOML syntax error at line " << e.source().begin.line << ": "
            << e.description();
    return host::Error::InvalidArgument(message.str());
  }
}

}  // namespace edgeadmm::jobs
