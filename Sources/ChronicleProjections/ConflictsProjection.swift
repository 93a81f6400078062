import ChronicleTodoDomain
import Foundation
import ChronicleLMDB

/// What merges overruled of this store's writes (`conflicts`: u64 position of the pulled
/// event ‖ u16 index → stream ‖ 00 ‖ kind ‖ 00 ‖ detail), as ``MergeDecoder`` found them.
/// Device-specific, kept in the log's order; rebuilt from the log like every model.
struct ConflictsProjection: Projection {
    static let name = ProjectionName.conflicts
    static let version: UInt32 = 1
    static let databaseNames = ["conflicts"]

    private let txn: Transaction
    private let conflicts: Database
    private var found: [(key: [UInt8], conflict: MergeConflict, position: UInt64)] = []

    init(txn: Transaction, databases: [Database], ranks: MergeRanks) {
        self.txn = txn
        conflicts = databases[0]
    }

    static func concerns(_ item: DecodedEvents.Item) -> Bool { !item.conflicts.isEmpty }

    mutating func apply(_ event: DomainEvent, at position: UInt64) throws {}

    mutating func apply(_ item: DecodedEvents.Item) throws {
        for (index, conflict) in item.conflicts.enumerated() {
            var key: [UInt8] = []
            key.appendBigEndian(item.position)
            key.appendBigEndian(UInt16(clamping: index))
            found.append((key, conflict, item.position))
        }
    }

    mutating func finish(changes: inout [ReadModelChange]?) throws {
        for (key, conflict, position) in found {
            let value = Self.encode(conflict)
            try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in try txn.put(conflicts, key: k, value: v) } }
            changes?.append(.conflict(conflict, position: position))
        }
    }

    static func encode(_ conflict: MergeConflict) -> [UInt8] {
        Array(conflict.stream.utf8) + [0] + Array(conflict.kind.utf8) + [0] + Array(conflict.detail.utf8)
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws(ProjectionError) -> MergeConflict {
        let parts = bytes.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .corruptModel("a conflict of \(bytes.count) bytes") }
        return MergeConflict(stream: String(decoding: parts[0], as: UTF8.self), kind: String(decoding: parts[1], as: UTF8.self),
                             detail: String(decoding: parts[2], as: UTF8.self))
    }
}
