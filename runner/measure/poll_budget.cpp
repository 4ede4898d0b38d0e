// SPDX-License-Identifier: Apache-2.0
// The host's budget for completion polling (see poll_budget.hpp).
#include "runner/measure/poll_budget.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "runner/measure/clock.hpp"

namespace storqual::runner {

namespace {

std::string cpus_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string of_cpus(unsigned cpus) {
  return std::to_string(cpus) + (cpus == 1 ? " CPU" : " CPUs");
}

std::vector<unsigned> affinity_cpus() {
  std::vector<unsigned> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (unsigned i = 0; i < CPU_SETSIZE; ++i)
      if (CPU_ISSET(i, &set)) out.push_back(i);
  if (out.empty()) out.push_back(0);
  return out;
}

}  // namespace

void next_polling(PollState& s, unsigned cpus, unsigned job_threads,
                  std::optional<double> idle_cpus, std::optional<double> job_sleep_cpus) {
  const std::string jobs =
      std::to_string(job_threads) + (job_threads == 1 ? " job thread" : " job threads");
  if (job_threads >= cpus) {
    s.open = false;
    s.open_looks = 0;
    s.reason = jobs + " on " + of_cpus(cpus) + ": no CPU left to poll on";
    return;
  }
  if (!idle_cpus) {
    // Nothing measured with the gate as it is: close it and look over the next period.
    s.open = false;
    s.open_looks = 0;
    s.reason = jobs + " on " + of_cpus(cpus) + ": looking at the host first";
    return;
  }
  if (!s.open) {
    s.idle_cpus = std::max(0.0, *idle_cpus);
    s.sleep_cpus.reset();
    if (job_sleep_cpus) s.sleep_cpus = std::max(0.0, *job_sleep_cpus);
    const bool spare_cpu = *s.idle_cpus >= kPollIdleCpus;
    // Jobs that hardly sleep have nothing to gain from polling.
    const bool own_sleep = s.sleep_cpus && *s.sleep_cpus >= kPollMinSleepCpus &&
                           *s.idle_cpus >= kPollSleepShare * *s.sleep_cpus;
    s.open = spare_cpu || own_sleep;
    s.open_looks = 0;
    s.reason = cpus_text(*s.idle_cpus) + " of " + of_cpus(cpus) + " idle while the jobs slept";
    if (s.sleep_cpus) s.reason += " " + cpus_text(*s.sleep_cpus) + " CPUs' worth";
    s.reason += " (" + jobs + ")";
    if (!s.open)
      s.reason += s.sleep_cpus ? ": polling needs a whole idle CPU or the jobs' own sleep idle"
                               : ": polling needs a whole idle CPU";
    else if (!spare_cpu)
      s.reason += ": polling takes only the jobs' own sleep";
    return;
  }
  if (++s.open_looks >= kPollProbeEvery) {
    // A polling job keeps its CPU busy: only with the gate closed is the host's idle time seen.
    s.open = false;
    s.open_looks = 0;
    s.reason = "closed for a look at the host (" + cpus_text(s.idle_cpus.value_or(0)) + " of " +
               of_cpus(cpus) + " idle when last looked at, " + jobs + ")";
  }
}

std::optional<CpuTicks> cpu_ticks(const std::string& proc_stat, const std::vector<unsigned>& cpus) {
  CpuTicks t;
  std::vector<bool> seen(cpus.size(), false);
  std::istringstream in(proc_stat);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() < 4 || line.compare(0, 3, "cpu") != 0 || line[3] < '0' || line[3] > '9')
      continue;
    std::istringstream fields(line.substr(3));
    unsigned id = 0;
    if (!(fields >> id)) continue;
    const auto it = std::find(cpus.begin(), cpus.end(), id);
    if (it == cpus.end()) continue;
    // user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in
    // user and nice, so the last two are not added again.
    std::uint64_t v[8] = {};
    unsigned n = 0;
    while (n < 8 && fields >> v[n]) ++n;
    if (n < 4) return std::nullopt;
    std::uint64_t total = 0;
    for (unsigned i = 0; i < n; ++i) total += v[i];
    const std::uint64_t idle = v[3] + (n > 4 ? v[4] : 0);
    t.total += total;
    t.busy += total - idle;
    seen[static_cast<std::size_t>(it - cpus.begin())] = true;
  }
  if (std::find(seen.begin(), seen.end(), false) != seen.end()) return std::nullopt;
  return t;
}

PollBudget& PollBudget::host() {
  static PollBudget budget("/proc", {}, std::chrono::milliseconds(200));
  return budget;
}

PollBudget::PollBudget(std::string proc_root, std::vector<unsigned> cpus,
                       std::chrono::milliseconds period, bool look_thread)
    : root_(std::move(proc_root)),
      cpus_(cpus.empty() ? affinity_cpus() : std::move(cpus)),
      period_(period),
      look_thread_(look_thread) {}

