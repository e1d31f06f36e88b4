#include "app/kb_install.h"

#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "actions/files.h"
#include "app/archive_unpack.h"
#include "app/kb_check.h"
#include "app/pack_testing.h"
#include "engine/kb/reader.h"

namespace perfsage::app {
namespace fs = std::filesystem;
namespace {

// A temporary folder removed on destruction.
class TempFolder {
 public:
  explicit TempFolder(const fs::path& parent) {
    std::string tmpl = (parent / ".perfsage-kb-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      throw std::runtime_error("cannot create a folder in " + parent.string());
    path_ = tmpl;
  }
  ~TempFolder() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  void release() { path_.clear(); }

 private:
  fs::path path_;
};

// Regular files under `dir`, relative, in name order; links and special files are refused.
std::vector<fs::path> pack_files(const fs::path& dir) {
  std::vector<fs::path> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    auto st = it->symlink_status();
    if (fs::is_directory(st)) continue;
    if (!fs::is_regular_file(st))
      throw std::runtime_error(it->path().string() + " is not a regular file or folder");
    out.push_back(fs::relative(it->path(), dir));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string folder_sha256(const fs::path& dir) {
  std::string manifest;
  for (const auto& rel : pack_files(dir))
    manifest += rel.generic_string() + '\0' + actions::sha256_file(dir / rel) + '\n';
  return actions::sha256_hex(manifest);
}

// The folder holding pack.yaml: the unpacked root, or its one subfolder.
fs::path find_pack_root(const fs::path& root) {
  if (fs::exists(root / "pack.yaml")) return root;
  std::vector<fs::path> subs;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory() && fs::exists(e.path() / "pack.yaml")) subs.push_back(e.path());
  if (subs.size() != 1)
    throw std::runtime_error("the archive holds " + std::to_string(subs.size()) +
                             " pack folders; expected one pack.yaml at its top or in one folder");
  return subs[0];
}

std::string messages_text(const std::vector<engine::LoadMessage>& ms, bool errors_only) {
  std::string out;
  for (const auto& m : ms)
    if (!errors_only || m.error()) out += "\n  " + m.str();
  return out;
}

}  // namespace

Result<InstallOutcome> install_pack(const InstallRequest& req, const Resources& resources,
                                    const AppConfig& config, const Knowledge& knowledge) {
  if (resources.user_packs.empty())
    return Error{ErrorKind::usage, "no user pack folder: set HOME or XDG_DATA_HOME"};
  try {
    std::error_code ec;
    fs::create_directories(resources.user_packs, ec);
    if (ec)
      return Error{ErrorKind::usage,
                   "cannot create " + resources.user_packs.string() + ": " + ec.message()};
    if (!fs::exists(req.source, ec))
      return Error{ErrorKind::usage, req.source.string() + ": no such file or folder"};
    InstallOutcome out;
    TempFolder staging(resources.user_packs);
    fs::path src;
    std::string sha;
    if (fs::is_directory(req.source)) {
      src = req.source;
      sha = folder_sha256(src);
    } else {
      sha = actions::sha256_file(req.source);
      fs::create_directory(staging.path() / "unpacked");
      unpack_archive(req.source, staging.path() / "unpacked", kMaxArchiveBytes, kMaxArchiveEntries);
      src = find_pack_root(staging.path() / "unpacked");
    }
    auto check = validate_pack_dir(src);
    out.messages = check.messages;
    if (!check.valid)
      return Error{ErrorKind::pack, "the pack in " + req.source.string() +
                                        " is not valid:" + messages_text(check.messages, true)};
    std::vector<engine::LoadMessage> ignored;
    auto pack = engine::read_pack(src, ignored);
    if (pack->test_files.empty())
      return Error{ErrorKind::pack, "pack " + pack->name +
                                        " has no tests (tests/*.yaml); "
                                        "an installed pack must prove its rules"};
    // Tested as it will run: from the user's folder, untrusted, in a child process.
    pack->source = "user";
    pack->trusted = false;
    out.tests = engine::run_pack_tests(*pack, pack_test_options(knowledge, config.limits));
    if (!out.tests.ok())
      return Error{ErrorKind::pack,
                   "pack " + pack->name + " fails its own tests:\n" + out.tests.str()};
    // A pack of the same name elsewhere is only replaced on purpose.
    std::vector<engine::LoadMessage> list_msgs;
    auto sel = compose_selection(config, resources, {}, list_msgs);
    for (const auto& known : engine::list_packs(sel, list_msgs)) {
      if (known.name != pack->name) continue;
      if (known.source == "user" && !req.replace)
        return Error{ErrorKind::pack, "pack " + pack->name + " " + known.version +
                                          " is already installed; use --replace to upgrade"};
      if (known.source != "user" && pack->override_mode.empty())
        return Error{ErrorKind::pack, "a " + known.source + " pack named " + pack->name +
                                          " exists (" + known.dir.string() +
                                          "); a pack that changes it must say so with "
                                          "`override: merge` or `override: replace` in pack.yaml"};
    }
    // Copy, record, then swap into place.
    fs::path copy = staging.path() / "copy";
    fs::create_directory(copy);
    for (const auto& rel : pack_files(src)) {
      fs::create_directories((copy / rel).parent_path());
      fs::copy_file(src / rel, copy / rel);
    }
    auto& rec = out.record;
    rec.set_name(pack->name);
    rec.set_version(pack->version);
    rec.set_source(fs::absolute(req.source).lexically_normal().string());
    rec.set_sha256(sha);
    rec.set_installed(req.now);
    std::string json;
    google::protobuf::util::JsonPrintOptions opts;
    opts.add_whitespace = true;
    opts.preserve_proto_field_names = true;
    (void)google::protobuf::util::MessageToJsonString(rec, &json, opts);
    actions::write_file_atomic(copy / kInstallRecord, json);
    // Only a pack folder is replaced: a file, a link, a FIFO or a device of that name is the
    // user's, and neither removed nor renamed over.
    fs::path target = resources.user_packs / pack->name;
    auto st = fs::symlink_status(target);
    if (fs::exists(st) && !fs::is_directory(st))
      return Error{ErrorKind::pack, target.string() +
                                        " exists and is not a folder; kb install replaces "
                                        "only a pack folder: move it away first"};
    if (fs::exists(st)) fs::remove_all(target);
    fs::rename(copy, target);
    out.installed = target;
    return out;
  } catch (const std::exception& e) {
    return Error{ErrorKind::pack,
                 std::string("cannot install ") + req.source.string() + ": " + e.what()};
  }
}

Result<perfsage::v1::InstallRecord> remove_pack(const std::string& name,
                                                const Resources& resources) {
  fs::path dir = resources.user_packs / name;
  std::error_code ec;
  if (resources.user_packs.empty() || name.empty() || name.find('/') != std::string::npos ||
      !fs::exists(dir / kInstallRecord, ec))
    return Error{ErrorKind::usage, "no pack named '" + name +
                                       "' was installed with kb install in " +
                                       resources.user_packs.string()};
  std::ifstream in(dir / kInstallRecord);
  std::stringstream text;
  text << in.rdbuf();
  perfsage::v1::InstallRecord rec;
  (void)google::protobuf::util::JsonStringToMessage(text.str(), &rec);
  fs::remove_all(dir, ec);
  if (ec) return Error{ErrorKind::usage, "cannot remove " + dir.string() + ": " + ec.message()};
  return rec;
}

}  // namespace perfsage::app
