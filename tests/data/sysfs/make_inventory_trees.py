#!/usr/bin/env python3
"""Writes the recorded /sys and /proc trees of tests/data/sysfs that inventory_trees_test.cpp reads.

Each tree is one machine class that pipecheck's inventory once got wrong. The files follow the
kernel's documentation (Documentation/ABI/testing/sysfs-devices-system-cpu, admin-guide/cputopology,
sysfs-block, the SCSI peripheral device types, each architecture's show_cpuinfo) and what Debian
hosts print; none is copied from another project. Run it from anywhere: it rewrites the trees
below next to itself (delete a tree's folder first to drop files it no longer writes).
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


class Tree:
    def __init__(self, name):
        self.root = os.path.join(HERE, name)

    def write(self, path, text):
        full = os.path.join(self.root, path.lstrip("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(full, mode) as f:
            f.write(text)

    def link(self, path, target):
        full = os.path.join(self.root, path.lstrip("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if os.path.islink(full):
            os.remove(full)
        os.symlink(target, full)

    def relative_link(self, path, system_target):
        """A symlink at `path` pointing at the absolute system path `system_target`, made relative."""
        base = os.path.dirname(path.lstrip("/"))
        self.link(path, os.path.relpath(system_target.lstrip("/"), base))


def cpu_list(cpus):
    cpus = sorted(cpus)
    parts, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(parts)


def cpu_mask(cpus, nr_cpus):
    """The kernel's bitmap format: 32-bit hex groups, most significant first, comma-separated."""
    value = 0
    for cpu in cpus:
        value |= 1 << cpu
    groups = max(1, (nr_cpus + 31) // 32)
    return ",".join("%08x" % ((value >> (32 * g)) & 0xFFFFFFFF) for g in reversed(range(groups)))


def cpu_topology(tree, cpu, nr_cpus, package, core, threads, package_cpus, old_names=False, extra=None):
    d = "/sys/devices/system/cpu/cpu%d/topology/" % cpu
    tree.write(d + "physical_package_id", "%d\n" % package)
    tree.write(d + "core_id", "%d\n" % core)
    if old_names:
        # Kernels before 5.x without the *_cpus names; before 2.6.36 also without the lists.
        tree.write(d + "thread_siblings", cpu_mask(threads, nr_cpus) + "\n")
        tree.write(d + "core_siblings", cpu_mask(package_cpus, nr_cpus) + "\n")
    else:
        for name, cpus in (("core_cpus", threads), ("thread_siblings", threads), ("package_cpus", package_cpus),
                           ("core_siblings", package_cpus)):
            tree.write(d + name, cpu_mask(cpus, nr_cpus) + "\n")
            tree.write(d + name + "_list", cpu_list(cpus) + "\n")
    for name, value in (extra or {}).items():
        tree.write(d + name, value + "\n")


def cache(tree, cpu, index, level, ctype, size_k, shared, nr_cpus, with_list=True):
    d = "/sys/devices/system/cpu/cpu%d/cache/index%d/" % (cpu, index)
    tree.write(d + "level", "%d\n" % level)
    tree.write(d + "type", ctype + "\n")
    tree.write(d + "size", "%dK\n" % size_k)
    tree.write(d + "coherency_line_size", "64\n")
    tree.write(d + "shared_cpu_map", cpu_mask(shared, nr_cpus) + "\n")
    if with_list:
        tree.write(d + "shared_cpu_list", cpu_list(shared) + "\n")


def numa_node(tree, node, cpus, nr_cpus, mem_kib):
    d = "/sys/devices/system/node/node%d/" % node
    tree.write(d + "cpumap", cpu_mask(cpus, nr_cpus) + "\n")
    tree.write(d + "cpulist", cpu_list(cpus) + "\n")
    if mem_kib is not None:
        tree.write(d + "meminfo", "Node %d MemTotal:       %d kB\nNode %d MemFree:        %d kB\n"
                   % (node, mem_kib, node, mem_kib // 2))


def cpu_files(tree, nr_cpus):
    tree.write("/sys/devices/system/cpu/online", "0-%d\n" % (nr_cpus - 1))
    tree.write("/sys/devices/system/cpu/possible", "0-%d\n" % (nr_cpus - 1))
    tree.write("/sys/devices/system/cpu/present", "0-%d\n" % (nr_cpus - 1))


def identity(tree, hostname, release):
    tree.write("/proc/sys/kernel/hostname", hostname + "\n")
    tree.write("/proc/sys/kernel/osrelease", release + "\n")


def meminfo(tree, kib):
    tree.write("/proc/meminfo", "MemTotal:       %d kB\nMemFree:        %d kB\nMemAvailable:   %d kB\n"
               % (kib, kib // 2, kib // 2))


def bridge_config(secondary, subordinate, primary=0):
    """64 bytes of a type 1 (PCI-to-PCI bridge) configuration header, as sysfs' config starts."""
    config = bytearray(64)
    struct.pack_into("<HH", config, 0, 0x8086, 0x2030)   # vendor, device
    config[0x0B], config[0x0A] = 0x06, 0x04              # class: bridge, PCI-to-PCI
    config[0x0E] = 0x01                                  # header type 1
    config[0x18], config[0x19], config[0x1A] = primary, secondary, subordinate
    return bytes(config)


def pci_function(tree, path, vendor, device, klass, numa=-1, local_cpus=None, nr_cpus=0, link=None,
                 driver=None, config=None):
    """A PCI function at its /sys/devices path, linked from /sys/bus/pci/devices."""
    bdf = path.rstrip("/").split("/")[-1]
    d = path.rstrip("/") + "/"
    tree.write(d + "vendor", "0x%04x\n" % vendor)
    tree.write(d + "device", "0x%04x\n" % device)
    tree.write(d + "class", "0x%06x\n" % klass)
    tree.write(d + "numa_node", "%d\n" % numa)
    if local_cpus is not None:
        tree.write(d + "local_cpus", cpu_mask(local_cpus, nr_cpus) + "\n")
        tree.write(d + "local_cpulist", cpu_list(local_cpus) + "\n")
    if link:
        speed, width, max_speed, max_width = link
        tree.write(d + "current_link_speed", speed + "\n")
        tree.write(d + "current_link_width", "%d\n" % width)
        tree.write(d + "max_link_speed", max_speed + "\n")
        tree.write(d + "max_link_width", "%d\n" % max_width)
    if config:
        tree.write(d + "config", config)
    if driver:
        tree.relative_link(d + "driver", "/sys/bus/pci/drivers/" + driver)
        os.makedirs(os.path.join(tree.root, "sys/bus/pci/drivers", driver), exist_ok=True)
    tree.relative_link("/sys/bus/pci/devices/" + bdf, path)


def block_device(tree, name, device_path, sectors, rotational, vendor=None, model=None, scsi_type=None,
                 removable=0):
    """/sys/block/NAME -> its folder below the device, with the usual attributes."""
    block = device_path.rstrip("/") + "/block/" + name
    tree.write(block + "/size", "%d\n" % sectors)
    tree.write(block + "/removable", "%d\n" % removable)
    tree.write(block + "/queue/rotational", "%d\n" % rotational)
    tree.write(block + "/queue/logical_block_size", "512\n")
    tree.relative_link(block + "/device", device_path)
    if vendor is not None:
        tree.write(device_path + "/vendor", vendor + "\n")
    if model is not None:
        tree.write(device_path + "/model", model + "\n")
    if scsi_type is not None:
        tree.write(device_path + "/type", "%d\n" % scsi_type)
    tree.relative_link("/sys/block/" + name, block)


# --- the trees --------------------------------------------------------------------------------

def x86_old_kernel():
    """2-socket Intel Xeon E5-2643 (4 cores, 2 threads each, 10 MiB L3 per socket) on a kernel that
    writes shared_cpu_map without shared_cpu_list and the old topology names: L3 once per socket."""
    t = Tree("x86_old_kernel")
    n = 16
    identity(t, "oldxeon", "2.6.32-754.el6.x86_64")
    meminfo(t, 65842968)
    cpu_files(t, n)
    core_ids = [0, 1, 9, 10]
    cpuinfo = []
    for cpu in range(n):
        package = (cpu // 4) % 2
        core_slot = cpu % 4
        sibling = cpu + 8 if cpu < 8 else cpu - 8
        threads = sorted({cpu, sibling})
        package_cpus = [c for c in range(n) if (c // 4) % 2 == package]
        cpu_topology(t, cpu, n, package, core_ids[core_slot], threads, package_cpus, old_names=True)
        cache(t, cpu, 0, 1, "Data", 32, threads, n, with_list=False)
        cache(t, cpu, 1, 1, "Instruction", 32, threads, n, with_list=False)
        cache(t, cpu, 2, 2, "Unified", 256, threads, n, with_list=False)
        cache(t, cpu, 3, 3, "Unified", 10240, package_cpus, n, with_list=False)
        cpuinfo.append("processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 45\n"
                       "model name\t: Intel(R) Xeon(R) CPU E5-2643 0 @ 3.30GHz\nstepping\t: 7\n"
                       "cache size\t: 10240 KB\nphysical id\t: %d\nsiblings\t: 8\ncore id\t\t: %d\n"
                       "cpu cores\t: 4\napicid\t\t: %d\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep\n"
                       % (cpu, package, core_ids[core_slot], cpu))
    t.write("/proc/cpuinfo", "\n".join(cpuinfo) + "\n")
    numa_node(t, 0, [c for c in range(n) if (c // 4) % 2 == 0], n, 32921484)
    numa_node(t, 1, [c for c in range(n) if (c // 4) % 2 == 1], n, 32921484)


def power9_lpar():
    """POWER9 PowerVM LPAR: physical_package_id -1 on every CPU, SMT4 cores, core_siblings the
    pair of cores sharing an L2 (what the kernel falls back to without a chip id); cpuinfo's
    model on the `cpu` line."""
    t = Tree("power9_lpar")
    n = 16
    identity(t, "p9lpar", "4.18.0-513.el8.ppc64le")
    meminfo(t, 133480896)
    cpu_files(t, n)
    for cpu in range(n):
        core = cpu // 4
        threads = list(range(core * 4, core * 4 + 4))
        pair = list(range((core // 2) * 8, (core // 2) * 8 + 8))
        cpu_topology(t, cpu, n, -1, core * 4, threads, pair)
        cache(t, cpu, 0, 1, "Data", 32, threads, n)
        cache(t, cpu, 1, 1, "Instruction", 32, threads, n)
        cache(t, cpu, 2, 2, "Unified", 512, pair, n)
        cache(t, cpu, 3, 3, "Unified", 10240, pair, n)
    blocks = ["processor\t: %d\ncpu\t\t: POWER9 (architected), altivec supported\nclock\t\t: 2750.000000MHz\n"
              "revision\t: 2.2 (pvr 004e 0202)\n" % cpu for cpu in range(n)]
    t.write("/proc/cpuinfo", "\n".join(blocks) + "\ntimebase\t: 512000000\nplatform\t: pSeries\n"
            "model\t\t: IBM,9009-42A\nmachine\t\t: CHRP IBM,9009-42A\nMMU\t\t: Radix\n")
    numa_node(t, 0, list(range(n)), n, 133480896)


def s390x_books():
    """s390x z/VM guest on a z13: physical_package_id -1, core ids that repeat across the two
    books, no thread siblings recorded (no SMT); cpuinfo without a model name."""
    t = Tree("s390x_books")
    n = 4
    identity(t, "zguest", "5.14.0-362.el9.s390x")
    meminfo(t, 8126464)
    cpu_files(t, n)
    for cpu in range(n):
        d = "/sys/devices/system/cpu/cpu%d/topology/" % cpu
        t.write(d + "physical_package_id", "-1\n")
        t.write(d + "core_id", "%d\n" % (cpu % 2))
        t.write(d + "book_id", "%d\n" % (cpu // 2))
        t.write(d + "drawer_id", "0\n")
    lines = ["vendor_id       : IBM/S390", "# processors    : 4", "bogomips per cpu: 3241.00",
             "max thread id   : 0", "features\t: esan3 zarch stfle msa ldisp eimm dfp edat etf3eh highgprs te vx sie"]
    lines += ["processor %d: version = FF,  identification = 0133E8,  machine = 2964" % cpu for cpu in range(n)]
    lines.append("")
    for cpu in range(n):
        lines += ["cpu number      : %d" % cpu, "cpu MHz dynamic : 5000", "cpu MHz static  : 5000", ""]
    t.write("/proc/cpuinfo", "\n".join(lines) + "\n")


def amd_multi_die():
    """2-socket AMD Opteron 6174 (Magny-Cours): two 6-core dies a package, core ids 0-5 on each
    die, so they repeat inside a package; cpuinfo says 12 cores a package. 6 MiB L3 a die."""
    t = Tree("amd_multi_die")
    n = 24
    identity(t, "magnycours", "3.10.0-1160.el7.x86_64")
    meminfo(t, 131900000)
    cpu_files(t, n)
    cpuinfo = []
    for cpu in range(n):
        package, die, core = cpu // 12, cpu // 6, cpu % 6
        package_cpus = list(range(package * 12, package * 12 + 12))
        die_cpus = list(range(die * 6, die * 6 + 6))
        cpu_topology(t, cpu, n, package, core, [cpu], package_cpus)
        cache(t, cpu, 0, 1, "Data", 64, [cpu], n)
        cache(t, cpu, 1, 1, "Instruction", 64, [cpu], n)
        cache(t, cpu, 2, 2, "Unified", 512, [cpu], n)
        cache(t, cpu, 3, 3, "Unified", 6144, die_cpus, n)
        cpuinfo.append("processor\t: %d\nvendor_id\t: AuthenticAMD\ncpu family\t: 16\nmodel\t\t: 9\n"
                       "model name\t: AMD Opteron(tm) Processor 6174\nphysical id\t: %d\nsiblings\t: 12\n"
                       "core id\t\t: %d\ncpu cores\t: 12\n" % (cpu, package, core))
    t.write("/proc/cpuinfo", "\n".join(cpuinfo) + "\n")
    for die in range(4):
        numa_node(t, die, list(range(die * 6, die * 6 + 6)), n, 32975000)


def arm_server():
    """Ampere Altra-like aarch64 server: cpuinfo names implementer and part, no model name."""
    t = Tree("arm_server")
    n = 8
    identity(t, "altra", "6.1.0-18-arm64")
    meminfo(t, 65536000)
    cpu_files(t, n)
    blocks = []
    for cpu in range(n):
        cpu_topology(t, cpu, n, 0, cpu, [cpu], list(range(n)))
        cache(t, cpu, 0, 1, "Data", 64, [cpu], n)
        cache(t, cpu, 1, 1, "Instruction", 64, [cpu], n)
        cache(t, cpu, 2, 2, "Unified", 1024, [cpu], n)
        blocks.append("processor\t: %d\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32\n"
                      "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\n"
                      "CPU revision\t: 1\n" % cpu)
    t.write("/proc/cpuinfo", "\n".join(blocks) + "\n")
    numa_node(t, 0, list(range(n)), n, 65536000)


def vm_bare():
    """A small VM whose kernel has no NUMA (no /sys/devices/system/node) and a tree recorded
    without /proc/meminfo: one NUMA node, memory unknown."""
    t = Tree("vm_bare")
    n = 4
    identity(t, "tinyvm", "6.1.0-13-cloud-amd64")
    cpu_files(t, n)
    blocks = []
    for cpu in range(n):
        cpu_topology(t, cpu, n, 0, cpu, [cpu], list(range(n)))
        cache(t, cpu, 0, 1, "Data", 48, [cpu], n)
        cache(t, cpu, 1, 1, "Instruction", 32, [cpu], n)
        cache(t, cpu, 2, 2, "Unified", 1280, [cpu], n)
        cache(t, cpu, 3, 3, "Unified", 55296, list(range(n)), n)
        blocks.append("processor\t: %d\nvendor_id\t: GenuineIntel\nmodel name\t: Intel Xeon Processor (Icelake)\n"
                      "physical id\t: 0\ncore id\t\t: %d\ncpu cores\t: 4\n" % (cpu, cpu))
    t.write("/proc/cpuinfo", "\n".join(blocks) + "\n")


def disks_old_kernel():
    """Disks as a 2.6/3.x kernel lays them out: a SATA SSD on AHCI without /ataN/ in its path
    (vendor ATA), an optical drive (sr0, SCSI type 5, the 1 GiB no-disc size), a SAS disk on an
    HBA, and a floppy."""
    t = Tree("disks_old_kernel")
    identity(t, "oldstorage", "3.10.0-1160.el7.x86_64")
    ahci = "/sys/devices/pci0000:00/0000:00:1f.2"
    pci_function(t, ahci, 0x8086, 0x8d02, 0x010601, numa=0, driver="ahci")
    block_device(t, "sda", ahci + "/host0/target0:0:0/0:0:0:0", 976773168, 0, "ATA", "Samsung SSD 850", 0)
    block_device(t, "sr0", ahci + "/host1/target1:0:0/1:0:0:0", 2097151, 1, "HL-DT-ST", "DVD+-RW GHB0N", 5, removable=1)
    hba = "/sys/devices/pci0000:00/0000:00:01.0/0000:02:00.0"
    pci_function(t, "/sys/devices/pci0000:00/0000:00:01.0", 0x8086, 0x6f02, 0x060400, numa=0, driver="pcieport")
    pci_function(t, hba, 0x1000, 0x0097, 0x010700, numa=0, driver="mpt3sas")
    block_device(t, "sdb", hba + "/host2/port-2:0/end_device-2:0/target2:0:0/2:0:0:0", 3907029168, 1,
                 "SEAGATE", "ST2000NM0045", 0)
    t.write("/sys/devices/platform/floppy.0/block/fd0/size", "8\n")
    t.write("/sys/devices/platform/floppy.0/block/fd0/removable", "1\n")
    t.write("/sys/devices/platform/floppy.0/block/fd0/queue/rotational", "1\n")
    t.relative_link("/sys/block/fd0", "/sys/devices/platform/floppy.0/block/fd0")


def vmd_nvme():
    """NVMe behind Intel VMD: the VMD endpoint opens PCI domain 10000 (wider than 16 bits, which
    Debian's hwloc 2.9 drops); its root port 10000:00:02.0 and the NVMe 10000:01:00.0 below."""
    t = Tree("vmd_nvme")
    n = 8
    identity(t, "vmdhost", "6.1.0-18-amd64")
    meminfo(t, 263855936)
    cpu_files(t, n)
    for cpu in range(n):
        cpu_topology(t, cpu, n, 0, cpu, [cpu], list(range(n)))
    t.write("/proc/cpuinfo", "".join("processor\t: %d\nmodel name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz\n"
                                     "physical id\t: 0\ncore id\t\t: %d\ncpu cores\t: 8\n\n" % (c, c) for c in range(n)))
    vmd = "/sys/devices/pci0000:00/0000:00:0e.0"
    pci_function(t, vmd, 0x8086, 0x28c0, 0x010400, numa=0, local_cpus=range(n), nr_cpus=n, driver="vmd")
    port = vmd + "/pci10000:00/10000:00:02.0"
    pci_function(t, port, 0x8086, 0x347a, 0x060400, numa=0, local_cpus=range(n), nr_cpus=n,
                 link=("16.0 GT/s PCIe", 4, "16.0 GT/s PCIe", 4), driver="pcieport")
    nvme = port + "/10000:01:00.0"
    pci_function(t, nvme, 0x144d, 0xa80a, 0x010802, numa=0, local_cpus=range(n), nr_cpus=n,
                 link=("16.0 GT/s PCIe", 4, "16.0 GT/s PCIe", 4), driver="nvme")
    ctrl = nvme + "/nvme/nvme0"
    t.write(ctrl + "/model", "SAMSUNG MZQL23T8HCLS-00A07\n")
    t.write(ctrl + "/transport", "pcie\n")
    t.relative_link(ctrl + "/device", nvme)
    t.relative_link("/sys/class/nvme/nvme0", ctrl)
    ns = ctrl + "/nvme0n1"
    t.write(ns + "/size", "7501476528\n")
    t.write(ns + "/queue/rotational", "0\n")
    t.write(ns + "/queue/logical_block_size", "4096\n")
    t.relative_link(ns + "/device", ctrl)
    t.relative_link("/sys/block/nvme0n1", ns)


def gh200_gpu_memory():
    """A GH200-like node: one CPU node with LPDDR5X, the GPU's HBM as CPU-less node 1 (the
    driver's numa_status names it), empty MIG nodes 2-8; MemTotal counts both memories."""
    t = Tree("gh200_gpu_memory")
    n = 8
    identity(t, "gracehopper", "6.8.0-1008-nvidia-64k")
    meminfo(t, 503316480 + 100663296)
    cpu_files(t, n)
    for cpu in range(n):
        cpu_topology(t, cpu, n, 0, cpu, [cpu], list(range(n)))
    t.write("/proc/cpuinfo", "".join("processor\t: %d\nBogoMIPS\t: 2000.00\nCPU implementer\t: 0x41\n"
                                     "CPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd4f\n"
                                     "CPU revision\t: 0\n\n" % c for c in range(n)))
    numa_node(t, 0, list(range(n)), n, 503316480)
    numa_node(t, 1, [], n, 100663296)
    for node in range(2, 9):
        numa_node(t, node, [], n, 0)
    gpu = "/sys/devices/pci0009:00/0009:00:00.0/0009:01:00.0"
    pci_function(t, "/sys/devices/pci0009:00/0009:00:00.0", 0x10de, 0x22b2, 0x060400, numa=0,
                 link=("32.0 GT/s PCIe", 16, "32.0 GT/s PCIe", 16), driver="pcieport")
    pci_function(t, gpu, 0x10de, 0x2342, 0x030200, numa=0, local_cpus=range(n), nr_cpus=n,
                 link=("32.0 GT/s PCIe", 16, "32.0 GT/s PCIe", 16), driver="nvidia")
    t.write("/proc/driver/nvidia/gpus/0009:01:00.0/numa_status",
            "Node:                          1\nStatus:                        online\n")
    t.write("/proc/driver/nvidia/gpus/0009:01:00.0/information",
            "Model: \t\t NVIDIA GH200 480GB\nIRQ:   \t\t 44\nDevice Minor: \t 0\nBus Location: \t 0009:01:00.0\n")
    t.write("/proc/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  550.54.15  Release Build  (dvs-builder@U16-I3-B13-3-2)  Tue Mar  5 22:15:33 UTC 2024\n")


def container_limited():
    """A container on a 128-CPU host: affinity 0-7 (Cpus_allowed_list) and a cgroup v2 quota of
    4 CPUs on its cgroup."""
    t = Tree("container_limited")
    identity(t, "trainer-7f9c", "6.1.0-18-amd64")
    meminfo(t, 1056000000)
    t.write("/sys/devices/system/cpu/online", "0-127\n")
    t.write("/proc/self/status", "Name:\tpipecheck\nCpus_allowed:\t00000000,00000000,00000000,000000ff\n"
            "Cpus_allowed_list:\t0-7\nMems_allowed_list:\t0\n")
    t.write("/proc/self/cgroup", "0::/\n")
    t.write("/proc/self/mountinfo", "30 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw\n")
    t.write("/sys/fs/cgroup/cpu.max", "400000 100000\n")
    t.write("/.dockerenv", "")


def gpu_without_driver():
    """Two H100 SXM GPUs on the bus behind one PCIe switch with no NVIDIA driver loaded, beside a
    ConnectX-7 on the same switch and an NVSwitch (bridge class, not a GPU)."""
    t = Tree("gpu_without_driver")
    n = 4
    identity(t, "nodriver", "6.1.0-18-amd64")
    meminfo(t, 2113000000)
    cpu_files(t, n)
    for cpu in range(n):
        cpu_topology(t, cpu, n, 0, cpu, [cpu], list(range(n)))
    t.write("/proc/cpuinfo", "".join("processor\t: %d\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n"
                                     "physical id\t: 0\ncore id\t\t: %d\ncpu cores\t: 4\n\n" % (c, c) for c in range(n)))
    gen5 = ("32.0 GT/s PCIe", 16, "32.0 GT/s PCIe", 16)
    root = "/sys/devices/pci0000:15/0000:15:01.0"
    pci_function(t, root, 0x8086, 0x352a, 0x060400, numa=0, link=gen5, driver="pcieport", config=bridge_config(0x16, 0x1a, 0x15))
    up = root + "/0000:16:00.0"
    pci_function(t, up, 0x1000, 0xc030, 0x060400, numa=0, link=gen5, driver="pcieport", config=bridge_config(0x17, 0x1a, 0x16))
    for dev, fn_bus in enumerate((0x18, 0x19, 0x1a)):
        down = up + "/0000:17:%02x.0" % dev
        pci_function(t, down, 0x1000, 0xc030, 0x060400, numa=0, link=gen5, driver="pcieport",
                     config=bridge_config(fn_bus, fn_bus, 0x17))
    sw = up + "/0000:17:00.0/0000:18:00.0"
    pci_function(t, sw, 0x10de, 0x2330, 0x030200, numa=0, local_cpus=range(n), nr_cpus=n, link=gen5)
    pci_function(t, up + "/0000:17:01.0/0000:19:00.0", 0x10de, 0x2330, 0x030200, numa=0, local_cpus=range(n),
                 nr_cpus=n, link=gen5)
    pci_function(t, up + "/0000:17:02.0/0000:1a:00.0", 0x15b3, 0x1021, 0x020700, numa=0, local_cpus=range(n),
                 nr_cpus=n, link=gen5, driver="mlx5_core")
    pci_function(t, "/sys/devices/pci0000:00/0000:00:05.0", 0x10de, 0x22a3, 0x068000, numa=0)


if __name__ == "__main__":
    for make in (x86_old_kernel, power9_lpar, s390x_books, amd_multi_die, arm_server, vm_bare, disks_old_kernel,
                 vmd_nvme, gh200_gpu_memory, container_limited, gpu_without_driver):
        make()
