// Picks the fastest of several oneDNN implementations of one primitive by timing them on this
// machine. oneDNN's first-listed implementation is a heuristic: for 3x3 convolutions its direct,
// Winograd F(2x2,3x3) and F(4x4,3x3) kernels trade places with the channel count and image size
// (ResNet-50's 64-channel 56x56 layer: F(4x4,3x3) 0.65 ms, direct 1.48 ms; its 128-channel 28x28
// layer: F(2x2,3x3) fastest), and which wins also depends on the thread count.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace ms::rt {

// One implementation to try: `run` executes it once on scratch data.
struct TimedCandidate {
  std::string impl;  // oneDNN's implementation name, for the log
  std::function<void()> run;
};

// The index of the fastest candidate (the minimum over a few interleaved rounds, so that a burst
// of load from other processes hits every candidate alike). Decisions are remembered per `key`
// (shapes, attributes and thread count) for the life of the process: layers with the same shape
// are timed once. With MS_AUTOTUNE=0 in the environment nothing is timed and 0 is returned.
size_t fastest_candidate(const std::string& key, const std::vector<TimedCandidate>& candidates);

// For tests: while set, fastest_candidate returns the first candidate whose implementation name
// contains `impl` (untimed, not remembered), or 0 when none does. Empty: time again.
void force_implementation(const std::string& impl);

}  // namespace ms::rt
