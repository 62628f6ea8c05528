// MetricsFile: writes the gateway's metrics text to a file for the node
// exporter's textfile collector (a `.prom` file in its directory), replacing
// it atomically: the text goes to `<path>.tmp` in the same directory, which
// is closed and renamed over `path`, so a scrape never reads half a file.
// It blocks as long as the file system does: the daemon calls it from
// MetricsFileWriter's thread, never from its loop.
#pragma once

#include <string>

#include "edgeadmm/host/error.h"

namespace edgeadmm::server {

// Writes `text` to `path` as above (mode 0644: metrics hold no secret).
// INTERNAL naming the path and the errno text on failure; `path` then
// keeps its previous content.
host::Error WriteMetricsFile(const std::string& path, const std::string& text);

}  // namespace edgeadmm::server
