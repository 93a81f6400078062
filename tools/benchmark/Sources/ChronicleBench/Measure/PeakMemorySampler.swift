import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Samples this process's anonymous resident memory (`RssAnon` in `/proc/self/status`:
/// heap, stacks, private copies; not the pages of a memory-mapped store) every 2 ms on
/// a thread of its own and keeps the highest value.
///
/// Linux keeps a peak only for the whole RSS (`VmHWM`), which counts the mapped LMDB
/// file too, so the peak of the anonymous part has to be sampled. Each workload runs in
/// a child process of its own, so each peak is that workload's alone.
final class PeakMemorySampler: Sendable {
    private let peak = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let finished = Atomic<Bool>(false)

    init() {
        sample()
        let thread = Thread { [self] in
            while running.load(ordering: .relaxed) {
                sample()
                usleep(2_000)
            }
            finished.store(true, ordering: .releasing)
        }
        thread.name = "bench-memory-sampler"
        thread.start()
    }

    /// Stops sampling and returns the peak in bytes.
    func stop() -> Int {
        sample()
        running.store(false, ordering: .relaxed)
        while !finished.load(ordering: .acquiring) { usleep(500) }
        sample()
        return peak.load(ordering: .relaxed)
    }

    /// The peak so far, in bytes.
    var peakBytes: Int { peak.load(ordering: .relaxed) }

    private func sample() {
        let current = Self.currentAnonymousBytes()
        var seen = peak.load(ordering: .relaxed)
        while current > seen {
            let (exchanged, original) = peak.compareExchange(expected: seen, desired: current, ordering: .relaxed)
            if exchanged { break }
            seen = original
        }
    }

    /// Bytes this process caused to be written to the disk so far (`write_bytes` in /proc/self/io).
    static func diskWriteBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("write_bytes:") {
            return Int(line.dropFirst("write_bytes:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }

    /// `RssAnon` of this process in bytes (0 when the kernel does not report it).
    static func currentAnonymousBytes() -> Int {
        let fd = open("/proc/self/status", O_RDONLY)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { buffer -> Int in
            var total = 0
            while total < buffer.count {
                let n = read(fd, buffer.baseAddress! + total, buffer.count - total)
                if n <= 0 { break }
                total += n
            }
            let text = UnsafeBufferPointer(rebasing: buffer[..<total])
            let key = Array("RssAnon:".utf8)
            var i = 0
            while i + key.count < text.count {
                if text[i] == key[0], text[i..<i + key.count].elementsEqual(key) {
                    var j = i + key.count
                    while j < text.count, text[j] == 0x20 || text[j] == 0x09 { j += 1 }
                    var kilobytes = 0
                    while j < text.count, text[j] >= 0x30, text[j] <= 0x39 {
                        kilobytes = kilobytes * 10 + Int(text[j] - 0x30)
                        j += 1
                    }
                    return kilobytes * 1024
                }
                i += 1
            }
            return 0
        }
    }
}
