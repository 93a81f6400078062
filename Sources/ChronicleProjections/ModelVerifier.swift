import ChronicleTodoDomain
import ChronicleLog
import Foundation
import ChronicleLMDB
import UUIDText

/// Checks the stored read models against the log (`chronicle verify`).
///
/// ```swift
/// for problem in try ModelVerifier.problems(log: log, models: models, deep: true) { print(problem) }
/// ```
public enum ModelVerifier {
    /// What is wrong with the models, one line each (empty when intact).
    ///
    /// Always: every projection's checkpoint is at most the log's head. With `deep`, the
    /// log is also folded in memory by the todo app's model (``Replay``) up to each
    /// projection's checkpoint and compared with the stored model and its indexes. A model built by
    /// an older projection version (awaiting its rebuild) is not compared.
    public static func problems(log: EventLog, models: ReadModels, deep: Bool) throws -> [String] {
        let head = try log.head()
        // One read transaction: the checkpoints and the models it compares belong together.
        return try models.read { txn in
            var problems: [String] = []
            var compare: [(ProjectionName, ProjectionState)] = []
            for name in ProjectionName.allCases {
                let state = try models.databases.state(name, txn)
                if state.checkpoint > head {
                    problems.append("projection '\(name)' is at position \(state.checkpoint) but the log ends at \(head); run 'chronicle rebuild'")
                } else if deep && models.isCurrent(name, state) {
                    compare.append((name, state))
                }
            }
            guard !compare.isEmpty else { return problems }
            // One fold for each checkpoint (the projections usually share one).
            var folds: [UInt64: TodoAppSnapshot] = [:]
            for (name, state) in compare {
                let snapshot = try folds[state.checkpoint] ?? Replay.snapshot(log: log, until: state.checkpoint)
                folds[state.checkpoint] = snapshot
                let dbs = models.databases.databases(name, state.slot)
                let found: String?
                do {
                    switch name {
                    case .users: found = try usersDifference(snapshot, txn, dbs)
                    case .todos: found = try todosDifference(snapshot, txn, dbs)
                    case .dailyStats: found = try statsDifference(snapshot, txn, dbs)
                    case .tags: found = try tagsDifference(snapshot, txn, dbs)
                    case .conflicts: found = nil   // not part of the snapshot; a rebuild restores them
                    }
                } catch let error as Found {
                    found = error.description
                } catch let error as ProjectionError {
                    found = error.description
                }
                if let found {
                    problems.append("projection '\(name)' differs from the log replayed to position \(state.checkpoint): \(found); run 'chronicle rebuild'")
                }
            }
            return problems
        }
    }

    // MARK: - Comparisons

    private static func usersDifference(_ snapshot: TodoAppSnapshot, _ txn: Transaction, _ dbs: [Database]) throws -> String? {
        let stored = try ReadModels.users(txn, dbs)
        // The index's order (NFC name bytes, then id): a total order, unlike Swift's for a few names.
        let expected = snapshot.users
            .map { (user: $0, order: ModelCodec.nameOrder($0.name, id: $0.id)) }
            .sorted { $0.order.lexicographicallyPrecedes($1.order) }
            .map(\.user)
        if let difference = firstDifference(stored, expected, "user") { return difference }
        let count = try txn.count(dbs[0])
        return count == stored.count ? nil : "\(count) users stored but \(stored.count) in the name index"
    }

