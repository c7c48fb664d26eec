#include "quant/config_file.h"

#include <fstream>
#include <set>

#include "core/error.h"
#include "preprocess/image_options.h"

namespace ms::quant {
namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

bool is_unsigned(const std::string& v) { return !v.empty() && v.find_first_not_of("0123456789") == std::string::npos; }

}  // namespace

QuantConfigFile read_quant_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail("--configFile {}: cannot open the file", path);
  QuantConfigFile c;
  std::string line, section;
  int line_no = 0;
  const std::set<std::string> ours = {"common_quant_param", "full_quant_param", "data_preprocess_param"};
  // Image preprocessing keys, mapped onto flags once input_type is known (it may come after them).
  std::string input_type;
  std::map<std::string, std::string> image_flags;
  std::map<std::string, std::string> image_dims;  // resize_width, ... -> value
  int image_line = 0;
  while (std::getline(in, line)) {
    ++line_no;
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    auto where = [&] { return fmt::format("--configFile {}:{}", path, line_no); };
    if (line.front() == '[') {
      if (line.back() != ']') fail("{}: section header '{}' lacks its ']'", where(), line);
      section = trim(line.substr(1, line.size() - 2));
      continue;
    }
    if (!ours.count(section)) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) fail("{}: expected key=value, got '{}'", where(), line);
    const std::string key = trim(line.substr(0, eq)), v = trim(line.substr(eq + 1));
    auto number = [&](const char* flag) {
      if (!is_unsigned(v)) fail("{}: {} must be a non-negative integer, not '{}'", where(), key, v);
      c.flags[flag] = v;
    };
    auto boolean = [&](const char* flag) {
      if (v != "true" && v != "false") fail("{}: {} must be true or false, not '{}'", where(), key, v);
      c.flags[flag] = v;
    };
    if (section == "common_quant_param") {
      if (key == "quant_type") c.flags["--quantType"] = v;
      else if (key == "bit_num") number("--bitNum");
      else if (key == "min_quant_weight_size") number("--minQuantWeightSize");
      else if (key == "min_quant_weight_channel") number("--minQuantWeightChannel");
      else if (key == "skip_quant_node") c.flags["--skipNodes"] = v;
      else if (key == "debug_info_save_path") continue;  // MindSpore's debug dump; --report is ours
      else fail("{}: unknown key '{}' in [common_quant_param]", where(), key);
    } else if (section == "full_quant_param") {
      if (key == "activation_quant_method") {
        // REMOVAL_OUTLIER is MindSpore's percentile clipping.
        if (v == "MAX_MIN" || v == "KL") c.flags["--calibMethod"] = v;
        else if (v == "REMOVAL_OUTLIER") c.flags["--calibMethod"] = "PERCENTILE";
        else fail("{}: activation_quant_method must be MAX_MIN, KL or REMOVAL_OUTLIER, not '{}'", where(), v);
      } else if (key == "bias_correction") boolean("--biasCorrection");
      else if (key == "per_channel") boolean("--perChannel");
      else if (key == "target_device") continue;  // MindSpore's backend choice: one CPU runtime here
      else fail("{}: unknown key '{}' in [full_quant_param]", where(), key);
    } else {  // data_preprocess_param
      if (key == "calibrate_path") {
        size_t start = 0;
        while (start <= v.size()) {
          const size_t comma = v.find(',', start);
          const std::string item = trim(v.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
          const auto colon = item.find(':');
          if (colon == std::string::npos || colon == 0 || colon + 1 == item.size())
            fail("{}: calibrate_path entries are input_name:folder, got '{}'", where(), item);
          c.calibrate_path.emplace_back(item.substr(0, colon), item.substr(colon + 1));
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
      } else if (key == "calibrate_size") {
        if (!is_unsigned(v) || v == "0") fail("{}: calibrate_size must be a positive integer, not '{}'", where(), v);
        c.calibrate_size = std::stoull(v);
      } else if (key == "input_type") {
        if (v != "IMAGE" && v != "BIN") fail("{}: input_type must be IMAGE or BIN, not '{}'", where(), v);
        input_type = v;
      } else if (key == "image_to_format") {
        if (v != "RGB" && v != "BGR" && v != "GRAY") fail("{}: image_to_format must be RGB, BGR or GRAY, not '{}'", where(), v);
        image_flags["--imageFormat"] = v, image_line = line_no;
      } else if (key == "resize_method") {
        if (v == "CUBIC") fail_unsupported("{}: resize_method=CUBIC is not implemented; use LINEAR or NEAREST", where());
        if (v != "LINEAR" && v != "NEAREST") fail("{}: resize_method must be LINEAR, NEAREST or CUBIC, not '{}'", where(), v);
        image_flags["--resizeMethod"] = v, image_line = line_no;
      } else if (key == "normalize_mean" || key == "normalize_std") {
        preprocess::parse_channel_values(where() + ": " + key, v);  // checked here to name the line
        image_flags[key == "normalize_mean" ? "--mean" : "--std"] = v, image_line = line_no;
      } else if (key == "resize_width" || key == "resize_height" || key == "center_crop_width" || key == "center_crop_height") {
        if (!is_unsigned(v) || v == "0" || v.size() > 5 || std::stoi(v) > 65535)
          fail("{}: {} must be an integer in [1, 65535], not '{}'", where(), key, v);
        image_dims[key] = v, image_line = line_no;
      } else {
        fail("{}: unknown key '{}' in [data_preprocess_param]", where(), key);
      }
    }
  }
  // MindSpore Lite reads images with OpenCV (BGR) and converts only for image_to_format=RGB|GRAY.
  if (input_type == "IMAGE" || (input_type.empty() && image_line > 0)) {
    auto pair = [&](const char* height, const char* width, const char* flag) {
      const bool h = image_dims.count(height), w = image_dims.count(width);
      if (h != w) fail("--configFile {}: {} and {} go together; give both", path, height, width);
      if (h) c.flags[flag] = image_dims[height] + "," + image_dims[width];
    };
    pair("resize_height", "resize_width", "--size");
    pair("center_crop_height", "center_crop_width", "--centerCrop");
    for (const auto& [flag, value] : image_flags) c.flags[flag] = value;
    if (!image_flags.count("--imageFormat")) c.flags["--imageFormat"] = "BGR";
  }
  return c;
}

}  // namespace ms::quant
