// SPDX-License-Identifier: Apache-2.0
// The numbers of one workload printed the way fio prints them, so that people who read fio output
// every day can read ours (and compare side by side).
#pragma once

#include <string>

#include "model/result.hpp"

namespace storqual::reporting {

// Example (lines end with '\n'):
//   randread-4k-qd32: (jobs=1): err= 0: rw=randread, bs=4k, iodepth=32, ioengine=io_uring
//     read: IOPS=97.0k, BW=379MiB/s (397MB/s)(22.2GiB/60001msec)
//       slat (nsec): min=1042, max=48210, avg=2345.67, stdev=456.78
//       clat (usec): min=45, max=12345, avg=329.12, stdev=123.45
//        lat (usec): min=47, max=12347, avg=331.46, stdev=123.50
//       clat percentiles (usec):
//        |  1.00th=[  126],  5.00th=[  155], 10.00th=[  176], 20.00th=[  210],
//        ...
//      bw (  KiB/s): min=..., max=..., avg=..., stdev=..., samples=60   (from the timeline)
//      iops        : min=..., max=..., avg=..., stdev=..., samples=60
//     cpu          : usr=10.12%, sys=35.67% (per-job average); all 1 together: ...
//     IO depths    : 1=0.1%, 2=0.1%, 4=0.1%, 8=0.1%, 16=0.1%, 32=99.9%, >=64=0.0%
//        issued rwts: total=5820000,0,0,0 short=0,0,0,0 (counted, after ramp)
//
//   Disk stats (read/write):
//     zram0: ios=5820100/0, merge=0/0, ticks=1200/0, in_queue=1200, util=99.80%
// A "# ..." line under the header says what each figure is: IOPS and BW per direction summed over
// the jobs, latencies per I/O, the bw/iops rows per timeline interval, cpu per job; a mixed
// workload adds a read+write line (what `iops` claims judge).
// Units follow fio: a latency line switches from nsec to usec when min > 2000 ns, max > 99999 ns
// and stdev > 1000 ns, and again to msec by the same rule; percentiles switch on min and max.
[[nodiscard]] std::string format_fio_summary(const WorkloadResult& workload);

// The "# ..." legend line alone (ends with '\n').
[[nodiscard]] std::string figure_legend(const WorkloadResult& workload);

// What goes next to a workload's equivalent fio command when the host, not the device, limited its
// figure (host_limit->limited): fio's own per-I/O overhead is larger than storqual's, so on this
// host the command reports a lower figure. "" otherwise. One sentence, no newline.
[[nodiscard]] std::string fio_command_caveat(const WorkloadResult& workload);

}  // namespace storqual::reporting
