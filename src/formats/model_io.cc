#include "formats/model_io.h"

#include <filesystem>
#include <fstream>

#include "formats/import_builder.h"
#include "formats/mindir/mindir_reader.h"
#include "formats/mindir/mindir_writer.h"
#include "formats/onnx/onnx_exporter.h"
#include "formats/onnx/onnx_importer.h"
#include "formats/tf/tf_importer.h"
#include "formats/tflite/tflite_importer.h"

namespace ms {

namespace fs = std::filesystem;

ModelFormat parse_model_format(const std::string& fmk) {
  std::string f = fmk;
  for (auto& c : f) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (f == "ONNX") return ModelFormat::Onnx;
  if (f == "MINDIR") return ModelFormat::MindIR;
  if (f == "TFLITE") return ModelFormat::TFLite;
  if (f == "TF") return ModelFormat::TF;
  fail("unknown model format '{}': use ONNX, MINDIR, TFLITE or TF", fmk);
}

namespace {
ModelFormat format_from_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  if (ext == ".mindir" || ext == ".ms") return ModelFormat::MindIR;
  if (ext == ".tflite") return ModelFormat::TFLite;
  if (ext == ".pb") return ModelFormat::TF;
  return ModelFormat::Onnx;
}
}  // namespace

Model load_model(const std::string& path, ModelFormat fmt, const LoadOptions& opts) {
  if (!fs::exists(path)) fail("{}: no such file", path);
  if (fs::is_directory(path)) fail("{}: is a directory, not a model file", path);
  if (fmt == ModelFormat::Auto) fmt = format_from_extension(path);
  switch (fmt) {
    case ModelFormat::Onnx: return onnx_format::load_onnx(path);
    case ModelFormat::MindIR: return mindir::load_mindir(path);
    case ModelFormat::TFLite:
    case ModelFormat::TF: {
      if (opts.input_layout != "NHWC" && opts.input_layout != "NCHW")
        fail("input layout must be NHWC or NCHW, not '{}'", opts.input_layout);
      if (opts.keep_layout && opts.input_layout != "NHWC") fail("keeping the file's layout excludes input layout {}", opts.input_layout);
      Model m = fmt == ModelFormat::TF ? tf_format::load_tf(path, {opts.output_names, opts.keep_layout})
                                       : tflite_format::load_tflite(path, opts.keep_layout);
      if (opts.input_layout == "NCHW") importer::inputs_to_channels_first(m);
      return m;
    }
    default: fail("{}: unknown model format", path);
  }
}

std::string save_model(const Model& model, const std::string& path, ModelFormat fmt) {
  if (fmt == ModelFormat::Auto) fmt = format_from_extension(path);
  std::string bytes;
  switch (fmt) {
    case ModelFormat::Onnx: bytes = onnx_format::export_onnx_bytes(model); break;
    case ModelFormat::MindIR: return mindir::save_mindir(model, path);
    default: fail_unsupported("{}: this format can only be read, not written", path);
  }
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) fail("{}: cannot write file", path);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f) {
      f.close();
      fs::remove(tmp);
      fail("{}: write failed", path);
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    fail("{}: cannot move the written file into place", path);
  }
  return path;
}

}  // namespace ms
