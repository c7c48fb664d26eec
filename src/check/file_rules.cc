// Rule family 1: file integrity (MC-FILE-*), checked on the raw file before and while importing.
// ONNX files are parsed here first so that a truncated file, a file that is not ONNX, external
// data that is missing or short and weights that were stripped are each named precisely; tensors
// whose data is missing are then given zero data so that the remaining rules can still run.
#include <google/protobuf/io/coded_stream.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string_view>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/check.h"
#include "formats/model_io.h"
#include "formats/onnx/onnx_importer.h"

namespace ms::check {

namespace fs = std::filesystem;

namespace {

Finding file_finding(const std::string& id, const std::string& tensor, std::string message) {
  const RuleInfo& r = rule_info(id);
  Finding f;
  f.rule = id;
  f.severity = r.severity;
  f.tensor = tensor;
  f.message = std::move(message);
  f.hint = r.hint;
  return f;
}

// Classifies bytes that do not parse as a ModelProto: "truncated" when the top-level records are
// ModelProto fields and one of them runs past the end of the file, "not a model" otherwise.
bool looks_truncated(std::string_view bytes) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(std::min<size_t>(bytes.size(), INT32_MAX)));
  in.SetTotalBytesLimit(INT32_MAX);
  int valid_fields = 0;
  while (true) {
    uint32_t tag = in.ReadTag();
    if (tag == 0) return false;  // clean end, or an invalid tag
    uint32_t field = tag >> 3, wire = tag & 7;
    bool varint_field = field == 1 || field == 5;
    bool len_field = field == 2 || field == 3 || field == 4 || field == 6 || field == 7 || field == 8 ||
                     field == 14 || field == 20 || field == 25;
    if (varint_field && wire == 0) {
      uint64_t v;
      if (!in.ReadVarint64(&v)) return valid_fields > 0;
    } else if (len_field && wire == 2) {
      uint32_t len;
      if (!in.ReadVarint32(&len)) return valid_fields > 0;
      int remaining = static_cast<int>(bytes.size()) - in.CurrentPosition();
      if (static_cast<int64_t>(len) > remaining) return valid_fields > 0 || field == 7;
      if (!in.Skip(static_cast<int>(len))) return true;
    } else {
      return false;
    }
    ++valid_fields;
  }
}

struct TensorWalk {
  std::string base_dir;
  std::vector<Finding>* findings;
  bool patched = false;
  int64_t declared_bytes = 0;
  int64_t external_bytes = 0;
  std::vector<std::string> stripped;
  int64_t stripped_bytes = 0;

  static void zero_fill(onnx::TensorProto& t, size_t need) {
    t.clear_external_data();
    t.set_data_location(onnx::TensorProto::DEFAULT);
    t.clear_float_data();
    t.clear_int32_data();
    t.clear_int64_data();
    t.clear_double_data();
    t.clear_uint64_data();
    t.set_raw_data(std::string(need, '\0'));
  }

