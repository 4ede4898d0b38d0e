// SPDX-License-Identifier: Apache-2.0
// fio job files and command lines read into sections and options (fio 3.33's init.c and
// options.c as the reference for each rule).
#include "runner/specs/fio_job.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"

namespace storqual::runner {
namespace {

constexpr int kMaxIncludeDepth = 16;     // fio has none; a cycle would never end
constexpr std::size_t kMaxValue = 4096;  // fio's OPT_LEN_MAX

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// bc's integer arithmetic on what the keywords left: whole numbers, + - * / and parentheses.
class Arithmetic {
 public:
  explicit Arithmetic(std::string_view text) : s_(text) {}
  long long evaluate() {
    const long long v = sum();
    skip();
    if (i_ != s_.size()) fail();
    return v;
  }

 private:
  [[noreturn]] void fail() const {
    throw UnitError("'" + std::string(s_) +
                    "' is not arithmetic fio can do (whole numbers and + - * / only: fio hands a "
                    "value with $ncpus, $mb_memory or $pagesize to bc, which knows no units)");
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  long long sum() {
    long long v = product();
    for (skip(); i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-'); skip()) {
      const char op = s_[i_++];
      const long long r = product();
      if (op == '+' ? __builtin_add_overflow(v, r, &v) : __builtin_sub_overflow(v, r, &v)) fail();
    }
    return v;
  }
  long long product() {
    long long v = atom();
    for (skip(); i_ < s_.size() && (s_[i_] == '*' || s_[i_] == '/'); skip()) {
      const char op = s_[i_++];
      const long long r = atom();
      if (op == '*') {
        if (__builtin_mul_overflow(v, r, &v)) fail();
      } else {
        if (r == 0) throw UnitError("'" + std::string(s_) + "' divides by zero");
        if (r == -1 && v == std::numeric_limits<long long>::min()) fail();
        v /= r;
      }
    }
    return v;
  }
  long long atom() {
    skip();
    if (++depth_ > 64) fail();
    long long v = 0;
    if (i_ < s_.size() && s_[i_] == '(') {
      ++i_;
      v = sum();
      skip();
      if (i_ >= s_.size() || s_[i_] != ')') fail();
      ++i_;
    } else if (i_ < s_.size() && s_[i_] == '-') {
      ++i_;
      if (__builtin_sub_overflow(0LL, atom(), &v)) fail();
    } else {
      const std::size_t start = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[i_] - '0', &v))
          fail();
        ++i_;
      }
      if (i_ == start) fail();
    }
    --depth_;
    return v;
  }
  std::string_view s_;
  std::size_t i_ = 0;
  int depth_ = 0;
};

// Collects sections and options; a [global] section's options are inherited by every job after.
class Builder {
 public:
  Builder(std::string display_name, const FioEnvironment& env) : env_(env) {
    out_.display_name = std::move(display_name);
  }
  void section(std::string name, std::string location) {
    finish();
    in_section_ = true;
    global_ = name.starts_with("global");  // fio: !strncmp(name, "global", 6)
    if (!global_) {
      current_ = FioJob{std::move(name), std::move(location), globals_};
    }
  }
  [[nodiscard]] bool in_section() const noexcept { return in_section_; }
  void option(std::string_view text, std::string location) {
    FioOption o;
    o.location = std::move(location);
    const auto eq = text.find('=');
    o.name = std::string(trim(text.substr(0, eq)));
    if (o.name.empty())
      throw FileError(o.location + ": an option without a name: '" + std::string(text) + "'");
    if (eq != std::string_view::npos) {
      o.has_value = true;
      try {
        o.value = expand_fio_value(trim(text.substr(eq + 1)), env_);
      } catch (const UnitError& e) {
        throw FileError(o.location + ": option '" + o.name + "': " + e.what());
      }
    }
    o.from_global = global_;
    (global_ ? globals_ : current_.options).push_back(std::move(o));
  }
  FioJobFile done() {
    finish();
    return std::move(out_);
  }

 private:
  void finish() {
    if (in_section_ && !global_) out_.jobs.push_back(std::move(current_));
    current_ = {};
  }
  const FioEnvironment& env_;
  FioJobFile out_;
  std::vector<FioOption> globals_;
  FioJob current_;
  bool in_section_ = false;
  bool global_ = false;
};

bool is_comment_or_empty(std::string_view line) {
  return line.empty() || line.front() == '#' || line.front() == ';';
}

