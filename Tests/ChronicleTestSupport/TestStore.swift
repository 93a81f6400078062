import ChronicleLog
import Foundation

/// A store folder of its own (a ``TemporaryFolder``; the log lives in `log/` inside it, as
/// for `chronicle --store`), removed when the test's body ends.
public struct TestStore: Sendable {
    /// The store folder.
    public let root: URL

    /// The event log's folder.
    public var logPath: String { root.appendingPathComponent("log").path }

    /// Runs `body` with a fresh store and removes it afterwards, whatever happened.
    @discardableResult
    public static func with<T>(_ body: (TestStore) async throws -> T) async throws -> T {
        try await TemporaryFolder.with("store") { path in
            try await body(TestStore(root: URL(fileURLWithPath: path, isDirectory: true)))
        }
    }

    /// Opens (creating when needed) the store's log.
    public func open(_ options: EventLog.Options = EventLog.Options()) throws -> EventLog {
        try EventLog(path: logPath, options: options)
    }

    /// Opens the log, runs `body`, and closes it: when this returns, the LMDB environment
    /// is closed, so the store may be opened again in this process (LMDB forbids two
    /// open handles of one environment in one process).
    @discardableResult
    public func withLog<T>(_ options: EventLog.Options = EventLog.Options(),
                    _ body: (EventLog) async throws -> T) async throws -> T {
        let log = try open(options)
        defer { log.close() }
        return try await body(log)
    }
}

/// A new event with a small JSON object payload.
public func makeEvent(_ type: String = "Tested", _ json: String = #"{"k":1}"#, id: UUID = UUIDv7.make()) -> NewEvent {
    NewEvent(id: id, type: type, data: Data(json.utf8))
}
