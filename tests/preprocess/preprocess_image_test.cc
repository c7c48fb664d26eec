// src/preprocess: images written by stb_image_write with analytic pixel values, decoded and
// preprocessed, checked against closed-form expectations (a linear gradient stays linear under
// bilinear resizing with half-pixel centers; solid colours stay solid; normalization and crop
// are arithmetic on known values).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "formats/io/tensor_file.h"
#include "image_test_util.h"
#include "preprocess/image_folder.h"
#include "preprocess/image_options.h"
#include "preprocess/image_tensor.h"
#include "preprocess/sample_file_writer.h"
#include "test_util.h"

namespace ms {
namespace {

using preprocess::ColorFormat;
using preprocess::HeightWidth;
using preprocess::ImageOptions;
using preprocess::Layout;
using preprocess::ResizeMethod;

// R and G vary along x, B along y: every channel is linear in one coordinate.
int gradient(int64_t y, int64_t x, int64_t c) { return c == 0 ? 10 + 3 * int(x) : c == 1 ? 240 - 2 * int(x) : 5 + 4 * int(y); }
double gradient_at(double y, double x, int64_t c) { return c == 0 ? 10 + 3 * x : c == 1 ? 240 - 2 * x : 5 + 4 * y; }

// Value at NCHW position (c, y, x) of a [1, C, H, W] tensor.
float nchw(const Tensor& t, int64_t c, int64_t y, int64_t x) { return t.data<float>()[(c * t.dim(2) + y) * t.dim(3) + x]; }

class PreprocessImage : public ::testing::Test {
 protected:
  void SetUp() override { dir = test::temp_dir("preprocess_image"); }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string path(const std::string& f) { return (dir / f).string(); }
  std::filesystem::path dir;
};

// Source coordinate of output index d under OpenCV's INTER_LINEAR: half-pixel centers, clamped.
double linear_source(int64_t d, int64_t src, int64_t dst) {
  return std::clamp((double(d) + 0.5) * double(src) / double(dst) - 0.5, 0.0, double(src - 1));
}

TEST_F(PreprocessImage, BilinearResizeOfAGradientIsTheGradientAtTheMappedCoordinate) {
  struct Case { HeightWidth from, to; };
  for (const Case k : {Case{{12, 20}, {6, 10}}, Case{{12, 20}, {5, 7}}, Case{{4, 6}, {9, 15}}, Case{{12, 20}, {12, 20}}}) {
    const std::string f = path(fmt::format("g{}x{}.png", k.from.height, k.from.width));
    test::write_image(f, k.from.height, k.from.width, gradient);
    ImageOptions o;
    o.size = k.to;
    const Tensor t = preprocess::image_to_tensor(f, o);
    ASSERT_EQ(t.shape(), (Shape{1, 3, k.to.height, k.to.width}));
    for (int64_t c = 0; c < 3; ++c)
      for (int64_t y = 0; y < k.to.height; ++y)
        for (int64_t x = 0; x < k.to.width; ++x) {
          const double sy = linear_source(y, k.from.height, k.to.height), sx = linear_source(x, k.from.width, k.to.width);
          ASSERT_NEAR(nchw(t, c, y, x), gradient_at(sy, sx, c), 2e-3)
              << k.from.height << "x" << k.from.width << " -> " << k.to.height << "x" << k.to.width << " c" << c << " y" << y << " x" << x;
        }
  }
}

TEST_F(PreprocessImage, NearestResizePicksTheFloorOfTheScaledIndex) {
  for (const auto& [from, to] : {std::pair<HeightWidth, HeightWidth>{{16, 16}, {8, 32}}, {{12, 16}, {8, 4}}}) {
    const std::string f = path("n.png");
    test::write_image(f, from.height, from.width, gradient);
    ImageOptions o;
    o.size = to;
    o.resize_method = ResizeMethod::Nearest;
    const Tensor t = preprocess::image_to_tensor(f, o);
    for (int64_t c = 0; c < 3; ++c)
      for (int64_t y = 0; y < to.height; ++y)
        for (int64_t x = 0; x < to.width; ++x) {
          const int64_t sy = std::min(y * from.height / to.height, from.height - 1), sx = std::min(x * from.width / to.width, from.width - 1);
          ASSERT_EQ(nchw(t, c, y, x), gradient(sy, sx, c)) << c << " " << y << " " << x;
        }
  }
}

TEST_F(PreprocessImage, SolidColourStaysExactAtAnySizeAndMethod) {
  test::write_image(path("s.bmp"), 7, 13, test::solid(200, 100, 50));
  for (auto method : {ResizeMethod::Linear, ResizeMethod::Nearest})
    for (HeightWidth to : {HeightWidth{3, 3}, HeightWidth{20, 11}, HeightWidth{7, 13}}) {
      ImageOptions o;
      o.size = to;
      o.resize_method = method;
      const Tensor t = preprocess::image_to_tensor(path("s.bmp"), o);
      for (int64_t i = 0; i < t.numel(); ++i) ASSERT_EQ(t.data<float>()[i], (i / (to.height * to.width) == 0 ? 200 : i / (to.height * to.width) == 1 ? 100 : 50));
    }
}

TEST_F(PreprocessImage, MeanStdAndColourFormatArithmetic) {
  test::write_image(path("s.png"), 5, 6, test::solid(200, 100, 50));
  const std::vector<double> mean = {123.675, 116.28, 103.53}, std = {58.395, 57.12, 57.375};
  ImageOptions o;
  o.mean = mean, o.std = std;
  Tensor t = preprocess::image_to_tensor(path("s.png"), o);  // RGB
  const double rgb[3] = {200, 100, 50};
  for (int64_t c = 0; c < 3; ++c) EXPECT_NEAR(nchw(t, c, 4, 5), (rgb[c] - mean[c]) / std[c], 1e-6);
  o.format = ColorFormat::BGR;  // mean/std follow the output channel order: B first
  t = preprocess::image_to_tensor(path("s.png"), o);
  for (int64_t c = 0; c < 3; ++c) EXPECT_NEAR(nchw(t, c, 0, 0), (rgb[2 - c] - mean[c]) / std[c], 1e-6);
  o.format = ColorFormat::GRAY;
  o.mean = {100}, o.std = {2};
  t = preprocess::image_to_tensor(path("s.png"), o);
  ASSERT_EQ(t.shape(), (Shape{1, 1, 5, 6}));
  EXPECT_NEAR(t.data<float>()[7], (0.299 * 200 + 0.587 * 100 + 0.114 * 50 - 100) / 2, 1e-4);
}

TEST_F(PreprocessImage, LayoutPlacesChannelsFirstOrLast) {
  test::write_image(path("g.png"), 3, 4, gradient);
  ImageOptions o;
  const Tensor a = preprocess::image_to_tensor(path("g.png"), o);
  o.layout = Layout::NHWC;
  const Tensor b = preprocess::image_to_tensor(path("g.png"), o);
  ASSERT_EQ(a.shape(), (Shape{1, 3, 3, 4}));
  ASSERT_EQ(b.shape(), (Shape{1, 3, 4, 3}));
  for (int64_t y = 0; y < 3; ++y)
    for (int64_t x = 0; x < 4; ++x)
      for (int64_t c = 0; c < 3; ++c) {
        EXPECT_EQ(a.data<float>()[(c * 3 + y) * 4 + x], gradient(y, x, c));
        EXPECT_EQ(b.data<float>()[(y * 4 + x) * 3 + c], gradient(y, x, c));
      }
}

TEST_F(PreprocessImage, CenterCropTakesTheMiddleRoundedDownAfterResizing) {
  test::write_image(path("g.png"), 11, 14, gradient);
  ImageOptions o;
  o.center_crop = HeightWidth{4, 5};  // top (11-4)/2 = 3, left (14-5)/2 = 4
  Tensor t = preprocess::image_to_tensor(path("g.png"), o);
  ASSERT_EQ(t.shape(), (Shape{1, 3, 4, 5}));
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t y = 0; y < 4; ++y)
      for (int64_t x = 0; x < 5; ++x) ASSERT_EQ(nchw(t, c, y, x), gradient(y + 3, x + 4, c));
  // 12x20 -> 6x10 (exact halving: source x = 2x + 0.5), then the central 2x4 (top 2, left 3).
  test::write_image(path("h.png"), 12, 20, gradient);
  o.size = HeightWidth{6, 10};
  o.center_crop = HeightWidth{2, 4};
  t = preprocess::image_to_tensor(path("h.png"), o);
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t y = 0; y < 2; ++y)
      for (int64_t x = 0; x < 4; ++x) ASSERT_NEAR(nchw(t, c, y, x), gradient_at(2 * (y + 2) + 0.5, 2 * (x + 3) + 0.5, c), 1e-4);
  o.center_crop = HeightWidth{7, 4};  // taller than the resized image
  try {
    preprocess::image_to_tensor(path("h.png"), o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("h.png"), std::string::npos) << e.what();
  }
}

