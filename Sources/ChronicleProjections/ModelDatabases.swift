import Foundation
import ChronicleLMDB

/// One of a projection's two interchangeable sets of databases (blue/green).
///
/// Readers use the active slot while a rebuild fills the other; the swap is one
/// write of the projection's state. The slots are emptied, never dropped: dropping a
/// named database closes its handle for the whole process, under any concurrent reader.
enum Slot: UInt8, Sendable, CaseIterable {
    case blue = 0
    case green = 1

    var other: Slot { self == .blue ? .green : .blue }
    var suffix: String { self == .blue ? "blue" : "green" }
}

/// Where a projection stands: which slot readers use and how far into the log it is.
struct ProjectionState: Equatable, Sendable {
    /// The slot readers use.
    var slot: Slot
    /// The projection version that built the active slot.
    var version: UInt32
    /// Bumped by every swap (1 for a model built incrementally from the start).
    var generation: UInt64
    /// The last log position applied to the active slot.
    var checkpoint: UInt64
    /// Events applied so far that the projection skipped (unknown type or undecodable).
    var skipped: UInt64
    /// The rebuild that produced the active slot (0: built incrementally).
    var buildID: UInt64

    static let size = 1 + 4 + 8 + 8 + 8 + 8

    func encoded() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(Self.size)
        out.append(slot.rawValue)
        out.appendBigEndian(version)
        out.appendBigEndian(generation)
        out.appendBigEndian(checkpoint)
        out.appendBigEndian(skipped)
        out.appendBigEndian(buildID)
        return out
    }

    init(slot: Slot, version: UInt32, generation: UInt64, checkpoint: UInt64, skipped: UInt64, buildID: UInt64) {
        self.slot = slot
        self.version = version
        self.generation = generation
        self.checkpoint = checkpoint
        self.skipped = skipped
        self.buildID = buildID
    }

    init(_ bytes: UnsafeRawBufferPointer) throws(ProjectionError) {
        var reader = ModelReader(bytes)
        guard let slot = Slot(rawValue: try reader.integer(UInt8.self)) else { throw .corruptModel("projection state") }
        self.slot = slot
        version = try reader.integer(UInt32.self)
        generation = try reader.integer(UInt64.self)
        checkpoint = try reader.integer(UInt64.self)
        skipped = try reader.integer(UInt64.self)
        buildID = try reader.integer(UInt64.self)
    }
}

/// A rebuild in progress: the slot it fills and how far it got.
struct BuildState: Equatable, Sendable {
    var slot: Slot
    var version: UInt32
    /// Random; a rebuild started later replaces it and its older builder stops.
    var id: UInt64
    var checkpoint: UInt64
    var skipped: UInt64

    func encoded() -> [UInt8] {
        var out = [UInt8]()
        out.append(slot.rawValue)
        out.appendBigEndian(version)
        out.appendBigEndian(id)
        out.appendBigEndian(checkpoint)
        out.appendBigEndian(skipped)
        return out
    }

    init(slot: Slot, version: UInt32, id: UInt64, checkpoint: UInt64, skipped: UInt64) {
        self.slot = slot
        self.version = version
        self.id = id
        self.checkpoint = checkpoint
        self.skipped = skipped
    }

    init(_ bytes: UnsafeRawBufferPointer) throws(ProjectionError) {
        var reader = ModelReader(bytes)
        guard let slot = Slot(rawValue: try reader.integer(UInt8.self)) else { throw .corruptModel("rebuild state") }
        self.slot = slot
        version = try reader.integer(UInt32.self)
        id = try reader.integer(UInt64.self)
        checkpoint = try reader.integer(UInt64.self)
        skipped = try reader.integer(UInt64.self)
    }
}

/// The named databases of the models environment.
///
/// - `meta`: `state/<projection>` → ``ProjectionState``, `build/<projection>` → ``BuildState``
///   (for the projections that build their models: ``ProjectionName/builders``)
/// - per projection and slot, e.g. `users.blue`, `users.by-name.blue` (see each projection's `databaseNames`)
///
/// Every handle is opened once, when the environment opens, so no transaction ever
/// opens or closes one afterwards (LMDB forbids that concurrently with other transactions).
struct ModelDatabases: Sendable {
    let meta: Database
    private let handles: [ProjectionName: [[Database]]]

    /// The databases of model `name` in `slot`, in the order of its ``ProjectionName/databaseNames``
    /// (a derived model's are among its builder's).
    func databases(_ name: ProjectionName, _ slot: Slot) -> [Database] {
        let all = handles[name.builder]![Int(slot.rawValue)]
        guard name.builder != name else { return all }
        let names = name.builder.projection.databaseNames
        return name.databaseNames.map { all[names.firstIndex(of: $0)!] }
    }