  void visit(onnx::TensorProto& t, const std::string& what) {
    if (!dtype_is_valid(t.data_type()) || t.data_type() == static_cast<int>(DType::String)) return;
    int64_t numel = 1;
    for (int64_t d : t.dims()) {
      if (d < 0) return;  // the importer reports it
      numel *= d;
    }
    size_t need = static_cast<size_t>(numel) * dtype_size(static_cast<DType>(t.data_type()));
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {
      std::string location;
      int64_t offset = 0, length = -1;
      for (const auto& kv : t.external_data()) {
        try {
          if (kv.key() == "location") location = kv.value();
          else if (kv.key() == "offset") offset = std::stoll(kv.value());
          else if (kv.key() == "length") length = std::stoll(kv.value());
        } catch (const std::exception&) {
          offset = -1;
        }
      }
      external_bytes += static_cast<int64_t>(need);
      std::string problem, id = "MC-FILE-004";
      fs::path base = fs::weakly_canonical(fs::path(base_dir));
      fs::path full = fs::weakly_canonical(base / location);
      auto rel = full.lexically_relative(base);
      std::error_code ec;
      if (location.empty()) {
        problem = fmt::format("{} uses external data without a location", what);
      } else if (fs::path(location).is_absolute() || rel.empty() || *rel.begin() == "..") {
        problem = fmt::format("{}: external data location '{}' points outside the model's folder {}", what, location,
                              base.string());
      } else if (!fs::is_regular_file(full, ec)) {
        problem = fmt::format("{}: external data file '{}' does not exist (looked for {})", what, location, full.string());
      } else {
        int64_t size = static_cast<int64_t>(fs::file_size(full, ec));
        if (offset < 0 || (length >= 0 && static_cast<size_t>(length) < need)) {
          id = "MC-FILE-005";
          problem = fmt::format("{}: external data record declares {} bytes at offset {} but shape {} needs {} bytes",
                                what, length, offset, dims_str(t), need);
        } else if (offset + static_cast<int64_t>(need) > size) {
          id = "MC-FILE-005";
          problem = fmt::format("{}: external data file '{}' is {} bytes, too short for offset {} + {} bytes", what,
                                location, size, offset, need);
        }
      }
      if (!problem.empty()) {
        findings->push_back(file_finding(id, t.name(), problem));
        zero_fill(t, need);
        patched = true;
      }
      return;
    }
    declared_bytes += static_cast<int64_t>(need);
    if (numel == 0) return;
    size_t have_values = 0;
    bool has_raw = t.has_raw_data() && !t.raw_data().empty();
    if (has_raw) {
      if (t.raw_data().size() != need) {
        findings->push_back(file_finding(
            "MC-FILE-007", t.name(),
            fmt::format("{}: holds {} bytes of data but shape {} of {} needs {}", what, t.raw_data().size(), dims_str(t),
                        dtype_name(static_cast<DType>(t.data_type())), need)));
        zero_fill(t, need);
        patched = true;
      }
      return;
    }
    have_values = static_cast<size_t>(t.float_data_size() + t.int32_data_size() + t.int64_data_size() +
                                      t.double_data_size() + t.uint64_data_size());
    if (have_values == 0) {
      stripped.push_back(t.name().empty() ? what : t.name());
      stripped_bytes += static_cast<int64_t>(need);
      zero_fill(t, need);
      patched = true;
    } else if (have_values != static_cast<size_t>(numel)) {
      findings->push_back(file_finding("MC-FILE-007", t.name(),
                                       fmt::format("{}: holds {} values but shape {} needs {}", what, have_values,
                                                   dims_str(t), numel)));
      zero_fill(t, need);
      patched = true;
    }
  }

  static std::string dims_str(const onnx::TensorProto& t) {
    std::string s = "[";
    for (int i = 0; i < t.dims_size(); ++i) s += (i ? "," : "") + std::to_string(t.dims(i));
    return s + "]";
  }

  void graph(onnx::GraphProto& g) {
    for (auto& t : *g.mutable_initializer()) visit(t, "initializer '" + t.name() + "'");
    for (auto& n : *g.mutable_node()) {
      std::string who = n.name().empty() ? n.op_type() : n.name();
      for (auto& a : *n.mutable_attribute()) {
        if (a.has_t()) visit(*a.mutable_t(), "node " + who + " attribute '" + a.name() + "'");
        for (auto& t : *a.mutable_tensors()) visit(t, "node " + who + " attribute '" + a.name() + "'");
        if (a.has_g()) graph(*a.mutable_g());
        for (auto& sg : *a.mutable_graphs()) graph(sg);
      }
    }
  }
};

// The file's bytes, memory-mapped read-only (no zero-filled 100 MB buffer, no copy through read()).
class MappedFile {
 public:
  ~MappedFile() { close(); }
  void close() {
    if (data_ && size_) ::munmap(data_, size_);
    if (fd_ >= 0) ::close(fd_);
    data_ = nullptr;
    size_ = 0;
    fd_ = -1;
  }
  // false with `error` set when the file cannot be opened or mapped.
  bool open(const std::string& path, std::string& error) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      error = "cannot open the file (permissions?)";
      return false;
    }
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
      error = "cannot read the file";
      return false;
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ == 0) return true;
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (p == MAP_FAILED) {
      size_ = 0;
      error = "cannot map the file into memory";
      return false;
    }
    ::madvise(p, size_, MADV_SEQUENTIAL);
    data_ = p;
    return true;
  }
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

 private:
  int fd_ = -1;
  void* data_ = nullptr;
  size_t size_ = 0;
};

