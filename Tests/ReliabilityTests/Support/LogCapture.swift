import Logging
import Synchronization

/// A log handler that keeps every entry, for tests that check how something was logged;
/// ``entries`` also streams them as they come, so a test waits for an entry without polling.
final class LogCapture: LogHandler, Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let kept = Mutex<[Entry]>([])
    private let settings = Mutex<(level: Logger.Level, metadata: Logger.Metadata)>((.trace, [:]))
    private let continuation: AsyncStream<Entry>.Continuation
    /// Every entry, from the first, as it is logged.
    let entries: AsyncStream<Entry>

    init() {
        (entries, continuation) = AsyncStream.makeStream(of: Entry.self)
    }

    /// The entries so far.
    var logged: [Entry] { kept.withLock { $0 } }

    var logLevel: Logger.Level {
        get { settings.withLock { $0.level } }
        set { settings.withLock { $0.level = newValue } }
    }

    var metadata: Logger.Metadata {
        get { settings.withLock { $0.metadata } }
        set { settings.withLock { $0.metadata = newValue } }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }.mapValues { "\($0)" }
        let entry = Entry(level: event.level, message: "\(event.message)", metadata: all)
        kept.withLock { $0.append(entry) }
        continuation.yield(entry)
    }
}
