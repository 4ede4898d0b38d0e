// SPDX-License-Identifier: Apache-2.0
// The host's budget for completion polling (docs/measurement.md, "Waiting"). An io_uring job whose
// spin_wait is automatic polls for its completions only while a CPU of the host is really spare:
// polling keeps a waiter awake when completions come quicker than a wake-up, which pays where a
// core would otherwise idle, and only costs where every core has work (the kernel's io-wq workers
// completing the I/O, another target's jobs in a `run --parallel`, another process). Without it
// the job hands each batch over and sleeps for the next in one system call, as fio's t/io_uring.
//
// One budget per process. Every workload's jobs enter it (a Lease) while they run, so it knows
// the job threads of every target at once; a thread beside them looks at the CPUs this process
// may run on (/proc/stat's cpuN lines of its affinity mask) every `period` and opens or closes
// one gate (engines::PollGate) that every automatic job reads before it polls:
// - closed while the job threads are at least as many as the CPUs;
// - closed for the first period, to look at the host while the jobs sleep in their waits;
// - after a period with the gate closed: open when the CPUs were idle for at least a whole CPU's
//   worth (kPollIdleCpus) beside everything that ran (the jobs, the kernel's io-wq workers that
//   complete their I/O, other targets, other processes), or when they were idle for nearly as long
//   as the job threads slept (kPollSleepShare of it): polling turns only the jobs' own sleep into
//   busy time, so where nothing else ran in it, nobody loses the CPU (one job on a 2-CPU host
//   whose io-wq worker keeps the other CPU busy); else closed;
// - an open gate is closed again for one period after kPollProbeEvery, to look again: a polling
//   job keeps its CPU busy, so the host's idle time can only be seen with the gate closed.
// Each workload's result says how often its jobs were allowed to poll and why (CpuUsage::poll).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <ctime>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engines/engine.hpp"

namespace storqual::runner {

inline constexpr double kPollIdleCpus = 1.0;
// Idle CPU time, as a share of the time the job threads slept, that lets them poll: the rest of
// their sleep may have gone to another thread (an io-wq worker moving over, interrupts).
inline constexpr double kPollSleepShare = 0.75;
// Less sleep than this (in CPUs' worth) is not worth polling for.
inline constexpr double kPollMinSleepCpus = 0.1;
inline constexpr unsigned kPollProbeEvery = 10;

// The gate between looks, and what the last look with it closed saw.
struct PollState {
  bool open = false;
  unsigned open_looks = 0;           // looks since it opened
  std::optional<double> idle_cpus;   // idle CPUs over the last period with the gate closed
  std::optional<double> sleep_cpus;  // the job threads' time off a CPU over it, in CPUs
  std::string reason;  // "0.5 of 2 CPUs idle while the jobs slept 0.6 CPUs' worth (1 job ..."
};

// The rule (pure): one look. `idle_cpus`: the idle CPUs' worth over the period just ended, in
// which the gate was `s.open` throughout (nullopt: not known, e.g. the first look).
// `job_sleep_cpus`: the job threads' wall time less their CPU time over that period, in CPUs'
// worth (nullopt: not known for every job thread).
void next_polling(PollState& s, unsigned cpus, unsigned job_threads,
                  std::optional<double> idle_cpus,
                  std::optional<double> job_sleep_cpus = std::nullopt);

// Busy and total ticks of the CPUs in `cpus` (their ids) from a /proc/stat text; busy = every
// field but idle and iowait. nullopt when a listed CPU has no line.
struct CpuTicks {
  std::uint64_t busy = 0, total = 0;
};
[[nodiscard]] std::optional<CpuTicks> cpu_ticks(const std::string& proc_stat,
                                                const std::vector<unsigned>& cpus);

class PollBudget {
 public:
  // The process's budget: /proc, the CPUs of the process's affinity mask, a look every 200 ms.
  static PollBudget& host();

  // `cpus`: the CPU ids to watch (empty: the process's affinity mask). `look_thread` false: no
  // thread; the caller calls look() (tests).
  PollBudget(std::string proc_root, std::vector<unsigned> cpus, std::chrono::milliseconds period,
             bool look_thread = true);
  ~PollBudget();
  PollBudget(const PollBudget&) = delete;
  PollBudget& operator=(const PollBudget&) = delete;

  // A workload's job threads while they run; leaving is the destructor.
  class Lease {
   public:
    Lease(Lease&& o) noexcept
        : budget_(o.budget_), jobs_(o.jobs_), looks_(o.looks_), open_looks_(o.open_looks_) {
      o.budget_ = nullptr;
    }
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    // The gate an automatic job's engine reads (EngineConfig::poll_gate).
    [[nodiscard]] engines::PollGate* gate() const;
    // "allowed in 3 of 20 looks at the host (15%); last: closed: 0.6 of 2 CPUs idle ..."
    [[nodiscard]] std::string summary() const;

    // The calling job thread's CPU time counts in the budget's looks from now until the Watch
    // ends, which must be before the thread does (its CPU clock goes with it).
    class Watch {
     public:
      Watch(Watch&& o) noexcept : budget_(o.budget_), clock_(o.clock_) { o.budget_ = nullptr; }
      Watch& operator=(Watch&&) = delete;
      ~Watch();

     private:
      friend class Lease;
      Watch(PollBudget* b, clockid_t c) : budget_(b), clock_(c) {}
      PollBudget* budget_;
      clockid_t clock_;
    };
    [[nodiscard]] Watch watch_this_thread() const;

   private:
    friend class PollBudget;
    Lease(PollBudget* b, unsigned jobs, std::uint64_t looks, std::uint64_t open_looks)
        : budget_(b), jobs_(jobs), looks_(looks), open_looks_(open_looks) {}
    PollBudget* budget_;
    unsigned jobs_;
    std::uint64_t looks_, open_looks_;  // the budget's counters when the lease began
  };
  [[nodiscard]] Lease enter(unsigned job_threads);

  // One look at the host and a decision.
  void look();
  [[nodiscard]] bool open() const { return gate_.allow.load(std::memory_order_relaxed); }
  [[nodiscard]] std::string reason() const;
  [[nodiscard]] unsigned cpus() const { return static_cast<unsigned>(cpus_.size()); }

 private:
  void leave(unsigned jobs);
  void watch(clockid_t clock);
  void unwatch(clockid_t clock);
  // The watched threads' time off a CPU since the last look, in CPUs' worth over `wall_ns` (mu_
  // held); nullopt unless every job thread is watched and was over the whole period.
  std::optional<double> job_sleep_cpus(std::uint64_t wall_ns);
  void loop();
  std::optional<CpuTicks> read_ticks() const;
  // next_polling on state_, then the gate (mu_ held)
  void apply(std::optional<double> idle, std::optional<double> job_sleep = std::nullopt);

  std::string root_;
  std::vector<unsigned> cpus_;
  std::chrono::milliseconds period_;
  bool look_thread_;
  engines::PollGate gate_;

  std::mutex lifecycle_;  // enter/leave: starting and stopping the thread
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
  unsigned leases_ = 0, job_threads_ = 0;
  std::optional<CpuTicks> prev_ticks_;
  std::uint64_t prev_wall_ns_ = 0;  // steady clock at the last look
  struct Watched {
    clockid_t clock;
    std::uint64_t cpu_ns;  // its CPU time at the last look
  };
  std::vector<Watched> watched_;
  bool period_clean_ = false;  // the gate and the job count unchanged since prev_ticks_ was read
  PollState state_;
  std::uint64_t looks_ = 0, open_looks_ = 0;
};

}  // namespace storqual::runner
