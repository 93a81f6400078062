import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// "<cpu, cores, memory, disk>" for the report, read from /proc and /sys.
enum MachineInfo {
    static func describe(directory: String) -> String {
        let cpu = cpuModel() ?? "unknown CPU"
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30)
        return "\(cpu), \(cores) cores, \(String(format: "%.1f", memory)) GiB RAM, \(disk(directory))"
    }

    private static func cpuModel() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    /// The device, file system, size and kind of the disk holding `directory`.
    private static func disk(_ directory: String) -> String {
        var best: (mount: String, device: String, type: String) = ("/", "?", "?")
        if let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) {
            for line in mounts.split(separator: "\n") {
                let fields = line.split(separator: " ")
                guard fields.count >= 3 else { continue }
                let mount = String(fields[1])
                let isPrefix = directory == mount || directory.hasPrefix(mount.hasSuffix("/") ? mount : mount + "/")
                if isPrefix, mount.count >= best.mount.count {
                    best = (mount, String(fields[0]), String(fields[2]))
                }
            }
        }
        var size = ""
        var info = statvfs()
        if statvfs(directory, &info) == 0 {
            let bytes = Double(info.f_blocks) * Double(info.f_frsize)
            size = String(format: ", %.0f GB", bytes / 1e9)
        }
        var kind = ""
        let name = (best.device as NSString).lastPathComponent
        let base = name.replacingOccurrences(of: "[0-9]+$", with: "", options: .regularExpression)
        if name.hasPrefix("vd") {
            kind = ", virtio block device"   // its rotational flag says nothing about the storage behind it
        } else {
            for candidate in [name, base] {
                if let flag = try? String(contentsOfFile: "/sys/block/\(candidate)/queue/rotational", encoding: .utf8) {
                    kind = flag.hasPrefix("1") ? ", rotational" : ", SSD"
                    break
                }
            }
        }
        var kernel = utsname()
        uname(&kernel)
        let release = withUnsafeBytes(of: &kernel.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        kind += ", Linux \(release)"
        return "disk \(best.device) (\(best.type)\(size)\(kind))"
    }
}