TEST_F(PreprocessImage, JpegDecodesWithinASmallToleranceOfItsSource) {
  // A smooth image: JPEG at quality 95 keeps it within a few levels.
  auto smooth = [](int64_t y, int64_t x, int64_t c) { return int(40 + x + y + 20 * c); };  // 40..190
  test::write_image(path("p.jpg"), 48, 64, smooth);
  const Tensor t = preprocess::image_to_tensor(path("p.jpg"), {});
  ASSERT_EQ(t.shape(), (Shape{1, 3, 48, 64}));
  double worst = 0, sum = 0;
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t y = 0; y < 48; ++y)
      for (int64_t x = 0; x < 64; ++x) {
        const double e = std::fabs(nchw(t, c, y, x) - smooth(y, x, c));
        worst = std::max(worst, e), sum += e;
      }
  EXPECT_LE(worst, 6.0);
  EXPECT_LE(sum / (3 * 48 * 64), 1.5);
}

// The file at `from` with an EXIF APP1 segment holding orientation `o` inserted after its SOI
// marker, in big-endian ("MM") or little-endian ("II") TIFF byte order.
void add_exif_orientation(const std::string& from, const std::string& to, int o, bool little) {
  std::ifstream in(from, std::ios::binary);
  std::string jpeg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto u16 = [&](int v) { return little ? std::string{char(v & 0xFF), char(v >> 8)} : std::string{char(v >> 8), char(v & 0xFF)}; };
  auto u32 = [&](int v) { return little ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF); };
  // TIFF header, then IFD0 with one entry: tag 0x0112 (Orientation), type 3 (SHORT), count 1.
  std::string tiff = std::string(little ? "II" : "MM") + u16(42) + u32(8) + u16(1) + u16(0x0112) + u16(3) + u32(1) +
                     u16(o) + u16(0) + u32(0);
  std::string app1 = std::string("Exif\0\0", 6) + tiff;
  const int len = int(app1.size()) + 2;
  std::string segment = std::string("\xFF\xE1", 2) + char(len >> 8) + char(len & 0xFF) + app1;
  std::ofstream(to, std::ios::binary) << jpeg.substr(0, 2) + segment + jpeg.substr(2);
}

