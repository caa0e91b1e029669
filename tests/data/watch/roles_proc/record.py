#!/usr/bin/python3
"""Records the /proc files the watch's process-tree sampler reads, for a live process tree, as
snapshots the role tests replay (tests/watch_roles_test.cpp):

    record.py ROOT_PID OUT_DIR [SNAPSHOTS [INTERVAL_S]]

OUT_DIR/NN/proc/PID/stat and OUT_DIR/NN/proc/PID/task/TID/{stat,schedstat,syscall} for the root
and its descendants, SNAPSHOTS times (default 11) INTERVAL_S apart (default 0.1 s), and
OUT_DIR/NN/elapsed_s: seconds since the first. The test samples the first and the last
snapshot and looks at the thread states in those between, as the watch does 10 times a second.
Needs to read /proc/PID/task/TID/syscall: root, or the tree's own user with ptrace access.
"""
import os
import sys
import time

FILES = ("stat", "schedstat", "syscall")


def tree(root):
    parent = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            text = open("/proc/%s/stat" % name).read()
        except OSError:
            continue
        parent[int(name)] = int(text[text.rindex(")") + 2:].split()[1])
    pids, queue = [], [root]
    while queue:
        pid = queue.pop(0)
        pids.append(pid)
        queue.extend(sorted(p for p, pp in parent.items() if pp == pid))
    return pids


def copy(source, target):
    try:
        text = open(source).read()
    except OSError:
        return
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w") as f:
        f.write(text)


def main():
    root, out = int(sys.argv[1]), sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 11
    interval = float(sys.argv[4]) if len(sys.argv) > 4 else 0.1
    pids = tree(root)
    start = time.monotonic()
    for n in range(count):
        at = start + n * interval
        time.sleep(max(0.0, at - time.monotonic()))
        folder = os.path.join(out, "%02d" % n)
        elapsed = time.monotonic() - start
        for pid in pids:
            base = "/proc/%d" % pid
            copy(base + "/stat", os.path.join(folder, "proc", str(pid), "stat"))
            try:
                tids = os.listdir(base + "/task")
            except OSError:
                continue
            for tid in tids:
                for name in FILES:
                    copy("%s/task/%s/%s" % (base, tid, name), os.path.join(folder, "proc", str(pid), "task", tid, name))
        with open(os.path.join(folder, "elapsed_s"), "w") as f:
            f.write("%.6f\n" % elapsed)


if __name__ == "__main__":
    main()
