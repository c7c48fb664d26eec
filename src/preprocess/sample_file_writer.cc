#include "preprocess/sample_file_writer.h"

#include <unistd.h>

#include <filesystem>

#include "core/error.h"

namespace ms::preprocess {
namespace fs = std::filesystem;

namespace {

// NumPy format 1.0: magic, version, header length, a dict literal padded so the data is 64-aligned.
std::string npy_header(const Shape& shape) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.resize(dims.size() - 2);
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  dict.append((64 - (10 + dict.size() + 1) % 64) % 64, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += char(dict.size() & 0xff);
  out += char((dict.size() >> 8) & 0xff);
  return out + dict;
}

}  // namespace

SampleFileWriter::SampleFileWriter(std::string path, size_t count) : path_(std::move(path)), count_(count) {
  const std::string ext = fs::path(path_).extension().string();
  if (ext != ".bin" && ext != ".npy") fail("--outputFile {}: must end in .bin (raw float32) or .npy", path_);
  npy_ = ext == ".npy";
  std::error_code ec;
  if (fs::is_directory(path_, ec)) fail("--outputFile {} is a folder; give a .bin or .npy file", path_);
  const fs::path parent = fs::path(path_).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec)) fail("--outputFile {}: the folder {} does not exist", path_, parent.string());
  tmp_ = path_ + ".tmp." + std::to_string(::getpid());
  f_ = std::fopen(tmp_.c_str(), "wb");
  if (!f_) fail("--outputFile {}: cannot write {}", path_, tmp_);
}

SampleFileWriter::~SampleFileWriter() {
  if (f_) {
    std::fclose(f_);
    std::error_code ec;
    fs::remove(tmp_, ec);
  }
}

void SampleFileWriter::write(const void* data, size_t bytes) {
  if (std::fwrite(data, 1, bytes, f_) != bytes) fail("--outputFile {}: write failed (disk full?)", path_);
}

void SampleFileWriter::add(const Tensor& sample) {
  if (added_ == count_) fail("--outputFile {}: more samples than the {} announced", path_, count_);
  if (added_ == 0) {
    shape_ = sample.shape();
    if (npy_) {
      Shape all = shape_;
      if (!all.empty() && all[0] == 1) all.erase(all.begin());
      all.insert(all.begin(), int64_t(count_));
      const std::string h = npy_header(all);
      write(h.data(), h.size());
    }
  } else if (sample.shape() != shape_) {
    fail("--outputFile {}: sample {} has shape {} but the first had {}", path_, added_, shape_str(sample.shape()), shape_str(shape_));
  }
  write(sample.data<float>(), sample.nbytes());
  ++added_;
}

void SampleFileWriter::commit() {
  if (added_ != count_) fail("--outputFile {}: {} of {} samples written", path_, added_, count_);
  const bool ok = std::fflush(f_) == 0 && ::fsync(fileno(f_)) == 0;
  std::fclose(f_);
  f_ = nullptr;
  std::error_code ec;
  if (ok) fs::rename(tmp_, path_, ec);
  if (!ok || ec) {
    fs::remove(tmp_, ec);
    fail("--outputFile {}: cannot move the written data into place", path_);
  }
}

}  // namespace ms::preprocess
