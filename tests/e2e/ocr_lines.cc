// Test data and scoring for PaddleOCR with int8 (tests/e2e/ocr_int8_accuracy.sh): renders known
// text with a TrueType font (stb_truetype, DejaVu from fonts-dejavu-core), preprocesses it the way
// PaddleOCR does, and scores model outputs against the known text.
//
//   ocr_lines lines FONT_DIR SEED N OUT      text lines -> OUT.npy [N,3,48,320] + OUT.txt (one string a line)
//   ocr_lines pages FONT_DIR SEED N SIZE OUT pages of lines -> OUT.npy [N,3,SIZE,SIZE]
//   ocr_lines read  DICT PROBS.npy TRUTH.txt CTC-greedy decode of [N,T,C] -> character accuracy (%)
//   ocr_lines cosine A.npy B.npy             cosine similarity of two tensors of the same size
//
// Rec preprocessing (PaddleOCR's resize_norm_img): resize to height 48 keeping the aspect ratio
// (bilinear, width ceil(48 * w / h) capped at 320), (x / 255 - 0.5) / 0.5, pad right with 0 to 320.
// Det preprocessing (PaddleOCR's det NormalizeImage): (x / 255 - mean) / std with ImageNet mean/std.
#define STB_TRUETYPE_IMPLEMENTATION
#include <stb/stb_truetype.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int kRecH = 48, kRecW = 320;

[[noreturn]] void die(const std::string& m) {
  std::cerr << "ocr_lines: " << m << "\n";
  std::exit(2);
}

std::vector<unsigned char> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) die("cannot read " + path);
  return {std::istreambuf_iterator<char>(f), {}};
}

struct Font {
  std::vector<unsigned char> data;
  stbtt_fontinfo info{};
  explicit Font(const std::string& path) : data(read_file(path)) {
    if (!stbtt_InitFont(&info, data.data(), stbtt_GetFontOffsetForIndex(data.data(), 0))) die("not a TrueType font: " + path);
  }
};

// Coverage (0..1) of `text` at pixel height `px`: the tight box around the ink plus `margin` pixels.
struct Coverage {
  int w = 0, h = 0;
  std::vector<float> a;
};

Coverage render(const Font& f, const std::string& text, float px, int margin) {
  const float scale = stbtt_ScaleForPixelHeight(&f.info, px);
  int ascent, descent, gap;
  stbtt_GetFontVMetrics(&f.info, &ascent, &descent, &gap);
  const int base = int(std::ceil(ascent * scale));
  const int line_h = base + int(std::ceil(-descent * scale));
  float width = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    int adv, lsb;
    stbtt_GetCodepointHMetrics(&f.info, text[i], &adv, &lsb);
    width += adv * scale;
    if (i + 1 < text.size()) width += scale * stbtt_GetCodepointKernAdvance(&f.info, text[i], text[i + 1]);
  }
  Coverage c;
  c.w = int(std::ceil(width)) + 2 * margin + 2;
  c.h = line_h + 2 * margin;
  c.a.assign(size_t(c.w) * c.h, 0.f);
  float x = float(margin);
  std::vector<unsigned char> glyph;
  for (size_t i = 0; i < text.size(); ++i) {
    int adv, lsb, x0, y0, x1, y1;
    stbtt_GetCodepointHMetrics(&f.info, text[i], &adv, &lsb);
    const float shift = x - std::floor(x);
    stbtt_GetCodepointBitmapBoxSubpixel(&f.info, text[i], scale, scale, shift, 0, &x0, &y0, &x1, &y1);
    const int gw = x1 - x0, gh = y1 - y0;
    if (gw > 0 && gh > 0) {
      glyph.assign(size_t(gw) * gh, 0);
      stbtt_MakeCodepointBitmapSubpixel(&f.info, glyph.data(), gw, gh, gw, scale, scale, shift, 0, text[i]);
      for (int yy = 0; yy < gh; ++yy)
        for (int xx = 0; xx < gw; ++xx) {
          const int px_x = int(std::floor(x)) + x0 + xx, px_y = margin + base + y0 + yy;
          if (px_x < 0 || px_y < 0 || px_x >= c.w || px_y >= c.h) continue;
          float& d = c.a[size_t(px_y) * c.w + px_x];
          d = std::max(d, glyph[size_t(yy) * gw + xx] / 255.f);
        }
    }
    x += adv * scale;
    if (i + 1 < text.size()) x += scale * stbtt_GetCodepointKernAdvance(&f.info, text[i], text[i + 1]);
  }
  return c;
}

// An RGB image, channel-last, values 0..255.
struct Image {
  int w = 0, h = 0;
  std::vector<float> px;  // h * w * 3
  float& at(int y, int x, int ch) { return px[(size_t(y) * w + x) * 3 + ch]; }
  float at(int y, int x, int ch) const { return px[(size_t(y) * w + x) * 3 + ch]; }
};

