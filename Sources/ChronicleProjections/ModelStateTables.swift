import ChronicleLMDB
import ChronicleSchema
import Foundation

/// One set of the tables of a declared model's stored states (``ModelStates``): the set
/// readers use, or the other, which a rebuild fills while they read on (blue/green). Slot 0's
/// tables have the plain names, slot 1's the same names ending in `/b`.
///
/// Where each entity's stored bytes (``StoredEntity``) are kept: a live one in its entity's
/// table (``live``) under its id, a deleted one in ``deleted`` under
/// ``ModelStateKeys/state(_:_:)``. A read of what is shown looks in the live table alone.
struct ModelStateTables: Sendable {
    /// Each entity's live entities (shown or hidden by a parent), by id: a table of its own
    /// per entity, so that new ids, which rise with time, are appended to full pages.
    let live: [Database]
    /// Every deleted entity, by entity (2) and id (16): kept for a restore, apart from the
    /// live ones, which reads scan.
    let deleted: Database
    let unique: Database
    let children: Database
    let values: Database
    let conflicts: Database
    /// Each aggregate's rows, kept up as entities change (``StoredAggregateRow``).
    let rows: Database
    /// The position folded to (`position`), and the events it could not read (`unread`, `unread-first`).
    let meta: Database

    /// Every table but ``meta``: what a rebuild empties.
    var states: [Database] { live + [deleted, unique, children, values, conflicts, rows] }

    /// Opens (creating when missing) slot `slot`'s tables for a model of `entities` entities.
    init(_ txn: Transaction, slot: Int, entities: Int) throws {
        func open(_ name: String) throws -> Database { try txn.openDatabase(named: Self.name(name, slot: slot)) }
        live = try (0..<entities).map { try open(Self.liveTable($0)) }
        (deleted, unique, children, values) = (try open("deleted"), try open("unique"), try open("children"), try open("values"))
        (conflicts, rows, meta) = (try open("conflicts"), try open("rows"), try open("meta"))
    }

    /// The name of table `name` in slot `slot`.
    static func name(_ name: String, slot: Int) -> String { slot == 0 ? name : name + "/b" }

    /// The name of entity `number`'s table of live entities (slot 0's).
    static func liveTable(_ number: Int) -> String { "live.\(number)" }

    /// The stored bytes of live entity `id` of entity `number` (valid for the transaction);
    /// nil when it is deleted or not stored. The key is made on the stack: a list reads one
    /// per entity.
    func liveBytes(_ txn: Transaction, _ number: Int, _ id: UUID) throws -> UnsafeRawBufferPointer? {
        try withUnsafeBytes(of: id.uuid) { key in try txn.get(live[number], key: key) }
    }

    /// The stored bytes of entity `id` of entity `number`, live or deleted; nil when none of
    /// its events created it.
    func storedBytes(_ txn: Transaction, _ number: Int, _ id: UUID) throws -> UnsafeRawBufferPointer? {
        if let bytes = try liveBytes(txn, number, id) { return bytes }
        return try ModelStateKeys.withState(number, id) { key in try txn.get(deleted, key: key) }
    }

    /// Writes `bytes` as entity `id` of entity `number`, in the table its deletion says, and
    /// removes it from the other when `wasDeleted` says it was there. A live one is put
    /// through `puts`, in ascending order of ids.
    func write(_ txn: Transaction, _ number: Int, _ id: UUID, bytes: [UInt8], isDeleted: Bool, wasDeleted: Bool?,
               puts: inout AscendingPuts) throws {
        if isDeleted {
            try put(txn, number, id, bytes: bytes, isDeleted: true)
        } else {
            try withUnsafeBytes(of: id.uuid) { key in try bytes.withUnsafeBytes { value in try puts.put(key: key, value: value) } }
        }
        if let wasDeleted, wasDeleted != isDeleted { try remove(txn, number, id, wasDeleted: wasDeleted) }
    }

    /// Removes entity `id` of entity `number` from the table it was in.
    func remove(_ txn: Transaction, _ number: Int, _ id: UUID, wasDeleted: Bool) throws {
        if wasDeleted {
            _ = try ModelStateKeys.withState(number, id) { key in try txn.delete(deleted, key: key) }
        } else {
            _ = try txn.delete(live[number], key: withUnsafeBytes(of: id.uuid) { Array($0) })
        }
    }

    /// Puts the stored bytes of entity `id` of entity `number` in the table `isDeleted` names,
    /// over what it holds of it.
    func put(_ txn: Transaction, _ number: Int, _ id: UUID, bytes: [UInt8], isDeleted: Bool) throws {
        try bytes.withUnsafeBytes { value in
            if isDeleted {
                try ModelStateKeys.withState(number, id) { key in try txn.put(deleted, key: key, value: value) }
            } else {
                try withUnsafeBytes(of: id.uuid) { key in try txn.put(live[number], key: key, value: value) }
            }
        }
    }
}
