// Model inputs for the commands that execute a model (run, benchmark, profile): read from
// --inDataFile files in graph input order, or seeded random data when no file is given.
#pragma once
#include <string>
#include <vector>

#include "core/value.h"
#include "runtime/session.h"

namespace ms::cli {

// `list` is the comma-separated --inDataFile value; empty = seeded random inputs (needs static shapes).
std::vector<Value> read_feeds(const Session& session, const std::string& list);

}  // namespace ms::cli