struct Style {
  float paper[3], ink[3], noise;
};

Style random_style(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(0, 1);
  Style s{};
  const float paper = 185 + 65 * u(rng), ink = 10 + 80 * u(rng);
  for (int ch = 0; ch < 3; ++ch) s.paper[ch] = std::min(255.f, paper + 12 * (u(rng) - 0.5f)), s.ink[ch] = ink + 20 * u(rng);
  s.noise = 2 + 8 * u(rng);
  return s;
}

// Paints `cov` at (x0, y0) onto `img` in ink over the existing pixels.
void paint(Image& img, const Coverage& cov, int x0, int y0, const Style& s) {
  for (int y = 0; y < cov.h; ++y)
    for (int x = 0; x < cov.w; ++x) {
      const int iy = y0 + y, ix = x0 + x;
      if (iy < 0 || ix < 0 || iy >= img.h || ix >= img.w) continue;
      const float a = cov.a[size_t(y) * cov.w + x];
      for (int ch = 0; ch < 3; ++ch) img.at(iy, ix, ch) = img.at(iy, ix, ch) * (1 - a) + s.ink[ch] * a;
    }
}

Image blank(int w, int h, const Style& s) {
  Image img{w, h, std::vector<float>(size_t(w) * h * 3)};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int ch = 0; ch < 3; ++ch) img.at(y, x, ch) = s.paper[ch];
  return img;
}

void add_noise(Image& img, float sigma, std::mt19937& rng) {
  std::normal_distribution<float> n(0, sigma);
  for (auto& v : img.px) v = std::round(std::clamp(v + n(rng), 0.f, 255.f));  // 8-bit pixels, as decoded images are
}

// Bilinear resize with half-pixel centres (OpenCV's INTER_LINEAR, which PaddleOCR uses).
Image resize(const Image& in, int w, int h) {
  Image out{w, h, std::vector<float>(size_t(w) * h * 3)};
  const float sx = float(in.w) / w, sy = float(in.h) / h;
  for (int y = 0; y < h; ++y) {
    const float fy = std::clamp((y + 0.5f) * sy - 0.5f, 0.f, float(in.h - 1));
    const int y0 = int(fy), y1 = std::min(y0 + 1, in.h - 1);
    const float dy = fy - y0;
    for (int x = 0; x < w; ++x) {
      const float fx = std::clamp((x + 0.5f) * sx - 0.5f, 0.f, float(in.w - 1));
      const int x0 = int(fx), x1 = std::min(x0 + 1, in.w - 1);
      const float dx = fx - x0;
      for (int ch = 0; ch < 3; ++ch)
        out.at(y, x, ch) = std::round((in.at(y0, x0, ch) * (1 - dx) + in.at(y0, x1, ch) * dx) * (1 - dy) +
                                      (in.at(y1, x0, ch) * (1 - dx) + in.at(y1, x1, ch) * dx) * dy);
    }
  }
  return out;
}

void write_npy(const std::string& path, const std::vector<float>& data, const std::vector<int64_t>& shape) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) dims += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  if (!f) die("cannot write " + path);
  f.write("\x93NUMPY\x01\x00", 8);
  const uint16_t len = uint16_t(header.size());
  f.write(reinterpret_cast<const char*>(&len), 2);
  f << header;
  f.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size() * sizeof(float)));
  if (!f) die("cannot write " + path);
}

