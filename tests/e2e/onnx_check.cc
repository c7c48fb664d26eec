// ONNX's own checker on ONNX files, with the full check of Python's
// onnx.checker.check_model(model, full_check=True): the structural check, then strict shape
// inference with type checks. Usage: ms_onnx_check FILE.onnx...; exit 1 naming the first file that
// fails (tests/e2e/onnx_writers_ort.js runs it on every ONNX file `ms` writes there).
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: ms_onnx_check FILE.onnx...\n";
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    std::ifstream f(argv[i], std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    onnx::ModelProto m;
    if (!f || !m.ParseFromString(ss.str())) {
      std::cerr << argv[i] << ": not an ONNX model\n";
      return 1;
    }
    try {
      onnx::checker::check_model(m);
      onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), onnx::ShapeInferenceOptions(true, 1, false));
    } catch (const std::exception& e) {
      std::cerr << argv[i] << ": " << e.what() << "\n";
      return 1;
    }
  }
  return 0;
}
