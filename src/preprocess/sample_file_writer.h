// Streams float32 samples into a calibration file without holding them: a .bin (samples back to
// back, as np.stack(imgs).tofile() writes them) or a .npy whose leading axis counts the samples.
// The data goes to a temporary file beside the output, renamed into place by commit(); a writer
// destroyed without commit() removes it, so a failure leaves nothing behind.
#pragma once
#include <cstdio>
#include <string>

#include "core/tensor.h"

namespace ms::preprocess {

class SampleFileWriter {
 public:
  // `count`: how many samples add() will receive (the .npy header states it up front).
  SampleFileWriter(std::string path, size_t count);
  ~SampleFileWriter();
  SampleFileWriter(const SampleFileWriter&) = delete;
  SampleFileWriter& operator=(const SampleFileWriter&) = delete;

  // The first sample fixes the shape; a leading 1 (batch) becomes the sample axis of a .npy.
  void add(const Tensor& sample);
  void commit();

 private:
  void write(const void* data, size_t bytes);
  std::string path_, tmp_;
  bool npy_ = false;
  size_t count_ = 0, added_ = 0;
  Shape shape_;
  std::FILE* f_ = nullptr;
};

}  // namespace ms::preprocess