struct Npy {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

Npy read_npy(const std::string& path) {
  const auto bytes = read_file(path);
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) die(path + ": not a .npy file");
  size_t hlen, off;
  if (bytes[6] == 1) hlen = bytes[8] | (bytes[9] << 8), off = 10;
  else hlen = bytes[8] | (bytes[9] << 8) | (size_t(bytes[10]) << 16) | (size_t(bytes[11]) << 24), off = 12;
  const std::string header(bytes.begin() + off, bytes.begin() + off + hlen);
  if (header.find("'<f4'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos)
    die(path + ": expected little-endian float32 in C order");
  Npy n;
  const auto open = header.find('(', header.find("'shape'")), close = header.find(')', open);
  std::stringstream ss(header.substr(open + 1, close - open - 1));
  std::string tok;
  while (std::getline(ss, tok, ','))
    if (tok.find_first_not_of(' ') != std::string::npos) n.shape.push_back(std::stoll(tok));
  int64_t count = 1;
  for (auto d : n.shape) count *= d;
  if (bytes.size() < off + hlen + size_t(count) * 4) die(path + ": truncated");
  n.data.resize(size_t(count));
  std::memcpy(n.data.data(), bytes.data() + off + hlen, size_t(count) * 4);
  return n;
}

// Random text of Latin letters, digits and punctuation in a few word shapes.
std::string random_text(std::mt19937& rng) {
  static const std::string lower = "abcdefghijklmnopqrstuvwxyz", upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", digits = "0123456789",
                           punct = ".,:;-/()%+!?#&";
  std::uniform_int_distribution<int> words(1, 3), len(2, 7), kind(0, 9);
  auto pick = [&](const std::string& s) { return s[std::uniform_int_distribution<size_t>(0, s.size() - 1)(rng)]; };
  std::string out;
  const int n = words(rng);
  for (int w = 0; w < n; ++w) {
    if (w) out += ' ';
    const int k = kind(rng), l = len(rng);
    std::string word;
    if (k < 5) {  // a word, sometimes capitalised
      word += k < 2 ? pick(upper) : pick(lower);
      for (int i = 1; i < l; ++i) word += pick(lower);
    } else if (k < 7) {  // a number, sometimes with a decimal point or unit
      for (int i = 0; i < std::min(l, 5); ++i) word += pick(digits);
      if (k == 6) word.insert(word.size() / 2 + 1, 1, '.');
    } else if (k < 8) {
      for (int i = 0; i < std::min(l, 4); ++i) word += pick(upper);
    } else {  // a code: letters and digits mixed
      for (int i = 0; i < std::min(l, 6); ++i) word += i % 2 ? pick(digits) : pick(upper);
    }
    if (kind(rng) < 3) word += pick(punct);
    out += word;
  }
  return out;
}

const char* const kFonts[] = {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf",
                              "DejaVuSansMono.ttf"};

std::vector<Font> load_fonts(const std::string& dir) {
  std::vector<Font> fonts;
  for (const char* f : kFonts) fonts.emplace_back(dir + "/" + f);
  return fonts;
}

int cmd_lines(const std::string& font_dir, unsigned seed, int n, const std::string& out) {
  const auto fonts = load_fonts(font_dir);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0, 1);
  std::vector<float> batch(size_t(n) * 3 * kRecH * kRecW, 0.f);
  std::ofstream txt(out + ".txt");
  for (int i = 0; i < n; ++i) {
    const std::string text = random_text(rng);
    const Font& font = fonts[size_t(u(rng) * std::size(kFonts)) % std::size(kFonts)];
    const Style s = random_style(rng);
    const Coverage cov = render(font, text, 28 + 16 * u(rng), 2 + int(6 * u(rng)));
    Image img = blank(cov.w, cov.h, s);
    paint(img, cov, 0, 0, s);
    add_noise(img, s.noise, rng);
    const int w = std::min(kRecW, int(std::ceil(kRecH * float(img.w) / img.h)));
    const Image r = resize(img, w, kRecH);
    float* dst = batch.data() + size_t(i) * 3 * kRecH * kRecW;
    for (int ch = 0; ch < 3; ++ch)
      for (int y = 0; y < kRecH; ++y)
        for (int x = 0; x < w; ++x)  // PaddleOCR feeds BGR; the grey-ish pages make the order nearly moot, but keep it
          dst[(size_t(ch) * kRecH + y) * kRecW + x] = (r.at(y, x, 2 - ch) / 255.f - 0.5f) / 0.5f;
    txt << text << "\n";
  }
  write_npy(out + ".npy", batch, {n, 3, kRecH, kRecW});
  return 0;
}

int cmd_pages(const std::string& font_dir, unsigned seed, int n, int size, const std::string& out) {
  const auto fonts = load_fonts(font_dir);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0, 1);
  const float mean[3] = {0.485f, 0.456f, 0.406f}, stdv[3] = {0.229f, 0.224f, 0.225f};
  std::vector<float> batch(size_t(n) * 3 * size * size);
  for (int i = 0; i < n; ++i) {
    const Style s = random_style(rng);
    Image img = blank(size, size, s);
    float y = 8 + 20 * u(rng);
    while (true) {
      const Font& font = fonts[size_t(u(rng) * std::size(kFonts)) % std::size(kFonts)];
      const Coverage cov = render(font, random_text(rng) + " " + random_text(rng), size / 40.f + size / 25.f * u(rng), 2);
      if (y + cov.h > size - 8) break;
      paint(img, cov, int(8 + size * 0.3f * u(rng)), int(y), s);
      y += cov.h * (1.2f + 0.8f * u(rng));
    }
    add_noise(img, s.noise, rng);
    float* dst = batch.data() + size_t(i) * 3 * size * size;
    for (int ch = 0; ch < 3; ++ch)
      for (int yy = 0; yy < size; ++yy)
        for (int x = 0; x < size; ++x)
          dst[(size_t(ch) * size + yy) * size + x] = (img.at(yy, x, 2 - ch) / 255.f - mean[ch]) / stdv[ch];
  }
  write_npy(out + ".npy", batch, {n, 3, size, size});
  return 0;
}

