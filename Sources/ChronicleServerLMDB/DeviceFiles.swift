import Foundation
import ChronicleServer
/// The embedded storage's devices, in files under `<data>/devices/` beside the tenants' logs:
///
/// - `<tenant>.json`: what the server saw of each device (first and last seen, positions),
///   written by the server alone, at most a second after a change and at shutdown;
/// - `<tenant>.revoked`: the revoked devices, one name a line, written by the operator's
///   commands alone (a whole new file renamed into place). The server reads it again when it
///   changes, so a revocation holds from the next request on, while the server runs.
///
/// One writer a file: the server and an operator's command never overwrite each other.
actor DeviceFiles {
    let directory: String
    private var seen: [String: [String: DeviceRecord]] = [:]
    private var dirty: Set<String> = []
    private var revoked: [String: (stamp: Stamp?, names: Set<String>)] = [:]
    private var flushing: Task<Void, Never>?

    /// A file's inode, modification time and size: a revocation list written anew (a new file
    /// renamed into place) changes its inode, whatever the clock's resolution.
    struct Stamp: Equatable {
        var inode: UInt64?
        var modified: Date?
        var size: Int?
    }

    init(dataDirectory: String) {
        directory = (dataDirectory as NSString).appendingPathComponent("devices")
    }

    func admit(device: String, of tenant: String) throws -> Bool {
        guard try !revokedNames(of: tenant).contains(device) else { return false }
        var book = try book(of: tenant)
        let now = DeviceRecord.nowMilliseconds()
        var record = book[device] ?? DeviceRecord(device: device, firstSeenMilliseconds: now)
        if record.firstSeenMilliseconds == 0 { record.firstSeenMilliseconds = now }
        record.lastSeenMilliseconds = max(record.lastSeenMilliseconds, now)
        book[device] = record
        seen[tenant] = book
        changed(tenant)
        return true
    }

    func record(device: String, of tenant: String, pushed: UInt64?, pulled: UInt64?) throws {
        var book = try book(of: tenant)
        var record = book[device] ?? DeviceRecord(device: device)
        if let pushed { record.pushedPosition = max(record.pushedPosition, pushed) }
        if let pulled { record.pulledPosition = max(record.pulledPosition, pulled) }
        book[device] = record
        seen[tenant] = book
        changed(tenant)
    }

    /// The devices of `tenant`, seen or revoked, as the files say (the server's file lags its
    /// memory by up to a second).
    func devices(of tenant: String) throws -> [DeviceRecord] {
        var book = try Self.read(activityPath(tenant))
        for (device, record) in seen[tenant] ?? [:] { book[device] = record }
        for name in try revokedNames(of: tenant) {
            book[name, default: DeviceRecord(device: name)].revoked = true
        }
        return book.values.sorted { $0.device < $1.device }
    }

    /// Writes the revocation list with `device` added or removed.
    func setRevoked(_ isRevoked: Bool, device: String, of tenant: String) throws {
        var names = try revokedNames(of: tenant)
        if isRevoked { names.insert(device) } else { names.remove(device) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let text = names.sorted().map { $0 + "\n" }.joined()
        try Data(text.utf8).write(to: URL(fileURLWithPath: revokedPath(tenant)), options: .atomic)
        revoked[tenant] = nil
    }

    /// Writes every changed tenant's file now.
    func flush() {
        flushing?.cancel()
        flushing = nil
        for tenant in dirty.sorted() {
            guard let book = seen[tenant] else { continue }
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let data = try JSONEncoder().encode(book)
                try data.write(to: URL(fileURLWithPath: activityPath(tenant)), options: .atomic)
            } catch {
                continue   // kept dirty: the next flush tries again
            }
            dirty.remove(tenant)
        }
    }

    private func changed(_ tenant: String) {
        dirty.insert(tenant)
        guard flushing == nil else { return }
        flushing = Task { [weak self] in
            try? await Task.sleep(for: .seconds(1))
            guard !Task.isCancelled else { return }
            await self?.flushed()
        }
    }

    private func flushed() {
        flushing = nil
        flush()
    }

    private func book(of tenant: String) throws -> [String: DeviceRecord] {
        if let book = seen[tenant] { return book }
        let book = try Self.read(activityPath(tenant))
        seen[tenant] = book
        return book
    }

    private func revokedNames(of tenant: String) throws -> Set<String> {
        let path = revokedPath(tenant)
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let stamp = attributes.map {
            Stamp(inode: ($0[.systemFileNumber] as? NSNumber)?.uint64Value, modified: $0[.modificationDate] as? Date,
                  size: ($0[.size] as? NSNumber)?.intValue)
        }
        if let cached = revoked[tenant], cached.stamp == stamp { return cached.names }
        var names = Set<String>()
        if stamp != nil {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            names = Set(text.split(separator: "\n").map(String.init).filter { !$0.isEmpty })
        }
        revoked[tenant] = (stamp, names)
        return names
    }

    private func activityPath(_ tenant: String) -> String { (directory as NSString).appendingPathComponent(tenant + ".json") }
    private func revokedPath(_ tenant: String) -> String { (directory as NSString).appendingPathComponent(tenant + ".revoked") }

    private static func read(_ path: String) throws -> [String: DeviceRecord] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        return try JSONDecoder().decode([String: DeviceRecord].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
