// TFLite IF/WHILE on hand-built multi-subgraph flatbuffers: a loop whose body calls itself is
// rejected (no endless recursion), quantized tensors crossing into a branch are reported as
// unsupported, bad subgraph indices name the operator, and ops unsupported inside a body are listed
// with the others. (Correct results of WHILE/IF against TFLite's runtime: tests/tflite.)
#include <gtest/gtest.h>

#include "core/error.h"
#include "formats/tflite/tflite_importer.h"
#include "tflite_schema_generated.h"

namespace ms {
namespace {

using flatbuffers::Offset;

// One flatbuffer with several subgraphs; tensors are float32 [1] unless said otherwise.
struct MultiGraphBuilder {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<Offset<mstflite::Buffer>> buffers{mstflite::CreateBuffer(fbb)};
  std::vector<Offset<mstflite::OperatorCode>> codes;
  std::vector<Offset<mstflite::SubGraph>> subgraphs;

  uint32_t code(mstflite::BuiltinOperator op) {
    codes.push_back(mstflite::CreateOperatorCode(fbb, static_cast<int8_t>(std::min<int>(op, 127)), 0, 1, op));
    return static_cast<uint32_t>(codes.size() - 1);
  }
  struct Sub {
    std::vector<Offset<mstflite::Tensor>> tensors;
    std::vector<Offset<mstflite::Operator>> ops;
  };
  int tensor(Sub& s, const std::string& name, mstflite::TensorType type = mstflite::TensorType_FLOAT32, bool quantized = false) {
    Offset<mstflite::QuantizationParameters> q = 0;
    if (quantized) q = mstflite::CreateQuantizationParameters(fbb, 0, 0, fbb.CreateVector(std::vector<float>{0.1f}),
                                                              fbb.CreateVector(std::vector<int64_t>{0}));
    s.tensors.push_back(mstflite::CreateTensor(fbb, fbb.CreateVector(std::vector<int32_t>{1}), type, 0, fbb.CreateString(name), q));
    return static_cast<int>(s.tensors.size() - 1);
  }
  void op(Sub& s, uint32_t code, const std::vector<int32_t>& in, const std::vector<int32_t>& out,
          mstflite::BuiltinOptions type = mstflite::BuiltinOptions_NONE, Offset<void> options = 0) {
    s.ops.push_back(mstflite::CreateOperator(fbb, code, fbb.CreateVector(in), fbb.CreateVector(out), type, options));
  }
  void add(Sub& s, const std::vector<int32_t>& in, const std::vector<int32_t>& out, const std::string& name) {
    subgraphs.push_back(mstflite::CreateSubGraph(fbb, fbb.CreateVector(s.tensors), fbb.CreateVector(in), fbb.CreateVector(out),
                                                 fbb.CreateVector(s.ops), fbb.CreateString(name)));
  }
  std::string finish() {
    auto model = mstflite::CreateModel(fbb, 3, fbb.CreateVector(codes), fbb.CreateVector(subgraphs), fbb.CreateString("test"),
                                       fbb.CreateVector(buffers));
    mstflite::FinishModelBuffer(fbb, model);
    return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
  }
};

Error import_error(const std::string& bytes) {
  try {
    tflite_format::import_tflite_bytes(std::make_shared<const std::string>(bytes), "cf.tflite");
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "the import succeeded";
  return Error(ErrorCode::Internal, "");
}

// main: y = WHILE(cond 1, body 2)(x); cond: LESS(v, v); body: WHILE(cond 1, body `body_calls`)(v).
std::string while_model(int body_calls, mstflite::BuiltinOperator cond_op = mstflite::BuiltinOperator_LESS) {
  MultiGraphBuilder b;
  uint32_t w = b.code(mstflite::BuiltinOperator_WHILE), c = b.code(cond_op);
  MultiGraphBuilder::Sub main, cond, body;
  int x = b.tensor(main, "x"), y = b.tensor(main, "y");
  b.op(main, w, {x}, {y}, mstflite::BuiltinOptions_WhileOptions, mstflite::CreateWhileOptions(b.fbb, 1, 2).Union());
  b.add(main, {x}, {y}, "main");
  int v = b.tensor(cond, "v"), more = b.tensor(cond, "more", mstflite::TensorType_BOOL);
  b.op(cond, c, {v, v}, {more});
  b.add(cond, {v}, {more}, "cond");
  int u = b.tensor(body, "u"), u2 = b.tensor(body, "u2");
  b.op(body, w, {u}, {u2}, mstflite::BuiltinOptions_WhileOptions, mstflite::CreateWhileOptions(b.fbb, 1, body_calls).Union());
  b.add(body, {u}, {u2}, "body");
  return b.finish();
}

TEST(TfliteControlFlow, ABodyThatCallsItselfIsRejected) {
  Error e = import_error(while_model(2));
  EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
  EXPECT_NE(std::string(e.what()).find("subgraph 2 ('body') calls itself (0 -> 2 -> 2)"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("cf.tflite: operator #0 'y' (WHILE)"), std::string::npos) << e.what();
}

TEST(TfliteControlFlow, ASubgraphIndexOutOfRangeNamesTheOperator) {
  Error e = import_error(while_model(7));
  EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
  EXPECT_NE(std::string(e.what()).find("subgraph index 7 out of range"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("WHILE"), std::string::npos) << e.what();
}

TEST(TfliteControlFlow, UnsupportedOpsInsideBodiesAreListed) {
  Error e = import_error(while_model(2, mstflite::BuiltinOperator_LSH_PROJECTION));
  EXPECT_EQ(e.code(), ErrorCode::Unsupported);
  EXPECT_NE(std::string(e.what()).find("LSH_PROJECTION"), std::string::npos) << e.what();
}

TEST(TfliteControlFlow, QuantizedTensorsIntoABranchAreUnsupported) {
  MultiGraphBuilder b;
  uint32_t if_code = b.code(mstflite::BuiltinOperator_IF), neg = b.code(mstflite::BuiltinOperator_NEG);
  MultiGraphBuilder::Sub main, branch;
  int flag = b.tensor(main, "flag", mstflite::TensorType_BOOL), x = b.tensor(main, "x", mstflite::TensorType_INT8, true);
  int y = b.tensor(main, "y", mstflite::TensorType_INT8, true);
  b.op(main, if_code, {flag, x}, {y}, mstflite::BuiltinOptions_IfOptions, mstflite::CreateIfOptions(b.fbb, 1, 1).Union());
  b.add(main, {flag, x}, {y}, "main");
  int v = b.tensor(branch, "v", mstflite::TensorType_INT8, true), w = b.tensor(branch, "w", mstflite::TensorType_INT8, true);
  b.op(branch, neg, {v}, {w});
  b.add(branch, {v}, {w}, "branch");
  Error e = import_error(b.finish());
  EXPECT_EQ(e.code(), ErrorCode::Unsupported);
  EXPECT_NE(std::string(e.what()).find("quantized"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace ms
