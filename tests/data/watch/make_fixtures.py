#!/usr/bin/env python3
"""Writes the watch.csv fixtures the rules are tested on (tests/watch_rules_test.cpp).

Each fixture is a recorded-style watch.csv of a known situation, deterministic (no randomness
beyond a fixed-seed jitter), so the expected verdicts never move. Run from this folder:
    python3 make_fixtures.py
"""
import random

COLUMNS = ("utc_time,elapsed_s,source,id,name,job,util_pct,mem_util_pct,sm_clock_mhz,power_w,power_limit_w,"
           "mem_used_mib,pcie_rx_mbs,pcie_tx_mbs,throttle_reasons,cpu_pct,cpu_s,processes,threads,busy_threads,"
           "busy_processes,top_thread_pct,top_thread_demand_pct,top_thread,read_mbs,read_iops,write_mbs,write_iops,"
           "disk_util_pct,r_await_ms,aqu_sz,iowait_pct,core_util_pct,run_wait_pct,io_blocked_pct,top_blocked_pct,"
           "top_blocked_thread").split(",")


def row(t, source, **cells):
    cells.update(utc_time="2026-11-30T09:%02d:%02d.000Z" % (int(t) // 60, int(t) % 60),
                 elapsed_s="%.3f" % t, source=source)
    return ",".join(str(cells.get(c, "")) for c in COLUMNS)


def gpu(t, index, util, power, limit=700.0, reasons="", rx=1200.0, tx=80.0):
    return row(t, "gpu", id=index, name="0000:%02x:00.0" % (0x17 + index), job=1, util_pct="%.0f" % util,
               mem_util_pct="%.0f" % (util * 0.4), sm_clock_mhz=1980, power_w="%.1f" % power,
               power_limit_w="%.1f" % limit, mem_used_mib=61000, pcie_rx_mbs="%.1f" % rx, pcie_tx_mbs="%.1f" % tx,
               throttle_reasons=reasons)


def job(t, cpu, top, demand, busy_threads, busy_procs, read=0.0, procs=1, threads=12, name="python:4242",
        wait=0.0, blocked=None, top_blocked=0.0, blocked_name=""):
    return row(t, "job", cpu_pct="%.1f" % cpu, cpu_s="%.2f" % (cpu / 100 * t), processes=procs, threads=threads,
               busy_threads=busy_threads, busy_processes=busy_procs, top_thread_pct="%.1f" % top,
               top_thread_demand_pct="%.1f" % demand, top_thread=name, read_mbs="%.2f" % read,
               run_wait_pct="%.1f" % wait, io_blocked_pct="" if blocked is None else "%.1f" % blocked,
               top_blocked_pct="%.1f" % top_blocked, top_blocked_thread=blocked_name)


def host(t, cpu, cores, iowait=0.5):
    return row(t, "host", cpu_pct="%.1f" % cpu, iowait_pct="%.1f" % iowait,
               core_util_pct="|".join("%.0f" % c for c in cores))


def disk(t, name, read, iops, util, await_ms, aqu):
    return row(t, "disk", id=name, job=1, read_mbs="%.2f" % read, read_iops="%.1f" % iops, write_mbs="0.00",
               write_iops="0.0", disk_util_pct="%.1f" % util, r_await_ms="%.2f" % await_ms, aqu_sz="%.2f" % aqu)


def write(name, samples):
    with open(name, "w") as f:
        f.write(",".join(COLUMNS) + "\n")
        for lines in samples:
            for line in lines:
                f.write(line + "\n")


def jitter(rng, value, spread):
    return value + rng.uniform(-spread, spread)


def main():
    rng = random.Random(8)

    # A GPU at 95%+ utilization drawing a quarter of its power limit: small kernels, launch-bound.
    write("gpu_busy_not_loaded.csv", [
        [gpu(t, 0, jitter(rng, 96, 3), jitter(rng, 180, 10)),
         job(t, 104, 99, 100, 1, 1), host(t, 6.5, [100, 2] + [1] * 14)]
        for t in range(0, 61)])

    # Two GPUs at 100% at their power limit (SwPowerCap): compute bound, healthy.
    write("gpu_compute_bound.csv", [
        [gpu(t, 0, 100, jitter(rng, 690, 8), reasons="SwPowerCap"),
         gpu(t, 1, 100, jitter(rng, 692, 6), reasons="SwPowerCap"),
         job(t, 230, 60, 70, 2, 2, procs=2, threads=40), host(t, 15, [60, 60] + [5] * 14)]
        for t in range(0, 61)])

    # Four GPUs; every 6 s gpu2's utilization dips one second before the others': a sawtooth.
    samples = []
    for t in range(0, 91):
        lines = []
        phase = t % 6
        for index in range(4):
            dip = phase in (3, 4) if index == 2 else phase in (4, 5)
            util = 10 if dip else jitter(rng, 95, 2)
            lines.append(gpu(t, index, util, 200 if dip else jitter(rng, 610, 10)))
        lines += [job(t, 410, 90, 95, 4, 4, procs=4, threads=160), host(t, 30, [95] * 4 + [10] * 12)]
        samples.append(lines)
    write("gpu_straggler.csv", samples)

    # Compute bound, but every 20 s the GPU idles for 4 s (an evaluation or a checkpoint).
    samples = []
    for t in range(0, 121):
        idle = t >= 10 and t % 20 in (16, 17, 18, 19)
        samples.append([gpu(t, 0, 0 if idle else jitter(rng, 97, 2), 90 if idle else jitter(rng, 650, 10)),
                        job(t, 100, 95, 98, 1, 1), host(t, 8, [100] + [2] * 15)])
    write("gpu_periodic.csv", samples)

    # Low GPU utilization while one thread of one process sits at 100%: num_workers=0.
    write("gpu_input_single_process.csv", [
        [gpu(t, 0, jitter(rng, 30, 6), jitter(rng, 210, 15)),
         job(t, 101, 97, 100, 1, 1, threads=9), host(t, 7, [100] + [3] * 15)]
        for t in range(0, 61)])

    # Low GPU utilization; the job reads 180 MB/s from sda, busy 97% of the time.
    write("gpu_storage_bound.csv", [
        [gpu(t, 0, jitter(rng, 28, 5), jitter(rng, 190, 10)),
         job(t, 140, 35, 40, 0, 0, read=jitter(rng, 181, 3), procs=5, threads=60),
         host(t, 12, [40, 30, 30, 25] + [3] * 12, iowait=22),
         disk(t, "sda", jitter(rng, 182, 3), jitter(rng, 1450, 30), jitter(rng, 97, 2), 21.0, 30.5)]
        for t in range(0, 61)])

    # No GPU: one thread runnable all the time, getting half a core on a 2-core machine that a
    # build keeps busy: contention, and single-threaded.
    write("cpu_single_thread.csv", [
        [job(t, jitter(rng, 55, 10), jitter(rng, 55, 10), jitter(rng, 99, 1), 1, 1, threads=1, name="sh:777"),
         host(t, 100, [100, 100])]
        for t in range(0, 31)])

    # No GPU: a 2-process CPU pool on 2 cores while another program takes one of them. Each worker
    # is runnable all the time and on a CPU two thirds of it.
    write("cpu_contention.csv", [
        [job(t, jitter(rng, 133, 8), jitter(rng, 67, 5), jitter(rng, 99, 1), 2, 2, procs=3, threads=3,
             name="python3:5001", wait=jitter(rng, 66, 6)),
         host(t, 100, [100, 100])]
        for t in range(0, 31)])

    # No GPU: one process reads files one at a time with a cold page cache (1 MiB reads): on a CPU
    # 30% of the time, blocked on reads 65%; the disk 70% busy with about one read in flight.
    write("cold_reader.csv", [
        [job(t, jitter(rng, 30, 4), jitter(rng, 30, 4), jitter(rng, 32, 4), 0, 0, read=jitter(rng, 480, 40),
             threads=1, name="python3:6001", wait=jitter(rng, 2, 1), blocked=jitter(rng, 65, 5),
             top_blocked=jitter(rng, 65, 5), blocked_name="python3:6001"),
         host(t, 18, [30, 6], iowait=28),
         disk(t, "vda", jitter(rng, 482, 40), jitter(rng, 470, 30), jitter(rng, 71, 3), 1.4, 0.92)]
        for t in range(0, 31)])

    # No GPU: a 2-process pool (200% of a core) that stalls for 2.0 s every 7.5 s, sampled every
    # second: most stalls start and end inside a sample, which is then partly idle.
    samples = []
    for t in range(0, 91):
        busy = 1.0
        for k in range(13):
            start = 3.3 + 7.5 * k
            overlap = max(0.0, min(t, start + 2.0) - max(t - 1, start))
            busy -= overlap
        cpu = 200 * busy
        samples.append([job(t, cpu, cpu / 2, cpu / 2, 2 if busy > 0.5 else 0, 2 if busy > 0.5 else 0, procs=3,
                            threads=3, name="python3:7001"),
                        host(t, cpu / 2, [cpu / 2, cpu / 2])])
    write("cpu_periodic_partial.csv", samples)


if __name__ == "__main__":
    main()
