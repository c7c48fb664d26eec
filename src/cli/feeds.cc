#include "cli/feeds.h"

#include "analysis/input_samples.h"
#include "cli/cli_util.h"
#include "formats/io/tensor_file.h"

namespace ms::cli {

std::vector<Value> read_feeds(const Session& session, const std::string& list) {
  const auto& inputs = session.inputs();
  std::vector<Value> feeds;
  if (list.empty()) {
    // Seeded inputs for a quick run when no data is given (floats in [0,1), integers in [0,9]).
    std::vector<ValueInfo> required;
    for (size_t i = 0; i < inputs.size() && !session.input_has_default(i); ++i) required.push_back(inputs[i]);
    analysis::RandomInputOptions random;
    random.seed = 42;
    return analysis::random_inputs(required, random).sample(0);
  }
  auto files = split_list(list);
  size_t required = 0;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!session.input_has_default(i)) required = i + 1;
  if (files.size() < required || files.size() > inputs.size()) {
    std::string names;
    for (size_t i = 0; i < required; ++i) names += (i ? ", " : "") + inputs[i].name + " " + inputs[i].type.str();
    fail("the model needs {} input file(s) ({}) but --inDataFile gives {}", required, names, files.size());
  }
  for (size_t i = 0; i < files.size(); ++i) {
    Value v = io::read_tensor_file(files[i], inputs[i].type, inputs[i].name);
    try {
      check_input_value(inputs[i], v);
    } catch (const Error& e) {
      fail("{}: {}", files[i], e.what());
    }
    feeds.push_back(std::move(v));
  }
  return feeds;
}

}  // namespace ms::cli
