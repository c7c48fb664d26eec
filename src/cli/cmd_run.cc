// ms run: one inference (fast kernels unless --reference); writes D/output_<i>.npy per graph output.
#include <filesystem>
#include <iostream>

#include "cli/cli_util.h"
#include "cli/convert_common.h"
#include "cli/feeds.h"
#include "cli/session_model.h"
#include "formats/io/tensor_file.h"
#include "formats/model_io.h"
#include "runtime/session.h"

namespace ms::cli {

int cmd_run(const Args& args) {
  CLI::App app("One inference; writes D/output_<i>.npy per graph output", "run");
  std::string model_file, in_data, output_dir;
  SessionModelFlags model_flags;
  SessionOptions opts;
  app.add_option("--modelFile", model_file, "model to run (.onnx)")->required();
  app.add_option("--inDataFile", in_data, "input files (.pb, .npy or raw .bin), comma-separated, in graph input order");
  add_session_model_flags(app, model_flags);
  app.add_option("--outputDir", output_dir, "folder for output_<i>.npy")->required();
  app.add_flag("--reference", opts.reference_kernels, "run only the reference kernels (the oracle), no fast kernels");
  app.add_option("--numThreads", opts.num_threads, "threads (default: all cores)")->check(CLI::Range(1, 1024));
  return run_command(app, args, [&] {
    // The reference oracle runs the graph as written unless a level is asked for.
    const SessionModel prepared = load_session_model(model_file, model_flags, opts.reference_kernels ? "none" : "cpu");
    use_compute_precision(prepared, opts);
    Session session(prepared.model, opts);
    auto feeds = read_feeds(session, in_data);
    auto outputs = session.run(feeds);
    std::filesystem::create_directories(output_dir);
    for (size_t i = 0; i < outputs.size(); ++i) {
      const auto& name = session.outputs()[i].name;
      const Value& v = outputs[i];
      if (v.is_tensor()) {
        auto path = (std::filesystem::path(output_dir) / fmt::format("output_{}.npy", i)).string();
        io::write_npy(path, v.tensor);
        std::cout << fmt::format("output {} '{}': {} {} -> {}\n", i, name, dtype_name(v.tensor.dtype()),
                                 shape_str(v.tensor.shape()), path);
      } else if (v.is_sequence()) {
        for (size_t j = 0; j < v.sequence.size(); ++j) {
          auto path = (std::filesystem::path(output_dir) / fmt::format("output_{}_{}.npy", i, j)).string();
          io::write_npy(path, v.sequence[j]);
        }
        std::cout << fmt::format("output {} '{}': sequence of {} tensors -> output_{}_<j>.npy\n", i, name,
                                 v.sequence.size(), i);
      } else {
        std::cout << fmt::format("output {} '{}': empty optional (no file)\n", i, name);
      }
    }
    return 0;
  });
}

}  // namespace ms::cli
