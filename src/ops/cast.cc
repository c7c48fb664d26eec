// Cast: y = x converted to dtype `to` (numbers, bool, float16/bfloat16, strings); CastLike takes
// the target dtype from its second input. Strings parse/print numbers the way numpy does.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>

#include "ops/numpy_util.h"

namespace ms {
namespace {

// numpy's str() of a float: shortest round-trip digits, positional for 1e-4 <= |v| < 1e16
// ("100.0", "0.00012"), else scientific with at least two exponent digits ("1e-05", "1.5e+16").
std::string format_digits(bool negative, const std::string& digits, int exp, bool scientific) {
  std::string s = negative ? "-" : "";
  if (scientific) {
    s += digits[0];
    if (digits.size() > 1) s += "." + digits.substr(1);
    s += fmt::format("e{}{:02d}", exp < 0 ? '-' : '+', std::abs(exp));
  } else if (exp >= 0) {
    std::string d = digits;
    if (d.size() < static_cast<size_t>(exp) + 1) d.append(exp + 1 - d.size(), '0');
    s += d.substr(0, exp + 1) + "." + (d.size() > static_cast<size_t>(exp) + 1 ? d.substr(exp + 1) : "0");
  } else {
    s += "0." + std::string(-exp - 1, '0') + digits;
  }
  return s;
}

// Splits a "%e"-style string "-1.2345e-05" into sign, significant digits and exponent.
std::string numpy_style(const char* sci, bool scientific) {
  bool neg = *sci == '-';
  if (neg) ++sci;
  std::string digits;
  const char* p = sci;
  for (; *p && *p != 'e' && *p != 'E'; ++p)
    if (*p != '.') digits += *p;
  int exp = *p ? std::atoi(p + 1) : 0;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  return format_digits(neg, digits, exp, scientific);
}

template <class T>
std::string float_to_string(T v) {
  const double d = static_cast<double>(widen(v));
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    auto res = std::to_chars(buf, buf + sizeof(buf) - 1, v, std::chars_format::scientific);
    *res.ptr = 0;
  } else {
    // 16-bit floats: the fewest digits that convert back to the same bits.
    for (int prec = 0; prec < 9; ++prec) {
      std::snprintf(buf, sizeof(buf), "%.*e", prec, d);
      if (T(std::strtof(buf, nullptr)).bits == v.bits) break;
    }
  }
  // numpy decides on the value itself: float32(0.0001) is just below 1e-4 and prints "1e-04".
  return numpy_style(buf, std::fabs(d) < 1e-4 || std::fabs(d) >= 1e16);
}

template <class T>
std::string to_string_value(T v) {
  if constexpr (std::is_same_v<T, bool>) return v ? "True" : "False";
  else if constexpr (is_float_like_v<T>) return float_to_string(v);
  else return std::to_string(v);
}

template <class T>
T parse_value(const std::string& s, const Node& node) {
  const char* begin = s.c_str();
  while (std::isspace(static_cast<unsigned char>(*begin))) ++begin;
  char* end = nullptr;
  auto check_end = [&] {
    while (end && std::isspace(static_cast<unsigned char>(*end))) ++end;
    if (end == begin || (end && *end)) fail("{}: cannot parse \"{}\" as a number", node.label(), s);
  };
  if constexpr (std::is_same_v<T, bool>) {
    if (s == "True" || s == "true") return true;
    if (s == "False" || s == "false") return false;
    double d = std::strtod(begin, &end);
    check_end();
    return d != 0;
  } else if constexpr (is_int_like_v<T>) {
    errno = 0;
    if constexpr (std::is_signed_v<T>) {
      long long v = std::strtoll(begin, &end, 10);
      if (end != begin && !*end && errno == 0) return static_cast<T>(v);
    } else {
      unsigned long long v = std::strtoull(begin, &end, 10);
      if (end != begin && !*end && errno == 0 && *begin != '-') return static_cast<T>(v);
    }
    double d = std::strtod(begin, &end);  // "1.5", "1e3" still parse, as in numpy's float path
    check_end();
    return convert_value<T>(d);
  } else {
    // strtod accepts "NaN", "INF", "+INF", "-INF", "inf", "nan" case-insensitively.
    double d = std::strtod(begin, &end);
    check_end();
    return convert_value<T>(d);
  }
}

Tensor cast_tensor(const Tensor& x, DType to, const Node& node) {
  if (!dtype_is_valid(static_cast<int32_t>(to)) || to == DType::Undefined)
    fail("{}: invalid target dtype {}", node.label(), static_cast<int>(to));
  if (x.dtype() == to) return x;
  if (x.dtype() == DType::String) {
    return dispatch_numeric_or_bool(to, node.label(), [&](auto tag) {
      using To = typename decltype(tag)::type;
      return map_unary<std::string, To>(x, to, [&](const std::string& s) { return parse_value<To>(s, node); });
    });
  }
  return dispatch_numeric_or_bool(x.dtype(), node.label(), [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    if (to == DType::String)
      return map_unary<From, std::string>(x, to, [](From v) { return to_string_value(v); });
    return dispatch_numeric_or_bool(to, node.label(), [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      return map_unary<From, To>(x, to, [](From v) { return convert_value<To>(v); });
    });
  });
}

DType target_dtype(const AttrReader& ctx) {
  // Cast-1 (opset < 6) names the type as a string ("FLOAT", "INT64", ...).
  const Attribute* a = ctx.node().attr("to");
  if (a && a->type == AttrType::String) {
    static const std::map<std::string, DType> kNames = {
        {"FLOAT", DType::Float32}, {"UINT8", DType::UInt8},   {"INT8", DType::Int8},       {"UINT16", DType::UInt16},
        {"INT16", DType::Int16},   {"INT32", DType::Int32},   {"INT64", DType::Int64},     {"STRING", DType::String},
        {"BOOL", DType::Bool},     {"FLOAT16", DType::Float16}, {"DOUBLE", DType::Float64}, {"UINT32", DType::UInt32},
        {"UINT64", DType::UInt64}, {"BFLOAT16", DType::BFloat16}};
    auto it = kNames.find(a->s);
    if (it == kNames.end()) fail_unsupported("{}: target dtype \"{}\" is not supported", ctx.node().label(), a->s);
    return it->second;
  }
  const int64_t to = ctx.attr_int("to");
  if (to <= 0 || to > 64 || !dtype_is_valid(static_cast<int32_t>(to)))
    fail_unsupported("{}: target dtype {} is not supported", ctx.node().label(), to);
  return static_cast<DType>(to);
}

void set_cast_type(InferContext& ctx, DType to) {
  TypeInfo t = ctx.input_type(0);
  t.kind = TypeInfo::Kind::Tensor;
  t.dtype = to;
  ctx.set_output_type(0, t);
}

}  // namespace

void register_op_cast(OpRegistry& r) {
  r.add(OpDef("Cast").inputs(1).outputs(1).attr("to", AttrType::Int, true).attr_int("saturate", 1)
            .trait(kTraitElementwise | kTraitUnary)
            .infer_fn([](InferContext& ctx) { set_cast_type(ctx, target_dtype(ctx)); })
            .kernel_fn([](KernelContext& ctx) {
              ctx.set_output(0, cast_tensor(ctx.input(0), target_dtype(ctx), ctx.node()));
            }));
  r.add(OpDef("CastLike").inputs(2).outputs(1).attr_int("saturate", 1).trait(kTraitElementwise)
            .infer_fn([](InferContext& ctx) { set_cast_type(ctx, ctx.input_type(1).dtype); })
            .kernel_fn([](KernelContext& ctx) {
              ctx.set_output(0, cast_tensor(ctx.input(0), ctx.input(1).dtype(), ctx.node()));
            }));
}

}  // namespace ms