PollBudget::~PollBudget() {
  std::lock_guard life(lifecycle_);
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

PollBudget::Lease PollBudget::enter(unsigned job_threads) {
  std::lock_guard life(lifecycle_);
  bool first = false, start = false;
  std::uint64_t looks, open_looks;
  {
    std::lock_guard lk(mu_);
    if (leases_++ == 0) {
      first = true;
      // A new run of looks: what an earlier workload left is stale.
      prev_ticks_.reset();
      state_ = PollState{};
      start = look_thread_;
      stop_ = false;
    }
    job_threads_ += job_threads;
    apply(std::nullopt);  // other job threads from now: measure again with the gate closed
    period_clean_ = false;
    looks = looks_;
    open_looks = open_looks_;
  }
  if (start) {
    if (thread_.joinable()) thread_.join();
    thread_ = std::thread([this] { loop(); });
  }
  // The first look starts the period over which the host is first measured.
  if (first) look();
  return Lease(this, job_threads, looks, open_looks);
}

void PollBudget::leave(unsigned jobs) {
  std::lock_guard life(lifecycle_);
  bool stop = false;
  {
    std::lock_guard lk(mu_);
    job_threads_ -= std::min(job_threads_, jobs);
    if (leases_ > 0 && --leases_ == 0) {
      stop_ = stop = true;
    } else {
      apply(std::nullopt);
      period_clean_ = false;
    }
  }
  cv_.notify_all();
  if (stop && thread_.joinable()) thread_.join();
}

void PollBudget::apply(std::optional<double> idle, std::optional<double> job_sleep) {
  next_polling(state_, cpus(), job_threads_, idle, job_sleep);
  gate_.allow.store(state_.open, std::memory_order_relaxed);
}

void PollBudget::watch(clockid_t clock) {
  const std::optional<std::uint64_t> cpu_ns = clock_now_ns(clock);
  if (!cpu_ns) return;
  std::lock_guard lk(mu_);
  watched_.push_back({clock, *cpu_ns});
  period_clean_ = false;  // this thread was not watched over the period so far
}

void PollBudget::unwatch(clockid_t clock) {
  std::lock_guard lk(mu_);
  std::erase_if(watched_, [clock](const Watched& w) { return w.clock == clock; });
  period_clean_ = false;
}

std::optional<double> PollBudget::job_sleep_cpus(std::uint64_t wall_ns) {
  bool complete = watched_.size() == job_threads_ && wall_ns > 0;
  std::uint64_t cpu_ns = 0;
  for (Watched& w : watched_) {
    const std::optional<std::uint64_t> now = clock_now_ns(w.clock);
    if (!now) {
      complete = false;
      continue;
    }
    cpu_ns += *now - std::min(*now, w.cpu_ns);
    w.cpu_ns = *now;
  }
  if (!complete) return std::nullopt;
  const double jobs = static_cast<double>(watched_.size());
  return jobs - static_cast<double>(cpu_ns) / static_cast<double>(wall_ns);
}

void PollBudget::loop() {
  std::unique_lock lk(mu_);
  while (!stop_) {
    cv_.wait_for(lk, period_, [this] { return stop_; });
    if (stop_) break;
    lk.unlock();
    look();
    lk.lock();
  }
}

std::optional<CpuTicks> PollBudget::read_ticks() const {
  std::ifstream f(root_ + "/stat");
  if (!f) return std::nullopt;
  std::stringstream text;
  text << f.rdbuf();
  return cpu_ticks(text.str(), cpus_);
}

void PollBudget::look() {
  const std::optional<CpuTicks> ticks = read_ticks();
  std::lock_guard lk(mu_);
  const std::uint64_t wall_ns = monotonic_now_ns();
  // Read every look, so that each watched clock's last value is this look's.
  const std::optional<double> sleep = job_sleep_cpus(wall_ns - std::min(wall_ns, prev_wall_ns_));
  prev_wall_ns_ = wall_ns;
  std::optional<double> idle;
  // Only a period with the gate and the job count as they are now says what the gate should be.
  if (ticks && prev_ticks_ && period_clean_ && ticks->total > prev_ticks_->total) {
    const double busy = static_cast<double>(ticks->busy - std::min(ticks->busy, prev_ticks_->busy));
    const double total = static_cast<double>(ticks->total - prev_ticks_->total);
    idle = (1 - busy / total) * static_cast<double>(cpus());
  }
  const bool counted = idle.has_value() || job_threads_ >= cpus();
  apply(idle, idle ? sleep : std::nullopt);
  // The gate changes here, at the start of the next period, which is therefore all one state.
  prev_ticks_ = ticks;
  period_clean_ = ticks.has_value();
  if (counted) {
    ++looks_;
    if (state_.open) ++open_looks_;
  }
}

std::string PollBudget::reason() const {
  std::lock_guard lk(mu_);
  return state_.reason;
}

PollBudget::Lease::~Lease() {
  if (budget_) budget_->leave(jobs_);
}

PollBudget::Lease::Watch PollBudget::Lease::watch_this_thread() const {
  clockid_t clock{};
  if (!budget_ || pthread_getcpuclockid(pthread_self(), &clock) != 0) return Watch(nullptr, clock);
  budget_->watch(clock);
  return Watch(budget_, clock);
}

PollBudget::Lease::Watch::~Watch() {
  if (budget_) budget_->unwatch(clock_);
}

engines::PollGate* PollBudget::Lease::gate() const {
  return budget_ ? &budget_->gate_ : nullptr;
}

std::string PollBudget::Lease::summary() const {
  if (!budget_) return "";
  std::uint64_t looks, open_looks;
  std::string last;
  bool now_open;
  {
    std::lock_guard lk(budget_->mu_);
    looks = budget_->looks_ - looks_;
    open_looks = budget_->open_looks_ - open_looks_;
    last = budget_->state_.reason;
    now_open = budget_->open();
  }
  std::string out;
  if (looks == 0) {
    out = now_open ? "allowed" : "not allowed";
  } else {
    char buf[96];
    std::snprintf(buf, sizeof buf, "allowed in %llu of %llu looks at the host (%.0f%%)",
                  static_cast<unsigned long long>(open_looks),
                  static_cast<unsigned long long>(looks),
                  100.0 * static_cast<double>(open_looks) / static_cast<double>(looks));
    out = buf;
  }
  return out + "; last: " + (now_open ? "open: " : "closed: ") + last;
}

}  // namespace storqual::runner