    static func stateKey(_ name: ProjectionName) -> [UInt8] { Array("state/\(name.builder.rawValue)".utf8) }
    static func buildKey(_ name: ProjectionName) -> [UInt8] { Array("build/\(name.builder.rawValue)".utf8) }

    /// The daily-stats projection of stores written before version 5 of the todos one, which
    /// now counts the days: its state key and its databases (emptied when such a store opens).
    static let legacyStateKey = Array("state/daily-stats".utf8), legacyBuildKey = Array("build/daily-stats".utf8)
    static let legacyDatabaseNames = ["daily-stats", "daily-stats.todos", "daily-stats.by-user", "daily-stats.deleted-users",
                                      "daily-stats.hidden", "daily-stats.hidden-by-user"]

    /// Opens every database (creating what is missing) and gives each projection a state.
    static func open(in environment: Environment, versions: [ProjectionName: UInt32]) throws -> ModelDatabases {
        // An initialized environment opens without a write transaction.
        let existing = try? environment.read { txn -> ModelDatabases? in
            let databases = try open(txn, create: false)
            for name in ProjectionName.builders where try txn.get(databases.meta, key: stateKey(name)) == nil {
                return nil
            }
            if try txn.get(databases.meta, key: legacyStateKey) != nil { return nil }
            return databases
        }
        if let existing = existing.flatMap({ $0 }) { return existing }
        return try environment.write { txn in
            let databases = try open(txn, create: true)
            for name in ProjectionName.builders where try txn.get(databases.meta, key: stateKey(name)) == nil {
                let state = ProjectionState(slot: .blue, version: versions[name]!, generation: 1, checkpoint: 0,
                                            skipped: 0, buildID: 0)
                try txn.put(databases.meta, key: stateKey(name), value: state.encoded())
            }
            try emptyLegacyDatabases(txn, meta: databases.meta)
            return databases
        }
    }

    /// Empties the databases of the daily-stats projection of older stores and forgets its state
    /// (their handles stay open for the process: dropping one could close it under a reader).
    private static func emptyLegacyDatabases(_ txn: Transaction, meta: Database) throws {
        guard try txn.get(meta, key: legacyStateKey) != nil else { return }
        for base in legacyDatabaseNames {
            for slot in Slot.allCases {
                do {
                    try txn.clear(try txn.openDatabase(named: "\(base).\(slot.suffix)", create: false))
                } catch LMDBError.notFound {
                    continue   // an older version had fewer databases
                }
            }
        }
        try txn.delete(meta, key: legacyStateKey)
        try txn.delete(meta, key: legacyBuildKey)
    }

    private static func open(_ txn: Transaction, create: Bool) throws -> ModelDatabases {
        let meta = try txn.openDatabase(named: "meta", create: create)
        var handles: [ProjectionName: [[Database]]] = [:]
        for name in ProjectionName.builders {
            handles[name] = try Slot.allCases.map { slot in
                try name.projection.databaseNames.map { base in
                    try txn.openDatabase(named: "\(base).\(slot.suffix)", create: create)
                }
            }
        }
        return ModelDatabases(meta: meta, handles: handles)
    }

    // MARK: - Meta records

    func state(_ name: ProjectionName, _ txn: Transaction) throws -> ProjectionState {
        guard let bytes = try txn.get(meta, key: Self.stateKey(name)) else {
            throw ProjectionError.corruptModel("the state of '\(name)' is missing")
        }
        return try ProjectionState(bytes)
    }

    func putState(_ state: ProjectionState, of name: ProjectionName, _ txn: Transaction) throws {
        try txn.put(meta, key: Self.stateKey(name), value: state.encoded())
    }

    func build(_ name: ProjectionName, _ txn: Transaction) throws -> BuildState? {
        try txn.get(meta, key: Self.buildKey(name)).map { bytes in try BuildState(bytes) }
    }

    func putBuild(_ build: BuildState, of name: ProjectionName, _ txn: Transaction) throws {
        try txn.put(meta, key: Self.buildKey(name), value: build.encoded())
    }

    func deleteBuild(of name: ProjectionName, _ txn: Transaction) throws {
        try txn.delete(meta, key: Self.buildKey(name))
    }

    /// Empties every database of `name` in `slot`.
    func clear(_ name: ProjectionName, _ slot: Slot, _ txn: Transaction) throws {
        for db in databases(name, slot) { try txn.clear(db) }
    }
}
