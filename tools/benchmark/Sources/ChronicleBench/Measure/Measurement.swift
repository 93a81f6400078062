import Foundation

/// What one run of one workload on one system measured, as a child process reports it.
struct Measurement: Codable, Sendable {
    /// Events or operations done inside the timed section.
    var operations: Int
    /// The timed section's length.
    var seconds: Double
    /// The highest `RssAnon` of the child process.
    var peakAnonBytes: Int
    /// Bytes the child caused to be written to disk (`write_bytes` of /proc/self/io), for diagnostics.
    var diskWriteBytes: Int = 0
    /// The child's CPU time in user mode and in the kernel, its setup included (`getrusage`), for
    /// diagnostics: the kernel's share shows, for one, how much zero-filling new pages cost a run.
    var userSeconds: Double = 0
    var systemSeconds: Double = 0
    /// What a rebuild built, summed up alike for the systems that can say (``RebuiltContents``).
    var contents: String?

    /// Operations per second (higher is better).
    var rate: Double { seconds > 0 ? Double(operations) / seconds : 0 }
}

/// A stopwatch on the monotonic clock that can be paused around untimed work.
struct Stopwatch {
    private let clock = ContinuousClock()
    private(set) var elapsed: Duration = .zero

    /// Times `body` and adds it to the total.
    mutating func measure<T>(_ body: () throws -> T) rethrows -> T {
        let start = clock.now
        defer { elapsed += clock.now - start }
        return try body()
    }

    /// Times an async `body` and adds it to the total.
    mutating func measureAsync<T>(_ body: () async throws -> T) async rethrows -> T {
        let start = clock.now
        defer { elapsed += clock.now - start }
        return try await body()
    }

    var seconds: Double { elapsed.seconds }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// Errors of the benchmark itself.
enum BenchError: Error, CustomStringConvertible {
    case io(String)
    case usage(String)
    case child(String)
    case unsupported(String)

    var description: String {
        switch self {
        case .io(let message), .usage(let message), .child(let message), .unsupported(let message): message
        }
    }
}

/// Progress for people, on stderr (stdout carries the table, or a child's result).
func progress(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
