#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <fstream>

#include "formats/io/tensor_file.h"
#include "formats/onnx/onnx_tensor.h"
#include "test_util.h"

namespace ms {
namespace {

void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(Npy, RoundTripKeepsDtypeShapeAndValues) {
  auto dir = test::temp_dir("npy");
  Tensor t = Tensor::from_vector<int64_t>({1, -2, 3, 4, 5, 6}, {2, 3});
  io::write_npy((dir / "a.npy").string(), t);
  Tensor r = io::read_npy((dir / "a.npy").string());
  EXPECT_EQ(r.dtype(), DType::Int64);
  EXPECT_EQ(r.shape(), (Shape{2, 3}));
  EXPECT_EQ(r.to_int64_vector(), t.to_int64_vector());
  // Header is padded so that the data starts on a 64-byte boundary, as NumPy writes it.
  std::string bytes = io::npy_bytes(t);
  EXPECT_EQ((bytes.size() - t.nbytes()) % 64, 0u);
}

TEST(Npy, ParsesAHandWrittenNumpyHeader) {
  // What numpy.save writes for np.array([[1.5, -2.0]], dtype=np.float32).
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
  float vals[2] = {1.5f, -2.0f};
  bytes.append(reinterpret_cast<const char*>(vals), 8);
  Tensor t = io::parse_npy(bytes, "inline");
  EXPECT_EQ(t.shape(), (Shape{1, 2}));
  EXPECT_EQ(t.data<float>()[1], -2.0f);
}

TEST(Npy, TruncatedDataIsAnError) {
  std::string bytes = io::npy_bytes(Tensor::from_vector<float>({1, 2, 3}, {3}));
  EXPECT_THROW(io::parse_npy(bytes.substr(0, bytes.size() - 4), "cut.npy"), Error);
  EXPECT_THROW(io::parse_npy("not numpy at all", "x.npy"), Error);
}

TEST(Pb, ReadsTensorProtoWithTypedFields) {
  auto dir = test::temp_dir("pb");
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::FLOAT);
  p.add_dims(3);
  for (float v : {1.0f, 2.0f, 3.5f}) p.add_float_data(v);
  write_bytes(dir / "t.pb", p.SerializeAsString());
  Value v = io::read_pb((dir / "t.pb").string());
  ASSERT_TRUE(v.is_tensor());
  EXPECT_EQ(v.tensor.to_double_vector(), (std::vector<double>{1.0, 2.0, 3.5}));
}

TEST(Pb, FieldCountMismatchIsAnError) {
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::INT64);
  p.add_dims(4);
  p.add_int64_data(1);
  EXPECT_THROW(onnx_format::tensor_from_proto(p, "", "t"), Error);
}

TEST(Bin, RawDataTakesShapeFromTheModelInput) {
  auto dir = test::temp_dir("bin");
  float vals[6] = {0, 1, 2, 3, 4, 5};
  write_bytes(dir / "x.bin", std::string(reinterpret_cast<const char*>(vals), sizeof vals));
  TypeInfo type = TypeInfo::tensor(DType::Float32, Shape{2, 3});
  Tensor t = io::read_bin((dir / "x.bin").string(), type, "x");
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.data<float>()[5], 5.0f);
  TypeInfo wrong = TypeInfo::tensor(DType::Float32, Shape{2, 4});
  EXPECT_THROW(io::read_bin((dir / "x.bin").string(), wrong, "x"), Error);
}

TEST(ExternalData, PathsOutsideTheModelFolderAreRefused) {
  auto dir = test::temp_dir("ext");
  onnx::TensorProto p;
  p.set_name("w");
  p.set_data_type(onnx::TensorProto::FLOAT);
  p.add_dims(1);
  p.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* kv = p.add_external_data();
  kv->set_key("location");
  kv->set_value("../../etc/passwd");
  EXPECT_THROW(onnx_format::tensor_from_proto(p, dir.string(), "w"), Error);
  // Inside the folder it works, and a short file is reported.
  float one = 1.0f;
  write_bytes(dir / "w.bin", std::string(reinterpret_cast<const char*>(&one), 4));
  kv->set_value("w.bin");
  Tensor t = onnx_format::tensor_from_proto(p, dir.string(), "w");
  EXPECT_EQ(t.data<float>()[0], 1.0f);
  p.set_dims(0, 2);
  EXPECT_THROW(onnx_format::tensor_from_proto(p, dir.string(), "w"), Error);
}

}  // namespace
}  // namespace ms