    private static func todosDifference(_ snapshot: TodoAppSnapshot, _ txn: Transaction, _ dbs: [Database]) throws -> String? {
        var stored: [Todo] = []
        try scan(txn, dbs[1]) { key, _ in
            let id = try ModelCodec.id(in: key, at: key.count - 16)
            guard let todo = try TodosProjection.load(id, txn: txn, byID: dbs[0]) else {
                throw Found("the deadline index lists todo \(id.lowercasedString), which is missing")
            }
            stored.append(todo)
        }
        // The model keeps deleted tags in a todo (reads drop them); the snapshot shows the live ones.
        let shownTags = Set(snapshot.tags.map(\.id))
        let shown = stored.map { todo in
            var shown = todo
            shown.tags = todo.tags.filter(shownTags.contains)
            return shown
        }
        let expected = snapshot.todos
        if let difference = firstDifference(shown, expected, "todo") { return difference }
        let count = try txn.count(dbs[0])
        if count != stored.count { return "\(count) todos stored but \(stored.count) in the deadline index" }
        var ownerKeys: [[UInt8]] = []
        var key: [UInt8] = []
        for todo in expected {
            guard let owner = todo.userId else { continue }
            ModelCodec.userKey(todo, owner: owner, into: &key)
            ownerKeys.append(key)
        }
        ownerKeys.sort { $0.lexicographicallyPrecedes($1) }
        var index = 0
        var mismatch: String?
        try scan(txn, dbs[2]) { key, _ in
            guard mismatch == nil else { return }
            if index >= ownerKeys.count || !key.elementsEqual(ownerKeys[index]) {
                let id = (try? ModelCodec.id(in: key, at: key.count - 16).lowercasedString) ?? "?"
                mismatch = "the user index entry of todo \(id) does not match the todos"
            }
            index += 1
        }
        if let mismatch { return mismatch }
        if index != ownerKeys.count { return "the user index has \(index) entries, \(ownerKeys.count) expected" }
        var tagKeys: [[UInt8]] = []
        for todo in stored {
            for tag in todo.tags {
                ModelCodec.tagKey(todo, tag: tag, into: &key)
                tagKeys.append(key)
            }
        }
        tagKeys.sort { $0.lexicographicallyPrecedes($1) }
        var tagEntries: [[UInt8]] = []
        try scan(txn, dbs[3]) { key, _ in tagEntries.append(Array(key)) }
        return tagEntries == tagKeys ? nil : "the tag index has \(tagEntries.count) entries that do not match the todos' \(tagKeys.count) tags"
    }

    private static func tagsDifference(_ snapshot: TodoAppSnapshot, _ txn: Transaction, _ dbs: [Database]) throws -> String? {
        let stored = try ReadModels.listByName(txn, index: dbs[1], name: { Tag.foldedName($0.name) }) { id in
            try TagsProjection.load(id, txn: txn, byID: dbs[0])
        }
        let expected = snapshot.tags
            .map { (tag: $0, order: ModelCodec.nameOrder(Tag.foldedName($0.name), id: $0.id)) }
            .sorted { $0.order.lexicographicallyPrecedes($1.order) }
            .map(\.tag)
        if let difference = firstDifference(stored, expected, "tag") { return difference }
        let count = try txn.count(dbs[0])
        return count == stored.count ? nil : "\(count) tags stored but \(stored.count) in the name index"
    }

    private static func statsDifference(_ snapshot: TodoAppSnapshot, _ txn: Transaction, _ dbs: [Database]) throws -> String? {
        var stored: [DailyStat] = []
        try scan(txn, dbs[0]) { key, value in
            var reader = ModelReader(key)
            let counts = try ModelCodec.decodeStat(value)
            stored.append(DailyStat(date: try ModelCodec.day(fromKey: try reader.integer(UInt32.self)),
                                    total: counts.total, completed: counts.completed))
        }
        return firstDifference(stored, snapshot.stats, "stat")
    }

    private struct Found: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private static func scan(_ txn: Transaction, _ db: Database,
                             _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) throws {
        try txn.withCursor(db) { cursor in
            var entry = try cursor.first()
            while let current = entry {
                try body(current.key, current.value)
                entry = try cursor.next()
            }
        }
    }

    private static func firstDifference<T: Equatable>(_ stored: [T], _ expected: [T], _ what: String) -> String? {
        for (index, (found, wanted)) in zip(stored, expected).enumerated() where found != wanted {
            return "\(what) #\(index + 1) is \(describe(found)), expected \(describe(wanted))"
        }
        if stored.count != expected.count {
            let extra = stored.count > expected.count ? stored[expected.count] : expected[stored.count]
            return "\(stored.count) \(what)s stored, \(expected.count) expected (first \(stored.count > expected.count ? "extra" : "missing"): \(describe(extra)))"
        }
        return nil
    }

    /// Untrusted text in a one-line message.
    private static func quoted(_ text: String) -> String {
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return "'" + String(String.UnicodeScalarView(shown.unicodeScalars.map { $0.value < 0x20 ? "?" : $0 })) + "'"
    }

    private static func describe(_ value: some Equatable) -> String {
        switch value {
        case let user as User: "\(user.id.lowercasedString) \(quoted(user.name)) age \(user.age)"
        case let todo as Todo:
            "\(todo.id.lowercasedString) \(quoted(todo.title)) due \(todo.deadline)\(todo.isCompleted ? " completed" : "")"
        case let stat as DailyStat: "\(stat.date) total \(stat.total) completed \(stat.completed)"
        default: "\(value)"
        }
    }
}
