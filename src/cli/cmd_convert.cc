// ms convert: import a model (ONNX, MindIR, TensorFlow frozen graph or TFLite), optionally fix input shapes, clean it up
// (--optimize basic: constant folding + dead-node removal), and write MindIR or ONNX.
#include "cli/cli_util.h"
#include "cli/convert_common.h"

namespace ms::cli {

int cmd_convert(const Args& args) {
  CLI::App app("Import a model and write it as MindIR or ONNX", "convert");
  std::string fmk = "ONNX", save_type = "MINDIR", fp16 = "off", precision = "fp32";
  ConvertOptions o;
  std::string output_names;
  app.add_option("--fmk", fmk, "input format: ONNX|MINDIR|TF|TFLITE")->required();
  app.add_option("--modelFile", o.model_file, "input model")->required();
  app.add_option("--outputFile", o.output_file, "output model (.mindir or .onnx appended when there is no extension)")->required();
  app.add_option("--saveType", save_type, "MINDIR (default) | ONNX (MINDIR_LITE, the .ms FlatBuffers format, is not written: exit 3)");
  app.add_option("--inputShape", o.input_shape,
                 "fix input shapes: \"a:1,3,224,224;b:1,16\"; an input of unknown rank (TF1's unshaped Placeholder) "
                 "takes the rank given, \"keep_prob:[]\" a scalar. ONNX output needs a shape on every input");
  app.add_option("--renameIO", o.rename_io, "rename graph inputs/outputs: \"input:0=input,old=new\" (after --inputShape/--outputNames)");
  app.add_option("--outputNames", output_names, "keep only these outputs: \"a,b\" (TF: node or node:k; default: the unconsumed nodes)");
  app.add_option("--inputLayout", o.input_layout, "TF/TFLITE: layout of 4-D inputs in the result, NHWC (default, as in the file) | NCHW");
  app.add_flag("--keepLayout", o.keep_layout,
               "TF/TFLITE: keep every tensor of the file in its layout (NHWC) under its name: inputs and outputs as in the "
               "file, and the Transposes around each channels-first op are not cancelled (for layer-by-layer comparison "
               "with the original; --optimize general merges them again). Excludes --inputLayout NCHW");
  app.add_option("--optimize", o.optimize, "none | basic (default: constant folding, dead-node removal) | general");
  app.add_option("--fp16", fp16, "on: store float32 weights as float16, computed in float32 (default off)");
  app.add_option("--precision", precision,
                 "fp32 (default) | fp16 | bf16: write the half-precision compute form, activations and weights in "
                 "that type where the op computes in it, normalizations, reductions and Softmax in float32, inputs "
                 "and outputs float32")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  return run_command(app, args, [&] {
    o.in_fmt = parse_model_format(fmk);
    o.output_names = split_list(output_names, ',');
    if (o.input_layout != "NHWC" && o.input_layout != "NCHW") fail("--inputLayout must be NHWC or NCHW, not '{}'", o.input_layout);
    if (is_lite_save_type(save_type))
      fail_unsupported("--saveType {}: MindSpore Lite .ms FlatBuffers output is not written yet; use MINDIR (.mindir) or ONNX", save_type);
    o.out_fmt = parse_model_format(save_type);
    if (o.out_fmt != ModelFormat::Onnx && o.out_fmt != ModelFormat::MindIR)
      fail("--saveType must be MINDIR or ONNX, not '{}'", save_type);
    if (fp16 != "on" && fp16 != "off") fail("--fp16 must be on or off, not '{}'", fp16);
    o.fp16 = fp16 == "on";
    if (o.fp16 && precision != "fp32")
      fail("--fp16 on stores float32 weights as float16; --precision {} already stores them in the half type: give one", precision);
    o.compute_precision = precision_type(precision);
    run_conversion(o);
    return 0;
  });
}

}  // namespace ms::cli
