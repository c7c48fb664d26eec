// ms profile: per-op time, share, FLOPs, GFLOP/s and bytes moved, memory (activation peak,
// weights, per-op temporaries), averaged over several runs; --trace writes one run as Chrome
// trace-event JSON (Perfetto, chrome://tracing), --report a self-contained HTML page.
#include <iostream>

#include "analysis/profile.h"
#include "cli/cli_util.h"
#include "cli/convert_common.h"
#include "cli/feeds.h"
#include "cli/session_model.h"
#include "formats/model_io.h"
#include "report/atomic_file.h"
#include "report/html.h"

namespace ms::cli {
namespace {

std::string html_report(const std::string& model_file, const ProfileSummary& p) {
  std::vector<std::vector<std::string>> types, nodes;
  for (const auto& t : p.types)
    types.push_back({t.op_type, std::to_string(t.count), fmt::format("{:.3f}", t.ms), fmt::format("{:.1f}%", 100 * t.share),
                     fmt::format("{:.3f}", t.flops / 1e9), fmt::format("{:.1f}", t.gflops())});
  for (const auto& n : p.nodes)
    nodes.push_back({n.name, n.op_type, n.kernel, fmt::format("{:.3f}", n.ms), fmt::format("{:.1f}%", 100 * n.share),
                     fmt::format("{:.3f}", n.flops / 1e9), fmt::format("{:.1f}", n.gflops()),
                     fmt::format("{:.0f}", n.bytes), std::to_string(n.scratch_bytes)});
  const std::string text = profile_text(p, 0);
  std::string body = "<pre>" + report::html_escape(text.substr(0, text.find("\n\n"))) + "</pre>";
  body += "<h2>Per op type</h2>" + report::html_table({"op type", "count", "time ms", "share", "GFLOP", "GFLOP/s"}, types);
  body += "<h2>Per node (graph order)</h2>" +
          report::html_table({"node", "op type", "kernel", "time ms", "share", "GFLOP", "GFLOP/s", "bytes moved", "temporary bytes"},
                             nodes);
  return report::html_page("ms profile: " + model_file, body);
}

}  // namespace

int cmd_profile(const Args& args) {
  CLI::App app("Per-operator time, FLOPs and memory; Chrome/Perfetto trace", "profile");
  std::string model_file, in_data, trace, report_file, format = "text";
  SessionModelFlags model_flags;
  int loops = 10, warmup = 2;
  SessionOptions opts;
  opts.num_threads = 2;
  app.add_option("--modelFile", model_file, "model to profile (.onnx, .mindir)")->required();
  app.add_option("--inDataFile", in_data, "input files (.pb, .npy, .bin), comma-separated; default: seeded random inputs");
  add_session_model_flags(app, model_flags);
  app.add_option("--trace", trace, "write the last run as Chrome trace-event JSON (opens in Perfetto)");
  app.add_option("--report", report_file, "write a self-contained HTML report");
  app.add_option("--loopCount", loops, "profiled runs averaged (default 10)")->check(CLI::Range(1, 100000));
  app.add_option("--warmUpLoopCount", warmup, "unprofiled runs first (default 2)")->check(CLI::Range(0, 100000));
  app.add_option("--numThreads", opts.num_threads, "threads (default 2)")->check(CLI::Range(1, 1024));
  app.add_flag("--reference", opts.reference_kernels, "profile the reference kernels instead of the fast ones");
  app.add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));
  return run_command(app, args, [&] {
    const SessionModel prepared = load_session_model(model_file, model_flags, opts.reference_kernels ? "none" : "cpu");
    use_compute_precision(prepared, opts);
    Session session(prepared.model, opts);
    auto feeds = read_feeds(session, in_data);
    for (int i = 0; i < warmup; ++i) session.run(feeds);
    std::vector<RunProfile> runs(loops);
    for (auto& r : runs) session.run(feeds, &r);
    const ProfileSummary p = summarize_profile(session.model(), runs);  // the graph it ran (int8 rewrite)
    if (!trace.empty()) write_chrome_trace(session.model(), runs.back(), trace);
    if (!report_file.empty()) report::write_file_atomically(report_file, html_report(model_file, p));
    if (format == "json") {
      nlohmann::json j = profile_json(p);
      j["model"] = model_file;
      j["threads"] = opts.num_threads;
      j["optimize"] = prepared.level;
      j["load_ms"] = prepared.load_ms;
      j["optimize_ms"] = prepared.optimize_ms;
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << fmt::format("{}: {} thread(s), {} kernels\n", model_file, opts.num_threads,
                               opts.reference_kernels ? "reference" : "fast")
                << session_model_summary(prepared) << "\n"
                << profile_text(p, 0);
      if (!trace.empty()) std::cout << "trace: " << trace << "\n";
      if (!report_file.empty()) std::cout << "report: " << report_file << "\n";
    }
    return 0;
  });
}

}  // namespace ms::cli
