#include "lint/python_ast.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.h"

namespace ms::lint {

namespace {

// Reads NUL-separated paths on stdin; writes one JSON array on stdout, one entry per path:
// {"path": p, "ast": {...}} or {"path": p, "error": {"msg": m, "line": l, "col": c}}.
const char* kDumper = R"PY(
import ast, json, sys
sys.setrecursionlimit(20000)
OPS = (ast.operator, ast.unaryop, ast.cmpop, ast.boolop, ast.expr_context)
def conv(n):
    if isinstance(n, list):
        return [conv(x) for x in n]
    if isinstance(n, OPS):
        return type(n).__name__
    if isinstance(n, ast.AST):
        t = type(n).__name__
        if t == 'Index':
            return conv(n.value)
        if t == 'ExtSlice':
            return {'_t': 'Tuple', 'elts': conv(n.dims)}
        if t in ('Num', 'Str', 'Bytes', 'NameConstant', 'Ellipsis'):
            v = getattr(n, 'n', getattr(n, 's', getattr(n, 'value', Ellipsis)))
            d = {'_t': 'Constant', 'value': const(v), 'vk': kind(v)}
        else:
            d = {'_t': t}
            for f in n._fields:
                if f == 'ctx' or f == 'type_comment':
                    continue
                v = getattr(n, f, None)
                if t == 'Constant' and f == 'value':
                    d['value'] = const(v)
                    d['vk'] = kind(v)
                elif t == 'Constant' and f == 'kind':
                    continue
                elif isinstance(v, (ast.AST, list)):
                    d[f] = conv(v)
                else:
                    d[f] = v if (v is None or isinstance(v, (str, int, float, bool))) else repr(v)
        if hasattr(n, 'lineno'):
            d['_l'] = n.lineno
            d['_c'] = n.col_offset
            d['_el'] = getattr(n, 'end_lineno', None) or n.lineno
        return d
    return n
def kind(v):
    if v is Ellipsis: return 'Ellipsis'
    if v is None: return 'None'
    return type(v).__name__
def const(v):
    if isinstance(v, bool) or v is None or isinstance(v, str): return v
    if isinstance(v, int): return v if -2**63 <= v < 2**64 else repr(v)
    if isinstance(v, float): return v if v == v and v not in (float('inf'), float('-inf')) else repr(v)
    return repr(v)
out = []
for p in sys.stdin.buffer.read().decode('utf-8', 'surrogateescape').split('\0'):
    if not p:
        continue
    try:
        with open(p, 'rb') as fh:
            src = fh.read()
        tree = ast.parse(src, filename=p)
        out.append({'path': p, 'ast': conv(tree)})
    except SyntaxError as e:
        out.append({'path': p, 'error': {'msg': '%s: %s' % (type(e).__name__, e.msg), 'line': e.lineno or 0, 'col': e.offset or 0}})
    except (OSError, ValueError, UnicodeDecodeError, RecursionError, MemoryError) as e:
        out.append({'path': p, 'error': {'msg': '%s: %s' % (type(e).__name__, e), 'line': 0, 'col': 0}})
sys.stdout.write(json.dumps(out, ensure_ascii=True))
)PY";

std::string run_python(const std::string& python, const std::string& input, int& status) {
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe(in_pipe) || pipe(out_pipe) || pipe(err_pipe)) fail("ms lint: cannot create a pipe: {}", std::strerror(errno));
  pid_t pid = fork();
  if (pid < 0) fail("ms lint: cannot start {}: {}", python, std::strerror(errno));
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    const char* argv[] = {python.c_str(), "-I", "-S", "-c", kDumper, nullptr};
    execvp(python.c_str(), const_cast<char* const*>(argv));
    const char msg[] = "exec failed\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  signal(SIGPIPE, SIG_IGN);
  // Feed stdin and drain stdout/stderr together so that neither side can block the other.
  std::string out, err;
  size_t written = 0;
  int in_fd = in_pipe[1];
  if (input.empty()) {
    close(in_fd);
    in_fd = -1;
  }
  bool out_open = true, err_open = true;
  char buf[65536];
  while (out_open || err_open) {
    pollfd fds[3];
    int n = 0, i_out = -1, i_err = -1, i_in = -1;
    if (out_open) { fds[n] = {out_pipe[0], POLLIN, 0}; i_out = n++; }
    if (err_open) { fds[n] = {err_pipe[0], POLLIN, 0}; i_err = n++; }
    if (in_fd >= 0) { fds[n] = {in_fd, POLLOUT, 0}; i_in = n++; }
    if (poll(fds, n, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (i_in >= 0 && fds[i_in].revents) {
      ssize_t w = (fds[i_in].revents & POLLOUT) ? write(in_fd, input.data() + written, input.size() - written) : -1;
      if (w > 0) written += static_cast<size_t>(w);
      if (w < 0 || written == input.size()) {
        close(in_fd);
        in_fd = -1;
      }
    }
    auto drain = [&](int idx, int fd, std::string& dst, bool& open) {
      if (idx < 0 || !fds[idx].revents) return;
      ssize_t r = read(fd, buf, sizeof(buf));
      if (r > 0) dst.append(buf, static_cast<size_t>(r));
      else if (r == 0 || errno != EINTR) open = false;
    };
    drain(i_out, out_pipe[0], out, out_open);
    drain(i_err, err_pipe[0], err, err_open);
  }
  if (in_fd >= 0) close(in_fd);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  if (status == 127 && err.find("exec failed") != std::string::npos)
    fail("cannot run '{}': ms lint parses Python with python3's own ast module; install python3 or set MS_PYTHON "
         "to an interpreter",
         python);
  if (status != 0) {
    if (err.size() > 2000) err = err.substr(err.size() - 2000);
    fail("'{}' failed while parsing (exit {}): {}", python, status, err);
  }
  return out;
}

}  // namespace

std::vector<ParsedFile> parse_python_files(const std::vector<std::string>& paths, const std::string& python_in) {
  std::string python = python_in;
  if (python.empty()) {
    const char* env = std::getenv("MS_PYTHON");
    python = (env && *env) ? env : "python3";
  }
  std::string input;
  for (const auto& p : paths) {
    input += p;
    input.push_back('\0');
  }
  int status = 0;
  std::string out = run_python(python, input, status);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(out);
  } catch (const std::exception& e) {
    fail("could not read the syntax trees from '{}': {}", python, e.what());
  }
  std::vector<ParsedFile> files;
  for (auto& e : j) {
    std::string path = e.value("path", "");
    if (e.contains("error")) {
      const auto& er = e["error"];
      int line = er.value("line", 0);
      if (line > 0)
        fail("{}:{}:{}: cannot parse: {}", path, line, er.value("col", 0), er.value("msg", std::string()));
      fail("{}: cannot read: {}", path, er.value("msg", std::string()));
    }
    files.push_back({path, std::move(e["ast"])});
  }
  return files;
}

}  // namespace ms::lint
