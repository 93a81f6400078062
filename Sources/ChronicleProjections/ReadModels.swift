import ChronicleTodoDomain
import Foundation
import ChronicleLMDB
import UUIDText

/// The read models' LMDB environment: users, todos, daily stats, tags and conflicts, each a
/// projection of the log with its own checkpoint (daily stats share the todos' one: they are
/// counted from the todos, see ``ProjectionName``).
///
/// It is a separate environment from the log, so projection writes never contend with
/// appends. Every query is a point lookup or a range scan over an index, and returns
/// plain values decoded before the read transaction ends.
///
/// ```swift
/// let models = try ReadModels(path: store + "/models")
/// let runner = ProjectionRunner(log: log, models: models)
/// try await runner.catchUp()
/// let due = try models.todos(on: try CalendarDay(parsing: "2026-12-01"))
/// let week = try models.stats(from: monday, to: sunday)
/// ```
///
/// Several processes may open the same models folder; each event is still applied once.
public final class ReadModels: Sendable {
    /// How to open the models.
    public struct Options: Sendable {
        /// Skip the fsync at commit: faster, not durable (a crash may lose the last batches,
        /// which are then applied again from the log). For tests and scratch stores.
        public var noSync: Bool
        /// The initial LMDB map size; it grows by itself (to 64 MiB at the first growth, then
        /// by quarters). Small, because the models' file is reserved up to the map (`writeMap`):
        /// a store holding a few events takes about 1 MiB of models on disk, not 64.
        public var initialMapSize: Int

        /// Makes options; by default commits are durable and the map starts at 1 MiB.
        public init(noSync: Bool = false, initialMapSize: Int = 1 << 20) {
            self.noSync = noSync
            self.initialMapSize = initialMapSize
        }
    }

    /// The folder the models live in.
    public let path: String
    let environment: Environment

    /// Makes room before applying `events` events at once (a rebuild, a large catch-up): the
    /// map starts at 1 MiB for small stores, and a transaction that fills it runs again after
    /// the map grows, so a large batch grows it first, to 64 MiB.
    func prepareForBatch(of events: UInt64) throws {
        guard events >= 10_000 else { return }
        try environment.ensureMapSize(atLeast: 64 << 20)
    }

    /// Writes a consistent, compacted copy of the models (one read transaction) into the
    /// empty folder `path` (see ``ChronicleStore`` backups).
    public func copy(to path: String) throws(LMDBError) {
        try environment.copy(to: path)
    }
    let databases: ModelDatabases
    /// The version of each projection's code (tests may pretend another); see ``codeVersion(of:)``.
    private let codeVersions: [ProjectionName: UInt32]

    /// The version of the code that builds model `name` (its builder's).
    func codeVersion(of name: ProjectionName) -> UInt32 {
        codeVersions[name.builder]!
    }

    /// Opens (creating when missing) the read models in the folder `path`.
    ///
    /// A model built by an older version of its projection stays readable; the
    /// ``ProjectionRunner`` rebuilds it in the background.
    /// - throws: ``ProjectionError/cannotOpen(path:reason:)`` when LMDB refuses the folder.
    public convenience init(path: String, options: Options = Options()) throws {
        try self.init(path: path, options: options,
                      versions: Dictionary(uniqueKeysWithValues: ProjectionName.allCases.map { ($0, $0.projection.version) }))
    }

    init(path: String, options: Options, versions: [ProjectionName: UInt32]) throws {
        self.path = path
        self.codeVersions = versions
        do {
            // Write transactions of a rebuild are large: in place, their dirty pages are
            // page cache instead of anonymous memory.
            environment = try Environment(path: path, options: .init(mapSize: options.initialMapSize, maxDatabases: 64,
                                                                     noSync: options.noSync, writeMap: true))
            databases = try ModelDatabases.open(in: environment, versions: versions)
        } catch let error as LMDBError {
            throw ProjectionError.cannotOpen(path: path, reason: error.description)
        }
    }

    // MARK: - Users

    /// The live user `id`, or nil.
    public func user(_ id: UUID) throws -> User? {
        try read { txn in
            try UsersProjection.load(id, txn: txn, byID: try active(.users, txn)[0])
        }
    }