// UTF-8 string -> code points (the dictionary has CJK; the truth is ASCII).
std::vector<uint32_t> code_points(const std::string& s) {
  std::vector<uint32_t> r;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = s[i];
    int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    uint32_t cp = len == 1 ? c : c & (0xFF >> (len + 1));
    for (int k = 1; k < len && i + k < s.size(); ++k) cp = (cp << 6) | (s[i + k] & 0x3F);
    r.push_back(cp);
    i += len;
  }
  return r;
}

size_t edit_distance(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// PaddleOCR's CTCLabelDecode: class 0 is the CTC blank, 1..D the dictionary lines, D+1 a space
// (use_space_char); greedy: argmax per step, merge repeats, drop blanks.
int cmd_read(const std::string& dict_path, const std::string& probs_path, const std::string& truth_path, bool verbose) {
  std::vector<std::vector<uint32_t>> classes{{}};
  {
    std::ifstream f(dict_path);
    if (!f) die("cannot read " + dict_path);
    std::string line;
    while (std::getline(f, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      classes.push_back(code_points(line));
    }
    classes.push_back({' '});
  }
  const Npy p = read_npy(probs_path);
  if (p.shape.size() != 3) die(probs_path + ": expected [N, T, C]");
  const int64_t n = p.shape[0], t = p.shape[1], c = p.shape[2];
  if (c != int64_t(classes.size()))
    die(probs_path + ": " + std::to_string(c) + " classes, but the dictionary gives " + std::to_string(classes.size()) +
        " (blank + lines + space)");
  std::ifstream tf(truth_path);
  std::vector<std::string> truth;
  for (std::string line; std::getline(tf, line);) truth.push_back(line);
  if (int64_t(truth.size()) != n) die(truth_path + ": " + std::to_string(truth.size()) + " lines for " + std::to_string(n) + " outputs");
  size_t errors = 0, chars = 0, exact = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<uint32_t> text;
    int64_t last = -1;
    for (int64_t s = 0; s < t; ++s) {
      const float* row = p.data.data() + (i * t + s) * c;
      const int64_t k = std::max_element(row, row + c) - row;
      if (k != 0 && k != last) text.insert(text.end(), classes[k].begin(), classes[k].end());
      last = k;
    }
    // PaddleOCR reads the grey padding right of short lines as trailing spaces; text ends at its ink.
    while (!text.empty() && text.back() == ' ') text.pop_back();
    while (!text.empty() && text.front() == ' ') text.erase(text.begin());
    const auto want = code_points(truth[i]);
    const size_t e = edit_distance(text, want);
    errors += e, chars += want.size(), exact += e == 0;
    if (verbose && e) {
      std::string got;
      for (uint32_t cp : text) got += cp < 0x80 ? char(cp) : '?';
      std::cerr << "  '" << truth[i] << "' read as '" << got << "'\n";
    }
  }
  std::printf("%.2f %zu %zu %zu\n", 100.0 * (1.0 - double(errors) / double(chars)), exact, size_t(n), chars);
  return 0;
}

int cmd_cosine(const std::string& a_path, const std::string& b_path) {
  const Npy a = read_npy(a_path), b = read_npy(b_path);
  if (a.data.size() != b.data.size()) die("cosine: different sizes");
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.data.size(); ++i) ab += double(a.data[i]) * b.data[i], aa += double(a.data[i]) * a.data[i], bb += double(b.data[i]) * b.data[i];
  std::printf("%.6f\n", ab / std::sqrt(aa * bb + 1e-30));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> a(argv + 1, argv + argc);
  try {
    if (a.size() == 5 && a[0] == "lines") return cmd_lines(a[1], unsigned(std::stoul(a[2])), std::stoi(a[3]), a[4]);
    if (a.size() == 6 && a[0] == "pages") return cmd_pages(a[1], unsigned(std::stoul(a[2])), std::stoi(a[3]), std::stoi(a[4]), a[5]);
    if ((a.size() == 4 || a.size() == 5) && a[0] == "read") return cmd_read(a[1], a[2], a[3], a.size() == 5);
    if (a.size() == 3 && a[0] == "cosine") return cmd_cosine(a[1], a[2]);
  } catch (const std::exception& e) {
    die(e.what());
  }
  std::cerr << "usage: ocr_lines lines FONT_DIR SEED N OUT | pages FONT_DIR SEED N SIZE OUT | read DICT PROBS.npy TRUTH.txt [-v] | "
               "cosine A.npy B.npy\n";
  return 2;
}
