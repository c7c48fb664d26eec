// `ms preprocess` and `ms quant --inputFile <image folder>` end to end: tensor values against
// analytic expectations for solid-colour images, the two routes (a file written by preprocess, the
// folder calibrated on the fly, the MindSpore Lite config file) calibrating on the same data, bad
// input refused with exit 2 and nothing written, and memory independent of the number of images.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <random>

#include "formats/io/tensor_file.h"
#include "formats/model_io.h"
#include "image_test_util.h"
#include "test_util.h"

namespace ms {
namespace {

namespace fs = std::filesystem;

// Conv 3->4 (3x3, pad 1) then GlobalAveragePool: a tiny output, so the accuracy probe's stored
// float outputs do not grow memory with the sample count either.
Model conv_gap_model(int64_t hw) {
  Model m;
  m.opsets[""] = 17;
  m.graph.name = "conv_gap";
  m.graph.inputs = {test::tensor_info("x", DType::Float32, {1, 3, hw, hw})};
  m.graph.outputs = {test::tensor_info("y", DType::Float32, {1, 4, 1, 1})};
  Tensor w(DType::Float32, {4, 3, 3, 3});
  std::mt19937 g(7);
  std::normal_distribution<float> d(0, 0.5f);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = d(g);
  m.graph.initializers["W"] = w;
  m.graph.initializers["B"] = Tensor::from_vector<float>({0.1f, -0.2f, 0.3f, 0.0f}, {4});
  Node conv = test::make_node("Conv", {"x", "W", "B"}, {"c"}, "conv");
  conv.attrs["pads"] = Attribute::of_ints({1, 1, 1, 1});
  m.graph.nodes = {conv, test::make_node("GlobalAveragePool", {"c"}, {"y"}, "gap")};
  return m;
}

const int kColours[3][3] = {{10, 20, 30}, {250, 128, 0}, {90, 200, 60}};

class PreprocessCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = test::temp_dir("preprocess_cli");
    fs::create_directories(dir / "imgs");
    fs::create_directories(dir / "out");
    // Different sizes and formats; sorted by name they are colours 0, 1, 2.
    test::write_image(path("imgs/a.png"), 20, 24, test::solid(10, 20, 30));
    test::write_image(path("imgs/b.bmp"), 31, 17, test::solid(250, 128, 0));
    test::write_image(path("imgs/c.PNG"), 16, 16, test::solid(90, 200, 60));
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string path(const std::string& f) { return (dir / f).string(); }
  test::CmdResult ms(const std::string& a) { return test::run_command(std::string(MS_BINARY) + " " + a + " 2>&1"); }
  bool out_is_empty() { return fs::is_empty(dir / "out"); }
  static constexpr const char* kNorm = " --mean 127.5,127.5,127.5 --std 127.5,127.5,127.5";
  fs::path dir;
};

TEST_F(PreprocessCli, WritesSamplesWithTheExpectedValues) {
  auto r = ms("preprocess --imageDir " + path("imgs") + " --size 8,8" + kNorm + " --outputFile " + path("out/calib.bin"));
  ASSERT_EQ(r.code, 0) << r.output;
  ASSERT_EQ(fs::file_size(path("out/calib.bin")), 3u * 3 * 8 * 8 * 4);
  std::vector<float> v(3 * 3 * 64);
  std::ifstream(path("out/calib.bin"), std::ios::binary).read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * 4));
  for (size_t i = 0; i < v.size(); ++i) {
    const size_t s = i / 192, c = i / 64 % 3;
    ASSERT_NEAR(v[i], (kColours[s][c] - 127.5) / 127.5, 1e-6) << i;
  }
  r = ms("preprocess --imageDir " + path("imgs") + " --size 5,6 --imageFormat BGR --layout NHWC --limit 2 --outputFile " + path("out/calib.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  const Tensor t = io::read_npy(path("out/calib.npy"));
  ASSERT_EQ(t.shape(), (Shape{2, 5, 6, 3}));
  for (int64_t i = 0; i < t.numel(); ++i) ASSERT_EQ(t.data<float>()[i], kColours[i / 90][2 - i % 3]) << i;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "out"), {}), 2);  // no temporaries left
}

