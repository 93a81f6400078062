import ChronicleLog
import Synchronization

/// The logs this process opened, closed as the command ends (``closeAll()``).
///
/// A process that just exits skips what a log does as it closes: one that was written to
/// indexes the events after its stream index checkpoint when there are many, so that the next
/// command does not read them all again before its first append.
enum OpenedLogs {
    private static let logs = Mutex<[EventLog]>([])

    /// Records `log` for ``closeAll()`` and returns it.
    static func register(_ log: EventLog) -> EventLog {
        logs.withLock { $0.append(log) }
        return log
    }

    /// Closes every recorded log (waiting for its writes), once.
    static func closeAll() {
        let opened = logs.withLock { logs in
            defer { logs.removeAll() }
            return logs
        }
        for log in opened { log.close() }
    }
}
