@_spi(Operator) import Chronicle
import EventLog
import Foundation

/// A store in a fresh temporary folder, removed by `cleanup()`.
struct TemporaryStore {
    let directory: String
    let store: ChronicleStore

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-tests-\(UUID().uuidString)").path
        store = try ChronicleStore(directory: directory)
    }

    func cleanup() async {
        await store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The log's head position and head hash: equal before and after means nothing was appended.
    func fingerprint() throws -> (UInt64, [UInt8]) {
        let head = try store.log.head()
        let last = head == 0 ? nil : try store.log.event(at: head)
        return (head, last?.hash ?? [])
    }
}
