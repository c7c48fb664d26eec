#include "report/atomic_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace ms::report {

void write_file_atomically(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) fail("{}: cannot write file (does the folder exist and is it writable?)", path);
    f.write(content.data(), static_cast<std::streamsize>(content.size()));
    f.close();
    if (!f) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      fail("{}: write failed", path);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    fail("{}: cannot rename the temporary file into place", path);
  }
}

}  // namespace ms::report