    /// Every live user, by name, then id: a scan of the name index.
    ///
    /// Names compare as Unicode scalars of their NFC form, so canonically equivalent
    /// spellings (`é` and `e` + U+0301) sort together; this is Swift's string order
    /// except for a few oddities such as U+212B ANGSTROM SIGN.
    public func users() throws -> [User] {
        try read { txn in try Self.users(txn, try active(.users, txn)) }
    }

    /// The users of a users slot, by name then id.
    static func users(_ txn: Transaction, _ dbs: [Database]) throws -> [User] {
        try listByName(txn, index: dbs[1], name: \.name) { id in try UsersProjection.load(id, txn: txn, byID: dbs[0]) }
    }

    /// The entities a name index lists (``ModelCodec/nameKey(_:id:into:)``), in its order:
    /// by `name`, then id. `load` reads each listed id.
    static func listByName<Entity: Identifiable>(
        _ txn: Transaction, index: Database, name: (Entity) -> String, load: (UUID) throws -> Entity?
    ) throws -> [Entity] where Entity.ID == UUID {
        var entities: [Entity] = []
        // Entities whose cut names share one key prefix: ordered in memory by their full names.
        var cut: (prefix: [UInt8], start: Int)?
        func closeCut() {
            guard let group = cut else { return }
            cut = nil
            entities[group.start...].sort { a, b in
                ModelCodec.nameOrder(name(a), id: a.id).lexicographicallyPrecedes(ModelCodec.nameOrder(name(b), id: b.id))
            }
        }
        try txn.withCursor(index) { cursor in
            var entry = try cursor.first()
            while let current = entry {
                let id = try ModelCodec.id(in: current.key, at: current.key.count - 16)
                guard let entity = try load(id) else {
                    throw ProjectionError.corruptModel("a name index lists \(id.lowercasedString), which is missing")
                }
                if ModelCodec.isTruncatedNameKey(current.key) {
                    let prefix = Array(current.key.dropLast(16))
                    if cut?.prefix != prefix {
                        closeCut()
                        cut = (prefix, entities.count)
                    }
                } else {
                    closeCut()
                }
                entities.append(entity)
                entry = try cursor.next()
            }
        }
        closeCut()
        return entities
    }

    // MARK: - Todos

    /// The live todo `id`, or nil; its `tags` are its live tags.
    public func todo(_ id: UUID) throws -> Todo? {
        try read { txn in
            let tags = try active(.tags, txn)[0]
            return try TodosProjection.load(id, txn: txn, byID: try active(.todos, txn)[0]).map { todo in
                try Self.withLiveTags(todo, txn, tags)
            }
        }
    }

    /// Live todos by deadline, then id; only those due `day`, owned by `user` and/or
    /// showing the live `tag` when given. Each todo's `tags` are its live tags.
    ///
    /// A range scan of `todos.by-deadline`, `todos.by-user` (a user given) or `todos.by-tag`
    /// (a tag given; a user then filters). A tag that is not live shows on no todo.
    public func todos(on day: CalendarDay? = nil, user: UUID? = nil, tag: UUID? = nil) throws -> [Todo] {
        var prefix: [UInt8] = []
        if let tag { prefix.appendID(tag) } else if let user { prefix.appendID(user) }
        if let day { prefix.appendBigEndian(ModelCodec.dayKey(day)) }
        return try read { txn in
            let dbs = try active(.todos, txn)
            let tags = try active(.tags, txn)[0]
            if let tag, try TagsProjection.load(tag, txn: txn, byID: tags) == nil { return [] }
            let index = tag != nil ? dbs[3] : user != nil ? dbs[2] : dbs[1]
            var todos: [Todo] = []
            try txn.withCursor(index) { cursor in
                var entry = prefix.isEmpty ? try cursor.first() : try cursor.seek(atLeast: prefix)
                while let current = entry, current.key.starts(with: prefix) {
                    let id = try ModelCodec.id(in: current.key, at: current.key.count - 16)
                    guard let todo = try TodosProjection.load(id, txn: txn, byID: dbs[0]) else {
                        throw ProjectionError.corruptModel("a todo index lists todo \(id.lowercasedString), which is missing")
                    }
                    if tag == nil || user == nil || todo.userId == user {
                        todos.append(try Self.withLiveTags(todo, txn, tags))
                    }
                    entry = try cursor.next()
                }
            }
            return todos
        }
    }

