#include "cli/cli_util.h"

#include <iostream>
#include <sstream>

#include "core/error.h"

namespace ms::cli {

int run_command(CLI::App& app, const Args& args, const std::function<int()>& body) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "ms " << app.get_name() << ": error: " << e.what() << "\nRun 'ms " << app.get_name()
              << " --help' for the options.\n";
    return 2;
  }
  try {
    return body();
  } catch (const Error& e) {
    std::cerr << "ms " << app.get_name() << ": error: " << e.what() << "\n";
    return static_cast<int>(e.code()) == 4 ? 2 : static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    std::cerr << "ms " << app.get_name() << ": error: out of memory\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ms " << app.get_name() << ": error: " << e.what() << "\n";
    return 2;
  }
}

std::vector<std::string> split_list(const std::string& s, char sep) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) r.push_back(item);
  return r;
}

}  // namespace ms::cli