TEST_F(PreprocessCli, BadInputExits2NamingTheFileAndWritesNothing) {
  const std::string out = " --outputFile " + path("out/calib.bin");
  auto expect_2 = [&](const std::string& args, const std::string& named) {
    auto r = ms("preprocess " + args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << args << "\n" << r.output;
    EXPECT_TRUE(out_is_empty()) << args;
  };
  expect_2("--imageDir " + path("imgs") + " --size 0,8" + out, "--size");
  expect_2("--imageDir " + path("imgs") + " --size 8,8 --mean 1,2" + out, "--mean");
  expect_2("--imageDir " + path("imgs") + " --size 8,8 --std 1,0,1" + out, "--std");
  expect_2("--imageDir " + path("imgs") + out, "b.bmp");  // sizes differ and no --size
  expect_2("--imageDir " + path("imgs") + " --size 8,8 --outputFile " + path("out/calib.txt"), "calib.txt");
  expect_2("--imageDir " + path("missing") + out, "missing");
  fs::create_directories(dir / "empty");
  expect_2("--imageDir " + path("empty") + out, "empty");
  // A corrupt image last in order: two samples were already streamed to the temporary file.
  std::ofstream(path("imgs/d.png")) << "\x89PNG\r\n\x1A\n but nothing after the signature";
  expect_2("--imageDir " + path("imgs") + " --size 8,8" + out, "d.png");
  fs::remove(path("imgs/d.png"));
  std::ofstream(path("imgs/notes.txt")) << "a text file";
  expect_2("--imageDir " + path("imgs") + " --size 8,8" + out, "notes.txt");
}

nlohmann::json read_json(const std::string& p) { return nlohmann::json::parse(std::ifstream(p)); }

// The observed range of the model input x, as the report states it.
std::pair<double, double> input_range(const nlohmann::json& report) {
  for (const auto& l : report["layers"])
    for (const auto& a : l["activations"])
      if (a["tensor"] == "x") return {a["observed"][0].get<double>(), a["observed"][1].get<double>()};
  ADD_FAILURE() << "no activation x in the report";
  return {0, 0};
}

class QuantImageFolder : public PreprocessCli {
 protected:
  void SetUp() override {
    PreprocessCli::SetUp();
    save_model(conv_gap_model(8), path("m.onnx"), ModelFormat::Onnx);
  }
  test::CmdResult quant(const std::string& inputs, const std::string& report) {
    return ms("quant --modelFile " + path("m.onnx") + " --quantType FULL_QUANT --saveType ONNX --outputFile " +
              path("out/" + report + ".onnx") + " --report " + path("out/" + report + ".json") + " " + inputs);
  }
};

TEST_F(QuantImageFolder, CalibratesOnExactlyWhatPreprocessWrites) {
  ASSERT_EQ(ms("preprocess --imageDir " + path("imgs") + " --size 8,8" + kNorm + " --outputFile " + path("calib.npy")).code, 0);
  auto r = quant("--inputFile " + path("calib.npy"), "from_file");
  ASSERT_EQ(r.code, 0) << r.output;
  r = quant("--inputFile " + path("imgs") + kNorm, "from_folder");  // the size comes from the model input
  ASSERT_EQ(r.code, 0) << r.output;
  std::ofstream(path("lite.cfg")) << "[data_preprocess_param]\ncalibrate_path=x:" << path("imgs")
                                  << "\ninput_type=IMAGE\nimage_to_format=RGB\nnormalize_mean=[127.5, 127.5, 127.5]\n"
                                     "normalize_std=[127.5, 127.5, 127.5]\nresize_width=8\nresize_height=8\n";
  r = quant("--configFile " + path("lite.cfg"), "from_config");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto a = read_json(path("out/from_file.json")), b = read_json(path("out/from_folder.json")),
             c = read_json(path("out/from_config.json"));
  EXPECT_EQ(a["calibration_samples"], 3);
  EXPECT_EQ(a["layers"], b["layers"]);
  EXPECT_EQ(a["layers"], c["layers"]);
  EXPECT_EQ(a["final"], b["final"]);
  // Independent of both routes: the solid colours span 0..250 in pixel units.
  const auto [lo, hi] = input_range(b);
  EXPECT_NEAR(lo, -1.0, 1e-6);
  EXPECT_NEAR(hi, (250 - 127.5) / 127.5, 1e-6);

  // Without image_to_format MindSpore Lite feeds OpenCV's BGR: the same as --imageFormat BGR.
  ASSERT_EQ(ms("preprocess --imageDir " + path("imgs") + " --size 8,8 --imageFormat BGR --outputFile " + path("bgr.bin")).code, 0);
  std::ofstream(path("bgr.cfg")) << "[data_preprocess_param]\ncalibrate_path=x:" << path("imgs") << "\ninput_type=IMAGE\n";
  ASSERT_EQ(quant("--inputFile " + path("bgr.bin"), "bgr_file").code, 0);
  r = quant("--configFile " + path("bgr.cfg"), "bgr_config");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(read_json(path("out/bgr_file.json"))["layers"], read_json(path("out/bgr_config.json"))["layers"]);
  EXPECT_NE(read_json(path("out/bgr_file.json"))["layers"], read_json(path("out/from_folder.json"))["layers"]);
}

TEST_F(QuantImageFolder, BadInputExits2AndWritesNothing) {
  ASSERT_EQ(ms("preprocess --imageDir " + path("imgs") + " --size 8,8 --outputFile " + path("calib.bin")).code, 0);
  auto expect_2 = [&](const std::string& args, const std::string& named) {
    auto r = quant(args, "q");
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << args << "\n" << r.output;
    EXPECT_TRUE(out_is_empty()) << args;
  };
  expect_2("--inputFile " + path("calib.bin") + " --size 8,8", "image");               // image flags, tensor file
  expect_2("--inputFile " + path("imgs") + " --size 4,4", "'x'");                        // not the input's size
  expect_2("--inputFile " + path("imgs") + " --imageFormat GRAY", "--imageFormat");      // 1 channel for a 3-channel input
  expect_2("--inputFile " + path("imgs") + " --mean 1,2,3,4", "--mean");
  std::ofstream(path("imgs/zz.txt")) << "a text file";
  expect_2("--inputFile " + path("imgs"), "zz.txt");
}

// Peak resident memory (KiB) of one `ms` run.
long peak_rss_kib(const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1), dup2(null, 2);
    std::vector<char*> argv = {const_cast<char*>(MS_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(MS_BINARY, argv.data());
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return ru.ru_maxrss;
}

TEST_F(QuantImageFolder, MemoryDoesNotGrowWithTheNumberOfImages) {
  // 320x240 images (0.9 MB each as floats) into a 96x96 input (110 KB per sample): holding the
  // 200 decoded images would add about 180 MB, holding the 200 samples about 22 MB.
  save_model(conv_gap_model(96), path("m96.onnx"), ModelFormat::Onnx);
  for (int n : {20, 200}) {
    const fs::path d = dir / ("many" + std::to_string(n));
    fs::create_directories(d);
    for (int i = 0; i < n; ++i)
      test::write_image((d / fmt::format("{:03}.jpg", i)).string(), 240, 320,
                        [i](int64_t y, int64_t x, int64_t c) { return int((x * (c + 1) + y * 2 + i * 13) % 256); });
  }
  auto run = [&](int n) {
    return peak_rss_kib({"quant", "--modelFile", path("m96.onnx"), "--quantType", "FULL_QUANT", "--saveType", "ONNX",
                         "--inputFile", path("many" + std::to_string(n)), "--outputFile", path("q" + std::to_string(n) + ".onnx")});
  };
  const long few = run(20), many = run(200);
  ASSERT_GT(few, 0);
  ASSERT_GT(many, 0);
  std::cout << "peak RSS of ms quant: 20 images " << few << " KiB, 200 images " << many << " KiB\n";
  EXPECT_LT(many - few, 8 * 1024) << "peak RSS grew from " << few << " KiB to " << many << " KiB";
}

}  // namespace
}  // namespace ms