TEST_F(PreprocessImage, JpegsAreTurnedUprightByTheirExifOrientation) {
  // Stored 16 x 32, one colour per quadrant: red top-left, green top-right, blue bottom-left,
  // white bottom-right.
  auto quadrants = [](int64_t y, int64_t x, int64_t c) {
    const int q = (y >= 8 ? 2 : 0) + (x >= 16 ? 1 : 0);
    const int rgb[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
    return rgb[q][c];
  };
  test::write_image(path("q.jpg"), 16, 32, quadrants);
  enum Corner { TL, TR, BL, BR };
  // Where the stored top-left and top-right corners appear once shown upright (EXIF 2.3, tag 0x0112:
  // e.g. 6 = "the 0th row is the visual right-hand side, the 0th column the visual top").
  const Corner where[9][2] = {{}, {TL, TR}, {TR, TL}, {BR, BL}, {BL, BR}, {TL, BL}, {TR, BR}, {BR, TR}, {BL, TL}};
  for (int o = 1; o <= 8; ++o)
    for (bool little : {false, true}) {
      SCOPED_TRACE("orientation " + std::to_string(o) + (little ? " II" : " MM"));
      add_exif_orientation(path("q.jpg"), path("r.jpg"), o, little);
      const Tensor t = preprocess::image_to_tensor(path("r.jpg"), {});
      const int64_t h = t.dim(2), w = t.dim(3);
      ASSERT_EQ(t.shape(), (o >= 5 ? Shape{1, 3, 32, 16} : Shape{1, 3, 16, 32}));
      auto corner_is = [&](Corner k, int r, int g, int b) {
        const int64_t y = k == TL || k == TR ? 1 : h - 2, x = k == TL || k == BL ? 1 : w - 2;
        EXPECT_NEAR(nchw(t, 0, y, x), r, 40) << "corner " << int(k);
        EXPECT_NEAR(nchw(t, 1, y, x), g, 40) << "corner " << int(k);
        EXPECT_NEAR(nchw(t, 2, y, x), b, 40) << "corner " << int(k);
      };
      corner_is(where[o][0], 255, 0, 0);  // the stored top-left (red)
      corner_is(where[o][1], 0, 255, 0);  // the stored top-right (green)
    }
}

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(PreprocessImage, BadFilesAndFoldersAreErrorsNamingTheFile) {
  std::ofstream(path("notes.png")) << "not an image at all";
  EXPECT_NE(error_of([&] { preprocess::image_to_tensor(path("notes.png"), {}); }).find("notes.png"), std::string::npos);
  // A PNG cut in half: the signature is right, the data is not.
  test::write_image(path("whole.png"), 32, 32, gradient);
  std::string bytes;
  {
    std::ifstream f(path("whole.png"), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(f), {});
  }
  std::ofstream(path("cut.png"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  const std::string cut = error_of([&] { preprocess::image_to_tensor(path("cut.png"), {}); });
  EXPECT_NE(cut.find("cut.png"), std::string::npos) << cut;

  const auto imgs = test::temp_dir("preprocess_folder");
  EXPECT_NE(error_of([&] { preprocess::list_images(imgs.string()); }).find("no images"), std::string::npos);
  test::write_image((imgs / "b.png").string(), 2, 2, gradient);
  test::write_image((imgs / "a.BMP").string(), 2, 2, gradient);
  const auto listed = preprocess::list_images(imgs.string());
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(std::filesystem::path(listed[0]).filename(), "a.BMP");  // sorted by name
  std::ofstream(imgs / "readme.txt") << "hello";
  EXPECT_NE(error_of([&] { preprocess::list_images(imgs.string()); }).find("readme.txt"), std::string::npos);
  EXPECT_TRUE(preprocess::holds_images(imgs.string()));
  std::filesystem::remove_all(imgs);
}

TEST(PreprocessOptions, ParsersRefuseBadValues) {
  EXPECT_EQ(preprocess::parse_height_width("--size", "224,160"), (HeightWidth{224, 160}));
  for (const char* bad : {"0,224", "224", "224,", "a,b", "224,224,3", "-1,4", "70000,4"})
    EXPECT_THROW(preprocess::parse_height_width("--size", bad), Error) << bad;
  EXPECT_EQ(preprocess::parse_channel_values("m", "[127.5, 1, 2]"), (std::vector<double>{127.5, 1, 2}));
  EXPECT_THROW(preprocess::parse_channel_values("m", "1,,2"), Error);
  EXPECT_THROW(preprocess::parse_channel_values("m", "1,x"), Error);
  ImageOptions o;
  o.mean = {1, 2};
  EXPECT_THROW(preprocess::check_normalization(o, ColorFormat::RGB), Error);
  o.mean = {1};
  EXPECT_NO_THROW(preprocess::check_normalization(o, ColorFormat::GRAY));
  o.std = {0};
  EXPECT_THROW(preprocess::check_normalization(o, ColorFormat::GRAY), Error);
  EXPECT_THROW(preprocess::parse_color_format("YUV"), Error);
  try {
    preprocess::parse_resize_method("CUBIC");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
  }
}

TEST_F(PreprocessImage, SampleFileWriterStreamsANpyWithASampleAxisAndCleansUpOnFailure) {
  Tensor a(DType::Float32, {1, 2, 3, 4}), b(DType::Float32, {1, 2, 3, 4});
  for (int64_t i = 0; i < a.numel(); ++i) a.data<float>()[i] = float(i), b.data<float>()[i] = -float(i) * 0.5f;
  {
    preprocess::SampleFileWriter w(path("s.npy"), 2);
    w.add(a);
    w.add(b);
    w.commit();
  }
  const Tensor all = io::read_npy(path("s.npy"));
  ASSERT_EQ(all.shape(), (Shape{2, 2, 3, 4}));
  for (int64_t i = 0; i < a.numel(); ++i) {
    EXPECT_EQ(all.data<float>()[i], a.data<float>()[i]);
    EXPECT_EQ(all.data<float>()[a.numel() + i], b.data<float>()[i]);
  }
  {
    preprocess::SampleFileWriter w(path("t.bin"), 3);
    w.add(a);  // destroyed before the other two and commit()
  }
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);  // only s.npy
  EXPECT_THROW(preprocess::SampleFileWriter(path("x.txt"), 1), Error);
}

}  // namespace
}  // namespace ms
