@_spi(Operator) import Chronicle
import ChronicleTestSupport
import ChronicleLog
/// A store in a fresh ``TemporaryFolder``, closed and removed by `cleanup()`.
struct TemporaryStore {
    let folder: TemporaryFolder
    let store: ChronicleStore

    /// The store's folder, to open it again.
    var directory: String { folder.path }

    init() throws {
        folder = try TemporaryFolder("store")
        do {
            store = try ChronicleStore(directory: folder.path)
        } catch {
            folder.remove()
            throw error
        }
    }

    func cleanup() async {
        await store.close()
        folder.remove()
    }

    /// The log's head position and head hash: equal before and after means nothing was appended.
    func fingerprint() throws -> (UInt64, [UInt8]) {
        let head = try store.log.head()
        let last = head == 0 ? nil : try store.log.event(at: head)
        return (head, last?.hash ?? [])
    }
}
