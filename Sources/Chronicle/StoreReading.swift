import ChronicleSchema
import ChronicleLog
import ChronicleProjections
import Foundation

/// What a command decides on (``ChronicleModel/StateReading``), read where it costs least:
/// each entity folded from its own stream in the log, as of the position the decision began
/// at; the stored entities (`entities/`) only for what needs an index (the holders of a unique
/// value, a parent's children), brought up to the log's head the first time one is asked.
///
/// A command on one entity then writes nothing but its append: the stored entities follow the
/// log later, or when a read or an indexed question needs them. Everything read is checked by
/// the append (each stream's version as read, the keys of the rules), so a decision on
/// anything that changed since is decided again.
final class StoreReading: ChronicleModel.StateReading {
    let log: EventLog
    let model: ChronicleModel
    /// The stored entities, caught up only for an indexed question.
    private let states: ModelStates
    private let reader: ChronicleModel.EventReader
    /// The log's head when the decision began: the streams are read up to it.
    let position: UInt64
    /// The entities folded so far, by stream (nil: none of its events created it).
    private var folded: [String: ChronicleModel.EntityState?] = [:]
    /// The version of each stream folded, as of ``position``.
    private var versions: [String: UInt64] = [:]
    private var indexes: ModelStates.Reading?

    /// A reading of `log` by `reader`'s model, whose stored entities are `states`.
    init(log: EventLog, states: ModelStates, reader: ChronicleModel.EventReader) throws {
        self.log = log
        self.states = states
        self.reader = reader
        model = reader.model
        position = try log.head()
    }

    func state(of entity: String, id: UUID) throws -> ChronicleModel.EntityState? {
        guard let declared = model.entity(named: entity) else { return nil }
        let stream = declared.stream(of: id)
        if let known = folded[stream] { return known }
        let state = try fold(stream, entity: entity, id: id)
        folded[stream] = state
        return state
    }

    /// The stream's events up to ``position``, folded in the merge's order (the server's order,
    /// then this store's unsent events). An event the model cannot read is left out, as the
    /// stored entities leave it out.
    private func fold(_ stream: String, entity: String, id: UUID) throws -> ChronicleModel.EntityState? {
        let recorded = try log.read(stream: stream).filter { $0.position <= position }
        versions[stream] = recorded.last?.version ?? 0
        guard !recorded.isEmpty else { return nil }
        let upstream = recorded.contains { $0.origin != log.deviceID } ? try log.upstreamPositions(of: recorded.map(\.position)) : [:]
        var ranked: [(rank: ChronicleModel.EventRank, event: ChronicleModel.Event)] = []
        for event in recorded {
            guard let read = try? reader.read(type: event.type, stream: event.stream, data: event.data, schemaVersion: Int(event.schemaVersion)),
                  read.entity == entity, read.id == id else { continue }
            ranked.append((ChronicleModel.EventRank(upstream: upstream[event.position], position: event.position), read))
        }
        if !upstream.isEmpty { ranked.sort { $0.rank < $1.rank } }
        var snapshot = ChronicleModel.Snapshot(model)
        for (rank, event) in ranked { snapshot.apply(event, rank: rank) }
        return snapshot.state(of: entity, id: id)
    }

    func isShown(_ entity: String, id: UUID) throws -> Bool {
        try model.isShown(entity, id: id, states: state(of:id:))
    }

    func holder(of entity: String, field: String, key: String) throws -> UUID? {
        if let stored = try indexed().holder(of: entity, field: field, key: key) { return stored }
        // The append is judged by the log's claims: a value whose key another entity still holds
        // there is taken too (claimed by an event pulled, whose value a later change replaced
        // in the merge), or every try of the append would conflict on it.
        guard let declared = model.entity(named: entity), let declaredField = declared.field(named: field),
              let owner = try log.holder(of: ConsistencyKeys.fitted(ChronicleModel.Decider.uniqueKey(declared, declaredField, key))),
              let id = UUID(uuidString: String(owner.suffix(36))), declared.stream(of: id) == owner else { return nil }
        return id
    }

    func holders(of entity: String, field: String, key: String) throws -> [UUID] {
        try indexed().holders(of: entity, field: field, key: key)
    }

    func children(of entity: String, field: String, parent: UUID) throws -> [ChronicleModel.EntityState] {
        try indexed().children(of: entity, field: field, parent: parent)
    }

    func version(of stream: String) throws -> UInt64 {
        if let folded = versions[stream] { return folded }
        return try log.version(of: stream, asOf: position)
    }

    /// The stored entities, caught up to the log's head (at least ``position``) once.
    private func indexed() throws -> ModelStates.Reading {
        if let indexes { return indexes }
        try states.catchUp()
        let reading = try states.reading()
        indexes = reading
        return reading
    }
}
