// MindSpore Lite's quantization config file (converter_lite --configFile): INI sections
// [common_quant_param], [full_quant_param] and [data_preprocess_param] with MindSpore's key names,
// translated into `ms quant` flags so that the command line can override any of them.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ms::quant {

struct QuantConfigFile {
  std::map<std::string, std::string> flags;  // "--bitNum" -> "8", ...
  // calibrate_path: (model input name, folder of one-sample files) in file order.
  std::vector<std::pair<std::string, std::string>> calibrate_path;
  std::optional<size_t> calibrate_size;
};

// Unknown sections are ignored (MindSpore's config also configures conversion); an unknown key in a
// quantization section, a bad value or an unreadable file is InvalidInput naming the file and line;
// input_type=IMAGE maps its preprocessing keys onto the image flags (--size, --centerCrop, --mean,
// --std, --imageFormat, --resizeMethod), with MindSpore Lite's BGR when image_to_format is absent.
QuantConfigFile read_quant_config(const std::string& path);

}  // namespace ms::quant
