// ms preprocess: a folder of images -> one calibration tensor file (DESIGN.md §1, §7). Images are
// decoded one at a time and streamed to a temporary file renamed into place, so neither memory nor
// a failure halfway depends on how many there are. `ms quant --inputFile <image folder>` runs the
// same chain (src/preprocess/image_tensor.h) on the fly.
#include <algorithm>
#include <iostream>
#include <limits>

#include "cli/cli_util.h"
#include "cli/preprocess_flags.h"
#include "preprocess/image_folder.h"
#include "preprocess/image_tensor.h"
#include "preprocess/sample_file_writer.h"

namespace ms::cli {

int cmd_preprocess(const Args& args) {
  CLI::App app("Images -> calibration tensor file: decode (JPEG, PNG, BMP), colour format, resize, center crop, "
               "normalize, layout; float32 samples back to back (.bin) or with a leading sample axis (.npy)",
               "preprocess");
  std::string image_dir, output_file;
  int64_t limit = 0;
  PreprocessFlags pf;
  app.add_option("--imageDir", image_dir, "folder of images (every file a .jpg/.jpeg/.png/.bmp), taken sorted by name")->required();
  app.add_option("--outputFile", output_file, "calib.bin (float32 samples back to back) or calib.npy ([N, C, H, W])")->required();
  app.add_option("--limit", limit, "only the first N images by name (MindSpore Lite calibrate_size)")
      ->check(CLI::Range(int64_t(1), std::numeric_limits<int64_t>::max()));
  add_preprocess_flags(app, pf, "default NCHW");
  return run_command(app, args, [&] {
    preprocess::ImageOptions o = image_options(pf);
    o.format = o.format.value_or(preprocess::ColorFormat::RGB);
    o.layout = o.layout.value_or(preprocess::Layout::NCHW);
    preprocess::check_normalization(o, *o.format);
    auto files = preprocess::list_images(image_dir);
    if (limit > 0 && size_t(limit) < files.size()) files.resize(size_t(limit));
    preprocess::SampleFileWriter out(output_file, files.size());
    Shape shape;
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    double sum = 0;
    for (size_t i = 0; i < files.size(); ++i) {
      const Tensor t = preprocess::image_to_tensor(files[i], o);
      if (i == 0) shape = t.shape();
      else if (t.shape() != shape)
        fail("{}: comes out {} but {} came out {}; give --size HEIGHT,WIDTH to bring every image to one size", files[i],
             shape_str(t.shape()), files[0], shape_str(shape));
      const float* p = t.data<float>();
      for (int64_t k = 0; k < t.numel(); ++k) lo = std::min(lo, p[k]), hi = std::max(hi, p[k]), sum += p[k];
      out.add(t);
      std::cerr << fmt::format("\rpreprocessing {}/{} images", i + 1, files.size()) << (i + 1 == files.size() ? "\n" : "") << std::flush;
    }
    out.commit();
    std::cout << fmt::format("preprocess {}: {} image(s) -> {}\n", image_dir, files.size(), output_file);
    std::cout << fmt::format("  sample:  float32 {} ({}, {})\n", shape_str(shape), preprocess::layout_name(*o.layout),
                             preprocess::color_format_name(*o.format));
    std::cout << fmt::format("  values:  min {:.6g}, max {:.6g}, mean {:.6g}\n", lo, hi,
                             sum / double(shape_numel(shape)) / double(files.size()));
    return 0;
  });
}

}  // namespace ms::cli