std::optional<Model> import_or_report(const std::function<Model()>& load, const std::string& path,
                                      std::vector<Finding>& findings, bool& unreadable, bool* unsupported) {
  try {
    return load();
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Unsupported) {
      findings.push_back(file_finding("MC-FILE-008", path, e.what()));
      unreadable = true;
      if (unsupported) *unsupported = true;
      return std::nullopt;
    }
    std::string msg = e.what();
    bool trunc = msg.find("truncated") != std::string::npos && msg.find("not a valid") == std::string::npos;
    findings.push_back(file_finding(trunc ? "MC-FILE-002" : "MC-FILE-003", path, msg));
    unreadable = true;
    return std::nullopt;
  } catch (const std::exception& e) {
    std::string msg = e.what();
    bool trunc = msg.find("truncated") != std::string::npos && msg.find("not a valid") == std::string::npos;
    findings.push_back(file_finding(trunc ? "MC-FILE-002" : "MC-FILE-003", path, msg));
    unreadable = true;
    return std::nullopt;
  }
}

}  // namespace

std::optional<Model> load_checked(const std::string& path, std::vector<Finding>& findings, bool& unreadable,
                                  bool* unsupported) {
  std::error_code ec;
  auto unreadable_file = [&](const std::string& msg) -> std::optional<Model> {
    findings.push_back(file_finding("MC-FILE-001", path, msg));
    unreadable = true;
    return std::nullopt;
  };
  if (!fs::exists(path, ec)) return unreadable_file(fmt::format("{}: no such file", path));
  if (fs::is_directory(path, ec)) return unreadable_file(fmt::format("{}: is a directory, not a model file", path));
  std::string ext = fs::path(path).extension().string();
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));

  MappedFile file;
  std::string open_error;
  if (!file.open(path, open_error)) return unreadable_file(fmt::format("{}: {}", path, open_error));
  std::string_view bytes = file.bytes();
  if (bytes.empty()) return unreadable_file(fmt::format("{}: file is empty (0 bytes)", path));

  if (ext == ".mindir" || ext == ".ms" || ext == ".tflite" || ext == ".pb") {
    return import_or_report([&] { return load_model(path); }, path, findings, unreadable, unsupported);
  }

  // ONNX.
  onnx::ModelProto proto;
  bool parsed = bytes.size() < static_cast<size_t>(INT32_MAX) && proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
  if (!parsed) {
    if (looks_truncated(bytes))
      findings.push_back(file_finding(
          "MC-FILE-002", path,
          fmt::format("{}: file is truncated ({} bytes): an ONNX record runs past the end of the file", path,
                      bytes.size())));
    else
      findings.push_back(file_finding(
          "MC-FILE-003", path, fmt::format("{}: not an ONNX model (the bytes are not an ONNX ModelProto)", path)));
    unreadable = true;
    return std::nullopt;
  }
  if (!proto.has_graph()) {
    bool some = proto.ir_version() != 0 || !proto.producer_name().empty();
    findings.push_back(file_finding(
        some ? "MC-FILE-002" : "MC-FILE-003", path,
        some ? fmt::format("{}: the model header is there but the graph is missing: the file is truncated", path)
             : fmt::format("{}: not an ONNX model (no graph)", path)));
    unreadable = true;
    return std::nullopt;
  }

  TensorWalk walk;
  walk.base_dir = fs::path(path).parent_path().string();
  if (walk.base_dir.empty()) walk.base_dir = ".";
  walk.findings = &findings;
  walk.graph(*proto.mutable_graph());
  if (!walk.stripped.empty()) {
    std::string names;
    for (size_t i = 0; i < walk.stripped.size() && i < 5; ++i) names += (i ? ", '" : "'") + walk.stripped[i] + "'";
    if (walk.stripped.size() > 5) names += fmt::format(", ... ({} more)", walk.stripped.size() - 5);
    findings.push_back(file_finding(
        "MC-FILE-006", walk.stripped.front(),
        fmt::format("{}: {} tensor(s) declare {} bytes of weights but hold no data (the file is {} bytes): {}", path,
                    walk.stripped.size(), walk.stripped_bytes, bytes.size(), names)));
  }

  // Import the proto parsed above (patched in place where data was missing): no second parse.
  file.close();  // the proto holds its own copy of everything
  return import_or_report([&] { return onnx_format::import_onnx_proto(proto, path); }, path, findings, unreadable,
                          unsupported);
}

}  // namespace ms::check
