// Reports are written to a temporary file in the destination folder and renamed into place, so a
// failed run never leaves a half-written file.
#pragma once
#include <string>

namespace ms::report {

void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace ms::report
