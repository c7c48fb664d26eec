// TensorFlow frozen GraphDef (.pb) -> IR. Only the part of the graph that the outputs need is
// imported (training and saver leftovers elsewhere in the file are ignored). Images stay NHWC at
// the graph boundary; inside, layout-sensitive ops run NCHW between Transposes that cancel.
#pragma once
#include <string>
#include <vector>

#include "core/graph.h"

namespace ms_tf {
class GraphDef;
}

namespace ms::tf_format {

struct ImportOptions {
  // "node" or "node:k"; empty = every output of the nodes nobody consumes.
  std::vector<std::string> output_names;
  // Keep the file's NHWC tensors: no layout Transposes cancelled (`--keepLayout`).
  bool keep_layout = false;
};

Model load_tf(const std::string& path, const ImportOptions& opts = {});
Model import_graphdef(const ms_tf::GraphDef& g, const std::string& source_path, const ImportOptions& opts = {});

// The op types the importer translates (for README/`ms ops`-style listings and tests).
std::vector<std::string> supported_tf_ops();

}  // namespace ms::tf_format
