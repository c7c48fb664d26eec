// Parses Python sources with the user's python3 (its own `ast` module) and returns each file's
// syntax tree as JSON. The small Python program that does it is embedded in python_ast.cc; no
// Python file is needed at run time.
//
// Node layout: every AST node is an object {"_t": type name, "_l": lineno, "_c": col_offset,
// "_el": end_lineno, <field>: <value>...}; operator nodes (Add, Eq, In, USub...) are plain strings;
// Constant nodes carry "value" and "vk" (int, float, str, bool, None, bytes, complex, Ellipsis).
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ms::lint {

struct ParsedFile {
  std::string path;
  nlohmann::json ast;  // the Module node
};

// Parses all `paths` in one python3 run. Throws ms::Error(InvalidInput) naming the file, line and
// the parser's message when a file cannot be read or parsed, or when python3 cannot be run.
// `python` is the interpreter to run (empty: $MS_PYTHON, else `python3` from PATH).
std::vector<ParsedFile> parse_python_files(const std::vector<std::string>& paths, const std::string& python = "");

}  // namespace ms::lint