void parse_lines(std::string_view text, const std::filesystem::path& path, Builder& b,
                 const FioEnvironment& env, int depth) {
  const std::string display = path.string();
  std::size_t line_no = 0;
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t nl = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, nl - pos);
    // fio's strip_blank_end (parse.c): a ';' or '#' anywhere starts a comment to the line's end.
    line = trim(line.substr(0, line.find_first_of(";#")));
    pos = nl + 1;
    ++line_no;
    const std::string where = display + ":" + std::to_string(line_no);
    if (line.find('\0') != std::string_view::npos)
      throw FileError(where + ": a NUL byte in a job file");
    if (is_comment_or_empty(line)) continue;
    if (line.front() == '[') {
      if (depth > 0) throw FileError(where + ": no new sections in included files (fio's rule)");
      if (line.back() != ']' || line.size() < 3)
        throw FileError(where + ": expected a section header [name], got '" + std::string(line) +
                        "'");
      b.section(std::string(line.substr(1, line.size() - 2)), where);
      continue;
    }
    if (!b.in_section())
      throw FileError(where + ": option '" + std::string(line) +
                      "' outside of a [] job section (fio refuses it too)");
    if (line.starts_with("include") &&
        (line.size() == 7 || std::isspace(static_cast<unsigned char>(line[7])))) {
      const std::string name(trim(line.substr(7)));
      if (!env.read_file) throw FileError(where + ": include is not available here");
      if (depth >= kMaxIncludeDepth)
        throw FileError(where + ": includes nested deeper than " +
                        std::to_string(kMaxIncludeDepth) + " (a cycle?)");
      std::filesystem::path inc(name);
      std::error_code ec;
      // fio: a name that does not exist as given is taken relative to the including file.
      if (!std::filesystem::exists(inc, ec) && inc.is_relative() && path.has_parent_path())
        inc = path.parent_path() / inc;
      std::string body;
      try {
        body = env.read_file(inc);
      } catch (const FileError& e) {
        throw FileError(where + ": include " + name + ": " + e.what());
      }
      parse_lines(body, inc, b, env, depth + 1);
      continue;
    }
    if (line.size() > kMaxValue) throw FileError(where + ": a line longer than fio's 4096 bytes");
    b.option(line, where);
  }
}

std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path.string() + ": cannot open the job file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

FioEnvironment FioEnvironment::of_this_host() {
  FioEnvironment env;
  env.ncpus = static_cast<unsigned>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  env.pagesize = page > 0 ? static_cast<std::uint64_t>(page) : 4096;
  env.mb_memory = pages > 0 ? static_cast<std::uint64_t>(pages) * env.pagesize / (1024 * 1024) : 0;
  env.getenv = [](const std::string& name) -> std::optional<std::string> {
    if (const char* v = std::getenv(name.c_str())) return std::string(v);
    return std::nullopt;
  };
  env.read_file = read_whole_file;
  return env;
}

std::string expand_fio_value(std::string_view value, const FioEnvironment& env) {
  std::string out;
  for (std::size_t i = 0; i < value.size();) {
    if (value[i] == '$' && i + 1 < value.size() && value[i + 1] == '{') {
      const std::size_t close = value.find('}', i + 2);
      if (close != std::string_view::npos && close > i + 2) {
        if (env.getenv)
          if (auto v = env.getenv(std::string(value.substr(i + 2, close - i - 2)))) out += *v;
        i = close + 1;
        continue;
      }
    }
    out += value[i++];
  }
  if (out.size() > kMaxValue) throw UnitError("the value is longer than fio's 4096 bytes");
  bool replaced = false;
  const std::pair<std::string_view, std::uint64_t> keywords[] = {
      {"$pagesize", env.pagesize}, {"$mb_memory", env.mb_memory}, {"$ncpus", env.ncpus}};
  for (const auto& [word, number] : keywords) {
    for (std::size_t at; (at = out.find(word)) != std::string::npos;) {
      out.replace(at, word.size(), std::to_string(number));
      replaced = true;
    }
  }
  // fio's bc_calc: only with a keyword replaced, some + - * /, and no quote.
  if (replaced && out.find_first_of("+-*/") != std::string::npos &&
      out.find('\'') == std::string::npos)
    out = std::to_string(Arithmetic(out).evaluate());
  return out;
}

FioJobFile parse_fio_job_text(std::string_view text, const std::filesystem::path& path,
                              const FioEnvironment& env) {
  Builder b(path.string(), env);
  parse_lines(text, path, b, env, 0);
  FioJobFile f = b.done();
  if (f.jobs.empty()) throw FileError(path.string() + ": no job section (fio would run nothing)");
  return f;
}

FioJobFile parse_fio_job_file(const std::filesystem::path& path, const FioEnvironment& env) {
  const std::string text = env.read_file ? env.read_file(path) : read_whole_file(path);
  return parse_fio_job_text(text, path, env);
}

std::vector<std::string> split_shell_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (++i < text.size() && text[i] != '\n') word += text[i];
    } else if (c == '\'') {
      const std::size_t close = text.find('\'', i + 1);
      if (close == std::string_view::npos) throw FileError("fio-cmd: an unterminated ' quote");
      word += text.substr(i + 1, close - i - 1);
      i = close;
    } else if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size() &&
            std::string_view("$`\"\\\n").find(text[i + 1]) != std::string_view::npos)
          ++i;
        word += text[i];
      }
      if (i >= text.size()) throw FileError("fio-cmd: an unterminated \" quote");
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

FioJobFile parse_fio_command_line(std::string_view command, const FioEnvironment& env) {
  std::vector<std::string> words = split_shell_words(command);
  Builder b("fio-cmd", env);
  b.section("global", "fio-cmd:word 1");  // what comes before the first --name
  std::size_t first = 0;
  if (!words.empty() && std::filesystem::path(words[0]).filename() == "fio") first = 1;
  for (std::size_t i = first; i < words.size(); ++i) {
    const std::string where = "fio-cmd:word " + std::to_string(i + 1);
    const std::string_view w = words[i];
    if (!w.starts_with("--") || w.size() == 2)
      throw FileError(where + ": expected --option or --option=value, got '" + std::string(w) +
                      "' (a job file on fio's command line: import the file itself)");
    const std::string_view body = w.substr(2);
    if (body.starts_with("name=")) {
      b.section(std::string(body.substr(5)), where);
      continue;
    }
    b.option(body, where);
  }
  FioJobFile f = b.done();
  if (f.jobs.empty()) throw FileError("fio-cmd: no --name=JOB (fio would run nothing)");
  return f;
}

}  // namespace storqual::runner
