// ms convert: import a model, optionally fix input shapes, and write it.
#include <filesystem>
#include <iostream>

#include "cli/cli_util.h"
#include "formats/model_io.h"

namespace ms::cli {

namespace {

// "a:1,3,224,224;b:1,16" -> fixes those inputs' dims.
void apply_input_shapes(Model& m, const std::string& spec) {
  for (const auto& item : split_list(spec, ';')) {
    auto colon = item.rfind(':');
    if (colon == std::string::npos) fail("--inputShape entry '{}' must look like name:1,3,224,224", item);
    std::string name = item.substr(0, colon);
    ValueInfo* in = nullptr;
    for (auto& v : m.graph.inputs)
      if (v.name == name) in = &v;
    if (!in) fail("--inputShape names '{}', which is not an input of the model", name);
    std::vector<Dim> dims;
    for (const auto& d : split_list(item.substr(colon + 1), ',')) {
      try {
        dims.push_back(Dim::fixed(std::stoll(d)));
      } catch (const std::exception&) {
        fail("--inputShape: '{}' is not a dimension in '{}'", d, item);
      }
    }
    if (in->type.shape && in->type.shape->size() != dims.size())
      fail("--inputShape gives input '{}' rank {} but the model declares {}", name, dims.size(), in->type.str());
    in->type.shape = dims;
  }
}

}  // namespace

int cmd_convert(const Args& args) {
  CLI::App app("Import a model and write it in another format", "convert");
  std::string fmk = "ONNX", model_file, output_file, save_type = "MINDIR", input_shape, optimize = "basic", fp16;
  app.add_option("--fmk", fmk, "input format: ONNX|MINDIR|TFLITE|TF")->required();
  app.add_option("--modelFile", model_file, "input model")->required();
  app.add_option("--outputFile", output_file, "output model (extension added when missing)")->required();
  app.add_option("--saveType", save_type, "MINDIR|ONNX");
  app.add_option("--inputShape", input_shape, "fix input shapes: \"a:1,3,224,224;b:1,16\"");
  app.add_option("--optimize", optimize, "none|basic|general");
  app.add_option("--fp16", fp16, "on|off");
  return run_command(app, args, [&] {
    ModelFormat out_fmt = parse_model_format(save_type);
    if (out_fmt != ModelFormat::Onnx && out_fmt != ModelFormat::MindIR)
      fail("--saveType must be MINDIR or ONNX, not '{}'", save_type);
    if (optimize != "none" && optimize != "basic" && optimize != "general")
      fail("--optimize must be none, basic or general, not '{}'", optimize);
    Model m = load_model(model_file, parse_model_format(fmk));
    if (!input_shape.empty()) apply_input_shapes(m, input_shape);
    std::string out = output_file;
    if (std::filesystem::path(out).extension().empty()) out += out_fmt == ModelFormat::Onnx ? ".onnx" : ".mindir";
    if (std::filesystem::exists(out) && std::filesystem::equivalent(out, model_file))
      fail("--outputFile {} is the input model; choose another path", out);
    save_model(m, out, out_fmt);
    std::cout << "wrote " << out << "\n";
    return 0;
  });
}

}  // namespace ms::cli