    /// `todo` with only the tags that are live in the tags model.
    static func withLiveTags(_ todo: Todo, _ txn: Transaction, _ tags: Database) throws -> Todo {
        guard !todo.tags.isEmpty else { return todo }
        var shown = todo
        shown.tags = try todo.tags.filter { id in
            try withUnsafeBytes(of: id.uuid) { key in try txn.get(tags, key: key) != nil }
        }
        return shown
    }

    // MARK: - Tags

    /// The live tag `id`, or nil.
    public func tag(_ id: UUID) throws -> Tag? {
        try read { txn in try TagsProjection.load(id, txn: txn, byID: try active(.tags, txn)[0]) }
    }

    /// What merges overruled of this store's writes, oldest first, after the tags shown under
    /// a changed name (``TagNames``), which every device lists alike.
    public func conflicts() throws -> [MergeConflict] {
        try read { txn in
            var found: [MergeConflict] = []
            let tags = try active(.tags, txn)
            var renamed: [StoredTag] = []
            try txn.withCursor(tags[0]) { cursor in
                var entry = try cursor.first()
                while let current = entry {
                    let tag = try ModelCodec.decodeStoredTag(id: try ModelCodec.id(in: current.key, at: 0), current.value)
                    if tag.shownAs > 1 { renamed.append(tag) }
                    entry = try cursor.next()
                }
            }
            renamed.sort { a, b in
                ModelCodec.nameOrder(Tag.foldedName(a.shown.name), id: a.id)
                    .lexicographicallyPrecedes(ModelCodec.nameOrder(Tag.foldedName(b.shown.name), id: b.id))
            }
            for tag in renamed {
                found.append(MergeConflict(
                    stream: DomainEvent.tagStream(tag.id), kind: TagNames.conflictKind,
                    detail: "shown as \"\(tag.shown.name)\": a tag named earlier has the same name up to case"))
            }
            try txn.withCursor(try active(.conflicts, txn)[0]) { cursor in
                var entry = try cursor.first()
                while let current = entry {
                    found.append(try ConflictsProjection.decode(current.value))
                    entry = try cursor.next()
                }
            }
            return found
        }
    }

    /// Every live tag, by case-folded name, then id: a scan of the name index.
    public func tags() throws -> [Tag] {
        try read { txn in
            let dbs = try active(.tags, txn)
            return try Self.listByName(txn, index: dbs[1], name: { Tag.foldedName($0.name) }) { id in
                try TagsProjection.load(id, txn: txn, byID: dbs[0])
            }
        }
    }

    // MARK: - Daily stats

    /// The days from `from` through `to` (both included, either open) with at least one live todo, by date.
    public func stats(from: CalendarDay? = nil, to: CalendarDay? = nil) throws -> [DailyStat] {
        let low = from.map(ModelCodec.dayKey) ?? 0
        let high = to.map(ModelCodec.dayKey) ?? .max
        guard low <= high else { return [] }
        return try read { txn in
            let db = try active(.dailyStats, txn)[0]
            var stats: [DailyStat] = []
            var start: [UInt8] = []
            start.appendBigEndian(low)
            try txn.withCursor(db) { cursor in
                var entry = try cursor.seek(atLeast: start)
                while let current = entry {
                    var reader = ModelReader(current.key)
                    let key = try reader.integer(UInt32.self)
                    if key > high { break }
                    let counts = try ModelCodec.decodeStat(current.value)
                    stats.append(DailyStat(date: try ModelCodec.day(fromKey: key), total: counts.total,
                                           completed: counts.completed))
                    entry = try cursor.next()
                }
            }
            return stats
        }
    }

    // MARK: - Checkpoints

    /// The last log position applied to `projection`'s model.
    public func checkpoint(of projection: ProjectionName) throws -> UInt64 {
        try read { txn in try databases.state(projection, txn).checkpoint }
    }

    /// The last log position every model includes (the minimum over the projections).
    public func checkpoint() throws -> UInt64 {
        try read { txn in
            try ProjectionName.builders.map { name in try databases.state(name, txn).checkpoint }.min() ?? 0
        }
    }

