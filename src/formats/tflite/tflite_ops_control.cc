// TFLite control flow: IF and WHILE call other subgraphs of the file by index. They become the
// IR's If and Loop, with the subgraphs imported as branch / body graphs that read the enclosing
// graph's values by name (TFLite passes them as subgraph inputs).
#include "formats/tflite/tflite_context.h"

namespace ms::tflite_format {

namespace {

// IR subgraph outputs must be values the subgraph computes: a body that hands an input (or an
// outer value) straight back gets an Identity.
void add_outputs(TfliteContext& c, Graph& g, const std::vector<std::string>& values, const std::vector<TypeInfo>& types,
                 const std::string& prefix) {
  std::set<std::string> computed;
  for (const auto& n : g.nodes) computed.insert(n.outputs.begin(), n.outputs.end());
  importer::GraphBuilder gb(g);
  for (size_t k = 0; k < values.size(); ++k) {
    std::string v = values[k];
    if (!computed.count(v) || std::count(values.begin(), values.begin() + static_cast<long>(k), v)) {
      std::string name = c.b.unique_name(prefix + "output_" + std::to_string(k));
      gb.add_node("Identity", {v}, {name});
      v = name;
    }
    g.outputs.push_back({v, types[k]});
  }
}

std::vector<TypeInfo> output_types(TfliteContext& c, int subgraph) {
  std::vector<TypeInfo> types;
  const auto& sg = c.subgraph(subgraph);
  if (sg.outputs())
    for (int idx : *sg.outputs()) types.push_back(c.tensor_type(subgraph, idx));
  return types;
}

// IF: input 0 is the condition, the others are the inputs of both branch subgraphs.
void convert_if(TfliteContext& c, const Op& op) {
  const auto* o = op.builtin_options_as_IfOptions();
  if (!o) fail("has no IfOptions");
  std::string cond = c.input(op, 0);
  std::vector<std::string> args;
  for (size_t i = 1; i < op.inputs()->size(); ++i) args.push_back(c.input(op, i));
  const std::string base = c.out_hint(op, 0);
  auto branch = [&](int index, const char* which) {
    auto g = std::make_shared<Graph>();
    g->name = base + "/" + which;
    std::string prefix = g->name + "/";
    std::vector<std::string> outs = c.import_subgraph(index, *g, args, prefix);
    std::vector<TypeInfo> types = output_types(c, index);
    if (outs.size() != op.outputs()->size())
      fail("{} subgraph {} has {} outputs, the operator {}", which, index, outs.size(), op.outputs()->size());
    add_outputs(c, *g, outs, types, prefix);
    return g;
  };
  auto then_g = branch(o->then_subgraph_index(), "then");
  auto else_g = branch(o->else_subgraph_index(), "else");
  std::vector<std::string> outs;
  for (size_t k = 0; k < op.outputs()->size(); ++k) outs.push_back(c.b.unique_name(c.out_hint(op, k)));
  c.b.add_node("If", {cond}, outs, {{"then_branch", Attribute::of_graph(then_g)}, {"else_branch", Attribute::of_graph(else_g)}});
  for (size_t k = 0; k < outs.size(); ++k) c.set_output(op, k, outs[k]);
}

// WHILE: while (cond(v)) v = body(v). The IR's Loop tests its condition input before the first
// iteration and the body's condition output before each next one, so cond runs once on the
// initial values in the enclosing graph and once more inside the body, after it.
void convert_while(TfliteContext& c, const Op& op) {
  const auto* o = op.builtin_options_as_WhileOptions();
  if (!o) fail("has no WhileOptions");
  const int cond_sg = o->cond_subgraph_index(), body_sg = o->body_subgraph_index();
  std::vector<std::string> init;
  for (size_t i = 0; i < op.inputs()->size(); ++i) init.push_back(c.input(op, i));
  if (op.outputs()->size() != init.size()) fail("has {} inputs but {} outputs", init.size(), op.outputs()->size());
  const std::string base = c.out_hint(op, 0) + "/while";

  std::vector<std::string> first = c.import_subgraph(cond_sg, c.b.graph(), init, base + "/cond_initial/");
  if (first.size() != 1) fail("cond subgraph {} has {} outputs, not 1", cond_sg, first.size());

  auto body = std::make_shared<Graph>();
  body->name = base + "/body";
  const auto& bsg = c.subgraph(body_sg);
  if (!bsg.inputs() || bsg.inputs()->size() != init.size())
    fail("body subgraph {} takes {} inputs, the operator passes {}", body_sg, bsg.inputs() ? bsg.inputs()->size() : 0, init.size());
  body->inputs.push_back({c.b.unique_name(base + "/iteration"), TypeInfo::tensor(DType::Int64, std::vector<Dim>{})});
  body->inputs.push_back({c.b.unique_name(base + "/cond_in"), TypeInfo::tensor(DType::Bool, std::vector<Dim>{})});
  std::vector<std::string> carried;
  for (size_t i = 0; i < init.size(); ++i) {
    carried.push_back(c.b.unique_name(base + "/carried_" + std::to_string(i)));
    body->inputs.push_back({carried.back(), c.tensor_type(body_sg, bsg.inputs()->Get(static_cast<uint32_t>(i)))});
  }
  std::vector<std::string> next = c.import_subgraph(body_sg, *body, carried, base + "/body/");
  if (next.size() != init.size()) fail("body subgraph {} has {} outputs, the loop carries {}", body_sg, next.size(), init.size());
  std::vector<std::string> again = c.import_subgraph(cond_sg, *body, next, base + "/cond/");
  std::vector<std::string> body_outs{again.at(0)};
  body_outs.insert(body_outs.end(), next.begin(), next.end());
  std::vector<TypeInfo> types{TypeInfo::tensor(DType::Bool, std::vector<Dim>{})};
  for (const auto& t : output_types(c, body_sg)) types.push_back(t);
  add_outputs(c, *body, body_outs, types, base + "/body/");

  std::vector<std::string> loop_inputs{"", first[0]};
  loop_inputs.insert(loop_inputs.end(), init.begin(), init.end());
  std::vector<std::string> outs;
  for (size_t k = 0; k < op.outputs()->size(); ++k) outs.push_back(c.b.unique_name(c.out_hint(op, k)));
  c.b.add_node("Loop", loop_inputs, outs, {{"body", Attribute::of_graph(body)}});
  for (size_t k = 0; k < outs.size(); ++k) c.set_output(op, k, outs[k]);
}

}  // namespace

void add_control_flow_converters(ConverterTables& t) {
  t.builtin[mstflite::BuiltinOperator_IF] = convert_if;
  t.builtin[mstflite::BuiltinOperator_WHILE] = convert_while;
}

}  // namespace ms::tflite_format
