import ChronicleLog
import ChronicleProjections
import Foundation

/// `chronicle-bench replay`: the todo app's read models folded in memory from a store's log to
/// its head, as `chronicle replay` and `verify --deep` fold them (``Replay``). Seconds and peak
/// memory of each run; the log is opened, never written.
///
///     tools/bench replay --log DIR [--runs 3]
///
/// `DIR` is a log folder, e.g. the benchmark's `log-chronicle-0` (a copy: opening a log may
/// upgrade its indexes). Run two builds of this binary one after the other to compare them.
enum ReplayTiming {
    static let subcommand = "replay"

    static func main(_ arguments: [String]) -> Int32 {
        var runs = 3, path: String?
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { progress("error: \(flag) needs a value"); return 2 }
            switch flag {
            case "--runs": runs = Int(value) ?? 0
            case "--log": path = value
            default: progress("error: unknown option \(flag) for replay"); return 2
            }
        }
        guard let path, runs >= 1 else { progress("error: replay needs --log DIR, and --runs 1 or more"); return 2 }
        do {
            let log = try EventLog(path: path)
            defer { log.close() }
            let head = try log.head()
            var seconds: [Double] = []
            for run in 1...runs {
                let clock = ContinuousClock()
                let start = clock.now
                let result = try Replay.result(log: log, until: head)
                let elapsed = (clock.now - start).components
                seconds.append(Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
                progress("run \(run): \(String(format: "%.2f", seconds.last!)) s, \(result.events) events, "
                         + "\(result.snapshot.users.count) users, \(result.snapshot.todos.count) todos, "
                         + "\(result.snapshot.stats.count) days, \(result.skippedEvents) skipped")
            }
            let median = seconds.sorted()[seconds.count / 2]
            print("replay: \(String(format: "%.2f", median)) s (median of \(runs)), peak resident \(peakResidentMiB()) MiB")
            return 0
        } catch {
            progress("error: \(error)")
            return 1
        }
    }

    /// The process's peak resident memory (`VmHWM`), in MiB.
    private static func peakResidentMiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kib = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kib / 1024
    }
}