    /// Where each projection stands, for operators (`chronicle rebuild`, `verify`).
    public func status() throws -> [ProjectionStatus] {
        try read { txn in
            try ProjectionName.allCases.map { name in
                let state = try databases.state(name, txn)
                let build = try databases.build(name, txn)
                return ProjectionStatus(name: name, checkpoint: state.checkpoint, builtByVersion: state.version,
                                        codeVersion: codeVersion(of: name), generation: state.generation,
                                        skippedEvents: state.skipped, rebuildCheckpoint: build?.checkpoint,
                                        entries: try txn.count(databases.databases(name, state.slot)[0]))
            }
        }
    }

    // MARK: - Internals

    /// The projections whose model must be rebuilt before it is served: built by an older
    /// version of their code, or ahead of the log (a checkpoint past its head: models copied
    /// from a later state than the log beside them). See ``needsRebuild(_:logHead:)``.
    func staleProjections(logHead: () throws -> UInt64) throws -> [ProjectionName] {
        let states = try read { txn in try ProjectionName.builders.map { ($0, try databases.state($0, txn)) } }
        let head = try logHead()
        return states.filter { needsRebuild($0.1, of: $0.0, head: head) }.map(\.0)
    }

    /// The projections whose checkpoint is past the log's head.
    public func projectionsAhead(ofLogHead logHead: () throws -> UInt64) throws -> [ProjectionName] {
        let states = try read { txn in try ProjectionName.allCases.map { ($0, try databases.state($0, txn)) } }
        let head = try logHead()
        return states.filter { $0.1.checkpoint > head }.map(\.0)
    }

    /// Whether a model in `state` must be rebuilt. `head` must be read after `state`: models
    /// apply only events that exist, so a checkpoint read first is never past a head read
    /// later unless the models really are ahead of this log.
    func needsRebuild(_ state: ProjectionState, of name: ProjectionName, head: UInt64) -> Bool {
        state.version < codeVersion(of: name) || state.checkpoint > head
    }

    /// Whether `state` was built by this code (an older model is rebuilt; a newer one is left alone).
    func isCurrent(_ name: ProjectionName, _ state: ProjectionState) -> Bool {
        state.version == codeVersion(of: name)
    }

    /// The databases readers use for `name`.
    func active(_ name: ProjectionName, _ txn: Transaction) throws -> [Database] {
        databases.databases(name, try databases.state(name, txn).slot)
    }

    /// A read transaction, LMDB errors mapped.
    func read<T>(_ body: (Transaction) throws -> T) throws -> T {
        do {
            return try environment.read(body)
        } catch let error as LMDBError {
            throw ProjectionError.storage(error)
        }
    }

    /// A write transaction, LMDB errors mapped. `body` may run more than once (map growth).
    func write<T>(_ body: (Transaction) throws -> T) throws -> T {
        do {
            return try environment.write(body)
        } catch let error as LMDBError {
            throw ProjectionError.storage(error)
        }
    }

    /// Runs a large write transaction (a batch of a rebuild or of a backlog) after growing the
    /// map to hold what `forecast` foresees, then tells `forecast` how much it grew the file
    /// (without a forecast, as ``write(_:)``).
    func write<T>(foreseeing forecast: MapGrowthForecast?, _ body: (Transaction) throws -> T) throws -> T {
        guard let forecast else { return try write(body) }
        do {
            try environment.ensureRoom(for: forecast.room)
        } catch {
            throw ProjectionError.storage(error)
        }
        let before = environment.usedSize()
        let result = try write(body)
        forecast.record(from: before, to: environment.usedSize())
        return result
    }

    /// Every key and value of the active databases of `name`, by database name without the slot.
    ///
    /// What "byte-identical" is measured on: two models with equal contents answer every query alike.
    func contents(of name: ProjectionName) throws -> [String: [[UInt8]]] {
        try read { txn in
            let dbs = try active(name, txn)
            var result: [String: [[UInt8]]] = [:]
            for (base, db) in zip(name.databaseNames, dbs) {
                var entries: [[UInt8]] = []
                try txn.withCursor(db) { cursor in
                    var entry = try cursor.first()
                    while let current = entry {
                        entries.append(Array(current.key))
                        entries.append(Array(current.value))
                        entry = try cursor.next()
                    }
                }
                result[base] = entries
            }
            return result
        }
    }
}
