#include "cli/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace perfsage::cli {

bool write_output(const std::string& path, const std::string& text, std::ostream& out,
                  std::ostream& err) {
  if (path.empty() || path == "-") {
    out << text;
    return true;
  }
  namespace fs = std::filesystem;
  fs::path target = path;
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string name = ".";
  name += target.filename().string();
  name += ".XXXXXX";
  std::string tmp = (dir / name).string();
  int fd = mkstemp(tmp.data());
  if (fd < 0) {
    err << "perfsage: cannot write " << path << ": " << std::strerror(errno) << "\n";
    return false;
  }
  const char* p = text.data();
  size_t left = text.size();
  bool ok = true;
  while (left > 0 && ok) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    ok = w > 0;
    if (ok) p += w, left -= static_cast<size_t>(w);
  }
  ok = ok && fchmod(fd, 0644) == 0 && fsync(fd) == 0;
  int saved = errno;
  ok = close(fd) == 0 && ok;
  if (ok && std::rename(tmp.c_str(), path.c_str()) == 0) return true;
  saved = saved ? saved : errno;
  std::remove(tmp.c_str());
  err << "perfsage: cannot write " << path << ": " << std::strerror(saved) << "\n";
  return false;
}

}  // namespace perfsage::cli
